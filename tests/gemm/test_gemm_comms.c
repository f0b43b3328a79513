/* SPDX-License-Identifier: BSD-3-Clause */
/* How many communicators of the whole group a multiply plan makes. Every one costs MPI memory
 * and a collective call at plan creation (under SimGrid's SMPI a duplicate's copy of the group
 * takes 12 bytes per pair of ranks, 3.2 GB at 16,384 simulated ranks, docs/scale.md).
 *
 * The test defines MPI_Comm_dup and MPI_Comm_split (calling the PMPI entries) and counts those
 * whose new communicator has as many ranks as the world (node communicators, which are the
 * whole group only on one node, are not counted). 4 ranks, the plan's grid forced to 2 x 2 (its
 * row and column communicators have 2 ranks); A, B and C are block-cyclic in 1 x 1 blocks, so
 * the plan moves all three. Expected: the first plan on a communicator at most 5 (dmx's one
 * duplicate of the communicator, the plan's own, one for each of the plans that move A and B
 * in, and one for the plan that adds C back, which belongs to the caller's communicator and is
 * kept there), a second plan at most 3 (its own and the moving-in plans'). Before, 6 and 4: the
 * plan's own duplicate was a plain MPI_Comm_dup, so dmx duplicated it once more (its "inner"
 * duplicate, core/comm.c) before the moving-in plans took theirs. Each plan's C is also checked
 * element by element against a serial triple loop. Prints "N passed, N failed". */
#include "dmxtest.h"

#include <dmx/gemm.h>
#include <stdio.h>
#include <stdlib.h>

static int world_size, counting, made;

static void count(MPI_Comm c)
{
    int n = 0;
    if (counting && c != MPI_COMM_NULL && PMPI_Comm_size(c, &n) == MPI_SUCCESS && n == world_size)
        made++;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    int rc = PMPI_Comm_dup(comm, out);
    if (rc == MPI_SUCCESS)
        count(*out);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    int rc = PMPI_Comm_split(comm, color, key, out);
    if (rc == MPI_SUCCESS)
        count(*out);
    return rc;
}

static double val(int w, int64_t i, int64_t j)
{
    return (double)((w * 5 + (int)(i * 3 + j * 7)) % 13) - 6.0;
}

typedef struct op {
    int64_t lr, lc;
    double *x;
    dmx_layout *l;
} op;

static void make(op *o, dmxt_ctx *ctx, int pr, int pc, int w, int64_t rows, int64_t cols)
{
    int myr = ctx->rank / pc, myc = ctx->rank % pc;
    o->lr = dmxt_numroc(rows, 1, myr, 0, pr);
    o->lc = dmxt_numroc(cols, 1, myc, 0, pc);
    int64_t lld = o->lr > 0 ? o->lr : 1;
    o->x = malloc(sizeof(double) * (size_t)(lld * (o->lc > 0 ? o->lc : 1)));
    for (int64_t li = 0; li < o->lr; li++)
        for (int64_t lj = 0; lj < o->lc; lj++)
            o->x[li + lj * lld] =
                w == 2 ? 0.0
                       : val(w, dmxt_indxl2g(li, 1, myr, 0, pr), dmxt_indxl2g(lj, 1, myc, 0, pc));
    dmx_layout_create_block_cyclic(ctx->comm, rows, cols, 1, 1, pr, pc, 'R', 0, 0, o->x, lld,
                                   &o->l);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_gemm_comms");
    MPI_Comm comm;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    ctx.comm = comm;
    world_size = ctx.size;
    const int pr = 2, pc = ctx.size / 2;
    const int64_t m = 13, n = 11, k = 9;
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    op A, B, C;
    make(&A, &ctx, pr, pc, 0, m, k);
    make(&B, &ctx, pr, pc, 1, k, n);
    make(&C, &ctx, pr, pc, 2, m, n);
    const int most[2] = {5, 3};
    for (int round = 0; round < 2; round++) {
        char desc[128];
        snprintf(desc, sizeof desc,
                 "plan %d on the communicator: at most %d whole-group "
                 "communicators made",
                 round + 1, most[round]);
        dmxt_set_current(desc);
        dmxt_checker K = {&ctx, 0, ""};
        dmx_gemm_plan *g = NULL;
        dmx_gemm_options o;
        dmx_gemm_options_init(&o);
        o.prow = pr, o.pcol = pc;
        made = 0, counting = 1;
        dmx_status st = dmx_gemm_plan_create(comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.l, B.l,
                                             zero, C.l, &o, &g);
        counting = 0;
        if (st != DMX_SUCCESS) {
            dmxt_fail(&K, "dmx_gemm_plan_create: %s", dmx_last_error());
        } else {
            dmx_gemm_info info;
            dmx_gemm_plan_get_info(g, &info);
            if (made > most[round])
                dmxt_fail(&K, "%d made (%s on %d x %d, A %s, B %s, C %s)", made,
                          dmx_gemm_alg_name(info.alg), info.prow, info.pcol,
                          info.a_in_place ? "in place" : "moved",
                          info.b_in_place ? "in place" : "moved",
                          info.c_in_place ? "in place" : "moved");
            if (dmx_gemm_plan_execute(g) != DMX_SUCCESS)
                dmxt_fail(&K, "dmx_gemm_plan_execute: %s", dmx_last_error());
            int myr = ctx.rank / pc, myc = ctx.rank % pc;
            int64_t lld = C.lr > 0 ? C.lr : 1;
            for (int64_t li = 0; li < C.lr; li++)
                for (int64_t lj = 0; lj < C.lc; lj++) {
                    int64_t i = dmxt_indxl2g(li, 1, myr, 0, pr),
                            j = dmxt_indxl2g(lj, 1, myc, 0, pc);
                    double want = 0.0;
                    for (int64_t q = 0; q < k; q++)
                        want += val(0, i, q) * val(1, q, j);
                    if (C.x[li + lj * lld] != want)
                        dmxt_fail(&K, "C(%lld, %lld) = %g, expected %g", (long long)i, (long long)j,
                                  C.x[li + lj * lld], want);
                }
        }
        dmx_gemm_plan_destroy(&g);
        dmxt_case_end(&ctx, K.bad, K.msg, desc);
    }
    op *ops[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) {
        dmx_layout_destroy(&ops[i]->l);
        free(ops[i]->x);
    }
    ctx.comm = MPI_COMM_WORLD;
    MPI_Comm_free(&comm);
    return dmxt_finish(&ctx);
}
