/* SPDX-License-Identifier: BSD-3-Clause */
/* Failures while freeing objects are reported, not dropped.
 *
 * dmx_rma_free, dmx_patch_close, dmx_gemm_plan_destroy and dmx_grid_destroy free windows,
 * datatypes, communicators, plans and layouts; every one of those MPI calls is checked and the
 * first failure is returned (DMX_ERR_MPI, the failing call named in dmx_last_error), after
 * everything is freed and the handle set to NULL. The failures are made through MPI's profiling
 * interface: this file defines MPI_Win_free and MPI_Comm_free, which free through PMPI_* and, while
 * told to, return an error class afterwards (not for frees made inside another one). Cases on every
 * rank:
 *  - a heap (dmx_rma_alloc) freed normally (DMX_SUCCESS), then one whose MPI_Win_free fails
 *    (where it has a window), then one whose MPI_Comm_free fails;
 *  - a patch window over a block-cyclic layout closed normally, then one whose MPI_Comm_free
 *    fails (dmx_patch_open always duplicates the layout's communicator);
 *  - a multiply's plan (dmx_gemm_plan_create) destroyed normally, then one whose MPI_Comm_free
 *    fails (the plan duplicates its communicator);
 *  - a process grid (dmx_grid_create) destroyed normally, then with every MPI_Comm_free failing:
 *    all three of its communicators must still be freed.
 * Prints "N passed, N failed" from rank 0.
 */
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_win_free, fail_comm_free; /* return an error from these calls while set */
static long n_win_free, n_comm_free;      /* failures returned */
static int depth; /* frees made inside a free (attribute delete callbacks) are left alone: MPICH
                   * treats a callback's failure as fatal to the outer free */

int MPI_Win_free(MPI_Win *win)
{
    depth++;
    int rc = PMPI_Win_free(win);
    depth--;
    if (rc == MPI_SUCCESS && fail_win_free && depth == 0) {
        n_win_free++;
        return MPI_ERR_WIN;
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    depth++;
    int rc = PMPI_Comm_free(comm);
    depth--;
    if (rc == MPI_SUCCESS && fail_comm_free && depth == 0) {
        n_comm_free++;
        return MPI_ERR_COMM;
    }
    return rc;
}

/* The status of a free that should fail (want_fail: a failure was injected on this rank) or
 * succeed, and the message naming the call. Returns the local number of problems. */
static int64_t check_free(dmxt_ctx *ctx, dmx_status st, int want_fail, const char *call,
                          int handle_left, char *msg, size_t len)
{
    int64_t bad =
        dmxt_expect_status(ctx, st, want_fail ? DMX_ERR_MPI : DMX_SUCCESS, call, msg, len);
    if (bad == 0 && want_fail && !strstr(dmx_last_error(), call)) {
        snprintf(msg, len, "the error does not name %s: %s", call, dmx_last_error());
        bad++;
    }
    if (bad == 0 && handle_left) {
        snprintf(msg, len, "the handle was not set to NULL");
        bad++;
    }
    return bad;
}

/* inject: 0 nothing, 1 MPI_Win_free fails (a heap of one rank may have no window: then nothing
 * is injected), 2 MPI_Comm_free fails (the heap's duplicate of its communicator). */
/* Arm MPI_Comm_free's failure (inject) before a free, then judge it: with inject, at least want
 * MPI_Comm_free calls (each made and failed), and the status and handle as check_free wants. */
static void comm_arm(int inject)
{
    n_comm_free = 0;
    fail_comm_free = inject;
}

static int64_t comm_verdict(dmxt_ctx *ctx, dmx_status st, int inject, const char *name, long want,
                            int handle_left, char *msg, size_t len)
{
    fail_comm_free = 0;
    if (inject && n_comm_free < want) {
        snprintf(msg, len, "%s made %ld MPI_Comm_free (want %ld)", name, n_comm_free, want);
        return 1;
    }
    return check_free(ctx, st, inject, "MPI_Comm_free", handle_left, msg, len);
}

static void heap_case(dmxt_ctx *ctx, int inject)
{
    static const char *what[3] = {"", " with MPI_Win_free failing", " with MPI_Comm_free failing"};
    const char *call = inject == 1 ? "MPI_Win_free" : "MPI_Comm_free";
    char desc[100], msg[600] = "";
    snprintf(desc, sizeof desc, "dmx_rma_free%s", what[inject]);
    dmxt_set_current(desc);
    dmx_rma_heap *h = NULL;
    int64_t bad = 0;
    dmx_status st = dmx_rma_alloc(ctx->comm, 4096, &h);
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "dmx_rma_alloc: %s", dmx_last_error());
    } else {
        n_win_free = n_comm_free = 0;
        fail_win_free = inject == 1;
        fail_comm_free = inject == 2;
        st = dmx_rma_free(&h);
        fail_win_free = fail_comm_free = 0;
        const long n = inject == 1 ? n_win_free : n_comm_free;
        if (inject == 2 && n == 0) {
            bad++;
            snprintf(msg, sizeof msg, "dmx_rma_free called no MPI_Comm_free");
        } else {
            bad += check_free(ctx, st, inject && n > 0, call, h != NULL, msg, sizeof msg);
        }
    }
    dmxt_case_end(ctx, bad, msg, desc);
}

static void patch_case(dmxt_ctx *ctx, int inject)
{
    char desc[100], msg[600] = "";
    snprintf(desc, sizeof desc, "dmx_patch_close%s", inject ? " with MPI_Comm_free failing" : "");
    dmxt_set_current(desc);
    const int64_t M = 40, N = 30, mb = 4, nb = 3;
    const int pr = 1, pc = ctx->size;
    const int64_t lcols = (N / nb / pc + 1) * nb, lld = M;
    double *a = calloc((size_t)(lld * lcols), sizeof *a);
    dmx_layout *L = NULL;
    dmx_patch *w = NULL;
    int64_t bad = 0;
    dmx_status st =
        a ? dmx_layout_create_block_cyclic(ctx->comm, M, N, mb, nb, pr, pc, 'R', 0, 0, a, lld, &L)
          : DMX_ERR_ALLOC;
    if (st == DMX_SUCCESS)
        st = dmx_patch_open(L, DMX_DOUBLE, &w);
    if (st == DMX_ERR_UNSUPPORTED) {
        /* no way to open windows here (docs/rma.md): nothing to close */
    } else if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "setup: %s (%s)", dmx_status_string(st), dmx_last_error());
    } else {
        comm_arm(inject);
        st = dmx_patch_close(&w);
        bad += comm_verdict(ctx, st, inject, "dmx_patch_close", 1, w != NULL, msg, sizeof msg);
    }
    dmx_layout_destroy(&L);
    free(a);
    dmxt_case_end(ctx, bad, msg, desc);
}

static void gemm_case(dmxt_ctx *ctx, int inject)
{
    char desc[100], msg[600] = "";
    snprintf(desc, sizeof desc, "dmx_gemm_plan_destroy%s",
             inject ? " with MPI_Comm_free failing" : "");
    dmxt_set_current(desc);
    const int64_t n = 12, nb = 2;
    const int pc = ctx->size;
    const int64_t lcols = (n / nb / pc + 1) * nb;
    double *mem[3] = {NULL, NULL, NULL};
    dmx_layout *L[3] = {NULL, NULL, NULL};
    dmx_gemm_plan *g = NULL;
    int64_t bad = 0;
    dmx_status st = DMX_SUCCESS;
    for (int k = 0; k < 3 && st == DMX_SUCCESS; k++) {
        mem[k] = calloc((size_t)(n * lcols), sizeof(double));
        st = mem[k] ? dmx_layout_create_block_cyclic(ctx->comm, n, n, nb, nb, 1, pc, 'R', 0, 0,
                                                     mem[k], n, &L[k])
                    : DMX_ERR_ALLOC;
    }
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    if (st == DMX_SUCCESS)
        st = dmx_gemm_plan_create(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, L[0], L[1], zero,
                                  L[2], NULL, &g);
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "setup: %s (%s)", dmx_status_string(st), dmx_last_error());
    } else {
        comm_arm(inject);
        st = dmx_gemm_plan_destroy(&g);
        bad +=
            comm_verdict(ctx, st, inject, "dmx_gemm_plan_destroy", 1, g != NULL, msg, sizeof msg);
    }
    for (int k = 0; k < 3; k++) {
        dmx_layout_destroy(&L[k]);
        free(mem[k]);
    }
    dmxt_case_end(ctx, bad, msg, desc);
}

/* A grid holds three communicators (its duplicate, its row and its column): all three are freed
 * even when the first free fails (a free skipped on one rank would leave the others waiting). */
static void grid_case(dmxt_ctx *ctx, int inject)
{
    char desc[100], msg[600] = "";
    snprintf(desc, sizeof desc, "dmx_grid_destroy%s", inject ? " with MPI_Comm_free failing" : "");
    dmxt_set_current(desc);
    dmx_grid *g = NULL;
    int64_t bad = 0;
    dmx_status st = dmx_grid_create(ctx->comm, 1, ctx->size, 'R', &g);
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "dmx_grid_create: %s", dmx_last_error());
    } else {
        comm_arm(inject);
        st = dmx_grid_destroy(&g);
        bad += comm_verdict(ctx, st, inject, "dmx_grid_destroy", 3, g != NULL, msg, sizeof msg);
    }
    dmxt_case_end(ctx, bad, msg, desc);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_release");
    for (int inject = 0; inject < 3; inject++)
        heap_case(&ctx, inject);
    for (int inject = 0; inject < 2; inject++) {
        patch_case(&ctx, inject);
        gemm_case(&ctx, inject);
        grid_case(&ctx, inject);
    }
    return dmxt_finish(&ctx);
}
