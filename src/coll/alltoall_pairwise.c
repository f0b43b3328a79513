/* SPDX-License-Identifier: BSD-3-Clause */
/* Personalized all-to-all, pairwise exchange on a ring: in step s (1 <= s < p) rank r sends
 * block r+s to rank r+s and receives block r-s from rank r-s, one MPI_Sendrecv per step.
 *
 * Preconditions: none; sendbuf does not alias recvbuf (the front end copies when in place).
 * Cost: (p-1)(alpha + m beta), m = one block; every byte makes one hop.
 * Temporary memory: none. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_alltoall_pairwise(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    const char *s = a->sbuf;
    char *d = a->rbuf;
    if (m > 0)
        memcpy(d + (int64_t)r * m, s + (int64_t)r * m, (size_t)m);
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        DMXI_TRY(dmxi_c_sendrecv(s + (int64_t)to * m, m, to, d + (int64_t)from * m, m, from,
                                 DMXI_COLL_TAG, a->comm));
    }
cleanup:
    return st;
}
