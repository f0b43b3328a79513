/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's small public calls: names, options, info, destroy (the one-shot dmx_gemm is in
 * gemm_plan.c, beside the plan it makes). */
#include "dmx/gemm.h"
#include "gemm_internal.h"

#include <string.h>

const char *dmx_gemm_alg_name(dmx_gemm_alg alg)
{
    static const char *names[] = {"auto", "summa", "hsumma", "cannon"};
    return alg >= DMX_GEMM_AUTO && alg <= DMX_GEMM_CANNON ? names[alg] : NULL;
}

dmx_status dmx_gemm_options_init(dmx_gemm_options *opt)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(opt != NULL, DMX_ERR_NULL, "options is NULL");
    memset(opt, 0, sizeof *opt);
    opt->alg = DMX_GEMM_AUTO;
    opt->overlap = 1;
cleanup:
    return st;
}

dmx_status dmx_gemm_plan_get_info(const dmx_gemm_plan *plan, dmx_gemm_info *info)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(plan != NULL && info != NULL, DMX_ERR_NULL, "plan or info is NULL");
    *info = plan->info;
cleanup:
    return st;
}

/* Keep the first failure: st unless it is DMX_SUCCESS, else s. */
static dmx_status first(dmx_status st, dmx_status s)
{
    return st != DMX_SUCCESS ? st : s;
}

dmx_status dmxi_gemm_release(dmx_gemm_plan *g, dmx_status st)
{
    if (g == NULL)
        return st;
    st = first(st, dmx_plan_destroy(&g->pa));
    st = first(st, dmx_plan_destroy(&g->pb));
    st = first(st, dmx_plan_destroy(&g->pcback));
    st = first(st, dmx_layout_destroy(&g->la));
    st = first(st, dmx_layout_destroy(&g->lb));
    st = first(st, dmx_layout_destroy(&g->lc));
    free(g->a_own);
    free(g->b_own);
    free(g->c_own);
    for (int i = 0; i < 4; i++)
        free(g->work[i]);
    free(g->rows);
    free(g->cols);
    free(g->ka);
    free(g->kb);
    MPI_Comm *comms[] = {&g->row,       &g->col,       &g->row_cross, &g->row_group,
                         &g->col_cross, &g->col_group, &g->comm};
    for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
        if (*comms[i] != MPI_COMM_NULL)
            DMXI_MPI_ALL(MPI_Comm_free(comms[i]));
    free(g);
    return st;
}

dmx_status dmx_gemm_plan_destroy(dmx_gemm_plan **plan)
{
    if (plan == NULL || *plan == NULL)
        return DMX_SUCCESS;
    dmx_gemm_plan *g = *plan;
    *plan = NULL;
    return dmxi_gemm_release(g, DMX_SUCCESS);
}
