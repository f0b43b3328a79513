/* SPDX-License-Identifier: BSD-3-Clause */
/* Scatter, flat: the root sends block i straight to rank i, one rank after another.
 *
 * Preconditions: none. The root's own block was copied by the front end.
 * Cost: (p-1)(alpha + m beta) (m = one block).
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_scatter_flat(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int64_t m = a->count * a->esize;
    if (a->rank == a->root) {
        for (int i = 1; i < a->size; i++) {
            int d = (a->root + i) % a->size;
            DMXI_TRY(dmxi_c_send((const char *)a->sbuf + d * m, m, d, DMXI_COLL_TAG, a->comm));
        }
    } else {
        DMXI_TRY(dmxi_c_recv(a->rbuf, m, a->root, DMXI_COLL_TAG, a->comm));
    }
cleanup:
    return st;
}
