/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiny calls whose every element stays on its process: done in place, with no plan, no key and
 * no communication.
 *
 * Algorithm: a p?gemr2d or p?tran* call of at most SP_DIRECT_MAX elements whose two descriptors
 * name the same BLACS context (for p?gemr2d also the context argument: every process of the
 * context is then in the grid) is checked for locality from the global arguments alone. With
 * prow(g) = (g / MB + RSRC) mod NPROW the grid row of global row g (columns alike), element
 * (i, j) of the target comes from element (i, j) of the source (op N) or (j, i) (op T/C). It
 * stays on its process for every (i, j) exactly when
 *   op N:   prow_dst(i0 + i) = prow_src(i0' + i) for every row i and
 *           pcol_dst(j0 + j) = pcol_src(j0' + j) for every column j;
 *   op T/C: the target's grid rows of its rows and the source's grid rows of its rows (the
 *           target's columns) are one and the same value, and likewise for the grid columns
 *           (with a single grid row or column that holds trivially).
 * Then each process applies A = alpha * op(B) + beta * A to the elements it owns, through
 * ScaLAPACK's local index l(g) = (g / (MB * NPROW)) * MB + g mod MB, and returns. Every input
 * of that decision (sizes, indices, descriptors but LLD, the grid shape, the settings read by
 * dmx_transform_once_is_local) is the same on every process of a correct call, so all of them
 * take this path or none do; a process whose own LLD or array is wrong fails here, alone, as it
 * would on the path with no collective (sp_small.c) that the call would otherwise take.
 *
 * Preconditions: sp_engine.c's early checks passed (M, N > 0, descriptors not NULL, the process
 * in the context, whose shape and coordinates are grid[]). Descriptors the checks below reject
 * (or 11-integer ones) are left to the general paths, which report them.
 * Cost: O(m + n) integer divisions to decide; then O(local elements), no memory beyond four
 * index arrays of at most SP_DIRECT_MAX integers (16 KiB) on the stack.
 */
#include "sp_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One side of the call: its descriptor's fields and its submatrix origin (0-based). Plain ints:
 * every global index used is below M_ or N_ (side_of checks that), and 32-bit divisions are the
 * bulk of this path's cost. */
typedef struct dside {
    int m, n, mb, nb, rsrc, csrc, lld, i0, j0;
} dside;

/* g / d and g mod d for g >= 0, d >= 1: a shift and a mask when d is a power of two (grid
 * dimensions and block sizes usually are). The divisions were about half of this path's time
 * (a 1 x 1 pdtran_ on one process: 0.20 us with them, 0.14-0.15 without; docs/scalapack.md). */
static inline int qdiv(int g, int d)
{
    return (d & (d - 1)) == 0 ? g >> __builtin_ctz((unsigned)d) : g / d;
}

static inline int qmod(int g, int d)
{
    return (d & (d - 1)) == 0 ? g & (d - 1) : g % d;
}

/* The grid row (column) holding global index g: (g / b + src) mod np, with src < np. */
static inline int owner(int g, int b, int src, int np)
{
    if (np == 1)
        return 0;
    int r = qmod(qdiv(g, b), np) + src;
    return r >= np ? r - np : r;
}

/* ScaLAPACK's local index of global index g: (g / (b np)) b + g mod b. */
static inline int local_index(int g, int b, int np)
{
    if (np == 1)
        return g;
    return qdiv(qdiv(g, b), np) * b + qmod(g, b);
}

/* Local extent of the first len global indices on grid row (or column) p. */
static inline int64_t local_extent(int len, int b, int p, int src, int np)
{
    if (np == 1)
        return len;
    int nblocks = qdiv(len, b) + (qmod(len, b) != 0);
    int mine = qmod(p - src + np, np); /* this process holds blocks mine, mine + np, ... */
    if (mine >= nblocks)
        return 0;
    int k = qdiv(nblocks - 1 - mine, np) + 1; /* number of blocks held */
    int64_t ext = (int64_t)k * b;
    if (mine + (int64_t)(k - 1) * np == nblocks - 1) /* holds the last, maybe partial, block */
        ext -= (int64_t)nblocks * b - len;
    return ext;
}

/* The side's fields; 0 when the descriptor is one the general paths must judge. */
static int side_of(const int *desc, int pblas, int i, int j, int rows, int cols, int nprow,
                   int npcol, dside *s)
{
    sp_desc d;
    dmxsp_desc_read(desc, pblas, &d);
    if (d.dtype != 1)
        return 0;
    s->m = d.m, s->n = d.n, s->mb = d.mb, s->nb = d.nb;
    s->rsrc = d.rsrc, s->csrc = d.csrc, s->lld = d.lld;
    s->i0 = i > 0 ? i - 1 : -1, s->j0 = j > 0 ? j - 1 : -1; /* no overflow at INT_MIN */
    return s->m >= 0 && s->n >= 0 && s->mb >= 1 && s->nb >= 1 && s->rsrc >= 0 && s->rsrc < nprow &&
           s->csrc >= 0 && s->csrc < npcol && i >= 1 && j >= 1 && (int64_t)s->i0 + rows <= s->m &&
           (int64_t)s->j0 + cols <= s->n;
}

/* Whether the cnt global indices from g0 on all lie on grid row (or column) want. */
static int all_on(int g0, int cnt, int b, int src, int np, int want)
{
    for (int k = 0; k < cnt; k++)
        if (owner(g0 + k, b, src, np) != want)
            return 0;
    return 1;
}

/* Every element stays on its process (see the head of this file). */
static int all_local(const dside *a, const dside *b, int tran, int m, int n, int nprow, int npcol)
{
    if (!tran) {
        for (int i = 0; i < m && nprow > 1; i++)
            if (owner(a->i0 + i, a->mb, a->rsrc, nprow) != owner(b->i0 + i, b->mb, b->rsrc, nprow))
                return 0;
        for (int j = 0; j < n && npcol > 1; j++)
            if (owner(a->j0 + j, a->nb, a->csrc, npcol) != owner(b->j0 + j, b->nb, b->csrc, npcol))
                return 0;
        return 1;
    }
    /* a (target) is m x n, b (source) n x m: a's rows and b's rows (n of them) on one grid row,
     * a's columns and b's columns (m of them) on one grid column */
    const int r = owner(a->i0, a->mb, a->rsrc, nprow), c = owner(a->j0, a->nb, a->csrc, npcol);
    return (nprow == 1 || (all_on(a->i0, m, a->mb, a->rsrc, nprow, r) &&
                           all_on(b->i0, n, b->mb, b->rsrc, nprow, r))) &&
           (npcol == 1 || (all_on(a->j0, n, a->nb, a->csrc, npcol, c) &&
                           all_on(b->j0, m, b->nb, b->csrc, npcol, c)));
}

/* A's local offset of its row (or column) index g when this process owns it, else -1. */
static inline int mine_or_none(int g, int b, int src, int np, int me)
{
    return owner(g, b, src, np) == me ? local_index(g, b, np) : -1;
}

/* Apply one element: *a = alpha * op(*b) + beta * *a, with B not read when alpha = 0 and A not
 * read when beta = 0 (the PBLAS' rule). */
static void apply(sp_type type, int conj, dmx_scalar al, dmx_scalar be, const void *bp, void *ap)
{
    switch (type) {
    case SP_I: return; /* p?gemr2d only: copied bit for bit by the caller */
    case SP_S: {
        float *a = ap, b = *(const float *)bp, x = (float)al.re, y = (float)be.re;
        *a = x == 0.0f ? (y == 0.0f ? 0.0f : y * *a) : (y == 0.0f ? x * b : x * b + y * *a);
        return;
    }
    case SP_D: {
        double *a = ap, b = *(const double *)bp, x = al.re, y = be.re;
        *a = x == 0.0 ? (y == 0.0 ? 0.0 : y * *a) : (y == 0.0 ? x * b : x * b + y * *a);
        return;
    }
    case SP_C:
    case SP_Z: {
        double br, bi, ar, ai;
        if (type == SP_C) {
            br = ((const float *)bp)[0], bi = ((const float *)bp)[1];
            ar = ((float *)ap)[0], ai = ((float *)ap)[1];
        } else {
            br = ((const double *)bp)[0], bi = ((const double *)bp)[1];
            ar = ((double *)ap)[0], ai = ((double *)ap)[1];
        }
        if (conj)
            bi = -bi;
        const int azero = al.re == 0.0 && al.im == 0.0, bzero = be.re == 0.0 && be.im == 0.0;
        double rr = 0.0, ri = 0.0;
        if (!azero)
            rr = al.re * br - al.im * bi, ri = al.re * bi + al.im * br;
        if (!bzero)
            rr += be.re * ar - be.im * ai, ri += be.re * ai + be.im * ar;
        if (type == SP_C) {
            ((float *)ap)[0] = (float)rr, ((float *)ap)[1] = (float)ri;
        } else {
            ((double *)ap)[0] = rr, ((double *)ap)[1] = ri;
        }
        return;
    }
    }
}

static size_t elem_size(sp_type type)
{
    switch (type) {
    case SP_D:
    case SP_C: return 8;
    case SP_Z: return 16;
    default: return 4;
    }
}

int dmxsp_direct(const sp_call *c, const int *grid, char *msg, size_t len)
{
    const int nprow = grid[0], npcol = grid[1], myrow = grid[2], mycol = grid[3];
    const int tran = c->routine == SP_TRAN;
    if ((c->routine != SP_GEMR2D && !tran) || (int64_t)c->m * c->n > SP_DIRECT_MAX)
        return 0;
    /* one grid: both descriptors on the context (p?tran: C's, which is the context) */
    if (c->descsrc[1] != c->ictxt || c->descdst[1] != c->ictxt)
        return 0;
    const dmx_dtype dtype = c->type == SP_D   ? DMX_DOUBLE
                            : c->type == SP_C ? DMX_CFLOAT
                            : c->type == SP_Z ? DMX_CDOUBLE
                                              : DMX_FLOAT;
    if (!dmx_transform_once_is_local(dtype, c->m, c->n))
        return 0;
    const int m = c->m, n = c->n;
    dside a, b; /* a: the target (m x n), b: the source (m x n, or n x m for p?tran) */
    /* 9 integers only (p?tran*: DTYPE 1; 11 integers or a bad DTYPE take the other paths) */
    if (!side_of(c->descdst, tran, c->idst, c->jdst, m, n, nprow, npcol, &a) ||
        !side_of(c->descsrc, tran, c->isrc, c->jsrc, tran ? n : m, tran ? m : n, nprow, npcol, &b))
        return 0;
    if (!all_local(&a, &b, tran, m, n, nprow, npcol))
        return 0;

    /* This process's own arguments, as the layouts of the other paths check them (A's and B's
     * arrays reach to the submatrices' last row and column). */
    const int64_t arows = local_extent(a.i0 + m, a.mb, myrow, a.rsrc, nprow);
    const int64_t brows = local_extent(b.i0 + (tran ? n : m), b.mb, myrow, b.rsrc, nprow);
    if (arows > 0 && a.lld < arows) {
        snprintf(msg, len, "LLD of the target = %lld is smaller than its %lld local rows",
                 (long long)a.lld, (long long)arows);
        return -1;
    }
    if (brows > 0 && b.lld < brows) {
        snprintf(msg, len, "LLD of the source = %lld is smaller than its %lld local rows",
                 (long long)b.lld, (long long)brows);
        return -1;
    }

    /* A's rows this process owns, with A's and B's local indices for each (op N: B's row of
     * the same i; op T/C: B's column i); then the same along the columns. */
    int ri[SP_DIRECT_MAX], rb[SP_DIRECT_MAX], ci[SP_DIRECT_MAX], cb[SP_DIRECT_MAX];
    int nr = 0, nc = 0;
    for (int i = 0; i < m; i++) {
        int la = mine_or_none(a.i0 + i, a.mb, a.rsrc, nprow, myrow);
        if (la < 0)
            continue;
        ri[nr] = la;
        rb[nr++] = tran ? local_index(b.j0 + i, b.nb, npcol) : local_index(b.i0 + i, b.mb, nprow);
    }
    for (int j = 0; j < n; j++) {
        int la = mine_or_none(a.j0 + j, a.nb, a.csrc, npcol, mycol);
        if (la < 0)
            continue;
        ci[nc] = la;
        cb[nc++] = tran ? local_index(b.i0 + j, b.mb, nprow) : local_index(b.j0 + j, b.nb, npcol);
    }
    if (nr == 0 || nc == 0)
        return 1;
    if (c->dst == NULL || c->src == NULL) {
        snprintf(msg, len, "the %s array is NULL on a process that holds part of it",
                 c->dst == NULL ? "target" : "source");
        return -1;
    }
    const size_t es = elem_size(c->type);
    const int conj = tran && c->op == DMX_OP_C;
    char *ap = c->dst;
    const char *bp = c->src;
    /* The two arrays' spans meet (one array given twice: an in-place p?tran, or parts of one
     * array): every element of B this process reads is copied aside first (at most
     * SP_DIRECT_MAX elements, 16 KiB on the stack), so no element is read after this call wrote
     * it. The decision is this process's own, and it changes nothing the others see. */
    int snap = 0;
    {
        int64_t r0 = ri[0], r1 = ri[0], c0 = ci[0], c1 = ci[0];
        int64_t s0 = rb[0], s1 = rb[0], t0 = cb[0], t1 = cb[0];
        for (int p = 1; p < nr; p++) {
            r0 = ri[p] < r0 ? ri[p] : r0, r1 = ri[p] > r1 ? ri[p] : r1;
            s0 = rb[p] < s0 ? rb[p] : s0, s1 = rb[p] > s1 ? rb[p] : s1;
        }
        for (int q = 1; q < nc; q++) {
            c0 = ci[q] < c0 ? ci[q] : c0, c1 = ci[q] > c1 ? ci[q] : c1;
            t0 = cb[q] < t0 ? cb[q] : t0, t1 = cb[q] > t1 ? cb[q] : t1;
        }
        /* B's element (p, q) sits at rb + cb lld (op N) or cb + rb lld (op T/C) */
        uintptr_t alo = (uintptr_t)ap + (uintptr_t)(r0 + c0 * a.lld) * es;
        uintptr_t ahi = (uintptr_t)ap + (uintptr_t)(r1 + c1 * a.lld + 1) * es;
        uintptr_t blo = (uintptr_t)bp + (uintptr_t)(tran ? t0 + s0 * b.lld : s0 + t0 * b.lld) * es;
        uintptr_t bhi =
            (uintptr_t)bp + (uintptr_t)((tran ? t1 + s1 * b.lld : s1 + t1 * b.lld) + 1) * es;
        snap = alo < bhi && blo < ahi;
    }
    _Alignas(16) char saved[SP_DIRECT_MAX * 16];
    for (int pass = snap ? 0 : 1; pass < 2; pass++) {
        for (int q = 0; q < nc; q++) {
            for (int p = 0; p < nr; p++) {
                /* op N: B(rb[p], cb[q]); op T/C: B(cb[q], rb[p]), B's row from A's column */
                const int64_t boff =
                    tran ? cb[q] + (int64_t)rb[p] * b.lld : rb[p] + (int64_t)cb[q] * b.lld;
                const char *src = bp + (size_t)boff * es;
                char *keep = saved + ((size_t)q * (size_t)nr + (size_t)p) * es;
                if (pass == 0) { /* B's elements aside */
                    memcpy(keep, src, es);
                    continue;
                }
                if (snap)
                    src = keep;
                char *dst = ap + (size_t)(ri[p] + (int64_t)ci[q] * a.lld) * es;
                if (tran)
                    apply(c->type, conj, c->alpha, c->beta, src, dst);
                else /* p?gemr2d copies bits (integers travel as floats elsewhere in dmx, too) */
                    memcpy(dst, src, es);
            }
        }
    }
    return 1;
}
