/* SPDX-License-Identifier: BSD-3-Clause */
/* PCX: personalized census (Hoefler, Siebert, Lumsdaine, PPoPP 2010, protocol PCX).
 *
 * Algorithm
 *   1. Post one MPI_Isend per payload to another rank.
 *   2. MPI_Ireduce_scatter_block (SUM) of a P-vector of int64 holding how many payloads this
 *      rank sends to each rank: rank j gets the number of messages it will receive. A rank
 *      with invalid entries contributes DMXI_XCHG_POISON to every element instead.
 *   3. Meanwhile and afterwards: MPI_Improbe(MPI_ANY_SOURCE, round tag) + MPI_Mrecv into the
 *      result (the probe gives the size), until as many messages as announced have arrived
 *      and the local sends have completed.
 *   Receiving already starts while the census is in flight: every message with this round's
 *   tag belongs to this round.
 *
 * Preconditions: MPI-3 (nonblocking reduce-scatter, matched probes); no other traffic with
 * this round's tag on the communicator.
 *
 * Cost in LogGP terms (k payloads of s bytes per rank; P ranks). The census is a
 * reduce-scatter of P int64, bounded below (seed, T_RS) by
 *   T_RS(P) >= 8*G*(P-1) + (L + 2o - G)*ceil(log2 P)  = Theta(P),
 * which recursive halving attains with ceil(log2 P) messages per rank carrying 8(P-1) bytes
 * in all. Open MPI 4.1 (libnbc) instead reduces the whole P-vector up a binomial tree to rank 0
 * (ceil(log2 P) rounds of 8P bytes) and scatters it linearly from there (P-1 sends by rank
 * 0): Theta(P) either way. The payload phase adds k*(o + (s-1)G) + L + 2o and a probe per
 * received message.
 *   T_PCX ~ T_RS(P) + k*(o + (s-1)G) + L + 2o = Theta(P + k).
 *   Messages: k payloads per rank + P-1 census messages at the busiest rank (libnbc's root;
 *   ceil(log2 P) with recursive halving); census volume at least 8(P-1) bytes per rank.
 *
 * Temporary memory: the P-vector of counts (8P bytes), one MPI_Request and descriptor per
 * payload: O(P + k). */
#include "exchange.h"

enum { PCX_CENSUS = 0, PCX_RECV = 1 };

static dmx_status pcx_start(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    r->phase = PCX_CENSUS;
    r->meta_out = dmxi_calloc(r->size, sizeof *r->meta_out);
    r->meta_in = dmxi_calloc(1, sizeof *r->meta_in);
    DMXI_CHECK(r->meta_out && r->meta_in, DMX_ERR_ALLOC, "out of memory (PCX counts)");
    dmxi_xchg_temp(r, ((int64_t)r->size + 1) * (int64_t)sizeof(int64_t));
    if (r->local == DMX_SUCCESS) {
        for (int i = 0; i < r->nsend; i++)
            r->meta_out[r->sends[i].dest]++;
        DMXI_TRY(dmxi_xchg_post_sends(r, 0));
    } else {
        for (int i = 0; i < r->size; i++)
            r->meta_out[i] = DMXI_XCHG_POISON;
    }
    DMXI_MPI(MPI_Ireduce_scatter_block(r->meta_out, r->meta_in, 1, MPI_INT64_T, MPI_SUM, r->comm,
                                       &r->coll));
    r->res->info.coll_messages += r->size - 1;
cleanup:
    return st;
}

static dmx_status pcx_progress(dmx_exchange_request *r, int *done)
{
    dmx_status st = DMX_SUCCESS;
    int got = 1, flag = 0;
    *done = 0;
    while (got)
        DMXI_TRY(dmxi_xchg_probe_recv(r, MPI_ANY_SOURCE, &got));
    if (r->phase == PCX_CENSUS) {
        DMXI_MPI(MPI_Test(&r->coll, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            goto cleanup;
        dmxi_xchg_set_census(r, r->meta_in[0]);
        r->phase = PCX_RECV;
    }
    DMXI_TRY(dmxi_xchg_census_done(r, done));
cleanup:
    return st;
}

const dmxi_xops dmxi_exchange_pcx = {DMX_EXCHANGE_PCX, pcx_start, pcx_progress};
