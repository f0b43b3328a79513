/* SPDX-License-Identifier: BSD-3-Clause */
/* Example 2: two matrices in one round, into a layout ScaLAPACK cannot describe.
 *
 * B1 and B2 are m x n double matrices in ScaLAPACK's block-cyclic layout (24 x 16 blocks on a
 * 2 x 2 grid). An algorithm wants their transposes in a custom layout: A is n x m cut into
 * P row bands (band r owned by rank r), each band one row-major block. One plan moves both:
 *     A1 = B1^T,   A2 = 0.5 * B2^T + 2 * A2
 * and every rank sends each peer a single message carrying its pieces of both.
 *
 * Run: mpirun -n 4 ./example_02_batched_transpose
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

static double b_value(int k, int64_t i, int64_t j)
{
    return (double)k * 1e6 + 1000.0 * (double)i + (double)j;
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
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P != 4) {
        if (rank == 0)
            fprintf(stderr, "run with 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int64_t m = 150, n = 100, mb = 24, nb = 16;

    /* Sources: block-cyclic, column-major local arrays as ScaLAPACK keeps them. */
    int pr = rank / 2, pc = rank % 2;
    int64_t lr = local_count(m, mb, pr, 2), lc = local_count(n, nb, pc, 2);
    double *b[2];
    dmx_layout *B[2];
    for (int k = 0; k < 2; k++) {
        b[k] = malloc(sizeof(double) * (size_t)(lr * lc));
        for (int64_t jj = 0; jj < lc; jj++)
            for (int64_t ii = 0; ii < lr; ii++) {
                int64_t i = (ii / mb * 2 + pr) * mb + ii % mb;
                int64_t j = (jj / nb * 2 + pc) * nb + jj % nb;
                b[k][ii + jj * lr] = b_value(k, i, j);
            }
        CHECK(dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, n, mb, nb, 2, 2, 'R', 0, 0, b[k],
                                             lr, &B[k]));
    }

    /* Targets: n x m in P row bands, one row-major block per rank with a padded ld. */
    int64_t rowsplits[5] = {0}, colsplits[2] = {0, m};
    int owners[4];
    for (int r = 0; r <= P; r++)
        rowsplits[r] = n * r / P;
    for (int r = 0; r < P; r++)
        owners[r] = r;
    int64_t rows = rowsplits[rank + 1] - rowsplits[rank], ld = m + 3;
    double *a[2];
    dmx_layout *A[2];
    for (int k = 0; k < 2; k++) {
        a[k] = malloc(sizeof(double) * (size_t)(rows * ld));
        for (int64_t x = 0; x < rows * ld; x++)
            a[k][x] = 1.0; /* A2 keeps 2 * this */
        dmx_block blk = {rank, 0, a[k], ld, DMX_ROW_MAJOR};
        CHECK(dmx_layout_create_custom(MPI_COMM_WORLD, n, m, P, rowsplits, 1, colsplits, owners, 1,
                                       &blk, &A[k]));
    }

    /* One plan, two transforms: everything for a peer travels in one message. */
    dmx_transform t[2] = {
        {DMX_DOUBLE, DMX_OP_T, {1.0, 0.0}, {0.0, 0.0}, B[0], A[0], 0, 0},
        {DMX_DOUBLE, DMX_OP_T, {0.5, 0.0}, {2.0, 0.0}, B[1], A[1], 0, 0},
    };
    dmx_plan *plan = NULL;
    CHECK(dmx_plan_create(2, t, &plan));
    CHECK(dmx_plan_execute(plan));

    int64_t wrong = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < m; j++) {
            int64_t gi = rowsplits[rank] + i; /* A(gi, j) = B(j, gi) */
            wrong += a[0][i * ld + j] != b_value(0, j, gi);
            wrong += a[1][i * ld + j] != 0.5 * b_value(1, j, gi) + 2.0;
        }
    int64_t total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    dmx_plan_info info;
    CHECK(dmx_plan_get_info(plan, &info));
    if (rank == 0)
        printf("2 transposes in one round: rank 0 sent %lld elements to %d peers; %lld wrong\n",
               (long long)info.send_elems, info.npeers_send, (long long)total);

    dmx_plan_destroy(&plan);
    for (int k = 0; k < 2; k++) {
        dmx_layout_destroy(&A[k]);
        dmx_layout_destroy(&B[k]);
        free(a[k]);
        free(b[k]);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
