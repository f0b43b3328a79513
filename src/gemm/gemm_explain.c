/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's choice explained (dmx model gemm --explain): the candidates are the three
 * algorithms, each at the configuration (grid, G, panels) the model finds best for it with the
 * caller's options (dmx_gemm_predict); the choice is dmxi_gemm_choose's, the call
 * dmx_gemm_plan_create makes (gemm_model.c), with DMX_GEMM applied the same way. */
#include "choice.h"
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void config(const dmx_gemm_info *i, char *buf, size_t n)
{
    snprintf(buf, n, "grid %dx%d, G %d (%dx%d), b %lld, B %lld, compute %.3g s", i->prow, i->pcol,
             i->groups, i->group_rows, i->group_cols, (long long)i->panel,
             (long long)i->outer_panel, i->compute_seconds);
}

dmx_status dmx_gemm_explain(dmx_dtype dtype, int64_t m, int64_t n, int64_t k, int64_t p,
                            int64_t nodes, const dmx_gemm_options *options, dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_options o;
    dmx_gemm_info info;
    char buf[128];
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0 && m >= 0 && n >= 0 && k >= 0 && p >= 1 && p <= INT_MAX &&
                   nodes >= 1 && nodes <= p,
               DMX_ERR_ARG, "invalid dtype, size, rank or node count");
    dmx_gemm_options_init(&o);
    if (options)
        o = *options;
    dmxi_choice_init(out, "gemm", "m=%lld n=%lld k=%lld p=%lld nodes=%lld dtype-bytes=%d",
                     (long long)m, (long long)n, (long long)k, (long long)p, (long long)nodes,
                     (int)dmx_dtype_size(dtype));
    for (int a = DMX_GEMM_SUMMA; a <= DMX_GEMM_CANNON; a++) {
        dmx_status sa = dmx_gemm_predict((dmx_gemm_alg)a, dtype, m, n, k, p, nodes, &o, &info);
        if (sa == DMX_SUCCESS) {
            config(&info, buf, sizeof buf);
            dmxi_choice_add(out, dmx_gemm_alg_name((dmx_gemm_alg)a), info.predicted_seconds, 1,
                            "%s", buf);
        } else {
            dmxi_choice_add(out, dmx_gemm_alg_name((dmx_gemm_alg)a), NAN, 0, "%s",
                            dmx_last_error());
        }
    }
    /* the plan's own call: its choice, configuration and time */
    memset(&info, 0, sizeof info);
    DMXI_TRY(dmxi_gemm_choose(dtype, m, n, k, p, (int)nodes, &o, &info));
    int ci = dmxi_choice_find(out, dmx_gemm_alg_name(info.alg));
    config(&info, buf, sizeof buf);
    const char *env = dmxi_setting_str(DMXI_SET_GEMM);
    if (o.alg != DMX_GEMM_AUTO)
        dmxi_choice_pick(out, ci, "passed in the options; %s", buf);
    else if (env && strcmp(env, "auto") != 0)
        dmxi_choice_pick(out, ci, "forced by DMX_GEMM=%s; %s", env, buf);
    else
        dmxi_choice_pick(out, ci,
                         "least predicted cost (%.4g s; a larger panel must win by 1 %%); %s",
                         info.predicted_seconds, buf);
cleanup:
    return st;
}
