/* Internal plan: the packages this rank sends and receives, computed once from the layouts
 * (the grid overlay of A and op(B), restricted to this rank's blocks), and the buffers and
 * persistent requests that execute them. The planner fills it (src/plan/plan.c); the engine
 * runs it (src/exec/engine.c) and never decides what to send. */
#ifndef DMXI_PLAN_H
#define DMXI_PLAN_H

#include "layout/layout.h"

/* One rectangle of the overlay that crosses ranks. Coordinates are A's (window) coordinates of
 * transform t; mem is this side's memory: B's for a send piece, A's for a receive piece. On the
 * wire the piece is op(B)'s pre-image, B's sub-block, stored column-major (ld = its row count). */
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
 * only when larger). */
typedef struct dmxi_peer {
    int rank;
    int nchunks;
    int64_t first, count; /* range in the piece array */
    int64_t bytes;        /* message size */
    int64_t off;          /* offset in the send or receive buffer */
    int64_t req0;         /* first request of this peer */
    int64_t pending;      /* chunks not yet received (execution state) */
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
    int *rreq_peer; /* receive request -> receive peer */
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

/* Run a plan once (src/exec/engine.c). Collective on plan->comm. */
dmx_status dmxi_plan_run(dmx_plan *p);

#endif
