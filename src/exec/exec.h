/* SPDX-License-Identifier: BSD-3-Clause */
/* The contract between the planner and the engines that run a plan.
 *
 * The planner (src/plan) decides what goes where: it fills a dmxi_exec with the transforms,
 * the pieces this rank sends and receives, the rectangles that stay on this rank, the peers
 * (pieces grouped into one package per peer, with byte offsets) and the agreed cut sizes, and
 * then hands the object to an engine through its ops table. The engine (src/exec/) decides how
 * the packages travel: it makes the buffers, persistent requests and shared-memory rings in
 * setup(), moves the data in execute() and releases everything in free(). The engine never
 * decides what to send, and nothing under src/exec includes a header of the planner.
 *
 * Engines are served through dmxi_exec_ops the way the exchange protocols are served through
 * dmxi_xops (src/exchange/exchange.h). Two today: dmxi_exec_p2p (engine.c, shm.c,
 * engine_setup.c): messages between nodes, rings in an MPI-3 shared window within a node; and
 * dmxi_exec_small (engine_small.c): plain messages for plans that exchange few bytes.
 * A further engine (neighbourhood collectives, one-sided) adds its own ops and may keep state
 * of its own behind `impl`.
 */
#ifndef DMXI_EXEC_H
#define DMXI_EXEC_H

#include "layout.h"

/* One transform as the engine applies it. */
typedef struct dmxi_xform {
    dmx_transform t;
    size_t esize;
    /* Layouts may live on a communicator with the plan's processes in another order: these map
     * their ranks to plan ranks (NULL when the order is the same). Planner only. */
    int *amap, *bmap;
    /* The planner describes this transform's pieces and local rectangles as runs (dmxi_seg
     * below) instead of one rectangle per pair of blocks. */
    int runs;
    /* The block-cyclic local arrays of A and B (their base) when the plan last checked that B
     * does not share memory with an A of the batch (plan/alias.c), and whether it has:
     * dmx_layout_rebind may move them between executions. Plan only. */
    const void *seen_a, *seen_b;
    int seen;
} dmxi_xform;

/* Record that x's transform passed the overlap check with its layouts' current arrays. */
static inline void dmxi_xform_checked(dmxi_xform *x)
{
    x->seen_a = x->t.a->base, x->seen_b = x->t.b->base, x->seen = 1;
}

/* One run of a run-compressed transform: the A rows (or columns) [a, a + len), which lie inside
 * one block of A and one block of op(B), so that they are consecutive in both memories; am is
 * the local index of row (column) a in A's block-cyclic array, bm that of its element in B's
 * (a row index of B when op(B)'s rows are B's rows, a column index when they are B's columns).
 * Both layouts are block-cyclic (one column-major array per rank: element (i, j) of the local
 * array at base + i + j*ld). */
typedef struct dmxi_seg {
    int64_t a, len;
    int64_t am, bm;
} dmxi_seg;

/* One rectangle of the overlay that crosses ranks. Coordinates are A's (window) coordinates of
 * transform t; mem is this side's memory: B's for a send piece, A's for a receive piece. On the
 * wire the piece is op(B) restricted to the rectangle, already transposed (and conjugated) by
 * the sender, stored column-major in A's orientation (rows x cols, ld = rows): the sender's
 * transposing read lands in a buffer that is still in cache, and the receiver's writes into A
 * are plain column copies (which can stream). */
/* A piece of a run-compressed transform (xf[t].runs) is the product of consecutive row runs
 * and column runs of e->seg: mem.lbk is the index of its first row run and mem.off that of its
 * first column run (the runs follow until rows, respectively cols, elements are covered); r0 and
 * c0 are the A coordinates of those first runs (the sort key), mem.ld and mem.order this side's
 * array. The wire image is the product, column-major, rows x cols. A local rectangle of such a
 * transform is the same product with amem.lbk and amem.off as the run indices and amem.ld,
 * bmem.ld the two arrays' leading dimensions. */
typedef struct dmxi_piece {
    int64_t r0, c0, rows, cols;
    dmxi_mem mem;
    int64_t boff; /* byte offset inside the peer's package */
    int peer;
    int t;
    int rowwise; /* packages.c's order: by A row, then column (op T, C), else column first */
} dmxi_piece;

/* A rectangle whose source and target both live on this rank: applied straight from B's memory
 * to A's, never through a buffer. */
typedef struct dmxi_local {
    int64_t r0, c0, rows, cols;
    dmxi_mem bmem, amem;
    int t;
} dmxi_local;

/* The local rectangles (indices into dmxi_exec.local, -1: none) whose elements a received piece
 * writes into the lines it shares with them, above and below it (edge_join.c). */
typedef struct dmxi_join {
    int64_t above, below;
} dmxi_join;

/* All pieces exchanged with one peer. The planner sets rank, first, count and bytes; the rest
 * is the engine's: one message (split into chunks of at most max_msg bytes only when larger),
 * or, for a peer on this node, a sequence of chunks through a ring in the sender's part of the
 * shared window (shm.c). */
typedef struct dmxi_peer {
    int rank;
    int nchunks;          /* message peer: MPI messages of the package */
    int64_t first, count; /* range in the piece array */
    int64_t bytes;        /* package size */
    int64_t off;          /* offset in the send or receive buffer (send peer on the ring: of the
                             ring in this rank's part of the window) */
    int64_t req0;         /* first request of this peer */
    int64_t pending;      /* chunks not yet received (execution state) */
    int shm;              /* on this node: the package goes through the sender's ring */
    /* Ring (shm peers): chunk c holds pieces [cfirst[c], cfirst[c+1]) of the peer's range, at
     * slot (seq + c) % nslots; seq counts the chunks of all earlier executions. */
    char *ring;         /* the ring in this rank's mapping of the sender's window part */
    int64_t *cfirst;    /* nring + 1 piece indices */
    int64_t nring;      /* chunks per execution */
    int64_t slot_bytes; /* bytes per slot (a multiple of 64) */
    int64_t nslots;     /* slots in the ring */
    int64_t seq;        /* chunks posted (send) or consumed (receive) before this execution */
    int64_t next;       /* execution state: next chunk of this execution */
} dmxi_peer;

/* Tags the engines use on the plan's communicator (the planner's directory uses DMXI_DIR_TAG..,
 * far above these). */
enum { DMXI_TAG_DATA = 0, DMXI_TAG_SETUP = 1 };

typedef struct dmxi_exec dmxi_exec;

/* An engine. setup() is collective on e->comm and is called once, after the planner has filled
 * the object; every rank gets the same status (the engine agrees). execute() runs the plan once
 * (collective). free() releases what setup() made, also after a failed or partial setup
 * (collective when setup made collective objects); the arrays the planner handed over are freed
 * by dmxi_exec_free(). */
typedef struct dmxi_exec_ops {
    const char *name;
    dmx_status (*setup)(dmxi_exec *e);
    dmx_status (*execute)(dmxi_exec *e);
    dmx_status (*free)(dmxi_exec *e);
} dmxi_exec_ops;

struct dmxi_exec {
    const dmxi_exec_ops *ops; /* NULL until the planner hands the object over */

    /* ---- filled by the planner ---- */
    MPI_Comm comm; /* borrowed: the plan's private duplicate */
    int rank, size;
    int nt;
    const dmxi_xform *xf; /* borrowed: nt transforms (the plan may change their scalars) */
    /* Owned from hand-over on (freed by dmxi_exec_free): */
    dmxi_piece *send, *recv; /* sorted by (peer, transform, A column, A row); boff set */
    int64_t nsend, nrecv;
    dmxi_local *local; /* sorted by (transform, A column, A row) */
    int64_t nlocal;
    dmxi_seg *seg; /* the runs of run-compressed transforms' pieces */
    int64_t nseg;
    dmxi_peer *speer, *rpeer; /* one per peer, ascending rank */
    int nspeer, nrpeer;
    int64_t max_msg; /* agreed: largest MPI message in bytes */
    /* agreed: pieces are cut to at most chunk_bytes (default 128 KiB, DMX_SHM_CHUNK_BYTES: small
     * enough that a chunk is still in the shared cache when the peer reads it), and ring chunks
     * hold at most this much (plus alignment) */
    int64_t chunk_bytes;

    /* ---- buffers and requests: made by the engine's setup() ---- */
    char *sbuf, *rbuf;
    int64_t sbytes, rbytes;
    MPI_Request *sreq, *rreq;
    int nsreq, nrreq;
    int *rreq_peer; /* receive request -> receive peer index */
    /* Packages for ranks of this node go through rings in an MPI-3 shared window (shm.c). */
    int shm;
    MPI_Comm node;
    MPI_Win win;
    char *shm_buf; /* this rank's part of the window: the rings to its node peers */
    int shm_kept;  /* win is the one kept on comm for later plans (shm.c); node always is */
    int64_t shm_bytes;
    int64_t *cfirst; /* storage of every ring peer's chunk boundaries */
    int stream;      /* write A with non-temporal stores where the kernels can (engine.c) */
    int profile;     /* DMX_PROFILE=1: print phase times of every execution to stderr */
    double timeout;  /* DMX_TIMEOUT: seconds without progress before execute gives up; 0: never */
    int broken;      /* an execution gave up half-way: the rings' counters are out of step */
    void *impl;      /* state of another engine (unused by dmxi_exec_p2p) */
    /* Edge lines joined (edge_join.c; NULL when no piece borders a local rectangle): per
     * received piece, per local rectangle its flags; join_on for the running execution. */
    dmxi_join *rjoin;
    unsigned char *ljoin;
    int join_on;

    /* ---- reported by the engine after setup() ---- */
    int64_t buffer_bytes; /* temporary memory this engine holds for the plan */
    int npeers_shm;       /* receive peers reached through shared memory */
};

/* Messages between nodes and rings in a shared window within a node. */
extern const dmxi_exec_ops dmxi_exec_p2p;

/* Small plans (engine_small.c): one plain message per peer, no shared window. Its setup() is
 * Local (no collective step): the planner must agree on its status. Every package must fit one
 * message (at most max_msg bytes). */
extern const dmxi_exec_ops dmxi_exec_small;

/* An empty object (no handles, nothing owned). Local. */
void dmxi_exec_init(dmxi_exec *e);

/* ops->free() (when handed over) and the arrays the planner handed over; NULL-safe pieces,
 * reports the first failure. Collective when setup() made collective objects. */
dmx_status dmxi_exec_free(dmxi_exec *e);

#endif
