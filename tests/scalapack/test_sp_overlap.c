/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop-in with one array given as both source and target:
 *  - "disjoint": pdgemr2d_ copies the top-left K x K submatrix of an N x N block-cyclic matrix
 *    onto its bottom-right K x K submatrix, the same array and descriptor on both sides, for a
 *    tiny call (the all-local path of sp_direct.c on one process, with its array spans meeting)
 *    and a larger one (the general path); then pdtran_ writes twice the transpose of the
 *    top-left window onto the bottom-left one of the same array (on one process the two spans
 *    meet: the all-local path copies the source elements aside before it writes).
 *    Every element is checked against the serial result; prints "overlap OK" on success.
 *    On one process also a tiny in-place pdtran_ and a pdgemr2d_ onto an overlapping window:
 *    the all-local path reads the source's elements first and gets them right.
 *  - "inplace": pdtran_ of a 40 x 40 matrix onto itself (C and A one array). ScaLAPACK cannot
 *    do that in place and dmx refuses it beyond the tiny path; the job must end with dmx's
 *    message (the test's PASS_REGULAR_EXPRESSION), never return with a wrong matrix.
 *  - "cached": the same, after the same call with two arrays (the second call hits the
 *    drop-in's cache, which rebinds the kept layouts instead of checking them anew).
 * Usage: test_sp_overlap disjoint|inplace|cached */
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double val(int i, int j)
{
    return i * 1000.0 + j + 0.5;
}

typedef struct mat {
    int n, nb, nprow, npcol, myrow, mycol, lr, lc, lld;
    int desc[9];
    double *x;
} mat;

static int numroc(int n, int nb, int p, int np)
{
    int nblk = n / nb, r = (nblk / np) * nb, extra = nblk % np;
    if (p < extra)
        r += nb;
    else if (p == extra)
        r += n % nb;
    return r;
}

static void setup(mat *a, int ctxt, int n, int nb)
{
    Cblacs_gridinfo(ctxt, &a->nprow, &a->npcol, &a->myrow, &a->mycol);
    a->n = n, a->nb = nb;
    a->lr = numroc(n, nb, a->myrow, a->nprow);
    a->lc = numroc(n, nb, a->mycol, a->npcol);
    a->lld = a->lr > 0 ? a->lr : 1;
    int d[9] = {1, ctxt, n, n, nb, nb, 0, 0, a->lld};
    memcpy(a->desc, d, sizeof d);
    a->x = malloc(sizeof(double) * (size_t)a->lld * (size_t)(a->lc > 0 ? a->lc : 1));
}

static int gidx(int l, int nb, int p, int np)
{
    return (l / nb) * nb * np + p * nb + l % nb;
}

static void fill(mat *a)
{
    for (int li = 0; li < a->lr; li++)
        for (int lj = 0; lj < a->lc; lj++)
            a->x[li + lj * a->lld] =
                val(gidx(li, a->nb, a->myrow, a->nprow), gidx(lj, a->nb, a->mycol, a->npcol));
}

/* Elements that differ from want(i, j) on this process. */
static int check(const mat *a, double (*want)(int, int, const int *), const int *arg)
{
    int bad = 0;
    for (int li = 0; li < a->lr; li++)
        for (int lj = 0; lj < a->lc; lj++) {
            int i = gidx(li, a->nb, a->myrow, a->nprow), j = gidx(lj, a->nb, a->mycol, a->npcol);
            bad += a->x[li + lj * a->lld] != want(i, j, arg);
        }
    return bad;
}

/* arg = {K, N}: bottom-right K x K is the top-left's copy */
static double want_copy(int i, int j, const int *arg)
{
    int k = arg[0], n = arg[1];
    if (i >= n - k && j >= n - k)
        return val(i - (n - k), j - (n - k));
    return val(i, j);
}

/* arg = {K, r0, c0}: rows [r0, r0 + K) x columns [c0, c0 + K) hold 2 * the transpose of the
 * top-left K x K window */
static double want_tran(int i, int j, const int *arg)
{
    int k = arg[0], r0 = arg[1], c0 = arg[2];
    if (i >= r0 && i < r0 + k && j >= c0 && j < c0 + k)
        return 2 * val(j - c0, i - r0);
    return val(i, j);
}

/* arg = {N}: the whole matrix transposed (times 1) */
static double want_tran1(int i, int j, const int *arg)
{
    (void)arg;
    return val(j, i);
}

/* arg = {K, d}: rows and columns [d, d + K) hold the original [0, K) */
static double want_shift(int i, int j, const int *arg)
{
    int k = arg[0], d = arg[1];
    if (i >= d && i < d + k && j >= d && j < d + k)
        return val(i - d, j - d);
    return val(i, j);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, ctxt;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(0, 0, &ctxt);
    int pr = np >= 4 ? 2 : 1;
    Cblacs_gridinit(&ctxt, "Row", pr, np / pr);
    int bad = 0, one = 1;
    if (argc > 1 && strcmp(argv[1], "cached") == 0) {
        /* the same call twice (the second hits the drop-in's cache, which rebinds its layouts
         * to the new arrays): first C and A apart, then one array for both */
        mat a, c;
        setup(&a, ctxt, 40, 4);
        setup(&c, ctxt, 40, 4);
        fill(&a);
        double alpha = 1, beta = 0;
        pdtran_(&a.n, &a.n, &alpha, a.x, &one, &one, a.desc, &beta, c.x, &one, &one, c.desc);
        pdtran_(&a.n, &a.n, &alpha, a.x, &one, &one, a.desc, &beta, a.x, &one, &one, a.desc);
        printf("overlap FAIL: the in-place pdtran_ after a cached one returned on process %d\n",
               me);
        MPI_Finalize();
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "inplace") == 0) {
        mat a;
        setup(&a, ctxt, 40, 2); /* beyond the tiny all-local path, which does it right */
        fill(&a);
        double alpha = 1, beta = 0;
        pdtran_(&a.n, &a.n, &alpha, a.x, &one, &one, a.desc, &beta, a.x, &one, &one, a.desc);
        printf("overlap FAIL: the in-place pdtran_ returned on process %d\n", me);
        MPI_Finalize();
        return 1;
    }
    int sizes[2][2] = {{6, 2}, {60, 4}}; /* N, NB: a tiny call, then one for the general path */
    for (int s = 0; s < 2; s++) {
        mat a;
        setup(&a, ctxt, sizes[s][0], sizes[s][1]);
        int k = a.n / 2, dst = a.n - k + 1, arg[3] = {k, a.n, 0};
        fill(&a);
        pdgemr2d_(&k, &k, a.x, &one, &one, a.desc, a.x, &dst, &dst, a.desc, &ctxt);
        int b1 = check(&a, want_copy, arg);
        /* C(r0.., c0..) = 2 * A(1..K, 1..K)^T, the windows disjoint (below the copied one) */
        fill(&a);
        int r0 = a.n - k + 1, c0 = 1, t[3] = {k, r0 - 1, c0 - 1};
        double alpha = 2, beta = 0;
        pdtran_(&k, &k, &alpha, a.x, &one, &one, a.desc, &beta, a.x, &r0, &c0, a.desc);
        int b2 = check(&a, want_tran, t);
        if (b1 || b2)
            printf("overlap FAIL: N %d process %d: %d wrong after pdgemr2d_, %d after pdtran_\n",
                   a.n, me, b1, b2);
        bad += b1 + b2;
        free(a.x);
    }
    if (np == 1) { /* tiny and all local: done in place, B's elements read first */
        mat a;
        setup(&a, ctxt, 9, 2);
        fill(&a);
        double alpha = 1, beta = 0;
        int t[3] = {9, 0, 0};
        pdtran_(&a.n, &a.n, &alpha, a.x, &one, &one, a.desc, &beta, a.x, &one, &one, a.desc);
        int b1 = check(&a, want_tran1, t);
        fill(&a); /* the top-left 5 x 5 onto itself shifted by one row and column */
        int k = 5, two = 2, arg[2] = {k, 1};
        pdgemr2d_(&k, &k, a.x, &one, &one, a.desc, a.x, &two, &two, a.desc, &ctxt);
        int b2 = check(&a, want_shift, arg);
        if (b1 || b2)
            printf("overlap FAIL: in place on one process: %d wrong after pdtran_, %d after "
                   "pdgemr2d_\n",
                   b1, b2);
        bad += b1 + b2;
        free(a.x);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "overlap FAIL\n" : "overlap OK\n");
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return all != 0;
}
