/* SPDX-License-Identifier: BSD-3-Clause */
/* Gather on a binomial tree (the scatter's mirror image): every rank collects the blocks of
 * its subtree, relative ranks [v, v + lowbit(v)), then sends them to its parent in one message.
 *
 * Preconditions: none.
 * Cost: ceil(log2 p) alpha + (p-1) m beta.
 * Temporary memory: the subtree's blocks on inner ranks (at most p/2 blocks), p blocks at the
 * root if root != 0 (then rotated into place). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_gather_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    char *tmp = NULL;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t m = a->count * a->esize;
    int low = dmxi_binomial_low(v, p);
    int mine = v + low < p ? low : p - v;
    char *have = NULL;
    if (v == 0 && a->root == 0) {
        have = a->rbuf;
    } else if (v > 0 && mine == 1) {
        DMXI_TRY(dmxi_c_send(a->sbuf, m, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
        goto cleanup;
    } else {
        tmp = dmxi_malloc((int64_t)mine * m, 1);
        DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (binomial gather)");
        have = tmp;
        const void *own = v == 0 ? (const char *)a->rbuf + (int64_t)a->root * m : a->sbuf;
        if (m > 0)
            memcpy(tmp, own, (size_t)m);
    }
    for (int mask = 1; mask < low; mask <<= 1) {
        int c = v + mask;
        if (c >= p)
            break;
        int n = c + mask < p ? mask : p - c;
        DMXI_TRY(dmxi_c_recv(have + (int64_t)mask * m, (int64_t)n * m, (c + a->root) % p,
                             DMXI_COLL_TAG, a->comm));
    }
    if (v > 0) {
        DMXI_TRY(
            dmxi_c_send(have, (int64_t)mine * m, (v - low + a->root) % p, DMXI_COLL_TAG, a->comm));
    } else if (a->root != 0) {
        dmxi_rotate_blocks(a->rbuf, tmp, p, p - a->root, m); /* relative order to rank order */
    }
cleanup:
    free(tmp);
    return st;
}
