/* SPDX-License-Identifier: BSD-3-Clause */
/* The all-local copy against the transposes for every dtype (docs/exec.md, "Whole lines from the
 * registers, merged local rectangles": the table "Every dtype"). One rank; A and B n x n in
 * identical block-cyclic layouts of nb x nb blocks on a 1 x 1 grid, plain malloc arrays; one plan
 * per op (N, T, C; alpha 1, beta 0), executed once untimed and 9 times timed; prints the median
 * times and T / N, C / N. dmx bench redist has doubles only. A probe, not a test: not built by
 * CMake.
 *   mpicc -O2 -Iinclude -Ibuild/include bench/probes/local_dtypes.c -Lbuild -ldmx \
 *       -Wl,-rpath,$PWD/build -o local_dtypes
 *   OMP_NUM_THREADS=1 mpirun -n 1 ./local_dtypes 4096 32 */
#include <dmx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of 9 executions of A = op(B) (after one untimed). */
static double time_op(dmx_dtype dt, dmx_op op, const dmx_layout *lb, dmx_layout *la)
{
    const dmx_transform tr = {dt, op, {1, 0}, {0, 0}, lb, la, 0, 0};
    dmx_plan *p = NULL;
    double ts[9];
    if (dmx_plan_create(1, &tr, &p) != DMX_SUCCESS || dmx_plan_execute(p) != DMX_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < 9; r++) {
        const double t0 = MPI_Wtime();
        if (dmx_plan_execute(p) != DMX_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        ts[r] = MPI_Wtime() - t0;
    }
    dmx_plan_destroy(&p);
    qsort(ts, 9, sizeof ts[0], cmp);
    return ts[4] * 1e3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int64_t n = argc > 1 ? atoll(argv[1]) : 4096, nb = argc > 2 ? atoll(argv[2]) : 32;
    static const char *names[4] = {"float", "double", "cfloat", "cdouble"};
    static const dmx_dtype dts[4] = {DMX_FLOAT, DMX_DOUBLE, DMX_CFLOAT, DMX_CDOUBLE};
    for (int t = 0; t < 4; t++) {
        const size_t bytes = (size_t)n * (size_t)n * dmx_dtype_size(dts[t]);
        char *A = malloc(bytes), *B = malloc(bytes);
        dmx_layout *la = NULL, *lb = NULL;
        if (!A || !B)
            MPI_Abort(MPI_COMM_WORLD, 1);
        memset(B, 1, bytes); /* real pages, a finite bit pattern in every dtype */
        memset(A, 0, bytes);
        if (dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, nb, nb, 1, 1, 'R', 0, 0, A, n,
                                           &la) != DMX_SUCCESS ||
            dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, nb, nb, 1, 1, 'R', 0, 0, B, n,
                                           &lb) != DMX_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        const double tn = time_op(dts[t], DMX_OP_N, lb, la), tt = time_op(dts[t], DMX_OP_T, lb, la),
                     tc = time_op(dts[t], DMX_OP_C, lb, la);
        printf("%-8s n %lld nb %lld: copy %.2f ms, T %.2f ms (%.2fx), C %.2f ms (%.2fx)\n",
               names[t], (long long)n, (long long)nb, tn, tt, tt / tn, tc, tc / tn);
        dmx_layout_destroy(&la);
        dmx_layout_destroy(&lb);
        free(A);
        free(B);
    }
    MPI_Finalize();
    return 0;
}
