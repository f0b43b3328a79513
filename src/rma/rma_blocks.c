/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocks path: one contiguous MPI operation per block.
 *
 * Algorithm: for each of the blockcount blocks, MPI_Put/MPI_Get/MPI_Accumulate of blockelems
 *   contiguous elements (cut into pieces of at most INT_MAX elements), then the completion the
 *   blocking form needs.
 * Preconditions: none (works for overlapping remote sources of a get).
 * Cost: blockcount*(alpha + blockelems*beta) issued back to back; the network pipelines them,
 *   so with large blocks this approaches n*beta with no datatype processing.
 * Temporary memory: none. */
#include "rma.h"

dmx_status dmxi_rma_blocks(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    dmx_status st = DMX_SUCCESS;
    for (int64_t b = 0; b < x->blockcount; b++) {
        for (int64_t e0 = 0; e0 < x->blockelems; e0 += INT_MAX) {
            int64_t be = x->blockelems - e0 < INT_MAX ? x->blockelems - e0 : INT_MAX;
            char *l = x->local + (size_t)(b * x->lstride + e0) * x->esize;
            MPI_Aint rd = x->rdisp + (MPI_Aint)((b * x->rstride + e0) * (int64_t)x->esize);
            DMXI_TRY(
                dmxi_rma_issue(h, x->kind, l, (int)be, x->mtype, x->pe, rd, (int)be, x->mtype));
        }
    }
    DMXI_TRY(dmxi_rma_complete(h, x));
cleanup:
    return st;
}
