/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast as scatter + ring allgather (van de Geijn): the root scatters p nearly equal pieces
 * of the message along a binomial tree, then a ring allgather assembles the whole message
 * everywhere.
 *
 * Algorithm: pieces are numbered by relative rank v = (rank - root) mod p, so the pieces of a
 * binomial subtree [v, v + lowbit(v)) are contiguous in the buffer and travel as one message.
 * The allgather then runs on the ring of relative ranks (the real ring, shifted).
 * Preconditions: none (pieces may be empty when m < p).
 * Cost: ceil(log2 p) alpha + (p-1)/p m beta (scatter) + (p-1)(alpha + m beta / p) (allgather),
 * about 2 m beta for large m instead of log2(p) m beta for the binomial tree.
 * Temporary memory: none (works in the user's buffer). */
#include "coll_internal.h"

dmx_status dmxi_bcast_scatter_ag(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t bytes = a->count * a->esize;
    char *buf = a->rbuf;
    if (p == 1)
        goto cleanup;
    int low = dmxi_binomial_low(v, p);
    if (v > 0) {
        int end = v + low < p ? v + low : p;
        int64_t o = dmxi_blk_off(bytes, p, v), n = dmxi_blk_off(bytes, p, end) - o;
        DMXI_TRY(dmxi_c_recv(buf + o, n, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
    }
    for (int mask = low >> 1; mask >= 1; mask >>= 1) {
        int c = v + mask;
        if (c >= p)
            continue;
        int end = c + mask < p ? c + mask : p;
        int64_t o = dmxi_blk_off(bytes, p, c), n = dmxi_blk_off(bytes, p, end) - o;
        DMXI_TRY(dmxi_c_send(buf + o, n, (c + a->root) % p, DMXI_COLL_TAG, a->comm));
    }
    /* Ring allgather of the byte pieces: relative rank v owns piece v. */
    int next = (a->rank + 1) % p, prev = (a->rank - 1 + p) % p;
    for (int s = 0; s < p - 1; s++) {
        int sb = dmxi_mod((int64_t)v - s, p), rb = dmxi_mod((int64_t)v - s - 1, p);
        int64_t so = dmxi_blk_off(bytes, p, sb), ro = dmxi_blk_off(bytes, p, rb);
        DMXI_TRY(dmxi_c_sendrecv(buf + so, dmxi_blk_off(bytes, p, sb + 1) - so, next, buf + ro,
                                 dmxi_blk_off(bytes, p, rb + 1) - ro, prev, DMXI_COLL_TAG2,
                                 a->comm));
    }
cleanup:
    return st;
}
