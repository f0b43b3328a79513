/* SPDX-License-Identifier: BSD-3-Clause */
/* Issue 30: one rank's bad handle must not leave the others waiting in the multiply. Rank 0
 * passes MPI_COMM_NULL to dmx_gemm / dmx_gemm_plan_create, a NULL output pointer to
 * dmx_gemm_plan_create, or a NULL plan to dmx_gemm_plan_execute; the other ranks make the
 * valid call. Before, rank 0 returned DMX_ERR_NULL on its own and the others waited for it in
 * an agreement until DMX_TIMEOUT (600 s), or in the multiply's broadcasts. Now a rank with no
 * communicator calls the error handler (dmx's default ends the job with its message), and a
 * NULL output pointer is agreed on (every rank returns DMX_ERR_NULL).
 *
 * Usage: test_gemm_nohang MODE [default]; see tests/common/dmxt_nohang.h for the outcomes. */
#include "dmxt_nohang.h"

#include "dmx/gemm.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    const char *mode = dmxt_nohang_init(&ctx, &argc, &argv, "test_gemm_nohang");
    const int bad = ctx.rank == 0, P = ctx.size;
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    dmxt_matrix A, B, C;
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 6, 5, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&B, MPI_COMM_WORLD, DMX_DOUBLE, 5, 7, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&C, MPI_COMM_WORLD, DMX_DOUBLE, 6, 7, 3, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix *all[] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) {
        if (dmxt_matrix_create(all[i]) != DMX_SUCCESS) {
            printf("nohang FAIL [%s]: creating the layouts: %s\n", mode, dmx_last_error());
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        dmxt_fill(all[i], i + 1);
    }
    dmx_gemm_plan *plan = NULL, *out = NULL;
    dmxt_nohang_watch_handle((void **)&out);
    dmx_status st = DMX_SUCCESS;
    int agreed = 0;
    if (strcmp(mode, "plan_execute_null") == 0 &&
        dmx_gemm_plan_create(MPI_COMM_WORLD, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.layout,
                             B.layout, zero, C.layout, NULL, &plan) != DMX_SUCCESS) {
        printf("nohang FAIL [%s]: planning: %s\n", mode, dmx_last_error());
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comm = bad ? MPI_COMM_NULL : MPI_COMM_WORLD;
    dmxt_nohang_start();
    if (strcmp(mode, "gemm_comm_null") == 0) {
        dmxt_nohang_expect_words("dmx_gemm: the communicator is MPI_COMM_NULL");
        st = dmx_gemm(comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.layout, B.layout, zero, C.layout,
                      NULL);
    } else if (strcmp(mode, "plan_create_comm_null") == 0) {
        dmxt_nohang_expect_words("dmx_gemm: the communicator is MPI_COMM_NULL");
        st = dmx_gemm_plan_create(comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.layout, B.layout,
                                  zero, C.layout, NULL, &out);
    } else if (strcmp(mode, "plan_create_out_null") == 0) {
        agreed = 1;
        st = dmx_gemm_plan_create(MPI_COMM_WORLD, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.layout,
                                  B.layout, zero, C.layout, NULL, bad ? NULL : &out);
    } else if (strcmp(mode, "plan_execute_null") == 0) {
        dmxt_nohang_expect_words("dmx_gemm_plan_execute: the plan is NULL");
        st = dmx_gemm_plan_execute(bad ? NULL : plan);
    } else {
        printf("nohang FAIL [%s]: unknown mode\n", mode);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!agreed)
        dmxt_nohang_returned(st);
    int failed = dmxt_nohang_agreed(st, DMX_ERR_NULL);
    if (!failed && out != NULL) {
        printf("nohang FAIL [%s] rank %d: a plan was made\n", mode, ctx.rank);
        failed = 1;
    }
    dmx_gemm_plan_destroy(&out);
    dmx_gemm_plan_destroy(&plan);
    for (int i = 0; i < 3; i++)
        dmxt_matrix_free(all[i]);
    MPI_Finalize();
    return failed;
}
