/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interface of the sparse data exchange (src/exchange/).
 *
 * Layers: exchange_common.c holds the public entry points, argument checks and the cached
 * communicator duplicate; exchange_result.c the result object and the receive/send helpers
 * every protocol shares; exchange_select.c AUTO's rule, the DMX_EXCHANGE override and the
 * protocol names; one file per protocol (exchange_nbx.c, exchange_pex.c, exchange_pcx.c,
 * exchange_rsx.c) implements it as a start function and a nonblocking progress function over
 * the request below.
 *
 * Other parts of dmx use dmxi_exchange() / dmxi_exchange_begin() on a communicator they have
 * already duplicated, with a tag of their choosing. */
#ifndef DMXI_EXCHANGE_H
#define DMXI_EXCHANGE_H

#include "dmxi.h"

#include <stddef.h>

/* Tags the public entry points use on their cached duplicate: round r uses
 * DMXI_XCHG_TAG_BASE + (r & 1) (why two suffice: exchange_common.c, "Rounds and tags"). */
#define DMXI_XCHG_TAG_BASE 0x4458

/* Every payload in a result starts at a multiple of this (malloc alignment). */
#define DMXI_XCHG_ALIGN ((int64_t) _Alignof(max_align_t))

/* A rank whose entries are invalid adds this to the message count of every rank (PCX, RSX)
 * so every rank learns that the exchange failed. Real counts stay far below it, and
 * P * DMXI_XCHG_POISON fits in int64_t for P < 2^23. */
#define DMXI_XCHG_POISON ((int64_t)1 << 40)

/* One received entry: payload at arena + offset. seq orders entries of one source. */
typedef struct dmxi_xentry {
    int source;
    int64_t seq;
    int64_t offset;
    int64_t bytes;
} dmxi_xentry;

struct dmx_exchange_result {
    dmx_exchange_info info;
    int64_t n, cap;
    dmxi_xentry *entries;
    unsigned char *arena; /* all payloads, each at an offset aligned to DMXI_XCHG_ALIGN */
    int64_t used, arena_cap;
};

/* One payload to another rank (self entries are copied into the result at begin). */
typedef struct dmxi_xsend {
    int dest;
    int bytes;
    const void *data;
} dmxi_xsend;

typedef struct dmxi_xcomm dmxi_xcomm; /* cached duplicate of a user communicator */

/* A protocol: start() issues what begin does, progress() advances without blocking (RSX
 * blocks once, in its closing fence) and sets *done when nothing is left to receive or send. */
typedef struct dmxi_xops {
    dmx_exchange_protocol protocol;
    dmx_status (*start)(dmx_exchange_request *r);
    dmx_status (*progress)(dmx_exchange_request *r, int *done);
} dmxi_xops;

struct dmx_exchange_request {
    const dmxi_xops *ops;
    MPI_Comm comm; /* a duplicate: the cached one or the caller's of dmxi_exchange_begin() */
    int tag;       /* tag of this round's payload messages */
    int rank, size;
    dmxi_xcomm *cache; /* NULL when started through dmxi_exchange_begin() */

    dmx_status local;  /* this rank's verdict on its own entries (or a local failure) */
    dmx_status agreed; /* status every rank agreed on (AUTO's allreduce, PEX, NBX) */
    int poisoned;      /* some rank failed; the code still has to be agreed (PCX, RSX) */
    dmx_status fatal;  /* an MPI call failed in dmx_exchange_test(); end reports it */
    int done;

    /* payloads to other ranks and their requests */
    int nsend;
    dmxi_xsend *sends;
    MPI_Request *sreq;
    /* distinct destinations (ascending, self excluded) and the entries to each */
    int ndest;
    int *dests;
    int64_t *dcount;

    /* protocol state */
    int phase;
    MPI_Request coll;                /* the metadata collective or the consensus */
    int64_t *meta_out, *meta_in;     /* PEX: 2P each; PCX: P and 1 */
    int64_t expected, received;      /* messages from other ranks: announced, received */
    int nrreq;                       /* PEX: receives posted with known sizes */
    MPI_Request *rreq;               /* PEX */
    int nmulti;                      /* PEX: sources that sent more than one message ... */
    int *multi_src;                  /* ... their ranks ... */
    int64_t *multi_left;             /* ... and how many messages are still to come */
    int consensus_in, consensus_out; /* NBX: status carried by the consensus */
    MPI_Win win;                     /* RSX: counter window (cached or temporary) */
    int64_t *win_counter;            /* RSX: this rank's counter in the window */
    int own_win;                     /* RSX: the window is temporary, free it at end */

    int64_t seq; /* next entry sequence number */
    dmx_exchange_result *res;
#ifdef DMX_SIM_WAIT
    int dround, dsend, drecv; /* NBX in simulation builds: the dissemination's round, values */
    MPI_Request dreq[2];      /* and its receive and send (exchange_nbx.c) */
#endif
};

/* ---- the internal entry points ---------------------------------------------------------- */

/* Like dmx_exchange_begin(), on @p comm itself: comm must already be a private duplicate
 * (errors set to MPI_ERRORS_RETURN) and @p tag a valid tag that no other traffic on comm uses
 * while the exchange runs. Two consecutive exchanges on the same comm must use different tags
 * (alternating between two values is enough; see exchange_common.c). RSX creates and frees a
 * temporary window (two more collectives). Complete with dmx_exchange_end(). Collective. */
dmx_status dmxi_exchange_begin(MPI_Comm comm, int tag, dmx_exchange_protocol protocol,
                               int64_t nsend, const dmx_exchange_send *sends,
                               dmx_exchange_request **request);

/* dmxi_exchange_begin() followed by dmx_exchange_end(). Collective. */
dmx_status dmxi_exchange(MPI_Comm comm, int tag, dmx_exchange_protocol protocol, int64_t nsend,
                         const dmx_exchange_send *sends, dmx_exchange_result **result);

/* ---- selection (exchange_select.c) ------------------------------------------------------- */

/* AUTO's choice for a communicator of @p nproc ranks on @p nodes nodes. Local and free; every
 * rank of the communicator gets the same answer (on one node, given the same model file). Never
 * returns AUTO. */
dmx_exchange_protocol dmxi_exchange_select(int nproc, int nodes);

/* DMX_EXCHANGE as a code: 0 unset or "auto", 1..4 a dmx_exchange_protocol, 5 invalid. */
int dmxi_exchange_env_code(void);

/* ---- protocols (one file each) ----------------------------------------------------------- */

extern const dmxi_xops dmxi_exchange_nbx;
extern const dmxi_xops dmxi_exchange_pex;
extern const dmxi_xops dmxi_exchange_pcx;
extern const dmxi_xops dmxi_exchange_rsx;

/* ---- helpers shared by the protocols (exchange_common.c) --------------------------------- */

/* Post one MPI_Isend (or MPI_Issend if synchronous) per payload to another rank. */
dmx_status dmxi_xchg_post_sends(dmx_exchange_request *r, int synchronous);

/* *flag = 1 once every payload send has completed (MPI_Testall). */
dmx_status dmxi_xchg_test_sends(dmx_exchange_request *r, int *flag);
/* For protocols that learn a message count first (PCX, RSX): record the census (a count that may
 * carry DMXI_XCHG_POISON) ... */
void dmxi_xchg_set_census(dmx_exchange_request *r, int64_t census);
/* ... then, at each progress call: done once as many messages as announced have arrived and
 * every send completed. */
dmx_status dmxi_xchg_census_done(dmx_exchange_request *r, int *done);

/* Receive one message of this round from @p source (or MPI_ANY_SOURCE) if one has arrived:
 * MPI_Improbe, then MPI_Mrecv into the result. *got = 1 if a message was received. If memory
 * runs out the message is drained and r->local becomes DMX_ERR_ALLOC. */
dmx_status dmxi_xchg_probe_recv(dmx_exchange_request *r, int source, int *got);

/* Make room for @p nentries more entries and @p bytes more payload bytes (with alignment
 * padding), so that the next dmxi_xchg_push() calls do not move the arena. */
dmx_status dmxi_xchg_reserve(dmx_exchange_request *r, int64_t nentries, int64_t bytes);

/* Append an entry of @p bytes from @p source (room reserved before); returns its payload. */
void *dmxi_xchg_push(dmx_exchange_request *r, int source, int64_t bytes);

/* ceil(log2(n)) for n >= 1: the message estimate for tree or dissemination collectives. */
int dmxi_xchg_log2(int n);

/* Free a result's storage (exchange_result.c); the order of entries: by source, then seq. */
void dmxi_xchg_result_free(dmx_exchange_result *res);
int dmxi_xchg_entry_cmp(const void *a, const void *b);

/* Count temporary bytes in the result's statistics. */
void dmxi_xchg_temp(dmx_exchange_request *r, int64_t bytes);

/* 1 if this MPI's one-sided windows cannot be trusted on communicators split at the same time:
 * Open MPI before 5.0, whose osc rdma names a window's shared segment after the communicator's
 * context id, which disjoint communicators split from one parent share (Open MPI issue 9492), so
 * two halves exchanging at once counted each other's messages. Local; MPI_Get_library_version
 * is read once. */
int dmxi_xchg_rma_unsafe(void);

/* The communicator cache's RSX window for r (created on first use, collective). *win is the
 * window whenever MPI made one, also with a failed status (its hints could not be made on this
 * rank: the window then has none); MPI_WIN_NULL when MPI_Win_allocate failed. */
dmx_status dmxi_xchg_cached_window(dmx_exchange_request *r, MPI_Win *win, int64_t **counter);

#endif /* DMXI_EXCHANGE_H */
