/* SPDX-License-Identifier: BSD-3-Clause */
/* Allgather on a 2D grid (seed: "all-to-all broadcast in a grid"): a ring allgather along
 * every row, then a ring allgather of whole rows along every column.
 *
 * Algorithm: p = gr x gc (gr the largest divisor of p <= sqrt p), rank r = (r / gc, r % gc), so
 * a row's blocks are contiguous in the result and the column phase moves one contiguous
 * super-block of gc blocks per step.
 * Preconditions: none (prime p: a 1 x p grid, the plain ring).
 * Cost: (gc - 1)(alpha + m beta) + (gr - 1)(alpha + gc m beta) = (gr + gc - 2) alpha + (p-1) m
 * beta; 2 (sqrt p - 1) alpha on a square grid instead of (p-1) alpha.
 * Temporary memory: none (two cached communicators). */
#include "coll_internal.h"

dmx_status dmxi_allgather_grid(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_ccomm_grid(a->cc));
    int gc = a->cc->gc, gr = a->cc->gr, i = a->rank / gc, j = a->rank % gc;
    int64_t m = a->count * a->esize;
    dmxi_cargs s = *a;
    s.comm = a->cc->grow;
    s.rank = j;
    s.size = gc;
    s.rbuf = (char *)a->rbuf + (int64_t)i * gc * m;
    DMXI_TRY(dmxi_allgather_ring(&s));
    s.comm = a->cc->gcol;
    s.rank = i;
    s.size = gr;
    s.sbuf = MPI_IN_PLACE; /* the own super-block is the row just gathered, not the send buffer */
    s.rbuf = a->rbuf;
    s.esize = (int64_t)gc * m;
    s.count = 1;
    DMXI_TRY(dmxi_allgather_ring(&s));
cleanup:
    return st;
}
