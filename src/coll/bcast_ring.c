/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast on a ring, store and forward: rank root+i receives the whole message from root+i-1
 * and then passes it to root+i+1.
 *
 * Preconditions: none.
 * Cost: (p-1) (alpha + m beta): the last rank waits for p-1 full hops.
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_bcast_ring(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t bytes = a->count * a->esize;
    if (v > 0)
        DMXI_TRY(dmxi_c_recv(a->rbuf, bytes, (a->rank - 1 + p) % p, DMXI_COLL_TAG, a->comm));
    if (v < p - 1)
        DMXI_TRY(dmxi_c_send(a->rbuf, bytes, (a->rank + 1) % p, DMXI_COLL_TAG, a->comm));
cleanup:
    return st;
}
