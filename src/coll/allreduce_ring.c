/* SPDX-License-Identifier: BSD-3-Clause */
/* Allreduce on a ring: ring reduce-scatter of p nearly equal blocks, then ring allgather of
 * the completed blocks (the bandwidth-optimal scheme of Patarasuk and Yuan).
 *
 * Preconditions: a commutative op. The accumulator (receive buffer) holds the own input.
 * Cost: 2 (p-1) alpha + 2 (p-1)/p m beta + (p-1)/p m gamma.
 * Temporary memory: one block (m/p bytes). */
#include "coll_internal.h"

dmx_status dmxi_allreduce_ring(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_ring_reduce_scatter_v(a, a->rbuf, a->count, dmxi_own_src(a, NULL)));
    /* Block b is complete on rank b, exactly where the ring allgather starts it. */
    DMXI_TRY(dmxi_ring_allgather_v(a, a->rbuf, a->count, NULL));
cleanup:
    return st;
}
