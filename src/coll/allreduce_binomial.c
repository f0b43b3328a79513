/* SPDX-License-Identifier: BSD-3-Clause */
/* Allreduce as a binomial-tree reduce to rank 0 followed by a binomial-tree broadcast.
 *
 * Preconditions: a commutative op.
 * Cost: 2 ceil(log2 p)(alpha + m beta) + ceil(log2 p) m gamma.
 * Temporary memory: m bytes (the reduce's). */
#include "coll_internal.h"

dmx_status dmxi_allreduce_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_cargs s = *a;
    s.root = 0;
    DMXI_TRY(dmxi_reduce_binomial(&s));
    DMXI_TRY(dmxi_bcast_binomial(&s));
cleanup:
    return st;
}
