/* SPDX-License-Identifier: BSD-3-Clause */
/* 10^4 calls through libdmx_scalapack's exported names (linked before libscalapack-openmpi):
 *  - pdgemr2d_ cycling over 4 descriptor sets and two pairs of arrays: every call after the first
 *    four must be a cache hit that rebinds the arrays, and every result is checked;
 *  - pztranc_ with changing alpha/beta on cached plans;
 *  - 20 descriptor sets round-robin, more than the cache holds: evictions;
 *  - the cache stays bounded, and at MPI_Finalize everything is freed (run in the DMX_SANITIZE
 *    build, LeakSanitizer reports any leak);
 *  - under a tiny DMX_CACHE_BYTES (below one plan; the scalapack_loop_budget test) the budget,
 *    not DMX_SCALAPACK_CACHE, bounds the cache: each new call's plan pushes the others of its
 *    kind out (at most one plan made together and one call made alone stay), results still
 *    right.
 *
 * Usage: test_loop [ncalls]
 */
#define _GNU_SOURCE
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <complex.h>
#include <dlfcn.h>
#include <string.h>

typedef struct side {
    int ctxt, nprow, npcol, myrow, mycol, in;
    int desc[9], locr, locc;
    size_t nelem;
} side;

static void make_side(side *s, int ctxt, int m, int n, int mb, int nb, int rsrc, int csrc)
{
    memset(s, 0, sizeof *s);
    s->ctxt = ctxt;
    Cblacs_gridinfo(ctxt, &s->nprow, &s->npcol, &s->myrow, &s->mycol);
    s->in = ctxt >= 0 && s->myrow >= 0;
    if (s->in) {
        s->locr = (int)dmxt_numroc(m, mb, s->myrow, rsrc, s->nprow);
        s->locc = (int)dmxt_numroc(n, nb, s->mycol, csrc, s->npcol);
    }
    int lld = (s->locr > 1 ? s->locr : 1) + 1;
    int d[9] = {1, s->in ? ctxt : -1, m, n, mb, nb, rsrc, csrc, lld};
    memcpy(s->desc, d, sizeof d);
    s->nelem = (size_t)lld * (size_t)(s->locc > 1 ? s->locc : 1);
}

/* Global (0-based) index of local index l. */
static int l2g(int l, int nb, int p, int src, int np)
{
    return ((l / nb) * np + (p - src + np) % np) * nb + l % nb;
}

static double value(int i, int j, int salt)
{
    return 4096.0 * i + j + 0.5 * salt;
}

static void fill_src(const side *s, double *a, int salt)
{
    for (int lj = 0; lj < s->locc; lj++)
        for (int li = 0; li < s->locr; li++)
            a[li + (size_t)lj * (size_t)s->desc[8]] =
                value(l2g(li, s->desc[4], s->myrow, s->desc[6], s->nprow),
                      l2g(lj, s->desc[5], s->mycol, s->desc[7], s->npcol), salt);
}

/* Check sub(B) = sub(A) for the window and that everything else of B still holds -1. */
static long check_copy(const side *s, const double *b, int m, int n, int ia, int ja, int ib, int jb,
                       int salt)
{
    long bad = 0;
    for (int lj = 0; lj < s->locc; lj++)
        for (int li = 0; li < s->locr; li++) {
            int i = l2g(li, s->desc[4], s->myrow, s->desc[6], s->nprow) - (ib - 1);
            int j = l2g(lj, s->desc[5], s->mycol, s->desc[7], s->npcol) - (jb - 1);
            double want =
                (i >= 0 && i < m && j >= 0 && j < n) ? value(i + ia - 1, j + ja - 1, salt) : -1.0;
            bad += b[li + (size_t)lj * (size_t)s->desc[8]] != want;
        }
    return bad;
}

int main(int argc, char **argv)
{
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    int me, np;
    Cblacs_pinfo(&me, &np);
    long ncalls = argc > 1 ? atol(argv[1]) : 10000;

    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "pdgemr2d_");
    if (sym == NULL || dladdr(sym, &info) == 0 || strstr(info.dli_fname, "dmx_scalapack") == NULL) {
        fprintf(stderr, "pdgemr2d_ does not come from libdmx_scalapack\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int pr = np >= 4 ? 2 : 1, pc = np >= 4 ? 2 : np;
    int ga, gb, gall;
    Cblacs_get(0, 0, &ga);
    Cblacs_gridinit(&ga, "Row", pr, pc);
    Cblacs_get(0, 0, &gb);
    Cblacs_gridinit(&gb, "Col", 1, np);
    Cblacs_get(0, 0, &gall);
    Cblacs_gridinit(&gall, "Row", np, 1);

    const int M = 30, N = 26, m = 17, n = 13;
    side sa, sb;
    make_side(&sa, ga, M, N, 4, 3, pr - 1, 0);
    make_side(&sb, gb, M, N, 5, 2, 0, pc > 1 ? 1 : 0);
    double *a[2], *b[2];
    for (int k = 0; k < 2; k++) {
        a[k] = calloc(sa.nelem, sizeof(double));
        b[k] = calloc(sb.nelem, sizeof(double));
    }

    long bad = 0;
    const int nsets = 4;
    for (long it = 0; it < ncalls; it++) {
        int set = (int)(it % nsets), buf = (int)((it / nsets) % 2);
        int ia = 1 + set, ja = 2 + set, ib = 1 + 2 * set, jb = 1 + set;
        int salt = (int)(it % 1000);
        if (sa.in)
            fill_src(&sa, a[buf], salt);
        for (size_t k = 0; k < sb.nelem; k++)
            b[buf][k] = -1.0;
        pdgemr2d_(&m, &n, sa.in ? a[buf] : NULL, &ia, &ja, sa.desc, sb.in ? b[buf] : NULL, &ib, &jb,
                  sb.desc, &gall);
        if (sb.in)
            bad += check_copy(&sb, b[buf], m, n, ia, ja, ib, jb, salt);
    }
    dmx_scalapack_stats st0;
    dmx_scalapack_get_stats(&st0);
    /* the plan cache's budget (the library reads the same variable; a test may read it too):
     * below one plan, each set's plan pushes the other sets' out, so no call hits */
    const char *budget = getenv("DMX_CACHE_BYTES");
    const int tiny = budget != NULL && atol(budget) < 64;
    if (tiny ? st0.hits != 0 : st0.hits < ncalls - nsets) {
        fprintf(stderr, "[%d] only %lld cache hits in %ld calls\n", me, (long long)st0.hits,
                ncalls);
        bad++;
    }

    /* pztranc_: C (m x n) = beta*C + alpha*A^H, alpha/beta changing on a cached plan */
    if (sa.in) {
        side za, zc;
        make_side(&za, ga, n, m, 2, 3, 0, 0);
        make_side(&zc, ga, m, n, 3, 2, 0, pc - 1);
        double complex *x = calloc(za.nelem, sizeof *x), *y = calloc(zc.nelem, sizeof *y);
        for (int lj = 0; lj < za.locc; lj++)
            for (int li = 0; li < za.locr; li++) {
                int i = l2g(li, 2, za.myrow, 0, za.nprow), j = l2g(lj, 3, za.mycol, 0, za.npcol);
                x[li + (size_t)lj * (size_t)za.desc[8]] = i + I * j;
            }
        const int one = 1;
        for (int it = 0; it < 1000; it++) {
            double alpha[2] = {1.0 + it % 3, 0.5}, beta[2] = {0.0, 0.0};
            pztranc_(&m, &n, alpha, x, &one, &one, za.desc, beta, y, &one, &one, zc.desc);
            double complex al = alpha[0] + I * alpha[1];
            for (int lj = 0; lj < zc.locc; lj++)
                for (int li = 0; li < zc.locr; li++) {
                    int i = l2g(li, 3, zc.myrow, 0, zc.nprow);
                    int j = l2g(lj, 2, zc.mycol, zc.desc[7], zc.npcol);
                    double complex want = al * conj(j + I * i);
                    bad += y[li + (size_t)lj * (size_t)zc.desc[8]] != want;
                }
        }
        free(x);
        free(y);
    }

    /* more descriptor sets than the cache holds */
    for (int round = 0; round < 3; round++)
        for (int set = 0; set < 20; set++) {
            int ia = 1 + set % 10, ja = 1 + set / 10, one = 1;
            if (sa.in)
                fill_src(&sa, a[0], set);
            for (size_t k = 0; k < sb.nelem; k++)
                b[0][k] = -1.0;
            pdgemr2d_(&m, &n, sa.in ? a[0] : NULL, &ia, &ja, sa.desc, sb.in ? b[0] : NULL, &one,
                      &one, sb.desc, &gall);
            if (sb.in)
                bad += check_copy(&sb, b[0], m, n, ia, ja, 1, 1, set);
        }
    dmx_scalapack_stats st;
    dmx_scalapack_get_stats(&st);
    if (st.entries > (tiny ? 2 : 16) || st.evictions < (tiny ? 55 : 40)) {
        fprintf(stderr, "[%d] cache not bounded as expected%s: %lld entries, %lld evictions\n", me,
                tiny ? " (DMX_CACHE_BYTES below one plan)" : "", (long long)st.entries,
                (long long)st.evictions);
        bad++;
    }

    long tot = 0;
    SPT_CHECK_MPI(MPI_Allreduce(&bad, &tot, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0) {
        printf("cache: %lld calls, %lld hits, %lld misses, %lld evictions, %lld cached\n",
               (long long)st.calls, (long long)st.hits, (long long)st.misses,
               (long long)st.evictions, (long long)st.entries);
        printf("%s: %ld wrong elements\n", tot == 0 ? "PASSED" : "FAILED", tot);
        dmxt_count total = {tot == 0, tot != 0}; /* the whole loop is one check */
        dmxt_count_print(&total);
    }
    for (int k = 0; k < 2; k++) {
        free(a[k]);
        free(b[k]);
    }
    if (sa.in)
        Cblacs_gridexit(ga);
    if (sb.in)
        Cblacs_gridexit(gb);
    Cblacs_gridexit(gall);
    SPT_CHECK_MPI(MPI_Finalize());
    return tot == 0 ? 0 : 1;
}
