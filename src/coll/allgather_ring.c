/* SPDX-License-Identifier: BSD-3-Clause */
/* Allgather on a ring: in step s every rank passes to its right neighbour the block it
 * received in step s-1 (its own in step 0), so after p-1 steps every block has been
 * everywhere. Also the nearly-equal-blocks version used by the ring allreduce.
 *
 * Preconditions: none. The own block is already in place (front end).
 * Cost: (p-1)(alpha + m beta), m = one block; bandwidth-optimal, latency linear in p.
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_ring_allgather_v(const dmxi_cargs *a, void *buf, int64_t n, const void *own)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, next = (r + 1) % p, prev = (r - 1 + p) % p;
    char *b = buf;
    int64_t es = a->esize;
    for (int s = 0; s < p - 1; s++) {
        int sb = dmxi_mod((int64_t)r - s, p), rb = dmxi_mod((int64_t)r - s - 1, p);
        int64_t so = dmxi_blk_off(n, p, sb), ro = dmxi_blk_off(n, p, rb);
        const char *src = s == 0 && own != NULL ? own : b + so * es;
        DMXI_TRY(dmxi_c_sendrecv(src, dmxi_blk_len(n, p, sb) * es, next, b + ro * es,
                                 dmxi_blk_len(n, p, rb) * es, prev, DMXI_COLL_TAG2, a->comm));
    }
cleanup:
    return st;
}

dmx_status dmxi_allgather_ring(const dmxi_cargs *a)
{
    int64_t m = a->count * a->esize;
    return dmxi_ring_allgather_v(a, a->rbuf, a->count * a->size,
                                 dmxi_own_src(a, (char *)a->rbuf + (int64_t)a->rank * m));
}
