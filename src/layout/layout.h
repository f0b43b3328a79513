/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal view of layouts, used by the planner.
 *
 * A layout is a window (i0, j0, m, n) onto a shared, immutable description (dmxi_desc) of a
 * global grid: row and column splits, an owner per block (a block-cyclic formula or an explicit
 * table) and this rank's block memory. Views share the description and only move the window,
 * so everything below is expressed in the layout's own (window) coordinates: block (bi, bj) of
 * a layout is block (bi + bi0, bj + bj0) of the description, clipped to the window.
 */
#ifndef DMXI_LAYOUT_H
#define DMXI_LAYOUT_H

#include "dmxi.h"

typedef struct dmxi_lblock {
    int64_t brow, bcol; /* description block coordinates (local-only layouts: row0, col0) */
    int64_t rows, cols; /* local-only layouts: the rectangle's size (else unused) */
    void *data;
    int64_t ld;
    dmx_order order;
} dmxi_lblock;

/* Marks the id of an unagreed layout (a local counter), never an agreed id or a clone's. */
#define DMXI_UNAGREED_ID (INT64_C(1) << 62)

typedef struct dmxi_desc {
    int refcount;
    MPI_Comm comm; /* borrowed */
    int rank, size;
    int64_t m, n, nrb, ncb;
    int64_t *rsplit, *csplit; /* nrb+1, ncb+1 entries */
    uint64_t hash;            /* agreed by all ranks at creation */
    int cyclic;
    int local_only; /* dmx_layout_create_local: no grid; blocks carry rectangles */
    /* dmx_layout_create_block_cyclic_unagreed and its views: made with no communication, the id
     * is this rank's own (DMXI_UNAGREED_ID set); only dmx_transform_once's path with no
     * agreement takes them (plan_small.c) */
    int unagreed;
    /* block-cyclic */
    int64_t mb, nb, lld;
    int prow, pcol, rsrc, csrc;
    int myprow, mypcol; /* -1 if this rank is not in the grid */
    int *grid_ranks;    /* prow*pcol */
    /* explicit */
    int *owners;    /* nrb*ncb */
    int64_t nlocal; /* local blocks, sorted by (brow, bcol) */
    dmxi_lblock *blocks;
    void *owned; /* block memory dmx allocated (relabeled layouts), or NULL */
} dmxi_desc;

struct dmx_layout {
    dmxi_desc *d;
    /* Agreed by the ranks at creation (the largest of their layout counters; every creation
     * moves the counter past it), so the ranks can tell that they pass the same layout, not
     * only an equal description, to a plan. Clones take their template's id with the top bit
     * set. */
    int64_t id;
    int64_t i0, j0, m, n;       /* window in description coordinates */
    int64_t bi0, bj0, nrb, ncb; /* description blocks meeting the window */
    void *base;                 /* block-cyclic local array (rebindable) */
    /* local blocks inside the window: explicit layouts list indices into d->blocks; cyclic
     * layouts enumerate a (nlr x nlc) local block grid. */
    int64_t nlocal;
    int64_t *lidx;
    int64_t nlr, nlc, first_br, first_bc;
};

/* A layout on comm (the same processes as tmpl's communicator, possibly reordered) with tmpl's
 * description and window, whose local memory dmx allocates (zeroed, esize-byte elements) for
 * this rank's rank in comm. Collective on comm only in that every rank must call it. */
dmx_status dmxi_layout_clone_on(const dmx_layout *tmpl, MPI_Comm comm, size_t esize,
                                dmx_layout **out);

/* Local block k as a rectangle [r0, r0+rows) x [c0, c0+cols) in window coordinates; works for
 * every kind of layout (for local-only layouts k indexes d->blocks directly). */
void dmxi_layout_local_rect(const dmx_layout *L, int64_t k, int64_t *r0, int64_t *c0, int64_t *rows,
                            int64_t *cols);

/* Start row (window coordinates) of window block k, 0 <= k <= nrb (k == nrb gives m). */
int64_t dmxi_layout_row_start(const dmx_layout *L, int64_t k);
int64_t dmxi_layout_col_start(const dmx_layout *L, int64_t k);
/* Window block containing window row r (0 <= r < m) / column c. */
int64_t dmxi_layout_row_block(const dmx_layout *L, int64_t r);
int64_t dmxi_layout_col_block(const dmx_layout *L, int64_t c);
/* Owner rank of window block (bi, bj). */
int dmxi_layout_block_owner(const dmx_layout *L, int64_t bi, int64_t bj);
/* Window block coordinates of this rank's local block k (0 <= k < L->nlocal). */
void dmxi_layout_local_block(const dmx_layout *L, int64_t k, int64_t *bi, int64_t *bj);

/* Memory of window element (r, c), which this rank must own: the element sits at
 * (lbk < 0 ? L->base : L->d->blocks[lbk].data) + off elements, with the block's ld and order. */
typedef struct dmxi_mem {
    int64_t lbk, off, ld;
    dmx_order order;
} dmxi_mem;
dmx_status dmxi_layout_mem(const dmx_layout *L, int64_t r, int64_t c, dmxi_mem *mem);

/* Memory of window element (r, c) inside local block k (as numbered above). */
dmx_status dmxi_layout_mem_in_block(const dmx_layout *L, int64_t k, int64_t r, int64_t c,
                                    dmxi_mem *mem);

/* Offset in elements of element (i, j) from element (0, 0) of an array of order o and leading
 * dimension ld. */
static inline int64_t dmxi_elem_off(dmx_order o, int64_t ld, int64_t i, int64_t j)
{
    return o == DMX_COL_MAJOR ? i + j * ld : i * ld + j;
}

/* Address of a dmxi_mem in the layout's current memory, for elements of esize bytes. */
static inline char *dmxi_layout_addr(const dmx_layout *L, const dmxi_mem *mem, size_t esize)
{
    char *b = mem->lbk < 0 ? (char *)L->base : (char *)L->d->blocks[mem->lbk].data;
    return b + (size_t)mem->off * esize;
}

/* ---- layout_alias.c: which layouts store an element in the same memory on this rank ---------- */

/* One description, or block-cyclic descriptions with the same blocking, grid, sources, lld and
 * local array: description element (r, c) is the same memory in both. */
int dmxi_layout_same_storage(const dmx_layout *x, const dmx_layout *y);

/* Local memory as runs: nruns runs of len bytes, stride bytes apart, from base; [lo, hi) spans
 * them. k is the caller's tag (which transform or operand). */
typedef struct dmxi_region {
    uintptr_t lo, hi;
    uintptr_t base;
    uint64_t stride, len, nruns;
    int k;
} dmxi_region;

/* Append L's local memory within its window, for esize-byte elements, to *v (*n entries, *cap
 * allocated): one region for a block-cyclic layout, one per local block otherwise; blocks
 * without memory are left out. */
dmx_status dmxi_layout_regions(const dmx_layout *L, size_t esize, int k, dmxi_region **v,
                               int64_t *n, int64_t *cap);
/* Sort v by lo and return (malloc'd; NULL out of memory) the running maximum of hi over v[0..i],
 * the index dmxi_regions_find searches. */
uintptr_t *dmxi_regions_index(dmxi_region *v, int64_t n);
/* Which region pairs count (NULL: all). */
typedef int (*dmxi_region_keep)(const dmxi_region *x, const dmxi_region *y, const void *ctx);
/* The index of a region of the indexed list v (n entries, pmax from dmxi_regions_index) that
 * keep accepts and whose runs meet x's, or -1. */
int64_t dmxi_regions_find(const dmxi_region *x, const dmxi_region *v, const uintptr_t *pmax,
                          int64_t n, dmxi_region_keep keep, const void *ctx);

/* *hit = 1 if some element of x and some element of y share memory on this rank: in global
 * coordinates for the same storage, else run by run. Empty and memoryless layouts alias
 * nothing. */
dmx_status dmxi_layouts_alias(const dmx_layout *x, const dmx_layout *y, size_t esize, int *hit);

#include "window.h"

#endif
