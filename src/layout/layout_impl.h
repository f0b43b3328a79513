/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the layout module (layout.c: descriptions, windows, block-cyclic layouts, views and
 * clones; layout_custom.c: custom and local-only layouts; layout_query.c: the queries). Only
 * these files include it. */
#ifndef DMXI_LAYOUT_IMPL_H
#define DMXI_LAYOUT_IMPL_H

#include "layout.h"

/* Drop one reference to d; frees it with the last. */
void dmxi_desc_release(dmxi_desc *d);

/* A layout viewing all of d (takes a reference). */
dmx_status dmxi_layout_new(dmxi_desc *d, dmx_layout **out);

/* The first step of the custom and local constructors (and of clones): clear *out, make a
 * descriptor on comm and note this rank and the size. The status is this rank's alone; the
 * caller agrees on it before anything collective. *dp may be NULL afterwards. */
dmx_status dmxi_desc_begin(MPI_Comm comm, dmx_layout **out, dmxi_desc **dp);

/* The agreement that ends the local checks of a collective constructor: agree on `local` (like
 * dmxi_agree) and on a new layout id, stored in *id (layout.c). Collective on comm. */
dmx_status dmxi_layout_agree_id(MPI_Comm comm, dmx_status local, int64_t *id);
/* dmxi_layout_agree_id that also agrees every rank holds the same hash (else DMX_ERR_LAYOUT,
 * "ranks passed different <what>"), all in one reduction. Collective on comm. */
dmx_status dmxi_layout_agree_id_hash(MPI_Comm comm, dmx_status local, uint64_t hash,
                                     const char *what, int64_t *id);

/* Block lookups on a description (inline: the planner's queries run them per block). The
 * block index containing x; the owner of block (I, J); the local block (I, J) or -1. */
static inline int64_t dmxi_desc_find_split(const int64_t *split, int64_t nb, int64_t x)
{
    /* largest k in [0, nb) with split[k] <= x */
    int64_t lo = 0, hi = nb - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (split[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static inline int dmxi_desc_owner(const dmxi_desc *d, int64_t I, int64_t J)
{
    if (d->cyclic) {
        int pr = (int)((I + d->rsrc) % d->prow), pc = (int)((J + d->csrc) % d->pcol);
        return d->grid_ranks[(int64_t)pr * d->pcol + pc];
    }
    return d->owners[I * d->ncb + J];
}

static inline int64_t dmxi_desc_find_lblock(const dmxi_desc *d, int64_t I, int64_t J)
{
    int64_t lo = 0, hi = d->nlocal - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const dmxi_lblock *b = &d->blocks[mid];
        if (b->brow == I && b->bcol == J)
            return mid;
        if (b->brow < I || (b->brow == I && b->bcol < J))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

#endif
