/* SPDX-License-Identifier: BSD-3-Clause */
/* Scatter on a binomial tree: the root sends each child the blocks of the child's whole
 * subtree in one message; inner ranks keep their own block and pass the rest on.
 *
 * Algorithm: blocks are numbered by relative rank v = (rank - root) mod p, so the subtree of v,
 * relative ranks [v, v + lowbit(v)) clipped to p, is one contiguous range. The root builds that
 * rotated order in a copy if root != 0.
 * Preconditions: none.
 * Cost: sum over the ceil(log2 p) levels of (alpha + 2^k m beta) = ceil(log2 p) alpha +
 * (p-1) m beta.
 * Temporary memory: p blocks at the root if root != 0; lowbit(v) blocks on inner ranks (at most
 * p/2). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_scatter_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *tmp = NULL;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t m = a->count * a->esize;
    int low = dmxi_binomial_low(v, p);
    int mine = v + low < p ? low : p - v; /* blocks of my subtree */
    const char *have = NULL;              /* my subtree's blocks, relative order */
    if (v == 0) {
        if (a->root == 0) {
            have = a->sbuf;
        } else {
            tmp = dmxi_malloc((int64_t)p * m, 1);
            DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (binomial scatter)");
            dmxi_rotate_blocks(tmp, a->sbuf, p, a->root, m); /* rank order to relative order */
            have = tmp;
        }
    } else {
        if (mine == 1) {
            DMXI_TRY(dmxi_c_recv(a->rbuf, m, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
            goto cleanup;
        }
        tmp = dmxi_malloc((int64_t)mine * m, 1);
        DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (binomial scatter)");
        DMXI_TRY(
            dmxi_c_recv(tmp, (int64_t)mine * m, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
        have = tmp;
        if (m > 0)
            memcpy(a->rbuf, tmp, (size_t)m);
    }
    for (int mask = low >> 1; mask >= 1; mask >>= 1) {
        int c = v + mask;
        if (c >= p)
            continue;
        int n = c + mask < p ? mask : p - c;
        DMXI_TRY(dmxi_c_send(have + (int64_t)mask * m, (int64_t)n * m, (c + a->root) % p,
                             DMXI_COLL_TAG, a->comm));
    }
cleanup:
    free(tmp);
    return st;
}
