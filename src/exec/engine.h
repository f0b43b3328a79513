/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the point-to-point engine dmxi_exec_p2p (engine.c runs it, engine_setup.c makes its
 * buffers and requests, shm.c its rings). Not for the planner: it sees only exec/exec.h. */
#ifndef DMXI_ENGINE_H
#define DMXI_ENGINE_H

#include "exec.h"

/* A rank that writes at least this many bytes of A per execution writes them with
 * non-temporal stores (more than its share of a typical last-level cache). */
#define DMXI_STREAM_MIN_BYTES ((int64_t)8 * 1024 * 1024)

/* The ops of dmxi_exec_p2p: setup and free (engine_setup.c), execute (engine.c). */
dmx_status dmxi_p2p_setup(dmxi_exec *e);
/* 1 if the writes into A of one execution are to be streamed past the caches (non-temporal
 * stores, then dmxi_kernel_fence): A's bytes received plus local are above what the caches keep,
 * or DMX_STREAM forces it. Both engines decide alike. */
int dmxi_exec_decide_stream(const dmxi_exec *e);

/* Reorders the local rectangles of transposing transforms for page locality (local_order.c). */
dmx_status dmxi_exec_order_local(dmxi_exec *e);
/* Edge lines a received piece shares with a local rectangle, written whole by the piece's unpack
 * (edge_join.c): pair them (setup, after dmxi_exec_order_local; sets e->rjoin and e->ljoin);
 * decide for one execution from the transform's scalars (e->join_on); the rows of a local
 * rectangle its neighbouring pieces write (top and bottom; call only with e->join_on and
 * e->ljoin set); write a piece's joined lines (call only with e->join_on), giving the rows of
 * the piece they held at its top and bottom (0 and 0: none), which the caller leaves out. */
dmx_status dmxi_exec_join_edges(dmxi_exec *e);
void dmxi_exec_join_begin(dmxi_exec *e);
void dmxi_exec_join_cuts(const dmxi_exec *e, const dmxi_local *lp, int64_t *top, int64_t *bot);
void dmxi_exec_join_piece(const dmxi_exec *e, const dmxi_piece *pc, const char *src, int64_t *head,
                          int64_t *tail);
/* The data path both engines share (engine.c), writes into A streamed when e->stream:
 * pack send pieces [i0, i1) as op(B), column-major in A's orientation, into dst (package offset
 * base); transform receive pieces [i0, i1) from src (package offset base) into A; apply local
 * rectangles from *next on until about max_bytes are written (at least one). */
void dmxi_exec_pack_pieces(const dmxi_exec *e, int64_t i0, int64_t i1, char *dst, int64_t base);
void dmxi_exec_unpack_pieces(const dmxi_exec *e, int64_t i0, int64_t i1, const char *src,
                             int64_t base);
void dmxi_exec_apply_local(const dmxi_exec *e, int64_t *next, int64_t max_bytes);
/* The same for one piece or local rectangle of a run-compressed transform (engine_runs.c):
 * pack pc into dst (its place in the package), transform pc from src (its place) into A, apply
 * lp; flags for A's writes. */
void dmxi_exec_pack_run(const dmxi_exec *e, const dmxi_piece *pc, char *dst);
void dmxi_exec_unpack_run(const dmxi_exec *e, const dmxi_piece *pc, const char *src,
                          unsigned flags);
void dmxi_exec_local_run(const dmxi_exec *e, const dmxi_local *lp, unsigned flags);
/* Free e's send and receive requests that are not MPI_REQUEST_NULL (cancelling the receives
 * first when cancel_recv: they may still be pending after a failed execution); the first
 * failure is the status. Local. */
dmx_status dmxi_exec_free_requests(dmxi_exec *e, int cancel_recv);
dmx_status dmxi_p2p_execute(dmxi_exec *e);
dmx_status dmxi_p2p_free(dmxi_exec *e);

/* Packages between ranks of one node (shm.c). The sender packs a node peer's package, chunk by
 * chunk, into a ring of slots in its own part of an MPI-3 shared window and publishes a
 * counter; the receiver transforms each chunk into A straight from the slot (no copy by MPI)
 * and publishes its own counter, after which the sender may reuse the slot. dmxi_shm_setup
 * decides which peers use it (same node, DMX_SHM not 0, the window could be made), cuts the
 * packages into chunks, lays out the rings and tells every receiver where its ring is.
 * Collective on e->comm; call first in setup. dmxi_shm_free releases the window
 * (collective). */
dmx_status dmxi_shm_setup(dmxi_exec *e);
dmx_status dmxi_shm_free(dmxi_exec *e);
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

#endif
