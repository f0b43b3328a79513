/* SPDX-License-Identifier: BSD-3-Clause */
/* Scatter on a ring, pipelined, farthest first (seed): the root sends the block of the most
 * distant rank first, and every rank passes on the blocks meant for ranks after it while it
 * receives the next one, keeping its own (the last to arrive).
 *
 * Algorithm: with v = (rank - root) mod p, the root sends blocks for v = p-1, p-2, ..., 1 to
 * v = 1; rank v receives p - v blocks in that order and forwards all but the last, with one
 * MPI_Sendrecv per step (forward the previous block, receive the next).
 * Preconditions: none.
 * Cost: (p-1)(alpha + m beta): the root injects p-1 blocks back to back and the last one
 * arrives p-1 hops later, the transfers of different hops overlapping.
 * Temporary memory: two blocks on ranks that forward. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_scatter_pipeline(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *t0 = NULL, *t1 = NULL;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int next = (a->rank + 1) % p, prev = (a->rank - 1 + p) % p;
    int64_t m = a->count * a->esize;
    if (p == 1)
        goto cleanup;
    if (v == 0) {
        for (int w = p - 1; w >= 1; w--)
            DMXI_TRY(dmxi_c_send((const char *)a->sbuf + (int64_t)((w + a->root) % p) * m, m, next,
                                 DMXI_COLL_TAG, a->comm));
        goto cleanup;
    }
    int n = p - v; /* blocks arriving here; the last one is mine */
    if (n == 1) {
        DMXI_TRY(dmxi_c_recv(a->rbuf, m, prev, DMXI_COLL_TAG, a->comm));
        goto cleanup;
    }
    t0 = dmxi_malloc(m, 1);
    t1 = dmxi_malloc(m, 1);
    DMXI_CHECK(t0 && t1, DMX_ERR_ALLOC, "out of memory (pipeline scatter)");
    DMXI_TRY(dmxi_c_recv(t0, m, prev, DMXI_COLL_TAG, a->comm));
    for (int i = 1; i < n; i++) {
        char *dst = i == n - 1 ? a->rbuf : t1;
        DMXI_TRY(dmxi_c_sendrecv(t0, m, next, dst, m, prev, DMXI_COLL_TAG, a->comm));
        char *x = t0;
        t0 = t1;
        t1 = x;
    }
cleanup:
    free(t0);
    free(t1);
    return st;
}
