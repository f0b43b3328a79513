/* SPDX-License-Identifier: BSD-3-Clause */
/* NBX: nonblocking consensus (Hoefler, Siebert, Lumsdaine, PPoPP 2010, Algorithm 2).
 *
 * Algorithm
 *   1. One MPI_Issend per payload to another rank.
 *   2. Loop: MPI_Improbe(MPI_ANY_SOURCE, round tag); if a message is there, MPI_Mrecv it into
 *      the result. Until the consensus has started: once MPI_Testall says every local send is
 *      complete, start it. After that: MPI_Test it, and stop when it completes.
 *   The consensus is an MPI_Iallreduce (MAX) of one int, this rank's status: a nonblocking
 *   barrier that also carries the status, so a rank with invalid entries (which sends nothing
 *   and enters at once) makes every rank fail alike at no extra cost.
 *
 * Why it is complete: a synchronous send completes only after the receiver matched it (here by
 * a matched probe, received right away). A rank enters the consensus only when all its sends
 * are matched, and the consensus completes only when every rank has entered. So when it
 * completes anywhere, every message of the round has been received, and the loop may stop.
 * Another round's messages cannot be mistaken for this one's: they carry the other tag
 * (exchange_common.c, "Rounds and tags").
 *
 * Preconditions: MPI-3 (matched probes, nonblocking collectives); no other traffic with this
 * round's tag on the communicator.
 *
 * Cost in LogGP terms (k payloads of s bytes per rank, self excluded; P ranks):
 *   sends      k*o + (s-1)*k*G to inject, then the synchronous handshake: the last send
 *              completes about 2L + 4o after it was injected (the seed's "L(synch) = 2L"),
 *   receives   k'*o for the k' messages arriving, found by probing,
 *   consensus  ceil(log2 P) * (L + 2o) for a dissemination or recursive-doubling allreduce.
 *   T_NBX ~ k*(o + (s-1)G) + 2L + 4o + ceil(log2 P)*(L + 2o) = Theta(k + log P).
 *   Messages per rank: k payloads + ceil(log2 P) in the consensus; no metadata of size P.
 *
 * Temporary memory: one MPI_Request and one (dest, bytes, pointer) descriptor per payload, the
 * sorted distinct destinations with counts: O(k). Nothing of size P.
 *
 * Simulation builds (DMX_SIM_WAIT, scripts/simulate.sh): SMPI 3.32's MPI_Iallreduce sends a
 * message between every pair of ranks (p^2, and the simulator's cost grows with the pending
 * ones), which is neither what an MPI library does nor affordable at thousands of ranks. There
 * the consensus is a dissemination allreduce (MAX, which may count a value twice) of
 * point-to-point messages: in round i this rank sends its running maximum to rank + 2^i and
 * receives from rank - 2^i, ceil(log2 P) rounds, with the round's tag XOR 0x4000 (never a
 * payload tag: those are probed with the round's own tag). Same completion argument: round i
 * cannot finish before the ranks 2^i below have entered, so the last one not before all have. */
#include "exchange.h"

enum { NBX_SENDING = 0, NBX_CONSENSUS = 1 };

#ifdef DMX_SIM_WAIT
enum { NBX_SIM_TAG_FLIP = 0x4000 };

static dmx_status nbx_sim_post(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    int d = (int)(((int64_t)1 << r->dround) % r->size);
    int to = (r->rank + d) % r->size, from = (r->rank - d + r->size) % r->size;
    int tag = r->tag ^ NBX_SIM_TAG_FLIP;
    r->dsend = r->consensus_out;
    DMXI_MPI(MPI_Irecv(&r->drecv, 1, MPI_INT, from, tag, r->comm, &r->dreq[0]));
    DMXI_MPI(MPI_Isend(&r->dsend, 1, MPI_INT, to, tag, r->comm, &r->dreq[1]));
cleanup:
    return st;
}

/* Starts the dissemination (consensus_out = this rank's status so far). */
static dmx_status nbx_sim_start(dmx_exchange_request *r)
{
    r->consensus_out = r->consensus_in;
    r->dround = 0;
    r->dreq[0] = r->dreq[1] = MPI_REQUEST_NULL;
    return r->size > 1 ? nbx_sim_post(r) : DMX_SUCCESS;
}

/* *flag = 1 when every round is done (consensus_out is then the maximum over all ranks). */
static dmx_status nbx_sim_test(dmx_exchange_request *r, int *flag)
{
    dmx_status st = DMX_SUCCESS;
    *flag = 0;
    while ((1 << r->dround) < r->size) {
        int f = 0;
        DMXI_MPI(MPI_Testall(2, r->dreq, &f, MPI_STATUSES_IGNORE));
        if (!f)
            goto cleanup;
        r->consensus_out = r->drecv > r->consensus_out ? r->drecv : r->consensus_out;
        r->dround++;
        if ((1 << r->dround) < r->size)
            DMXI_TRY(nbx_sim_post(r));
    }
    *flag = 1;
cleanup:
    return st;
}
#endif

static dmx_status nbx_start(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    r->phase = NBX_SENDING;
    if (r->local == DMX_SUCCESS)
        DMXI_TRY(dmxi_xchg_post_sends(r, 1));
cleanup:
    return st;
}

static dmx_status nbx_progress(dmx_exchange_request *r, int *done)
{
    dmx_status st = DMX_SUCCESS;
    int got = 1, flag = 0;
    *done = 0;
    while (got)
        DMXI_TRY(dmxi_xchg_probe_recv(r, MPI_ANY_SOURCE, &got));
    if (r->phase == NBX_SENDING) {
        DMXI_TRY(dmxi_xchg_test_sends(r, &flag));
        if (!flag)
            goto cleanup;
        r->consensus_in = (int)r->local;
#ifdef DMX_SIM_WAIT
        DMXI_TRY(nbx_sim_start(r));
#else
        DMXI_MPI(MPI_Iallreduce(&r->consensus_in, &r->consensus_out, 1, MPI_INT, MPI_MAX, r->comm,
                                &r->coll));
#endif
        r->res->info.coll_messages += dmxi_xchg_log2(r->size);
        r->phase = NBX_CONSENSUS;
    }
#ifdef DMX_SIM_WAIT
    DMXI_TRY(nbx_sim_test(r, &flag));
#else
    DMXI_MPI(MPI_Test(&r->coll, &flag, MPI_STATUS_IGNORE));
#endif
    if (flag) {
        r->agreed = (dmx_status)r->consensus_out;
        *done = 1;
    }
cleanup:
    return st;
}

const dmxi_xops dmxi_exchange_nbx = {DMX_EXCHANGE_NBX, nbx_start, nbx_progress};
