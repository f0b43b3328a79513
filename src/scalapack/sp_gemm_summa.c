/* SPDX-License-Identifier: BSD-3-Clause */
/* SUMMA on the caller's block-cyclic arrays: p?gemm_ with no redistribution.
 *
 * When it applies (dmxsp_gsumma_make; the same answer on every process, from arguments ScaLAPACK
 * requires equal everywhere):
 *   - TRANSA = TRANSB = 'N' (op(A) = A, op(B) = B); a call on a 1 x 1 grid is one local
 *     multiply in sp_gemm.c's one_owner, any op, unless an operand is replicated (RSRC or
 *     CSRC = -1): then it comes here and, with an op other than N, takes dmx_gemm's plan;
 *   - the rows of sub(A) and of sub(C) fall on the same process rows in the same order: from
 *     IA and IC on, both distributions have their block boundaries at the same places (the
 *     first, partial blocks end together, the later ones are MB long in both) on the same
 *     process row, or the grid has one process row. Then each process holds the same rows of
 *     sub(A) and sub(C), consecutive in both local arrays;
 *   - likewise the columns of sub(B) and of sub(C) over the process columns.
 *   The inner dimension needs nothing: [0, k) is cut wherever a block of A's columns or of B's
 *   rows ends, so each segment lies on one process column of A and one process row of B.
 *
 * Algorithm (van de Geijn and Watts' SUMMA with the user's blocks as panels). The segments are
 * grouped into panels: segments with the same owners, in order, until a panel reaches
 * SP_GSUMMA_WIDTH (256, a width the BLAS runs at full rate; 128 when k < 2048, for enough panels
 * to overlap; one segment may be wider). Per panel,
 * the owning process column packs its columns of sub(A) (ml x w) and broadcasts them along each
 * process row; the owning process row packs its rows of sub(B) (w x nl) and broadcasts them along
 * each process column; every process adds the product of the two into its part of sub(C), in
 * place (the first panel with beta, the others with 1). The next panel's broadcasts are started
 * (MPI_Ibcast) before this panel's multiply, so they run under it.
 *
 * Cost (n x n x n on a p = pr x pc grid, panels of b): as dmx's SUMMA (src/gemm/gemm_summa.c):
 * about 2 (n / b) log(p) alpha + n^2 (1/pr + 1/pc) beta + 2 n^3 / p gamma, with no
 * redistribution of A, B or C before or after. Temporary memory: two panels of A (ml x b) and
 * two of B (b x nl), kept by the grid (sp_gemm_cache.c) for its next calls. */
/* POSIX visible for a cblas.h that needs it (BLIS names pthread_barrier_t) */
#define _POSIX_C_SOURCE 200809L
#include "sp_gemm_internal.h"

#include <cblas.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Target panel width (elements along k): wide panels for the BLAS, narrower ones when k is
 * below 2048, so the look-ahead has broadcasts to hide (with two panels, half of them would be
 * exposed). */
#define SP_GSUMMA_WIDTH 256
#define SP_GSUMMA_WIDTH_SMALL 128

/* The block holding global index g of a distribution (first block `first`, then blocks of bs,
 * block 0 on process src of np): where it ends (exclusive) and its process. */
static void block_of(int64_t g, int64_t first, int64_t bs, int src, int np, int64_t *end,
                     int *owner)
{
    const int64_t b = g < first ? 0 : 1 + (g - first) / bs;
    *end = first + (b == 0 ? 0 : b * bs);
    *owner = (int)((src + b) % np);
}

/* Do len indices from g1 in distribution 1 and from g2 in distribution 2 fall on the same
 * processes in the same runs? */
static int aligned(int64_t g1, int64_t f1, int64_t b1, int s1, int64_t g2, int64_t f2, int64_t b2,
                   int s2, int np, int64_t len)
{
    if (np == 1)
        return 1;
    int64_t e1, e2;
    int o1, o2;
    block_of(g1, f1, b1, s1, np, &e1, &o1);
    block_of(g2, f2, b2, s2, np, &e2, &o2);
    if (o1 != o2)
        return 0;
    const int64_t r1 = e1 - g1, r2 = e2 - g2;
    if (len <= r1 && len <= r2)
        return 1;
    return r1 == r2 && b1 == b2;
}

static int is_n(char t)
{
    return t == 'N' || t == 'n';
}

/* The segments of [0, k) (see the header comment); *nseg of them, with each one's owners. */
static sp_gseg *segments(const sp_gemm_args *g, const int *grid, int **ocol, int **orow, int *nseg)
{
    const sp_desc *da = &g->a, *db = &g->b;
    int cnt = 0;
    for (int64_t kk = 0; kk < g->k; cnt++) {
        int64_t ea, eb;
        int oa, ob;
        block_of(g->ja - 1 + kk, da->inb, da->nb, da->csrc, grid[1], &ea, &oa);
        block_of(g->ib - 1 + kk, db->imb, db->mb, db->rsrc, grid[0], &eb, &ob);
        const int64_t w = ea - (g->ja - 1 + kk) < eb - (g->ib - 1 + kk) ? ea - (g->ja - 1 + kk)
                                                                        : eb - (g->ib - 1 + kk);
        kk += w < g->k - kk ? w : g->k - kk;
    }
    sp_gseg *s = calloc((size_t)cnt, sizeof *s);
    *ocol = calloc((size_t)cnt, sizeof **ocol);
    *orow = calloc((size_t)cnt, sizeof **orow);
    if (s == NULL || *ocol == NULL || *orow == NULL) { /* the caller frees ocol and orow */
        free(s);
        return NULL;
    }
    int64_t kk = 0;
    for (int i = 0; i < cnt; i++) {
        const int64_t ga = g->ja - 1 + kk, gb = g->ib - 1 + kk;
        int64_t ea, eb;
        block_of(ga, da->inb, da->nb, da->csrc, grid[1], &ea, &(*ocol)[i]);
        block_of(gb, db->imb, db->mb, db->rsrc, grid[0], &eb, &(*orow)[i]);
        int64_t w = ea - ga < eb - gb ? ea - ga : eb - gb;
        w = w < g->k - kk ? w : g->k - kk;
        s[i].w = w;
        s[i].la = dmxsp_local_index(ga, da->inb, da->nb, da->csrc, grid[1], (*ocol)[i]);
        s[i].lb = dmxsp_local_index(gb, db->imb, db->mb, db->rsrc, grid[0], (*orow)[i]);
        kk += w;
    }
    *nseg = cnt;
    return s;
}

/* Group the segments into panels (see the header comment). Returns 0, or 1 out of memory. */
static int group(sp_gsumma *p, sp_gseg *segs, const int *ocol, const int *orow, int nseg,
                 const int *grid, int64_t k)
{
    const int64_t width = k >= 8 * SP_GSUMMA_WIDTH ? SP_GSUMMA_WIDTH : SP_GSUMMA_WIDTH_SMALL;
    const int pairs = grid[0] * grid[1];
    int *open = malloc(sizeof(int) * (size_t)pairs), *of = malloc(sizeof(int) * (size_t)nseg);
    p->panels = calloc((size_t)nseg, sizeof *p->panels);
    p->segs = calloc((size_t)nseg, sizeof *p->segs);
    int bad = open == NULL || of == NULL || p->panels == NULL || p->segs == NULL;
    for (int i = 0; i < pairs && !bad; i++)
        open[i] = -1;
    for (int i = 0; i < nseg && !bad; i++) {
        const int pair = ocol[i] * grid[0] + orow[i];
        int q = open[pair];
        if (q < 0 || p->panels[q].w + segs[i].w > width) {
            q = open[pair] = p->npanels++;
            p->panels[q].ocol = ocol[i], p->panels[q].orow = orow[i];
        }
        p->panels[q].w += segs[i].w;
        p->panels[q].count++;
        of[i] = q;
    }
    for (int q = 0, at = 0; q < p->npanels && !bad; q++) {
        p->panels[q].first = at;
        at += p->panels[q].count;
        p->wmax = p->panels[q].w > p->wmax ? p->panels[q].w : p->wmax;
        p->panels[q].count = 0; /* refilled below */
    }
    for (int i = 0; i < nseg && !bad; i++) {
        sp_gpanel *pn = &p->panels[of[i]];
        p->segs[pn->first + pn->count++] = segs[i];
    }
    free(open);
    free(of);
    return bad;
}

/* Local origins and counts of this process's part of each operand. */
static void origins(sp_gsumma *p, const sp_gemm_args *g, const int *grid)
{
    const sp_desc *a = &g->a, *b = &g->b, *c = &g->c;
    const int r = grid[2], q = grid[3], pr = grid[0], pc = grid[1];
    const int nota = is_n(g->ta), notb = is_n(g->tb);
    const int64_t arows = nota ? g->m : g->k, acols = nota ? g->k : g->m;
    const int64_t brows = notb ? g->k : g->n, bcols = notb ? g->n : g->k;
    p->ar0 = dmxsp_numroc(g->ia - 1, a->imb, a->mb, r, a->rsrc, pr);
    p->ac0 = dmxsp_numroc(g->ja - 1, a->inb, a->nb, q, a->csrc, pc);
    p->lar = dmxsp_numroc(g->ia - 1 + arows, a->imb, a->mb, r, a->rsrc, pr) - p->ar0;
    p->lac = dmxsp_numroc(g->ja - 1 + acols, a->inb, a->nb, q, a->csrc, pc) - p->ac0;
    p->br0 = dmxsp_numroc(g->ib - 1, b->imb, b->mb, r, b->rsrc, pr);
    p->lbr = dmxsp_numroc(g->ib - 1 + brows, b->imb, b->mb, r, b->rsrc, pr) - p->br0;
    p->bc0 = dmxsp_numroc(g->jb - 1, b->inb, b->nb, q, b->csrc, pc);
    p->lbc = dmxsp_numroc(g->jb - 1 + bcols, b->inb, b->nb, q, b->csrc, pc) - p->bc0;
    p->cr0 = dmxsp_numroc(g->ic - 1, c->imb, c->mb, r, c->rsrc, pr);
    p->cc0 = dmxsp_numroc(g->jc - 1, c->inb, c->nb, q, c->csrc, pc);
    p->ml = dmxsp_numroc(g->ic - 1 + g->m, c->imb, c->mb, r, c->rsrc, pr) - p->cr0;
    p->nl = dmxsp_numroc(g->jc - 1 + g->n, c->inb, c->nb, q, c->csrc, pc) - p->cc0;
}

/* Out of memory ends the job: a process that went its own way would leave the others waiting. */
static _Noreturn void oom(void)
{
    fprintf(stderr, "dmx_scalapack: p?gemm: out of memory for SUMMA's plan\n");
    fflush(stderr);
    dmxsp_abort(MPI_COMM_WORLD);
}

int dmxsp_gsumma_suits(const sp_gemm_args *g, const int *grid)
{
    const sp_desc *a = &g->a, *b = &g->b, *c = &g->c;
    if (!(is_n(g->ta) && is_n(g->tb)))
        return 0;
    return aligned(g->ia - 1, a->imb, a->mb, a->rsrc, g->ic - 1, c->imb, c->mb, c->rsrc, grid[0],
                   g->m) &&
           aligned(g->jb - 1, b->inb, b->nb, b->csrc, g->jc - 1, c->inb, c->nb, c->csrc, grid[1],
                   g->n);
}

sp_gsumma *dmxsp_gsumma_make(const sp_gemm_args *g, const int *grid)
{
    if (!dmxsp_gsumma_suits(g, grid))
        return NULL;
    sp_gsumma *p = dmxsp_xcalloc(1, sizeof *p, "p?gemm");
    origins(p, g, grid);
    int *ocol = NULL, *orow = NULL, nseg = 0;
    sp_gseg *segs = segments(g, grid, &ocol, &orow, &nseg);
    int bad = segs == NULL || group(p, segs, ocol, orow, nseg, grid, g->k);
    /* panels travel as one message each, whose count is an int */
    if (bad)
        oom();
    free(segs);
    free(ocol);
    free(orow);
    if ((double)p->wmax * (g->m > g->n ? g->m : g->n) > (double)INT_MAX) {
        dmxsp_gsumma_free(p);
        return NULL;
    }
    return p;
}

void dmxsp_gsumma_free(sp_gsumma *s)
{
    if (s == NULL)
        return;
    free(s->panels);
    free(s->segs);
    free(s);
}

/* ---- the run --------------------------------------------------------------------------------- */

static MPI_Datatype mpi_type(dmx_dtype t)
{
    switch (t) {
    case DMX_FLOAT: return MPI_FLOAT;
    case DMX_DOUBLE: return MPI_DOUBLE;
    case DMX_CFLOAT: return MPI_C_FLOAT_COMPLEX;
    default: return MPI_C_DOUBLE_COMPLEX;
    }
}

static CBLAS_TRANSPOSE cblas_op(char t, dmx_dtype dt)
{
    if (is_n(t))
        return CblasNoTrans;
    return (t == 'C' || t == 'c') && dt >= DMX_CFLOAT ? CblasConjTrans : CblasTrans;
}

/* C = alpha op(A) op(B) + beta C on local arrays (column-major, CBLAS). */
static void local_gemm(dmx_dtype t, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                       int64_t k, dmx_scalar alpha, const void *a, int64_t lda, const void *b,
                       int64_t ldb, dmx_scalar beta, void *c, int64_t ldc)
{
    const int M = (int)m, N = (int)n, K = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    switch (t) {
    case DMX_FLOAT:
        cblas_sgemm(CblasColMajor, ta, tb, M, N, K, (float)alpha.re, a, la, b, lb, (float)beta.re,
                    c, lc);
        break;
    case DMX_DOUBLE:
        cblas_dgemm(CblasColMajor, ta, tb, M, N, K, alpha.re, a, la, b, lb, beta.re, c, lc);
        break;
    case DMX_CFLOAT: {
        const float al[2] = {(float)alpha.re, (float)alpha.im};
        const float be[2] = {(float)beta.re, (float)beta.im};
        cblas_cgemm(CblasColMajor, ta, tb, M, N, K, al, a, la, b, lb, be, c, lc);
        break;
    }
    default: {
        const double al[2] = {alpha.re, alpha.im}, be[2] = {beta.re, beta.im};
        cblas_zgemm(CblasColMajor, ta, tb, M, N, K, al, a, la, b, lb, be, c, lc);
        break;
    }
    }
}

void dmxsp_gemm_local(dmx_dtype t, char ta, char tb, int64_t m, int64_t n, int64_t k,
                      dmx_scalar alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                      dmx_scalar beta, void *c, int64_t ldc)
{
    local_gemm(t, cblas_op(ta, t), cblas_op(tb, t), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* Copy rows x cols from src (leading dimension lds) to dst (ldd). */
static void copy2d(size_t es, int64_t rows, int64_t cols, const char *src, int64_t lds, char *dst,
                   int64_t ldd)
{
    for (int64_t j = 0; j < cols; j++)
        memcpy(dst + (size_t)(j * ldd) * es, src + (size_t)(j * lds) * es, (size_t)rows * es);
}

int dmxsp_gemm_meet(const char *x, int64_t ldx, int64_t xr, int64_t xc, int64_t xrows,
                    int64_t xcols, const char *y, int64_t ldy, int64_t yr, int64_t yc,
                    int64_t yrows, int64_t ycols, size_t es)
{
    if (xrows <= 0 || xcols <= 0 || yrows <= 0 || ycols <= 0)
        return 0;
    if (x == y && ldx == ldy)
        return xr < yr + yrows && yr < xr + xrows && xc < yc + ycols && yc < xc + xcols;
    const char *x0 = x + (size_t)(xr + xc * ldx) * es;
    const char *x1 = x + (size_t)(xr + xrows - 1 + (xc + xcols - 1) * ldx + 1) * es;
    const char *y0 = y + (size_t)(yr + yc * ldy) * es;
    const char *y1 = y + (size_t)(yr + yrows - 1 + (yc + ycols - 1) * ldy + 1) * es;
    return x0 < y1 && y0 < x1;
}

static int grow(sp_ggrid *gr, int i, size_t bytes)
{
    if (gr->work_size[i] >= bytes)
        return 0;
    free(gr->work[i]);
    gr->work[i] = malloc(bytes > 0 ? bytes : 1);
    gr->work_size[i] = gr->work[i] != NULL ? bytes : 0;
    return gr->work[i] == NULL;
}

typedef struct run_ctx {
    const sp_gsumma *s;
    sp_ggrid *gr;
    dmx_dtype t;
    size_t es;
    const char *a, *b;
    int64_t lda, ldb;
} run_ctx;

/* Pack panel q into slot s at its owners and start its two broadcasts. */
static int post(const run_ctx *x, int q, int s, MPI_Request req[2])
{
    const sp_gsumma *p = x->s;
    const sp_gpanel *pn = &p->panels[q];
    char *ab = x->gr->work[s], *bb = x->gr->work[2 + s];
    int64_t off = 0;
    for (int i = 0; i < pn->count; i++) {
        const sp_gseg *sg = &p->segs[pn->first + i];
        if (x->gr->mycol == pn->ocol)
            copy2d(x->es, p->ml, sg->w, x->a + (size_t)(p->ar0 + sg->la * x->lda) * x->es, x->lda,
                   ab + (size_t)(off * p->ml) * x->es, p->ml);
        if (x->gr->myrow == pn->orow)
            copy2d(x->es, sg->w, p->nl, x->b + (size_t)(sg->lb + p->bc0 * x->ldb) * x->es, x->ldb,
                   bb + (size_t)off * x->es, pn->w);
        off += sg->w;
    }
    req[0] = req[1] = MPI_REQUEST_NULL;
    const MPI_Datatype dt = mpi_type(x->t);
    if (x->gr->npcol > 1 && p->ml > 0 &&
        MPI_Ibcast(ab, (int)(p->ml * pn->w), dt, pn->ocol, x->gr->row, &req[0]) != MPI_SUCCESS)
        return 1;
    if (x->gr->nprow > 1 && p->nl > 0 &&
        MPI_Ibcast(bb, (int)(pn->w * p->nl), dt, pn->orow, x->gr->col, &req[1]) != MPI_SUCCESS)
        return 1;
    return 0;
}

static int run_panels(const run_ctx *x, dmx_scalar alpha, dmx_scalar beta, char *c, int64_t ldc,
                      char *msg, size_t len)
{
    const sp_gsumma *p = x->s;
    MPI_Request req[2][2] = {{MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                             {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    /* statuses, not MPI_STATUSES_IGNORE: with MPICH's headers gcc reads the null pointer as an
     * array of size 0 and warns (-Wstringop-overflow) */
    MPI_Status st[2];
    int bad = p->npanels > 0 && post(x, 0, 0, req[0]);
    for (int q = 0; q < p->npanels && !bad; q++) {
        const int s = q % 2;
        if (q + 1 < p->npanels && post(x, q + 1, 1 - s, req[1 - s])) {
            bad = 1;
            break;
        }
        if (MPI_Waitall(2, req[s], st) != MPI_SUCCESS) {
            bad = 1;
            break;
        }
        if (p->ml > 0 && p->nl > 0)
            local_gemm(x->t, CblasNoTrans, CblasNoTrans, p->ml, p->nl, p->panels[q].w, alpha,
                       x->gr->work[s], p->ml, x->gr->work[2 + s], p->panels[q].w,
                       q == 0 ? beta : (dmx_scalar){1.0, 0.0},
                       c + (size_t)(p->cr0 + p->cc0 * ldc) * x->es, ldc);
    }
    if (bad) {
        snprintf(msg, len, "a panel broadcast of SUMMA failed");
        for (int i = 0; i < 2; i++)
            MPI_Waitall(2, req[i], st);
    }
    return bad;
}

int dmxsp_gsumma_run(const sp_gsumma *s, sp_ggrid *gr, dmx_dtype t, const sp_gemm_args *g,
                     dmx_scalar alpha, const void *a, const void *b, dmx_scalar beta, void *c,
                     char *msg, size_t len)
{
    const size_t es = dmx_dtype_size(t);
    /* C must share no element with A or B on this process (ScaLAPACK leaves that undefined; dmx
     * ends the job as its other path does) */
    if (dmxsp_gemm_meet(c, g->c.lld, s->cr0, s->cc0, s->ml, s->nl, a, g->a.lld, s->ar0, s->ac0,
                        s->lar, s->lac, es) ||
        dmxsp_gemm_meet(c, g->c.lld, s->cr0, s->cc0, s->ml, s->nl, b, g->b.lld, s->br0, s->bc0,
                        s->lbr, s->lbc, es)) {
        snprintf(msg, len, "sub(C) shares memory with sub(A) or sub(B) on this process");
        return 1;
    }
    for (int i = 0; i < 4; i++)
        if (grow(gr, i, (size_t)(s->wmax * (i < 2 ? s->ml : s->nl)) * es)) {
            snprintf(msg, len, "out of memory for SUMMA's panels");
            return 1;
        }
    const run_ctx x = {s, gr, t, es, a, b, g->a.lld, g->b.lld};
    return run_panels(&x, alpha, beta, c, g->c.lld, msg, len);
}
