/* SPDX-License-Identifier: BSD-3-Clause */
/* Allgather by Bruck's algorithm: in round k every rank sends the first min(2^k, p - 2^k)
 * blocks it holds to rank r - 2^k and appends what rank r + 2^k sends it; after
 * ceil(log2 p) rounds it holds blocks r, r+1, ..., r+p-1, which a final rotation puts in place.
 *
 * Preconditions: none (any p).
 * Cost: ceil(log2 p) alpha + (p-1) m beta, plus the local rotation (p m bytes copied).
 * Temporary memory: p blocks. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_allgather_bruck(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    char *tmp = NULL, *b = a->rbuf;
    if (p == 1 || m == 0)
        goto cleanup;
    tmp = dmxi_malloc((int64_t)p * m, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (Bruck allgather)");
    const char *own = dmxi_own_src(a, b + (int64_t)r * m);
    memcpy(tmp, own, (size_t)m);
    for (int d = 1; d < p; d <<= 1) {
        int n = d < p - d ? d : p - d; /* d = 1 sends the own block alone */
        DMXI_TRY(dmxi_c_sendrecv(d == 1 ? own : tmp, (int64_t)n * m, (r - d + p) % p,
                                 tmp + (int64_t)d * m, (int64_t)n * m, (r + d) % p, DMXI_COLL_TAG,
                                 a->comm));
    }
    dmxi_rotate_blocks(b, tmp, p, p - r, m); /* tmp block j is rank (r + j) % p's */
cleanup:
    free(tmp);
    return st;
}
