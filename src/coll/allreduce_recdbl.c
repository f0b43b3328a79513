/* SPDX-License-Identifier: BSD-3-Clause */
/* Allreduce by recursive doubling (hypercube): in the round of distance d every rank swaps its
 * whole vector with r ^ d and combines; after log2 p rounds every rank has the full result.
 *
 * Algorithm for any p: q = largest power of two <= p; ranks r >= q first send their vector to
 * r - q, which combines it (fold in); the q ranks double; ranks r < p - q then send the result
 * to r + q (fold out). Partners combine in the same order (commutative op), so all ranks hold
 * bitwise the same result.
 * Non-commutative op (a->noncomm, p a power of two only: the folds would break rank order):
 * the lower rank's vector is the left operand, so both partners still compute the same bits.
 * Preconditions: a commutative op, or p a power of two.
 * Cost: log2(q)(alpha + m beta + m gamma), plus 2 (alpha + m beta) + m gamma if p != q.
 * Temporary memory: m bytes. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_allreduce_recdbl(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, q = dmxi_pow2_floor(p);
    int64_t m = a->count * a->esize;
    void *tmp = NULL;
    if (p == 1)
        goto cleanup;
    tmp = dmxi_malloc(m, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (recursive doubling)");
    if (r >= q) {
        DMXI_TRY(dmxi_c_send(dmxi_own_src(a, a->rbuf), m, r - q, DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_recv(a->rbuf, m, r - q, DMXI_COLL_TAG3, a->comm));
        goto cleanup;
    }
    if (r < p - q) {
        DMXI_TRY(dmxi_c_recv(tmp, m, r + q, DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_reduce_local(tmp, a->rbuf, a->count, a->type, a->op));
    }
    for (int d = 1; d < q; d <<= 1) {
        int t = r ^ d;
        /* the first exchange sends the input untouched unless a folded-in rank's was added */
        const void *src = d == 1 && r >= p - q ? dmxi_own_src(a, a->rbuf) : a->rbuf;
        DMXI_TRY(dmxi_c_sendrecv(src, m, t, tmp, m, t, DMXI_COLL_TAG2, a->comm));
        if (!a->noncomm || t < r) {
            DMXI_TRY(dmxi_c_reduce_local(tmp, a->rbuf, a->count, a->type, a->op));
        } else { /* the partner's ranks follow mine */
            DMXI_TRY(dmxi_c_reduce_local(a->rbuf, tmp, a->count, a->type, a->op));
            if (m > 0)
                memcpy(a->rbuf, tmp, (size_t)m);
        }
    }
    if (r < p - q)
        DMXI_TRY(dmxi_c_send(a->rbuf, m, r + q, DMXI_COLL_TAG3, a->comm));
cleanup:
    free(tmp);
    return st;
}
