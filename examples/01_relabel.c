/* SPDX-License-Identifier: BSD-3-Clause */
/* Example 1: move a matrix into a new layout with communication-optimal process relabeling.
 *
 * The application holds B in a block-cyclic layout on a 2 x 2 grid whose ranks are numbered
 * row-major. The algorithm it calls next wants the same blocks on a column-major grid. Without
 * relabeling half of the matrix crosses ranks; with relabeling none does: dmx finds that rank r
 * can simply play the role the new grid gives to another rank.
 *
 * The whole flow:
 *   1. describe the target (a layout without memory: a template),
 *   2. dmx_plan_create_relabeled() -> sigma, the relabeled communicator, the relabeled target
 *      layout (memory allocated by dmx for this rank's new role) and a plan,
 *   3. execute the plan,
 *   4. continue on the relabeled communicator, where this rank's rank is its role.
 *
 * Run: mpirun -n 4 ./example_01_relabel
 */
#include <dmx.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        dmx_status st_ = (call);                                                                   \
        if (st_ != DMX_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, dmx_status_string(st_),                 \
                    dmx_last_error());                                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static double value(int64_t i, int64_t j)
{
    return 1000.0 * (double)i + (double)j;
}

/* Rows of a block-cyclic dimension held by grid coordinate p (ScaLAPACK's numroc, src = 0). */
static int64_t local_count(int64_t n, int64_t nb, int p, int np)
{
    int64_t nblk = (n + nb - 1) / nb, cnt = 0;
    for (int64_t b = p; b < nblk; b += np)
        cnt += (b + 1) * nb <= n ? nb : n - b * nb;
    return cnt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "run with 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int64_t m = 200, n = 120, mb = 16, nb = 16;

    /* B: 2 x 2 grid, row-major ranks: rank r sits at (r / 2, r % 2). */
    int pr = rank / 2, pc = rank % 2;
    int64_t lr = local_count(m, mb, pr, 2), lc = local_count(n, nb, pc, 2);
    double *b = malloc(sizeof(double) * (size_t)(lr * lc > 0 ? lr * lc : 1));
    for (int64_t jj = 0; jj < lc; jj++)
        for (int64_t ii = 0; ii < lr; ii++) {
            int64_t i = (ii / mb * 2 + pr) * mb + ii % mb, j = (jj / nb * 2 + pc) * nb + jj % nb;
            b[ii + jj * lr] = value(i, j);
        }
    dmx_layout *B = NULL, *target = NULL;
    CHECK(dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, n, mb, nb, 2, 2, 'R', 0, 0, b,
                                         lr > 0 ? lr : 1, &B));

    /* 1. The target: same blocks, column-major rank grid. No memory: it is only a description. */
    CHECK(dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, n, mb, nb, 2, 2, 'C', 0, 0, NULL, 1,
                                         &target));

    /* 2. Relabel and plan. */
    dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1.0, 0.0}, {0.0, 0.0}, B, target, 0, 0};
    int sigma[4];
    MPI_Comm comm2 = MPI_COMM_NULL;
    dmx_layout *A = NULL;
    dmx_plan *plan = NULL;
    dmx_relabel_result res;
    CHECK(dmx_plan_create_relabeled(1, &t, NULL, sigma, &comm2, &A, &plan, &res));

    /* 3. Move the data. */
    CHECK(dmx_plan_execute(plan));

    /* 4. Continue on comm2: this rank now plays role `role` of the column-major grid. */
    int role;
    MPI_Comm_rank(comm2, &role);
    int64_t nblocks, wrong = 0;
    CHECK(dmx_layout_get_num_local_blocks(A, &nblocks));
    for (int64_t k = 0; k < nblocks; k++) {
        int64_t r0, c0, rows, cols, ld;
        void *data;
        CHECK(
            dmx_layout_get_local_block(A, k, DMX_DOUBLE, &r0, &c0, &rows, &cols, &data, &ld, NULL));
        const double *a = data;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++)
                wrong += a[i + j * ld] != value(r0 + i, c0 + j);
    }
    int64_t total_wrong = 0;
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT64_T, MPI_SUM, comm2);
    dmx_plan_info info;
    CHECK(dmx_plan_get_info(plan, &info));
    printf("rank %d plays role %d: sends %lld elements, keeps %lld locally\n", rank, role,
           (long long)info.send_elems, (long long)info.local_elems);
    if (rank == 0)
        printf("sigma = [%d %d %d %d]; remote bytes %lld -> %lld; %lld wrong elements\n", sigma[0],
               sigma[1], sigma[2], sigma[3], (long long)res.volume_identity,
               (long long)res.volume_relabeled, (long long)total_wrong);

    /* Destroy the plan before the layouts it borrows. */
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&target);
    dmx_layout_destroy(&B);
    MPI_Comm_free(&comm2);
    free(b);
    int ok = total_wrong == 0 && res.volume_relabeled == 0 && res.volume_identity > 0;
    MPI_Finalize();
    return ok ? 0 : 1;
}
