/* The multiply's small public calls: names, options, info, destroy, the one-shot form. */
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

static void free_comm(MPI_Comm *c)
{
    if (*c != MPI_COMM_NULL)
        MPI_Comm_free(c);
}

dmx_status dmx_gemm_plan_destroy(dmx_gemm_plan **plan)
{
    if (plan == NULL || *plan == NULL)
        return DMX_SUCCESS;
    dmx_gemm_plan *g = *plan;
    dmx_plan_destroy(&g->pa);
    dmx_plan_destroy(&g->pb);
    dmx_plan_destroy(&g->pcback);
    dmx_layout_destroy(&g->la);
    dmx_layout_destroy(&g->lb);
    dmx_layout_destroy(&g->lc);
    free(g->a_own);
    free(g->b_own);
    free(g->c_own);
    for (int i = 0; i < 4; i++)
        free(g->work[i]);
    free(g->rows);
    free(g->cols);
    free(g->ka);
    free(g->kb);
    free_comm(&g->row);
    free_comm(&g->col);
    free_comm(&g->row_cross);
    free_comm(&g->row_group);
    free_comm(&g->col_cross);
    free_comm(&g->col_group);
    free_comm(&g->comm);
    free(g);
    *plan = NULL;
    return DMX_SUCCESS;
}

dmx_status dmx_gemm(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb, dmx_scalar alpha,
                    const dmx_layout *a, const dmx_layout *b, dmx_scalar beta, dmx_layout *c,
                    const dmx_gemm_options *options)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = NULL;
    DMXI_TRY(dmx_gemm_plan_create(comm, dtype, transa, transb, alpha, a, b, beta, c, options, &g));
    DMXI_TRY(dmx_gemm_plan_execute(g));
cleanup:
    dmx_gemm_plan_destroy(&g);
    return st;
}
