/* SPDX-License-Identifier: BSD-3-Clause */
/* Gather on a ring, pipelined (the scatter's mirror image): every rank sends its own block
 * toward the root first and then forwards, nearest first, the blocks of the ranks behind it,
 * so the root receives blocks of ranks 1, 2, ..., p-1 (relative to it) in that order.
 *
 * Algorithm: with v = (rank - root) mod p, rank v sends p - v blocks to v - 1: its own, then
 * those of v+1, ..., p-1 as they arrive from v + 1, one MPI_Sendrecv per step.
 * Preconditions: none.
 * Cost: (p-1)(alpha + m beta).
 * Temporary memory: two blocks on ranks that forward. */
#include "coll_internal.h"

dmx_status dmxi_gather_pipeline(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *t0 = NULL, *t1 = NULL;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int next = (a->rank + 1) % p, prev = (a->rank - 1 + p) % p;
    int64_t m = a->count * a->esize;
    if (p == 1)
        goto cleanup;
    if (v == 0) {
        for (int w = 1; w < p; w++)
            DMXI_TRY(dmxi_c_recv((char *)a->rbuf + (int64_t)((w + a->root) % p) * m, m, next,
                                 DMXI_COLL_TAG, a->comm));
        goto cleanup;
    }
    int n = p - 1 - v; /* blocks to forward after my own */
    if (n == 0) {
        DMXI_TRY(dmxi_c_send(a->sbuf, m, prev, DMXI_COLL_TAG, a->comm));
        goto cleanup;
    }
    t0 = dmxi_malloc(m, 1);
    t1 = dmxi_malloc(m, 1);
    DMXI_CHECK(t0 && t1, DMX_ERR_ALLOC, "out of memory (pipeline gather)");
    DMXI_TRY(dmxi_c_sendrecv(a->sbuf, m, prev, t0, m, next, DMXI_COLL_TAG, a->comm));
    for (int i = 1; i < n; i++) {
        DMXI_TRY(dmxi_c_sendrecv(t0, m, prev, t1, m, next, DMXI_COLL_TAG, a->comm));
        char *x = t0;
        t0 = t1;
        t1 = x;
    }
    DMXI_TRY(dmxi_c_send(t0, m, prev, DMXI_COLL_TAG, a->comm));
cleanup:
    free(t0);
    free(t1);
    return st;
}
