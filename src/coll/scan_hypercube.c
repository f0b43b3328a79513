/* SPDX-License-Identifier: BSD-3-Clause */
/* Prefix reduction on a hypercube (seed: "prefix sum"): every rank keeps its prefix and the
 * total of its current subcube; in the round of distance d it swaps totals with r ^ d, adds the
 * partner's total to its own total, and to its prefix if the partner is lower.
 *
 * Algorithm for any p: rounds whose partner r ^ d is >= p are skipped. The totals that then miss
 * ranks belong to the topmost partial subcube and only ever flow to lower ranks' totals, never
 * into a prefix, so the prefixes are exact. Exclusive scan: the prefix starts empty and takes
 * only partners' totals; rank 0's receive buffer is not written.
 * Order: the prefix only ever takes lower ranks' totals on its left; the total takes the
 * partner's on the left when the partner is lower, else on the right (then copied back), so
 * a non-commutative op is combined in rank order.
 * Preconditions: none on the op.
 * Cost: ceil(log2 p)(alpha + m beta + 2 m gamma).
 * Temporary memory: 3 m bytes (total, incoming, exclusive prefix). */
#include "coll_internal.h"

#include <string.h>

dmx_status dmxi_scan_hypercube(const dmxi_cargs *a, int exclusive)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, r = a->rank;
    int64_t m = a->count * a->esize;
    char *tot = NULL, *in = NULL, *ex = NULL;
    int have_ex = 0;
    tot = dmxi_malloc(m, 1);
    in = dmxi_malloc(m, 1);
    ex = dmxi_malloc(m, 1);
    DMXI_CHECK(tot && in && ex, DMX_ERR_ALLOC, "out of memory (hypercube scan)");
    if (m > 0)
        memcpy(tot, a->sbuf, (size_t)m);
    for (int d = 1; d < p; d <<= 1) {
        int t = r ^ d;
        if (t >= p)
            continue;
        /* until the first reduce, tot is the input untouched */
        DMXI_TRY(dmxi_c_sendrecv(d == 1 ? a->sbuf : tot, m, t, in, m, t, DMXI_COLL_TAG, a->comm));
        if (t < r) {
            if (have_ex)
                DMXI_TRY(dmxi_c_reduce_local(in, ex, a->count, a->type, a->op));
            else if (m > 0)
                memcpy(ex, in, (size_t)m);
            have_ex = 1;
        }
        if (t < r || !a->noncomm) {
            DMXI_TRY(dmxi_c_reduce_local(in, tot, a->count, a->type, a->op));
        } else { /* tot = tot op in, the partner's ranks being higher */
            DMXI_TRY(dmxi_c_reduce_local(tot, in, a->count, a->type, a->op));
            char *x = tot;
            tot = in;
            in = x;
        }
    }
    if (exclusive) {
        if (have_ex && m > 0)
            memcpy(a->rbuf, ex, (size_t)m);
    } else {
        if (m > 0)
            memcpy(a->rbuf, a->sbuf, (size_t)m);
        if (have_ex)
            DMXI_TRY(dmxi_c_reduce_local(ex, a->rbuf, a->count, a->type, a->op));
    }
cleanup:
    free(tot);
    free(in);
    free(ex);
    return st;
}
