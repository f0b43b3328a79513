/* SPDX-License-Identifier: BSD-3-Clause */
/* ScaLAPACK's LU factorization (PDGETRF) as an unmodified ScaLAPACK program: no dmx header, no dmx
 * library, so the same binary runs plain and with libdmx_scalapack preloaded (whose p?gemm_,
 * p?gemr2d_ and p?tran*_ ScaLAPACK's routines then call). bench/scalapack/getrf_compare.sh runs
 * it both ways, interleaved.
 *
 * Usage: bench_getrf [n [nb [prow [reps]]]] (defaults 4096 64 2 3; pcol = processes / prow).
 * Each repetition refills A (the same pseudo-random values every time) and times PDGETRF alone
 * (max over ranks). Prints the median time, GFLOP/s (2/3 n^3), and a checksum of the factors
 * and pivots so that the two runs' results can be compared. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              int *ipiv, int *info);

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Element (i, j) of A (0-based global indices): a fixed pseudo-random value in [-0.5, 0.5). */
static double elem(long i, long j)
{
    unsigned long h = (unsigned long)(i * 2654435761L) ^ (unsigned long)(j * 40503L + 12345L);
    h ^= h >> 13, h *= 0x5bd1e995UL, h ^= h >> 15;
    return (double)(h % 1000003UL) / 1000003.0 - 0.5;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, ctxt, pr, pc, myr, myc, info, izero = 0, ione = 1;
    Cblacs_pinfo(&me, &np);
    int n = argc > 1 ? atoi(argv[1]) : 4096, nb = argc > 2 ? atoi(argv[2]) : 64;
    int prow = argc > 3 ? atoi(argv[3]) : 2, reps = argc > 4 ? atoi(argv[4]) : 3;
    if (n < 1 || nb < 1 || prow < 1 || reps < 1 || np % prow != 0 || reps > 99) {
        if (me == 0)
            fprintf(stderr, "usage: bench_getrf [n [nb [prow [reps]]]], prow dividing %d\n", np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", prow, np / prow);
    Cblacs_gridinfo(ctxt, &pr, &pc, &myr, &myc);
    int lr = numroc_(&n, &nb, &myr, &izero, &pr), lc = numroc_(&n, &nb, &myc, &izero, &pc);
    int lld = lr > 1 ? lr : 1, desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
    double *a = malloc(sizeof(double) * (size_t)lld * (size_t)(lc > 0 ? lc : 1));
    int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
    double t[99], sum = 0, gsum = 0;
    long psum = 0, gpsum = 0;
    if (a == NULL || ipiv == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int r = 0; r < reps; r++) {
        for (int lj = 0; lj < lc; lj++)
            for (int li = 0; li < lr; li++) {
                long gi = (long)((li / nb) * pr + myr) * nb + li % nb;
                long gj = (long)((lj / nb) * pc + myc) * nb + lj % nb;
                a[(size_t)lj * (size_t)lld + (size_t)li] = elem(gi, gj);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgetrf_(&n, &n, a, &ione, &ione, desc, ipiv, &info);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (info != 0) {
            fprintf(stderr, "rank %d: pdgetrf info = %d\n", me, info);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    for (size_t e = 0; e < (size_t)lr * (size_t)lc; e++)
        sum += fabs(a[(e / (size_t)lr) * (size_t)lld + e % (size_t)lr]);
    for (int i = 0; i < lr; i++)
        psum += (long)ipiv[i] * (i + 1);
    MPI_Reduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&psum, &gpsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    if (me == 0)
        printf("pdgetrf n %d nb %d grid %dx%d: median %.4f s (min %.4f) %.2f GFLOP/s checksum "
               "%.12e pivots %ld\n",
               n, nb, pr, pc, t[reps / 2], t[0], 2.0 / 3.0 * n * (double)n * n / t[reps / 2] * 1e-9,
               gsum, gpsum);
    free(a);
    free(ipiv);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return 0;
}
