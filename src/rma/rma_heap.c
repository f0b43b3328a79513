/* SPDX-License-Identifier: BSD-3-Clause */
/* Symmetric heaps: creation, completion (quiet), synchronisation (barrier), and freeing.
 *
 * Memory. dmx_rma_alloc places the heap in a shared-memory segment of the node
 * (MPI_Comm_split_type SHARED + MPI_Win_allocate_shared) so that node peers reach each other's
 * heaps by plain loads and stores; when the communicator spans several nodes, MPI_Win_create
 * opens the same memory to all of it for the message path (on one node the shared window
 * serves both). Without MPI shared windows (--mca osc rdma/ucx/pt2pt) the node segment comes
 * from POSIX shared memory (rma_posixshm.c) and MPI_Win_create opens it. With DMX_SHM=0, or
 * if that fails too, the memory comes from MPI_Win_allocate (MPI_Alloc_mem on a single rank,
 * which needs no window).
 * On Open MPI 4.x windows created at the same time on communicators split from one parent can
 * share one backing file (Open MPI issue 9492); every window here is created under a node lock
 * (rma_winlock.c), so creations on one node never overlap.
 *
 * Epochs. MPI_Win_lock_all opens a passive-target epoch at creation that stays open until
 * free. Quiet is MPI_Win_flush of every target used since the last quiet (not
 * MPI_Win_flush_all, with which osc ucx 4.1 does not complete gets) plus a full memory fence
 * for direct stores; barrier adds MPI_Win_sync around an MPI_Barrier so loads after it see
 * every store before it.
 *
 * Cost: creation is a handful of collectives over comm and the node (an allgather of P sizes,
 * window creation, the message-path probe of rma_probe.c: under 1 ms); quiet is one flush per
 * target with operations since the last one.
 * Memory per rank: the heap, P sizes, P peer pointers, 2P for the touched targets, 16 cached
 * datatypes. */
#define _POSIX_C_SOURCE 200809L

#include "rma.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static dmx_status heap_validate_local(MPI_Comm comm, int64_t bytes, const void *base, int attach,
                                      dmx_rma_heap **heap)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(heap != NULL, DMX_ERR_NULL, "heap output pointer is NULL");
    *heap = NULL;
    DMXI_CHECK(comm != MPI_COMM_NULL, DMX_ERR_ARG, "communicator is MPI_COMM_NULL");
    DMXI_CHECK(bytes >= 0, DMX_ERR_ARG, "heap size %lld is negative", (long long)bytes);
    DMXI_CHECK(!attach || base != NULL || bytes == 0, DMX_ERR_NULL,
               "attached memory is NULL but its size is %lld", (long long)bytes);
cleanup:
    return st;
}

/* Every rank of a node holds its heap in the node's memory, and the MPI library sums the node's
 * parts (in MPI_Aint) before it maps them: check that sum before asking, so a size near
 * INT64_MAX is refused instead of wrapping inside MPI (a wrapped total "allocated" a segment too
 * small for the zeroing that follows, which crashed at 2 ranks and hung at 3). Each part is
 * counted rounded up to HEAP_PART_ROUND bytes, more than any padding a library adds per rank.
 * A total that fits but exceeds the node's physical memory cannot be zeroed either (the heap is
 * written at creation): DMX_ERR_ALLOC. Local; the caller agrees on the outcome (nodes differ). */
#define HEAP_PART_ROUND ((int64_t)1 << 21)

static dmx_status node_total_check(int64_t bytes, int nnode)
{
    dmx_status st = DMX_SUCCESS;
    int64_t part = 0, total = 0;
    const long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
    if (dmxi_add64(bytes, HEAP_PART_ROUND - 1, &part) != DMX_SUCCESS ||
        dmxi_mul64(part / HEAP_PART_ROUND * HEAP_PART_ROUND, nnode, &total) != DMX_SUCCESS ||
        (MPI_Aint)total != total)
        DMXI_FAIL(DMX_ERR_OVERFLOW,
                  "dmx_rma_alloc: %lld bytes on each of the %d ranks of this node: the node's "
                  "total does not fit in 64 bits",
                  (long long)bytes, nnode);
    if (pages > 0 && pagesize > 0 && total / pagesize > (int64_t)pages)
        DMXI_FAIL(DMX_ERR_ALLOC,
                  "dmx_rma_alloc: %lld bytes on each of the %d ranks of this node need %lld bytes "
                  "in all, more than the node's %lld bytes of physical memory",
                  (long long)bytes, nnode, (long long)total,
                  (long long)pages * (long long)pagesize);
cleanup:
    return st;
}

static int window_is_unified(MPI_Win win)
{
    int *model = NULL, flag = 0;
    if (MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return *model == MPI_WIN_UNIFIED;
}

/* Allocate the memory of a dmx_rma_alloc heap: the node's shared segment if wanted and usable,
 * else MPI_Alloc_mem. Collective on h->comm. */
static dmx_status heap_memory(dmx_rma_heap *h, int64_t bytes)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Group g = MPI_GROUP_NULL, ng = MPI_GROUP_NULL;
    int *all = NULL, *nodes = NULL;
    MPI_Aint sz = (MPI_Aint)bytes;
    DMXI_CHECK((int64_t)sz == bytes, DMX_ERR_OVERFLOW, "heap of %lld bytes", (long long)bytes);
    int shm_ok = h->set.shm && h->size > 1;
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &shm_ok, 1, MPI_INT, MPI_MIN, h->comm));
    if (shm_ok) {
        static const char *const hint[] = {"alloc_shared_noncontig", "true"};
        void *p = NULL;
        /* a failure from here on is kept in st, not jumped over, until the agreement below:
         * every rank of the node must make the collective calls */
        MPI_Info info = dmxi_info_hints(&st, hint, 1);
        int rc = MPI_Win_allocate_shared(sz, 1, info, h->node, &p, &h->shwin);
        if (info != MPI_INFO_NULL)
            DMXI_MPI_ALL(MPI_Info_free(&info));
        /* a one-sided component without shared windows (--mca osc rdma, ucx, pt2pt) fails
         * here on every rank: fall back to private memory */
        int64_t unified = rc == MPI_SUCCESS;
        if (!unified)
            h->shwin = MPI_WIN_NULL;
        else
            DMXI_MPI_ALL(MPI_Win_set_errhandler(h->shwin, MPI_ERRORS_RETURN));
        if (unified && st == DMX_SUCCESS)
            unified = window_is_unified(h->shwin);
        st = dmxi_agree_min(h->comm, st, &unified, 1);
        if (st != DMX_SUCCESS) { /* every rank: free the window here, it was never locked */
            if (h->shwin != MPI_WIN_NULL)
                DMXI_MPI_ALL(MPI_Win_free(&h->shwin));
            goto cleanup;
        }
        if (unified) {
            h->base = p;
            h->kind = 2;
            DMXI_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, h->shwin));
            all = dmxi_malloc(h->size, sizeof(int));
            nodes = dmxi_malloc(h->size, sizeof(int));
            DMXI_CHECK(all && nodes, DMX_ERR_ALLOC, "out of memory");
            for (int r = 0; r < h->size; r++)
                all[r] = r;
            DMXI_MPI(MPI_Comm_group(h->comm, &g));
            DMXI_MPI(MPI_Comm_group(h->node, &ng));
            DMXI_MPI(MPI_Group_translate_ranks(g, h->size, all, ng, nodes));
            for (int r = 0; r < h->size; r++) {
                if (nodes[r] == MPI_UNDEFINED)
                    continue;
                MPI_Aint qsz = 0;
                int du = 0;
                void *q = NULL;
                DMXI_MPI(MPI_Win_shared_query(h->shwin, nodes[r], &qsz, &du, &q));
                h->peer[r] = q;
            }
            DMXI_TRY(dmxi_rma_prefault(h, bytes));
            goto cleanup;
        }
        if (h->shwin != MPI_WIN_NULL)
            DMXI_MPI(MPI_Win_free(&h->shwin));
        int ok = 0;
        DMXI_TRY(dmxi_rma_posix_segment(h, bytes, &ok));
        if (ok) {
            DMXI_TRY(dmxi_rma_prefault(h, bytes));
            goto cleanup;
        }
    }
    {
        void *p = NULL;
        if (h->size > 1) {
            /* the window allocates: on one node Open MPI then maps the memory for its own
             * shared-memory transport; safe from issue 9492 under the node lock */
            DMXI_MPI(MPI_Win_allocate(sz, 1, MPI_INFO_NULL, h->comm, &p, &h->win));
            h->kind = 3;
        } else {
            DMXI_MPI(MPI_Alloc_mem(sz > 0 ? sz : 1, MPI_INFO_NULL, &p));
            h->kind = 1;
        }
        h->base = p;
        if (bytes > 0)
            memset(h->base, 0, (size_t)bytes);
        h->peer[h->rank] = h->base;
    }
cleanup:
    if (g != MPI_GROUP_NULL)
        DMXI_MPI_ALL(MPI_Group_free(&g));
    if (ng != MPI_GROUP_NULL)
        DMXI_MPI_ALL(MPI_Group_free(&ng));
    free(all);
    free(nodes);
    return st;
}

/* Free everything of h, even after a failure. st: DMX_SUCCESS to report the first MPI failure
 * (returned), or the caller's own failure (returned unchanged, nothing recorded over it). */
static dmx_status heap_release(dmx_rma_heap *h, dmx_status st)
{
    if (!h)
        return st;
    dmxi_rma_unregister(h);
    for (int i = 0; i < DMXI_RMA_TYPE_CACHE; i++)
        if (h->cache[i].type != MPI_DATATYPE_NULL)
            DMXI_MPI_ALL(MPI_Type_free(&h->cache[i].type));
    if (h->win != MPI_WIN_NULL && h->win != h->shwin) {
        DMXI_MPI_ALL(MPI_Win_unlock_all(h->win));
        DMXI_MPI_ALL(MPI_Win_free(&h->win));
    }
    if (h->shwin != MPI_WIN_NULL) {
        DMXI_MPI_ALL(MPI_Win_unlock_all(h->shwin));
        DMXI_MPI_ALL(MPI_Win_free(&h->shwin));
    }
    if (h->kind == 1 && h->base)
        DMXI_MPI_ALL(MPI_Free_mem(h->base));
    dmxi_rma_posix_unmap(h);
    if (h->node != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&h->node));
    if (h->comm != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&h->comm));
    free(h->sizes);
    free(h->peer);
    dmxi_rma_touched_free(&h->pending);
    free(h);
    return st;
}

static dmx_status heap_create(MPI_Comm comm, void *base, int64_t bytes, int attach,
                              dmx_rma_heap **heap)
{
    dmxi_rma_settings set;
    dmx_status st = heap_validate_local(comm, bytes, base, attach, heap);
    if (st == DMX_SUCCESS)
        st = dmxi_rma_read_settings(&set); /* a bad DMX_RMA fails before any collective */
    dmx_rma_heap *h = NULL;
    int64_t mm[2] = {bytes, -bytes};
    int lockfd = -1, nnode = 0;
    if (comm == MPI_COMM_NULL) /* nobody to agree with: the others must not be left waiting */
        return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                          "%s: the communicator is MPI_COMM_NULL on this rank, which leaves no "
                          "communicator to agree on",
                          attach ? "dmx_rma_attach" : "dmx_rma_alloc");
    DMXI_TRY(dmxi_agree(comm, st));
    if (!attach) {
        DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT64_T, MPI_MAX, comm));
        DMXI_CHECK(mm[0] == -mm[1], DMX_ERR_ARG,
                   "dmx_rma_alloc: ranks passed different sizes (%lld to %lld bytes)",
                   (long long)-mm[1], (long long)mm[0]);
    }
    h = calloc(1, sizeof *h);
    DMXI_CHECK(h != NULL, DMX_ERR_ALLOC, "out of memory");
    h->comm = h->node = MPI_COMM_NULL;
    h->win = h->shwin = MPI_WIN_NULL;
    for (int i = 0; i < DMXI_RMA_TYPE_CACHE; i++)
        h->cache[i].type = MPI_DATATYPE_NULL;
    h->bytes = bytes;
    DMXI_MPI(MPI_Comm_dup(comm, &h->comm));
    DMXI_MPI(MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_rank(h->comm, &h->rank));
    DMXI_MPI(MPI_Comm_size(h->comm, &h->size));
    h->set = set;
    h->sizes = dmxi_malloc(h->size, sizeof(int64_t));
    h->peer = dmxi_calloc(h->size, sizeof(char *));
    DMXI_CHECK(h->sizes && h->peer, DMX_ERR_ALLOC, "out of memory (%d ranks)", h->size);
    DMXI_TRY(dmxi_rma_touched_init(&h->pending, h->size));
    DMXI_MPI(MPI_Allgather(&bytes, 1, MPI_INT64_T, h->sizes, 1, MPI_INT64_T, h->comm));
    DMXI_MPI(MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &h->node));
    DMXI_MPI(MPI_Comm_set_errhandler(h->node, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_size(h->node, &nnode));
    if (!attach)
        DMXI_TRY(dmxi_agree(h->comm, node_total_check(bytes, nnode)));
    DMXI_TRY(dmxi_rma_node_lock(h->comm, h->node, &lockfd));
    if (attach) {
        h->base = base;
        h->kind = 0;
        h->peer[h->rank] = base;
    } else {
        DMXI_TRY(heap_memory(h, bytes));
    }
    if (h->kind == 2 && nnode == h->size) {
        /* one node: the shared window serves the message path too (node ranks are comm ranks:
         * the split keeps the order). This also works where MPI_Win_create does not (osc sm). */
        h->win = h->shwin;
        goto cleanup;
    }
    if (h->size == 1)
        goto cleanup; /* one rank: every transfer is a local copy, no window (Open MPI 4.1 has
                         no one-sided component for MPI_Win_create on a single process) */
    if (h->kind != 3) {
        int rc = MPI_Win_create(h->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, h->comm, &h->win);
        if (rc != MPI_SUCCESS) {
            h->win = MPI_WIN_NULL;
            DMXI_TRY(dmxi_rma_win_error(rc, "MPI_Win_create", __FILE__, __LINE__));
        }
    }
    DMXI_MPI(MPI_Win_set_errhandler(h->win, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win));
    if (!window_is_unified(h->win)) {
        /* separate memory model: local stores and RMA may not be mixed; no direct paths */
        for (int r = 0; r < h->size; r++)
            h->peer[r] = NULL;
    }
cleanup:
    dmxi_rma_node_unlock(&lockfd);
    if (comm != MPI_COMM_NULL && h) {
        /* a failure after agreement (MPI or memory) is agreed too, so no rank keeps a heap */
        st = dmxi_agree(comm, st);
        if (st == DMX_SUCCESS) {
            /* which MPI method this component does well (every rank or none gets here) */
            st = dmxi_rma_probe(h, !attach);
            /* heaps with a node segment can hold matrices that patch windows read directly
             * (the kind is the same on every rank, the probe's status may not be) */
            if (h->kind == 2 || h->kind == 4) {
                dmx_status rs = dmxi_rma_register(h);
                st = st != DMX_SUCCESS ? st : rs;
            }
            st = dmxi_agree(comm, st);
        }
    }
    if (st != DMX_SUCCESS) {
        heap_release(h, st);
        h = NULL;
    }
    if (heap)
        *heap = h;
    return st;
}

dmx_status dmx_rma_alloc(MPI_Comm comm, int64_t bytes, dmx_rma_heap **heap)
{
    return heap_create(comm, NULL, bytes, 0, heap);
}

dmx_status dmx_rma_attach(MPI_Comm comm, void *base, int64_t bytes, dmx_rma_heap **heap)
{
    return heap_create(comm, base, bytes, 1, heap);
}

dmx_status dmx_rma_free(dmx_rma_heap **heap)
{
    dmx_status st = DMX_SUCCESS;
    if (heap == NULL) /* no heap, no communicator: the others would wait in the free */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_rma_free: the heap pointer is NULL on this rank, which leaves no "
                          "communicator to agree on");
    if (*heap) {
        dmx_rma_heap *h = *heap;
        if (h->win != MPI_WIN_NULL)
            DMXI_TRY(dmxi_rma_flush_touched(&h->pending, h->win, 0));
        DMXI_MPI(MPI_Barrier(h->comm));
        *heap = NULL;
        st = heap_release(h, DMX_SUCCESS);
    }
cleanup:
    return st;
}

dmx_status dmx_rma_get_base(const dmx_rma_heap *heap, void **base)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(base, DMX_ERR_NULL, "base is NULL");
    *base = NULL;
    DMXI_CHECK(heap, DMX_ERR_NULL, "heap is NULL");
    *base = heap->base;
cleanup:
    return st;
}

dmx_status dmx_rma_get_size(const dmx_rma_heap *heap, int64_t *bytes)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(bytes, DMX_ERR_NULL, "bytes is NULL");
    *bytes = 0;
    DMXI_CHECK(heap, DMX_ERR_NULL, "heap is NULL");
    *bytes = heap->bytes;
cleanup:
    return st;
}

dmx_status dmx_rma_get_comm(const dmx_rma_heap *heap, MPI_Comm *comm)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(comm, DMX_ERR_NULL, "comm is NULL");
    *comm = MPI_COMM_NULL;
    DMXI_CHECK(heap, DMX_ERR_NULL, "heap is NULL");
    *comm = heap->comm;
cleanup:
    return st;
}

dmx_status dmx_rma_quiet(dmx_rma_heap *heap)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(heap != NULL, DMX_ERR_NULL, "heap is NULL");
    if (heap->win != MPI_WIN_NULL)
        DMXI_TRY(dmxi_rma_flush_touched(&heap->pending, heap->win, 0));
    if (heap->direct_pending) {
        atomic_thread_fence(memory_order_seq_cst);
        heap->direct_pending = 0;
    }
cleanup:
    return st;
}

dmx_status dmx_rma_barrier(dmx_rma_heap *heap)
{
    dmx_status st = DMX_SUCCESS;
    if (heap == NULL) /* the others would wait in the barrier for this rank */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_rma_barrier: the heap is NULL on this rank, which leaves no "
                          "communicator to agree on");
    DMXI_TRY(dmx_rma_quiet(heap));
    if (heap->win != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(heap->win));
    if (heap->shwin != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(heap->shwin));
    DMXI_MPI(MPI_Barrier(heap->comm));
    if (heap->win != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(heap->win));
    if (heap->shwin != MPI_WIN_NULL)
        DMXI_MPI(MPI_Win_sync(heap->shwin));
cleanup:
    return st;
}
