/* SPDX-License-Identifier: BSD-3-Clause */
/* Time pdgemm_ through dmx's drop-in against Debian's ScaLAPACK in one run.
 *
 * C (m x n) = alpha A (m x k) B (k x n) + beta C, all three nb x nb block-cyclic from process
 * (0, 0) on a pr x pc grid (default: the most nearly square grid of the processes, pr <= pc),
 * plain malloc arrays. dmx runs through the test build of libdmx_scalapack (the same code as the
 * shared library, symbols prefixed dmxsp_test_), so both are called by name in one process, in
 * alternating order: Debian's, then dmx's, then dmx's, then Debian's, ... Before each call C is
 * reset to the same start; each call is timed between barriers, the time being the maximum
 * over ranks. The drop-in's rule (DMX_SCALAPACK_GEMM, default auto) applies, so a call it hands
 * to ScaLAPACK is timed as such. One warm-up call of each first (dmx's plan cache is filled
 * there). The last results of both are compared element by element.
 *
 * Prints one JSON line per implementation with the median and one with the ratio
 * (ScaLAPACK / dmx: above 1 means dmx is faster).
 *
 * Usage: mpirun -n P bench_sp_gemm [n [nb [reps [pr [m k]]]]]  (defaults 4096 64 5; m = k = n) */
#include "bench_scalapack.h"
#include "bench_util.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the drop-in's test build, beside Debian's pdgemm_ (bench_scalapack.h; same prototype) */
void dmxsp_test_pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const double *alpha, const double *a, const int *ia, const int *ja,
                        const int *desca, const double *b, const int *ib, const int *jb,
                        const int *descb, const double *beta, double *c, const int *ic,
                        const int *jc, const int *descc);

typedef struct mat {
    int desc[9], lr, lc;
    double *d;
} mat;

static void make(mat *x, int M, int N, int nb, int ctxt, const int *grid, int id)
{
    const int zero = 0;
    x->lr = numroc_(&M, &nb, &grid[2], &zero, &grid[0]);
    x->lc = numroc_(&N, &nb, &grid[3], &zero, &grid[1]);
    int lld = x->lr > 0 ? x->lr : 1, info = 0;
    descinit_(x->desc, &M, &N, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    const size_t n = (size_t)lld * (size_t)(x->lc > 0 ? x->lc : 1);
    x->d = malloc(n * sizeof(double));
    for (size_t e = 0; e < n; e++)
        x->d[e] =
            (double)((e * 37 + (size_t)id * 11 + (size_t)(grid[2] * 5 + grid[3])) % 23) / 7.0 - 1.5;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    Cblacs_pinfo(&me, &np);
    const int n = argc > 1 ? atoi(argv[1]) : 4096, nb = argc > 2 ? atoi(argv[2]) : 64;
    const int reps = argc > 3 ? atoi(argv[3]) : 5;
    int pr = argc > 4 ? atoi(argv[4]) : 0;
    const int m = argc > 5 ? atoi(argv[5]) : n, k = argc > 6 ? atoi(argv[6]) : n;
    if (pr <= 0)
        for (pr = 1; (pr + 1) * (pr + 1) <= np; pr++)
            ;
    while (np % pr != 0)
        pr--;
    const int pc = np / pr;
    int ctxt, grid[4];
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    Cblacs_gridinfo(ctxt, &grid[0], &grid[1], &grid[2], &grid[3]);
    mat A, B, C0, C[2];
    make(&A, m, k, nb, ctxt, grid, 1);
    make(&B, k, n, nb, ctxt, grid, 2);
    make(&C0, m, n, nb, ctxt, grid, 3);
    const size_t cn = (size_t)C0.desc[8] * (size_t)(C0.lc > 0 ? C0.lc : 1);
    for (int i = 0; i < 2; i++) {
        C[i] = C0;
        C[i].d = malloc(cn * sizeof(double));
    }
    const double alpha = 1.25, beta = 0.5;
    const int one = 1;
    double *t[2] = {calloc((size_t)reps + 1, sizeof(double)),
                    calloc((size_t)reps + 1, sizeof(double))};
    for (int r = -1; r < reps; r++)
        for (int s = 0; s < 2; s++) {
            const int impl = (r < 0 ? 0 : r % 2) ? 1 - s : s; /* 0 ScaLAPACK, 1 dmx */
            memcpy(C[impl].d, C0.d, cn * sizeof(double));
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            (impl ? dmxsp_test_pdgemm_ : pdgemm_)("N", "N", &m, &n, &k, &alpha, A.d, &one, &one,
                                                  A.desc, B.d, &one, &one, B.desc, &beta, C[impl].d,
                                                  &one, &one, C[impl].desc);
            const double dt = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
            if (r >= 0)
                t[impl][r] = dt;
        }
    double worst = 0, gworst = 0;
    for (size_t e = 0; e < cn; e++) {
        const double d = fabs(C[0].d[e] - C[1].d[e]) / (1.0 + fabs(C[0].d[e]));
        worst = d > worst || isnan(d) ? d : worst;
    }
    MPI_Allreduce(&worst, &gworst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double med[2] = {bench_median(t[0], reps), bench_median(t[1], reps)};
    if (me == 0) {
        const char *names[2] = {"scalapack", "dmx"};
        for (int i = 0; i < 2; i++)
            printf("{\"bench\":\"sp_gemm\",\"impl\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"nb\":%d,"
                   "\"grid\":\"%dx%d\",\"reps\":%d,\"median_s\":%.6f,\"gflops\":%.2f}\n",
                   names[i], m, n, k, nb, pr, pc, reps, med[i],
                   2.0 * m * (double)n * k / med[i] * 1e-9);
        printf("{\"bench\":\"sp_gemm\",\"m\":%d,\"n\":%d,\"k\":%d,\"nb\":%d,\"grid\":\"%dx%d\","
               "\"scalapack_over_dmx\":%.3f,\"max_rel_diff\":%.3g}\n",
               m, n, k, nb, pr, pc, med[0] / med[1], gworst);
    }
    free(t[0]), free(t[1]);
    free(A.d), free(B.d), free(C0.d), free(C[0].d), free(C[1].d);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return gworst > 1e-8 ? 1 : 0;
}
