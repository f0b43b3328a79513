/* Packages between ranks of one node through an MPI-3 shared-memory window.
 *
 * Through MPI, a package between two ranks of a node is copied three times: packed into the
 * send buffer, copied by MPI (shared-memory transport), transformed out of the receive buffer.
 * Here the sender packs a node peer's package into its own part of a window that every rank of
 * the node maps (MPI_Win_allocate_shared), and the receiver transforms it into A straight from
 * there: two copies, both fused with useful work, and nothing for MPI to move but two empty
 * messages per peer and execution ("ready": packed; "done": the space may be reused).
 *
 * Setup (collective, once per plan): split the node (MPI_COMM_TYPE_SHARED), allocate the window
 * (each rank's part holds the packages for its node peers, 16-byte aligned, replacing the
 * private send buffer for them), and send every node peer the offset of its package (one
 * integer). Memory: the window replaces private buffers byte for byte; no extra copies.
 * DMX_SHM=0, or a window that cannot be made, keeps every peer on messages.
 */
#include "plan/plan.h"

/* Node ranks, sorted, as ranks of p->comm, with their rank in the node communicator. */
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

static dmx_status node_ranks(dmx_plan *p, node_rank **out, int *n)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Group gn = MPI_GROUP_NULL, gp = MPI_GROUP_NULL;
    int *idx = NULL, *tr = NULL, size = 0;
    node_rank *v = NULL;
    DMXI_MPI(MPI_Comm_size(p->node, &size));
    idx = dmxi_malloc(size, sizeof *idx);
    tr = dmxi_malloc(size, sizeof *tr);
    v = dmxi_malloc(size, sizeof *v);
    DMXI_CHECK(idx && tr && v, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < size; k++)
        idx[k] = k;
    DMXI_MPI(MPI_Comm_group(p->node, &gn));
    DMXI_MPI(MPI_Comm_group(p->comm, &gp));
    DMXI_MPI(MPI_Group_translate_ranks(gn, size, idx, gp, tr));
    for (int k = 0; k < size; k++)
        v[k] = (node_rank){tr[k], k};
    qsort(v, (size_t)size, sizeof *v, cmp_node_rank);
    *out = v;
    *n = size;
    v = NULL;
cleanup:
    if (gn != MPI_GROUP_NULL)
        MPI_Group_free(&gn);
    if (gp != MPI_GROUP_NULL)
        MPI_Group_free(&gp);
    free(idx);
    free(tr);
    free(v);
    return st;
}

dmx_status dmxi_shm_setup(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    node_rank *nr = NULL;
    int nnr = 0, want = dmxi_env_int64("DMX_SHM", 1) != 0, all = 0;
    int64_t *offs = NULL;
    MPI_Request *req = NULL;
    int nreq = 0;
    p->shm = 0;
    DMXI_MPI(MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, p->comm));
    if (!all)
        goto cleanup;
    DMXI_MPI(MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &p->node));
    DMXI_TRY(dmxi_agree(p->comm, node_ranks(p, &nr, &nnr)));

    /* Lay out this rank's part of the window: the packages for its node peers. */
    for (int i = 0; i < p->nspeer; i++) {
        dmxi_peer *q = &p->speer[i];
        if (!find(nr, nnr, q->rank))
            continue;
        q->shm = 1;
        q->off = p->shm_bytes;
        DMXI_TRY(dmxi_add64(p->shm_bytes, (q->bytes + 15) & ~(int64_t)15, &p->shm_bytes));
    }
    for (int i = 0; i < p->nrpeer; i++)
        p->rpeer[i].shm = find(nr, nnr, p->rpeer[i].rank) != NULL;
    {
        MPI_Info info = MPI_INFO_NULL;
        DMXI_MPI(MPI_Info_create(&info));
        DMXI_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
        int rc =
            MPI_Win_allocate_shared((MPI_Aint)p->shm_bytes, 1, info, p->node, &p->shm_buf, &p->win);
        MPI_Info_free(&info);
        want = rc == MPI_SUCCESS;
        DMXI_MPI(MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, p->comm));
        if (!all) { /* fall back to messages everywhere */
            if (rc == MPI_SUCCESS)
                MPI_Win_free(&p->win);
            p->win = MPI_WIN_NULL;
            p->shm_buf = NULL;
            p->shm_bytes = 0;
            for (int i = 0; i < p->nspeer; i++)
                p->speer[i].shm = 0;
            for (int i = 0; i < p->nrpeer; i++)
                p->rpeer[i].shm = 0;
            goto cleanup;
        }
    }
    DMXI_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, p->win));
    p->shm = 1;

    /* Tell every node peer where its package is in this rank's part of the window. */
    offs = dmxi_malloc((int64_t)p->nspeer + p->nrpeer, sizeof *offs);
    req = dmxi_malloc((int64_t)p->nspeer + p->nrpeer, sizeof *req);
    DMXI_TRY(dmxi_agree(
        p->comm, offs && req ? DMX_SUCCESS
                             : dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory")));
    for (int i = 0; i < p->nspeer; i++)
        if (p->speer[i].shm) {
            offs[i] = p->speer[i].off;
            DMXI_MPI(MPI_Isend(&offs[i], 1, MPI_INT64_T, p->speer[i].rank, DMXI_TAG_SETUP, p->comm,
                               &req[nreq++]));
        }
    for (int i = 0; i < p->nrpeer; i++)
        if (p->rpeer[i].shm)
            DMXI_MPI(MPI_Irecv(&offs[p->nspeer + i], 1, MPI_INT64_T, p->rpeer[i].rank,
                               DMXI_TAG_SETUP, p->comm, &req[nreq++]));
    if (nreq > 0)
        DMXI_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < p->nrpeer; i++) {
        dmxi_peer *q = &p->rpeer[i];
        if (!q->shm)
            continue;
        MPI_Aint size = 0;
        int disp = 0;
        char *base = NULL;
        DMXI_MPI(
            MPI_Win_shared_query(p->win, find(nr, nnr, q->rank)->node_rank, &size, &disp, &base));
        q->shm_src = base + offs[p->nspeer + i];
    }
cleanup:
    free(nr);
    free(offs);
    free(req);
    return st;
}

int dmxi_shm_sync(dmx_plan *p)
{
    return p->win != MPI_WIN_NULL ? MPI_Win_sync(p->win) : MPI_SUCCESS;
}

dmx_status dmxi_shm_free(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    if (p->win != MPI_WIN_NULL) {
        int rc = MPI_Win_unlock_all(p->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_free(&p->win);
        if (rc != MPI_SUCCESS)
            st = dmxi_mpi_error(rc, "freeing the shared window", __FILE__, __LINE__);
    }
    if (p->node != MPI_COMM_NULL) {
        int rc = MPI_Comm_free(&p->node);
        if (rc != MPI_SUCCESS && st == DMX_SUCCESS)
            st = dmxi_mpi_error(rc, "MPI_Comm_free", __FILE__, __LINE__);
    }
    return st;
}
