/* SPDX-License-Identifier: BSD-3-Clause */
/* Pack path: the origin side is made contiguous locally, the target side stays a vector type.
 *
 * Algorithm: put/acc: copy the source blocks into a contiguous buffer, issue one operation with
 *   a contiguous origin and a vector target type, wait for local completion, free the buffer.
 *   get: one MPI_Get into a contiguous buffer, wait for it, then unpack into the destination
 *   blocks. Data larger than PACK_BYTES goes in pieces of whole blocks, so the buffer stays
 *   bounded; a piece has at most DMXI_RMA_PIECE(h) blocks (rma.h). The target never calls
 * anything (no unpack at the target). Preconditions: remote blocks do not overlap (as for the
 * vector path). Cost: n*beta_mem to pack (or unpack) + alpha + n*beta for one contiguous-origin
 * operation per piece; every piece waits for its completion, so _nbi forms block here. Temporary
 * memory: min(n, PACK_BYTES (1 MiB) or one block) bytes. */
#include "rma.h"

#include <stdlib.h>

#define PACK_BYTES ((int64_t)1 << 20)

dmx_status dmxi_rma_pack(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    dmx_status st = DMX_SUCCESS;
    char *buf = NULL;
    int64_t bbytes = x->blockelems * (int64_t)x->esize;
    int64_t per = bbytes >= PACK_BYTES ? 1 : PACK_BYTES / bbytes;
    if (per > DMXI_RMA_PIECE(h))
        per = DMXI_RMA_PIECE(h);
    if (per > x->blockcount)
        per = x->blockcount;
    if (per * x->blockelems > INT_MAX || x->blockelems > INT_MAX) {
        /* pieces would not fit one MPI count: the vector path cuts them */
        DMXI_TRY(dmxi_rma_vector(h, x));
        goto cleanup;
    }
    buf = dmxi_malloc(per * bbytes, 1);
    DMXI_CHECK(buf != NULL, DMX_ERR_ALLOC, "pack buffer of %lld bytes", (long long)(per * bbytes));
    for (int64_t b0 = 0; b0 < x->blockcount; b0 += per) {
        int64_t nb = x->blockcount - b0 < per ? x->blockcount - b0 : per;
        char *l = x->local + (size_t)(b0 * x->lstride) * x->esize;
        MPI_Aint rd = x->rdisp + (MPI_Aint)(b0 * x->rstride * (int64_t)x->esize);
        int rc = 1, lc = (int)(nb * x->blockelems);
        MPI_Datatype rt = x->mtype;
        if (x->rstride == x->blockelems || nb == 1)
            rc = lc;
        else
            DMXI_TRY(dmxi_rma_vector_type(h, x->mtype, (int)nb, (int)x->blockelems,
                                          (MPI_Aint)(x->rstride * (int64_t)x->esize), &rt));
        if (x->kind == DMXI_RMA_GET) {
            DMXI_TRY(dmxi_rma_issue(h, x->kind, buf, lc, x->mtype, x->pe, rd, rc, rt));
            DMXI_MPI(MPI_Win_flush(x->pe, h->win));
            dmxi_rma_copy(l, buf, x->lstride, x->blockelems, x->blockelems, nb, x->esize);
        } else {
            dmxi_rma_copy(buf, l, x->blockelems, x->lstride, x->blockelems, nb, x->esize);
            DMXI_TRY(dmxi_rma_issue(h, x->kind, buf, lc, x->mtype, x->pe, rd, rc, rt));
            DMXI_MPI(MPI_Win_flush_local(x->pe, h->win));
        }
    }
cleanup:
    free(buf);
    return st;
}
