/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast on a binomial tree (hypercube broadcast with ranks renamed relative to the root).
 *
 * Algorithm: with v = (rank - root) mod p, rank v receives from v - lowbit(v) and then sends to
 * v + 2^j for 2^j < lowbit(v) (largest first); the root's lowbit is the first power of two
 * >= p. Works for any p (children beyond p are skipped).
 * Cost: ceil(log2 p) (alpha + m beta).
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_bcast_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t bytes = a->count * a->esize;
    int low = dmxi_binomial_low(v, p);
    if (v > 0)
        DMXI_TRY(dmxi_c_recv(a->rbuf, bytes, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
    for (int mask = low >> 1; mask >= 1; mask >>= 1)
        if (v + mask < p)
            DMXI_TRY(dmxi_c_send(a->rbuf, bytes, (v + mask + a->root) % p, DMXI_COLL_TAG, a->comm));
cleanup:
    return st;
}
