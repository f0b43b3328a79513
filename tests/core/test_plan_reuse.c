/* SPDX-License-Identifier: BSD-3-Clause */
/* Plans keep their MPI objects for the next plan (src/plan/plan_comm.c, src/exec/shm.c):
 * after the first plans on a communicator, creating and destroying a plan makes no
 * MPI_Comm_dup, MPI_Comm_split_type or MPI_Comm_free, and MPI_Win_allocate_shared / MPI_Win_free
 * only when the kept window has to grow; two live plans on one communicator still compute
 * correctly when their executions alternate; and the settings that turn the keeping off
 * (DMX_COMM_CACHE=0, DMX_SHM_CACHE_BYTES=0) give one duplicate and one window per plan.
 *
 * The counts come from this program's own definitions of those MPI calls (they forward to the
 * PMPI ones), which the library, linked statically into the test, calls. The counts are
 * compared with what the rules above allow, the results with the serial reference
 * (dmxt_check_result); each phase runs on a fresh duplicate of MPI_COMM_WORLD so its pool
 * starts empty. Every rank counts its own calls; failures are summed over ranks.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>

static long n_dup, n_split, n_cfree, n_walloc, n_wfree;

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    n_dup++;
    return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    n_split++;
    return PMPI_Comm_split_type(comm, type, key, info, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    n_cfree++;
    return PMPI_Comm_free(comm);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    n_walloc++;
    return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_free(MPI_Win *win)
{
    n_wfree++;
    return PMPI_Win_free(win);
}

static void zero_counts(void)
{
    n_dup = n_split = n_cfree = n_walloc = n_wfree = 0;
}

/* Create, execute, check and destroy `rounds` plans of random block-cyclic layouts on comm
 * (ids 1 into 2). Each plan's result is checked; returns the number of wrong cases here. */
static int64_t run_rounds(dmxt_ctx *ctx, MPI_Comm comm, int rounds, dmxt_rng *g, dmxt_checker *C,
                          const char *phase)
{
    int64_t bad = 0;
    for (int r = 0; r < rounds; r++) {
        int64_t m = dmxt_rng_int(g, 1, 40), n = dmxt_rng_int(g, 1, 40);
        dmx_op op = dmxt_rng_chance(g, 50) ? DMX_OP_N : DMX_OP_T;
        dmxt_matrix A, B;
        dmxt_matrix_random(&A, comm, DMX_DOUBLE, m, n, DMXT_BC, g);
        dmxt_matrix_random(&B, comm, DMX_DOUBLE, op == DMX_OP_N ? m : n, op == DMX_OP_N ? n : m,
                           DMXT_BC, g);
        if (dmxt_matrix_create(&A) != DMX_SUCCESS || dmxt_matrix_create(&B) != DMX_SUCCESS) {
            dmxt_fail(C, "%s round %d: creating the layouts: %s", phase, r, dmx_last_error());
            bad++;
        } else {
            dmxt_fill(&A, 1);
            dmxt_fill(&B, 2);
            dmx_transform t = {DMX_DOUBLE, op, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
            dmx_plan *p = NULL;
            dmx_status st = dmx_plan_create(1, &t, &p);
            if (st == DMX_SUCCESS)
                st = dmx_plan_execute(p);
            dmx_status st2 = dmx_plan_destroy(&p);
            if (st != DMX_SUCCESS || st2 != DMX_SUCCESS) {
                dmxt_fail(C, "%s round %d: %s / %s: %s", phase, r, dmx_status_string(st),
                          dmx_status_string(st2), dmx_last_error());
                bad++;
            } else {
                dmxt_expect e = {.dtype = DMX_DOUBLE,
                                 .op = op,
                                 .alpha = {1, 0},
                                 .ka = 1,
                                 .kb = 2,
                                 .am = m,
                                 .an = n};
                char msg[400] = "";
                if (dmxt_check_result(&A, &e, msg, sizeof msg)) {
                    dmxt_fail(C, "%s round %d (%s): %s", phase, r, A.desc, msg);
                    bad++;
                }
            }
        }
        dmxt_matrix_free(&A);
        dmxt_matrix_free(&B);
    }
    (void)ctx;
    return bad;
}

/* One phase's counts against the allowed maxima (and minima, -1: none). */
static void expect_counts(dmxt_checker *C, const char *phase, long max_dup, long min_dup,
                          long max_split, long max_walloc, long min_walloc)
{
    if (n_dup > max_dup || n_dup < min_dup)
        dmxt_fail(C, "%s: %ld MPI_Comm_dup, expected %ld..%ld", phase, n_dup, min_dup, max_dup);
    if (n_split > max_split)
        dmxt_fail(C, "%s: %ld MPI_Comm_split_type, expected at most %ld", phase, n_split,
                  max_split);
    if (n_walloc > max_walloc || n_walloc < min_walloc)
        dmxt_fail(C, "%s: %ld MPI_Win_allocate_shared, expected %ld..%ld", phase, n_walloc,
                  min_walloc, max_walloc);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_plan_reuse");
    dmxt_rng g;
    dmxt_rng_seed(&g, ctx.seed, 0);
    const int rounds = 30;
    setenv("DMX_SHM", "1", 1);
    /* Phases 1-5 are about the shared-window engine: no small plans (plan_small.c) there. */
    setenv("DMX_SMALL_BYTES", "0", 1);

    /* 1. Kept: the first plan makes the duplicate, the node split and the window; the next
     *    ones make none, except windows while the kept one grows (at most doubling each time,
     *    from 64 bytes to the largest need of these small matrices: well under 16 remakes). */
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm comm;
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
        run_rounds(&ctx, comm, 1, &g, &C, "kept, first plan");
        zero_counts();
        run_rounds(&ctx, comm, rounds, &g, &C, "kept");
        expect_counts(&C, "kept", 0, 0, 0, 16, 0);
        if (n_cfree != 0)
            dmxt_fail(&C, "kept: %ld MPI_Comm_free, expected none", n_cfree);
        if (n_wfree != n_walloc)
            dmxt_fail(&C,
                      "kept: %ld MPI_Win_free for %ld windows made (only a kept window "
                      "that grows is freed)",
                      n_wfree, n_walloc);
        /* 2. Two live plans, executions alternating, destroyed in the other order. */
        zero_counts();
        dmxt_matrix A1, B1, A2, B2;
        dmxt_matrix_bc(&A1, comm, DMX_DOUBLE, 23, 17, 3, 2, 1, ctx.size, 'R', NULL, 0, 0, 0);
        dmxt_matrix_bc(&B1, comm, DMX_DOUBLE, 23, 17, 2, 5, ctx.size, 1, 'C', NULL, 0, 0, 0);
        dmxt_matrix_bc(&A2, comm, DMX_DOUBLE, 19, 29, 4, 4, 1, ctx.size, 'C', NULL, 0, 0, 0);
        dmxt_matrix_bc(&B2, comm, DMX_DOUBLE, 29, 19, 1, 3, ctx.size, 1, 'R', NULL, 0, 0, 0);
        dmxt_matrix *all[] = {&A1, &B1, &A2, &B2};
        int ok = 1;
        for (int i = 0; i < 4; i++)
            ok = ok && dmxt_matrix_create(all[i]) == DMX_SUCCESS;
        dmx_plan *p1 = NULL, *p2 = NULL;
        dmx_transform t1 = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B1.layout, A1.layout, 0, 0};
        dmx_transform t2 = {DMX_DOUBLE, DMX_OP_T, {1, 0}, {0, 0}, B2.layout, A2.layout, 0, 0};
        if (!ok || dmx_plan_create(1, &t1, &p1) != DMX_SUCCESS ||
            dmx_plan_create(1, &t2, &p2) != DMX_SUCCESS) {
            dmxt_fail(&C, "two live plans: create: %s", dmx_last_error());
        } else {
            for (int k = 0; k < 6; k++) {
                /* fresh inputs each time, so a stale or crossed ring shows */
                dmxt_fill(&A1, 0);
                dmxt_fill(&B1, 3 + k);
                dmxt_fill(&A2, 0);
                dmxt_fill(&B2, 9 + k);
                dmx_status s1 = dmx_plan_execute(k % 2 ? p2 : p1);
                dmx_status s2 = dmx_plan_execute(k % 2 ? p1 : p2);
                dmxt_expect e1 = {.dtype = DMX_DOUBLE,
                                  .op = DMX_OP_N,
                                  .alpha = {1, 0},
                                  .ka = 0,
                                  .kb = 3 + k,
                                  .am = 23,
                                  .an = 17};
                dmxt_expect e2 = {.dtype = DMX_DOUBLE,
                                  .op = DMX_OP_T,
                                  .alpha = {1, 0},
                                  .ka = 0,
                                  .kb = 9 + k,
                                  .am = 19,
                                  .an = 29};
                char msg[400] = "";
                if (s1 != DMX_SUCCESS || s2 != DMX_SUCCESS)
                    dmxt_fail(&C, "two live plans: execution %d: %s", k, dmx_last_error());
                else if (dmxt_check_result(&A1, &e1, msg, sizeof msg) ||
                         dmxt_check_result(&A2, &e2, msg, sizeof msg))
                    dmxt_fail(&C, "two live plans: execution %d: %s", k, msg);
            }
        }
        dmx_plan_destroy(&p2);
        dmx_plan_destroy(&p1);
        for (int i = 0; i < 4; i++)
            dmxt_matrix_free(all[i]);
        /* the second live plan needed a second duplicate (and its node split), no more */
        expect_counts(&C, "two live plans", 1, 1, 1, 4, 0);
        /* both duplicates are kept: more rounds make none */
        zero_counts();
        run_rounds(&ctx, comm, 5, &g, &C, "after two live plans");
        expect_counts(&C, "after two live plans", 0, 0, 0, 4, 0);
        /* freeing the communicator frees what its plans kept (the attributes' callbacks) */
        zero_counts();
        MPI_Comm_free(&comm);
        if (n_cfree < 5 || n_wfree < 2)
            dmxt_fail(&C,
                      "freeing the communicator: %ld MPI_Comm_free (expected at least 5: "
                      "it, two duplicates, two node communicators), %ld MPI_Win_free (at least 2)",
                      n_cfree, n_wfree);
        dmxt_case_end(&ctx, C.bad, C.msg, "kept across plans, two live plans");
    }

    /* 3. DMX_COMM_CACHE=0 (read when the communicator's pool is made): a duplicate per plan (of
     *    the inner duplicate, made once). */
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm comm;
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
        setenv("DMX_COMM_CACHE", "0", 1);
        zero_counts();
        run_rounds(&ctx, comm, 10, &g, &C, "DMX_COMM_CACHE=0");
        /* and the communicator's inner duplicate (core/comm.c), the first plan's parent */
        expect_counts(&C, "DMX_COMM_CACHE=0", 11, 11, 10, 10, ctx.size > 1 ? 10 : 0);
        unsetenv("DMX_COMM_CACHE");
        PMPI_Comm_free(&comm);
        dmxt_case_end(&ctx, C.bad, C.msg, "DMX_COMM_CACHE=0");
    }

    /* 4. DMX_SHM_CACHE_BYTES=0: the duplicate is kept, every plan makes its own window. */
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm comm;
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
        setenv("DMX_SHM_CACHE_BYTES", "0", 1);
        run_rounds(&ctx, comm, 1, &g, &C, "DMX_SHM_CACHE_BYTES=0, first plan");
        zero_counts();
        run_rounds(&ctx, comm, 10, &g, &C, "DMX_SHM_CACHE_BYTES=0");
        expect_counts(&C, "DMX_SHM_CACHE_BYTES=0", 0, 0, 0, 10, 10);
        if (n_wfree != 10)
            dmxt_fail(&C, "DMX_SHM_CACHE_BYTES=0: %ld MPI_Win_free, expected 10", n_wfree);
        unsetenv("DMX_SHM_CACHE_BYTES");
        MPI_Comm_free(&comm);
        dmxt_case_end(&ctx, C.bad, C.msg, "DMX_SHM_CACHE_BYTES=0");
    }

    /* 5. Plans on MPI_COMM_WORLD and MPI_COMM_SELF, so that MPI_Finalize has pools to free
     *    (ASan checks that nothing leaks; MPI_COMM_SELF's is freed among its own attributes). */
    {
        dmxt_checker C = {.ctx = &ctx};
        run_rounds(&ctx, MPI_COMM_WORLD, 3, &g, &C, "world");
        dmxt_rng gs; /* each rank alone: its own draws are fine */
        dmxt_rng_seed(&gs, ctx.seed, 1);
        run_rounds(&ctx, MPI_COMM_SELF, 3, &gs, &C, "self");
        dmxt_case_end(&ctx, C.bad, C.msg, "plans on MPI_COMM_WORLD and MPI_COMM_SELF");
    }

    /* 6. Small plans (plain messages, one agreement) take the kept duplicates too and make no
     *    window; with DMX_COMM_CACHE=0 each makes and frees its own duplicate. */
    unsetenv("DMX_SMALL_BYTES");
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm comm;
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
        run_rounds(&ctx, comm, 1, &g, &C, "small, first plan");
        zero_counts();
        run_rounds(&ctx, comm, 10, &g, &C, "small");
        expect_counts(&C, "small", 0, 0, 0, 0, 0);
        if (n_cfree != 0)
            dmxt_fail(&C, "small: %ld MPI_Comm_free, expected none", n_cfree);
        PMPI_Comm_free(&comm);
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
        setenv("DMX_COMM_CACHE", "0", 1);
        zero_counts();
        run_rounds(&ctx, comm, 10, &g, &C, "small, DMX_COMM_CACHE=0");
        expect_counts(&C, "small, DMX_COMM_CACHE=0", 11, 11, 0, 0, 0); /* + the inner one */
        if (n_cfree != 10)
            dmxt_fail(&C, "small, DMX_COMM_CACHE=0: %ld MPI_Comm_free, expected 10", n_cfree);
        unsetenv("DMX_COMM_CACHE");
        PMPI_Comm_free(&comm);
        dmxt_case_end(&ctx, C.bad, C.msg, "small plans");
    }
    return dmxt_finish(&ctx);
}
