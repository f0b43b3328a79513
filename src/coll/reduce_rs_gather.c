/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce as a ring reduce-scatter followed by a gather (Rabenseifner's scheme with ring
 * phases): the vector is cut into p nearly equal blocks, block b is completed on rank b by the
 * ring reduce-scatter, and the root then collects the p blocks directly.
 *
 * Preconditions: a commutative op. The accumulator holds the own input.
 * Cost: (p-1)(alpha + m/p (beta + gamma)) + (p-1)(alpha + m/p beta): about 2 m beta + m gamma
 * for large m, instead of log2(p) m (beta + gamma) for the binomial tree.
 * Temporary memory: one block (m/p bytes). */
#include "coll_internal.h"

dmx_status dmxi_reduce_rs_gather(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t n = a->count, es = a->esize;
    char *w = a->rbuf;
    DMXI_TRY(dmxi_ring_reduce_scatter_v(a, w, n, dmxi_own_src(a, NULL)));
    if (r == a->root) {
        for (int b = 0; b < p; b++)
            if (b != r)
                DMXI_TRY(dmxi_c_recv(w + dmxi_blk_off(n, p, b) * es, dmxi_blk_len(n, p, b) * es, b,
                                     DMXI_COLL_TAG3, a->comm));
    } else {
        DMXI_TRY(dmxi_c_send(w + dmxi_blk_off(n, p, r) * es, dmxi_blk_len(n, p, r) * es, a->root,
                             DMXI_COLL_TAG3, a->comm));
    }
cleanup:
    return st;
}
