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
 * sorted distinct destinations with counts: O(k). Nothing of size P. */
#include "exchange.h"

enum { NBX_SENDING = 0, NBX_CONSENSUS = 1 };

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
        DMXI_MPI(MPI_Iallreduce(&r->consensus_in, &r->consensus_out, 1, MPI_INT, MPI_MAX, r->comm,
                                &r->coll));
        r->res->info.coll_messages += dmxi_xchg_log2(r->size);
        r->phase = NBX_CONSENSUS;
    }
    DMXI_MPI(MPI_Test(&r->coll, &flag, MPI_STATUS_IGNORE));
    if (flag) {
        r->agreed = (dmx_status)r->consensus_out;
        *done = 1;
    }
cleanup:
    return st;
}

const dmxi_xops dmxi_exchange_nbx = {DMX_EXCHANGE_NBX, nbx_start, nbx_progress};
