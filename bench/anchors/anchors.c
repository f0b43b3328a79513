/* SPDX-License-Identifier: BSD-3-Clause */
/* One ScaLAPACK-API driver for side-by-side runs against the anchors (bench/anchors/anchors.sh).
 *
 * It calls pdgemm_, pdgemr2d_ or pdtran_ by their ScaLAPACK names and links only Debian's
 * ScaLAPACK; the implementation under test is chosen at launch by preloading it (dmx's
 * libdmx_scalapack, COSMA's libcosma_pxgemm, COSTA's libcosta_scalapack). The JSON line names
 * the library the call actually resolved to (dladdr), so a preload that did not take is seen.
 *
 *   mpirun -n P anchors gemm   m n k nb pr pc reps
 *   mpirun -n P anchors gemr2d m n nb nb2 pr pc reps     (m x n, nb blocks -> nb2 blocks)
 *   mpirun -n P anchors tran   m n nb nb2 pr pc reps     (C (n x m, nb2) = A^T (m x n, nb))
 *
 * One warm-up call, then reps calls between barriers; a call's time is the maximum over ranks.
 * Every local element of the result is checked: gemm's operands are rank-2 formulas whose
 * product has a closed form, the copies' entries are their global indices. Plain malloc arrays
 * (as a Fortran code would have). Exits 1 if any element is wrong. */
#define _GNU_SOURCE
#include "../bench_scalapack.h" /* BLACS, numroc_, pdgemm_, pdgemr2d_, pdtran_ */

#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mat {
    int desc[9];
    int locr, locc;
    double *v;
} mat;

static int g_prow, g_pcol, g_myrow, g_mycol;

static void die(const char *msg)
{
    fprintf(stderr, "anchors: %s\n", msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void mat_make(mat *x, int ctxt, int m, int n, int nb)
{
    const int zero = 0;
    x->locr = numroc_(&m, &nb, &g_myrow, &zero, &g_prow);
    x->locc = numroc_(&n, &nb, &g_mycol, &zero, &g_pcol);
    int lld = x->locr > 1 ? x->locr : 1;
    int d[9] = {1, ctxt, m, n, nb, nb, 0, 0, lld};
    memcpy(x->desc, d, sizeof d);
    size_t cnt = (size_t)lld * (size_t)(x->locc > 1 ? x->locc : 1);
    x->v = malloc(cnt * sizeof(double));
    if (!x->v)
        die("out of memory");
    memset(x->v, 0, cnt * sizeof(double));
}

/* global index of local row/column l (0-based) with blocks nb over p processes, this one q */
static long glob(int l, int nb, int q, int p)
{
    return ((long)(l / nb) * p + q) * nb + l % nb;
}

typedef double (*fill_fn)(long i, long j, long n);

static void mat_fill(mat *x, fill_fn f)
{
    int nb = x->desc[4], n = x->desc[3];
    for (int c = 0; c < x->locc; c++)
        for (int r = 0; r < x->locr; r++)
            x->v[(size_t)c * x->desc[8] + r] =
                f(glob(r, nb, g_myrow, g_prow), glob(c, nb, g_mycol, g_pcol), n);
}

/* gemm operands: A(i,l) = a_i x_l + 1, B(l,j) = y_l b_j, so (AB)(i,j) = a_i b_j (x.y) + b_j sum y
 */
static double fa(long i)
{
    return (double)(i % 7 + 1) / 8.0;
}
static double fx(long l)
{
    return (double)(l % 5 + 1) / 4.0;
}
static double fy(long l)
{
    return (double)(l % 3 + 1) / 2.0;
}
static double fb(long j)
{
    return (double)(j % 11 + 1) / 16.0;
}
static double gem_a(long i, long l, long n)
{
    (void)n;
    return fa(i) * fx(l) + 1.0;
}
static double gem_b(long l, long j, long n)
{
    (void)n;
    return fy(l) * fb(j);
}
static double index_val(long i, long j, long n)
{
    return (double)(i * n + j);
}

static const char *where(void *fn)
{
    Dl_info info;
    if (fn && dladdr(fn, &info) && info.dli_fname) {
        const char *s = strrchr(info.dli_fname, '/');
        return s ? s + 1 : info.dli_fname;
    }
    return "?";
}

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
    if (argc < 9)
        die("usage: anchors gemm m n k nb pr pc reps | gemr2d|tran m n nb nb2 pr pc reps");
    const char *op = argv[1];
    int gemm = !strcmp(op, "gemm"), tran = !strcmp(op, "tran");
    if (!gemm && !tran && strcmp(op, "gemr2d"))
        die("operation must be gemm, gemr2d or tran");
    int a1 = atoi(argv[2]), a2 = atoi(argv[3]), a3 = atoi(argv[4]), a4 = atoi(argv[5]);
    int pr = atoi(argv[6]), pc = atoi(argv[7]), reps = atoi(argv[8]);
    if (pr * pc != size || reps < 1 || a1 < 1 || a2 < 1 || a3 < 1 || a4 < 1)
        die("bad arguments (pr * pc must equal the number of ranks)");
    int ctxt;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    Cblacs_gridinfo(ctxt, &g_prow, &g_pcol, &g_myrow, &g_mycol);

    int m = a1, n = a2, k = gemm ? a3 : 0, nb = gemm ? a4 : a3, nb2 = gemm ? a4 : a4;
    mat A, B, C;
    const int one = 1;
    const double alpha = 1.0, beta = 0.0;
    void *fn;
    if (gemm) {
        mat_make(&A, ctxt, m, k, nb);
        mat_make(&B, ctxt, k, n, nb);
        mat_make(&C, ctxt, m, n, nb);
        mat_fill(&A, gem_a);
        mat_fill(&B, gem_b);
        fn = (void *)pdgemm_;
    } else {
        mat_make(&A, ctxt, m, n, nb);
        mat_fill(&A, index_val);
        if (tran)
            mat_make(&C, ctxt, n, m, nb2);
        else
            mat_make(&C, ctxt, m, n, nb2);
        fn = tran ? (void *)pdtran_ : (void *)pdgemr2d_;
    }
    double *t = malloc(sizeof(double) * (size_t)(reps + 1));
    if (!t)
        die("out of memory");
    for (int r = 0; r <= reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (gemm)
            pdgemm_("N", "N", &m, &n, &k, &alpha, A.v, &one, &one, A.desc, B.v, &one, &one, B.desc,
                    &beta, C.v, &one, &one, C.desc);
        else if (tran)
            pdtran_(&n, &m, &alpha, A.v, &one, &one, A.desc, &beta, C.v, &one, &one, C.desc);
        else
            pdgemr2d_(&m, &n, A.v, &one, &one, A.desc, C.v, &one, &one, C.desc, &ctxt);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    /* check every local element of the result */
    long bad = 0;
    double sxy = 0.0, sy = 0.0;
    for (long l = 0; gemm && l < k; l++) {
        sxy += fx(l) * fy(l);
        sy += fy(l);
    }
    int cnb = C.desc[4], cn = C.desc[3];
    for (int c = 0; c < C.locc; c++)
        for (int r = 0; r < C.locr; r++) {
            long i = glob(r, cnb, g_myrow, g_prow), j = glob(c, cnb, g_mycol, g_pcol);
            double got = C.v[(size_t)c * C.desc[8] + r], want;
            if (gemm)
                want = fa(i) * fb(j) * sxy + fb(j) * sy;
            else if (tran)
                want = index_val(j, i, n);
            else
                want = index_val(i, j, cn);
            if (!(fabs(got - want) <= 1e-12 * (fabs(want) + 1.0) * (gemm ? k : 1)))
                bad++;
        }
    long badsum = 0;
    MPI_Allreduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    qsort(t + 1, (size_t)reps, sizeof(double), cmp_double);
    if (rank == 0) {
        printf("{\"op\":\"%s\",\"impl\":\"%s\",\"lib\":\"%s\",\"np\":%d,\"grid\":\"%dx%d\","
               "\"m\":%d,\"n\":%d,\"k\":%d,\"nb\":%d,\"nb2\":%d,\"reps\":%d,\"t_first\":%.6f,"
               "\"t_med\":%.6e,\"t_min\":%.6e,\"wrong\":%ld}\n",
               op, getenv("ANCHOR_IMPL") ? getenv("ANCHOR_IMPL") : "?", where(fn), size, pr, pc, m,
               n, k, nb, nb2, reps, t[0], t[1 + (reps - 1) / 2], t[1], badsum);
        fflush(stdout);
    }
    free(t);
    free(A.v);
    free(C.v);
    if (gemm)
        free(B.v);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return badsum ? 1 : 0;
}
