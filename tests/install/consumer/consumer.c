/* SPDX-License-Identifier: BSD-3-Clause */
/* Uses the installed dmx: transposes a block-cyclic matrix and checks it. */
#include <dmx.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* m x m on a 1 x size grid with 1-column blocks: rank r holds columns r, r + size, ... */
    const int64_t m = 10;
    int64_t lc = 0;
    for (int64_t j = rank; j < m; j += size)
        lc++;
    double *b = malloc(sizeof(double) * (size_t)(m * (lc ? lc : 1)));
    double *a = malloc(sizeof(double) * (size_t)(m * (lc ? lc : 1)));
    for (int64_t jj = 0; jj < lc; jj++)
        for (int64_t i = 0; i < m; i++)
            b[i + jj * m] = 100.0 * (double)i + (double)(rank + jj * size);
    dmx_layout *B = NULL, *A = NULL;
    dmx_status st =
        dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, m, m, 1, 1, size, 'R', 0, 0, b, m, &B);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, m, m, 1, 1, size, 'R', 0, 0, a, m,
                                            &A);
    dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    if (st == DMX_SUCCESS)
        st = dmx_transform_once(DMX_DOUBLE, DMX_OP_T, one, B, zero, A);
    long wrong = st != DMX_SUCCESS;
    for (int64_t jj = 0; st == DMX_SUCCESS && jj < lc; jj++)
        for (int64_t i = 0; i < m; i++) /* A(i, j) = B(j, i) */
            wrong += a[i + jj * m] != 100.0 * (double)(rank + jj * size) + (double)i;
    long total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("consumer: %s, %ld wrong\n", dmx_status_string(st), total);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&B);
    free(a);
    free(b);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
