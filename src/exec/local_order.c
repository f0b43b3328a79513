/* SPDX-License-Identifier: BSD-3-Clause */
/* The order in which an engine applies the rectangles local in both layouts (exec.h: e->local).
 *
 * The planner sorts them by (transform, A column, A row): down each column of A's tiles. For a
 * copy that walks A and B alike. For op T or C it walks B across its columns: consecutive tiles
 * read new rows of B each time, so every tile touches as many new pages of B as it has rows
 * (with 4 KiB pages and a leading dimension of a page or more, one per row) and the rows' pages
 * are visited again only a whole tile column later, long after the TLB has dropped them. Measured
 * on 32 x 32 double tiles of a 4096^2 matrix, one thread, B holding real data: the transpose
 * took 2.4x the copy in this order, 1.3x when the tiles went across A's rows (then A's pages
 * change every tile, and stores wait for the TLB less than loads do).
 *
 * Algorithm: for each run of one transposing transform (op T or C, not run-compressed), sort its
 * rectangles by bands of BAND_BYTES of A's rows and of A's columns (band of columns first, then
 * band of rows, then column and row inside the band), so that consecutive rectangles stay within
 * BAND_BYTES / element size rows and columns of both arrays: about that many pages of each are
 * in use at a time, each for BAND_BYTES of work, within the second-level TLB (2048 entries on
 * this project's VMs). Rectangles of one transform write disjoint parts of A, so any order is
 * correct. Cost: O(n log n) once, at setup; memory: one key per rectangle, freed before return.
 */
#include "engine.h"

#include <stdlib.h>

/* Bytes of A's rows (and columns) in one band. */
#define BAND_BYTES 2048

typedef struct lkey {
    int64_t band_c, band_r, c0, r0;
    dmxi_local v;
} lkey;

static int cmp_lkey(const void *x, const void *y)
{
    const lkey *a = x, *b = y;
    if (a->band_c != b->band_c)
        return a->band_c < b->band_c ? -1 : 1;
    if (a->band_r != b->band_r)
        return a->band_r < b->band_r ? -1 : 1;
    if (a->c0 != b->c0)
        return a->c0 < b->c0 ? -1 : 1;
    return a->r0 < b->r0 ? -1 : a->r0 > b->r0;
}

/* Sort rectangles [i0, i1) of one transform of element size es into bands. */
static dmx_status band_sort(dmxi_local *v, int64_t i0, int64_t i1, int64_t es)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t band = BAND_BYTES / es > 0 ? BAND_BYTES / es : 1;
    lkey *k = malloc((size_t)(i1 - i0) * sizeof *k);
    DMXI_CHECK(k != NULL, DMX_ERR_ALLOC, "out of memory ordering %lld local rectangles",
               (long long)(i1 - i0));
    for (int64_t i = i0; i < i1; i++) {
        lkey *e = &k[i - i0];
        e->band_c = v[i].c0 / band, e->band_r = v[i].r0 / band;
        e->c0 = v[i].c0, e->r0 = v[i].r0, e->v = v[i];
    }
    qsort(k, (size_t)(i1 - i0), sizeof *k, cmp_lkey);
    for (int64_t i = i0; i < i1; i++)
        v[i] = k[i - i0].v;
    free(k);
cleanup:
    return st;
}

dmx_status dmxi_exec_order_local(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    for (int64_t i0 = 0; i0 < e->nlocal;) {
        const int t = e->local[i0].t;
        int64_t i1 = i0 + 1;
        while (i1 < e->nlocal && e->local[i1].t == t)
            i1++;
        const dmxi_xform *x = &e->xf[t];
        if (x->t.op != DMX_OP_N && !x->runs && i1 - i0 > 1)
            DMXI_TRY(band_sort(e->local, i0, i1, (int64_t)x->esize));
        i0 = i1;
    }
cleanup:
    return st;
}
