/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/rma.h
 * @brief One-sided communication: symmetric heaps, strided put/get/accumulate (APUT/AGET after
 *        Hammond's proposal for OpenSHMEM), and one-sided access to patches of distributed
 *        matrices (the Global Arrays model: get, put or add any submatrix without the owners'
 *        participation).
 *
 * Semantics (written to match OpenSHMEM 1.6 sections 9.5 "RMA", 9.9 "Memory ordering" and the
 * APUT proposal):
 *  - A heap is symmetric: the same offset from dmx_rma_get_base() names the "same" object on every
 *    rank. Remote addresses are passed as addresses inside the caller's own heap (like
 *    OpenSHMEM's symmetric addresses): dmx uses their offset from the caller's base at the target.
 *  - Passive-target access is open for the whole life of a heap: no call needs the target's
 *    participation. A target reads the data others put into its heap after a synchronisation
 *    that orders it after their dmx_rma_quiet() (dmx_rma_barrier() does both).
 *  - Blocking put and accumulate (dmx_aput, dmx_aacc) return when the source buffer may be
 *    reused; the data is not necessarily visible at the target yet. Blocking get (dmx_aget)
 *    returns when the data has arrived in the destination buffer.
 *  - Nonblocking-implicit forms (_nbi) return at once: the source (put) must not be changed,
 *    and the destination (get) not be read, until dmx_rma_quiet() on the same heap.
 *  - dmx_rma_quiet(): every put, get and accumulate this rank issued on the heap is complete
 *    at its target (remote completion), including stores done by direct copies on one node.
 *  - Order: no order is guaranteed between two operations to the same target before a quiet
 *    (OpenSHMEM gives none without fence either; dmx has no fence: use quiet). Overlapping
 *    writes from one or several ranks between two synchronisations leave undefined values
 *    (the seed's rule), except accumulates: dmx_aacc is atomic per element with respect to
 *    other dmx_aacc of the same dtype (as MPI_Accumulate with MPI_SUM), so concurrent sums are
 *    exact when the arithmetic is (integer values in doubles, say).
 *  - Local loads and stores of a rank's own heap may be mixed with remote operations only
 *    across a dmx_rma_barrier() (or the user's own synchronisation after a quiet).
 *
 * Strided transfers move blockcount blocks of blockelems contiguous elements; block b starts at
 * element b*dst_stride of dst and b*src_stride of src. blockelems = 1 is OpenSHMEM's iput,
 * blockcount = 1 a plain put. Strides are in elements and >= 0 (ignored when blockcount <= 1);
 * source blocks may overlap (src_stride < blockelems), destination blocks may not
 * (dst_stride < blockelems with blockcount > 1 is DMX_ERR_ARG). Invalid input (NULL pointers,
 * negative counts or strides, a target rank out of range, remote memory outside the target's
 * heap) returns a named error and moves nothing. These calls are Local (one-sided): nothing is
 * agreed with other ranks.
 *
 * A bad handle on one rank (docs/errors.md): a collective call given MPI_COMM_NULL, a NULL heap
 * or patch handle, or a NULL pointer to one, has no communicator to tell the other ranks, so
 * it calls the error handler (dmx_set_error_handler; the default prints dmx's message and
 * calls MPI_Abort, ending every rank at once) instead of returning on that rank alone while
 * the others wait for it. A handler that returns makes the call return the status on that rank
 * (right only when every rank made the mistake). Mistakes that leave the rank a communicator
 * (a NULL output pointer, sizes, dtypes) are agreed: every rank returns the same status. The
 * agreements wait with the bound DMX_TIMEOUT (docs/settings.md) only for a rank that calls on
 * another communicator or never calls; the barriers of dmx_rma_barrier, dmx_rma_free,
 * dmx_patch_barrier and dmx_patch_close are plain MPI barriers (unbounded, as MPI_Barrier).
 *
 * Environment (read once per heap at creation): DMX_SHM=0 keeps every transfer on MPI's
 * message path (what ranks on different nodes use); DMX_RMA=shm|vector|blocks|pack forces one
 * implementation path for tests and measurements (shm falls back to the automatic choice for
 * targets this rank cannot reach directly).
 */
#ifndef DMX_RMA_H
#define DMX_RMA_H

#include "dmx/base.h"
#include "dmx/layout.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A symmetric heap: memory on every rank of a communicator open for one-sided access. */
typedef struct dmx_rma_heap dmx_rma_heap;

/** Element type for raw bytes, accepted by dmx_aput/dmx_aget only (not by dmx_aacc). Elements
 * of k bytes are moved as bytes with blockelems, and strides multiplied by k. */
#define DMX_RMA_BYTE ((dmx_dtype)255)

/**
 * Allocate a symmetric heap of @p bytes (the same on every rank, >= 0) on each rank of @p comm.
 * Collective on comm (comm is duplicated; the caller may free it afterwards). The memory of the
 * ranks of one node is one shared-memory segment that node peers copy into directly (MPI
 * shared window, or POSIX shared memory where MPI has none); a window over the whole
 * communicator serves the message path. The memory is zeroed. Fails on every rank alike if any
 * rank's arguments (or its DMX_RMA setting) are invalid: DMX_ERR_ARG for a negative size or
 * sizes that differ between ranks, DMX_ERR_NULL for heap = NULL, DMX_ERR_OVERFLOW when the
 * heaps of a node's ranks (bytes x the node's ranks, each rounded up to 2 MiB) do not fit in 64
 * bits, DMX_ERR_ALLOC when they exceed the node's physical memory (checked before MPI is asked,
 * whose own sum of the node's parts would wrap). comm = MPI_COMM_NULL on a rank: the error
 * handler (see above).
 */
DMX_API dmx_status dmx_rma_alloc(MPI_Comm comm, int64_t bytes, dmx_rma_heap **heap);

/**
 * Open @p bytes of memory at @p base (borrowed: it must stay valid until dmx_rma_free) for
 * one-sided access. Sizes may differ between ranks (transfers are checked against the target's
 * size); base may be NULL only with bytes = 0. Only the message path is used (plus direct
 * copies when a rank targets itself). Collective on comm (duplicated). comm = MPI_COMM_NULL on a
 * rank: the error handler (see above).
 */
DMX_API dmx_status dmx_rma_attach(MPI_Comm comm, void *base, int64_t bytes, dmx_rma_heap **heap);

/** Complete all operations, free the windows (and the memory dmx_rma_alloc made); sets *heap to
 * NULL. NULL-safe: a NULL *heap returns at once without communication (so every rank may free
 * after a failed dmx_rma_alloc); a rank passing a NULL *heap while the others free a heap is
 * therefore not detected, and the others wait in the free's barrier, as for dmx_plan_destroy.
 * heap = NULL (no pointer at all): the error handler (see above). Collective on the heap's
 * communicator (every rank passes its handle of the same heap). */
DMX_API dmx_status dmx_rma_free(dmx_rma_heap **heap);

/** This rank's base address of the heap into *@p base (NULL, and DMX_ERR_NULL, for a NULL
 * heap). Local. */
DMX_API dmx_status dmx_rma_get_base(const dmx_rma_heap *heap, void **base);

/** This rank's heap size in bytes into *@p bytes (0, and DMX_ERR_NULL, for a NULL heap). Local. */
DMX_API dmx_status dmx_rma_get_size(const dmx_rma_heap *heap, int64_t *bytes);

/** The heap's communicator (the duplicate; borrowed) into *@p comm (MPI_COMM_NULL, and
 * DMX_ERR_NULL, for a NULL heap). Local. */
DMX_API dmx_status dmx_rma_get_comm(const dmx_rma_heap *heap, MPI_Comm *comm);

/** Complete every operation this rank issued on the heap at its target (MPI_Win_flush_all and
 * a memory barrier for direct stores). Local. */
DMX_API dmx_status dmx_rma_quiet(dmx_rma_heap *heap);

/** Quiet, then synchronise memory and all ranks: afterwards every rank sees every operation
 * issued before the barrier, and its own earlier stores are visible to the others.
 * Collective on the heap's communicator; a NULL heap on a rank: the error handler (see above).
 */
DMX_API dmx_status dmx_rma_barrier(dmx_rma_heap *heap);

/**
 * Strided put: block b of @p src (local, any memory) goes to block b of @p dst, an address in
 * this rank's heap naming the same offset in rank @p pe's heap. Returns when src may be reused.
 * Local.
 */
DMX_API dmx_status dmx_aput(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                            int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                            int64_t blockcount, int pe);
/** dmx_aput that returns at once; src must stay unchanged until dmx_rma_quiet. Local. */
DMX_API dmx_status dmx_aput_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                                int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                                int64_t blockcount, int pe);

/**
 * Strided get: block b at @p src (an address in this rank's heap, naming the same offset in
 * rank @p pe's heap) comes into block b of @p dst (local, any memory). Returns when dst holds
 * the data. Local.
 */
DMX_API dmx_status dmx_aget(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                            int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                            int64_t blockcount, int pe);
/** dmx_aget that returns at once; dst holds the data after dmx_rma_quiet. Local. */
DMX_API dmx_status dmx_aget_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                                int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                                int64_t blockcount, int pe);

/**
 * Strided accumulate: target block elements += source block elements (MPI_SUM), atomic per
 * element with respect to other dmx_aacc of the same dtype on the heap. Arguments as dmx_aput;
 * dtype must be a dmx dtype (not DMX_RMA_BYTE). Returns when src may be reused. Local.
 */
DMX_API dmx_status dmx_aacc(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                            int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                            int64_t blockcount, int pe);
/** dmx_aacc that returns at once; src must stay unchanged until dmx_rma_quiet. Local. */
DMX_API dmx_status dmx_aacc_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                                int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                                int64_t blockcount, int pe);

/* ------------------------------------------------------------------------------------------ */
/* Patches of distributed matrices                                                              */
/* ------------------------------------------------------------------------------------------ */

/** A layout's local blocks opened for one-sided access. */
typedef struct dmx_patch dmx_patch;

/**
 * Open the local blocks of @p layout (borrowed, with its memory: both must outlive the patch
 * window) holding elements of @p dtype for one-sided access by every rank of the layout's
 * communicator. Every rank learns where every block lives (a table of all blocks, 64 bytes per
 * block, on each rank). Collective on the layout's communicator (duplicated). The window exposes
 * the memory the layout has at open: after a dmx_layout_rebind of the layout, this rank's
 * patch calls return DMX_ERR_STATE (close and reopen the window); a rebind on another rank is
 * not seen here, so rebind only between a close and an open. A NULL layout on a rank: the error
 * handler (see above); win = NULL or an invalid dtype: the same error on every rank.
 */
DMX_API dmx_status dmx_patch_open(const dmx_layout *layout, dmx_dtype dtype, dmx_patch **win);

/**
 * Read the m x n submatrix at global (i0, j0) of the layout into @p buf (column-major, leading
 * dimension ld): op = DMX_OP_N stores element (i0+r, j0+c) at buf[r + c*ld] (ld >= m);
 * DMX_OP_T (or DMX_OP_C: no conjugation is applied) stores it at buf[c + r*ld] (ld >= n).
 * One strided transfer per owner block met; the owners call nothing. Returns when buf holds the
 * data. A patch outside the matrix is DMX_ERR_ARG and moves nothing. Local.
 */
DMX_API dmx_status dmx_patch_get(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n,
                                 void *buf, int64_t ld, dmx_op op);

/** Write buf (laid out as for dmx_patch_get with the same op) into the submatrix. Returns when
 * buf may be reused; complete at the owners after dmx_patch_quiet. Local. */
DMX_API dmx_status dmx_patch_put(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n,
                                 const void *buf, int64_t ld, dmx_op op);

/** Add buf into the submatrix, atomically per element with respect to other dmx_patch_acc.
 * Returns when buf may be reused; complete at the owners after dmx_patch_quiet. Local. */
DMX_API dmx_status dmx_patch_acc(dmx_patch *win, int64_t i0, int64_t j0, int64_t m, int64_t n,
                                 const void *buf, int64_t ld, dmx_op op);

/** Complete every patch operation this rank issued at its owners. Local. */
DMX_API dmx_status dmx_patch_quiet(dmx_patch *win);

/** Synchronise: quiet on every rank, then a barrier; afterwards owners may read their blocks
 * and see all earlier puts and accumulates. Collective; a NULL window on a rank: the error
 * handler (see above). */
DMX_API dmx_status dmx_patch_barrier(dmx_patch *win);

/** Close a patch window. NULL-safe, sets *win to NULL: a NULL *win returns at once (a rank
 * passing one while the others close a window is not detected, as in dmx_rma_free); win = NULL:
 * the error handler (see above). Collective on the layout's communicator. */
DMX_API dmx_status dmx_patch_close(dmx_patch **win);

#ifdef __cplusplus
}
#endif

#endif /* DMX_RMA_H */
