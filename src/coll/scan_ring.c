/* Prefix reduction on a ring (a chain): rank r receives the prefix of ranks 0..r-1 from r-1,
 * adds its own input and passes the result to r+1.
 *
 * Preconditions: a commutative op is not needed (the order is rank order).
 * Cost: (p-1)(alpha + m beta + m gamma): the last rank waits for the whole chain.
 * Temporary memory: 2 m bytes. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_scan_ring(const dmxi_cargs *a, int exclusive)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    char *in = NULL, *fw = NULL;
    in = dmxi_malloc(m, 1);
    fw = dmxi_malloc(m, 1);
    DMXI_CHECK(in && fw, DMX_ERR_ALLOC, "out of memory (ring scan)");
    if (m > 0)
        memcpy(fw, a->sbuf, (size_t)m); /* prefix including me */
    if (r > 0) {
        DMXI_TRY(dmxi_c_recv(in, m, r - 1, DMXI_COLL_TAG, a->comm));
        /* fw = in op own: MPI_Reduce_local computes inout = in op inout */
        DMXI_TRY(dmxi_c_reduce_local(in, fw, a->count, a->type, a->op));
    }
    if (r < p - 1)
        DMXI_TRY(dmxi_c_send(fw, m, r + 1, DMXI_COLL_TAG, a->comm));
    if (m > 0) {
        if (!exclusive)
            memcpy(a->rbuf, fw, (size_t)m);
        else if (r > 0)
            memcpy(a->rbuf, in, (size_t)m);
    }
cleanup:
    free(in);
    free(fw);
    return st;
}
