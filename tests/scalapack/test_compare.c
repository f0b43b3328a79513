/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx's ScaLAPACK routines against Debian's ScaLAPACK, in one process.
 *
 * The program links the real libscalapack-openmpi under its own names and the test build of
 * libdmx_scalapack (every symbol prefixed dmxsp_test_, see src/scalapack/CMakeLists.txt). That is
 * more robust than reaching the real routines through dlsym/dlopen in a process where dmx's
 * symbols come first: the real pdgemr2d_ calls Cpdgemr2d through the PLT, so it would silently
 * run dmx's C entry point.
 *
 * Each case draws (identically on every rank) a routine, a type, BLACS grids for the source and
 * the target among a pool (gridinit row- and column-major, gridmap over random subsets in random
 * order, 1x1 up to 2x3/3x2 and 1xP/Px1), a global context containing both, random descriptors
 * (offsets, rsrc/csrc, block sizes from 1 to larger than the matrix, padded lld, garbage
 * descriptors with CTXT = -1 on processes outside a grid) and for p?tran alpha/beta (including
 * 0, and NaN in C when beta = 0). ScaLAPACK's tolerance: p?gemr2d/p?trmr2d get garbage in DTYPE
 * on random processes in a third of the cases (ScaLAPACK never reads it there; its REDIST drivers
 * leave it unset), and p?tran gets the PBLAS' 11-integer descriptors (DTYPE 2, random first-block
 * sizes IMB/INB) for A and/or C in about half of its cases. Both implementations run on identical
 * copies and every byte of the local arrays is compared (so elements outside the submatrix and the
 * padding must be left alone); p?tran results may differ in the last bit. Each case runs a second
 * time with fresh arrays, data and scalars, which dmx serves from its plan cache (rebinding the
 * arrays).
 *
 * SPT_SMALL (test_sp_small): small p?gemr2d/p?trmr2d/p?tran* on grids of every process or of one
 * fewer (P - 1 processes: 1 x (P-1), (P-1) x 1, gridmap subsets), a different LLD on each; dmx's
 * calls once the context's duplicate exists make no collective when both grids hold every process
 * of the context and exactly one MPI_Allgather otherwise (sp_count.c counts them).
 *
 * Usage: test_compare [ncases] [seed]
 */
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <math.h>
#include <string.h>

SPT_DECL_REAL(i, int)
SPT_DECL_REAL(s, float)
SPT_DECL_REAL(d, double)
SPT_DECL_REAL(c, void)
SPT_DECL_REAL(z, void)
SPT_DECL_REAL_TRAN(pstran_, float)
SPT_DECL_REAL_TRAN(pdtran_, double)
SPT_DECL_REAL_TRAN(pctranu_, void)
SPT_DECL_REAL_TRAN(pctranc_, void)
SPT_DECL_REAL_TRAN(pztranu_, void)
SPT_DECL_REAL_TRAN(pztranc_, void)

#ifdef SPT_SMALL
static unsigned char warm[1 << 16]; /* dmx called on this context: its duplicates exist */
#define SPT_FULL 1                  /* every grid holds every process or all but one */
#define SPT_TR_CUT 65               /* p?trmr2d in a fifth of the cases */
#else
#define SPT_FULL 0
#define SPT_TR_CUT 75
#endif
#define MAXP 64
#define MAXGRIDS 96

enum { T_I, T_S, T_D, T_C, T_Z };
static const size_t esize[5] = {4, 4, 8, 8, 16};
static const char tchar[5] = {'i', 's', 'd', 'c', 'z'};
enum { R_GEMR2D, R_TRMR2D, R_TRAN };
static const char *const rname[3] = {"gemr2d", "trmr2d", "tran"};

typedef struct grid {
    int ctxt; /* -1 on processes outside */
    int nprow, npcol, myrow, mycol;
    int member[MAXP];
    const char *kind;
} grid;

static grid grids[MAXGRIDS];
static int ngrids;
static int me, np;

static void grid_finish(grid *g)
{
    g->myrow = g->mycol = -1;
    if (g->ctxt >= 0) {
        int pr, pc;
        Cblacs_gridinfo(g->ctxt, &pr, &pc, &g->myrow, &g->mycol);
        if (pr != g->nprow || pc != g->npcol) {
            fprintf(stderr, "grid shape mismatch\n");
            dmxt_flush_before_abort();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    ngrids++;
}

static void add_gridinit(const char *order, int pr, int pc)
{
    grid *g = &grids[ngrids];
    memset(g, 0, sizeof *g);
    Cblacs_get(0, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, order, pr, pc);
    g->nprow = pr;
    g->npcol = pc;
    for (int r = 0; r < pr * pc; r++)
        g->member[r] = 1;
    if (me >= pr * pc)
        g->ctxt = -1;
    g->kind = order[0] == 'R' ? "gridinit-R" : "gridinit-C";
    grid_finish(g);
}

static void add_gridmap(dmxt_rng *rng, int pr, int pc)
{
    grid *g = &grids[ngrids];
    int perm[MAXP] = {0}, map[MAXP]; /* zeroed: cppcheck cannot see that pr*pc <= np */
    memset(g, 0, sizeof *g);
    for (int r = 0; r < np; r++)
        perm[r] = r;
    for (int r = np - 1; r > 0; r--) {
        int k = spt_int(rng, 0, r);
        int t = perm[r];
        perm[r] = perm[k];
        perm[k] = t;
    }
    for (int k = 0; k < pr * pc; k++) {
        map[k] = perm[k]; /* column-major, ld = pr */
        g->member[perm[k]] = 1;
    }
    Cblacs_get(0, 0, &g->ctxt);
    Cblacs_gridmap(&g->ctxt, map, pr, pr, pc);
    if (!g->member[me])
        g->ctxt = -1;
    g->nprow = pr;
    g->npcol = pc;
    g->kind = "gridmap";
    grid_finish(g);
}

#ifdef SPT_SMALL
static int count_members(const grid *a)
{
    int n = 0;
    for (int r = 0; r < np; r++)
        n += a->member[r];
    return n;
}
#endif

static int subset(const grid *a, const grid *u)
{
    for (int r = 0; r < np; r++)
        if (a->member[r] && !u->member[r])
            return 0;
    return 1;
}

/* ---- matrices ----------------------------------------------------------------------------------
 */
typedef struct mat {
    int desc[11]; /* 9 integers (DTYPE 1), or 11 (DTYPE 2, p?tran only) */
    int dlen;
    int in, i, j;
    size_t nelem;
} mat;

#ifdef SPT_SMALL
/* The grid coordinates holding global element (gi, gj) (0-based) of a 9-integer descriptor. */
static void holder(const mat *x, const grid *gr, int gi, int gj, int *pr, int *pc)
{
    *pr = (x->desc[6] + gi / x->desc[4]) % gr->nprow;
    *pc = (x->desc[7] + gj / x->desc[5]) % gr->npcol;
}
#endif

static int pick_block(dmxt_rng *g, int extent)
{
    static const int small[] = {1, 2, 3, 4, 5, 7, 8};
    int k = spt_int(g, 0, 9);
    if (k < 7)
        return small[k];
    if (k == 7)
        return extent > 0 ? extent : 1;
    return extent + spt_int(g, 1, 5); /* larger than the matrix */
}

/* Local count of n indices in blocks of nb after a first block of first, dealt from process src
 * over np processes, for process p: walks the blocks one by one (independent of dmx's formula). */
static int numroc_first(int n, int first, int nb, int p, int src, int nprocs)
{
    int count = 0, owner = src;
    for (int start = 0; start < n;) {
        int len = start == 0 ? first : nb;
        if (len > n - start)
            len = n - start;
        if (owner == p)
            count += len;
        start += len;
        owner = (owner + 1) % nprocs;
    }
    return count;
}

/* Draw a descriptor for a rows x cols submatrix on grid gr (shared draws from g, garbage for
 * processes outside the grid from mine). inb: an 11-integer descriptor (DTYPE 2) with random
 * first-block sizes IMB/INB. junk_dtype: each process of the grid may put garbage in DTYPE, as
 * ScaLAPACK's REDIST drivers leave it unset (p?gemr2d/p?trmr2d never read it). */
static void gen_mat(dmxt_rng *g, dmxt_rng *mine, const grid *gr, int rows, int cols, int inb,
                    int junk_dtype, mat *a)
{
    a->i = spt_int(g, 0, 2) == 0 ? 1 : spt_int(g, 1, 6);
    a->j = spt_int(g, 0, 2) == 0 ? 1 : spt_int(g, 1, 6);
    int M = a->i - 1 + rows + spt_int(g, 0, 4);
    int N = a->j - 1 + cols + spt_int(g, 0, 4);
    int mb = pick_block(g, M), nb = pick_block(g, N);
    int imb = mb, inbs = nb;
    if (inb) {
        imb = spt_int(g, 0, 3) == 0 ? mb : spt_int(g, 1, mb + 3);
        inbs = spt_int(g, 0, 3) == 0 ? nb : spt_int(g, 1, nb + 3);
    }
    int rsrc = spt_int(g, 0, gr->nprow - 1), csrc = spt_int(g, 0, gr->npcol - 1);
    int pad = spt_int(g, 0, 3);
#ifdef SPT_SMALL
    pad = spt_int(mine, 0, 3) + (me == np - 1 ? 5 : 0); /* LLD differs between processes */
#endif
    a->in = gr->ctxt >= 0;
    a->dlen = inb ? 11 : 9;
    if (a->in) {
        int locr = numroc_first(M, imb, mb, gr->myrow, rsrc, gr->nprow);
        int locc = numroc_first(N, inbs, nb, gr->mycol, csrc, gr->npcol);
        int lld = (locr > 1 ? locr : 1) + pad;
        if (inb) {
            int d[11] = {2, gr->ctxt, M, N, imb, inbs, mb, nb, rsrc, csrc, lld};
            memcpy(a->desc, d, sizeof d);
        } else {
            int d[9] = {1, gr->ctxt, M, N, mb, nb, rsrc, csrc, lld};
            memcpy(a->desc, d, sizeof d);
            if (junk_dtype && (me == 0 || spt_int(mine, 0, 1))) /* rank 0 always, as the drivers */
                a->desc[0] = spt_int(mine, -100000, 100000);
        }
        a->nelem = (size_t)lld * (size_t)(locc > 1 ? locc : 1);
    } else {
        for (int k = 0; k < 11; k++)
            a->desc[k] = spt_int(mine, -1000, 1000);
        a->desc[1] = -1;
        a->nelem = 0;
    }
}

static void fill(dmxt_rng *r, int type, void *buf, size_t nelem, int nan, int odd_bits)
{
    for (size_t k = 0; k < nelem; k++) {
        switch (type) {
        case T_I: ((uint32_t *)buf)[k] = (uint32_t)dmxt_rng_next(r); break;
        case T_S: ((float *)buf)[k] = nan ? NAN : (float)spt_unit(r); break;
        case T_D: ((double *)buf)[k] = nan ? NAN : spt_unit(r); break;
        case T_C:
            ((float *)buf)[2 * k] = nan ? NAN : (float)spt_unit(r);
            ((float *)buf)[2 * k + 1] = nan ? NAN : (float)spt_unit(r);
            break;
        default:
            ((double *)buf)[2 * k] = nan ? NAN : spt_unit(r);
            ((double *)buf)[2 * k + 1] = nan ? NAN : spt_unit(r);
            break;
        }
    }
    /* a signalling NaN or another odd bit pattern for the copy routines, which must move bits
     * unchanged (arithmetic on NaN inputs spreads NaN differently in the two libraries) */
    if (odd_bits && !nan && nelem > 0 && (type == T_S || type == T_C)) {
        uint32_t odd[3] = {0x7f800001u, 0xffc00000u, 0x80000000u};
        memcpy(buf, &odd[spt_int(r, 0, 2)], 4);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void *dup_buf(const void *src, size_t n)
{
    void *p = xmalloc(n);
    memcpy(p, src, n);
    return p;
}

/* ---- calls -------------------------------------------------------------------------------------
 */
typedef struct call {
    int routine, type, fortran, conj;
    int m, n;
    char uplo[2], diag[2];
    mat a, b;
    int ictxt;
    double alpha[2], beta[2];
} call;

#ifdef SPT_SMALL
/* Whether the call should take the direct path (src/scalapack/sp_direct.c), worked out element
 * by element: at most 1024 elements, p?gemr2d or p?tran (not its quick return) on one grid that
 * is the context's, and every target element's holder the holder of its source element. */
static int expect_direct(const call *c, const grid *ga, const grid *gb, const grid *u)
{
    if (c->routine == R_TRMR2D || (long)c->m * c->n > 1024 || ga != gb || ga != u)
        return 0;
    if (c->routine == R_TRAN && (c->a.desc[0] != 1 || c->b.desc[0] != 1))
        return 0;
    if (c->routine == R_TRAN && c->alpha[0] == 0.0 && c->alpha[1] == 0.0 && c->beta[0] == 1.0 &&
        c->beta[1] == 0.0) /* returns before anything */
        return 0;
    for (int i = 0; i < c->m; i++) {
        for (int j = 0; j < c->n; j++) {
            int tr, tc, sr, sc;
            holder(&c->b, gb, c->b.i - 1 + i, c->b.j - 1 + j, &tr, &tc);
            if (c->routine == R_TRAN)
                holder(&c->a, ga, c->a.i - 1 + j, c->a.j - 1 + i, &sr, &sc);
            else
                holder(&c->a, ga, c->a.i - 1 + i, c->a.j - 1 + j, &sr, &sc);
            if (tr != sr || tc != sc)
                return 0;
        }
    }
    return 1;
}
#endif

#define GEMR(pre, ch, T)                                                                           \
    do {                                                                                           \
        if (c->fortran)                                                                            \
            pre##p##ch##gemr2d_(&c->m, &c->n, (T *)a, &c->a.i, &c->a.j, c->a.desc, (T *)b,         \
                                &c->b.i, &c->b.j, c->b.desc, &c->ictxt);                           \
        else                                                                                       \
            pre##Cp##ch##gemr2d(c->m, c->n, (T *)a, c->a.i, c->a.j, c->a.desc, (T *)b, c->b.i,     \
                                c->b.j, c->b.desc, c->ictxt);                                      \
    } while (0)
#define TRMR(pre, ch, T)                                                                           \
    do {                                                                                           \
        if (c->fortran)                                                                            \
            pre##p##ch##trmr2d_(c->uplo, c->diag, &c->m, &c->n, (T *)a, &c->a.i, &c->a.j,          \
                                c->a.desc, (T *)b, &c->b.i, &c->b.j, c->b.desc, &c->ictxt);        \
        else                                                                                       \
            pre##Cp##ch##trmr2d(c->uplo, c->diag, c->m, c->n, (T *)a, c->a.i, c->a.j, c->a.desc,   \
                                (T *)b, c->b.i, c->b.j, c->b.desc, c->ictxt);                      \
    } while (0)
#define NOPREFIX
#define SWITCH_TYPES(MACRO, pre)                                                                   \
    switch (c->type) {                                                                             \
    case T_I: MACRO(pre, i, int); break;                                                           \
    case T_S: MACRO(pre, s, float); break;                                                         \
    case T_D: MACRO(pre, d, double); break;                                                        \
    case T_C: MACRO(pre, c, void); break;                                                          \
    default: MACRO(pre, z, void); break;                                                           \
    }

static void run(call *c, int dmx, void *a, void *b)
{
    if (c->routine == R_GEMR2D) {
        if (dmx) {
            SWITCH_TYPES(GEMR, dmxsp_test_)
        } else {
            SWITCH_TYPES(GEMR, NOPREFIX)
        }
    } else if (c->routine == R_TRMR2D) {
        if (dmx) {
            SWITCH_TYPES(TRMR, dmxsp_test_)
        } else {
            SWITCH_TYPES(TRMR, NOPREFIX)
        }
    } else {
        float fa[2] = {(float)c->alpha[0], (float)c->alpha[1]};
        float fb[2] = {(float)c->beta[0], (float)c->beta[1]};
        const int *m = &c->m, *n = &c->n;
        int *da = c->a.desc, *db = c->b.desc;
        switch (c->type) {
        case T_S:
            (dmx ? dmxsp_test_pstran_ : pstran_)(m, n, fa, a, &c->a.i, &c->a.j, da, fb, b, &c->b.i,
                                                 &c->b.j, db);
            break;
        case T_D:
            (dmx ? dmxsp_test_pdtran_ : pdtran_)(m, n, c->alpha, a, &c->a.i, &c->a.j, da, c->beta,
                                                 b, &c->b.i, &c->b.j, db);
            break;
        case T_C:
            if (c->conj)
                (dmx ? dmxsp_test_pctranc_ : pctranc_)(m, n, fa, a, &c->a.i, &c->a.j, da, fb, b,
                                                       &c->b.i, &c->b.j, db);
            else
                (dmx ? dmxsp_test_pctranu_ : pctranu_)(m, n, fa, a, &c->a.i, &c->a.j, da, fb, b,
                                                       &c->b.i, &c->b.j, db);
            break;
        default:
            if (c->conj)
                (dmx ? dmxsp_test_pztranc_ : pztranc_)(m, n, c->alpha, a, &c->a.i, &c->a.j, da,
                                                       c->beta, b, &c->b.i, &c->b.j, db);
            else
                (dmx ? dmxsp_test_pztranu_ : pztranu_)(m, n, c->alpha, a, &c->a.i, &c->a.j, da,
                                                       c->beta, b, &c->b.i, &c->b.j, db);
            break;
        }
    }
}

/* First differing element, or -1. Copies compare bit for bit; p?tran within a few ulps. */
static long first_diff(const call *c, const void *x, const void *y, size_t nelem)
{
    if (c->routine != R_TRAN) {
        if (memcmp(x, y, nelem * esize[c->type]) == 0)
            return -1;
        for (size_t k = 0; k < nelem; k++)
            if (memcmp((const char *)x + k * esize[c->type], (const char *)y + k * esize[c->type],
                       esize[c->type]) != 0)
                return (long)k;
        return -1;
    }
    int dbl = c->type == T_D || c->type == T_Z;
    int ncomp = (c->type == T_C || c->type == T_Z) ? 2 : 1;
    double tol = dbl ? 1e-13 : 1e-5;
    for (size_t k = 0; k < nelem * (size_t)ncomp; k++) {
        double u = dbl ? ((const double *)x)[k] : ((const float *)x)[k];
        double v = dbl ? ((const double *)y)[k] : ((const float *)y)[k];
        if (isnan(u) && isnan(v))
            continue;
        if (!(fabs(u - v) <= tol * (1.0 + fabs(u) + fabs(v))))
            return (long)(k / (size_t)ncomp);
    }
    return -1;
}

static void print_desc(const char *what, int i, int j, const mat *a)
{
    fprintf(stderr, "    %s: i=%d j=%d desc={", what, i, j);
    for (int k = 0; k < a->dlen; k++)
        fprintf(stderr, "%s%d", k ? "," : "", a->desc[k]);
    fprintf(stderr, "}\n");
}

static void describe(const call *c, int ncase, int round, const char *what, long k)
{
    fprintf(stderr,
            "[rank %d] case %d round %d: p%c%s%s %s uplo=%c diag=%c m=%d n=%d alpha=(%g,%g) "
            "beta=(%g,%g) ictxt=%d: %s differs at local element %ld\n",
            me, ncase, round, tchar[c->type], rname[c->routine],
            c->routine == R_TRAN && c->type >= T_C ? (c->conj ? "c" : "u") : "",
            c->fortran ? "(F)" : "(C)", c->uplo[0] ? c->uplo[0] : '-',
            c->diag[0] ? c->diag[0] : '-', c->m, c->n, c->alpha[0], c->alpha[1], c->beta[0],
            c->beta[1], c->ictxt, what, k);
    print_desc("A", c->a.i, c->a.j, &c->a);
    print_desc("B", c->b.i, c->b.j, &c->b);
}

/* Print element k of the initial, ScaLAPACK's and dmx's target. */
static void show(const call *c, const void *b0, const void *x, const void *y, long k)
{
    int ncomp = (c->type == T_C || c->type == T_Z) ? 2 : 1;
    for (int q = 0; q < ncomp; q++) {
        size_t at = (size_t)k * (size_t)ncomp + (size_t)q;
        double v[3];
        const void *p[3] = {b0, x, y};
        for (int w = 0; w < 3; w++) {
            switch (c->type) {
            case T_I: v[w] = ((const int *)p[w])[at]; break;
            case T_S:
            case T_C: v[w] = ((const float *)p[w])[at]; break;
            default: v[w] = ((const double *)p[w])[at]; break;
            }
        }
        fprintf(stderr, "    %s part: before %.9g, ScaLAPACK %.9g, dmx %.9g\n", q ? "imag" : "real",
                v[0], v[1], v[2]);
    }
}

static void pick_scalar(dmxt_rng *g, int cplx, double *s, int allow_zero)
{
    int k = spt_int(g, 0, 5);
    s[1] = 0.0;
    if (k == 0 && allow_zero)
        s[0] = 0.0;
    else if (k == 1)
        s[0] = 1.0;
    else if (k == 2)
        s[0] = -1.0;
    else {
        s[0] = spt_unit(g);
        if (cplx)
            s[1] = spt_unit(g);
    }
}

int main(int argc, char **argv)
{
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    int ncases = argc > 1 ? atoi(argv[1]) : 400;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240611u;
    Cblacs_pinfo(&me, &np);
    if (np > MAXP) {
        fprintf(stderr, "at most %d ranks\n", MAXP);
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* the grid pool */
    dmxt_rng pool = spt_seed(seed, 0xB1AC5, 0);
    for (int pr = 1; pr <= np; pr++) {
        for (int pc = 1; pc <= np; pc++) {
            if (pr * pc > np || ((pr > 3 || pc > 3) && pr != 1 && pc != 1) ||
                (SPT_FULL && pr * pc < np - 1))
                continue;
            if (ngrids + 3 > MAXGRIDS)
                continue;
            add_gridinit("Row", pr, pc);
            add_gridinit("Col", pr, pc);
            add_gridmap(&pool, pr, pc);
        }
    }

    long failures = 0, checks = 0;
    int printed = 0;
#ifdef SPT_SMALL
    long ndirect = 0;
#endif
    for (int ncase = 0; ncase < ncases; ncase++) {
        dmxt_rng g = spt_seed(seed, (uint64_t)ncase + 1, 0);
        dmxt_rng mine = spt_seed(seed, (uint64_t)ncase + 1, 1000 + (uint64_t)me);
        call c;
        memset(&c, 0, sizeof c);
        int k = spt_int(&g, 0, 99);
        c.routine = k < 45 ? R_GEMR2D : k < SPT_TR_CUT ? R_TRMR2D : R_TRAN;
        c.type = c.routine == R_TRAN ? spt_int(&g, T_S, T_Z) : spt_int(&g, T_I, T_Z);
        c.conj = spt_int(&g, 0, 1);
        c.fortran = c.routine == R_TRAN ? 1 : spt_int(&g, 0, 1);
        int big = spt_int(&g, 0, 9) == 0;
        c.m = spt_int(&g, 0, 19) == 0 ? 0 : spt_int(&g, 1, big ? 40 : 12);
        c.n = spt_int(&g, 0, 19) == 0 ? 0 : spt_int(&g, 1, big ? 40 : 12);
#ifdef SPT_SMALL
        static const int sizes[] = {1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 47, 64};
        c.m = sizes[spt_int(&g, 0, 13)];
        c.n = sizes[spt_int(&g, 0, 13)];
#endif
        if (c.routine == R_TRMR2D) {
            static const char up[] = "UuLlUL";
            static const char dg[] = "NnUuNU";
            c.uplo[0] = up[spt_int(&g, 0, 5)];
            c.diag[0] = dg[spt_int(&g, 0, 5)];
        }

        const grid *ga, *gb, *ictx;
        int participate;
        if (c.routine == R_TRAN) {
            ga = gb = &grids[spt_int(&g, 0, ngrids - 1)];
            c.ictxt = ga->ctxt;
            ictx = ga;
            participate = ga->ctxt >= 0;
        } else {
            const grid *u = &grids[spt_int(&g, 0, ngrids - 1)];
            int cand[MAXGRIDS] = {0}, ncand = 0; /* u is its own subset: ncand >= 1 */
            for (int q = 0; q < ngrids; q++)
                if (subset(&grids[q], u))
                    cand[ncand++] = q;
            ga = &grids[cand[spt_int(&g, 0, ncand - 1)]];
            gb = &grids[cand[spt_int(&g, 0, ncand - 1)]];
            c.ictxt = u->ctxt;
            ictx = u;
            participate = u->ctxt >= 0;
        }
        (void)ictx; /* the grid of the context (SPT_SMALL) */
        /* p?tran: 11-integer descriptors in about half the cases (each side on its own);
         * p?gemr2d/p?trmr2d: garbage DTYPE on some processes in about a third */
        int tran = c.routine == R_TRAN;
        int inb_a = tran && spt_int(&g, 0, 1), inb_b = tran && spt_int(&g, 0, 1);
#ifdef SPT_SMALL
        inb_a = inb_b = 0; /* first-block sizes take the agreed path */
#endif
        int junk = !tran && spt_int(&g, 0, 2) == 0;
#ifdef SPT_SMALL
        /* in a third of the cases of p?gemr2d on the context's grid, or of square p?tran, the
         * target is laid out as the source (the same draws; LLD still differs): op N is then
         * all local, and so is op T when the matrix sits in one block */
        dmxt_rng twin = g;
        int twins = (tran ? c.m == c.n : ga == ictx) && spt_int(&g, 0, 2) == 0;
        if (twins) {
            gb = ga;
            twin = g;
        }
#endif
        gen_mat(&g, &mine, ga, tran ? c.n : c.m, tran ? c.m : c.n, inb_a, junk, &c.a);
#ifdef SPT_SMALL
        if (twins)
            g = twin;
#endif
        gen_mat(&g, &mine, gb, c.m, c.n, inb_b, junk, &c.b);
        int cplx = c.type == T_C || c.type == T_Z;
        pick_scalar(&g, cplx, c.alpha, 1);
        pick_scalar(&g, cplx, c.beta, 1);
        int nan_c =
            c.routine == R_TRAN && c.beta[0] == 0.0 && c.beta[1] == 0.0 && spt_int(&g, 0, 1);
        int nan_a =
            c.routine == R_TRAN && c.alpha[0] == 0.0 && c.alpha[1] == 0.0 && spt_int(&g, 0, 1);

        for (int round = 0; round < 2 && participate; round++) {
            size_t abytes = c.a.nelem * esize[c.type], bbytes = c.b.nelem * esize[c.type];
            void *a = xmalloc(abytes), *b0 = xmalloc(bbytes);
            fill(&mine, c.type, a, c.a.nelem, nan_a, c.routine != R_TRAN);
            fill(&mine, c.type, b0, c.b.nelem, nan_c, c.routine != R_TRAN);
            void *a0 = dup_buf(a, abytes);
            void *bref = dup_buf(b0, bbytes), *bdmx = dup_buf(b0, bbytes);
            run(&c, 0, c.a.in ? a : NULL, c.b.in ? bref : NULL);
#ifdef SPT_SMALL
            dmx_scalapack_stats st0, st1;
            dmxsp_test_dmx_scalapack_get_stats(&st0);
            long before = spt_ncoll;
            spt_counting = 1;
#endif
            run(&c, 1, c.a.in ? a : NULL, c.b.in ? bdmx : NULL);
            checks++;
            long d = first_diff(&c, bref, bdmx, c.b.nelem);
            int bad = 0;
#ifdef SPT_SMALL
            spt_counting = 0;
            /* one gather when a grid misses a process of the context (p?tran: C's grid is it) */
            long expect = c.routine != R_TRAN && (count_members(ga) != count_members(ictx) ||
                                                  count_members(gb) != count_members(ictx));
            if (warm[c.ictxt & 0xffff] && spt_ncoll - before != expect && (bad = 1) &&
                printed++ < 10)
                describe(&c, ncase, round, "collectives (expected 0 or 1 MPI_Allgather)",
                         spt_ncoll - before);
            warm[c.ictxt & 0xffff] |= spt_ncoll != before; /* a quick return makes none */
            dmxsp_test_dmx_scalapack_get_stats(&st1);
            int want = expect_direct(&c, ga, gb, ictx);
            ndirect += want;
            if (st1.direct_calls - st0.direct_calls != want && (bad = 1) && printed++ < 10)
                describe(&c, ncase, round, want ? "direct path not taken" : "direct path taken", 0);
#endif
            if (d >= 0) {
                bad = 1;
                if (printed++ < 10) {
                    describe(&c, ncase, round, "target", d);
                    show(&c, b0, bref, bdmx, d);
                }
            }
            if (memcmp(a, a0, abytes) != 0) {
                bad = 1;
                if (printed++ < 10)
                    describe(&c, ncase, round, "source (modified)", 0);
            }
            failures += bad;
            free(a);
            free(a0);
            free(b0);
            free(bref);
            free(bdmx);
            /* the second round: new alpha/beta */
            if (c.routine == R_TRAN) {
                pick_scalar(&g, cplx, c.alpha, 0);
                pick_scalar(&g, cplx, c.beta, 1);
                nan_a = nan_c = 0;
            }
        }
        SPT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    dmx_scalapack_stats st;
    dmxsp_test_dmx_scalapack_get_stats(&st);
#ifdef SPT_SMALL
    if (st.local_calls + st.gathered_calls != st.calls) { /* every call of this test is small */
        failures++;
        fprintf(stderr,
                "rank %d: %lld + %lld of %lld calls took the paths with no collective or one "
                "gather\n",
                me, (long long)st.local_calls, (long long)st.gathered_calls, (long long)st.calls);
    }
    if (me == 0)
        printf("rank 0: %lld calls with no collective (%ld direct), %lld with one gather\n",
               (long long)st.local_calls, ndirect, (long long)st.gathered_calls);
    if (ndirect == 0) { /* the generator must reach the direct path */
        failures++;
        fprintf(stderr, "rank %d: no call took the direct path\n", me);
    }
#endif
    long tot[2] = {failures, checks}, sum[2];
    SPT_CHECK_MPI(MPI_Allreduce(tot, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0) {
        printf("rank 0 cache: %lld calls, %lld hits, %lld misses, %lld evictions, %lld cached, "
               "%lld contexts\n",
               (long long)st.calls, (long long)st.hits, (long long)st.misses,
               (long long)st.evictions, (long long)st.entries, (long long)st.contexts);
        dmxt_count total = {sum[1] - sum[0], sum[0]};
        dmxt_count_print(&total);
    }
    for (int q = 0; q < ngrids; q++)
        if (grids[q].ctxt >= 0)
            Cblacs_gridexit(grids[q].ctxt);
    SPT_CHECK_MPI(MPI_Finalize());
    return sum[0] == 0 ? 0 : 1;
}
