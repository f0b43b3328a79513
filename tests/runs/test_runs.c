/* SPDX-License-Identifier: BSD-3-Clause */
/* Run-compressed plans (src/plan/overlay_runs.c, src/exec/engine_runs.c).
 *
 * 1. Random transforms A = alpha*op(B) + beta*A between block-cyclic layouts with blocks 1..7,
 *    odd sizes, grids from 1 x 1 to 2 x 3 (and grids of fewer ranks than the job), random
 *    source processes, views at offsets into larger parents, every dtype, op N/T/C, scalar
 *    pairs with alpha or beta 0 and 1 and general ones, ring chunks forced small (pieces cut) on
 *    some cases, messages split (DMX_MAX_MESSAGE_BYTES 100..2000) and DMX_SHM=0 on others. Every
 * rank checks its A memory against the serial formula reference (dmxt_check_result, outside the
 * window too) and that B was not written; and that the plan took the run path (plan->xf[0].runs),
 * so a silent fallback fails.
 * 2. Plan memory: 1 x 1 blocks of a 2000 x 2000 double matrix from a 1 x P grid to a P x 1 grid
 *    (every element changes rank for P > 1): dmx_plan_info.plan_bytes is under 1/16 of this
 *    rank's part of the matrix, and the transform is right.
 *
 * `test_runs --mem M [reps]` instead prints, from rank 0, the plan bytes per rank and the plan
 * and execution times of that 1 x 1 block transform at M x M (DMX_RUNS=0 gives the rectangle
 * plan's figures for comparison).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grid shapes p x q of at most P ranks, 2 x 3 at most. */
static void pick_grid(dmxt_rng *r, int P, int *p, int *q)
{
    do {
        *p = (int)dmxt_rng_int(r, 1, 2);
        *q = (int)dmxt_rng_int(r, 1, 3);
    } while (*p * *q > P);
}

static dmx_scalar pick_scalar(dmxt_rng *r, int allow_zero)
{
    switch (dmxt_rng_int(r, 0, 3)) {
    case 0: return (dmx_scalar){1.0, 0.0};
    case 1: return allow_zero ? (dmx_scalar){0.0, 0.0} : (dmx_scalar){-1.0, 0.0};
    case 2: return (dmx_scalar){-2.0, 0.5};
    default: return (dmx_scalar){0.5, -0.25};
    }
}

static void run_random(dmxt_ctx *ctx, dmxt_rng *r, int k)
{
    const int P = ctx->size;
    const dmx_dtype dt = (dmx_dtype)dmxt_rng_int(r, 0, 3);
    const dmx_op op = (dmx_op)dmxt_rng_int(r, 0, 2);
    const int64_t m = dmxt_rng_int(r, 1, 41), n = dmxt_rng_int(r, 1, 41);
    const int64_t ai0 = dmxt_rng_int(r, 0, 3), aj0 = dmxt_rng_int(r, 0, 3);
    const int64_t bi0 = dmxt_rng_int(r, 0, 3), bj0 = dmxt_rng_int(r, 0, 3);
    const int64_t bm = op == DMX_OP_N ? m : n, bn = op == DMX_OP_N ? n : m;
    int ap, aq, bp, bq;
    pick_grid(r, P, &ap, &aq);
    pick_grid(r, P, &bp, &bq);
    const int64_t amb = dmxt_rng_int(r, 1, 7), anb = dmxt_rng_int(r, 1, 7);
    const int64_t bmb = dmxt_rng_int(r, 1, 7), bnb = dmxt_rng_int(r, 1, 7);
    const int ars = (int)dmxt_rng_int(r, 0, ap - 1), acs = (int)dmxt_rng_int(r, 0, aq - 1);
    const int brs = (int)dmxt_rng_int(r, 0, bp - 1), bcs = (int)dmxt_rng_int(r, 0, bq - 1);
    const dmx_scalar alpha = pick_scalar(r, 1), beta = pick_scalar(r, 1);
    const int64_t chunk = dmxt_rng_chance(r, 40) ? dmxt_rng_int(r, 64, 1000) : 0;
    const int shm_off = dmxt_rng_chance(r, 20);
    const int64_t maxmsg = dmxt_rng_chance(r, 20) ? dmxt_rng_int(r, 100, 2000) : 0;
    const int64_t pad = dmxt_rng_chance(r, 30) ? 3 : 0;

    dmxt_matrix A, B;
    dmxt_matrix_bc(&A, ctx->comm, dt, ai0 + m + 1, aj0 + n, amb, anb, ap, aq, 'R', NULL, ars, acs,
                   pad);
    dmxt_matrix_bc(&B, ctx->comm, dt, bi0 + bm, bj0 + bn + 2, bmb, bnb, bp, bq, 'C', NULL, brs, bcs,
                   0);
    char desc[500], msg[600] = "";
    snprintf(desc, sizeof desc,
             "case %d: %s op=%s alpha=(%g,%g) beta=(%g,%g) A %lldx%lld at (%lld,%lld) blocks "
             "%lldx%lld grid %dx%d src (%d,%d), B at (%lld,%lld) blocks %lldx%lld grid %dx%d src "
             "(%d,%d), chunk %lld, DMX_MAX_MESSAGE_BYTES %lld%s pad %lld",
             k, dmxt_dtype_name(dt), dmxt_op_name(op), alpha.re, alpha.im, beta.re, beta.im,
             (long long)m, (long long)n, (long long)ai0, (long long)aj0, (long long)amb,
             (long long)anb, ap, aq, ars, acs, (long long)bi0, (long long)bj0, (long long)bmb,
             (long long)bnb, bp, bq, brs, bcs, (long long)chunk, (long long)maxmsg,
             shm_off ? " DMX_SHM=0" : "", (long long)pad);
    dmxt_set_current(desc);
    const int ka = 1, kb = 2;
    int64_t bad = 0;
    dmx_plan *plan = NULL;
    dmx_layout *va = NULL, *vb = NULL;
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&B);
    if (st == DMX_SUCCESS) {
        dmxt_fill(&A, ka);
        dmxt_fill(&B, kb);
        st = dmx_layout_create_view(A.layout, ai0, aj0, m, n, &va);
    }
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(B.layout, bi0, bj0, bm, bn, &vb);
    if (st == DMX_SUCCESS) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)chunk);
        if (chunk)
            setenv("DMX_SHM_CHUNK_BYTES", v, 1);
        if (shm_off)
            setenv("DMX_SHM", "0", 1);
        snprintf(v, sizeof v, "%lld", (long long)maxmsg);
        if (maxmsg)
            setenv("DMX_MAX_MESSAGE_BYTES", v, 1);
        dmx_transform tr = {dt, op, alpha, beta, vb, va, 0, 0};
        st = dmx_plan_create(1, &tr, &plan);
        unsetenv("DMX_SHM_CHUNK_BYTES");
        unsetenv("DMX_SHM");
        unsetenv("DMX_MAX_MESSAGE_BYTES");
    }
    if (st == DMX_SUCCESS)
        st = dmx_plan_execute(plan);
    if (st != DMX_SUCCESS) {
        bad = 1;
        snprintf(msg, sizeof msg, "status %s: %s", dmx_status_string(st), dmx_last_error());
    } else if (!plan->xf[0].runs) {
        bad = 1;
        snprintf(msg, sizeof msg, "the plan did not take the run path");
    } else {
        dmxt_expect e = {dt, op, alpha, beta, 0, 0, ka, kb, ai0, aj0, m, n, bi0, bj0};
        bad += dmxt_check_result(&A, &e, msg, sizeof msg);
        if (!bad)
            bad += dmxt_check_fill(&B, kb, msg, sizeof msg);
    }
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&va);
    dmx_layout_destroy(&vb);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    dmxt_case_end(ctx, bad, msg, desc);
}

/* 1 x 1 blocks, m x m doubles, 1 x P grid to P x 1 grid: plan, execute reps times, check.
 * *bytes: this rank's plan_bytes; *tplan, *texec: seconds (max over ranks, best execution). */
static int64_t one_by_one(dmxt_ctx *ctx, int64_t m, int reps, int64_t *bytes, double *tplan,
                          double *texec, char *msg, size_t len)
{
    const int P = ctx->size;
    dmxt_matrix A, B;
    dmxt_matrix_bc(&A, ctx->comm, DMX_DOUBLE, m, m, 1, 1, P, 1, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&B, ctx->comm, DMX_DOUBLE, m, m, 1, 1, 1, P, 'R', NULL, 0, 0, 0);
    int64_t bad = 0;
    dmx_plan *plan = NULL;
    dmx_plan_info info;
    memset(&info, 0, sizeof info);
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&B);
    dmxt_fill(&A, 1);
    dmxt_fill(&B, 2);
    double t0 = MPI_Wtime(), best = 1e30;
    if (st == DMX_SUCCESS) {
        dmx_transform tr = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
        st = dmx_plan_create(1, &tr, &plan);
    }
    *tplan = MPI_Wtime() - t0;
    for (int i = 0; i < reps && st == DMX_SUCCESS; i++) {
        MPI_Barrier(ctx->comm);
        t0 = MPI_Wtime();
        st = dmx_plan_execute(plan);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    *texec = best;
    if (st == DMX_SUCCESS)
        st = dmx_plan_get_info(plan, &info);
    *bytes = info.plan_bytes;
    if (st != DMX_SUCCESS) {
        bad = 1;
        snprintf(msg, len, "status %s: %s", dmx_status_string(st), dmx_last_error());
    } else {
        dmxt_expect e = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, 0, 0, 1, 2, 0, 0, m, m, 0, 0};
        bad += dmxt_check_result(&A, &e, msg, len);
    }
    MPI_Allreduce(MPI_IN_PLACE, tplan, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    MPI_Allreduce(MPI_IN_PLACE, texec, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    dmx_plan_destroy(&plan);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    return bad;
}

static void test_memory(dmxt_ctx *ctx)
{
    const int64_t m = 2000;
    int64_t bytes = 0;
    double tp = 0, te = 0;
    char msg[600] = "";
    int64_t bad = one_by_one(ctx, m, 1, &bytes, &tp, &te, msg, sizeof msg);
    const int64_t share = m * m * 8 / ctx->size;
    if (!bad && bytes * 16 > share) {
        bad = 1;
        snprintf(msg, sizeof msg, "plan holds %lld bytes, more than 1/16 of this rank's %lld",
                 (long long)bytes, (long long)share);
    }
    if (ctx->rank == 0)
        printf("1x1 blocks %lld^2 doubles: plan %lld bytes on rank 0 (its matrix part %lld)\n",
               (long long)m, (long long)bytes, (long long)share);
    dmxt_case_end(ctx, bad, msg, "1 x 1 blocks of 2000^2 doubles: plan bytes under 1/16 of A");
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    if (argc > 2 && strcmp(argv[1], "--mem") == 0) {
        dmxt_init(&ctx, &argc, &argv, "test_runs");
        const int64_t m = atoll(argv[2]);
        const int reps = argc > 3 ? atoi(argv[3]) : 5;
        int64_t bytes = 0;
        double tp = 0, te = 0;
        char msg[600] = "";
        int64_t bad = one_by_one(&ctx, m, reps, &bytes, &tp, &te, msg, sizeof msg);
        int64_t most = bytes;
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, ctx.comm);
        if (ctx.rank == 0)
            printf("{\"np\":%d,\"m\":%lld,\"plan_bytes_max\":%lld,\"matrix_bytes_per_rank\":%lld,"
                   "\"plan_s\":%.6f,\"exec_s\":%.6f}\n",
                   ctx.size, (long long)m, (long long)most, (long long)(m * m * 8 / ctx.size), tp,
                   te);
        dmxt_case_end(&ctx, bad, msg, "1 x 1 block transform");
        return dmxt_finish(&ctx);
    }
    dmxt_init(&ctx, &argc, &argv, "test_runs");
    dmxt_rng r;
    dmxt_rng_seed(&r, ctx.seed, 15);
    const int cases = (int)dmxt_cases("DMX_TEST_RUNS_CASES", 120);
    for (int k = 0; k < cases; k++)
        run_random(&ctx, &r, k);
    test_memory(&ctx);
    return dmxt_finish(&ctx);
}
