/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's choice explained (dmx model gemm --explain): the candidates are the three
 * algorithms, each at the configuration (grid, G, panels) the model finds best for it with the
 * caller's options, and, when the operands' layouts are described (dmx_gemm_explain_operands),
 * the best configuration on each grid with its redistribution term; the choice is
 * dmxi_gemm_choose's, the call dmx_gemm_plan_create makes (gemm_model.c), with DMX_GEMM applied
 * the same way. */
#include "choice.h"
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void config(const dmx_gemm_info *i, int moves, char *buf, size_t n)
{
    int w = snprintf(buf, n, "grid %dx%d, G %d (%dx%d), b %lld, B %lld, compute %.3g s", i->prow,
                     i->pcol, i->groups, i->group_rows, i->group_cols, (long long)i->panel,
                     (long long)i->outer_panel, i->compute_seconds);
    if (moves && w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, ", multiply %.4g s + redist %.4g s", i->predicted_seconds,
                 i->redist_seconds);
}

/* Each grid d x p/d the search tries (both ways round; above 4096 ranks the most square only),
 * at its best configuration under the options, as a candidate named "grid RxC". */
static void grids(dmx_dtype dtype, int64_t m, int64_t n, int64_t k, int64_t p, int nodes,
                  const dmx_gemm_options *o, const dmxi_gemm_data *data, dmx_choice *out)
{
    int sq = 1;
    char name[40], buf[128];
    for (int r = 1; (int64_t)r * r <= p; r++)
        if (p % r == 0)
            sq = r;
    for (int64_t r = 1; r <= p && out->n < DMX_CHOICE_MAX; r++) {
        if (p % r || (p > 4096 && r != sq && r != p / sq))
            continue;
        dmx_gemm_options g = *o;
        dmx_gemm_info info;
        g.prow = (int)r, g.pcol = (int)(p / r);
        snprintf(name, sizeof name, "grid %dx%d", g.prow, g.pcol); /* fits the 24 of a name */
        memset(&info, 0, sizeof info);
        if (dmxi_gemm_choose(dtype, m, n, k, p, nodes, &g, data, &info) != DMX_SUCCESS) {
            dmxi_choice_add(out, name, NAN, 0, "%s", dmx_last_error());
            continue;
        }
        snprintf(buf, sizeof buf, "%s G %d, b %lld, B %lld: multiply %.4g s + redist %.4g s",
                 dmx_gemm_alg_name(info.alg), info.groups, (long long)info.panel,
                 (long long)info.outer_panel, info.predicted_seconds, info.redist_seconds);
        dmxi_choice_add(out, name, info.predicted_seconds + info.redist_seconds, 1, "%s", buf);
    }
}

dmx_status dmx_gemm_explain_operands(dmx_dtype dtype, int64_t m, int64_t n, int64_t k, int64_t p,
                                     int64_t nodes, const dmx_gemm_options *options,
                                     const dmx_gemm_operands *operands, dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_options o;
    dmx_gemm_info info;
    dmxi_gemm_data data;
    char buf[128];
    dmxi_gemm_data_from_operands(operands, &data);
    int moves = data.known[0] || data.known[1] || data.known[2];
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0 && m >= 0 && n >= 0 && k >= 0 && p >= 1 && p <= INT_MAX &&
                   nodes >= 1 && nodes <= p,
               DMX_ERR_ARG, "invalid dtype, size, rank or node count");
    for (int i = 0; i < 3; i++) { /* each description of its operand's size, on p ranks */
        const dmx_relabel_desc *x = &data.d[i];
        int tr = i < 2 && data.trans[i];
        int64_t r0 = i == 1 ? k : m, c0 = i == 0 ? k : n;
        int64_t rows = tr ? c0 : r0, cols = tr ? r0 : c0; /* as stored */
        DMXI_CHECK(!data.known[i] || (x->m == rows && x->n == cols &&
                                      (x->kind != DMX_RELABEL_DESC_BLOCK_CYCLIC ||
                                       (int64_t)x->prow * x->pcol <= p)),
                   DMX_ERR_ARG,
                   "the description of %c is %lld x %lld (grid %d x %d); as stored it is %lld x "
                   "%lld on at most %lld ranks",
                   "ABC"[i], (long long)x -> m, (long long)x -> n, x -> prow, x -> pcol,
                   (long long)rows, (long long)cols, (long long)p);
    }
    dmx_gemm_options_init(&o);
    if (options)
        o = *options;
    dmxi_choice_init(out, "gemm", "m=%lld n=%lld k=%lld p=%lld nodes=%lld dtype-bytes=%d%s%s%s%s",
                     (long long)m, (long long)n, (long long)k, (long long)p, (long long)nodes,
                     (int)dmx_dtype_size(dtype), moves ? " operands=" : "",
                     data.known[0] ? "A" : "", data.known[1] ? "B" : "", data.known[2] ? "C" : "");
    for (int a = DMX_GEMM_SUMMA; a <= DMX_GEMM_CANNON; a++) {
        dmx_gemm_options f = o;
        f.alg = (dmx_gemm_alg)a;
        memset(&info, 0, sizeof info);
        dmx_status sa = dmxi_gemm_choose(dtype, m, n, k, p, (int)nodes, &f, &data, &info);
        if (sa == DMX_SUCCESS) {
            config(&info, moves, buf, sizeof buf);
            dmxi_choice_add(out, dmx_gemm_alg_name((dmx_gemm_alg)a),
                            info.predicted_seconds + info.redist_seconds, 1, "%s", buf);
        } else {
            dmxi_choice_add(out, dmx_gemm_alg_name((dmx_gemm_alg)a), NAN, 0, "%s",
                            dmx_last_error());
        }
    }
    if (moves && o.prow == 0)
        grids(dtype, m, n, k, p, (int)nodes, &o, &data, out);
    /* the plan's own call: its choice, configuration and time */
    memset(&info, 0, sizeof info);
    DMXI_TRY(dmxi_gemm_choose(dtype, m, n, k, p, (int)nodes, &o, &data, &info));
    int ci = dmxi_choice_find(out, dmx_gemm_alg_name(info.alg));
    config(&info, moves, buf, sizeof buf);
    const char *env = dmxi_setting_str(DMXI_SET_GEMM);
    if (o.alg != DMX_GEMM_AUTO)
        dmxi_choice_pick(out, ci, "passed in the options; %s", buf);
    else if (env && strcmp(env, "auto") != 0)
        dmxi_choice_pick(out, ci, "forced by DMX_GEMM=%s; %s", env, buf);
    else
        dmxi_choice_pick(out, ci,
                         "least predicted cost (%.4g s; a larger panel must win by 1 %%); %s",
                         info.predicted_seconds + info.redist_seconds, buf);
cleanup:
    return st;
}

dmx_status dmx_gemm_explain(dmx_dtype dtype, int64_t m, int64_t n, int64_t k, int64_t p,
                            int64_t nodes, const dmx_gemm_options *options, dmx_choice *out)
{
    return dmx_gemm_explain_operands(dtype, m, n, k, p, nodes, options, NULL, out);
}
