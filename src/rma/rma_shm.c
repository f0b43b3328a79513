/* SPDX-License-Identifier: BSD-3-Clause */
/* Direct path: a strided copy through the node's shared-memory segment.
 *
 * Algorithm: the target's heap is mapped into this process (MPI_Win_shared_query at heap
 *   creation), so a put is a strided copy from src into the peer's memory and a get the
 *   reverse; no MPI call and no involvement of the target. Stores become visible to other
 *   ranks after the memory fence of dmx_rma_quiet and their MPI_Win_sync (dmx_rma_barrier).
 * A heap of one rank has no window at all; then this path also sums accumulates locally.
 * Preconditions: the target's segment is mapped (same node, DMX_SHM not 0, unified window
 *   model); put or get (accumulates go through MPI, see rma_select.c).
 * Large puts and gets (at least DMXI_RMA_STREAM_MIN_BYTES in blocks of at least one cache line)
 *   write each destination block (the peer's memory for a put, this rank's for a get) with
 *   non-temporal stores (core/ntstore.h): its lines are then neither read first (a cached store
 *   must fetch the line, for a put often from the peer core's cache, where the peer last wrote
 *   it) nor kept in this core's cache, so 8 MiB moves about half the memory traffic. Whole lines
 *   go 16 bytes at a time, the partial lines at block ends element by element (ordinary stores
 *   there waited for a read of the line: puts of 64-element blocks at a line + 8 bytes 2.66-2.69
 *   ms instead of 2.78-3.01, osc sm, 2026-11-26). Blocks under a line are not streamed: with
 *   every line written in part, non-temporal stores made 1-element puts 1.6x and gets 2x slower.
 *   An sfence ends the copy; quiet's full fence orders it. (Gets: 0.71-0.89 ms instead of
 *   0.76-1.17 for 8 MiB in 512- and 4096-element blocks, osc sm and rdma, quiet.)
 * Cost: no latency term beyond a function call; beta = one memory copy of the data
 *   (blockcount*blockelems elements), at cache-line granularity on both sides.
 * Temporary memory: none. */
#include "ntstore.h"
#include "rma.h"

#include <stdint.h>

enum { LINE = 64 };

/* Strided copy whose destination is written with non-temporal stores (core/ntstore.h). */
static void copy_stream(char *dst, const char *src, int64_t dst_stride, int64_t src_stride,
                        int64_t blockelems, int64_t blockcount, size_t esize)
{
    const size_t len = (size_t)blockelems * esize;
    for (int64_t b = 0; b < blockcount; b++)
        dmxi_nt_copy(dst + (size_t)(b * dst_stride) * esize, src + (size_t)(b * src_stride) * esize,
                     len);
    dmxi_nt_fence();
}

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
    } else {
        int64_t bb = x->blockelems * (int64_t)x->esize;
        int st = h->set.stream; /* DMX_STREAM: -1 by size, 0 never, 1 always */
        int stream =
            bb >= LINE && (st == 1 || (st < 0 && bb * x->blockcount >= DMXI_RMA_STREAM_MIN_BYTES));
        int put = x->kind == DMXI_RMA_PUT;
        char *dst = put ? remote : x->local;
        const char *src = put ? x->local : remote;
        int64_t ds = put ? x->rstride : x->lstride, ss = put ? x->lstride : x->rstride;
        if (stream)
            copy_stream(dst, src, ds, ss, x->blockelems, x->blockcount, x->esize);
        else
            dmxi_rma_copy(dst, src, ds, ss, x->blockelems, x->blockcount, x->esize);
        if (put)
            h->direct_pending = 1;
    }
    return DMX_SUCCESS;
}
