/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop-in on disjoint submatrices of ONE distributed array, as ScaLAPACK's own solvers call
 * it (PDGETRF's trailing update A22 -= A21 * A12, the reductions' PDGEMM/PDTRAN/PDGEMR2D on parts
 * of one matrix): every operand's descriptor is the array's, only ia/ja differ, so the operands'
 * local memory interleaves although no element is shared. dmx must accept these calls and give
 * Debian's ScaLAPACK's result.
 *
 * Each case draws (identically on every rank) a BLACS grid among every shape that fits, an
 * n x n array (block sizes 1-6, random rsrc/csrc, padded lld) split at row/column k into four
 * quadrants TL, TR, BL, BR, a type, and one of:
 *  - p?gemm, LU's update: BR = -1 * BL * TR + BR (N, N);
 *  - p?gemm, any op pair: BR = alpha * op(X) * op(Y) + beta * BR, X in {BL, TR} and Y in {TR, BL}
 *    whichever op makes the shapes fit (X and Y may be the same quadrant: both are only read);
 *  - p?gemr2d: rows 1..r of the first c columns copied to rows k+1..k+r (r <= min(k, n - k));
 *  - p?tran (T or C): BL = beta * BL + alpha * op(TR).
 * The real routine runs on one copy of the array and dmx's (test build, prefixed names) on
 * another; every local element, the untouched ones and the padding included, must agree (within
 * rounding for p?gemm).
 *
 * Usage: test_sp_alias [ncases [seed]]. */
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <math.h>
#include <string.h>

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);

SPT_DECL_REAL(s, float)
SPT_DECL_REAL(d, double)
SPT_DECL_REAL(c, void)
SPT_DECL_REAL(z, void)
SPT_DECL_REAL_TRAN(pstran_, float)
SPT_DECL_REAL_TRAN(pdtran_, double)
SPT_DECL_REAL_TRAN(pctranc_, void)
SPT_DECL_REAL_TRAN(pztranu_, void)

#define DECL_GEMM(name)                                                                            \
    void name(const char *ta, const char *tb, const int *m, const int *n, const int *k,            \
              const void *alpha, void *a, const int *ia, const int *ja, const int *desca, void *b, \
              const int *ib, const int *jb, const int *descb, const void *beta, void *c,           \
              const int *ic, const int *jc, const int *descc);
DECL_GEMM(psgemm_)
DECL_GEMM(pdgemm_)
DECL_GEMM(pcgemm_)
DECL_GEMM(pzgemm_)
DECL_GEMM(dmxsp_test_psgemm_)
DECL_GEMM(dmxsp_test_pdgemm_)
DECL_GEMM(dmxsp_test_pcgemm_)
DECL_GEMM(dmxsp_test_pzgemm_)

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *,
                     const void *, void *, const int *, const int *, const int *, void *,
                     const int *, const int *, const int *, const void *, void *, const int *,
                     const int *, const int *);
typedef void gemr2d_fn(const int *, const int *, void *, const int *, const int *, int *, void *,
                       const int *, const int *, int *, const int *);
typedef void tran_fn(const int *, const int *, const void *, void *, const int *, const int *,
                     int *, const void *, void *, const int *, const int *, int *);

/* Per type (s, d, c, z): the real routine and dmx's. p?tran: T for real types, C for c, T (tranu)
 * for z. */
static gemm_fn *const gemm_real[4] = {psgemm_, pdgemm_, pcgemm_, pzgemm_};
static gemm_fn *const gemm_dmx[4] = {dmxsp_test_psgemm_, dmxsp_test_pdgemm_, dmxsp_test_pcgemm_,
                                     dmxsp_test_pzgemm_};
static gemr2d_fn *const gemr2d_real[4] = {(gemr2d_fn *)psgemr2d_, (gemr2d_fn *)pdgemr2d_,
                                          (gemr2d_fn *)pcgemr2d_, (gemr2d_fn *)pzgemr2d_};
static gemr2d_fn *const gemr2d_dmx[4] = {
    (gemr2d_fn *)dmxsp_test_psgemr2d_, (gemr2d_fn *)dmxsp_test_pdgemr2d_,
    (gemr2d_fn *)dmxsp_test_pcgemr2d_, (gemr2d_fn *)dmxsp_test_pzgemr2d_};
static tran_fn *const tran_real[4] = {(tran_fn *)pstran_, (tran_fn *)pdtran_, (tran_fn *)pctranc_,
                                      (tran_fn *)pztranu_};
static tran_fn *const tran_dmx[4] = {(tran_fn *)dmxsp_test_pstran_, (tran_fn *)dmxsp_test_pdtran_,
                                     (tran_fn *)dmxsp_test_pctranc_,
                                     (tran_fn *)dmxsp_test_pztranu_};
/* Scalars in the type's form: one or two floats or doubles. */
static void scalar(int t, const double v[2], void *out)
{
    if (t == 0 || t == 2)
        ((float *)out)[0] = (float)v[0], ((float *)out)[1] = (float)v[1];
    else
        ((double *)out)[0] = v[0], ((double *)out)[1] = v[1];
}

typedef struct arr {
    int desc[9];
    size_t len;  /* local elements, padding included */
    void *x, *y; /* the real routine's copy, dmx's copy */
} arr;

static void make_array(arr *a, dmxt_rng *g, int t, int n, int ctxt, int pr, int pc, int myr,
                       int myc)
{
    int mb = spt_int(g, 1, 6), nb = spt_int(g, 1, 6);
    int rsrc = spt_int(g, 0, pr - 1), csrc = spt_int(g, 0, pc - 1), info;
    int lr = numroc_(&n, &mb, &myr, &rsrc, &pr), lc = numroc_(&n, &nb, &myc, &csrc, &pc);
    int lld = (lr > 0 ? lr : 1) + spt_int(g, 0, 2);
    descinit_(a->desc, &n, &n, &mb, &nb, &rsrc, &csrc, &ctxt, &lld, &info);
    a->len = (size_t)lld * (size_t)(lc > 0 ? lc : 1);
    a->x = malloc(a->len * spt_esize(t));
    a->y = malloc(a->len * spt_esize(t));
    if (a->x == NULL || a->y == NULL) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t k = 0; k < a->len; k++)
        spt_put(t, a->x, k, (double)((k * 37 + (size_t)(myr * 5 + myc)) % 23) / 7.0 - 1.5,
                (double)((k * 13 + (size_t)myc) % 19) / 9.0 - 1.0);
    memcpy(a->y, a->x, a->len * spt_esize(t));
}

/* The case's call on both copies; returns the number of products per element (for the
 * tolerance) and names the call in what. */
static int run_case(dmxt_rng *g, int t, int n, int k, arr *a, int ctxt, char *what, size_t wlen)
{
    static const char ops[3] = {'N', 'T', 'C'};
    int kind = spt_int(g, 0, 3), one = 1, k1 = k + 1, nk = n - k;
    double al[2] = {spt_unit(g), t >= 2 ? spt_unit(g) : 0.0};
    double be[2] = {spt_int(g, 0, 4) == 0 ? 0.0 : spt_unit(g), t >= 2 ? spt_unit(g) : 0.0};
    unsigned char alpha[16], beta[16];
    if (kind == 0)
        al[0] = -1, al[1] = 0, be[0] = 1, be[1] = 0;
    scalar(t, al, alpha);
    scalar(t, be, beta);
    if (kind <= 1) {
        char ta = kind == 0 ? 'N' : ops[spt_int(g, 0, 2)];
        char tb = kind == 0 ? 'N' : ops[spt_int(g, 0, 2)];
        /* C = BR (nk x nk), inner dimension k: op(X) nk x k is BL (N) or TR (T, C); op(Y) k x nk
         * is TR (N) or BL (T, C). */
        const int *xi = ta == 'N' ? &k1 : &one, *xj = ta == 'N' ? &one : &k1;
        const int *yi = tb == 'N' ? &one : &k1, *yj = tb == 'N' ? &k1 : &one;
        snprintf(what, wlen, "p%cgemm %c%c", "sdcz"[t], ta, tb);
        gemm_real[t](&ta, &tb, &nk, &nk, &k, alpha, a->x, xi, xj, a->desc, a->x, yi, yj, a->desc,
                     beta, a->x, &k1, &k1, a->desc);
        gemm_dmx[t](&ta, &tb, &nk, &nk, &k, alpha, a->y, xi, xj, a->desc, a->y, yi, yj, a->desc,
                    beta, a->y, &k1, &k1, a->desc);
        return k + 1;
    }
    if (kind == 2) {
        int r = spt_int(g, 1, k < nk ? k : nk), c = spt_int(g, 1, n), ctx = ctxt;
        snprintf(what, wlen, "p%cgemr2d %d x %d", "sdcz"[t], r, c);
        gemr2d_real[t](&r, &c, a->x, &one, &one, a->desc, a->x, &k1, &one, a->desc, &ctx);
        gemr2d_dmx[t](&r, &c, a->y, &one, &one, a->desc, a->y, &k1, &one, a->desc, &ctx);
        return 1;
    }
    snprintf(what, wlen, "p%ctran", "sdcz"[t]);
    tran_real[t](&nk, &k, alpha, a->x, &one, &k1, a->desc, beta, a->x, &k1, &one, a->desc);
    tran_dmx[t](&nk, &k, alpha, a->y, &one, &k1, a->desc, beta, a->y, &k1, &one, a->desc);
    return 2;
}

int main(int argc, char **argv)
{
    int me, np;
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    int ncases = argc > 1 ? atoi(argv[1]) : 120;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261127u;
    Cblacs_pinfo(&me, &np);
    int ctxts[16], shapes[16][2];
    const int ng = spt_all_grids(np, ctxts, shapes);
    long bad = 0, checks = 0;
    for (int cs = 0; cs < ncases; cs++) {
        dmxt_rng g = spt_seed(seed, (uint64_t)cs, 11);
        int q = cs % ng, pr = shapes[q][0], pc = shapes[q][1], myr = -1, myc = -1;
        int t = spt_int(&g, 0, 3), n = spt_int(&g, 2, 40), k = spt_int(&g, 1, n - 1);
        if (ctxts[q] < 0)
            continue; /* not in this grid: ScaLAPACK's routines are not called here */
        int a0, b0;
        Cblacs_gridinfo(ctxts[q], &a0, &b0, &myr, &myc);
        arr a;
        char what[64];
        make_array(&a, &g, t, n, ctxts[q], pr, pc, myr, myc);
        int depth = run_case(&g, t, n, k, &a, ctxts[q], what, sizeof what);
        double tol = t == 0 || t == 2 ? 2e-5 * depth : 1e-13 * depth, worst = 0;
        for (size_t e = 0; e < a.len; e++) {
            double r1, i1, r2, i2;
            spt_get(t, a.x, e, &r1, &i1);
            spt_get(t, a.y, e, &r2, &i2);
            double d = hypot(r1 - r2, i1 - i2) / (1.0 + hypot(r1, i1));
            worst = d > worst || d != d ? d : worst;
        }
        checks++;
        if (!(worst <= tol)) {
            bad++;
            fprintf(stderr, "FAIL case %d: %s n %d k %d grid %dx%d rank %d: rel diff %.3g\n", cs,
                    what, n, k, pr, pc, me, worst);
        }
        free(a.x);
        free(a.y);
    }
    return spt_finish(bad, checks, ctxts, ng, me);
}
