/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/exchange.h
 * @brief Dynamic sparse data exchange: every rank sends payloads to ranks of its choosing and
 * learns only during the call who sent it what. Included by dmx.h; compiles on its own.
 *
 * Four protocols after Hoefler, Siebert and Lumsdaine, "Scalable communication protocols for
 * dynamic sparse data exchange" (PPoPP 2010):
 *  - NBX: synchronous sends, wildcard matched probes, and a nonblocking consensus entered once
 *    the local sends are matched. O(k) messages per rank plus an O(log P) consensus.
 *  - PEX: all-to-all of (message count, bytes) per pair, then receives posted with known sizes.
 *  - PCX: reduce-scatter of message counts, then wildcard matched probes.
 *  - RSX: MPI_Accumulate of message counts into a window (fence epoch), then wildcard probes.
 * DMX_EXCHANGE_AUTO chooses among them (see dmx_exchange_begin()).
 *
 * Semantics shared by every call here:
 *  - Each rank passes a list of entries (destination, payload, bytes). Several entries may name
 *    the same destination; each is delivered as a separate entry, in the order it was listed.
 *    Sends to self are allowed (copied locally, never through MPI). 0-byte payloads are
 *    delivered as entries of 0 bytes. One payload may hold at most INT_MAX bytes; a larger one
 *    fails with DMX_ERR_OVERFLOW (on every rank).
 *  - The received entries are ordered by source rank, and within one source in the order the
 *    source listed them. This order is deterministic; the arrival order is not.
 *  - The user's communicator is never used for traffic: the first exchange on a communicator
 *    makes a private duplicate of it, kept with dmx's record of the communicator (freed when the
 *    user frees the communicator, or at MPI_Finalize; see dmx/expert.h). Library messages never
 *    match user messages, and consecutive exchanges never match each other's messages.
 *  - The protocol argument must be the same on every rank, as for any argument of a collective
 *    MPI call. An invalid entry on any rank (bad destination, negative or too many bytes, NULL
 *    payload with bytes > 0) makes the exchange fail with the same status on every rank without
 *    delivering anything. Running out of memory while receiving is reported on the rank where
 *    it happened (its incoming messages are still drained so no rank hangs).
 *  - At most one exchange may be in flight per communicator (begin ... end).
 *  - Like the rest of dmx, these calls must not run concurrently from several threads (the
 *    communicator cache is not locked): MPI_THREAD_FUNNELED or SERIALIZED use is fine.
 */
#ifndef DMX_EXCHANGE_H
#define DMX_EXCHANGE_H

#include "dmx/base.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exchange protocols. Values are pinned. */
typedef enum dmx_exchange_protocol {
    DMX_EXCHANGE_AUTO = 0, /**< choose by communicator size and neighbor count */
    DMX_EXCHANGE_NBX = 1,  /**< nonblocking consensus (MPI_Issend, MPI_Improbe, MPI_Iallreduce) */
    DMX_EXCHANGE_PEX = 2,  /**< personalized exchange (MPI_Ialltoall of sizes) */
    DMX_EXCHANGE_PCX = 3,  /**< personalized census (MPI_Ireduce_scatter_block of counts) */
    DMX_EXCHANGE_RSX = 4   /**< remote summation (MPI_Accumulate of counts, fence epoch) */
} dmx_exchange_protocol;

/** One payload to send. */
typedef struct dmx_exchange_send {
    int dest;         /**< destination rank in the communicator (may be this rank) */
    const void *data; /**< payload (borrowed; may be NULL if bytes is 0) */
    int64_t bytes;    /**< payload size, 0 <= bytes <= INT_MAX */
} dmx_exchange_send;

/** What one exchange did on this rank (dmx_exchange_result_get_info()). */
typedef struct dmx_exchange_info {
    dmx_exchange_protocol protocol; /**< protocol that ran (never AUTO) */
    int64_t nrecv;                  /**< entries received, including those from this rank */
    int64_t recv_bytes;             /**< payload bytes received, including from this rank */
    /** Point-to-point messages this rank issued (payload sends to other ranks, plus one
     * MPI_Accumulate per distinct destination for RSX). Counted where they are issued. */
    int64_t p2p_messages;
    /** Estimated messages the busiest rank sends inside the collectives of the exchange
     * (metadata, consensus, AUTO's agreement): P-1 for the all-to-all (PEX) and for the
     * reduce-scatter (PCX: Open MPI's libnbc reduces to one root that then sends P-1 blocks),
     * ceil(log2 P) for an allreduce, barrier or fence. An estimate from the algorithms Open
     * MPI 4.1 uses; other MPIs may differ. */
    int64_t coll_messages;
    /** Temporary bytes the exchange allocated on this rank beyond the result (metadata
     * arrays, requests, send descriptors). */
    int64_t temp_bytes;
} dmx_exchange_info;

/** Received entries of one exchange; owns their memory. */
typedef struct dmx_exchange_result dmx_exchange_result;

/** An exchange in flight (between dmx_exchange_begin() and dmx_exchange_end()). */
typedef struct dmx_exchange_request dmx_exchange_request;

/**
 * Sparse data exchange: send @p nsend payloads and receive what other ranks sent to this rank.
 * Collective on comm. Same as dmx_exchange_begin() followed by dmx_exchange_end().
 *
 * @param comm     intra-communicator (borrowed; not used for traffic, see the file comment)
 * @param protocol protocol, the same on every rank
 * @param nsend    number of entries in @p sends (>= 0)
 * @param sends    entries (borrowed for the duration of the call; may be NULL if nsend is 0)
 * @param result   on success a new result (destroy with dmx_exchange_result_destroy()), on
 *                 failure NULL
 */
DMX_API dmx_status dmx_exchange(MPI_Comm comm, dmx_exchange_protocol protocol, int64_t nsend,
                                const dmx_exchange_send *sends, dmx_exchange_result **result);

/**
 * Start an exchange; complete it with dmx_exchange_end(). Collective on comm.
 *
 * The @p sends array is copied; the payloads it points to are borrowed and must neither change
 * nor be freed until dmx_exchange_end() returns. Between begin and end the caller may compute or
 * communicate on comm (or any other communicator); dmx_exchange_test() makes progress.
 *
 * DMX_EXCHANGE_AUTO runs PEX on communicators of up to 16 ranks and PCX on those of up to 63
 * (deciding locally, at no cost). On larger ones it agrees with one MPI_Allreduce on kmax, the
 * largest number of distinct destinations any rank has (self excluded), and runs PCX if
 * kmax >= P/4 (dense) and NBX otherwise (sparse). The thresholds live in
 * src/exchange/exchange_select.c; the measurements behind them are in docs/exchange.md. If the
 * environment variable DMX_EXCHANGE is set to nbx, pex, pcx or rsx, AUTO runs that protocol
 * instead (after an MPI_Allreduce that checks every rank has the same value; DMX_ERR_ARG
 * otherwise); "auto" or unset leaves the choice to dmx. Explicit protocols ignore
 * DMX_EXCHANGE.
 *
 * Errors in the entries of any rank are reported by dmx_exchange_end() on every rank. This call
 * itself fails, without communicating, only on a NULL @p request, an invalid or
 * inter-communicator, an invalid @p protocol value, or a communicator with an exchange already
 * in flight.
 *
 * RSX blocks in an MPI_Win_fence here (opening its epoch) and in dmx_exchange_end() (closing
 * it); the other protocols do not block in begin except AUTO's MPI_Allreduce.
 */
DMX_API dmx_status dmx_exchange_begin(MPI_Comm comm, dmx_exchange_protocol protocol, int64_t nsend,
                                      const dmx_exchange_send *sends,
                                      dmx_exchange_request **request);

/**
 * Make progress on an exchange without blocking (RSX may block once in its closing fence).
 * Sets *done to 1 when dmx_exchange_end() will return without waiting. Local, but the
 * exchange only completes once every rank progresses it.
 */
DMX_API dmx_status dmx_exchange_test(dmx_exchange_request *request, int *done);

/**
 * Complete an exchange started by dmx_exchange_begin(). Collective on the begin's comm.
 * Frees the request and sets *request to NULL, also on failure. On success *result is a new
 * result; on failure it is NULL and nothing was delivered.
 */
DMX_API dmx_status dmx_exchange_end(dmx_exchange_request **request, dmx_exchange_result **result);

/** Number of received entries. Local. */
DMX_API dmx_status dmx_exchange_result_get_count(const dmx_exchange_result *result, int64_t *count);

/**
 * Received entry @p i (0 <= i < count): its source rank, its payload and size. The payload is
 * owned by the result (valid until dmx_exchange_result_destroy()), aligned for any C type, and
 * never NULL (for 0 bytes it must not be dereferenced). Any output may be NULL. Local.
 */
DMX_API dmx_status dmx_exchange_result_get(const dmx_exchange_result *result, int64_t i,
                                           int *source, const void **data, int64_t *bytes);

/** Statistics of the exchange that produced @p result on this rank. Local. */
DMX_API dmx_status dmx_exchange_result_get_info(const dmx_exchange_result *result,
                                                dmx_exchange_info *info);

/** Free a result and every payload in it. NULL-safe; sets *result to NULL. Local. */
DMX_API dmx_status dmx_exchange_result_destroy(dmx_exchange_result **result);

/** Lower-case name of a protocol ("auto", "nbx", "pex", "pcx", "rsx"); NULL for an invalid
 * value. Local. */
DMX_API const char *dmx_exchange_protocol_name(dmx_exchange_protocol protocol);

/** The protocol called @p name (as dmx_exchange_protocol_name() writes it, in any case);
 * DMX_ERR_ARG if none. Local. */
DMX_API dmx_status dmx_exchange_protocol_from_name(const char *name,
                                                   dmx_exchange_protocol *protocol);

#ifdef __cplusplus
}
#endif

#endif /* DMX_EXCHANGE_H */
