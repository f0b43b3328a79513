/* SPDX-License-Identifier: BSD-3-Clause */
/* Issue 30: one rank's bad handle must not leave the others waiting in the one-sided module.
 * Rank 0 passes MPI_COMM_NULL or a NULL heap / patch handle to a collective call of dmx/rma.h;
 * the other ranks make the valid call. Before, rank 0 returned an error on its own and the
 * others waited: unbounded in dmx_rma_barrier, dmx_rma_free and dmx_patch_barrier/close (a bare
 * MPI_Barrier), DMX_TIMEOUT (600 s) in dmx_rma_alloc/attach and dmx_patch_open. Now a rank with
 * no communicator calls the error handler (dmx's default ends the job with its message), and
 * an argument that can be agreed on (a NULL output pointer of dmx_patch_open) is agreed.
 *
 * Usage: test_rma_nohang MODE [default]; see tests/common/dmxt_nohang.h for the outcomes. */
#include "dmxt_nohang.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    const char *mode = dmxt_nohang_init(&ctx, &argc, &argv, "test_rma_nohang");
    const int bad = ctx.rank == 0, P = ctx.size;
    dmx_rma_heap *heap = NULL, *out = NULL;
    dmx_patch *win = NULL, *pout = NULL;
    dmxt_matrix A;
    static double attached[64];
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 7, 6, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    if (dmxt_matrix_create(&A) != DMX_SUCCESS ||
        dmx_rma_alloc(MPI_COMM_WORLD, 4096, &heap) != DMX_SUCCESS ||
        dmx_patch_open(A.layout, DMX_DOUBLE, &win) != DMX_SUCCESS) {
        printf("nohang FAIL [%s]: setting up: %s\n", mode, dmx_last_error());
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dmxt_nohang_watch_handle((void **)&out);
    dmxt_nohang_watch_handle((void **)&pout);
    dmx_status st = DMX_SUCCESS;
    int agreed = 0;
    dmx_status want = DMX_SUCCESS;
    dmxt_nohang_start();
    if (strcmp(mode, "alloc_comm_null") == 0) {
        dmxt_nohang_expect_words("dmx_rma_alloc: the communicator is MPI_COMM_NULL");
        st = dmx_rma_alloc(bad ? MPI_COMM_NULL : MPI_COMM_WORLD, 4096, &out);
    } else if (strcmp(mode, "attach_comm_null") == 0) {
        dmxt_nohang_expect_words("dmx_rma_attach: the communicator is MPI_COMM_NULL");
        st = dmx_rma_attach(bad ? MPI_COMM_NULL : MPI_COMM_WORLD, attached, sizeof attached, &out);
    } else if (strcmp(mode, "barrier_null") == 0) {
        dmxt_nohang_expect_words("dmx_rma_barrier: the heap is NULL");
        st = dmx_rma_barrier(bad ? NULL : heap);
    } else if (strcmp(mode, "free_null") == 0) {
        dmxt_nohang_expect_words("dmx_rma_free: the heap pointer is NULL");
        st = dmx_rma_free(bad ? NULL : &heap);
    } else if (strcmp(mode, "patch_open_null") == 0) {
        dmxt_nohang_expect_words("dmx_patch_open: the layout is NULL");
        st = dmx_patch_open(bad ? NULL : A.layout, DMX_DOUBLE, &pout);
    } else if (strcmp(mode, "patch_open_out_null") == 0) {
        /* the layout gives rank 0 a communicator: the others hear of the mistake */
        agreed = 1;
        want = DMX_ERR_NULL;
        st = dmx_patch_open(A.layout, DMX_DOUBLE, bad ? NULL : &pout);
    } else if (strcmp(mode, "patch_barrier_null") == 0) {
        dmxt_nohang_expect_words("dmx_patch_barrier: the patch window is NULL");
        st = dmx_patch_barrier(bad ? NULL : win);
    } else if (strcmp(mode, "patch_close_null") == 0) {
        dmxt_nohang_expect_words("dmx_patch_close: the patch pointer is NULL");
        st = dmx_patch_close(bad ? NULL : &win);
    } else {
        printf("nohang FAIL [%s]: unknown mode\n", mode);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!agreed)
        dmxt_nohang_returned(st);
    int failed = dmxt_nohang_agreed(st, want);
    if (!failed && pout != NULL) {
        printf("nohang FAIL [%s] rank %d: a patch window was made\n", mode, ctx.rank);
        failed = 1;
    }
    dmx_patch_close(&pout);
    dmx_patch_close(&win);
    dmx_rma_free(&heap);
    dmxt_matrix_free(&A);
    MPI_Finalize();
    return failed;
}
