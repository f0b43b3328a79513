/* SPDX-License-Identifier: BSD-3-Clause */
/* Choice of the implementation path of one strided transfer, and the module's environment
 * settings. The thresholds are in rma.h, in one block.
 *
 * Paths (see each file's header for the algorithm and its cost):
 *   shm     rma_shm.c     direct strided copy into/out of a node peer's shared segment
 *   vector  rma_vector.c  one MPI_Put/Get/Accumulate with (h)vector datatypes on both sides
 *   blocks  rma_blocks.c  one contiguous MPI operation per block
 *   pack    rma_pack.c    pack the origin side locally, one operation with a contiguous origin
 *
 * Rules (probe: rma_probe.c, at heap creation; numbers from `dmx bench rma` on one 2-core node,
 * Open MPI 4.1.4, see docs/rma.md):
 *   - a heap of one rank has no window: every transfer is a local copy (or sum).
 *   - a target whose segment is mapped here (same node, DMX_SHM not 0): shm for put and get.
 *     Accumulates never take shm: their atomicity must hold against MPI_Accumulate from other
 *     ranks, which only MPI can give.
 *   - one block: one contiguous operation (blocks).
 *   - put and get on a probed heap: blocks of at most DMXI_RMA_SMALL_BLOCK_BYTES take the
 *     method the probe found faster for 1-element blocks, larger ones the one it found faster
 *     for 8 KiB blocks (vector unless another method was clearly faster: pack under osc ucx at
 *     small blocks); a get of small blocks whose span is at most DMXI_RMA_SPAN_DENSITY times
 *     its data fetches the span contiguously when the probe's estimate for that, times
 *     DMXI_RMA_SPAN_MARGIN, beats the strided winner's (osc ucx: 0.04 ns per byte against
 *     23 ns per block).
 *   - otherwise (accumulates, heaps too small to probe, DMX_RMA_PROBE=0): blocks of at least
 *     DMXI_RMA_BLOCKS_MIN_BYTES go one MPI operation per block, smaller ones as one vector
 *     operation.
 *   - a get whose remote (source) blocks overlap cannot use a vector target type (MPI forbids
 *     overlapping target entries); it takes blocks (or span).
 */
#include "rma.h"

#include <stdlib.h>
#include <string.h>

dmx_status dmxi_rma_read_settings(dmxi_rma_settings *s)
{
    dmx_status st = DMX_SUCCESS;
    const char *f = dmxi_setting_str(DMXI_SET_RMA);
    s->shm = dmxi_setting_int(DMXI_SET_SHM) != 0;
    s->force = DMXI_RMA_AUTO;
    s->stream = (int)dmxi_setting_int(DMXI_SET_STREAM);
    s->stream = s->stream < 0 ? -1 : s->stream > 0;
    s->pieces = (int)dmxi_setting_int(DMXI_SET_RMA_PIECES);
    s->pieces = s->pieces < 0 ? -1 : s->pieces > 0;
    if (f && *f && strcmp(f, "auto") != 0) {
        if (strcmp(f, "shm") == 0)
            s->force = DMXI_RMA_SHM;
        else if (strcmp(f, "vector") == 0)
            s->force = DMXI_RMA_VECTOR;
        else if (strcmp(f, "blocks") == 0)
            s->force = DMXI_RMA_BLOCKS;
        else if (strcmp(f, "pack") == 0)
            s->force = DMXI_RMA_PACK;
        else if (strcmp(f, "span") == 0)
            s->force = DMXI_RMA_SPAN;
        else
            DMXI_FAIL(DMX_ERR_ARG, "DMX_RMA=%s: expected auto, shm, vector, blocks, pack or span",
                      f);
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
    if (p == DMXI_RMA_SPAN && x->kind != DMXI_RMA_GET)
        p = DMXI_RMA_AUTO;
    if (p == DMXI_RMA_AUTO) {
        int64_t bb = (int64_t)x->esize * x->blockelems;
        if (direct)
            return DMXI_RMA_SHM;
        if (x->blockcount <= 1)
            return DMXI_RMA_BLOCKS;
        if (h->tune.probed && x->kind != DMXI_RMA_ACC) {
            int k = x->kind == DMXI_RMA_GET;
            int small = bb <= DMXI_RMA_SMALL_BLOCK_BYTES;
            p = small ? h->tune.small[k] : h->tune.large[k];
            if (k && small && !x->nbi) {
                /* span bytes against data bytes; the block term is the strided winner's */
                double span =
                    (double)((x->blockcount - 1) * x->rstride + x->blockelems) * (double)x->esize;
                double data = (double)bb * (double)x->blockcount;
                double t_span = span * h->tune.span_byte;
                double t_str =
                    (double)x->blockcount * h->tune.small_block[1] + data * h->tune.span_byte;
                if (span <= DMXI_RMA_SPAN_DENSITY * data && DMXI_RMA_SPAN_MARGIN * t_span < t_str)
                    p = DMXI_RMA_SPAN;
            }
        } else if (bb >= DMXI_RMA_BLOCKS_MIN_BYTES) {
            p = DMXI_RMA_BLOCKS;
        } else {
            p = DMXI_RMA_VECTOR;
        }
    }
    if (remote_overlap && (p == DMXI_RMA_VECTOR || p == DMXI_RMA_PACK))
        p = DMXI_RMA_BLOCKS;
    return p;
}
