/* SPDX-License-Identifier: BSD-3-Clause */
/* A multiply plan reused after dmx_layout_rebind: the plan must follow the layouts' new arrays
 * (operands used in place were read and written at their planning-time addresses before), and
 * a C rebound onto A's array is refused at execution.
 *
 * For SUMMA, HSUMMA and (on a square grid) Cannon, with A, B and C in block layouts that the
 * algorithm uses in place and in block-cyclic ones that it redistributes: plan with arrays of
 * set 0, execute, rebind all three layouts to arrays of set 1 (other values, C's too, beta =
 * 0.5), execute; C of each set is compared element by element with a serial triple loop over the
 * closed-form inputs, and set 0's C must not change during the second execution. Then C is
 * rebound onto set 1's A: the execution returns DMX_ERR_ARG through the (returning) error
 * handler on every rank, and A is unchanged; likewise for a new plan whose C is rebound onto A
 * before its first execution. Prints "N passed, N failed". */
#include "dmxtest.h"

#include <dmx/gemm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int handled;

static void handler(dmx_status st, const char *msg)
{
    (void)st;
    (void)msg;
    handled++;
}

/* Element (i, j) of operand w (0 A, 1 B, 2 C) of set v. */
static double val(int w, int v, int64_t i, int64_t j)
{
    return (double)((w * 7 + v * 3 + (int)(i * 5 + j * 3)) % 11) - 5.0;
}

typedef struct op {
    int64_t rows, cols, mb, nb, lr, lc;
    double *x[2];
    dmx_layout *l;
} op;

static void make(op *o, dmxt_ctx *ctx, int pr, int pc, int w, int64_t rows, int64_t cols, int fit)
{
    int myr = ctx->rank / pc, myc = ctx->rank % pc;
    o->rows = rows, o->cols = cols;
    o->mb = fit ? rows / pr : 2;
    o->nb = fit ? cols / pc : 2;
    o->lr = dmxt_numroc(rows, o->mb, myr, 0, pr);
    o->lc = dmxt_numroc(cols, o->nb, myc, 0, pc);
    int64_t lld = o->lr > 0 ? o->lr : 1;
    for (int v = 0; v < 2; v++) {
        o->x[v] = malloc(sizeof(double) * (size_t)(lld * (o->lc > 0 ? o->lc : 1)));
        for (int64_t li = 0; li < o->lr; li++)
            for (int64_t lj = 0; lj < o->lc; lj++)
                o->x[v][li + lj * lld] = val(w, v, dmxt_indxl2g(li, o->mb, myr, 0, pr),
                                             dmxt_indxl2g(lj, o->nb, myc, 0, pc));
    }
    dmx_layout_create_block_cyclic(ctx->comm, rows, cols, o->mb, o->nb, pr, pc, 'R', 0, 0, o->x[0],
                                   lld, &o->l);
}

/* Elements of operand w's set v that differ from its initial values (after == 0) or, for C
 * (w = 2, after == 1), from alpha A_v B_v + beta C_v by a serial triple loop. */
static int64_t wrong(const op *c, int w, int v, int after, int64_t k, double alpha, double beta,
                     int pr, int pc, int rank)
{
    int myr = rank / pc, myc = rank % pc;
    int64_t bad = 0, lld = c->lr > 0 ? c->lr : 1;
    for (int64_t li = 0; li < c->lr; li++)
        for (int64_t lj = 0; lj < c->lc; lj++) {
            int64_t i = dmxt_indxl2g(li, c->mb, myr, 0, pr),
                    j = dmxt_indxl2g(lj, c->nb, myc, 0, pc);
            double want = val(w, v, i, j);
            if (after) {
                double sum = 0;
                for (int64_t q = 0; q < k; q++)
                    sum += val(0, v, i, q) * val(1, v, q, j);
                want = alpha * sum + beta * want;
            }
            bad += c->x[v][li + lj * lld] != want;
        }
    return bad;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "gemm_rebind");
    dmx_set_error_handler(handler);
    int p = ctx.size, pr = p >= 4 ? 2 : 1, pc = p / pr;
    const int64_t m = 6 * pr * pc, n = 4 * pr * pc, k = 12;
    const dmx_gemm_alg algs[3] = {DMX_GEMM_SUMMA, DMX_GEMM_HSUMMA, DMX_GEMM_CANNON};
    for (int ai = 0; ai < 3; ai++) {
        if (algs[ai] == DMX_GEMM_CANNON && pr != pc)
            continue;
        for (int fit = 0; fit < 2; fit++) {
            char msg[512] = "", desc[128];
            int64_t bad = 0;
            op a, b, c;
            make(&a, &ctx, pr, pc, 0, m, k, fit);
            make(&b, &ctx, pr, pc, 1, k, n, fit);
            make(&c, &ctx, pr, pc, 2, m, n, fit);
            dmx_gemm_options opt;
            dmx_gemm_options_init(&opt);
            opt.alg = algs[ai];
            opt.prow = pr, opt.pcol = pc;
            const double alpha = 1.0, beta = 0.5;
            dmx_gemm_plan *g = NULL;
            dmx_status st = dmx_gemm_plan_create(ctx.comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N,
                                                 (dmx_scalar){alpha, 0}, a.l, b.l,
                                                 (dmx_scalar){beta, 0}, c.l, &opt, &g);
            bad += dmxt_expect_status(&ctx, st, DMX_SUCCESS, "plan", msg, sizeof msg);
            dmx_gemm_info info = {0};
            if (!bad) {
                dmx_gemm_plan_get_info(g, &info);
                bad += dmxt_expect_status(&ctx, dmx_gemm_plan_execute(g), DMX_SUCCESS,
                                          "first execution", msg, sizeof msg);
            }
            if (!bad && wrong(&c, 2, 0, 1, k, alpha, beta, pr, pc, ctx.rank))
                bad++, snprintf(msg, sizeof msg, "C of set 0 wrong after the first execution");
            /* C of set 0 as it is now, to see that the second execution leaves it alone */
            int64_t clen = (c.lr > 0 ? c.lr : 1) * (c.lc > 0 ? c.lc : 1);
            double *c0 = malloc(sizeof(double) * (size_t)clen);
            memcpy(c0, c.x[0], sizeof(double) * (size_t)clen);
            dmx_layout_rebind(a.l, a.x[1]);
            dmx_layout_rebind(b.l, b.x[1]);
            dmx_layout_rebind(c.l, c.x[1]);
            if (!bad)
                bad += dmxt_expect_status(&ctx, dmx_gemm_plan_execute(g), DMX_SUCCESS,
                                          "execution after the rebind", msg, sizeof msg);
            if (!bad && wrong(&c, 2, 1, 1, k, alpha, beta, pr, pc, ctx.rank))
                bad++, snprintf(msg, sizeof msg, "C of set 1 wrong after the rebind");
            if (!bad && memcmp(c0, c.x[0], sizeof(double) * (size_t)clen) != 0)
                bad++, snprintf(msg, sizeof msg, "set 0's C written by the second execution");
            /* C onto A's array (same block sizes: m x n and m x k share a layout only in
             * memory); A must come through unchanged */
            if (!bad) {
                int before = handled;
                dmx_layout_rebind(c.l, a.x[1]);
                st = dmx_gemm_plan_execute(g);
                bad +=
                    dmxt_expect_status(&ctx, st, DMX_ERR_ARG, "C rebound onto A", msg, sizeof msg);
                if (!bad && (handled != before + 1 || !strstr(dmx_last_error(), "overlaps")))
                    bad++, snprintf(msg, sizeof msg, "handler calls %d, message %s",
                                    handled - before, dmx_last_error());
                int64_t ab = wrong(&a, 0, 1, 0, 0, 0, 0, pr, pc, ctx.rank);
                if (ab && !bad)
                    snprintf(msg, sizeof msg, "%lld elements of A changed", (long long)ab);
                bad += ab;
            }
            /* A new plan whose C is rebound onto A's array before its first execution: refused
             * the same way (the plan notes where its operands were at planning) */
            if (!bad) {
                dmx_layout_rebind(a.l, a.x[0]);
                dmx_layout_rebind(b.l, b.x[0]);
                dmx_layout_rebind(c.l, c.x[0]);
                dmx_gemm_plan *g2 = NULL;
                st = dmx_gemm_plan_create(ctx.comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N,
                                          (dmx_scalar){alpha, 0}, a.l, b.l, (dmx_scalar){beta, 0},
                                          c.l, &opt, &g2);
                bad += dmxt_expect_status(&ctx, st, DMX_SUCCESS, "second plan", msg, sizeof msg);
                if (!bad) {
                    int before = handled;
                    dmx_layout_rebind(c.l, a.x[0]);
                    st = dmx_gemm_plan_execute(g2);
                    bad += dmxt_expect_status(&ctx, st, DMX_ERR_ARG,
                                              "C rebound onto A before the first execution", msg,
                                              sizeof msg);
                    if (!bad && (handled != before + 1 || !strstr(dmx_last_error(), "overlaps")))
                        bad++, snprintf(msg, sizeof msg, "handler calls %d, message %s",
                                        handled - before, dmx_last_error());
                    int64_t ab = wrong(&a, 0, 0, 0, 0, 0, 0, pr, pc, ctx.rank);
                    if (ab && !bad)
                        snprintf(msg, sizeof msg, "%lld elements of A changed (first execution)",
                                 (long long)ab);
                    bad += ab;
                }
                dmx_gemm_plan_destroy(&g2);
            }
            snprintf(desc, sizeof desc, "%s, %s layouts (in place: A %d, B %d, C %d)",
                     dmx_gemm_alg_name(algs[ai]), fit ? "fitting" : "block-cyclic", info.a_in_place,
                     info.b_in_place, info.c_in_place);
            dmxt_case_end(&ctx, bad, msg, desc);
            dmx_gemm_plan_destroy(&g);
            free(c0);
            op *all[3] = {&a, &b, &c};
            for (int w = 0; w < 3; w++) {
                dmx_layout_destroy(&all[w]->l);
                free(all[w]->x[0]);
                free(all[w]->x[1]);
            }
        }
    }
    return dmxt_finish(&ctx);
}
