/* SPDX-License-Identifier: BSD-3-Clause */
/* Span path (gets only): fetch the whole remote span contiguously and unpack it here.
 *
 * Algorithm: the remote blocks of a get lie in [rdisp, rdisp + ((blockcount-1)*rstride +
 *   blockelems)*esize), which the argument checks keep inside the target's heap; reading the
 *   gaps between blocks is harmless (a get writes nothing remote). The span is fetched in
 *   pieces of whole blocks of at most SPAN_BYTES with MPI_Rget into two buffers in turn, and
 *   each piece is unpacked into the destination blocks while the next one is in flight.
 * Preconditions: a get; each block fits a piece (blockelems*esize <= SPAN_BYTES), else the
 *   transfer goes to the vector path. Chosen by rma_select.c for small dense blocks (the span
 *   is at most a few times the data) when the probe's estimate for it, times
 *   DMXI_RMA_SPAN_MARGIN (rma.h), is below the strided methods': one contiguous transfer runs at
 * the network's or memory's full rate where a strided one pays a cost per block (under osc ucx
 * about 23 ns per 1-element block against 0.04 ns per byte in the probe; 8 MiB of 1-element blocks:
 * 8-12 ms against 43-82 ms for the vector). Cost: ceil(span/SPAN_BYTES) * alpha + span*beta +
 * unpack (data*beta_mem), overlapped. The _nbi form also completes before it returns (the data must
 * arrive to be unpacked). Temporary memory: 2 x min(span, SPAN_BYTES) = at most 2 MiB. */
#include "rma.h"

#include <stdlib.h>

#define SPAN_BYTES ((int64_t)1 << 20)

dmx_status dmxi_rma_span(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    dmx_status st = DMX_SUCCESS;
    char *buf[2] = {NULL, NULL};
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int64_t es = (int64_t)x->esize, bb = x->blockelems * es, rs = x->rstride * es;
    int64_t nb[2] = {0, 0}, b0s[2] = {0, 0};
    if (x->kind != DMXI_RMA_GET || bb > SPAN_BYTES)
        return dmxi_rma_vector(h, x);
    /* blocks per piece: the span of per blocks is (per-1)*rs + bb <= SPAN_BYTES */
    int64_t per = rs > 0 ? (SPAN_BYTES - bb) / rs + 1 : x->blockcount;
    if (per > x->blockcount)
        per = x->blockcount;
    int64_t piece = (per - 1) * rs + bb;
    buf[0] = dmxi_malloc(piece, 1);
    buf[1] = dmxi_malloc(piece, 1);
    DMXI_CHECK(buf[0] && buf[1], DMX_ERR_ALLOC, "span buffers of 2 x %lld bytes", (long long)piece);
    dmxi_rma_touch(&h->pending, x->pe);
    int64_t next = 0;
    int cur = 0;
    /* keep up to two pieces in flight: issue into a free buffer, wait for the older one */
    for (int k = 0; k < 2 && next < x->blockcount; k++) {
        nb[k] = x->blockcount - next < per ? x->blockcount - next : per;
        b0s[k] = next;
        int cnt = 0;
        DMXI_TRY(dmxi_to_int((nb[k] - 1) * rs + bb, &cnt, "span piece"));
        DMXI_MPI(MPI_Rget(buf[k], cnt, MPI_BYTE, x->pe, x->rdisp + (MPI_Aint)(next * rs), cnt,
                          MPI_BYTE, h->win, &req[k]));
        next += nb[k];
    }
    while (req[cur] != MPI_REQUEST_NULL) {
        DMXI_MPI(MPI_Wait(&req[cur], MPI_STATUS_IGNORE));
        dmxi_rma_copy(x->local + (size_t)(b0s[cur] * x->lstride) * x->esize, buf[cur], x->lstride,
                      x->rstride, x->blockelems, nb[cur], x->esize);
        if (next < x->blockcount) {
            nb[cur] = x->blockcount - next < per ? x->blockcount - next : per;
            b0s[cur] = next;
            int cnt = 0;
            DMXI_TRY(dmxi_to_int((nb[cur] - 1) * rs + bb, &cnt, "span piece"));
            DMXI_MPI(MPI_Rget(buf[cur], cnt, MPI_BYTE, x->pe, x->rdisp + (MPI_Aint)(next * rs), cnt,
                              MPI_BYTE, h->win, &req[cur]));
            next += nb[cur];
        }
        cur ^= 1;
    }
cleanup:
    for (int k = 0; k < 2; k++)
        if (req[k] != MPI_REQUEST_NULL)
            DMXI_MPI_ALL(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    free(buf[0]);
    free(buf[1]);
    return st;
}
