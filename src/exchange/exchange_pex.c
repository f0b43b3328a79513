/* SPDX-License-Identifier: BSD-3-Clause */
/* PEX: personalized exchange (Hoefler, Siebert, Lumsdaine, PPoPP 2010, protocol PEX).
 *
 * Algorithm
 *   1. Post one MPI_Isend per payload to another rank.
 *   2. MPI_Ialltoall of two int64 per pair: the number of payloads this rank sends to that rank
 *      and their total bytes (or -status for every pair if this rank's entries are invalid).
 *   3. When it completes every rank knows exactly what comes from whom: allocate the result
 *      once, post one MPI_Irecv of the known size from each source that sends one payload, and
 *      for a source that sends several receive them in order with MPI_Improbe/MPI_Mrecv on that
 *      source (their individual sizes are not in the metadata).
 *   4. Complete the receives and the sends.
 *   Only PEX needs no wildcard receive: with one payload per pair it posts every receive with
 *   a known size.
 *
 * Preconditions: MPI-3 (nonblocking all-to-all). Sends of one source to one destination are
 * received in send order (MPI's non-overtaking rule for one source, tag and communicator).
 *
 * Cost in LogGP terms (k payloads of s bytes per rank; P ranks). The all-to-all is a
 * personalized exchange of 16 bytes per pair, bounded below (seed, T_PE) by
 *   T_PE(P) >= 16*G*(P-1) + (L + 2o - G)*ceil(log2 P)  = Theta(P),
 * and with Open MPI's pairwise or linear algorithms it costs (P-1)*(o + 16G) to inject plus
 * L + 2o. The payload phase adds k*(o + (s-1)G) + L + 2o.
 *   T_PEX ~ T_PE(P) + k*(o + (s-1)G) + L + 2o = Theta(P + k).
 *   Messages per rank: P-1 in the all-to-all + k payloads.
 *
 * Temporary memory: 2 * 2P int64 of metadata (32P bytes), one MPI_Request per payload sent and
 * per source sending one payload, two small arrays per source sending several: O(P + k). */
#include "exchange.h"

enum { PEX_META = 0, PEX_RECV = 1 };

static dmx_status pex_start(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    int64_t n2 = 2 * (int64_t)r->size;
    r->phase = PEX_META;
    r->meta_out = dmxi_calloc(n2, sizeof *r->meta_out);
    r->meta_in = dmxi_malloc(n2, sizeof *r->meta_in);
    DMXI_CHECK(r->meta_out && r->meta_in, DMX_ERR_ALLOC, "out of memory (PEX metadata)");
    dmxi_xchg_temp(r, 2 * n2 * (int64_t)sizeof(int64_t));
    if (r->local == DMX_SUCCESS) {
        for (int i = 0; i < r->nsend; i++) {
            r->meta_out[2 * r->sends[i].dest] += 1;
            r->meta_out[2 * r->sends[i].dest + 1] += r->sends[i].bytes;
        }
        DMXI_TRY(dmxi_xchg_post_sends(r, 0));
    } else {
        for (int64_t i = 0; i < n2; i += 2)
            r->meta_out[i] = -(int64_t)r->local;
    }
    DMXI_MPI(
        MPI_Ialltoall(r->meta_out, 2, MPI_INT64_T, r->meta_in, 2, MPI_INT64_T, r->comm, &r->coll));
    r->res->info.coll_messages += r->size - 1;
cleanup:
    return st;
}

/* The metadata has arrived: reserve the result and post the receives. */
static dmx_status pex_post_receives(dmx_exchange_request *r)
{
    dmx_status st = DMX_SUCCESS;
    int64_t worst = 0, nmsg = 0, bytes = 0;
    int nsingle = 0, nmulti = 0;
    for (int s = 0; s < r->size; s++) {
        int64_t n = r->meta_in[2 * s];
        if (n < 0) {
            worst = -n > worst ? -n : worst;
        } else if (n > 0 && s != r->rank) {
            nmsg += n;
            bytes += r->meta_in[2 * s + 1];
            if (n == 1)
                nsingle++;
            else
                nmulti++;
        }
    }
    r->agreed = (dmx_status)worst;
    r->expected = nmsg;
    /* With room reserved the arena cannot move under the posted receives. Without it (this
     * rank failed, or out of memory) every message goes through the probing path, which
     * drains it. */
    int fits = 0;
    if (r->local == DMX_SUCCESS) {
        if (dmxi_xchg_reserve(r, nmsg, bytes) == DMX_SUCCESS)
            fits = 1;
        else
            r->local = DMX_ERR_ALLOC;
    }
    if (!fits) {
        nmulti += nsingle;
        nsingle = 0;
    }
    r->rreq = dmxi_malloc(nsingle, sizeof *r->rreq);
    r->multi_src = dmxi_malloc(nmulti, sizeof *r->multi_src);
    r->multi_left = dmxi_malloc(nmulti, sizeof *r->multi_left);
    DMXI_CHECK(r->rreq && r->multi_src && r->multi_left, DMX_ERR_ALLOC,
               "out of memory (PEX receives)");
    dmxi_xchg_temp(r, nsingle * (int64_t)sizeof *r->rreq +
                          nmulti * (int64_t)(sizeof *r->multi_src + sizeof *r->multi_left));
    for (int s = 0; s < r->size; s++) {
        int64_t n = r->meta_in[2 * s];
        if (n <= 0 || s == r->rank)
            continue;
        if (n == 1 && fits) {
            int count = 0;
            DMXI_TRY(dmxi_to_int(r->meta_in[2 * s + 1], &count, "PEX payload size"));
            void *buf = dmxi_xchg_push(r, s, count);
            DMXI_MPI(MPI_Irecv(buf, count, MPI_BYTE, s, r->tag, r->comm, &r->rreq[r->nrreq]));
            r->nrreq++;
        } else {
            r->multi_src[r->nmulti] = s;
            r->multi_left[r->nmulti] = n;
            r->nmulti++;
        }
    }
    r->phase = PEX_RECV;
cleanup:
    return st;
}

static dmx_status pex_progress(dmx_exchange_request *r, int *done)
{
    dmx_status st = DMX_SUCCESS;
    int flag = 0, got = 0, multi_done = 1;
    *done = 0;
    if (r->phase == PEX_META) {
        DMXI_MPI(MPI_Test(&r->coll, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            goto cleanup;
        DMXI_TRY(pex_post_receives(r));
    }
    for (int i = 0; i < r->nmulti; i++) {
        while (r->multi_left[i] > 0) {
            DMXI_TRY(dmxi_xchg_probe_recv(r, r->multi_src[i], &got));
            if (!got)
                break;
            r->multi_left[i]--;
        }
        if (r->multi_left[i] > 0)
            multi_done = 0;
    }
    DMXI_MPI(dmxi_testall(r->nrreq, r->rreq, &flag));
    if (!flag || !multi_done)
        goto cleanup;
    DMXI_TRY(dmxi_xchg_test_sends(r, &flag));
    *done = flag;
cleanup:
    return st;
}

const dmxi_xops dmxi_exchange_pex = {DMX_EXCHANGE_PEX, pex_start, pex_progress};
