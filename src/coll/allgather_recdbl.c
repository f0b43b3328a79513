/* SPDX-License-Identifier: BSD-3-Clause */
/* Allgather by recursive doubling (hypercube): in round k every rank swaps everything it has
 * with the rank whose number differs in bit k, doubling what it holds.
 *
 * Algorithm for any p: with q the largest power of two <= p, ranks r >= q first hand their
 * block to r - q (fold in); ranks r < q then double over log2 q rounds, where rank r's holding
 * before the round of distance d is the groups [g0, g0 + d), g0 = r & ~(d-1), group g meaning
 * blocks g and g + q (two contiguous ranges of the result buffer); finally ranks r < p - q send
 * the whole result to r + q (fold out).
 * Preconditions: none. The own block is in place.
 * Cost: log2(q) alpha + (p-1) m beta for a power of two; otherwise add 2 alpha + (1 + p) m beta
 * for the folds.
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_allgather_recdbl(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, q = dmxi_pow2_floor(p);
    int64_t m = a->count * a->esize;
    char *b = a->rbuf;
    const char *own = dmxi_own_src(a, b + (int64_t)r * m);
    if (r >= q)
        DMXI_TRY(dmxi_c_send(own, m, r - q, DMXI_COLL_TAG, a->comm));
    else if (r < p - q)
        DMXI_TRY(dmxi_c_recv(b + (int64_t)(r + q) * m, m, r + q, DMXI_COLL_TAG, a->comm));
    if (r < q) {
        for (int d = 1; d < q; d <<= 1) {
            int t = r ^ d, g0 = r & ~(d - 1), h0 = t & ~(d - 1);
            /* d = 1 sends the own block alone (g0 = r) */
            DMXI_TRY(dmxi_c_sendrecv(d == 1 ? own : b + (int64_t)g0 * m, (int64_t)d * m, t,
                                     b + (int64_t)h0 * m, (int64_t)d * m, t, DMXI_COLL_TAG2,
                                     a->comm));
            int ge = g0 + d + q < p ? g0 + d + q : p, he = h0 + d + q < p ? h0 + d + q : p;
            int gn = ge > g0 + q ? ge - g0 - q : 0, hn = he > h0 + q ? he - h0 - q : 0;
            if (gn > 0 || hn > 0)
                DMXI_TRY(dmxi_c_sendrecv(b + (int64_t)(g0 + q) * m, (int64_t)gn * m,
                                         gn > 0 ? t : MPI_PROC_NULL, b + (int64_t)(h0 + q) * m,
                                         (int64_t)hn * m, hn > 0 ? t : MPI_PROC_NULL,
                                         DMXI_COLL_TAG3, a->comm));
        }
    }
    if (r >= q)
        DMXI_TRY(dmxi_c_recv(b, (int64_t)p * m, r - q, DMXI_COLL_TAG, a->comm));
    else if (r < p - q)
        DMXI_TRY(dmxi_c_send(b, (int64_t)p * m, r + q, DMXI_COLL_TAG, a->comm));
cleanup:
    return st;
}
