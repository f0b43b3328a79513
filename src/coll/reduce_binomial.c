/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce on a binomial tree (the broadcast reversed): every rank combines the partial results
 * of its children, smallest subtree first, into its own and sends the sum to its parent.
 *
 * Algorithm: with v = (rank - root) mod p, for bits 2^j of increasing j: if v has bit j, send
 * the accumulator to v - 2^j and stop; else receive from v + 2^j (if < p) and combine.
 * Non-commutative op (a->noncomm): the tree is rooted at rank 0 whatever the root, so v's
 * subtree is the ranks v .. v + 2^j - 1 in order; each combine puts the own partial result on
 * the left (acc = acc op child, then copied back); rank 0 sends the result to the root.
 * Preconditions: acc holds the own input.
 * Cost: ceil(log2 p)(alpha + m beta + m gamma) (non-commutative, root != 0: + alpha + m beta,
 * and a copy of m per combine).
 * Temporary memory: m bytes (one received vector). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_reduce_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    const int root = a->noncomm ? 0 : a->root; /* the tree's root */
    int p = a->size, v = dmxi_mod((int64_t)a->rank - root, p);
    int64_t m = a->count * a->esize;
    void *tmp = NULL;
    if (p == 1)
        goto cleanup;
    tmp = dmxi_malloc(m, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (binomial reduce)");
    for (int mask = 1; mask < p; mask <<= 1) {
        if (v & mask) {
            /* a leaf (mask 1) sends its input untouched */
            const void *src = mask == 1 ? dmxi_own_src(a, a->rbuf) : a->rbuf;
            DMXI_TRY(dmxi_c_send(src, m, (v - mask + root) % p, DMXI_COLL_TAG, a->comm));
            break;
        }
        if (v + mask < p) {
            DMXI_TRY(dmxi_c_recv(tmp, m, (v + mask + root) % p, DMXI_COLL_TAG, a->comm));
            if (!a->noncomm) {
                DMXI_TRY(dmxi_c_reduce_local(tmp, a->rbuf, a->count, a->type, a->op));
            } else { /* the child's ranks follow mine */
                DMXI_TRY(dmxi_c_reduce_local(a->rbuf, tmp, a->count, a->type, a->op));
                if (m > 0)
                    memcpy(a->rbuf, tmp, (size_t)m);
            }
        }
    }
    if (root != a->root && a->rank == 0)
        DMXI_TRY(dmxi_c_send(a->rbuf, m, a->root, DMXI_COLL_TAG2, a->comm));
    else if (root != a->root && a->rank == a->root)
        DMXI_TRY(dmxi_c_recv(a->rbuf, m, 0, DMXI_COLL_TAG2, a->comm));
cleanup:
    free(tmp);
    return st;
}
