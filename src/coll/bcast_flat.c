/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast, flat tree: the root sends the whole message to every other rank in turn.
 *
 * Preconditions: none (any p, any root).
 * Cost: (p-1) (alpha + m beta) at the root, which is the critical path.
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_bcast_flat(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int64_t bytes = a->count * a->esize;
    if (a->rank == a->root) {
        for (int i = 1; i < a->size; i++)
            DMXI_TRY(dmxi_c_send(a->rbuf, bytes, (a->root + i) % a->size, DMXI_COLL_TAG, a->comm));
    } else {
        DMXI_TRY(dmxi_c_recv(a->rbuf, bytes, a->root, DMXI_COLL_TAG, a->comm));
    }
cleanup:
    return st;
}
