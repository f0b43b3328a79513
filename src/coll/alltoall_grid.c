/* SPDX-License-Identifier: BSD-3-Clause */
/* Personalized all-to-all on a 2D grid, two phases: along my row, each rank of the row gets in
 * one message all my blocks for its column (gr blocks); then along my column, each rank of the
 * column gets all the blocks for it that arrived from my row (gc blocks).
 *
 * Algorithm: p = gr x gc (gr the largest divisor of p <= sqrt p), rank = (r / gc, r % gc);
 * both phases are pairwise exchanges on the cached row and column communicators, with packing
 * in between. The column phase's receive order is exactly the result order.
 * Preconditions: none (prime p gives 1 x p: one pairwise phase plus copies).
 * Cost: (gc - 1)(alpha + gr m beta) + (gr - 1)(alpha + gc m beta): (gr + gc - 2) alpha, about
 * 2 sqrt(p) alpha instead of (p-1) alpha, for twice the volume.
 * Temporary memory: 2 p blocks. */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_alltoall_grid(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *pk = NULL, *mid = NULL;
    int64_t m = a->count * a->esize;
    int p = a->size;
    if (m == 0)
        goto cleanup;
    DMXI_TRY(dmxi_ccomm_grid(a->cc));
    int gc = a->cc->gc, gr = a->cc->gr, i = a->rank / gc, j = a->rank % gc;
    (void)j;
    pk = dmxi_malloc((int64_t)p * m, 1);
    mid = dmxi_malloc((int64_t)p * m, 1);
    DMXI_CHECK(pk && mid, DMX_ERR_ALLOC, "out of memory (grid all-to-all)");
    /* Phase 1: pk[jj][ii] = my block for rank (ii, jj). */
    for (int jj = 0; jj < gc; jj++)
        for (int ii = 0; ii < gr; ii++)
            memcpy(pk + ((int64_t)jj * gr + ii) * m,
                   (const char *)a->sbuf + ((int64_t)ii * gc + jj) * m, (size_t)m);
    dmxi_cargs s = *a;
    s.comm = a->cc->grow;
    s.rank = j;
    s.size = gc;
    s.count = 1;
    s.esize = (int64_t)gr * m;
    s.sbuf = pk;
    s.rbuf = mid; /* mid[jsrc][ii]: from (i, jsrc) for (ii, j) */
    DMXI_TRY(dmxi_alltoall_pairwise(&s));
    /* Phase 2: pk[ii][jsrc] = mid[jsrc][ii]; the column exchange delivers rbuf[isrc][jsrc]. */
    for (int ii = 0; ii < gr; ii++)
        for (int js = 0; js < gc; js++)
            memcpy(pk + ((int64_t)ii * gc + js) * m, mid + ((int64_t)js * gr + ii) * m, (size_t)m);
    s.comm = a->cc->gcol;
    s.rank = i;
    s.size = gr;
    s.esize = (int64_t)gc * m;
    s.sbuf = pk;
    s.rbuf = a->rbuf;
    DMXI_TRY(dmxi_alltoall_pairwise(&s));
cleanup:
    free(pk);
    free(mid);
    return st;
}
