/* SPDX-License-Identifier: BSD-3-Clause */
/* The data path of run-compressed pieces (exec.h: dmxi_seg, xf[t].runs), shared by both
 * engines through dmxi_exec_pack_pieces / unpack_pieces / apply_local (engine.c).
 *
 * Algorithm: a run piece is the product of row runs and column runs. Consecutive runs are
 * grouped before anything is copied: runs that continue each other in every memory involved
 * become one longer run, and runs of one element whose memory indices advance by a constant step
 * become one strided run (1 x 1 blocks give nothing else). Every pair of groups is one strided
 * rectangle given to the ordinary kernel (dmxi_kernel_apply_flags) when each operand has a unit
 * stride in one direction; else a bit copy (every pack, and unpacks and local rectangles with
 * alpha 1, beta 0) goes through one strided gather/scatter loop over the whole block, and
 * anything else through one kernel call per column. So op, alpha/beta and every dtype are the
 * kernel's, and 1 x 1 block-cyclic layouts move whole strided blocks per call instead of one
 * element per call.
 * Preconditions: both layouts of the transform are block-cyclic (one column-major local array)
 * and the transform has no trapezoid (the planner only compresses such transforms).
 * Cost: the elements once (as the rectangle path), plus O(runs) to group them per column group;
 * no memory.
 */
#include "kernels.h"
#include "engine.h"

#include <string.h>

/* The bit copy of a k x w block of ES-byte elements, strides of both sides in elements (none
 * unit); memcpy of a constant size is one load and store, with no assumption on alignment or
 * type. */
#define STRIDED_COPY(ES)                                                                           \
    do {                                                                                           \
        for (int64_t j_ = 0; j_ < w; j_++)                                                         \
            for (int64_t i_ = 0; i_ < k; i_++)                                                     \
                memcpy(d + (size_t)(i_ * di + j_ * dj) * (ES),                                     \
                       s + (size_t)(i_ * si + j_ * sj) * (ES), (ES));                              \
    } while (0)

/* dst(i, j) = alpha * op(S)(i, j) + beta * dst(i, j) for a k x w block, with op(S)(i, j) at
 * s + (i*si + j*sj) elements and dst(i, j) at d + (i*di + j*dj) elements. */
static void block_apply(const dmxi_xform *x, dmx_op op, dmx_scalar alpha, dmx_scalar beta,
                        const char *s, int64_t si, int64_t sj, char *d, int64_t di, int64_t dj,
                        int64_t k, int64_t w, unsigned flags)
{
    if (k == 1)
        si = di = 1; /* a stride that is never taken */
    if (w == 1)
        sj = dj = 1;
    dmx_order so = DMX_COL_MAJOR, dord = DMX_COL_MAJOR;
    int64_t sld = 0, dld = 0;
    int ok = 1;
    if (di == 1)
        dld = dj;
    else if (dj == 1)
        dord = DMX_ROW_MAJOR, dld = di;
    else
        ok = 0;
    /* op(S)(i, j) is S(i, j) for op N and S(j, i) otherwise */
    const int64_t sp = op == DMX_OP_N ? si : sj, sq = op == DMX_OP_N ? sj : si;
    if (sp == 1)
        sld = sq;
    else if (sq == 1)
        so = DMX_ROW_MAJOR, sld = sp;
    else
        ok = 0;
    if (ok) {
        dmxi_kernel_apply_flags(x->t.dtype, op, alpha, beta, s, sld, so, d, dld, dord, k, w, flags);
        return;
    }
    const size_t es = x->esize;
    const int cplx = x->t.dtype == DMX_CFLOAT || x->t.dtype == DMX_CDOUBLE;
    if (alpha.re == 1.0 && alpha.im == 0.0 && beta.re == 0.0 && beta.im == 0.0 &&
        !(cplx && op == DMX_OP_C)) { /* a bit copy: one strided gather/scatter loop */
        switch (es) {
        case 4: STRIDED_COPY(4); return;
        case 8: STRIDED_COPY(8); return;
        case 16: STRIDED_COPY(16); return;
        default: break;
        }
    }
    for (int64_t j = 0; j < w; j++) /* w > 1 here: one column each */
        block_apply(x, op, alpha, beta, s + (size_t)(j * sj) * es, si, 1, d + (size_t)(j * dj) * es,
                    di, 1, k, 1, flags);
}

/* A group of runs starting at s, covering at most left elements: returns the runs taken, sets
 * *len (elements) and the step of the memory index per element in A (*sa) and in B (*sb); only
 * the memories with need_a / need_b must follow the pattern. */
static int64_t take(const dmxi_seg *s, int64_t left, int need_a, int need_b, int64_t *len,
                    int64_t *sa, int64_t *sb)
{
    int64_t n = 1, l = s[0].len;
    *sa = *sb = 1;
    while (l < left && (!need_a || s[n].am == s[n - 1].am + s[n - 1].len) &&
           (!need_b || s[n].bm == s[n - 1].bm + s[n - 1].len))
        l += s[n++].len;
    if (n > 1 || l > 1 || l >= left || s[1].len != 1) {
        *len = l;
        return n;
    }
    const int64_t da = s[1].am - s[0].am, db = s[1].bm - s[0].bm;
    for (n = 2; n < left && s[n].len == 1 && (!need_a || s[n].am - s[n - 1].am == da) &&
                (!need_b || s[n].bm - s[n - 1].bm == db);
         n++)
        ;
    *len = n;
    *sa = da, *sb = db;
    return n;
}

/* What one side of a run piece needs: A's array (is_a) or B's seen through op (its row runs
 * index B's columns for op T and C). */
typedef struct side {
    const char *base;
    int64_t ld;
    int is_a;
    dmx_op op;
} side;

/* Offset (elements) of the element of row run r (plus i elements of step ri) and column run c
 * (plus j of step cj) in the side's array, and the strides per i and per j. */
static void locate(const side *m, const dmxi_seg *r, const dmxi_seg *c, int64_t ri, int64_t cj,
                   int64_t *off, int64_t *si, int64_t *sj)
{
    const int64_t rm = m->is_a ? r->am : r->bm, cm = m->is_a ? c->am : c->bm;
    if (m->is_a || m->op == DMX_OP_N) {
        *off = rm + cm * m->ld, *si = ri, *sj = cj * m->ld;
    } else {
        *off = cm + rm * m->ld, *si = ri * m->ld, *sj = cj;
    }
}

/* The three uses: pack (B -> buffer), unpack (buffer -> A), local (B -> A). */
typedef enum { USE_PACK, USE_UNPACK, USE_LOCAL } use;

/* Walk the product of the runs at R (rows) and C (cols), rows x cols elements. */
static void walk(const dmxi_exec *e, const dmxi_xform *x, use u, const dmxi_seg *R,
                 const dmxi_seg *C, int64_t rows, int64_t cols, const side *src, const side *dst,
                 char *buf, const char *cbuf, unsigned flags)
{
    static const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    const int need_a = u != USE_PACK, need_b = u != USE_UNPACK;
    const dmx_op op = u == USE_UNPACK ? DMX_OP_N : x->t.op;
    const dmx_scalar alpha = u == USE_PACK ? one : x->t.alpha;
    const dmx_scalar beta = u == USE_PACK ? zero : x->t.beta;
    const size_t es = x->esize;
    (void)e;
    for (int64_t jc = 0, ci = 0; jc < cols;) {
        int64_t w, ca, cb;
        const int64_t nc = take(C + ci, cols - jc, need_a, need_b, &w, &ca, &cb);
        for (int64_t ir = 0, ri = 0; ir < rows;) {
            int64_t k, ra, rb;
            const int64_t nr = take(R + ri, rows - ir, need_a, need_b, &k, &ra, &rb);
            const char *s;
            char *d;
            int64_t so, si, sj, dof, di, dj;
            if (u == USE_UNPACK) { /* the buffer, column-major rows x cols */
                s = cbuf + (size_t)(ir + jc * rows) * es, si = 1, sj = rows;
            } else {
                locate(src, &R[ri], &C[ci], rb, cb, &so, &si, &sj);
                s = src->base + (size_t)so * es;
            }
            if (u == USE_PACK) {
                d = buf + (size_t)(ir + jc * rows) * es, di = 1, dj = rows;
            } else {
                locate(dst, &R[ri], &C[ci], ra, ca, &dof, &di, &dj);
                d = (char *)dst->base + (size_t)dof * es;
            }
            block_apply(x, op, alpha, beta, s, si, sj, d, di, dj, k, w, flags);
            ir += k, ri += nr;
        }
        jc += w, ci += nc;
    }
}

static const char *array_of(const dmx_layout *L)
{
    const dmxi_mem m = {-1, 0, 0, DMX_COL_MAJOR};
    return dmxi_layout_addr(L, &m, 1);
}

void dmxi_exec_pack_run(const dmxi_exec *e, const dmxi_piece *pc, char *dst)
{
    const dmxi_xform *x = &e->xf[pc->t];
    const side b = {array_of(x->t.b), pc->mem.ld, 0, x->t.op};
    walk(e, x, USE_PACK, e->seg + pc->mem.lbk, e->seg + pc->mem.off, pc->rows, pc->cols, &b, NULL,
         dst, NULL, 0);
}

void dmxi_exec_unpack_run(const dmxi_exec *e, const dmxi_piece *pc, const char *src, unsigned flags)
{
    const dmxi_xform *x = &e->xf[pc->t];
    const side a = {array_of(x->t.a), pc->mem.ld, 1, DMX_OP_N};
    walk(e, x, USE_UNPACK, e->seg + pc->mem.lbk, e->seg + pc->mem.off, pc->rows, pc->cols, NULL, &a,
         NULL, src, flags);
}

void dmxi_exec_local_run(const dmxi_exec *e, const dmxi_local *lp, unsigned flags)
{
    const dmxi_xform *x = &e->xf[lp->t];
    const side b = {array_of(x->t.b), lp->bmem.ld, 0, x->t.op};
    const side a = {array_of(x->t.a), lp->amem.ld, 1, DMX_OP_N};
    walk(e, x, USE_LOCAL, e->seg + lp->amem.lbk, e->seg + lp->amem.off, lp->rows, lp->cols, &b, &a,
         NULL, NULL, flags);
}
