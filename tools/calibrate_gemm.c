/* dmx calibrate gemm: the local multiply rate for the multiply's model (DMX_GEMM_MFLOPS).
 *
 *   mpirun -n P dmx calibrate gemm [--n N] [--reps R]
 *
 * Every rank times R double-precision N x N x N multiplies (dmx_gemm on MPI_COMM_SELF, i.e. one
 * CBLAS call) at the same time, so the rate is the one a rank sees when all ranks of a node are
 * busy; rank 0 prints each rank's rate, the mean, and the line to export. Run with
 * OPENBLAS_NUM_THREADS=1 (the model assumes one core per rank). */
#include "dmx.h"
#include "dmx_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double rate_of(int64_t n, int reps)
{
    double *a = calloc((size_t)(n * n), sizeof(double)),
           *b = calloc((size_t)(n * n), sizeof(double)),
           *c = calloc((size_t)(n * n), sizeof(double)), r = 0.0;
    dmx_layout *la = NULL, *lb = NULL, *lc = NULL;
    dmx_gemm_plan *g = NULL;
    dmx_scalar one = {1, 0}, zero = {0, 0};
    for (int64_t i = 0; a && b && i < n * n; i++)
        a[i] = (double)(i % 7) - 3.0, b[i] = (double)(i % 5) - 2.0;
    if (a && b && c &&
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, a, n, &la) ==
            DMX_SUCCESS &&
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, b, n, &lb) ==
            DMX_SUCCESS &&
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, c, n, &lc) ==
            DMX_SUCCESS &&
        dmx_gemm_plan_create(MPI_COMM_SELF, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, la, lb, zero, lc,
                             NULL, &g) == DMX_SUCCESS) {
        dmx_gemm_plan_execute(g); /* warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++)
            dmx_gemm_plan_execute(g);
        r = 2.0 * (double)n * (double)n * (double)n * reps / (MPI_Wtime() - t0) / 1e6;
    }
    dmx_gemm_plan_destroy(&g);
    dmx_layout_destroy(&la);
    dmx_layout_destroy(&lb);
    dmx_layout_destroy(&lc);
    free(a);
    free(b);
    free(c);
    return r;
}

int dmx_cmd_calibrate_gemm(int argc, char **argv)
{
    int64_t n = 1024;
    int reps = 5, rank, np;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: mpirun -n P dmx calibrate gemm [--n N] [--reps R]\n");
            MPI_Finalize();
            return 2;
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double r = rate_of(n > 0 ? n : 1024, reps > 0 ? reps : 5);
    double *all = malloc(sizeof(double) * (size_t)np);
    MPI_Gather(&r, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double sum = 0;
        for (int i = 0; i < np; i++) {
            printf("rank %d: %.0f MFLOP/s\n", i, all[i]);
            sum += all[i];
        }
        printf("# local dgemm, n = %lld, %d ranks at once; mean per rank:\n", (long long)n, np);
        printf("export DMX_GEMM_MFLOPS=%.0f\n", sum / np);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
