/* SPDX-License-Identifier: BSD-3-Clause */
/* libdmx_scalapack's p?gemm_ (test build, symbols prefixed dmxsp_test_) against Debian's
 * ScaLAPACK in one process: random grids (row-major BLACS grids of every shape that fits, ranks
 * outside the grid included), all four types, op pairs N/T/C in both cases of letter, submatrix
 * offsets ia/ja, block sizes, rsrc/csrc, 9-integer (DTYPE 1) and 11-integer (DTYPE 2) descriptors
 * with first blocks IMB x INB different from MB x NB, alpha and beta including 0, k = 0 (then C
 * replicated, RSRC = -1, now and then), NaN in C when beta = 0; a quarter of the cases with
 * blocks of 10-14 and sizes up to 6 on one process (the first block's, or two when the first
 * blocks IMB, INB split them), which the drop-in multiplies there alone. Both results must agree
 * within rounding on every local element (padding included).
 *
 * Then the illegal arguments: every argument of p?gemm made illegal in turn, as
 * ScaLAPACK's PBLAS testers do it, given to both; the PBLAS' error code each reports through
 * PB_Cabort (defined here, so that both return instead of ending the job) must be the same.
 *
 * Usage: test_gemm_compare [ncases [seed]]. */
#include "dmxt_util.h"
#include "sp_gemm_test.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);

typedef struct mat {
    int rows, cols, mb, nb, rsrc, csrc, i, j; /* submatrix rows x cols at 1-based (i, j) */
    int imb, inb;                             /* first blocks (DTYPE 2), else mb, nb */
    int desc[11], lr, lc, lld;
    void *d;
} mat;

/* Local rows (columns) of n entries with a first block of `first`, then blocks of bs, block 0 on
 * process src of np: ScaLAPACK's numroc of the n - first entries after the first block, plus the
 * first block on src. */
static int numroc_first(int n, int first, int bs, int p, int src, int np)
{
    if (src < 0) /* replicated: every process holds all */
        return n;
    if (first >= n)
        return p == src ? n : 0;
    int rest = n - first, nextsrc = (src + 1) % np, c = numroc_(&rest, &bs, &p, &nextsrc, &np);
    return c + (p == src ? first : 0);
}

/* Random descriptor for a rows x cols submatrix, local array filled from its seed. */
/* A case whose operands all sit in one block of one process (the drop-in then multiplies there
 * alone, sp_gemm.c): blocks of 10-14 for sizes up to 6 at origins up to 4, all on process
 * (g_rs, g_cs). Otherwise 0. */
static int g_one, g_rs, g_cs;

static void make(mat *x, dmxt_rng *g, int t, int rows, int cols, int ctxt, int pr, int pc, int myr,
                 int myc, int id, int rep)
{
    x->rows = rows, x->cols = cols;
    x->mb = spt_int(g, 1, 8), x->nb = spt_int(g, 1, 8);
    x->rsrc = spt_int(g, 0, pr - 1), x->csrc = spt_int(g, 0, pc - 1);
    if (g_one) {
        x->mb = spt_int(g, 10, 14), x->nb = spt_int(g, 10, 14);
        x->rsrc = g_rs % pr, x->csrc = g_cs % pc;
    }
    x->i = spt_int(g, 1, 4), x->j = spt_int(g, 1, 4);
    const int inb = spt_int(g, 0, 2) == 0; /* a third: 11 integers, first blocks 1 .. MB + 3 */
    x->imb = inb ? spt_int(g, 1, x->mb + 3) : x->mb;
    x->inb = inb ? spt_int(g, 1, x->nb + 3) : x->nb;
    if (rep) { /* replicated rows (RSRC = -1), and columns half of the time */
        x->rsrc = -1;
        x->csrc = spt_int(g, 0, 1) ? -1 : x->csrc;
    }
    int M = x->i - 1 + rows, N = x->j - 1 + cols, info;
    x->lr = myr >= 0 ? numroc_first(M, x->imb, x->mb, myr, x->rsrc, pr) : 0;
    x->lc = myr >= 0 ? numroc_first(N, x->inb, x->nb, myc, x->csrc, pc) : 0;
    int lld = (x->lr > 0 ? x->lr : 1) + spt_int(g, 0, 2);
    if (myr >= 0 && !inb && !rep)
        descinit_(x->desc, &M, &N, &x->mb, &x->nb, &x->rsrc, &x->csrc, &ctxt, &lld, &info);
    if (myr >= 0 && !inb && rep) { /* descinit_ refuses RSRC = -1 */
        const int d[9] = {1, ctxt, M, N, x->mb, x->nb, x->rsrc, x->csrc, lld};
        memcpy(x->desc, d, sizeof d);
    }
    if (myr >= 0 && inb) {
        const int d[11] = {2, ctxt, M, N, x->imb, x->inb, x->mb, x->nb, x->rsrc, x->csrc, lld};
        memcpy(x->desc, d, sizeof d);
    }
    size_t n = (size_t)lld * (size_t)(x->lc > 0 ? x->lc : 1);
    x->lld = lld;
    x->d = calloc(n, spt_esize(t));
    for (size_t k = 0; k < n; k++)
        spt_put(t, x->d, k,
                (double)((k * 37 + (size_t)id * 11 + (size_t)(myr * 5 + myc)) % 23) / 7.0 - 1.5,
                (double)((k * 13 + (size_t)id * 3) % 19) / 9.0 - 1.0);
}

/* Call p<t>gemm_ of Debian (real = 1) or of dmx's test build. */
static void call_gemm(int real, int t, char ta, char tb, int m, int n, int k, const void *alpha,
                      const mat *a, const mat *b, const void *beta, mat *c)
{
    spt_gemm(real, t, ta, tb, m, n, k, alpha, (spt_operand){a->d, a->i, a->j, a->desc},
             (spt_operand){b->d, b->i, b->j, b->desc}, beta,
             (spt_operand){c->d, c->i, c->j, c->desc});
}

/* One random case on grid ctxt (pr x pc); returns 1 if it failed on this process, -1 if this
 * process is outside the grid. */
static int one_case(int cs, uint64_t seed, const int *ctxts, int (*shapes)[2], int ng, int me)
{
    dmxt_rng g = spt_seed(seed, (uint64_t)cs, 7);
    int q = spt_int(&g, 0, ng - 1), pr = shapes[q][0], pc = shapes[q][1], myr = -1, myc = -1;
    int t = spt_int(&g, 0, 3);
    const char ops[6] = {'N', 'T', 'C', 'n', 't', 'c'};
    char ta = ops[spt_int(&g, 0, 5)], tb = ops[spt_int(&g, 0, 5)];
    g_one = spt_int(&g, 0, 3) == 0; /* a quarter: every operand on one process */
    g_rs = spt_int(&g, 0, 5), g_cs = spt_int(&g, 0, 5);
    const int most = g_one ? 6 : 30;
    int m = spt_int(&g, 1, most), n = spt_int(&g, 1, most),
        k = spt_int(&g, 0, 5) == 0 ? 0 : spt_int(&g, 1, g_one ? 6 : 40);
    double al[2] = {spt_int(&g, 0, 4) == 0 ? 0.0 : spt_unit(&g) * 2 - 1, spt_unit(&g)};
    double be[2] = {spt_int(&g, 0, 3) == 0 ? 0.0 : spt_unit(&g) * 2 - 1, spt_unit(&g)};
    if (t < 2)
        al[1] = be[1] = 0;
    if (spt_int(&g, 0, 9) == 0) /* now and then the PBLAS' quick return: beta = 1, alpha = 0 */
        be[0] = 1, be[1] = 0, al[0] = al[1] = 0;
    if (ctxts[q] >= 0) {
        int a, b;
        Cblacs_gridinfo(ctxts[q], &a, &b, &myr, &myc);
    }
    const int na = toupper((unsigned char)ta) == 'N', nb = toupper((unsigned char)tb) == 'N';
    mat A, B, C, C2;
    make(&A, &g, t, na ? m : k, na ? k : m, ctxts[q], pr, pc, myr, myc, 1, 0);
    make(&B, &g, t, nb ? k : n, nb ? n : k, ctxts[q], pr, pc, myr, myc, 2, 0);
    /* C = beta C (alpha = 0 or K = 0) is local: a replicated C now and then */
    const int rep = (al[0] == 0 && al[1] == 0) || k == 0 ? spt_int(&g, 0, 2) == 0 : 0;
    make(&C, &g, t, m, n, ctxts[q], pr, pc, myr, myc, 3, rep);
    size_t nc = (size_t)(myr >= 0 ? C.lld : 1) * (size_t)(C.lc > 0 ? C.lc : 1);
    if (be[0] == 0 && be[1] == 0) /* beta = 0: C is not read, NaN in it must not matter */
        for (size_t e = 0; e < nc; e++)
            spt_put(t, C.d, e, NAN, NAN);
    C2 = C;
    C2.d = malloc(nc * spt_esize(t));
    memcpy(C2.d, C.d, nc * spt_esize(t));
    int failed = -1;
    if (myr >= 0) {
        float fa[2] = {(float)al[0], (float)al[1]}, fb[2] = {(float)be[0], (float)be[1]};
        const int single = t == 0 || t == 2;
        call_gemm(1, t, ta, tb, m, n, k, single ? (void *)fa : (void *)al, &A, &B,
                  single ? (void *)fb : (void *)be, &C);
        call_gemm(0, t, ta, tb, m, n, k, single ? (void *)fa : (void *)al, &A, &B,
                  single ? (void *)fb : (void *)be, &C2);
        double tol = single ? 2e-4 : 1e-10, worst = spt_worst_diff(t, C.d, C2.d, nc);
        failed = worst > tol * (k + 1);
        if (failed)
            fprintf(stderr,
                    "FAIL case %d: p%cgemm %c%c m %d n %d k %d grid %dx%d DTYPE %d/%d/%d rank %d: "
                    "rel diff %.3g\n",
                    cs, "sdcz"[t], ta, tb, m, n, k, pr, pc, A.desc[0], B.desc[0], C.desc[0], me,
                    worst);
    }
    free(A.d);
    free(B.d);
    free(C.d);
    free(C2.d);
    return failed;
}

/* ---- illegal arguments ------------------------------------------------------------------------
 * PB_Cabort and PB_Cwarn defined here take the place of the library's for both implementations
 * (the real pdgemm_ reaches them through the PLT, dmx's test build links them from here), as in
 * ScaLAPACK's own PBLAS testers: the code is recorded and the call returns. */
static int g_info, g_aborts;
static char g_rout[16];

void PB_Cabort(int ctxt, const char *rout, int info);
void PB_Cwarn(int ctxt, int line, const char *rout, const char *form, ...);
void PB_Cabort(int ctxt, const char *rout, int info)
{
    (void)ctxt;
    g_info = info;
    g_aborts++;
    snprintf(g_rout, sizeof g_rout, "%s", rout);
}
void PB_Cwarn(int ctxt, int line, const char *rout, const char *form, ...)
{
    (void)ctxt, (void)line, (void)rout, (void)form;
}

/* The valid 8 x 8 operands of the illegal calls (4 x 4 submatrices at (2, 3)), 9 or 11 integers. */
static void legal_mat(mat *x, int t, int ctxt, int pr, int pc, int myr, int myc, int eleven)
{
    memset(x, 0, sizeof *x);
    x->mb = x->nb = x->imb = x->inb = 2;
    x->i = 2, x->j = 3, x->rows = x->cols = 4;
    x->lr = numroc_first(8, 2, 2, myr, 0, pr), x->lc = numroc_first(8, 2, 2, myc, 0, pc);
    x->lld = x->lr > 0 ? x->lr : 1;
    const int d9[9] = {1, ctxt, 8, 8, 2, 2, 0, 0, x->lld};
    const int d11[11] = {2, ctxt, 8, 8, 2, 2, 2, 2, 0, 0, x->lld};
    memcpy(x->desc, eleven ? d11 : d9, eleven ? sizeof d11 : sizeof d9);
    x->d = calloc((size_t)x->lld * (size_t)(x->lc > 0 ? x->lc : 1), spt_esize(t));
}

typedef struct illegal_case {
    char ta, tb;
    int m, n, k;
    int which; /* 0 none, 1 A, 2 B, 3 C: the matrix changed below */
    int field; /* -2: I = -1, -1: J = -1, -3: I past M_, 0..10: descriptor entry */
    int value; /* the entry's value; INT_MIN: the tester's LLD (1 on (0, 0), 0 elsewhere) */
} illegal_case;

/* Runs case c with both implementations; returns 1 if their codes differ (or the case was
 * legal for ScaLAPACK). */
static int run_illegal(const illegal_case *c, int t, int eleven, int ctxt, int pr, int pc, int myr,
                       int myc)
{
    mat x[3];
    for (int i = 0; i < 3; i++)
        legal_mat(&x[i], t, ctxt, pr, pc, myr, myc, eleven);
    if (c->which > 0) {
        mat *y = &x[c->which - 1];
        if (c->field == -2)
            y->i = -1;
        else if (c->field == -1)
            y->j = -1;
        else if (c->field == -3)
            y->i = 6;
        else
            y->desc[c->field] = c->value != INT_MIN ? c->value : (myr == 0 && myc == 0 ? 1 : 0);
    }
    const double one[2] = {1, 0};
    const float onef[2] = {1, 0};
    const void *s = t == 0 || t == 2 ? (const void *)onef : (const void *)one;
    int info[2], aborts[2];
    char rout[2][16];
    for (int real = 1; real >= 0; real--) {
        g_info = 0, g_aborts = 0, g_rout[0] = 0;
        call_gemm(real, t, c->ta, c->tb, c->m, c->n, c->k, s, &x[0], &x[1], s, &x[2]);
        info[real] = g_info, aborts[real] = g_aborts;
        memcpy(rout[real], g_rout, sizeof g_rout);
    }
    for (int i = 0; i < 3; i++)
        free(x[i].d);
    const int bad = info[0] != info[1] || aborts[0] != aborts[1] || aborts[1] != 1 ||
                    strcmp(rout[0], rout[1]) != 0;
    if (bad)
        fprintf(stderr,
                "FAIL illegal p%cgemm %c%c m %d n %d k %d matrix %d field %d value %d (%d "
                "integers): ScaLAPACK %s INFO %d (%d calls), dmx %s INFO %d (%d calls)\n",
                "sdcz"[t], c -> ta, c -> tb, c -> m, c -> n, c -> k, c -> which, c -> field,
                c -> value, eleven ? 11 : 9, rout[1], info[1], aborts[1], rout[0], info[0],
                aborts[0]);
    return bad;
}

/* Every illegal argument the PBLAS testers try (and a few more) for each type and both
 * descriptor forms, on grid ctxt; adds to *checks and returns the failures. */
static long illegal_all(int ctxt, int pr, int pc, int myr, int myc, long *checks)
{
    illegal_case cs[160];
    int nc = 0;
    const illegal_case base = {'N', 'N', 4, 4, 4, 0, 0, 0};
    illegal_case c = base;
    c.ta = '/', cs[nc++] = c, c = base;
    c.tb = '/', cs[nc++] = c, c = base;
    c.ta = 'x', c.tb = 'y', cs[nc++] = c, c = base; /* TRANSA first */
    c.m = -1, cs[nc++] = c, c = base;
    c.n = -1, cs[nc++] = c, c = base;
    c.k = -1, cs[nc++] = c, c = base;
    c.ta = 'T', c.k = -1, cs[nc++] = c, c = base; /* K is then A's rows */
    c.m = -1, c.ta = 'z', cs[nc++] = c, c = base; /* TRANSA before M */
    for (int w = 1; w <= 3; w++) {
        c.which = w;
        for (int f = -3; f < 0; f++)
            c.field = f, cs[nc++] = c;
        for (int e = 0; e < 11; e++) {
            c.field = e, c.value = -2, cs[nc++] = c;
            if (e == 0)
                c.value = 3, cs[nc++] = c;
        }
        c = base;
    }
    long bad = 0;
    for (int t = 0; t < 4; t++)
        for (int eleven = 0; eleven < 2; eleven++)
            for (int i = 0; i < nc; i++) {
                illegal_case d = cs[i];
                if (d.which > 0 && d.field >= 9 && !eleven) /* 9 integers: entries 0 .. 8 */
                    continue;
                /* the tester's other values of RSRC, CSRC and LLD */
                const int rs = eleven ? 8 : 6, cs_ = eleven ? 9 : 7, ll = eleven ? 10 : 8;
                bad += run_illegal(&d, t, eleven, ctxt, pr, pc, myr, myc);
                ++*checks;
                if (d.which > 0 && (d.field == rs || d.field == cs_ || d.field == ll)) {
                    d.value = d.field == rs ? pr : d.field == cs_ ? pc : INT_MIN;
                    bad += run_illegal(&d, t, eleven, ctxt, pr, pc, myr, myc);
                    ++*checks;
                }
            }
    return bad;
}

int main(int argc, char **argv)
{
    int me, np;
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    int ncases = argc > 1 ? atoi(argv[1]) : 150;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240611u;
    Cblacs_pinfo(&me, &np);
    int ctxts[16], shapes[16][2], big = 0;
    const int ng = spt_all_grids(np, ctxts, shapes);
    for (int q = 0; q < ng; q++) /* the largest grid, the squarest among equals */
        if (shapes[q][0] * shapes[q][1] >= shapes[big][0] * shapes[big][1] &&
            shapes[q][0] <= shapes[q][1])
            big = q;
    long bad = 0, checks = 0;
    for (int cs = 0; cs < ncases; cs++) {
        int r = one_case(cs, seed, ctxts, shapes, ng, me);
        checks += r >= 0;
        bad += r > 0;
    }
    if (ctxts[big] >= 0) { /* the illegal arguments on the largest grid (wider than tall) */
        int a, b, myr, myc;
        Cblacs_gridinfo(ctxts[big], &a, &b, &myr, &myc);
        bad += illegal_all(ctxts[big], a, b, myr, myc, &checks);
    }
    return spt_finish(bad, checks, ctxts, ng, me);
}
