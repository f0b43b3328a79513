/* SPDX-License-Identifier: BSD-3-Clause */
/* Packages between ranks of one node through rings in an MPI-3 shared window.
 *
 * Through MPI, a package between two ranks of a node is copied three times: packed into the
 * send buffer, copied by MPI (shared-memory transport), transformed out of the receive buffer.
 * Here the sender packs a node peer's package into its own part of a window that every rank of
 * the node maps (MPI_Win_allocate_shared), and the receiver transforms it into A straight from
 * there: two copies, both fused with useful work. The package goes in chunks of about
 * e->chunk_bytes (128 KiB) through a ring of a few slots, so a chunk is read while it is still
 * in the shared cache and the staging copy costs cache bandwidth, not memory bandwidth
 * (measured on the default benchmark copy case: 26-28 ms with whole packages staged in the
 * window, 20-23 ms with rings, before A's writes were streamed).
 *
 * Ring of one (sender, receiver) pair, 64-byte aligned in the sender's part of the window:
 *     [posted: int64, own cache line] [consumed: int64, own cache line] [slot 0] [slot 1] ...
 * Chunks are numbered over all executions of the plan (g); chunk g lives in slot g % nslots.
 * The sender fills chunk g once consumed > g - nslots and then stores posted = g + 1 (release);
 * the receiver reads chunk g once posted > g (acquire) and then stores consumed = g + 1
 * (release). Both counters only grow, so nothing needs resetting between executions. The
 * counters are C11 atomics on shared memory (lock-free 64-bit atomics are address-free).
 *
 * Setup (collective, once per plan): split the node (MPI_COMM_TYPE_SHARED), cut each node
 * peer's package into chunks (both sides cut alike: same pieces, same byte offsets), size the
 * rings, allocate the window and send every node peer the offset of its ring (one integer).
 * Memory: per node peer, min(package, nslots x chunk) bytes plus two cache lines, with
 * nslots = DMXI_RING_SLOTS (4); compare the whole package a private buffer would hold.
 * DMX_SHM=0, or a window that cannot be made, keeps every peer on messages.
 *
 * Kept across plans: the node communicator and the window are kept in the record of the plan's
 * communicator (core/comm.c), a private duplicate that the planner keeps for the next plan once
 * this one is destroyed (src/plan/plan_comm.c; one live plan per duplicate, so no two live plans
 * share a window). The next plan on it reuses the window when every rank's rings fit in its part,
 * else the window is freed and made again at the larger size; so after the first plans, setup makes
 * no MPI_Comm_split_type, MPI_Win_allocate_shared or MPI_Win_free (blocking calls, which spin
 * under MPICH). A window over DMX_SHM_CACHE_BYTES per rank is not kept: such a plan makes its
 * own and frees it at destroy. The kept ones are freed with the duplicate (the record's delete
 * callback: when the pool frees it, when the user frees the communicator, or at MPI_Finalize).
 */
#define _POSIX_C_SOURCE 200809L /* sched_yield */

#include "engine.h"

#include "comm.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the rings need address-free 64-bit atomics");

/* Slots per ring: enough that the sender can run ahead while the receiver transforms. */
#define DMXI_RING_SLOTS 4
/* Bytes before the slots: the two counters, each on its own cache line. */
#define RING_HEADER 128

/* The first cache line boundary at or after b. A mapping starts at the same offset inside a
 * page in every process, so every rank finds the same boundary in its view of a window part. */
static char *align64(char *b)
{
    return b + ((64 - (uintptr_t)b % 64) % 64);
}

/* The ring's counters: 0 posted (written by the sender), 1 consumed (by the receiver). */
static atomic_llong *counter(const dmxi_peer *q, int which)
{
    return (atomic_llong *)(void *)(q->ring + 64 * which);
}

/* Node ranks, sorted, as ranks of e->comm, with their rank in the node communicator. */
typedef struct node_rank {
    int rank, node_rank;
} node_rank;

static int cmp_node_rank(const void *a, const void *b)
{
    const node_rank *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static const node_rank *find(const node_rank *v, int n, int rank)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid].rank == rank)
            return &v[mid];
        if (v[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static dmx_status node_ranks(dmxi_exec *e, node_rank **out, int *n)
{
    dmx_status st = DMX_SUCCESS;
    int *tr = NULL, size = 0;
    node_rank *v = NULL;
    DMXI_MPI(MPI_Comm_size(e->node, &size));
    tr = dmxi_malloc(size, sizeof *tr);
    v = dmxi_malloc(size, sizeof *v);
    DMXI_CHECK(tr && v, DMX_ERR_ALLOC, "out of memory");
    DMXI_TRY(dmxi_translate_ranks(e->node, e->comm, size, tr));
    for (int k = 0; k < size; k++)
        v[k] = (node_rank){tr[k], k};
    qsort(v, (size_t)size, sizeof *v, cmp_node_rank);
    *out = v;
    *n = size;
    v = NULL;
cleanup:
    free(tr);
    free(v);
    return st;
}

/* Cut the package of peer q (its pieces v[q->first ..]) into ring chunks: a chunk starts at a
 * piece, its base is that piece's offset rounded down to 16 bytes (keeps every element type
 * aligned in the slot), and it takes further pieces while they end within e->chunk_bytes of the
 * base. Pieces are at most chunk_bytes (the planner cuts them, packages.c), so every chunk holds at
 * least one piece and at most chunk_bytes + 15 bytes. Writes the chunks' first pieces and an end
 * mark into cf when it is not NULL; returns the number of chunks. Sender and receiver have the same
 * pieces at the same offsets, so they cut alike. */
static int64_t cut_chunks(const dmxi_exec *e, const dmxi_peer *q, const dmxi_piece *v, int64_t *cf)
{
    int64_t n = 0, base = 0;
    for (int64_t i = q->first; i < q->first + q->count; i++) {
        const dmxi_piece *pc = &v[i];
        int64_t end = pc->boff + pc->rows * pc->cols * (int64_t)e->xf[pc->t].esize;
        if (i == q->first || end - base > e->chunk_bytes) {
            if (cf)
                cf[n] = i;
            n++;
            base = pc->boff & ~(int64_t)15;
        }
    }
    if (cf)
        cf[n] = q->first + q->count;
    return n;
}

/* Chunks and slot sizes of every peer on this node, in one array e->cfirst. */
static dmx_status setup_chunks(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    int64_t total = 0;
    for (int side = 0; side < 2; side++) {
        dmxi_peer *pv = side ? e->rpeer : e->speer;
        const int np = side ? e->nrpeer : e->nspeer;
        for (int i = 0; i < np; i++)
            if (pv[i].shm)
                total += cut_chunks(e, &pv[i], side ? e->recv : e->send, NULL) + 1;
    }
    e->cfirst = dmxi_malloc(total, sizeof *e->cfirst);
    DMXI_CHECK(e->cfirst || total == 0, DMX_ERR_ALLOC, "out of memory for %lld chunk marks",
               (long long)total);
    total = 0;
    for (int side = 0; side < 2; side++) {
        dmxi_peer *pv = side ? e->rpeer : e->speer;
        const int np = side ? e->nrpeer : e->nspeer;
        for (int i = 0; i < np; i++) {
            dmxi_peer *q = &pv[i];
            if (!q->shm)
                continue;
            q->cfirst = e->cfirst + total;
            q->nring = cut_chunks(e, q, side ? e->recv : e->send, q->cfirst);
            total += q->nring + 1;
            /* A chunk spans at most chunk_bytes + 15 bytes of the package, and no more than the
             * package. Sizes depend on the package size only, not on how it was cut. */
            int64_t slot = q->bytes < e->chunk_bytes + 16 ? q->bytes : e->chunk_bytes + 16;
            int64_t nslots = (q->bytes + e->chunk_bytes - 1) / e->chunk_bytes;
            q->slot_bytes = (slot + 63) & ~(int64_t)63;
            q->nslots = nslots < DMXI_RING_SLOTS ? nslots : DMXI_RING_SLOTS;
            q->seq = 0;
        }
    }
cleanup:
    return st;
}

/* What a plan's communicator keeps for the next plan on it (see the top): a slot of its record
 * (core/comm.c), whose node communicator the engine uses. */
typedef struct shm_cache {
    MPI_Comm node; /* the node's ranks of the communicator (the record's) */
    MPI_Win win;   /* MPI_WIN_NULL until a plan keeps one; locked (lock_all) while kept */
    char *base;    /* this rank's part of win */
    int64_t bytes; /* its size */
} shm_cache;

static dmx_status free_window(MPI_Win *win)
{
    int rc = MPI_Win_unlock_all(*win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_free(win);
    return rc == MPI_SUCCESS ? DMX_SUCCESS
                             : dmxi_mpi_error(rc, "freeing the shared window", __FILE__, __LINE__);
}

/* Detach: the communicator is being freed (collectively), so the free is too. The node
 * communicator is the record's, freed after this. */
static int cache_detach(void *state)
{
    shm_cache *c = state;
    int rc = MPI_SUCCESS;
    if (c->win != MPI_WIN_NULL) {
        rc = MPI_Win_unlock_all(c->win);
        int r = MPI_Win_free(&c->win);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    c->node = MPI_COMM_NULL;
    return rc;
}

static const dmxi_slot_type cache_type = {cache_detach, NULL};

/* The cache of comm, made on first use (the node split: collective). */
static dmx_status cache_get(MPI_Comm comm, shm_cache **out)
{
    dmx_status st = DMX_SUCCESS;
    shm_cache *c = NULL;
    dmxi_comm *rec = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    if ((*out = dmxi_comm_slot(rec, DMXI_SLOT_SHM)) != NULL)
        goto cleanup;
    c = calloc(1, sizeof *c);
    DMXI_CHECK(c, DMX_ERR_ALLOC, "out of memory");
    c->node = MPI_COMM_NULL;
    c->win = MPI_WIN_NULL;
    DMXI_TRY(dmxi_comm_node(rec, &c->node));
    DMXI_TRY(dmxi_comm_set_slot(rec, DMXI_SLOT_SHM, &cache_type, c));
    *out = c;
    c = NULL;
cleanup:
    free(c);
    return st;
}

static void no_shm(dmxi_exec *e)
{
    e->shm = 0;
    e->shm_buf = NULL;
    e->shm_bytes = 0;
    for (int i = 0; i < e->nspeer; i++)
        e->speer[i].shm = 0;
    for (int i = 0; i < e->nrpeer; i++)
        e->rpeer[i].shm = 0;
}

/* Every rank wants the shared window (DMX_SHM not 0 on all of them): *all. Collective. */
static dmx_status agree_wanted(dmxi_exec *e, int *all)
{
    dmx_status st = DMX_SUCCESS;
    int want = dmxi_setting_int(DMXI_SET_SHM) != 0;
    MPI_Request ar = MPI_REQUEST_NULL;
    DMXI_MPI(dmxi_iallreduce(&want, all, 1, MPI_INT, MPI_MIN, e->comm, &ar));
    DMXI_MPI(dmxi_wait_yield(&ar));
cleanup:
    return st;
}

/* Lay out this rank's part of the window: one ring per node peer it sends to; 64 bytes more
 * (*need in all), to start the rings on a cache line whatever the window's alignment. Then
 * agree on the chunks and on the window (*fit): bit 0, some rank's rings do not fit the kept
 * window; bit 1, some rank's exceed cap = DMX_SHM_CACHE_BYTES (its window is not to be kept).
 * Collective. */
static dmx_status layout_rings(dmxi_exec *e, const shm_cache *c, int64_t cap, int64_t *need,
                               int64_t *fit)
{
    dmx_status st = DMX_SUCCESS;
    dmx_status local = setup_chunks(e);
    *need = 64;
    for (int i = 0; i < e->nspeer && local == DMX_SUCCESS; i++) {
        dmxi_peer *q = &e->speer[i];
        if (!q->shm)
            continue;
        q->off = e->shm_bytes;
        local = dmxi_add64(e->shm_bytes, RING_HEADER + q->nslots * q->slot_bytes, &e->shm_bytes);
    }
    if (local == DMX_SUCCESS)
        local = dmxi_add64(e->shm_bytes, 64, need);
    *fit = (c->win == MPI_WIN_NULL || *need > c->bytes) | (*need > cap) << 1;
    DMXI_TRY(dmxi_agree_max(e->comm, local, fit));
cleanup:
    return st;
}

/* A new window of at least need bytes on this rank (fit as agreed by layout_rings), kept in c
 * unless some rank's exceeds cap. *made is 0 when some rank could not make or lock it: then
 * every peer stays on messages (no_shm), or the failure is returned. Collective. */
static dmx_status make_window(dmxi_exec *e, shm_cache *c, int64_t fit, int64_t need, int64_t cap,
                              int *made)
{
    dmx_status st = DMX_SUCCESS;
    const int keep = (fit & 2) == 0;
    *made = 0;
    if (keep && c->win != MPI_WIN_NULL) { /* too small on some rank: make it again */
        dmx_status fs = free_window(&c->win);
        c->win = MPI_WIN_NULL;
        DMXI_TRY(dmxi_agree(e->comm, fs));
    }
    /* a kept window grows at least twofold, so a run of growing plans remakes it rarely */
    int64_t bytes = need;
    if (keep && bytes < 2 * c->bytes)
        bytes = 2 * c->bytes < cap ? 2 * c->bytes : cap;
    MPI_Win win = MPI_WIN_NULL;
    char *base = NULL;
    /* A failure from here on is kept in st, not jumped over: every rank of the node must
     * make the collective calls below. Without an info object the window is made without
     * the hint; the failure is still agreed and returned. */
    static const char *const hint[] = {"alloc_shared_noncontig", "true"};
    MPI_Info info = dmxi_info_hints(&st, hint, 1);
    int rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, e->node, &base, &win);
    if (info != MPI_INFO_NULL)
        DMXI_MPI_ALL(MPI_Info_free(&info));
    int locked = 0;
    if (rc == MPI_SUCCESS) {
        rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        locked = rc == MPI_SUCCESS;
    }
    int64_t ok = rc == MPI_SUCCESS;
    const dmx_status agreed = dmxi_agree_min(e->comm, st, &ok, 1);
    if (agreed != DMX_SUCCESS || !ok) { /* a failure, or messages everywhere */
        if (locked)
            DMXI_MPI_ALL(MPI_Win_unlock_all(win));
        if (win != MPI_WIN_NULL)
            DMXI_MPI_ALL(MPI_Win_free(&win));
        if (st == DMX_SUCCESS)
            st = agreed;
        if (st == DMX_SUCCESS)
            no_shm(e);
        goto cleanup;
    }
    e->win = win;
    e->shm_buf = base;
    *made = 1;
    if (keep) {
        c->win = win;
        c->base = base;
        c->bytes = bytes;
    } else {
        e->shm_kept = 0; /* this plan's own window (the node communicator stays kept) */
    }
cleanup:
    return st;
}

/* Zero this rank's counters before any receiver can learn where they are. */
static void zero_counters(dmxi_exec *e)
{
    for (int i = 0; i < e->nspeer; i++) {
        dmxi_peer *q = &e->speer[i];
        if (!q->shm)
            continue;
        q->ring = e->shm_buf + q->off;
        atomic_store_explicit(counter(q, 0), 0, memory_order_relaxed);
        atomic_store_explicit(counter(q, 1), 0, memory_order_relaxed);
    }
    atomic_thread_fence(memory_order_seq_cst);
}

/* Tell every node peer where its ring is in this rank's part of the window, and find the ring
 * of every node peer that sends to this rank in its part (nr: the node's ranks, nnr of them).
 * Collective. */
static dmx_status exchange_rings(dmxi_exec *e, const node_rank *nr, int nnr)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *offs = dmxi_malloc((int64_t)e->nspeer + e->nrpeer, sizeof *offs);
    MPI_Request *req = dmxi_malloc((int64_t)e->nspeer + e->nrpeer, sizeof *req);
    int nreq = 0;
    DMXI_TRY(dmxi_agree(
        e->comm, offs && req ? DMX_SUCCESS
                             : dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory")));
    for (int i = 0; i < e->nspeer; i++)
        if (e->speer[i].shm) {
            offs[i] = e->speer[i].off;
            DMXI_MPI(MPI_Isend(&offs[i], 1, MPI_INT64_T, e->speer[i].rank, DMXI_TAG_SETUP, e->comm,
                               &req[nreq++]));
        }
    for (int i = 0; i < e->nrpeer; i++)
        if (e->rpeer[i].shm)
            DMXI_MPI(MPI_Irecv(&offs[e->nspeer + i], 1, MPI_INT64_T, e->rpeer[i].rank,
                               DMXI_TAG_SETUP, e->comm, &req[nreq++]));
    /* test and yield rather than wait: MPICH's waits spin, starving oversubscribed ranks */
    for (int done = nreq == 0; !done;) {
        DMXI_MPI(dmxi_testall(nreq, req, &done));
        if (!done)
            sched_yield();
    }
    for (int i = 0; i < e->nrpeer; i++) {
        dmxi_peer *q = &e->rpeer[i];
        if (!q->shm)
            continue;
        MPI_Aint size = 0;
        int disp = 0;
        char *base = NULL;
        DMXI_MPI(
            MPI_Win_shared_query(e->win, find(nr, nnr, q->rank)->node_rank, &size, &disp, &base));
        q->ring = align64(base) + offs[e->nspeer + i];
    }
cleanup:
    free(offs);
    free(req);
    return st;
}

dmx_status dmxi_shm_setup(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    node_rank *nr = NULL;
    int nnr = 0, all = 0;
    e->shm = 0;
    DMXI_TRY(agree_wanted(e, &all));
    if (!all)
        goto cleanup;
    shm_cache *c = NULL;
    DMXI_TRY(dmxi_agree(e->comm, cache_get(e->comm, &c)));
    e->node = c->node;
    e->shm_kept = 1; /* the node communicator is the cache's */
    DMXI_TRY(dmxi_agree(e->comm, node_ranks(e, &nr, &nnr)));

    for (int i = 0; i < e->nspeer; i++)
        e->speer[i].shm = find(nr, nnr, e->speer[i].rank) != NULL;
    for (int i = 0; i < e->nrpeer; i++)
        e->rpeer[i].shm = find(nr, nnr, e->rpeer[i].rank) != NULL;

    int64_t need = 0, fit = 0, cap = dmxi_setting_int(DMXI_SET_SHM_CACHE_BYTES);
    DMXI_TRY(layout_rings(e, c, cap, &need, &fit));
    if (fit == 0) { /* the kept window serves */
        e->win = c->win;
        e->shm_buf = c->base;
    } else {
        int made = 0;
        DMXI_TRY(make_window(e, c, fit, need, cap, &made));
        if (!made)
            goto cleanup;
    }
    e->shm = 1;
    e->shm_buf = align64(e->shm_buf);
    zero_counters(e);
    DMXI_TRY(exchange_rings(e, nr, nnr));
cleanup:
    free(nr);
    return st;
}

int dmxi_ring_can_post(const dmxi_peer *q, int64_t g)
{
    return g - atomic_load_explicit(counter(q, 1), memory_order_acquire) < q->nslots;
}

void dmxi_ring_post(dmxi_peer *q, int64_t g)
{
    atomic_store_explicit(counter(q, 0), g + 1, memory_order_release);
}

int dmxi_ring_can_take(const dmxi_peer *q, int64_t g)
{
    return atomic_load_explicit(counter(q, 0), memory_order_acquire) > g;
}

void dmxi_ring_release(dmxi_peer *q, int64_t g)
{
    atomic_store_explicit(counter(q, 1), g + 1, memory_order_release);
}

char *dmxi_ring_slot(const dmxi_peer *q, int64_t g)
{
    return q->ring + RING_HEADER + (g % q->nslots) * q->slot_bytes;
}

dmx_status dmxi_shm_free(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    /* The node communicator is always the cache's; the window is unless shm_kept was cleared. */
    if (e->win != MPI_WIN_NULL && !e->shm_kept)
        st = free_window(&e->win);
    e->win = MPI_WIN_NULL;
    e->node = MPI_COMM_NULL;
    e->shm_buf = NULL;
    return st;
}
