/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's ceiling on this machine, for anchors.sh --bound: every rank multiplies its own
 * share of C (the rows and columns the pr x pc block-cyclic grid gives it, times the whole inner
 * dimension) with one local dgemm_, all ranks at once and with no communication. No distributed
 * pdgemm_ of the same product can be faster, so a ratio against this shows how much any
 * implementation has left to gain here.
 *
 *   mpirun -n P bound gemm m n k nb pr pc reps
 *
 * Prints one JSON line in anchors.c's form (impl "bound"); a call's time is the maximum over
 * ranks, the median over reps after one warm-up. Checks its result against the closed form of
 * the all-ones product (every element equals k). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 9 || strcmp(argv[1], "gemm") != 0) {
        fprintf(stderr, "usage: bound gemm m n k nb pr pc reps\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int m = atoi(argv[2]), n = atoi(argv[3]), k = atoi(argv[4]), nb = atoi(argv[5]);
    int pr = atoi(argv[6]), pc = atoi(argv[7]), reps = atoi(argv[8]);
    if (pr * pc != size || reps < 1 || m < 1 || n < 1 || k < 1 || nb < 1) {
        fprintf(stderr, "bound: bad arguments (pr * pc must equal the number of ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int src = 0, myrow = rank / pc, mycol = rank % pc; /* ScaLAPACK's share of each */
    int ml = numroc_(&m, &nb, &myrow, &src, &pr), nl = numroc_(&n, &nb, &mycol, &src, &pc);
    int lda = ml > 1 ? ml : 1, ldb = k;
    double *a = malloc(sizeof(double) * (size_t)lda * (size_t)k);
    double *b = malloc(sizeof(double) * (size_t)k * (size_t)(nl > 1 ? nl : 1));
    double *c = malloc(sizeof(double) * (size_t)lda * (size_t)(nl > 1 ? nl : 1));
    double *t = malloc(sizeof(double) * (size_t)(reps + 1));
    if (!a || !b || !c || !t) {
        fprintf(stderr, "bound: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < (size_t)lda * (size_t)k; i++)
        a[i] = 1.0;
    for (size_t i = 0; i < (size_t)k * (size_t)(nl > 1 ? nl : 1); i++)
        b[i] = 1.0;
    const double one = 1.0, zero = 0.0;
    for (int r = 0; r <= reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (ml > 0 && nl > 0)
            dgemm_("N", "N", &ml, &nl, &k, &one, a, &lda, b, &ldb, &zero, c, &lda);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    long bad = 0, badsum = 0;
    for (size_t i = 0; ml > 0 && i < (size_t)ml * (size_t)nl; i++)
        if (fabs(c[i] - (double)k) > 0.0)
            bad++;
    MPI_Allreduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    qsort(t + 1, (size_t)reps, sizeof(double), cmp_double);
    if (rank == 0)
        printf("{\"op\":\"gemm\",\"impl\":\"bound\",\"lib\":\"local dgemm_\",\"np\":%d,"
               "\"grid\":\"%dx%d\",\"m\":%d,\"n\":%d,\"k\":%d,\"nb\":%d,\"nb2\":%d,\"reps\":%d,"
               "\"t_first\":%.6f,\"t_med\":%.6e,\"t_min\":%.6e,\"wrong\":%ld}\n",
               size, pr, pc, m, n, k, nb, nb, reps, t[0], t[1 + (reps - 1) / 2], t[1], badsum);
    free(a), free(b), free(c), free(t);
    MPI_Finalize();
    return 0;
}
