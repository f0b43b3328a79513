/* SPDX-License-Identifier: BSD-3-Clause */
/* Sizes that do not fit: planning transforms of 2^32 x 2^32 elements and of 2^62 elements
 * (layouts without memory: local = NULL, nothing is touched) must fail with DMX_ERR_OVERFLOW on
 * every rank, create nothing, and do it within a second (no loop in proportion to the data). A
 * transform whose bytes fit int64_t but whose packages would be cut into about 2^45 pieces of
 * 128 KiB must fail as fast (the piece count is computed, not counted), with the same error on
 * every rank. The reference is arithmetic: m * n * element size beyond INT64_MAX.
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <string.h>

/* The piece-list case asks malloc for about 2^51 bytes, which must fail and return NULL; under
 * AddressSanitizer that needs allocator_may_return_null (ASAN_OPTIONS from the environment still
 * apply on top of this). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

#define E(k) ((int64_t)1 << (k))

typedef struct ocase {
    const char *name;
    dmx_dtype dtype;
    dmx_op op;
    int64_t m, n, mb, nb; /* A is m x n; B is op^-1 of that */
    int with_memory;      /* 1: dummy non-NULL local arrays (never touched: planning fails) */
    dmx_status want;      /* DMX_SUCCESS here means "any error, the same on every rank" */
} ocase;

static const ocase cases[] = {
    {"2^32 x 2^32 doubles", DMX_DOUBLE, DMX_OP_N, E(32), E(32), E(30), E(30), 0, DMX_ERR_OVERFLOW},
    {"2^32 x 2^32 floats, op T", DMX_FLOAT, DMX_OP_T, E(32), E(32), E(29), E(31), 0,
     DMX_ERR_OVERFLOW},
    {"2^62 elements (2^31 x 2^31 floats: 2^64 bytes)", DMX_FLOAT, DMX_OP_N, E(31), E(31), E(28),
     E(28), 0, DMX_ERR_OVERFLOW},
    {"2^62 elements (2^62 x 1 doubles)", DMX_DOUBLE, DMX_OP_N, E(62), 1, E(60), 1, 0,
     DMX_ERR_OVERFLOW},
    {"2^62 elements (1 x 2^62 complex doubles, op C)", DMX_CDOUBLE, DMX_OP_C, 1, E(62), 1, E(60), 0,
     DMX_ERR_OVERFLOW},
    {"2^30 x 2^29 doubles (2^62 bytes) cut into 2^45 pieces", DMX_DOUBLE, DMX_OP_N, E(30), E(29),
     E(27), E(27), 1, DMX_SUCCESS},
};

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_overflow");
    const int P = ctx.size;
    static double dummy[2]; /* the "memory" of the with_memory case: never read or written */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ocase *c = &cases[i];
        char desc[300];
        snprintf(desc, sizeof desc, "%s", c->name);
        dmxt_set_current(desc);
        dmxt_checker C = {.ctx = &ctx};
        if (c->with_memory && P < 2) /* one rank copies locally: no packages to cut */
            continue;
        /* A: rows on a P x 1 grid; B (op^-1(A)'s shape): columns of op(B) on a 1 x P grid, so
         * most of A's data comes from other ranks. */
        int64_t bm = c->op == DMX_OP_N ? c->m : c->n, bn = c->op == DMX_OP_N ? c->n : c->m;
        int64_t bmb = c->op == DMX_OP_N ? c->mb : c->nb, bnb = c->op == DMX_OP_N ? c->nb : c->mb;
        dmx_layout *A = NULL, *B = NULL;
        void *mem = c->with_memory ? (void *)dummy : NULL;
        /* lld: any value >= the local rows that keeps lld * local columns in int64_t */
        dmx_status st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, c->m, c->n, c->mb, c->nb, P,
                                                       1, 'R', 0, 0, mem, c->m, &A);
        if (st == DMX_SUCCESS)
            st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, bm, bn, bmb, bnb, 1, P, 'R', 0, 0,
                                                mem, bm, &B);
        char m[500];
        if (dmxt_expect_status(&ctx, st, DMX_SUCCESS, "creating the layouts (descriptions)", m,
                               sizeof m))
            dmxt_fail(&C, "%s", m);
        if (!C.bad) {
            dmx_transform t = {c->dtype, c->op, {1, 0}, {0, 0}, B, A, 0, 0};
            dmx_plan *plan = NULL;
            dmx_plan_info info;
            memset(&info, 0, sizeof info);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            st = dmx_plan_create(1, &t, &plan);
            double el = MPI_Wtime() - t0, elmax = 0;
            MPI_Allreduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (c->want != DMX_SUCCESS) {
                if (dmxt_expect_status(&ctx, st, c->want, c->name, m, sizeof m))
                    dmxt_fail(&C, "%s", m);
            } else {
                int lo = (int)st, hi = (int)st;
                MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                if (lo != hi || lo == DMX_SUCCESS)
                    dmxt_fail(&C, "%s: statuses from %s to %s over the ranks, expected one error",
                              c->name, dmx_status_string((dmx_status)lo),
                              dmx_status_string((dmx_status)hi));
            }
            if (plan != NULL) {
                dmx_plan_get_info(plan, &info);
                dmxt_fail(&C, "%s: a plan was created (local_elems %lld)", c->name,
                          (long long)info.local_elems);
                dmx_plan_destroy(&plan);
            }
            if (elmax > 1.0)
                dmxt_fail(&C, "%s: planning took %.2f s (limit 1 s)", c->name, elmax);
            if (ctx.rank == 0)
                printf("  %s: %s in %.3f s (%s)\n", c->name, dmx_status_string(st), elmax,
                       dmx_last_error());
        }
        if (dummy[0] != 0 || dummy[1] != 0)
            dmxt_fail(&C, "%s: the dummy memory was written", c->name);
        dmx_layout_destroy(&A);
        dmx_layout_destroy(&B);
        dmxt_case_end(&ctx, C.bad, C.msg, desc);
    }
    return dmxt_finish(&ctx);
}
