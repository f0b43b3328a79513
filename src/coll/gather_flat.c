/* SPDX-License-Identifier: BSD-3-Clause */
/* Gather, flat: every rank sends its block straight to the root, which receives them in rank
 * order.
 *
 * Preconditions: none. The root's own block was placed by the front end.
 * Cost: (p-1)(alpha + m beta) at the root.
 * Temporary memory: none. */
#include "coll_internal.h"

dmx_status dmxi_gather_flat(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int64_t m = a->count * a->esize;
    if (a->rank == a->root) {
        for (int i = 1; i < a->size; i++) {
            int s = (a->root + i) % a->size;
            DMXI_TRY(dmxi_c_recv((char *)a->rbuf + s * m, m, s, DMXI_COLL_TAG, a->comm));
        }
    } else {
        DMXI_TRY(dmxi_c_send(a->sbuf, m, a->root, DMXI_COLL_TAG, a->comm));
    }
cleanup:
    return st;
}
