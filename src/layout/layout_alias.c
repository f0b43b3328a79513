/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether two layouts store some element in the same memory on this rank (aliasing), for the
 * planner's batch check (plan/alias.c) and the multiply's C-against-A/B check.
 *
 * Two ways to tell:
 *  - The same storage (dmxi_layout_same_storage): one description, or two block-cyclic ones with
 *    the same blocking, grid, sources, lld and local array. Element (r, c) of the description is
 *    then the same memory in both, so the question is exact in global coordinates: do the two
 *    windows meet? This is what lets ScaLAPACK's callers pass disjoint submatrices of one array
 *    (an LU's trailing update reads A21 and A12 and writes A22) even though their local memory
 *    interleaves.
 *  - Otherwise the local memory itself, as regions: a run list (base, stride, run length, count)
 *    per local block (one per layout for block-cyclic ones: its window is one rectangle of the
 *    local array), compared run by run where two spans meet. Separate allocations, or blocks of
 *    one arena interleaved, do not alias.
 * Temporary memory: one region per local block. */
#include "layout_impl.h"

#include <stdlib.h>
#include <string.h>

int dmxi_layout_same_storage(const dmx_layout *x, const dmx_layout *y)
{
    const dmxi_desc *a = x->d, *b = y->d;
    if (a == b)
        return !a->cyclic || (x->base == y->base && x->base != NULL);
    if (!a->cyclic || !b->cyclic || x->base != y->base || x->base == NULL)
        return 0;
    if (a->mb != b->mb || a->nb != b->nb || a->prow != b->prow || a->pcol != b->pcol ||
        a->rsrc != b->rsrc || a->csrc != b->csrc || a->lld != b->lld)
        return 0;
    return memcmp(a->grid_ranks, b->grid_ranks, (size_t)a->prow * (size_t)a->pcol * sizeof(int)) ==
           0;
}

static int by_lo(const void *x, const void *y)
{
    const dmxi_region *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

uintptr_t *dmxi_regions_index(dmxi_region *v, int64_t n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, by_lo);
    uintptr_t *pmax = malloc((size_t)(n > 0 ? n : 1) * sizeof *pmax);
    for (int64_t i = 0; pmax != NULL && i < n; i++)
        pmax[i] = i && pmax[i - 1] > v[i].hi ? pmax[i - 1] : v[i].hi;
    return pmax;
}

static dmx_status push(dmxi_region **v, int64_t *n, int64_t *cap, uintptr_t base, int64_t ld,
                       int64_t len, int64_t nruns, size_t esize, int k)
{
    dmx_status st = DMX_SUCCESS;
    if (*n == *cap) {
        int64_t c2 = *cap ? 2 * *cap : 64;
        dmxi_region *w = realloc(*v, (size_t)c2 * sizeof **v);
        DMXI_CHECK(w, DMX_ERR_ALLOC, "out of memory");
        *v = w, *cap = c2;
    }
    dmxi_region *g = &(*v)[(*n)++];
    g->base = base;
    g->stride = (uint64_t)ld * esize;
    g->len = (uint64_t)len * esize;
    g->nruns = (uint64_t)nruns;
    g->lo = base;
    g->hi = base + (g->nruns - 1) * g->stride + g->len;
    g->k = k;
cleanup:
    return st;
}

dmx_status dmxi_layout_regions(const dmx_layout *L, size_t esize, int k, dmxi_region **v,
                               int64_t *n, int64_t *cap)
{
    dmx_status st = DMX_SUCCESS;
    if (L->m == 0 || L->n == 0 || L->nlocal == 0)
        return st;
    if (L->d->cyclic) {
        if (L->base == NULL)
            return st;
        int64_t r0, c0, rows, cols, ld = L->d->lld;
        dmxi_mem first, last;
        dmxi_layout_local_rect(L, 0, &r0, &c0, &rows, &cols);
        DMXI_TRY(dmxi_layout_mem(L, r0, c0, &first));
        dmxi_layout_local_rect(L, L->nlocal - 1, &r0, &c0, &rows, &cols);
        DMXI_TRY(dmxi_layout_mem(L, r0 + rows - 1, c0 + cols - 1, &last));
        int64_t lr0 = first.off % ld, lc0 = first.off / ld;
        int64_t lr1 = last.off % ld, lc1 = last.off / ld;
        return push(v, n, cap, (uintptr_t)L->base + (uintptr_t)first.off * esize, ld, lr1 - lr0 + 1,
                    lc1 - lc0 + 1, esize, k);
    }
    for (int64_t b = 0; b < L->nlocal; b++) {
        int64_t r0, c0, rows, cols;
        dmxi_layout_local_rect(L, b, &r0, &c0, &rows, &cols);
        if (rows <= 0 || cols <= 0)
            continue;
        dmxi_mem mem;
        DMXI_TRY(dmxi_layout_mem_in_block(L, b, r0, c0, &mem));
        if (L->d->blocks[mem.lbk].data == NULL)
            continue;
        int col = mem.order == DMX_COL_MAJOR;
        DMXI_TRY(push(v, n, cap, (uintptr_t)dmxi_layout_addr(L, &mem, esize), mem.ld,
                      col ? rows : cols, col ? cols : rows, esize, k));
    }
cleanup:
    return st;
}

static int regions_meet(const dmxi_region *x, const dmxi_region *y)
{
    if (x->nruns > y->nruns) {
        const dmxi_region *t = x;
        x = y, y = t;
    }
    int64_t s = (int64_t)y->stride, n = (int64_t)y->nruns, len = (int64_t)y->len;
    for (uint64_t i = 0; i < x->nruns; i++) {
        /* x's run [a, a + x.len) against y's runs [yb + j s, yb + j s + len), 0 <= j < n: they
         * meet when j s < e and j s > f, with e = a + x.len - yb and f = a - yb - len */
        int64_t a = (int64_t)(x->base + i * x->stride - y->base);
        int64_t e = a + (int64_t)x->len, f = a - len;
        if (e <= 0)
            continue;
        if (s == 0 || n == 1) {
            if (f < 0)
                return 1;
            continue;
        }
        int64_t jlo = f < 0 ? 0 : f / s + 1, jhi = (e - 1) / s;
        if (jhi > n - 1)
            jhi = n - 1;
        if (jlo <= jhi)
            return 1;
    }
    return 0;
}

int64_t dmxi_regions_find(const dmxi_region *x, const dmxi_region *v, const uintptr_t *pmax,
                          int64_t n, dmxi_region_keep keep, const void *ctx)
{
    int64_t lo = 0, hi = n; /* lo: the first region of v starting at or after x's end */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid].lo < x->hi)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int64_t j = lo - 1; j >= 0 && pmax[j] > x->lo; j--)
        if (v[j].hi > x->lo && (keep == NULL || keep(x, &v[j], ctx)) && regions_meet(x, &v[j]))
            return j;
    return -1;
}

dmx_status dmxi_layouts_alias(const dmx_layout *x, const dmx_layout *y, size_t esize, int *hit)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_region *rx = NULL, *ry = NULL;
    uintptr_t *pmax = NULL;
    int64_t nx = 0, ny = 0, cx = 0, cy = 0;
    *hit = 0;
    if (x->m == 0 || x->n == 0 || y->m == 0 || y->n == 0)
        return st;
    if (dmxi_layout_same_storage(x, y)) {
        *hit = x->i0 < y->i0 + y->m && y->i0 < x->i0 + x->m && x->j0 < y->j0 + y->n &&
               y->j0 < x->j0 + x->n;
        return st;
    }
    DMXI_TRY(dmxi_layout_regions(x, esize, 0, &rx, &nx, &cx));
    DMXI_TRY(dmxi_layout_regions(y, esize, 1, &ry, &ny, &cy));
    if (nx == 0 || ny == 0)
        goto cleanup;
    pmax = dmxi_regions_index(ry, ny);
    DMXI_CHECK(pmax, DMX_ERR_ALLOC, "out of memory");
    for (int64_t i = 0; i < nx && !*hit; i++)
        *hit = dmxi_regions_find(&rx[i], ry, pmax, ny, NULL, NULL) >= 0;
cleanup:
    free(rx);
    free(ry);
    free(pmax);
    return st;
}
