/* SPDX-License-Identifier: BSD-3-Clause */
/* Patches: one-sided get, put and accumulate of any submatrix of a distributed matrix (the
 * Global Arrays model) without the owners' participation.
 *
 * Algorithm
 *   open: every rank lists its local blocks (rectangle, address, ld, order) and attaches the
 *     memory they span (overlapping or touching ranges merged) to one MPI_Win_create_dynamic
 *     window; an MPI_Allgatherv gives every rank the table of all blocks. Grid layouts
 *     (block-cyclic, custom) also get a grid -> table index so a patch finds its blocks
 *     directly; layouts known only locally are scanned. A block whose memory lies in a
 *     dmx_rma heap with a node segment (rma_registry.c) is also listed by heap id and offset;
 *     node peers that map that heap read and write it with plain loads and stores.
 *   get/put/acc: for each owner block the patch meets, one MPI_Get/MPI_Put/MPI_Accumulate
 *     whose target type walks the block's rows or columns (contiguous on the owner's side) and
 *     whose origin type walks buf in the same element order (op T: buf transposed, so MPI's
 *     datatype engine does the transposition). Blocks of this rank, and node peers' blocks in a
 *     shared heap, are copied directly (accumulates still go through MPI_Accumulate to stay
 *     atomic with the others' sums); other node peers' blocks go through CMA (patch_cma.c).
 * Preconditions: the layout and its memory outlive the patch window; no rank changes its
 *   blocks' memory while others may access it (synchronise with dmx_patch_barrier).
 * Cost per call: k*(alpha + datatype setup) + n_elems*beta for k owner blocks met.
 * Memory per rank: 88 bytes per block of the whole matrix (the table) + 8 per grid block. */
#define _POSIX_C_SOURCE 200809L

#include "patch.h"

#include <unistd.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static int cmp_range(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* This rank's blocks as table entries, and the merged memory ranges they span. */
static dmx_status local_entries(dmx_patch *w, pentry **out, int64_t *nout, char ***ranges)
{
    dmx_status st = DMX_SUCCESS;
    const dmx_layout *L = w->L;
    int64_t n = L->nlocal, nr = 0;
    pentry *e = dmxi_calloc(n, sizeof *e);
    char **rg = dmxi_calloc(2 * n, sizeof *rg);
    DMXI_CHECK(e && rg, DMX_ERR_ALLOC, "out of memory for %lld local blocks", (long long)n);
    for (int64_t k = 0; k < n; k++) {
        dmxi_mem mem;
        MPI_Aint a = 0;
        dmxi_layout_local_rect(L, k, &e[k].r0, &e[k].c0, &e[k].rows, &e[k].cols);
        DMXI_TRY(dmxi_layout_mem_in_block(L, k, e[k].r0, e[k].c0, &mem));
        char *p = dmxi_layout_addr(L, &mem, w->esize);
        DMXI_CHECK(mem.lbk >= 0 || L->base != NULL, DMX_ERR_NULL,
                   "this rank owns blocks but its layout has no memory");
        DMXI_MPI(MPI_Get_address(p, &a));
        e[k].addr = (int64_t)a;
        e[k].ld = mem.ld;
        e[k].order = (int32_t)mem.order;
        e[k].owner = w->rank;
        int64_t span = mem.order == DMX_COL_MAJOR ? (e[k].cols - 1) * mem.ld + e[k].rows
                                                  : (e[k].rows - 1) * mem.ld + e[k].cols;
        if (e[k].rows > 0 && e[k].cols > 0) {
            int hr = 0;
            if (!dmxi_rma_heap_find(p, span * (int64_t)w->esize, &e[k].heap, &hr, &e[k].hoff))
                e[k].heap = 0;
            e[k].hrank = hr;
            rg[2 * nr] = p;
            rg[2 * nr + 1] = p + (size_t)span * w->esize;
            nr++;
        }
    }
    qsort(rg, (size_t)nr, 2 * sizeof *rg, cmp_range);
    int64_t m = 0;
    int one = L->d->cyclic; /* one local array: attach its whole span, gaps (lld padding)
                               included, so the window holds one region (osc ucx allows few) */
    for (int64_t k = 0; k < nr; k++) {
        if (m > 0 && (one || rg[2 * k] <= rg[2 * m - 1])) {
            if (rg[2 * k + 1] > rg[2 * m - 1])
                rg[2 * m - 1] = rg[2 * k + 1];
        } else {
            rg[2 * m] = rg[2 * k];
            rg[2 * m + 1] = rg[2 * k + 1];
            m++;
        }
    }
    *out = e;
    *nout = n;
    *ranges = rg;
    w->nreg = m;
    e = NULL;
    rg = NULL;
cleanup:
    free(e);
    free(rg);
    return st;
}

/* Free everything of w, even after a failure. st: DMX_SUCCESS to report the first MPI failure
 * (returned), or the caller's own failure (returned unchanged, nothing recorded over it). */
static dmx_status patch_release(dmx_patch *w, dmx_status st)
{
    if (!w)
        return st;
    if (w->win != MPI_WIN_NULL) {
        DMXI_MPI_ALL(MPI_Win_unlock_all(w->win));
        for (int64_t k = 0; k < w->nreg; k++)
            DMXI_MPI_ALL(MPI_Win_detach(w->win, w->reg[2 * k]));
        DMXI_MPI_ALL(MPI_Win_free(&w->win));
    }
    if (w->etype != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&w->etype));
    if (w->node != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&w->node));
    if (w->comm != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&w->comm));
    dmxi_rma_touched_free(&w->call);
    dmxi_rma_touched_free(&w->pending);
    free(w->ent);
    free(w->grid);
    free(w->pid);
    free(w->reg);
    free(w);
    return st;
}

/* Process ids of the node peers for the direct path (patch_cma.c). Collective on w->comm. */
static dmx_status node_peers(dmx_patch *w, int shm)
{
    dmx_status st = DMX_SUCCESS;
    int me[2] = {(int)getpid(), 0}, nr = 0, *all = NULL;
    DMXI_MPI(MPI_Comm_rank(w->node, &nr));
    me[1] = nr == 0 ? w->rank : -1; /* node id: the comm rank of the node's first rank */
    DMXI_MPI(MPI_Bcast(&me[1], 1, MPI_INT, 0, w->node));
    all = dmxi_malloc(2 * (int64_t)w->size, sizeof(int));
    w->pid = dmxi_calloc(w->size, sizeof(int));
    DMXI_CHECK(all && w->pid, DMX_ERR_ALLOC, "out of memory (%d ranks)", w->size);
    DMXI_MPI(MPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, w->comm));
    for (int r = 0; r < w->size; r++)
        if (r != w->rank && all[2 * r + 1] == me[1])
            w->pid[r] = all[2 * r];
    w->cma = shm;
cleanup:
    free(all);
    return st;
}

/* Everything after the agreed start of dmx_patch_open; collective on w->comm. */
static dmx_status patch_build(dmx_patch *w, dmx_dtype dtype, int shm)
{
    dmx_status st = DMX_SUCCESS;
    pentry *mine = NULL;
    int64_t nmine = 0;
    int *counts = NULL, *displs = NULL, lockfd = -1, bytes = 0;
    w->real_float = dtype == DMX_FLOAT || dtype == DMX_CFLOAT;
    w->ncomp = dtype == DMX_CFLOAT || dtype == DMX_CDOUBLE ? 2 : 1;
    if (w->ncomp == 1) {
        DMXI_MPI(MPI_Type_dup(dmxi_rma_mpi_type(dtype), &w->etype));
    } else { /* complex as a pair of reals: see rma_ops.c */
        DMXI_MPI(MPI_Type_contiguous(2, w->real_float ? MPI_FLOAT : MPI_DOUBLE, &w->etype));
        DMXI_MPI(MPI_Type_commit(&w->etype));
    }
    st = dmxi_rma_touched_init(&w->call, w->size);
    if (st == DMX_SUCCESS)
        st = dmxi_rma_touched_init(&w->pending, w->size);
    if (st == DMX_SUCCESS)
        st = local_entries(w, &mine, &nmine, &w->reg);
    /* every rank has checked its blocks: agree before the collective part */
    st = dmxi_agree(w->comm, st);
    DMXI_TRY(st);
    counts = dmxi_malloc(w->size, sizeof(int));
    displs = dmxi_malloc(w->size, sizeof(int));
    DMXI_CHECK(counts && displs, DMX_ERR_ALLOC, "out of memory");
    DMXI_TRY(dmxi_to_int(nmine * (int64_t)sizeof(pentry), &bytes, "bytes of the block table"));
    DMXI_MPI(MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, w->comm));
    int64_t total = 0;
    for (int r = 0; r < w->size; r++) {
        DMXI_TRY(dmxi_to_int(total, &displs[r], "bytes of the block table"));
        total += counts[r];
    }
    w->nent = total / (int64_t)sizeof(pentry);
    w->ent = dmxi_malloc(w->nent, sizeof(pentry));
    DMXI_CHECK(w->ent, DMX_ERR_ALLOC, "out of memory for a table of %lld blocks",
               (long long)w->nent);
    DMXI_MPI(MPI_Allgatherv(mine, bytes, MPI_BYTE, w->ent, counts, displs, MPI_BYTE, w->comm));
    for (int64_t k = 0; k < w->nent; k++) { /* blocks of node peers in a shared heap */
        pentry *e = &w->ent[k];
        int64_t span = e->order == DMX_COL_MAJOR ? (e->cols - 1) * e->ld + e->rows
                                                 : (e->rows - 1) * e->ld + e->cols;
        char *d =
            shm && e->heap && e->owner != w->rank
                ? dmxi_rma_heap_peer(e->heap, (int)e->hrank, e->hoff, span * (int64_t)w->esize)
                : NULL;
        e->direct = (int64_t)(intptr_t)d;
    }
    if (!w->L->d->local_only) {
        int64_t ng = 0;
        DMXI_TRY(dmxi_mul64(w->L->nrb, w->L->ncb, &ng));
        w->grid = dmxi_malloc(ng, sizeof(int64_t));
        DMXI_CHECK(w->grid, DMX_ERR_ALLOC, "out of memory for %lld grid blocks", (long long)ng);
        for (int64_t g = 0; g < ng; g++)
            w->grid[g] = -1;
        for (int64_t k = 0; k < w->nent; k++) {
            int64_t bi = dmxi_layout_row_block(w->L, w->ent[k].r0);
            int64_t bj = dmxi_layout_col_block(w->L, w->ent[k].c0);
            w->grid[bi * w->L->ncb + bj] = k;
        }
    }
    if (w->size > 1) { /* one rank needs no window (see rma_heap.c) */
        DMXI_MPI(MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &w->node));
        DMXI_TRY(node_peers(w, shm));
        DMXI_TRY(dmxi_rma_node_lock(w->comm, w->node, &lockfd));
        int crc = MPI_Win_create_dynamic(MPI_INFO_NULL, w->comm, &w->win);
        dmxi_rma_node_unlock(&lockfd);
        if (crc != MPI_SUCCESS) {
            w->win = MPI_WIN_NULL;
            st = dmxi_rma_win_error(crc, "MPI_Win_create_dynamic", __FILE__, __LINE__);
            st = dmxi_agree(w->comm, st);
            /* MPI has no window for user memory (osc sm, btl tcp): on one node every peer is
             * reached through CMA, so the patch works without a window (no accumulates) */
            int nnode = 0, ok = 0;
            DMXI_MPI(MPI_Comm_size(w->node, &nnode));
            if (st == DMX_ERR_UNSUPPORTED && shm && nnode == w->size) {
                DMXI_TRY(dmxi_patch_cma_check(w, &ok));
                if (ok) {
                    w->cma_only = 1;
                    st = DMX_SUCCESS;
                    goto cleanup;
                }
            }
            DMXI_TRY(st);
        }
        DMXI_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
        /* attaching is local and may fail on some ranks only (too many regions): record the
         * failure, then agree, so no rank leaves the collective sequence early */
        int64_t nattached = 0;
        for (int64_t k = 0; k < w->nreg && st == DMX_SUCCESS; k++) {
            int rc = MPI_Win_attach(w->win, w->reg[2 * k],
                                    (MPI_Aint)(w->reg[2 * k + 1] - w->reg[2 * k]));
            if (rc != MPI_SUCCESS)
                st = dmxi_mpi_error(rc, "MPI_Win_attach", __FILE__, __LINE__);
            else
                nattached++;
        }
        w->nreg = nattached; /* only these are detached at close */
        if (st == DMX_SUCCESS) {
            int rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
            if (rc != MPI_SUCCESS)
                st = dmxi_mpi_error(rc, "MPI_Win_lock_all", __FILE__, __LINE__);
        }
        /* also the barrier that puts every attachment in place before anyone accesses */
        DMXI_TRY(dmxi_agree(w->comm, st));
    }
cleanup:
    dmxi_rma_node_unlock(&lockfd);
    free(mine);
    free(counts);
    free(displs);
    return st;
}

dmx_status dmx_patch_open(const dmx_layout *layout, dmx_dtype dtype, dmx_patch **win)
{
    dmx_status st = DMX_SUCCESS;
    dmx_patch *w = NULL;
    dmxi_rma_settings set = {1, DMXI_RMA_AUTO, -1, -1};
    if (win != NULL)
        *win = NULL;
    if (layout == NULL) /* no layout, no communicator: the others would wait in the agreement */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_patch_open: the layout is NULL on this rank, which leaves no "
                          "communicator to agree on");
    {
        dmx_status loc = DMX_SUCCESS;
        if (win == NULL)
            loc = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "patch output pointer is NULL");
        else if (dmx_dtype_size(dtype) == 0)
            loc = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__, "invalid dtype %d", (int)dtype);
        if (loc == DMX_SUCCESS) /* a bad DMX_RMA fails here, before any collective */
            loc = dmxi_rma_read_settings(&set);
        DMXI_TRY(dmxi_agree(layout->d->comm, loc));
    }
    w = calloc(1, sizeof *w);
    DMXI_CHECK(w != NULL, DMX_ERR_ALLOC, "out of memory");
    w->comm = w->node = MPI_COMM_NULL;
    w->win = MPI_WIN_NULL;
    w->etype = MPI_DATATYPE_NULL;
    w->L = layout;
    w->base = layout->base;
    w->esize = dmx_dtype_size(dtype);
    DMXI_MPI(MPI_Comm_dup(layout->d->comm, &w->comm));
    DMXI_MPI(MPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_rank(w->comm, &w->rank));
    DMXI_MPI(MPI_Comm_size(w->comm, &w->size));
    st = patch_build(w, dtype, set.shm);
    st = dmxi_agree(w->comm, st);
cleanup:
    if (st != DMX_SUCCESS)
        patch_release(w, st);
    else
        *win = w;
    return st;
}

dmx_status dmx_patch_close(dmx_patch **win)
{
    dmx_status st = DMX_SUCCESS;
    if (win == NULL) /* no window, no communicator: the others would wait in the close */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_patch_close: the patch pointer is NULL on this rank, which leaves "
                          "no communicator to agree on");
    if (*win) {
        if ((*win)->win != MPI_WIN_NULL)
            DMXI_TRY(dmxi_rma_flush_touched(&(*win)->pending, (*win)->win, 0));
        DMXI_MPI(MPI_Barrier((*win)->comm)); /* nobody may still access memory we detach */
        dmx_patch *w = *win;
        *win = NULL;
        st = patch_release(w, DMX_SUCCESS);
    }
cleanup:
    return st;
}

dmx_status dmx_patch_quiet(dmx_patch *win)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(win != NULL, DMX_ERR_NULL, "patch window is NULL");
    if (win->win != MPI_WIN_NULL)
        DMXI_TRY(dmxi_rma_flush_touched(&win->pending, win->win, 0));
    if (win->direct_pending) { /* stores into node peers' heap memory */
        atomic_thread_fence(memory_order_seq_cst);
        win->direct_pending = 0;
    }
cleanup:
    return st;
}

dmx_status dmx_patch_barrier(dmx_patch *win)
{
    dmx_status st = DMX_SUCCESS;
    if (win == NULL) /* the others would wait in the barrier for this rank */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_patch_barrier: the patch window is NULL on this rank, which leaves "
                          "no communicator to agree on");
    DMXI_TRY(dmx_patch_quiet(win));
    if (win->win != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(win->win));
    DMXI_MPI(MPI_Barrier(win->comm));
    if (win->win != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(win->win));
cleanup:
    return st;
}

dmx_status dmx_patch_get(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n, void *buf,
                         int64_t ld, dmx_op op)
{
    return dmxi_patch_xfer(win, DMXI_RMA_GET, i0, j0, m, n, buf, ld, op);
}

dmx_status dmx_patch_put(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n,
                         const void *buf, int64_t ld, dmx_op op)
{
    return dmxi_patch_xfer(win, DMXI_RMA_PUT, i0, j0, m, n, (char *)buf, ld, op);
}

dmx_status dmx_patch_acc(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n,
                         const void *buf, int64_t ld, dmx_op op)
{
    return dmxi_patch_xfer(win, DMXI_RMA_ACC, i0, j0, m, n, (char *)buf, ld, op);
}
