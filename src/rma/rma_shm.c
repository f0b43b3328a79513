/* Direct path: a strided copy through the node's shared-memory segment.
 *
 * Algorithm: the target's heap is mapped into this process (MPI_Win_shared_query at heap
 *   creation), so a put is a strided copy from src into the peer's memory and a get the
 *   reverse; no MPI call and no involvement of the target. Stores become visible to other
 *   ranks after the memory fence of dmx_rma_quiet and their MPI_Win_sync (dmx_rma_barrier).
 * A heap of one rank has no window at all; then this path also sums accumulates locally.
 * Preconditions: the target's segment is mapped (same node, DMX_SHM not 0, unified window
 *   model); put or get (accumulates go through MPI, see rma_select.c).
 * Cost: no latency term beyond a function call; beta = one memory copy of the data
 *   (blockcount*blockelems elements), at cache-line granularity on both sides.
 * Temporary memory: none. */
#include "rma.h"

dmx_status dmxi_rma_shm(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    char *remote = h->peer[x->pe] + x->rdisp;
    if (x->kind == DMXI_RMA_ACC) { /* only on a heap of one rank (rma_select.c) */
        int f = x->mtype == MPI_FLOAT;
        int64_t per = (int64_t)x->esize / (f ? 4 : 8); /* components per element */
        for (int64_t b = 0; b < x->blockcount; b++) {
            char *d = remote + (size_t)(b * x->rstride) * x->esize;
            const char *s = x->local + (size_t)(b * x->lstride) * x->esize;
            for (int64_t e = 0; e < x->blockelems * per; e++) {
                if (f)
                    ((float *)(void *)d)[e] += ((const float *)(const void *)s)[e];
                else
                    ((double *)(void *)d)[e] += ((const double *)(const void *)s)[e];
            }
        }
    } else if (x->kind == DMXI_RMA_PUT) {
        dmxi_rma_copy(remote, x->local, x->rstride, x->lstride, x->blockelems, x->blockcount,
                      x->esize);
        h->direct_pending = 1;
    } else {
        dmxi_rma_copy(x->local, remote, x->lstride, x->rstride, x->blockelems, x->blockcount,
                      x->esize);
    }
    return DMX_SUCCESS;
}
