/* SPDX-License-Identifier: BSD-3-Clause */
/* Vector path: one MPI operation whose origin and target datatypes are (h)vectors.
 *
 * Algorithm: describe the blocks on each side as MPI_Type_create_hvector(blockcount,
 *   blockelems, stride*esize, element type) (cached per heap, 16 entries, least recently used
 *   evicted) and issue one MPI_Put, MPI_Get or MPI_Accumulate. A contiguous side (stride ==
 *   blockelems) uses a plain count instead. Transfers of more than INT_MAX blocks, or blocks of
 *   more than INT_MAX elements, are cut into pieces that fit.
 * Preconditions: the remote blocks do not overlap (guaranteed for put/acc by argument checks;
 *   rma_select.c sends overlapping get sources to the blocks path).
 * Cost: ceil(blockcount/piece)*alpha + n*beta (piece: DMXI_RMA_PIECE, rma.h: 32768 blocks, or
 * one operation where the probe found MPI's datatype engine fast) for operations in MPI's own
 * strided engine (on osc rdma a put per contiguous piece inside MPI, but without a library call per
 * block). Temporary memory: none beyond the cached datatypes. */
#include "rma.h"

/* Type of nb blocks of be elements at stride (elements) starting at the side's element 0. */
static dmx_status side_type(dmx_rma_heap *h, const dmxi_rma_xfer *x, int64_t stride, int nb, int be,
                            int *count, MPI_Datatype *t)
{
    if (stride == be || nb == 1) {
        *count = nb * be; /* contiguous (the caller keeps nb*be within INT_MAX) */
        *t = x->mtype;
        return DMX_SUCCESS;
    }
    *count = 1;
    return dmxi_rma_vector_type(h, x->mtype, nb, be, (MPI_Aint)(stride * (int64_t)x->esize), t);
}

dmx_status dmxi_rma_vector(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    dmx_status st = DMX_SUCCESS;
    int64_t be_max = INT_MAX;
    /* a piece: up to nbmax blocks, each cut into parts of at most be_max elements */
    for (int64_t e0 = 0; e0 < x->blockelems; e0 += be_max) {
        int64_t be = x->blockelems - e0 < be_max ? x->blockelems - e0 : be_max;
        int64_t nbmax = INT_MAX / be;
        if (nbmax > DMXI_RMA_PIECE(h))
            nbmax = DMXI_RMA_PIECE(h);
        for (int64_t b0 = 0; b0 < x->blockcount; b0 += nbmax) {
            int64_t nb = x->blockcount - b0 < nbmax ? x->blockcount - b0 : nbmax;
            int lc = 0, rc = 0;
            MPI_Datatype lt, rt;
            char *l = x->local + (size_t)(b0 * x->lstride + e0) * x->esize;
            MPI_Aint rd = x->rdisp + (MPI_Aint)((b0 * x->rstride + e0) * (int64_t)x->esize);
            DMXI_TRY(side_type(h, x, x->lstride, (int)nb, (int)be, &lc, &lt));
            DMXI_TRY(side_type(h, x, x->rstride, (int)nb, (int)be, &rc, &rt));
            DMXI_TRY(dmxi_rma_issue(h, x->kind, l, lc, lt, x->pe, rd, rc, rt));
        }
    }
    DMXI_TRY(dmxi_rma_complete(h, x));
cleanup:
    return st;
}
