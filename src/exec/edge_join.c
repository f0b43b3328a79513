/* SPDX-License-Identifier: BSD-3-Clause */
/* Edge lines shared by a received piece and a local rectangle, written whole (issue 33).
 *
 * With A off a cache line (plain malloc arrays sit 16 bytes into one), each column run of a
 * piece starts and ends inside a line whose other part belongs to the rectangle above or below.
 * Streamed, such a partial line costs the memory side a read-modify-write each time one of its
 * two writers stores its part (docs/exec.md, "Edge lines"). When the neighbour is a rectangle
 * that stays on this rank, its elements are at hand whenever the piece arrives (they come
 * straight from B). So the piece's unpack writes every shared line whole: the neighbour's few
 * elements (op(B), copied from B) and the piece's own into a line-wide buffer, then one
 * non-temporal store of the whole line; the local rectangle leaves those rows out. Lines between
 * two received pieces (two peers' data, at two times) stay partial.
 *
 * Setup pairs them by A's memory: a piece whose first row continues the last row of a local
 * rectangle's columns (or whose last row runs into its first), within the rectangle's columns;
 * only where such pieces cover the rectangle's whole edge, so that its rows are cut alike over
 * all its columns. Alignment is read at each execution (the drop-in rebinds the arrays of a kept
 * plan), from the boundary's address, by both sides alike, so each element is written by exactly
 * one of them. Active only where the plan streams A's writes with beta = 0 and alpha = 1 (the
 * kernels' streamed path), one transform, plain rectangles (not run-compressed), column-major A
 * with ld a whole number of lines, and both sides at least two lines tall. Memory: 16 bytes per
 * received piece and 1 byte per local rectangle, kept only when some pair exists (setup also
 * needs 96 bytes per local rectangle for a moment); a 4 KiB buffer on the stack per piece. */
#include "engine.h"
#include "kernels.h"
#include "ntstore.h"

#include <stdlib.h>
#include <string.h>

#define MIN64(a, b) ((a) < (b) ? (a) : (b))

/* Columns of a piece composed per pass (JOIN_COLS lines of 64 bytes on the stack). */
#define JOIN_COLS 64

/* ljoin flags: a received piece completes this rectangle's top (bottom) line. */
enum { JOIN_TOP = 1, JOIN_BOTTOM = 2 };

/* A local rectangle's edge row in A's memory: block lbk, the row just below it (its end) or its
 * first row, its columns [col, col + cols); i its index. */
typedef struct lkey {
    int64_t lbk, row, col, cols, i;
} lkey;

static int cmp_lkey(const void *pa, const void *pb)
{
    const lkey *a = pa, *b = pb;
    if (a->lbk != b->lbk)
        return a->lbk < b->lbk ? -1 : 1;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return a->col < b->col ? -1 : a->col > b->col;
}

/* The rectangle among k[0, n) whose edge is row `row` of block lbk over columns that include
 * [col, col + cols), or -1. */
static int64_t find_edge(const lkey *k, int64_t n, int64_t lbk, int64_t row, int64_t col,
                         int64_t cols)
{
    int64_t lo = 0, hi = n; /* first key above (lbk, row, col) */
    const lkey want = {lbk, row, col, 0, 0};
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cmp_lkey(&k[mid], &want) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const lkey *c = &k[lo - 1];
    return c->lbk == lbk && c->row == row && c->col <= col && col + cols <= c->col + c->cols ? c->i
                                                                                             : -1;
}

/* A's memory of a side that can take part: column-major, every column at the same offset in a
 * line, at least two lines tall. */
static int joinable(const dmxi_xform *x, const dmxi_mem *m, int64_t r0, int64_t c0, int64_t rows,
                    int64_t cols)
{
    const int64_t esz = (int64_t)x->esize;
    return m->order == DMX_COL_MAJOR && (m->ld * esz) % DMXI_NT_LINE == 0 &&
           rows * esz >= 2 * DMXI_NT_LINE && dmxi_trapezoid_inside(&x->t, r0, c0, rows, cols);
}

dmx_status dmxi_exec_join_edges(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    lkey *start = NULL, *end = NULL;
    int64_t *cover = NULL; /* per rectangle: columns of joinable pieces above, below */
    const dmxi_xform *x = &e->xf[0];
    if (!e->stream || e->nt != 1 || e->nrecv == 0 || e->nlocal == 0 || x->runs ||
        DMXI_NT_LINE % x->esize != 0)
        return st;
    start = malloc((size_t)e->nlocal * sizeof *start);
    end = malloc((size_t)e->nlocal * sizeof *end);
    cover = calloc((size_t)e->nlocal * 2, sizeof *cover);
    DMXI_CHECK(start != NULL && end != NULL && cover != NULL, DMX_ERR_ALLOC,
               "out of memory pairing %lld local rectangles with received pieces",
               (long long)e->nlocal);
    int64_t n = 0;
    for (int64_t i = 0; i < e->nlocal; i++) {
        const dmxi_local *L = &e->local[i];
        if (!joinable(x, &L->amem, L->r0, L->c0, L->rows, L->cols))
            continue;
        const int64_t ld = L->amem.ld, row = L->amem.off % ld, col = L->amem.off / ld;
        start[n] = (lkey){L->amem.lbk, row, col, L->cols, i};
        end[n] = (lkey){L->amem.lbk, row + L->rows, col, L->cols, i};
        n++;
    }
    qsort(start, (size_t)n, sizeof *start, cmp_lkey);
    qsort(end, (size_t)n, sizeof *end, cmp_lkey);
    /* pass 0: how many columns of each rectangle's top and bottom edge pieces cover; pass 1:
     * join the pieces along the edges they cover whole (the rectangle's rows are then cut over
     * all its columns) */
    int64_t pairs = 0;
    for (int pass = 0; pass < 2 && n > 0; pass++) {
        if (pass == 1) {
            for (int64_t i = 0; i < e->nlocal; i++)
                pairs +=
                    (cover[2 * i] == e->local[i].cols) + (cover[2 * i + 1] == e->local[i].cols);
            if (pairs == 0)
                break;
            e->rjoin = malloc((size_t)e->nrecv * sizeof *e->rjoin);
            e->ljoin = calloc((size_t)e->nlocal, 1);
            DMXI_CHECK(e->rjoin != NULL && e->ljoin != NULL, DMX_ERR_ALLOC,
                       "out of memory pairing %lld received pieces", (long long)e->nrecv);
        }
        for (int64_t p = 0; p < e->nrecv; p++) {
            const dmxi_piece *pc = &e->recv[p];
            int64_t up = -1, down = -1;
            if (joinable(x, &pc->mem, pc->r0, pc->c0, pc->rows, pc->cols)) {
                const int64_t ld = pc->mem.ld, row = pc->mem.off % ld, col = pc->mem.off / ld;
                up = find_edge(end, n, pc->mem.lbk, row, col, pc->cols);
                down = find_edge(start, n, pc->mem.lbk, row + pc->rows, col, pc->cols);
                if (up >= 0 && e->local[up].amem.ld != ld)
                    up = -1;
                if (down >= 0 && e->local[down].amem.ld != ld)
                    down = -1;
            }
            if (pass == 0) {
                if (up >= 0)
                    cover[2 * up + 1] += pc->cols; /* the rectangle's bottom */
                if (down >= 0)
                    cover[2 * down] += pc->cols;
                continue;
            }
            if (up >= 0 && cover[2 * up + 1] != e->local[up].cols)
                up = -1;
            if (down >= 0 && cover[2 * down] != e->local[down].cols)
                down = -1;
            e->rjoin[p] = (dmxi_join){up, down};
            if (up >= 0)
                e->ljoin[up] |= JOIN_BOTTOM;
            if (down >= 0)
                e->ljoin[down] |= JOIN_TOP;
        }
    }
cleanup:
    free(start);
    free(end);
    free(cover);
    if (st != DMX_SUCCESS) {
        free(e->rjoin), free(e->ljoin);
        e->rjoin = NULL, e->ljoin = NULL;
    }
    return st;
}

void dmxi_exec_join_begin(dmxi_exec *e)
{
    e->join_on = 0;
    if (e->rjoin == NULL)
        return;
    const dmx_transform *t = &e->xf[0].t;
    e->join_on = t->alpha.re == 1.0 && t->alpha.im == 0.0 && t->beta.re == 0.0 && t->beta.im == 0.0;
}

/* Elements of the line holding address b that lie before b (0 when b is off an element
 * boundary of esz bytes: then no line is joined). Both sides of a boundary call it alike. */
static int64_t before(const char *b, int64_t esz)
{
    const uintptr_t a = (uintptr_t)b;
    return a % (uintptr_t)esz != 0 ? 0 : (int64_t)(a % DMXI_NT_LINE) / esz;
}

void dmxi_exec_join_cuts(const dmxi_exec *e, const dmxi_local *lp, int64_t *top, int64_t *bot)
{
    const dmxi_xform *x = &e->xf[lp->t];
    const int64_t esz = (int64_t)x->esize, lel = DMXI_NT_LINE / esz;
    const unsigned flags = e->ljoin[lp - e->local];
    const char *a = dmxi_layout_addr(x->t.a, &lp->amem, x->esize);
    *top = *bot = 0;
    if (flags & JOIN_TOP) {
        const int64_t k = before(a, esz); /* the piece above keeps k elements of the line */
        *top = k ? lel - k : 0;
    }
    if (flags & JOIN_BOTTOM)
        *bot = before(a + lp->rows * esz, esz);
}

/* Where op(B)'s elements of local rectangle lp are: the address of (r, c) and the byte steps
 * to (r + 1, c) and (r, c + 1). */
typedef struct opb_at {
    const char *p;
    int64_t rstep, cstep;
} opb_at;

static opb_at opb_where(const dmxi_xform *x, const dmxi_local *lp, int64_t r, int64_t c)
{
    const int64_t esz = (int64_t)x->esize;
    int64_t si, sj, s1, s2;
    dmxi_opb_coords(x->t.op, r, c, &si, &sj);
    opb_at w;
    w.p = dmxi_layout_addr(x->t.b, &lp->bmem, x->esize) +
          dmxi_elem_off(lp->bmem.order, lp->bmem.ld, si, sj) * esz;
    dmxi_opb_coords(x->t.op, 1, 0, &s1, &s2);
    w.rstep = dmxi_elem_off(lp->bmem.order, lp->bmem.ld, s1, s2) * esz;
    dmxi_opb_coords(x->t.op, 0, 1, &s1, &s2);
    w.cstep = dmxi_elem_off(lp->bmem.order, lp->bmem.ld, s1, s2) * esz;
    return w;
}

static void prefetch_bytes(const char *p, int64_t n)
{
    const uintptr_t a0 = (uintptr_t)p & ~(uintptr_t)(DMXI_NT_LINE - 1);
    for (uintptr_t a = a0; a < (uintptr_t)p + (uintptr_t)n; a += DMXI_NT_LINE)
        __builtin_prefetch((const void *)a, 0, 3);
}

/* Column of local rectangle lp where piece pc's columns start (pc lies above or below it). */
static int64_t col_in(const dmxi_local *lp, const dmxi_piece *pc)
{
    return pc->mem.off / pc->mem.ld - lp->amem.off / lp->amem.ld;
}

/* Prefetch op(B)'s rows [r, r + nr) x columns [c0, c0 + cols) of lp: the elements a piece's joined
 * lines will take from the rectangle, not in the caches when the piece arrives. */
static void prefetch_rows(const dmxi_xform *x, const dmxi_local *lp, int64_t r, int64_t nr,
                          int64_t c0, int64_t cols)
{
    const int64_t esz = (int64_t)x->esize;
    const opb_at w = opb_where(x, lp, r, c0);
    if (w.rstep == esz) {
        for (int64_t c = 0; c < cols; c++)
            prefetch_bytes(w.p + c * w.cstep, nr * esz);
    } else if (w.cstep == esz) {
        for (int64_t i = 0; i < nr; i++)
            prefetch_bytes(w.p + i * w.rstep, cols * esz);
    }
}

/* Prefetch what piece pc's joined lines take from its local neighbours. */
static void join_prefetch(const dmxi_exec *e, const dmxi_piece *pc)
{
    const dmxi_join *j = &e->rjoin[pc - e->recv];
    const dmxi_xform *x = &e->xf[pc->t];
    const int64_t esz = (int64_t)x->esize, lel = DMXI_NT_LINE / esz;
    const char *a = dmxi_layout_addr(x->t.a, &pc->mem, x->esize);
    if (j->above >= 0) {
        const dmxi_local *lp = &e->local[j->above];
        const int64_t k = before(a, esz);
        if (k)
            prefetch_rows(x, lp, lp->rows - k, k, col_in(lp, pc), pc->cols);
    }
    if (j->below >= 0) {
        const dmxi_local *lp = &e->local[j->below];
        const int64_t tail = before(a + pc->rows * esz, esz);
        if (tail)
            prefetch_rows(x, lp, 0, lel - tail, col_in(lp, pc), pc->cols);
    }
}

/* n elements of esz bytes from s (step sstep bytes) to d, one per line of the buffer. One branch
 * per size so that each element's copy is a fixed-size move, not a call to memcpy. */
static void scatter_row(char *restrict d, const char *restrict s, int64_t sstep, int64_t n,
                        int64_t esz)
{
    if (esz == 8) {
        for (int64_t c = 0; c < n; c++)
            memcpy(d + c * DMXI_NT_LINE, s + c * sstep, 8);
    } else if (esz == 4) {
        for (int64_t c = 0; c < n; c++)
            memcpy(d + c * DMXI_NT_LINE, s + c * sstep, 4);
    } else {
        for (int64_t c = 0; c < n; c++)
            memcpy(d + c * DMXI_NT_LINE, s + c * sstep, 16);
    }
}

/* Conjugates rows [0, nl) of the nc lines of a join buffer from d (complex floats or doubles). */
static void conj_rows(char *d, int64_t nc, int64_t nl, dmx_dtype dt)
{
    for (int64_t c = 0; c < nc; c++, d += DMXI_NT_LINE)
        for (int64_t i = 0; i < nl; i++) {
            if (dt == DMX_CFLOAT)
                ((float *)(void *)d)[2 * i + 1] = -((float *)(void *)d)[2 * i + 1];
            else
                ((double *)(void *)d)[2 * i + 1] = -((double *)(void *)d)[2 * i + 1];
        }
}

/* The lines of piece pc that hold its rows [pr, pr + np) and rows [lr, lr + nl) of local
 * rectangle lp (the rectangle's first when lfirst), for all columns: composed in a buffer,
 * then each stored whole at line (line-aligned address of the line in column 0). src is the
 * piece's wire image (column-major, ld = rows). alpha = 1, beta = 0 (dmxi_exec_join_begin):
 * the piece's elements are copied as they are, the rectangle's are op(B) (conjugated for op C). */
static void join_lines(const dmxi_xform *x, const dmxi_piece *pc, const char *src,
                       const dmxi_local *lp, int64_t lr, int64_t nl, int64_t pr, int64_t np,
                       int lfirst, char *line)
{
    _Alignas(64) char buf[JOIN_COLS * DMXI_NT_LINE];
    const int64_t esz = (int64_t)x->esize, ld = pc->mem.ld;
    const int64_t loff = lfirst ? 0 : np * esz, poff = lfirst ? nl * esz : 0;
    const int conj = x->t.op == DMX_OP_C && (x->t.dtype == DMX_CFLOAT || x->t.dtype == DMX_CDOUBLE);
    const opb_at w = opb_where(x, lp, lr, col_in(lp, pc));
    for (int64_t j0 = 0; j0 < pc->cols; j0 += JOIN_COLS) {
        const int64_t nc = MIN64(JOIN_COLS, pc->cols - j0);
        const char *bs = w.p + j0 * w.cstep;
        if (w.rstep == esz)
            for (int64_t c = 0; c < nc; c++)
                memcpy(buf + c * DMXI_NT_LINE + loff, bs + c * w.cstep, (size_t)(nl * esz));
        else
            for (int64_t i = 0; i < nl; i++) /* op(B)'s row i along one line of B, or strided */
                scatter_row(buf + loff + i * esz, bs + i * w.rstep, w.cstep, nc, esz);
        if (conj)
            conj_rows(buf + loff, nc, nl, x->t.dtype);
        const char *ps = src + (pr + j0 * pc->rows) * esz;
        for (int64_t c = 0; c < nc; c++)
            memcpy(buf + c * DMXI_NT_LINE + poff, ps + c * pc->rows * esz, (size_t)(np * esz));
        for (int64_t c = 0; c < nc; c++)
            dmxi_nt_copy(line + (j0 + c) * ld * esz, buf + c * DMXI_NT_LINE, DMXI_NT_LINE);
    }
}

void dmxi_exec_join_piece(const dmxi_exec *e, const dmxi_piece *pc, const char *src, int64_t *head,
                          int64_t *tail)
{
    const int64_t idx = pc - e->recv;
    const dmxi_join *j = &e->rjoin[idx];
    *head = *tail = 0;
    if (j->above < 0 && j->below < 0)
        return;
    if (idx + 1 < e->nrecv)
        join_prefetch(e, pc + 1);
    const dmxi_xform *x = &e->xf[pc->t];
    const int64_t esz = (int64_t)x->esize, lel = DMXI_NT_LINE / esz;
    char *a = dmxi_layout_addr(x->t.a, &pc->mem, x->esize);
    if (j->above >= 0) {
        const int64_t k = before(a, esz); /* elements of the rectangle above in the line */
        if (k) {
            *head = lel - k;
            join_lines(x, pc, src, &e->local[j->above], e->local[j->above].rows - k, k, 0, *head, 1,
                       a - k * esz);
        }
    }
    if (j->below >= 0) {
        const int64_t t = before(a + pc->rows * esz, esz);
        if (t)
            join_lines(x, pc, src, &e->local[j->below], 0, lel - t, pc->rows - t, t, 0,
                       a + (pc->rows - t) * esz);
        *tail = t;
    }
}
