/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast on a 2D grid (seed: "broadcast in a grid"): a ring broadcast along the root's
 * row, then ring broadcasts down every column at once.
 *
 * Algorithm: p = gr x gc with gr the largest divisor of p not above sqrt(p) (a prime p gives a
 * 1 x p grid, i.e. the ring); rank r is (r / gc, r % gc). The row and column communicators are
 * split once and cached with the duplicate.
 * Cost: (gc - 1 + gr - 1)(alpha + m beta), i.e. 2 (sqrt(p) - 1)(alpha + m beta) on a square grid.
 * Temporary memory: none (two cached communicators). */
#include "coll_internal.h"

dmx_status dmxi_bcast_grid(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_ccomm_grid(a->cc));
    int gc = a->cc->gc, gr = a->cc->gr;
    int i = a->rank / gc, j = a->rank % gc, ri = a->root / gc, rj = a->root % gc;
    dmxi_cargs s = *a;
    if (i == ri) {
        s.comm = a->cc->grow;
        s.rank = j;
        s.size = gc;
        s.root = rj;
        DMXI_TRY(dmxi_bcast_ring(&s));
    }
    s.comm = a->cc->gcol;
    s.rank = i;
    s.size = gr;
    s.root = ri;
    DMXI_TRY(dmxi_bcast_ring(&s));
cleanup:
    return st;
}
