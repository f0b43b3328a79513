/* Choice of the implementation path of one strided transfer, and the module's environment
 * settings. Every threshold of the module is here.
 *
 * Paths (see each file's header for the algorithm and its cost):
 *   shm     rma_shm.c     direct strided copy into/out of a node peer's shared segment
 *   vector  rma_vector.c  one MPI_Put/Get/Accumulate with (h)vector datatypes on both sides
 *   blocks  rma_blocks.c  one contiguous MPI operation per block
 *   pack    rma_pack.c    pack the origin side locally, one operation with a contiguous origin
 *
 * Rules (measured with `dmx bench rma` on one 2-core node, Open MPI 4.1.4, osc rdma, see
 * docs/rma.md; treat them as a first calibration):
 *   - a heap of one rank has no window: every transfer is a local copy (or sum).
 *   - a target whose segment is mapped here (same node, DMX_SHM not 0): shm for put and get.
 *     Accumulates never take shm: their atomicity must hold against MPI_Accumulate from other
 *     ranks, which only MPI can give.
 *   - otherwise blocks of at least BLOCKS_MIN_BYTES: one operation per block (each block is a
 *     large contiguous transfer; MPI's datatype engine only adds overhead);
 *   - otherwise the vector datatype.
 *   - a get whose remote (source) blocks overlap cannot use a vector target type (MPI forbids
 *     overlapping target entries); it takes blocks.
 */
#include "rma.h"

#include <stdlib.h>
#include <string.h>

/* Blocks at least this large go one MPI operation per block. */
#define BLOCKS_MIN_BYTES ((int64_t)16384)

dmx_status dmxi_rma_read_settings(dmxi_rma_settings *s)
{
    dmx_status st = DMX_SUCCESS;
    const char *f = dmxi_setting_str(DMXI_SET_RMA);
    s->shm = dmxi_setting_int(DMXI_SET_SHM) != 0;
    s->force = DMXI_RMA_AUTO;
    if (f && *f && strcmp(f, "auto") != 0) {
        if (strcmp(f, "shm") == 0)
            s->force = DMXI_RMA_SHM;
        else if (strcmp(f, "vector") == 0)
            s->force = DMXI_RMA_VECTOR;
        else if (strcmp(f, "blocks") == 0)
            s->force = DMXI_RMA_BLOCKS;
        else if (strcmp(f, "pack") == 0)
            s->force = DMXI_RMA_PACK;
        else
            DMXI_FAIL(DMX_ERR_ARG, "DMX_RMA=%s: expected auto, shm, vector, blocks or pack", f);
    }
cleanup:
    return st;
}

dmxi_rma_path dmxi_rma_select(const dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    if (h->win == MPI_WIN_NULL)
        return DMXI_RMA_SHM; /* a single rank: local copies only */
    int direct = h->peer[x->pe] != NULL && x->kind != DMXI_RMA_ACC;
    int remote_overlap = x->kind == DMXI_RMA_GET && x->blockcount > 1 && x->rstride < x->blockelems;
    dmxi_rma_path p = h->set.force;
    if (p == DMXI_RMA_SHM && !direct)
        p = DMXI_RMA_AUTO;
    if (p == DMXI_RMA_AUTO) {
        if (direct)
            return DMXI_RMA_SHM;
        if ((int64_t)x->esize * x->blockelems >= BLOCKS_MIN_BYTES || x->blockcount <= 1)
            p = DMXI_RMA_BLOCKS;
        else
            p = DMXI_RMA_VECTOR;
    }
    if (remote_overlap && (p == DMXI_RMA_VECTOR || p == DMXI_RMA_PACK))
        p = DMXI_RMA_BLOCKS;
    return p;
}
