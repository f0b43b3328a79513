/* SPDX-License-Identifier: BSD-3-Clause */
/* Personalized all-to-all on a hypercube, store and forward: a block from s to d travels along
 * the dimensions where s and d differ, one dimension per round; in the round of dimension k
 * every rank sends its partner r ^ 2^k, in one message, the half of its blocks that must cross
 * that dimension.
 *
 * Algorithm: blocks are kept by x = source XOR destination, which does not change on the way;
 * the block at entry x of rank r after the last round came from r ^ x. For p not a power of
 * two: q = largest power of two <= p, ranks r >= q hand their whole send buffer to r - q (fold
 * in), and rank i < q carries up to S x S = 2 x 2 blocks per entry (sources i, i+q to
 * destinations (i^x), (i^x)+q); at the end it sends rank i + q its results (fold out).
 * Preconditions: none.
 * Cost (power of two): log2(p)(alpha + p/2 m beta) plus packing; otherwise 4 times the volume
 * per round and 2 (alpha + p m beta) for the folds.
 * Temporary memory: q S^2 blocks for the entries, q S^2 for the two packed halves, and p blocks
 * for each fold (S = 1 for a power of two, else 2). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_alltoall_hypercube(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, q = dmxi_pow2_floor(p), S = p == q ? 1 : 2;
    int64_t m = a->count * a->esize, E = (int64_t)S * S * m; /* bytes per entry */
    char *ent = NULL, *out = NULL, *in = NULL, *fold = NULL;
    if (m == 0)
        goto cleanup;
    if (r >= q) {
        DMXI_TRY(dmxi_c_send(a->sbuf, (int64_t)p * m, r - q, DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_recv(a->rbuf, (int64_t)p * m, r - q, DMXI_COLL_TAG3, a->comm));
        goto cleanup;
    }
    ent = dmxi_calloc((int64_t)q * E, 1);
    out = dmxi_malloc((int64_t)(q / 2 > 0 ? q / 2 : 1) * E, 1);
    in = dmxi_malloc((int64_t)(q / 2 > 0 ? q / 2 : 1) * E, 1);
    fold = dmxi_malloc(S > 1 ? (int64_t)p * m : 1, 1);
    DMXI_CHECK(ent && out && in && fold, DMX_ERR_ALLOC, "out of memory (hypercube all-to-all)");
    int partner = r + q < p; /* do I stand for r + q too? */
    if (partner)
        DMXI_TRY(dmxi_c_recv(fold, (int64_t)p * m, r + q, DMXI_COLL_TAG, a->comm));
    for (int x = 0; x < q; x++)
        for (int sa = 0; sa < S; sa++)
            for (int sb = 0; sb < S; sb++) {
                int src = r + sa * q, dst = (r ^ x) + sb * q;
                if (src >= p || dst >= p)
                    continue;
                const char *from = (sa == 0 ? (const char *)a->sbuf : fold) + (int64_t)dst * m;
                memcpy(ent + x * E + (int64_t)(sa * S + sb) * m, from, (size_t)m);
            }
    for (int d = 1; d < q; d <<= 1) {
        int64_t n = 0;
        for (int x = 0; x < q; x++)
            if (x & d)
                memcpy(out + (n++) * E, ent + x * E, (size_t)E);
        DMXI_TRY(dmxi_c_sendrecv(out, n * E, r ^ d, in, n * E, r ^ d, DMXI_COLL_TAG2, a->comm));
        n = 0;
        for (int x = 0; x < q; x++)
            if (x & d)
                memcpy(ent + x * E, in + (n++) * E, (size_t)E);
    }
    for (int x = 0; x < q; x++)
        for (int sa = 0; sa < S; sa++)
            for (int sb = 0; sb < S; sb++) {
                int src = (r ^ x) + sa * q, dst = r + sb * q;
                if (src >= p || dst >= p)
                    continue;
                char *to = (sb == 0 ? (char *)a->rbuf : fold) + (int64_t)src * m;
                memcpy(to, ent + x * E + (int64_t)(sa * S + sb) * m, (size_t)m);
            }
    if (partner)
        DMXI_TRY(dmxi_c_send(fold, (int64_t)p * m, r + q, DMXI_COLL_TAG3, a->comm));
cleanup:
    free(ent);
    free(out);
    free(in);
    free(fold);
    return st;
}
