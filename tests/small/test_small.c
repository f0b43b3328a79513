/* SPDX-License-Identifier: BSD-3-Clause */
/* Small plans (src/plan/plan_small.c, src/exec/engine_small.c): every dtype x op N/T/C x small
 * shapes (1 x 1, 1 x n, m x 1, m and n below the rank count, a few blocks) x block-cyclic grids
 * that leave ranks empty x scalars (1, 0) and (2, -1) x dmx_plan_create + two executions and
 * dmx_transform_once; each rank checks its memory of A against the serial reference of the
 * formula (tests/common), including padding. The same cases with DMX_SMALL_BYTES=0 (the general
 * path) must give the same results, and the path must be the expected one: a small plan has no
 * shared-memory peer, a general plan on one node reaches its receive peers through the window.
 * Also: a byte limit between the two paths (plans just above it take the general path), and the
 * agreement of the one reduction (one rank's bad op, one rank's NULL out, scalars that differ
 * between ranks: every rank gets the same error).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dmx_dtype dtypes[4] = {DMX_FLOAT, DMX_DOUBLE, DMX_CFLOAT, DMX_CDOUBLE};
static const dmx_op ops[3] = {DMX_OP_N, DMX_OP_T, DMX_OP_C};

/* m, n of A; B's blocks and grid; A's blocks and grid (0 = all ranks in a row) */
typedef struct shape {
    int64_t m, n, bmb, bnb;
    int bpr, bpc;
    int64_t amb, anb;
    int apr, apc;
} shape;

static const shape shapes[] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},    {1, 1, 1, 1, 1, 0, 1, 1, 0, 1},
    {1, 7, 1, 2, 1, 0, 1, 3, 0, 1},    {7, 1, 2, 1, 0, 1, 3, 1, 1, 0},
    {3, 2, 1, 1, 0, 1, 2, 2, 1, 0},    {5, 7, 2, 3, 2, 1, 1, 1, 1, 2},
    {33, 17, 4, 5, 1, 0, 8, 16, 0, 1}, {64, 64, 16, 16, 2, 0, 32, 32, 1, 0},
};

/* A grid dimension: 0 means all ranks; at most P. */
static int clamp_grid(int g, int P)
{
    return g == 0 ? P : (g > P ? P : g);
}

/* Grid pr x pc fitted into P ranks (rows first). */
static void fit_grid(int pr, int pc, int P, int *r, int *c)
{
    *r = clamp_grid(pr, P);
    *c = clamp_grid(pc, P / *r);
}

/* One case: returns 1 if it passed. */
static int run_case(dmxt_ctx *ctx, const shape *s, dmx_dtype dt, dmx_op op, int scal, int once,
                    int small)
{
    const int P = ctx->size;
    int bpr, bpc, apr, apc;
    fit_grid(s->bpr, s->bpc, P, &bpr, &bpc);
    fit_grid(s->apr, s->apc, P, &apr, &apc);
    char desc[300], msg[600] = "";
    snprintf(
        desc, sizeof desc, "%s op %s %lldx%lld B %lldx%lld on %dx%d A %lldx%lld on %dx%d %s %s %s",
        dmxt_dtype_name(dt), dmxt_op_name(op), (long long)s->m, (long long)s->n, (long long)s->bmb,
        (long long)s->bnb, bpr, bpc, (long long)s->amb, (long long)s->anb, apr, apc,
        scal ? "(2,-1)" : "(1,0)", once ? "once" : "plan", small ? "small" : "general");
    dmxt_set_current(desc);
    setenv("DMX_SMALL_BYTES", small ? "262144" : "0", 1);
    const int64_t bm = op == DMX_OP_N ? s->m : s->n, bn = op == DMX_OP_N ? s->n : s->m;
    dmxt_matrix A, B;
    dmxt_matrix_bc(&B, MPI_COMM_WORLD, dt, bm, bn, s->bmb, s->bnb, bpr, bpc, 'R', NULL, 0, 0, 1);
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, dt, s->m, s->n, s->amb, s->anb, apr, apc, 'C', NULL, 0, 0,
                   2);
    int64_t bad = 0;
    dmx_status st = dmxt_matrix_create(&B);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&A);
    const dmx_scalar alpha = {scal ? 2.0 : 1.0, 0.0}, beta = {scal ? -1.0 : 0.0, 0.0};
    const int ka = 3, kb = 5;
    dmxt_fill(&B, kb);
    dmxt_fill(&A, ka);
    dmxt_expect e = {.dtype = dt,
                     .op = op,
                     .alpha = alpha,
                     .beta = beta,
                     .uplo = 0,
                     .diag = 0,
                     .ka = ka,
                     .kb = kb,
                     .ai0 = 0,
                     .aj0 = 0,
                     .am = s->m,
                     .an = s->n,
                     .bi0 = 0,
                     .bj0 = 0};
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "layout: %s", dmx_last_error());
    } else if (once) {
        st = dmx_transform_once(dt, op, alpha, B.layout, beta, A.layout);
        if (st != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "dmx_transform_once: %s", dmx_last_error());
        } else {
            bad += dmxt_check_result(&A, &e, msg, sizeof msg);
        }
    } else {
        dmx_transform t = {dt, op, alpha, beta, B.layout, A.layout, 0, 0};
        dmx_plan *plan = NULL;
        st = dmx_plan_create(1, &t, &plan);
        if (st != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "dmx_plan_create: %s", dmx_last_error());
        } else {
            dmx_plan_info info;
            dmx_plan_get_info(plan, &info);
            /* one node: a general plan reaches its receive peers through the window */
            if (small && info.npeers_shared_memory != 0) {
                bad++;
                snprintf(msg, sizeof msg, "small plan with %d shared-memory peers",
                         info.npeers_shared_memory);
            } else if (!small && info.npeers_shared_memory != info.npeers_recv) {
                bad++;
                snprintf(msg, sizeof msg, "general plan: %d of %d receive peers by the window",
                         info.npeers_shared_memory, info.npeers_recv);
            }
            /* twice: the second execution must not depend on state the first left */
            for (int rep = 0; rep < 2 && bad == 0; rep++) {
                dmxt_fill(&A, ka);
                st = dmx_plan_execute(plan);
                if (st != DMX_SUCCESS) {
                    bad++;
                    snprintf(msg, sizeof msg, "dmx_plan_execute: %s", dmx_last_error());
                } else {
                    bad += dmxt_check_result(&A, &e, msg, sizeof msg);
                }
            }
            dmx_plan_destroy(&plan);
        }
    }
    if (bad == 0)
        bad += dmxt_check_fill(&B, kb, msg, sizeof msg);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    return dmxt_case_end(ctx, bad, msg, desc);
}

/* A plan just above DMX_SMALL_BYTES takes the general path, one at it the small path. */
static int run_limit(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("limit");
    dmxt_matrix A, B;
    dmxt_matrix_bc(&B, MPI_COMM_WORLD, DMX_DOUBLE, 16, 16, 1, 16, P, 1, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 16, 16, 16, 1, 1, P, 'R', NULL, 0, 0, 0);
    if (dmxt_matrix_create(&B) != DMX_SUCCESS || dmxt_matrix_create(&A) != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
    }
    dmxt_fill(&B, 1);
    /* the most any rank exchanges: probe with a general plan's element counts */
    dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
    dmx_plan *plan = NULL;
    dmx_plan_info info;
    long long most = 0;
    if (bad == 0) {
        setenv("DMX_SMALL_BYTES", "0", 1);
        if (dmx_plan_create(1, &t, &plan) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "general plan: %s", dmx_last_error());
        } else {
            dmx_plan_get_info(plan, &info);
            long long mine = (long long)(info.send_elems + info.recv_elems) * 8;
            MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
            dmx_plan_destroy(&plan);
        }
    }
    for (int k = 0; k < 2 && bad == 0 && most > 0; k++) {
        char v[32];
        snprintf(v, sizeof v, "%lld", most - 1 + k);
        setenv("DMX_SMALL_BYTES", v, 1);
        if (dmx_plan_create(1, &t, &plan) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "plan: %s", dmx_last_error());
            break;
        }
        dmx_plan_get_info(plan, &info);
        const int want_small = k == 1;
        if (info.npeers_recv > 0 && (info.npeers_shared_memory == 0) != want_small) {
            bad++;
            snprintf(msg, sizeof msg, "limit %s: %d shared-memory peers", v,
                     info.npeers_shared_memory);
        }
        dmxt_fill(&A, DMXT_NAN);
        if (dmx_plan_execute(plan) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "execute: %s", dmx_last_error());
        } else {
            dmxt_expect e = {.dtype = DMX_DOUBLE,
                             .op = DMX_OP_N,
                             .alpha = {1, 0},
                             .beta = {0, 0},
                             .ka = DMXT_NAN,
                             .kb = 1,
                             .am = 16,
                             .an = 16};
            bad += dmxt_check_result(&A, &e, msg, sizeof msg);
        }
        dmx_plan_destroy(&plan);
    }
    setenv("DMX_SMALL_BYTES", "262144", 1);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    return dmxt_case_end(ctx, bad, msg, "limit between the small and the general path");
}

/* One rank's bad argument: every rank returns the same error, nobody hangs. */
static int run_errors(dmxt_ctx *ctx, int bad_rank)
{
    const int P = ctx->size;
    char msg[600] = "", desc[80];
    int64_t bad = 0;
    snprintf(desc, sizeof desc, "agreement errors, bad rank %d", bad_rank);
    dmxt_set_current(desc);
    dmxt_matrix A, B;
    dmxt_matrix_bc(&B, MPI_COMM_WORLD, DMX_DOUBLE, 5, 5, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 5, 5, 1, 1, P, 1, 'R', NULL, 0, 0, 0);
    if (dmxt_matrix_create(&B) != DMX_SUCCESS || dmxt_matrix_create(&A) != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
    }
    const int me = ctx->rank == bad_rank;
    for (int k = 0; k < 3 && bad == 0; k++) {
        dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
        dmx_plan *plan = NULL, **out = &plan;
        dmx_status want = DMX_ERR_ARG;
        if (k == 0 && me)
            t.op = (dmx_op)7;
        if (k == 1 && me) {
            out = NULL;
            want = DMX_ERR_NULL;
        }
        if (k == 1)
            want = DMX_ERR_NULL;
        if (k == 2 && me)
            t.alpha.re = 3.0; /* differs from the other ranks (P > 1) */
        if (k == 2 && P == 1)
            want = DMX_SUCCESS;
        dmx_status st = dmx_plan_create(1, &t, out);
        bad += dmxt_expect_status(ctx, st, want, "dmx_plan_create", msg, sizeof msg);
        if (plan != NULL && want != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "case %d: a plan despite the error", k);
        }
        dmx_plan_destroy(&plan);
    }
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    return dmxt_case_end(ctx, bad, msg, desc);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_small");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int d = 0; d < 4; d++)
            for (int o = 0; o < 3; o++)
                for (int v = 0; v < 4; v++) /* scalars x (plan, once) */
                    /* the general path once per dtype, op and shape (its window setup is slow
                     * under the sanitizers) */
                    for (int small = 1; small >= (v == 1 ? 0 : 1); small--)
                        run_case(&ctx, &shapes[s], dtypes[d], ops[o], v & 1, v >> 1, small);
    run_limit(&ctx);
    run_errors(&ctx, 0);
    if (ctx.size > 1)
        run_errors(&ctx, ctx.size - 1);
    return dmxt_finish(&ctx);
}
