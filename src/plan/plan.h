/* Internal plan: the packages this rank sends and receives, computed once from the layouts
 * (the grid overlay of A and op(B), restricted to this rank's blocks), and the buffers and
 * persistent requests that execute them. The planner fills it (src/plan/plan.c); the engine
 * runs it (src/exec/engine.c) and never decides what to send. */
#ifndef DMXI_PLAN_H
#define DMXI_PLAN_H

#include "layout/layout.h"

/* Ring chunks between node peers hold about this many bytes (DMX_SHM_CHUNK_BYTES, test-only,
 * lowers it): small enough that a chunk is still in the shared cache when the peer reads it. */
#define DMXI_CHUNK_BYTES ((int64_t)128 * 1024)

/* A rank that writes at least this many bytes of A per execution writes them with
 * non-temporal stores (more than its share of a typical last-level cache). */
#define DMXI_STREAM_MIN_BYTES ((int64_t)8 * 1024 * 1024)

/* One rectangle of the overlay that crosses ranks. Coordinates are A's (window) coordinates of
 * transform t; mem is this side's memory: B's for a send piece, A's for a receive piece. On the
 * wire the piece is op(B) restricted to the rectangle, already transposed (and conjugated) by
 * the sender, stored column-major in A's orientation (rows x cols, ld = rows): the sender's
 * transposing read lands in a buffer that is still in cache, and the receiver's writes into A
 * are plain column copies (which can stream). */
typedef struct dmxi_piece {
    int64_t r0, c0, rows, cols;
    dmxi_mem mem;
    int64_t boff; /* byte offset inside the peer's message */
    int peer;
    int t;
} dmxi_piece;

/* A rectangle whose source and target both live on this rank: applied straight from B's memory
 * to A's, never through a buffer. */
typedef struct dmxi_local {
    int64_t r0, c0, rows, cols;
    dmxi_mem bmem, amem;
    int t;
} dmxi_local;

/* All pieces exchanged with one peer: one message (split into chunks of at most max_msg bytes
 * only when larger), or, for a peer on this node, a sequence of chunks through a ring in the
 * sender's part of the shared window (shm.c). */
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

typedef struct dmxi_xform {
    dmx_transform t;
    size_t esize;
    /* Layouts may live on a communicator with the plan's processes in another order: these map
     * their ranks to plan ranks (NULL when the order is the same). */
    int *amap, *bmap;
} dmxi_xform;

struct dmx_plan {
    MPI_Comm comm; /* private duplicate */
    int rank, size;
    int nt;
    dmxi_xform *xf;
    dmxi_piece *send, *recv;
    int64_t nsend, nrecv;
    dmxi_local *local;
    int64_t nlocal;
    dmxi_peer *speer, *rpeer;
    int nspeer, nrpeer;
    char *sbuf, *rbuf;
    int64_t sbytes, rbytes;
    int64_t max_msg;
    MPI_Request *sreq, *rreq;
    int nsreq, nrreq;
    int *rreq_peer; /* receive request -> receive peer index */
    /* Packages for ranks of this node go through rings in an MPI-3 shared window (shm.c). */
    int shm;
    MPI_Comm node;
    MPI_Win win;
    char *shm_buf; /* this rank's part of the window: the rings to its node peers */
    int64_t shm_bytes;
    int64_t chunk_bytes; /* agreed: pieces are cut to at most this many bytes, and ring chunks
                            hold at most this much (plus alignment) */
    int64_t *cfirst;     /* storage of every ring peer's chunk boundaries */
    int stream;          /* write A with non-temporal stores where the kernels can (engine.c) */
    int profile;         /* DMX_PROFILE=1: print phase times of every execution to stderr */
    dmx_plan_info info;
};

/* Growable lists the planner fills. */
typedef struct dmxi_piece_list {
    dmxi_piece *v;
    int64_t n, cap;
} dmxi_piece_list;

typedef struct dmxi_local_list {
    dmxi_local *v;
    int64_t n, cap;
} dmxi_local_list;

dmx_status dmxi_piece_push(dmxi_piece_list *l, const dmxi_piece *pc);
dmx_status dmxi_local_push(dmxi_local_list *l, const dmxi_local *lp);

/* Plan transform t when A or B is known only locally (src/plan/directory.c). Collective on
 * p->comm. Every rank registers its rectangles of A and of op(B) (both in A's coordinates)
 * with an assumed-partition directory of A's index space; each directory rank intersects what
 * it received and tells the owners their pieces. Appends to recv, loc and send what the global
 * planner would produce (rectangles may be cut further at directory boundaries; both sides get
 * identical rectangles, so package order still agrees). Fails with DMX_ERR_LAYOUT on every rank
 * if the blocks of a layout overlap or leave a gap. Uses tags DMXI_DIR_TAG.. on p->comm. */
#define DMXI_DIR_TAG 0x4D00
dmx_status dmxi_plan_directory(const dmx_plan *p, int t, dmxi_piece_list *recv,
                               dmxi_local_list *loc, dmxi_piece_list *send);

/* Walk this rank's op(B) rectangles cut by A's grid (see plan.c). */
dmx_status dmxi_walk_source(const dmxi_xform *x,
                            dmx_status (*visit)(void *ctx, int owner, int64_t r0, int64_t c0,
                                                int64_t rows, int64_t cols),
                            void *ctx);

/* Validate a batch of transforms on every rank and agree on the result (plan.c). Collective on
 * the first target's communicator. need_a_memory = 0 accepts targets without memory. */
dmx_status dmxi_transforms_validate(int n, const dmx_transform *t, int need_a_memory);

enum { DMXI_TAG_DATA = 0, DMXI_TAG_SETUP = 1 };

/* Packages between ranks of one node (src/exec/shm.c). The sender packs a node peer's package,
 * chunk by chunk, into a ring of slots in its own part of an MPI-3 shared window and publishes
 * a counter; the receiver transforms each chunk into A straight from the slot (no copy by MPI)
 * and publishes its own counter, after which the sender may reuse the slot. dmxi_shm_setup
 * decides which peers use it (same node, DMX_SHM not 0, the window could be made), cuts the
 * packages into chunks, lays out the rings and tells every receiver where its ring is.
 * Collective on p->comm; call after the peers are made. dmxi_shm_free releases the window
 * (collective). */
dmx_status dmxi_shm_setup(dmx_plan *p);
dmx_status dmxi_shm_free(dmx_plan *p);
/* Ring protocol (shm.c): may the sender fill chunk number g (counted over all executions)?
 * Publish it; has the receiver's chunk g arrived? Release it. */
int dmxi_ring_can_post(const dmxi_peer *q, int64_t g);
void dmxi_ring_post(dmxi_peer *q, int64_t g);
int dmxi_ring_can_take(const dmxi_peer *q, int64_t g);
void dmxi_ring_release(dmxi_peer *q, int64_t g);
/* Address of the slot that holds chunk g. */
char *dmxi_ring_slot(const dmxi_peer *q, int64_t g);

/* D = alpha*op(S) + beta*D on a rows x cols rectangle of transform x at A origin (r0, c0),
 * limited to the trapezoid (engine.c): op is x's own for B's memory, DMX_OP_N for a package
 * (already in A's orientation); flags as for dmxi_kernel_apply_flags. */
void dmxi_apply(const dmxi_xform *x, dmx_op op, const char *src, int64_t sld, dmx_order sord,
                char *dst, int64_t dld, dmx_order dord, int64_t r0, int64_t c0, int64_t rows,
                int64_t cols, unsigned flags);
/* Is the rectangle entirely inside the trapezoid of t (or t has none)? */
int dmxi_mask_inside(const dmx_transform *t, int64_t r0, int64_t c0, int64_t rows, int64_t cols);

/* Run a plan once (src/exec/engine.c). Collective on plan->comm. */
dmx_status dmxi_plan_run(dmx_plan *p);

#endif
