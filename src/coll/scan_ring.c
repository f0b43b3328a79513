/* SPDX-License-Identifier: BSD-3-Clause */
/* Prefix reduction on a ring (a chain): rank r receives the prefix of ranks 0..r-1 from r-1,
 * adds its own input and passes the result to r+1.
 *
 * Preconditions: a commutative op is not needed (the order is rank order).
 * Cost: (p-1)(alpha + m beta + m gamma): the last rank waits for the whole chain.
 * Temporary memory: m bytes (none on rank 0, nor on the last rank of an exclusive scan). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_scan_ring(const dmxi_cargs *a, int exclusive)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    char *tmp = NULL;
    const void *out = a->sbuf; /* the prefix including me, for rank r + 1; rank 0's is its input */
    if (!exclusive && m > 0)
        memcpy(a->rbuf, a->sbuf, (size_t)m);
    if (r > 0) {
        /* The prefix of ranks 0..r-1 arrives in the result itself for exscan (the front end
         * gives scans a send buffer that never aliases it), else in tmp. MPI_Reduce_local
         * computes inout = in op inout, so the lower ranks' prefix is the left operand. */
        int fwd = r < p - 1;
        if (!exclusive || fwd) {
            tmp = dmxi_malloc(m, 1);
            DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (ring scan)");
        }
        if (!exclusive) {
            DMXI_TRY(dmxi_c_recv(tmp, m, r - 1, DMXI_COLL_TAG, a->comm));
            DMXI_TRY(dmxi_c_reduce_local(tmp, a->rbuf, a->count, a->type, a->op));
            out = a->rbuf;
        } else {
            DMXI_TRY(dmxi_c_recv(a->rbuf, m, r - 1, DMXI_COLL_TAG, a->comm));
            if (fwd) {
                if (m > 0)
                    memcpy(tmp, a->sbuf, (size_t)m);
                DMXI_TRY(dmxi_c_reduce_local(a->rbuf, tmp, a->count, a->type, a->op));
                out = tmp;
            }
        }
    }
    if (r < p - 1)
        DMXI_TRY(dmxi_c_send(out, m, r + 1, DMXI_COLL_TAG, a->comm));
cleanup:
    free(tmp);
    return st;
}
