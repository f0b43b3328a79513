/* SPDX-License-Identifier: BSD-3-Clause */
/* Circular shift by k on a ring, store and forward (seed): every block moves min(k, p-k) hops
 * between neighbours, in the shorter direction, all blocks at once.
 *
 * Preconditions: 0 <= k < p (normalized by the front end); sendbuf does not alias recvbuf.
 * Cost: min(k, p-k)(alpha + m beta). (DMX_COLL_MPI sends directly: alpha + m beta on a switch.)
 * Temporary memory: 2 m bytes when more than one hop. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_shift_ring(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize, k = a->k;
    char *t0 = NULL, *t1 = NULL;
    if (k == 0) {
        if (m > 0)
            memcpy(a->rbuf, a->sbuf, (size_t)m);
        goto cleanup;
    }
    int hops = (int)(k <= p - k ? k : p - k), fwd = k <= p - k;
    int to = fwd ? (r + 1) % p : (r - 1 + p) % p, from = fwd ? (r - 1 + p) % p : (r + 1) % p;
    if (hops == 1) {
        DMXI_TRY(dmxi_c_sendrecv(a->sbuf, m, to, a->rbuf, m, from, DMXI_COLL_TAG, a->comm));
        goto cleanup;
    }
    t0 = dmxi_malloc(m, 1);
    t1 = dmxi_malloc(m, 1);
    DMXI_CHECK(t0 && t1, DMX_ERR_ALLOC, "out of memory (ring shift)");
    const char *cur = a->sbuf;
    for (int h = 0; h < hops; h++) {
        char *dst = h == hops - 1 ? a->rbuf : t0;
        DMXI_TRY(dmxi_c_sendrecv(cur, m, to, dst, m, from, DMXI_COLL_TAG, a->comm));
        cur = dst;
        char *x = t0;
        t0 = t1;
        t1 = x;
    }
cleanup:
    free(t0);
    free(t1);
    return st;
}
