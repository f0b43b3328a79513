/* SPDX-License-Identifier: BSD-3-Clause */
/* Personalized all-to-all by Bruck's algorithm: after a local rotation the block at position j
 * is meant for rank r + j; in the round of distance 2^k every block whose position has bit k
 * moves to rank r + 2^k (one packed message), so after ceil(log2 p) rounds every block is home;
 * a final reversal puts block from rank r - j at position r - j.
 *
 * Preconditions: none (any p).
 * Cost: ceil(log2 p)(alpha + ~p/2 m beta) plus packing: fewer messages than pairwise, each byte
 * moves up to log2 p times.
 * Temporary memory: 3 p blocks (the rotated buffer, one round out and one in). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_alltoall_bruck(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    char *t = NULL, *pk = NULL;
    if (m == 0)
        goto cleanup;
    t = dmxi_malloc((int64_t)p * m, 1);
    pk = dmxi_malloc(2 * (int64_t)p * m, 1); /* one round out, one in */
    DMXI_CHECK(t && pk, DMX_ERR_ALLOC, "out of memory (Bruck all-to-all)");
    for (int j = 0; j < p; j++)
        memcpy(t + (int64_t)j * m, (const char *)a->sbuf + (int64_t)((r + j) % p) * m, (size_t)m);
    for (int d = 1; d < p; d <<= 1) {
        int n = 0;
        for (int j = 1; j < p; j++)
            if (j & d)
                memcpy(pk + (int64_t)(n++) * m, t + (int64_t)j * m, (size_t)m);
        DMXI_TRY(dmxi_c_sendrecv(pk, (int64_t)n * m, (r + d) % p, pk + (int64_t)n * m,
                                 (int64_t)n * m, (r - d + p) % p, DMXI_COLL_TAG, a->comm));
        char *in = pk + (int64_t)n * m;
        for (int j = 1, i = 0; j < p; j++)
            if (j & d)
                memcpy(t + (int64_t)j * m, in + (int64_t)(i++) * m, (size_t)m);
    }
    for (int j = 0; j < p; j++)
        memcpy((char *)a->rbuf + (int64_t)((r - j + p) % p) * m, t + (int64_t)j * m, (size_t)m);
cleanup:
    free(t);
    free(pk);
    return st;
}
