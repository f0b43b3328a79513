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
 * Algorithm: for each run of one transposing transform (op T or C, not run-compressed), order its
 * rectangles by bands of BAND_BYTES of A's rows and of A's columns (band of columns first, then
 * band of rows, then column and row inside the band), so that consecutive rectangles stay within
 * BAND_BYTES / element size rows and columns of both arrays: about that many pages of each are
 * in use at a time, each for BAND_BYTES of work, within the second-level TLB (2048 entries on
 * this project's VMs). Rectangles of one transform write disjoint parts of A, so any order is
 * correct. Tried: rows before columns inside a band, and bands of 8 and 32 KiB: no better.
 * Cost: O(n) once, at setup; memory: a scratch copy of the rectangles, freed before return.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of A's rows (and columns) in one band. */
#define BAND_BYTES 2048

/* Reorder rectangles [i0, i1) of one transform of element size es into bands. They arrive
 * sorted by (A column, A row) (exec.h), so the rectangles of one band of columns are consecutive
 * and already in (column, row) order: a stable counting sort of each such group by its band of
 * rows gives the order, in O(n) and one scratch copy of the largest group. */
static dmx_status band_sort(dmxi_local *v, int64_t i0, int64_t i1, int64_t es)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t band = BAND_BYTES / es > 0 ? BAND_BYTES / es : 1;
    int64_t rmax = 0;
    for (int64_t i = i0; i < i1; i++)
        rmax = v[i].r0 > rmax ? v[i].r0 : rmax;
    const int64_t nb = rmax / band + 1;
    dmxi_local *tmp = malloc((size_t)(i1 - i0) * sizeof *tmp);
    int64_t *cnt = calloc((size_t)nb + 1, sizeof *cnt);
    DMXI_CHECK(tmp != NULL && cnt != NULL, DMX_ERR_ALLOC,
               "out of memory ordering %lld local rectangles", (long long)(i1 - i0));
    for (int64_t g0 = i0; g0 < i1;) {
        const int64_t bc = v[g0].c0 / band;
        int64_t g1 = g0 + 1;
        while (g1 < i1 && v[g1].c0 / band == bc)
            g1++;
        memset(cnt, 0, (size_t)(nb + 1) * sizeof *cnt);
        for (int64_t i = g0; i < g1; i++)
            cnt[v[i].r0 / band + 1]++;
        for (int64_t k = 0; k < nb; k++)
            cnt[k + 1] += cnt[k];
        for (int64_t i = g0; i < g1; i++)
            tmp[cnt[v[i].r0 / band]++] = v[i];
        memcpy(v + g0, tmp, (size_t)(g1 - g0) * sizeof *tmp);
        g0 = g1;
    }
cleanup:
    free(tmp);
    free(cnt);
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
