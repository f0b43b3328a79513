/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce-scatter by recursive halving: in the round of distance d every rank sends the half of
 * its current range that its partner r ^ d keeps and combines the partner's copy of the half
 * it keeps, halving the range each round.
 *
 * Algorithm for any p: q = largest power of two <= p. Fold in: ranks r >= q send their whole
 * input to r - q, which adds it. Rank i < q then stands for the groups of blocks {g, g + q}:
 * its range of groups starts as [0, q) and halves log2 q times down to {i}; a group's blocks
 * are two contiguous pieces of the vector. Fold out: rank i sends block i + q to rank i + q.
 * Preconditions: a commutative op. The work vector (p blocks) is writable.
 * Cost (power of two): log2(p) alpha + (p-1) m (beta + gamma), m = one block; otherwise add
 * alpha + p m (beta + gamma) and alpha + m beta for the folds.
 * Temporary memory: p blocks when p is not a power of two (the folded input), else p/2. */
#include "coll_internal.h"

#include <string.h>

/* Send groups [s0, s0 + d) to t and combine t's groups [k0, k0 + d) into mine. */
static dmx_status swap_halves(const dmxi_cargs *a, const char *src, char *w, char *tmp, int t,
                              int s0, int k0, int d, int q)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size;
    int64_t m = a->count * a->esize;
    for (int part = 0; part < 2; part++) {
        int sa = s0 + part * q, ka = k0 + part * q;
        int se = sa + d < p ? sa + d : p, ke = ka + d < p ? ka + d : p;
        int sn = se > sa ? se - sa : 0, kn = ke > ka ? ke - ka : 0;
        if (sn == 0 && kn == 0)
            continue;
        DMXI_TRY(dmxi_c_sendrecv(src + (int64_t)sa * m, (int64_t)sn * m, sn ? t : MPI_PROC_NULL,
                                 tmp, (int64_t)kn * m, kn ? t : MPI_PROC_NULL, DMXI_COLL_TAG2,
                                 a->comm));
        DMXI_TRY(
            dmxi_c_reduce_local(tmp, w + (int64_t)ka * m, (int64_t)kn * a->count, a->type, a->op));
    }
cleanup:
    return st;
}

dmx_status dmxi_redscat_halving(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, q = dmxi_pow2_floor(p);
    int64_t m = a->count * a->esize;
    char *w = a->work, *tmp = NULL;
    tmp = dmxi_malloc(p == q ? (int64_t)(p / 2 > 0 ? p / 2 : 1) * m : (int64_t)p * m, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (recursive halving)");
    if (r >= q) {
        DMXI_TRY(dmxi_c_send(dmxi_own_src(a, w), (int64_t)p * m, r - q, DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_recv(a->rbuf, m, r - q, DMXI_COLL_TAG3, a->comm));
        goto cleanup;
    }
    if (r < p - q) {
        DMXI_TRY(dmxi_c_recv(tmp, (int64_t)p * m, r + q, DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_reduce_local(tmp, w, (int64_t)p * a->count, a->type, a->op));
    }
    int lo = 0; /* my range of groups: [lo, lo + 2d) before the round of distance d */
    for (int d = q / 2; d >= 1; d >>= 1) {
        int t = r ^ d;
        int keep = (r & d) ? lo + d : lo, give = (r & d) ? lo : lo + d;
        /* the first round sends the input untouched unless a folded-in rank's was added */
        const char *src = d == q / 2 && r >= p - q ? dmxi_own_src(a, w) : w;
        DMXI_TRY(swap_halves(a, src, w, tmp, t, give, keep, d, q));
        lo = keep;
    }
    if (r < p - q)
        DMXI_TRY(dmxi_c_send(w + (int64_t)(r + q) * m, m, r + q, DMXI_COLL_TAG3, a->comm));
    if (m > 0)
        memmove(a->rbuf, w + (int64_t)r * m, (size_t)m);
cleanup:
    free(tmp);
    return st;
}
