/* SPDX-License-Identifier: BSD-3-Clause */
/* RSX: remote summation (Hoefler, Siebert, Lumsdaine, PPoPP 2010, protocol RSX).
 *
 * Algorithm
 *   1. Set this rank's counter in the window (one int64 per rank) to 0, then open an epoch
 *      with MPI_Win_fence(MPI_MODE_NOPRECEDE). The reset cannot race with another rank's
 *      accumulate: MPI applies an RMA operation issued after the origin's fence only once the
 *      target has called the fence too.
 *   2. For each distinct destination, MPI_Accumulate (SUM) the number of payloads to it into
 *      its counter; a rank with invalid entries accumulates DMXI_XCHG_POISON into every
 *      rank's counter instead. Post one MPI_Isend per payload.        (end of begin)
 *   3. Close the epoch with MPI_Win_fence(MPI_MODE_NOSUCCEED); the counter now holds the number
 *      of messages this rank will receive.
 *   4. As in PCX: MPI_Improbe(MPI_ANY_SOURCE, round tag) + MPI_Mrecv until that many messages
 *      have arrived (also before step 3), and the local sends have completed.
 *
 * Preconditions: MPI-3 one-sided communication with MPI_INT64_T accumulates; a window on the
 * communicator (cached with the duplicate, or temporary for dmxi_exchange()). The fences block,
 * so begin and the first progress step after it are blocking.
 *
 * Cost in LogGP terms (k payloads of s bytes per rank to k distinct ranks; P ranks). The seed
 * gives T_RSX = Theta(log P) for the metadata if fences are barriers (each about
 * ceil(log2 P)*(L + 2o)) and accumulates cost o to issue and L + 2o to land:
 *   T_RSX ~ 2*ceil(log2 P)*(L + 2o) + k*o + (L + 2o) + k*(o + (s-1)G) + L + 2o
 *         = Theta(k + log P),
 * but only with good RMA: an implementation whose fence counts the operations with a
 * reduce-scatter of P counters (as Open MPI's osc/pt2pt does) pays T_RS(P) = Theta(P) there.
 *   Messages per rank: k accumulates + k payloads + two fences (ceil(log2 P) each, estimated).
 *
 * Temporary memory: one MPI_Request and descriptor per payload, the distinct destinations with
 * counts: O(k); the window itself is 4096 bytes per rank (see make_window), kept across
 * exchanges.
 *
 * Open MPI before 5.0: its one-sided windows on communicators split from one parent at the same
 * time share memory (dmxi_xchg_rma_unsafe, Open MPI issue 9492), so there RSX takes its census
 * with PCX's reduce-scatter instead of the window (steps 1-3 become PCX's 1-2): the same
 * messages arrive, the info still says RSX, the census costs Theta(P) as in PCX, and no window
 * is created. */
#include "exchange.h"

enum { RSX_EPOCH = 0, RSX_RECV = 1 };

static const int64_t poison = DMXI_XCHG_POISON;

static dmx_status rsx_start(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    if (dmxi_xchg_rma_unsafe())
        return dmxi_exchange_pcx.start(r);
    r->phase = RSX_EPOCH;
    const dmx_status made = dmxi_xchg_cached_window(r, &r->win, &r->win_counter);
    if (r->win == MPI_WIN_NULL)
        return made; /* MPI_Win_allocate failed: a collective failure */
    if (made != DMX_SUCCESS && r->local == DMX_SUCCESS)
        r->local = made; /* made without its hints here: the other ranks learn of the failure
                          * through the poisoned counts and everyone returns an error */
    *r->win_counter = 0;
    DMXI_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, r->win));
    r->res->info.coll_messages += dmxi_xchg_log2(r->size);
    if (r->local == DMX_SUCCESS) {
        for (int i = 0; i < r->ndest; i++)
            DMXI_MPI(MPI_Accumulate(&r->dcount[i], 1, MPI_INT64_T, r->dests[i], 0, 1, MPI_INT64_T,
                                    MPI_SUM, r->win));
        r->res->info.p2p_messages += r->ndest;
        DMXI_TRY(dmxi_xchg_post_sends(r, 0));
    } else {
        for (int i = 0; i < r->size; i++)
            DMXI_MPI(
                MPI_Accumulate(&poison, 1, MPI_INT64_T, i, 0, 1, MPI_INT64_T, MPI_SUM, r->win));
        r->res->info.p2p_messages += r->size;
    }
cleanup:
    return st;
}

static dmx_status rsx_progress(dmx_exchange_request *r, int *done)
{
    dmx_status st = DMX_SUCCESS;
    int got = 1;
    *done = 0;
    if (dmxi_xchg_rma_unsafe())
        return dmxi_exchange_pcx.progress(r, done);
    while (got)
        DMXI_TRY(dmxi_xchg_probe_recv(r, MPI_ANY_SOURCE, &got));
    if (r->phase == RSX_EPOCH) {
        DMXI_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, r->win));
        r->res->info.coll_messages += dmxi_xchg_log2(r->size);
        dmxi_xchg_set_census(r, *r->win_counter);
        r->phase = RSX_RECV;
    }
    DMXI_TRY(dmxi_xchg_census_done(r, done));
cleanup:
    return st;
}

const dmxi_xops dmxi_exchange_rsx = {DMX_EXCHANGE_RSX, rsx_start, rsx_progress};
