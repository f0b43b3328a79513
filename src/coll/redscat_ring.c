/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce-scatter on a ring: in step s rank r sends its partial sum of block r-s-1 to r+1 and
 * adds the partial sum of block r-s-2 arriving from r-1 to its own; after p-1 steps block r is
 * complete on rank r. Also the nearly-equal-blocks version used by the ring allreduce and the
 * reduce-scatter + gather reduce.
 *
 * Preconditions: a commutative op. The work vector (p blocks) is writable.
 * Cost: (p-1)(alpha + m beta + m gamma), m = one block.
 * Temporary memory: one block (the incoming partial sum). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_ring_reduce_scatter_v(const dmxi_cargs *a, void *work, int64_t n, const void *in)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank, next = (r + 1) % p, prev = (r - 1 + p) % p;
    int64_t es = a->esize;
    char *w = work, *tmp = NULL;
    if (p == 1)
        goto cleanup;
    tmp = dmxi_malloc(dmxi_blk_len(n, p, 0) * es, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (ring reduce-scatter)");
    for (int s = 0; s < p - 1; s++) {
        int sb = dmxi_mod((int64_t)r - s - 1, p), rb = dmxi_mod((int64_t)r - s - 2, p);
        int64_t so = dmxi_blk_off(n, p, sb), ro = dmxi_blk_off(n, p, rb);
        int64_t rn = dmxi_blk_len(n, p, rb);
        /* step 0's block is still the untouched input; later ones were reduced into */
        const char *src = (s == 0 && in != NULL ? (const char *)in : w) + so * es;
        DMXI_TRY(dmxi_c_sendrecv(src, dmxi_blk_len(n, p, sb) * es, next, tmp, rn * es, prev,
                                 DMXI_COLL_TAG, a->comm));
        DMXI_TRY(dmxi_c_reduce_local(tmp, w + ro * es, rn, a->type, a->op));
    }
cleanup:
    free(tmp);
    return st;
}

dmx_status dmxi_redscat_ring(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int64_t m = a->count * a->esize;
    DMXI_TRY(dmxi_ring_reduce_scatter_v(a, a->work, a->count * a->size, dmxi_own_src(a, NULL)));
    if (m > 0)
        memmove(a->rbuf, (char *)a->work + (int64_t)a->rank * m, (size_t)m);
cleanup:
    return st;
}
