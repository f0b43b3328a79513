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

#include "choice.h"

#include <math.h>
#include <stdio.h>
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

/* The choice from the facts it takes: @p single a heap of one rank, @p mapped the target's
 * segment mapped here, the settings and the probe. dmxi_rma_select for a heap; dmx_rma_explain
 * for a heap or a description of one. */
static dmxi_rma_path select_in(int single, int mapped, const dmxi_rma_settings *set,
                               const dmxi_rma_tune *tune, const dmxi_rma_xfer *x)
{
    if (single)
        return DMXI_RMA_SHM; /* a single rank: local copies only */
    int direct = mapped && x->kind != DMXI_RMA_ACC;
    int remote_overlap = x->kind == DMXI_RMA_GET && x->blockcount > 1 && x->rstride < x->blockelems;
    dmxi_rma_path p = set->force;
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
        if (tune->probed && x->kind != DMXI_RMA_ACC) {
            int k = x->kind == DMXI_RMA_GET;
            int small = bb <= DMXI_RMA_SMALL_BLOCK_BYTES;
            p = small ? tune->small[k] : tune->large[k];
            if (k && small && !x->nbi) {
                /* span bytes against data bytes; the block term is the strided winner's */
                double span =
                    (double)((x->blockcount - 1) * x->rstride + x->blockelems) * (double)x->esize;
                double data = (double)bb * (double)x->blockcount;
                double t_span = span * tune->span_byte;
                double t_str =
                    (double)x->blockcount * tune->small_block[1] + data * tune->span_byte;
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

dmxi_rma_path dmxi_rma_select(const dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    int single = h->win == MPI_WIN_NULL;
    return select_in(single, !single && h->peer[x->pe] != NULL, &h->set, &h->tune, x);
}

/* ---- the choice explained (dmx model rma) ------------------------------------------------ */

static const char *const path_names[] = {"auto", "shm", "vector", "blocks", "pack", "span"};

/* Why the rules took path @p p (the order of select_in). */
static void reason_of(dmx_choice *c, dmxi_rma_path p, int single, int mapped,
                      const dmxi_rma_settings *set, const dmxi_rma_tune *tune,
                      const dmxi_rma_xfer *x)
{
    int64_t bb = (int64_t)x->esize * x->blockelems;
    int i = dmxi_choice_find(c, path_names[p]);
    if (single)
        dmxi_choice_pick(c, i, "rule: a heap of one rank has no window: local copies");
    else if (set->force != DMXI_RMA_AUTO && p == set->force)
        dmxi_choice_pick(c, i, "forced by DMX_RMA=%s", path_names[p]);
    else if (p == DMXI_RMA_SHM)
        dmxi_choice_pick(c, i, "rule: the target's segment is mapped here (put, get)");
    else if (x->blockcount <= 1)
        dmxi_choice_pick(c, i, "rule: one block -> one contiguous operation");
    else if (p == DMXI_RMA_BLOCKS && x->kind == DMXI_RMA_GET && x->rstride < x->blockelems)
        dmxi_choice_pick(c, i, "rule: overlapping remote blocks rule out vector and pack");
    else if (tune->probed && x->kind != DMXI_RMA_ACC)
        dmxi_choice_pick(c, i, "measured by the heap's probe for %s blocks%s",
                         bb <= DMXI_RMA_SMALL_BLOCK_BYTES ? "small" : "large",
                         p == DMXI_RMA_SPAN ? " (span's estimate x margin below strided)" : "");
    else
        dmxi_choice_pick(c, i, "rule (no probe): blocks of %lld B %s %lld B -> %s%s", (long long)bb,
                         bb >= DMXI_RMA_BLOCKS_MIN_BYTES ? ">=" : "<",
                         (long long)DMXI_RMA_BLOCKS_MIN_BYTES, path_names[p],
                         mapped && x->kind == DMXI_RMA_ACC ? " (accumulates never take shm)" : "");
}

dmx_status dmx_rma_explain(const dmx_rma_heap *heap, int pe, const dmx_rma_explain_args *a,
                           dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_rma_settings set;
    dmxi_rma_tune tune;
    dmxi_rma_xfer x;
    DMXI_CHECK(a != NULL && out != NULL, DMX_ERR_NULL, "args or out is NULL");
    DMXI_CHECK(a->op == 'p' || a->op == 'g' || a->op == 'a', DMX_ERR_ARG,
               "op '%c': expected p (put), g (get) or a (accumulate)", a->op);
    DMXI_CHECK(a->count >= 1 && a->blocklen >= 1 && a->stride >= 0 && a->esize >= 1, DMX_ERR_ARG,
               "count, blocklen, esize >= 1 and stride >= 0 needed");
    DMXI_CHECK(heap != NULL || a->ranks >= 1, DMX_ERR_ARG, "ranks < 1");
    DMXI_CHECK(heap == NULL || (pe >= 0 && pe < heap->size), DMX_ERR_ARG, "pe %d out of range", pe);
    memset(&x, 0, sizeof x);
    /* complex elements travel as pairs of reals (rma_ops.c): the same bytes per block and the
     * same stride to block ratio, so the choice is the same with esize the element's */
    x.kind = a->op == 'p' ? DMXI_RMA_PUT : a->op == 'g' ? DMXI_RMA_GET : DMXI_RMA_ACC;
    x.nbi = a->nbi != 0;
    x.esize = (size_t)a->esize;
    x.blockelems = a->blocklen;
    x.blockcount = a->count;
    x.rstride = a->stride;
    x.pe = pe;
    int single = 0, mapped = 0;
    if (heap) {
        set = heap->set;
        tune = heap->tune;
        single = heap->win == MPI_WIN_NULL;
        mapped = !single && heap->peer[pe] != NULL;
    } else {
        DMXI_TRY(dmxi_rma_read_settings(&set));
        memset(&tune, 0, sizeof tune);
        single = a->ranks <= 1;
        mapped = !single && a->same_node && set.shm;
    }
    dmxi_rma_path p = select_in(single, mapped, &set, &tune, &x);
    dmxi_choice_init(out, "rma",
                     "op=%c count=%lld blocklen=%lld stride=%lld esize=%lld nbi=%d ranks=%d "
                     "mapped=%d probed=%d",
                     a->op, (long long)a->count, (long long)a->blocklen, (long long)a->stride,
                     (long long)a->esize, x.nbi, heap ? heap->size : a->ranks, mapped, tune.probed);
    int overlap = x.kind == DMXI_RMA_GET && x.blockcount > 1 && x.rstride < x.blockelems;
    dmxi_choice_add(out, "shm", NAN, single || (mapped && x.kind != DMXI_RMA_ACC), "%s",
                    single                   ? "local copy"
                    : !mapped                ? "target's segment not mapped here"
                    : x.kind == DMXI_RMA_ACC ? "accumulates need MPI's atomicity"
                                             : "direct strided copy");
    dmxi_choice_add(out, "vector", NAN, !single && !overlap, "%s",
                    overlap ? "overlapping remote blocks" : "one operation, vector types");
    dmxi_choice_add(out, "blocks", NAN, !single, "one operation per block");
    dmxi_choice_add(out, "pack", NAN, !single && !overlap, "%s",
                    overlap ? "overlapping remote blocks" : "pack here, one operation");
    dmxi_choice_add(out, "span", NAN, !single && x.kind == DMXI_RMA_GET, "%s",
                    x.kind == DMXI_RMA_GET ? "get the whole span, unpack here" : "gets only");
    reason_of(out, p, single, mapped, &set, &tune, &x);
cleanup:
    return st;
}
