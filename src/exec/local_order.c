/* SPDX-License-Identifier: BSD-3-Clause */
/* The shape and order of the rectangles local in both layouts (exec.h: e->local), fixed once at
 * an engine's setup.
 *
 * The planner gives one rectangle per pair of blocks, sorted by (transform, A column, A row).
 * Two things make that slow when blocks are small:
 *  - Every rectangle's columns start and end inside cache lines of A wherever A's blocks do
 *    (plain malloc arrays sit 16 bytes off a line): the partial lines at both ends are stored
 *    apart, by different rectangles, and each costs the memory a read-modify-write. With
 *    32 x 32 double blocks that is half of A's lines; an all-local copy took 1.9x its time
 *    with the arrays on a line, a transpose 2.2x.
 *  - For op T or C, walking down A's columns reads B across its columns: every rectangle
 *    reads short pieces of as many of B's columns as it has rows, on as many pages, and comes
 *    back to them a whole column of rectangles later.
 *
 * Algorithm.
 *  1. Merge: rectangles of one transform that continue each other down A (same columns, the
 *     next rows) and whose memories continue too (A's rows further down its column; op(B)'s
 *     likewise: B's rows for op N, B's columns for op T and C) become one rectangle, up to
 *     MERGE_COL_BYTES of a column and MERGE_COL_BYTES x MERGE_ROW_BYTES / element size in all.
 *     Transposing transforms are then also merged to the right (the next columns, both memories
 *     continuing), within the same total. With the same blocking on both sides, or block sizes
 *     that divide each other, a rank's whole local array becomes rectangles of 4 KiB columns (1
 *     KiB for copies: measured faster), and the engine still looks at its peers between them (a
 *     rectangle is at most 4 MiB of work).
 *  2. Order transposing transforms by bands of BAND_BYTES / element size rows and columns of A
 *     (band of rows, band of columns, then row, then column), so consecutive rectangles go
 *     across A's rows, that is down B's columns, reading each of B's columns in order while
 *     the transposing kernel writes A's lines whole (kernels_transpose.c).
 *  3. Cut copying transforms' rectangles into COPY_COLS columns at most (those whose columns
 *     hold COPY_CUT_MIN_RUN bytes or more) and order them by band of COPY_COLS columns, then as
 *     before (down the band's columns).
 * Rectangles of one transform write disjoint parts of A, so any order, any merge of continuing
 * rectangles and any cut of one is correct; a merged or cut rectangle is the same kernel call on
 * another tile (views and trapezoids are cut per rectangle in A's coordinates, engine.c).
 * Measured on 4096^2 doubles, one rank, one thread, identical layouts, plain malloc arrays (dmx
 * bench redist --case same, with the line walk of kernels_transpose.c, 3 interleaved rounds):
 * 32 x 32 blocks copy 25.3-28.0 -> 14.1-14.5 ms, transpose 43.6-45.8 -> 18.5-19.6 ms; 128 x 128
 * blocks copy 16.0-16.6 -> 16.6-17.3 ms, transpose 25.4-26.9 -> 19.3-20.1 ms (docs/exec.md).
 * Cost: O(n + rows / band + columns / band + band) once, at setup, for n rectangles, and
 * O(k + columns / COPY_COLS) for the k pieces of cut copies; memory: a scratch copy of the
 * rectangles, freed before return, and the cut pieces' array in place of the rectangles' (at most
 * one entry more per 8 KiB of A).
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of A's rows (and columns) in one band. */
#define BAND_BYTES 4096
/* Local rectangles that continue each other down A's columns are merged up to this many bytes
 * of a column (op T or C, and op N) and of the whole rectangle. Measured on 4096^2 doubles, 32 x
 * 32 blocks, one thread: copies of 1 KiB columns took 14.7-15.0 ms, of 4 KiB 17.1-17.4, of 256
 * bytes 25.8-29.4; transposes of 4 KiB columns 1.1-1.15x the copy's time, of 16 and 64 KiB
 * columns 1.4 and 1.7x. */
#define MERGE_COL_BYTES 4096
#define MERGE_COL_BYTES_N 1024
/* And a rectangle holds at most MERGE_COL_BYTES of each column by MERGE_ROW_BYTES of each row:
 * 512 x 512 doubles (2 MiB), 1024 x 1024 floats (4 MiB), 256 x 256 complex doubles (1 MiB), the
 * width the transposes' line walk covers in one pass (kernels_avx.c, LINE_PASS_BYTES), so each
 * of its strips reads 4 KiB of each row of B it reads. Measured on 4096^2 arrays, one thread,
 * alternating with the earlier 1 MiB for every type (docs/exec.md): with 32 x 32 blocks double
 * transposes 18.5-19.6 against 19.5-20.6 ms and floats 8.0-8.3 against 9.6-9.8; copies unchanged;
 * 4 MiB of doubles no faster than 2. */
#define MERGE_ROW_BYTES 4096
/* Copies' rectangles are cut into this many columns at most and applied band of columns by band
 * (copy_order), so the column runs a rectangle writes are continued by the next rectangle's
 * after 32 runs, not after as many as a wide block has. Measured on 4096^2 doubles, one thread:
 * copies of 128 x 128 blocks 0.82-0.87x their time uncut (median of 8 rounds' ratios), like 32 x
 * 32 blocks' copies, which this leaves as they were; 16 columns no faster than 32. */
#define COPY_COLS 32
/* Only rectangles whose columns are at least this many bytes are cut, so that cutting adds at
 * most one entry (about 100 bytes) per 8 KiB of A: row-vector-like rectangles are not cut into a
 * plan that grows with their data. */
#define COPY_CUT_MIN_RUN 256

enum { KEY_ROW_IN_BAND, KEY_COL_BAND, KEY_ROW_BAND };

static int64_t sort_key(const dmxi_local *l, int key, int64_t band)
{
    return key == KEY_ROW_IN_BAND ? l->r0 % band
           : key == KEY_COL_BAND  ? l->c0 / band
                                  : l->r0 / band;
}

/* Stable counting sort of v[0, n) by one key with nk values, through tmp (n entries) and cnt
 * (nk + 1 entries). */
static void count_sort(dmxi_local *v, dmxi_local *tmp, int64_t n, int64_t *cnt, int64_t nk, int key,
                       int64_t band)
{
    memset(cnt, 0, (size_t)(nk + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++)
        cnt[sort_key(&v[i], key, band) + 1]++;
    for (int64_t k = 0; k < nk; k++)
        cnt[k + 1] += cnt[k];
    for (int64_t i = 0; i < n; i++)
        tmp[cnt[sort_key(&v[i], key, band)]++] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof *tmp);
}

/* Element offsets of one step down a row and one step along a column of memory m. */
static void mem_steps(const dmxi_mem *m, int64_t *down, int64_t *right)
{
    *down = dmxi_elem_off(m->order, m->ld, 1, 0);
    *right = dmxi_elem_off(m->order, m->ld, 0, 1);
}

/* Whether rectangle b continues rectangle a in A, downwards (the same columns, b's first row
 * right after a's last) or to the right (the same rows, b's first column right after a's last),
 * with both memories continuing too: A's elements further down (right), op(B)'s likewise (for
 * op T or C, B's columns for A's rows and B's rows for A's columns). For block-cyclic arrays
 * the memories continue whenever A does and both rectangles are local; the offsets are checked
 * all the same. */
static int continues(const dmxi_local *a, const dmxi_local *b, dmx_op op, int right)
{
    if (b->t != a->t || b->amem.lbk != a->amem.lbk || b->amem.ld != a->amem.ld ||
        b->amem.order != a->amem.order || b->bmem.lbk != a->bmem.lbk || b->bmem.ld != a->bmem.ld ||
        b->bmem.order != a->bmem.order)
        return 0;
    if (right ? b->r0 != a->r0 || b->rows != a->rows || b->c0 != a->c0 + a->cols
              : b->c0 != a->c0 || b->cols != a->cols || b->r0 != a->r0 + a->rows)
        return 0;
    int64_t ad, ar, bd, br;
    mem_steps(&a->amem, &ad, &ar);
    mem_steps(&a->bmem, &bd, &br);
    const int64_t k = right ? a->cols : a->rows, astep = right ? ar : ad;
    const int64_t bstep = (op == DMX_OP_N) != right ? bd : br;
    return b->amem.off == a->amem.off + k * astep && b->bmem.off == a->bmem.off + k * bstep;
}

/* Merge consecutive rectangles of v[0, n) (one transform) that continue each other downwards
 * (right = 0) or to the right (1), while a merged column stays within col_bytes and the
 * rectangle within MERGE_COL_BYTES x MERGE_ROW_BYTES / es bytes; returns the new count (order
 * kept). */
static int64_t merge(dmxi_local *v, int64_t n, dmx_op op, int64_t es, int right, int64_t col_bytes)
{
    int64_t w = 0;
    for (int64_t i = 0; i < n; i++) {
        if (w > 0 && continues(&v[w - 1], &v[i], op, right)) {
            dmxi_local *m = &v[w - 1];
            const int64_t rows = right ? m->rows : m->rows + v[i].rows;
            const int64_t cols = right ? m->cols + v[i].cols : m->cols;
            if (rows * es <= col_bytes &&
                rows * es * (cols * es) <= MERGE_COL_BYTES * MERGE_ROW_BYTES) {
                m->rows = rows, m->cols = cols;
                continue;
            }
        }
        v[w++] = v[i];
    }
    return w;
}

/* The rectangles v[0, *n) of one transposing transform of element size es (sorted by A column,
 * then A row, already merged downwards): merged to the right, then put in band order: by (band
 * of rows, band of columns, row, column). Five stable counting sorts, least significant key first,
 * give both orders: (row within its band, band of rows) gives (row, column) for the merge, then
 * (row within its band, band of columns, band of rows) the band order, in O(n + rows / band +
 * columns / band + band) time and one scratch copy of the rectangles. */
static dmx_status transpose_order(dmxi_local *v, int64_t *n, dmx_op op, int64_t es)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t band = BAND_BYTES / es > 0 ? BAND_BYTES / es : 1;
    int64_t rmax = 0, cmax = 0;
    for (int64_t i = 0; i < *n; i++) {
        rmax = v[i].r0 > rmax ? v[i].r0 : rmax;
        cmax = v[i].c0 > cmax ? v[i].c0 : cmax;
    }
    const int64_t nr = rmax / band + 1, nc = cmax / band + 1;
    const int64_t nk = band > nr ? (band > nc ? band : nc) : (nr > nc ? nr : nc);
    dmxi_local *tmp = malloc((size_t)*n * sizeof *tmp);
    int64_t *cnt = malloc(((size_t)nk + 1) * sizeof *cnt);
    DMXI_CHECK(tmp != NULL && cnt != NULL, DMX_ERR_ALLOC,
               "out of memory ordering %lld local rectangles", (long long)*n);
    count_sort(v, tmp, *n, cnt, band, KEY_ROW_IN_BAND, band);
    count_sort(v, tmp, *n, cnt, nr, KEY_ROW_BAND, band);
    *n = merge(v, *n, op, es, 1, INT64_MAX);
    count_sort(v, tmp, *n, cnt, band, KEY_ROW_IN_BAND, band);
    count_sort(v, tmp, *n, cnt, nc, KEY_COL_BAND, band);
    count_sort(v, tmp, *n, cnt, nr, KEY_ROW_BAND, band);
cleanup:
    free(tmp);
    free(cnt);
    return st;
}

/* Columns of the pieces rectangle l of a copy of es-byte elements is cut into. */
static int64_t copy_width(const dmxi_local *l, int64_t es)
{
    return l->rows * es >= COPY_CUT_MIN_RUN ? COPY_COLS : l->cols > 0 ? l->cols : 1;
}

/* The rectangles v[0, n) of one copying transform of es-byte elements (op N, merged downwards,
 * in (column, row) order) cut into copy_width columns, into out (room for every piece), ordered
 * by band of COPY_COLS columns and then as before (down each band's columns); *nout: the pieces'
 * count; the band order by the stable counting sort transpose_order uses. */
static dmx_status copy_order(const dmxi_local *v, int64_t n, int64_t es, dmxi_local *out,
                             int64_t *nout)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_local *tmp = NULL;
    int64_t *cnt = NULL, k = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t ad, ar, bd, br;
        mem_steps(&v[i].amem, &ad, &ar);
        mem_steps(&v[i].bmem, &bd, &br);
        const int64_t w = copy_width(&v[i], es);
        for (int64_t c = 0; c < v[i].cols; c += w) {
            dmxi_local *p = &out[k++];
            *p = v[i];
            p->c0 += c;
            p->cols = v[i].cols - c < w ? v[i].cols - c : w;
            p->amem.off += c * ar;
            p->bmem.off += c * br;
        }
    }
    int64_t cmax = 0;
    for (int64_t i = 0; i < k; i++)
        cmax = out[i].c0 > cmax ? out[i].c0 : cmax;
    const int64_t nk = cmax / COPY_COLS + 1;
    tmp = malloc((size_t)k * sizeof *tmp);
    cnt = malloc(((size_t)nk + 1) * sizeof *cnt);
    DMXI_CHECK(tmp != NULL && cnt != NULL, DMX_ERR_ALLOC,
               "out of memory ordering %lld local rectangles", (long long)k);
    count_sort(out, tmp, k, cnt, nk, KEY_COL_BAND, COPY_COLS);
    *nout = k;
cleanup:
    free(tmp);
    free(cnt);
    return st;
}

/* Every copying transform's rectangles cut and ordered by copy_order, into a new array. */
static dmx_status copy_cut(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    int64_t total = 0;
    for (int64_t i = 0; i < e->nlocal; i++) {
        const dmxi_xform *x = &e->xf[e->local[i].t];
        if (x->t.op == DMX_OP_N && !x->runs) {
            const int64_t w = copy_width(&e->local[i], (int64_t)x->esize);
            total += (e->local[i].cols + w - 1) / w;
        } else {
            total++;
        }
    }
    if (total == e->nlocal)
        return st;
    dmxi_local *nv = malloc((size_t)total * sizeof *nv);
    DMXI_CHECK(nv != NULL, DMX_ERR_ALLOC, "out of memory cutting %lld local rectangles",
               (long long)total);
    int64_t out = 0;
    for (int64_t i0 = 0; i0 < e->nlocal;) {
        const int t = e->local[i0].t;
        int64_t i1 = i0 + 1, n = 0;
        while (i1 < e->nlocal && e->local[i1].t == t)
            i1++;
        const dmxi_xform *x = &e->xf[t];
        if (x->t.op == DMX_OP_N && !x->runs) {
            st = copy_order(e->local + i0, i1 - i0, (int64_t)x->esize, nv + out, &n);
            if (st != DMX_SUCCESS) {
                free(nv);
                goto cleanup;
            }
        } else {
            n = i1 - i0;
            memcpy(nv + out, e->local + i0, (size_t)n * sizeof *nv);
        }
        out += n;
        i0 = i1;
    }
    free(e->local);
    e->local = nv;
    e->nlocal = out;
cleanup:
    return st;
}

dmx_status dmxi_exec_order_local(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    int64_t out = 0;
    for (int64_t i0 = 0; i0 < e->nlocal;) {
        const int t = e->local[i0].t;
        int64_t i1 = i0 + 1;
        while (i1 < e->nlocal && e->local[i1].t == t)
            i1++;
        const dmxi_xform *x = &e->xf[t];
        int64_t n = i1 - i0;
        if (out != i0)
            memmove(e->local + out, e->local + i0, (size_t)n * sizeof *e->local);
        if (!x->runs) {
            const int64_t es = (int64_t)x->esize;
            n = merge(e->local + out, n, x->t.op, es, 0,
                      x->t.op == DMX_OP_N ? MERGE_COL_BYTES_N : MERGE_COL_BYTES);
            if (x->t.op != DMX_OP_N && n > 1)
                DMXI_TRY(transpose_order(e->local + out, &n, x->t.op, es));
        }
        out += n;
        i0 = i1;
    }
    e->nlocal = out;
    DMXI_TRY(copy_cut(e));
cleanup:
    return st;
}
