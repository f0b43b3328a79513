/* SPDX-License-Identifier: BSD-3-Clause */
/* Circular shift by k on a 2D grid (torus): with k = a gc + b, first every row shifts by b
 * columns, then every column j shifts by a rows, or a + 1 for the blocks that wrapped around
 * their row (those now in columns j < b).
 *
 * Algorithm: p = gr x gc (gr the largest divisor of p <= sqrt p), rank = (r / gc, r % gc); both
 * steps are direct exchanges on the cached row and column communicators.
 * Preconditions: 0 <= k < p; sendbuf does not alias recvbuf.
 * Cost: 2 (alpha + m beta), independent of k (the ring needs min(k, p-k) hops).
 * Temporary memory: m bytes. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_shift_grid(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *t = NULL;
    int64_t m = a->count * a->esize;
    DMXI_TRY(dmxi_ccomm_grid(a->cc));
    int gc = a->cc->gc, gr = a->cc->gr, i = a->rank / gc, j = a->rank % gc;
    int sa = (int)(a->k / gc), sb = (int)(a->k % gc);
    t = dmxi_malloc(m, 1);
    DMXI_CHECK(t != NULL, DMX_ERR_ALLOC, "out of memory (grid shift)");
    DMXI_TRY(dmxi_c_sendrecv(a->sbuf, m, (j + sb) % gc, t, m, (j - sb + gc) % gc, DMXI_COLL_TAG,
                             a->cc->grow));
    int down = (sa + (j < sb ? 1 : 0)) % gr;
    DMXI_TRY(dmxi_c_sendrecv(t, m, (i + down) % gr, a->rbuf, m, (i - down + gr) % gr,
                             DMXI_COLL_TAG2, a->cc->gcol));
cleanup:
    free(t);
    return st;
}
