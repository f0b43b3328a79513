/* SPDX-License-Identifier: BSD-3-Clause */
/* Packages: the pieces of one peer grouped into one message image.
 *
 * Both sides of a pair must lay out a package alike without talking: they hold the same
 * rectangles (from the overlay or the directory), cut them the same way (split_pieces, by the
 * agreed chunk size), sort them by the same key (cmp_piece) and give them the same byte
 * offsets (make_peers). The engine (src/exec/) then moves the packages.
 *
 * Cost per rank: O(q log q) for q pieces (the sort), O(q) for the cut and the offsets; no
 * communication. Memory: the cut list replaces the uncut one (about 64 bytes per piece) and one
 * dmxi_peer (about 140 bytes) per peer.
 */
#include "plan.h"

#include <stddef.h>
#include <string.h>

typedef dmxi_piece_list piece_list;

/* ---- enumeration ---------------------------------------------------------------------------- */

dmx_status dmxi_piece_push(dmxi_piece_list *l, const dmxi_piece *pc)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v));
    l->v[l->n++] = *pc;
cleanup:
    return st;
}

dmx_status dmxi_local_push(dmxi_local_list *l, const dmxi_local *lp)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v));
    l->v[l->n++] = *lp;
cleanup:
    return st;
}

/* Both sides order a package the same way: by transform, then A column, then A row. Going
 * down columns keeps consecutive pieces on the same memory pages on both sides (a block
 * column's next piece continues the same columns), which matters more than anything else for
 * the small tiles block-cyclic layouts produce. For op T and C (rowwise) the sender reads B's
 * columns for A's rows: there the order is by A row, then A column, so that consecutive pieces
 * continue B's columns on the sender, whose reads cost more than the receiver's streamed
 * writes. Measured on the default case (dmx bench redist, 2 x 2, 4096^2 doubles, 32 -> 128
 * blocks, op T, 6 interleaved rounds): 25.5-26.7 ms against 27.3-28.0, the pack's CPU time per
 * rank 4.5-5.0 ms against 5.8-6.1. */
static int cmp_piece(const void *x, const void *y)
{
    const dmxi_piece *a = x, *b = y;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    const int64_t a1 = a->rowwise ? a->r0 : a->c0, b1 = b->rowwise ? b->r0 : b->c0;
    const int64_t a2 = a->rowwise ? a->c0 : a->r0, b2 = b->rowwise ? b->c0 : b->r0;
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    if (a2 != b2)
        return a2 < b2 ? -1 : 1;
    return 0;
}

static int cmp_local(const void *x, const void *y)
{
    const dmxi_local *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->c0 != b->c0)
        return a->c0 < b->c0 ? -1 : 1;
    return a->r0 < b->r0 ? -1 : a->r0 > b->r0;
}

/* Memory offset of the element di rows and dj columns further inside the same block. */
static void mem_shift(dmxi_mem *m, int64_t di, int64_t dj)
{
    m->off += dmxi_elem_off(m->order, m->ld, di, dj);
}

/* Rounded down to a multiple of 16 elements (a cache line of floats, two of doubles) when it is
 * at least that, so that tile edges inside a column fall on the same alignment as its start. */
static int64_t round16(int64_t k)
{
    return k >= 16 ? k & ~(int64_t)15 : k;
}

/* How a rows x cols piece of es-byte elements is cut for max_bytes (see plan.h). */
dmx_status dmxi_piece_cut_shape(dmx_op op, int64_t rows, int64_t cols, int64_t es,
                                int64_t max_bytes, int64_t *rows_per, int64_t *cols_per,
                                int64_t *count)
{
    const int64_t cap = max_bytes / es > 0 ? max_bytes / es : 1; /* elements per sub-piece */
    *cols_per = cols, *rows_per = rows, *count = 1;
    if (rows == 0 || cols == 0 || rows <= cap / cols)
        return DMX_SUCCESS;
    if (op == DMX_OP_N) {
        /* Whole columns, or runs of one column when a column alone is too large: contiguous on
         * both sides for column-major blocks. */
        *cols_per = 1;
        if (rows <= cap)
            *cols_per = cap / rows;
        else
            *rows_per = cap;
    } else {
        /* A column of A is a row of B: square tiles keep both sides' accesses whole cache lines
         * (a column would read one element of B per column of B, a page apart for large B). */
        int64_t lo = 1, hi = cap < ((int64_t)1 << 31) ? cap : ((int64_t)1 << 31);
        while (lo < hi) { /* the largest side with side^2 <= cap */
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (mid <= cap / mid)
                lo = mid;
            else
                hi = mid - 1;
        }
        const int64_t side = round16(lo);
        if (cols <= side) {
            *rows_per = round16(cap / cols);
        } else if (rows <= cap / side) {
            *cols_per = cap / rows; /* at least side (rows <= side included) */
        } else {
            *rows_per = round16(cap / side);
            *cols_per = side;
        }
    }
    return dmxi_mul64((cols - 1) / *cols_per + 1, (rows - 1) / *rows_per + 1, count);
}

/* Cut every piece whose wire image (rows x cols, column-major) is larger than max_bytes into
 * sub-rectangles of at most max_bytes (dmxi_piece_cut_shape: columns for op N, square tiles for
 * op T and C). The cut depends only on the piece and its op, which both sides know, so sender and
 * receiver cut alike and the package order (cmp_piece) stays the same on both sides. is_send:
 * mem is B's memory (else A's). Replaces l->v. The number of sub-pieces is computed before
 * anything is cut (no loop in proportion to the data): more than an array can hold fails with
 * DMX_ERR_OVERFLOW, else the list takes about 64 bytes per sub-piece. */
static dmx_status split_pieces(const dmxi_xform *xf, piece_list *l, int is_send, int64_t max_bytes)
{
    dmx_status st = DMX_SUCCESS;
    int64_t n = 0, cols_per = 0, rows_per = 0, cnt = 0;
    dmxi_piece *v = NULL;
    for (int64_t i = 0; i < l->n; i++) {
        const dmxi_piece *pc = &l->v[i];
        if (xf[pc->t].runs) { /* cut by the run overlay already */
            n++;
            continue;
        }
        DMXI_TRY(dmxi_piece_cut_shape(xf[pc->t].t.op, pc->rows, pc->cols, (int64_t)xf[pc->t].esize,
                                      max_bytes, &rows_per, &cols_per, &cnt));
        DMXI_TRY(dmxi_add64(n, cnt, &n));
    }
    if (n == l->n)
        return DMX_SUCCESS; /* nothing to cut */
    DMXI_CHECK((uint64_t)n <= (uint64_t)PTRDIFF_MAX / sizeof *v, DMX_ERR_OVERFLOW,
               "%lld pieces of at most %lld bytes are more than an array can hold", (long long)n,
               (long long)max_bytes);
    v = dmxi_malloc(n, sizeof *v);
    DMXI_CHECK(v, DMX_ERR_ALLOC, "out of memory for %lld pieces", (long long)n);
    int64_t k = 0;
    for (int64_t i = 0; i < l->n; i++) {
        const dmxi_piece *pc = &l->v[i];
        const dmx_op op = xf[pc->t].t.op;
        cnt = 1;
        if (!xf[pc->t].runs)
            DMXI_TRY(dmxi_piece_cut_shape(op, pc->rows, pc->cols, (int64_t)xf[pc->t].esize,
                                          max_bytes, &rows_per, &cols_per, &cnt));
        if (cnt == 1) {
            v[k++] = *pc;
            continue;
        }
        const int64_t rows = pc->rows, cols = pc->cols;
        for (int64_t j0 = 0; j0 < cols; j0 += cols_per)
            for (int64_t i0 = 0; i0 < rows; i0 += rows_per, k++) {
                dmxi_piece s = *pc;
                s.r0 += i0, s.c0 += j0;
                s.rows = rows - i0 < rows_per ? rows - i0 : rows_per;
                s.cols = cols - j0 < cols_per ? cols - j0 : cols_per;
                /* a send piece's memory is B's: step through op(B) */
                int64_t di = i0, dj = j0;
                if (is_send)
                    dmxi_opb_coords(op, i0, j0, &di, &dj);
                mem_shift(&s.mem, di, dj);
                v[k] = s;
            }
    }
    free(l->v);
    l->v = v, l->n = l->cap = n;
    v = NULL;
cleanup:
    free(v);
    return st;
}

/* Group sorted pieces into peers and lay out each peer's message: byte offsets of its pieces
 * (each transform's part starts 16-byte aligned so every element type stays aligned). */
static dmx_status make_peers(const dmxi_xform *xf, dmxi_piece *v, int64_t n, dmxi_peer **peers,
                             int *npeer)
{
    dmx_status st = DMX_SUCCESS;
    int np = 0;
    dmxi_peer *pv = NULL;
    for (int64_t i = 0; i < n; i++)
        v[i].rowwise = xf[v[i].t].t.op != DMX_OP_N && !xf[v[i].t].runs;
    if (n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_piece);
    for (int64_t i = 0; i < n; i++)
        np += (i == 0 || v[i].peer != v[i - 1].peer);
    pv = dmxi_calloc(np, sizeof *pv);
    DMXI_CHECK(pv, DMX_ERR_ALLOC, "out of memory for %d peers", np);
    np = 0;
    for (int64_t i = 0; i < n;) {
        dmxi_peer *q = &pv[np++];
        q->rank = v[i].peer;
        q->first = i;
        int64_t b = 0;
        int lastt = -1;
        for (; i < n && v[i].peer == q->rank; i++) {
            if (v[i].t != lastt) {
                b = (b + 15) & ~(int64_t)15;
                lastt = v[i].t;
            }
            int64_t sz;
            DMXI_TRY(dmxi_mul64(v[i].rows, v[i].cols, &sz));
            DMXI_TRY(dmxi_mul64(sz, (int64_t)xf[v[i].t].esize, &sz));
            v[i].boff = b;
            DMXI_TRY(dmxi_add64(b, sz, &b));
        }
        q->count = i - q->first;
        q->bytes = b;
    }
    *peers = pv;
    *npeer = np;
    pv = NULL;
cleanup:
    free(pv);
    return st;
}

dmx_status dmxi_packages_make(const dmxi_xform *xf, dmxi_piece_list *send, dmxi_piece_list *recv,
                              dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(split_pieces(xf, send, 1, e->chunk_bytes));
    DMXI_TRY(split_pieces(xf, recv, 0, e->chunk_bytes));
    DMXI_TRY(make_peers(xf, send->v, send->n, &e->speer, &e->nspeer));
    DMXI_TRY(make_peers(xf, recv->v, recv->n, &e->rpeer, &e->nrpeer));
cleanup:
    return st;
}

void dmxi_packages_sort_local(dmxi_local *v, int64_t n)
{
    if (n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_local);
}
