/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file coll.h
 * @brief Collective operations with selectable algorithms (ring, hypercube, 2D grid), a cost
 * model that predicts each algorithm's time, and a 2D process grid for row and column
 * collectives. Included by dmx.h; may also be included alone.
 *
 * Semantics shared by every call here:
 *  - Buffers hold @p count elements of any MPI datatype, one extent apart as in MPI
 *    (MPI_DOUBLE_INT: 12 bytes of data every 16), predefined or derived (contiguous, vector,
 *    resized, ...; a datatype whose data reaches past its extent or starts before its lower
 *    bound is DMX_ERR_UNSUPPORTED). Only the datatype's bytes are read and written: the gaps of
 *    a receive buffer stay untouched. Types with gaps run the dmx algorithms on packed
 *    temporaries (one extra copy in, one out). Reductions take a predefined MPI_Op on a
 *    predefined datatype where the MPI standard's table defines it (MPI_MAXLOC/MPI_MINLOC on
 *    the pair types, MPI_BAND on integers and MPI_BYTE, ...), or a user-defined op on any
 *    datatype; anything else (MPI_BAND on doubles, MPI_REPLACE, MPI_NO_OP, a predefined op on a
 *    derived datatype) is DMX_ERR_ARG with a message, checked before any MPI call. A
 *    non-commutative user op (MPI_Op_commutative) is combined in rank order: AUTO runs binomial
 *    (reduce, allreduce), hypercube (scans) or a binomial reduce + scatter (reduce-scatter),
 *    and a named algorithm that cannot keep the order at this p (ring, rs_gather, halving,
 *    recdbl when p is not a power of two) is DMX_ERR_ARG; binomial, recdbl at powers of two and
 *    both scans keep it. 8- and 16-bit integer MPI_SUM/MPI_PROD wrap
 *    modulo 2^bits and unsigned MPI_MAX/MPI_MIN compare as unsigned in every dmx algorithm and
 *    AUTO (dmx does that arithmetic: Open MPI 4.1 saturates the sums, MPICH 4.0 compares
 *    unsigned as signed); DMX_COLL_MPI is the library's call with its results. Counts are
 *    int64_t; messages over INT_MAX bytes are sent in several pieces, and DMX_COLL_MPI runs a
 *    count above INT_MAX as several calls of the MPI library's collective.
 *  - Arguments follow MPI's order for the matching MPI call, with the algorithm last. Where MPI
 *    allows MPI_IN_PLACE, so do these calls, with MPI's meaning. A send and a receive buffer
 *    that share any byte where both count are DMX_ERR_ARG, as MPI forbids them (pass
 *    MPI_IN_PLACE instead).
 *  - Collective on comm: every rank calls with the same count, root and algorithm. Every call
 *    checks its arguments on each rank before anything is sent (negative count, root out of
 *    range, unknown algorithm, NULL buffer, ...). DMX_COLL_CHECK says what a failed check does:
 *    local (default) calls the dmx error handler on that rank (the default one prints the
 *    message and aborts the job, so no rank is left waiting), then returns the status; agree
 *    (or 1) adds one small allreduce per call so that every rank returns the same status (also
 *    when ranks disagree on count, root or algorithm); off (or 0) returns the status on that
 *    rank only. docs/coll.md, docs/errors.md. A rank given MPI_COMM_NULL cannot take part in
 *    agree's allreduce: it calls the error handler in local and agree modes alike, and the
 *    default handler ends the whole job with the message within the time MPI_Abort takes
 *    (about a second on one node; 2 s measured at np 3 on 2 busy cores). With a handler that
 *    returns, or in off mode, the other ranks wait as they would in MPI's own call.
 *  - The user's communicator never carries dmx traffic: the first call on a communicator
 *    duplicates it and caches the duplicate as an attribute (freed with the communicator, or at
 *    MPI_Finalize for MPI_COMM_WORLD).
 *  - Not thread safe (the communicator cache is not locked), like the rest of dmx.
 *  - DMX_COLL_AUTO chooses by the cost model (dmx_coll_predict), then by measurement: the
 *    first AUTO calls of each size class (four per octave of bytes) on a communicator are
 *    trials of the MPI library's call and of the algorithms the model predicts within 4x of its
 *    best (at most 6 candidates, each run twice in a row, DMX_COLL_TUNE rounds, default 2: at
 *    most 24 trial calls), and one small allreduce keeps the fastest for the communicator's
 *    life (dmx_coll_auto_choice tells what AUTO runs). Every trial computes the correct result.
 *    Cells the model predicts under 20 us are left to the model.
 *    DMX_COLL_TUNE=0 leaves the choice to the model alone. The environment variable
 *    DMX_COLL_<NAME>=<alg> (NAME = BCAST, SCATTER, GATHER, ALLGATHER, REDUCE, ALLREDUCE,
 *    REDUCE_SCATTER, ALLTOALL, SCAN, EXSCAN, SHIFT; alg as dmx_coll_alg_name prints it) forces
 *    an algorithm for AUTO calls; DMX_MODEL=<file> loads calibrated parameters (docs/coll.md).
 */
#ifndef DMX_COLL_H
#define DMX_COLL_H

#include "dmx/base.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Algorithms. Values are pinned. Which ones apply to which collective: dmx_coll_alg_valid. */
typedef enum dmx_coll_alg {
    DMX_COLL_AUTO = 0,       /**< the model's pick, then the fastest measured (see above) */
    DMX_COLL_MPI = 1,        /**< the MPI library's own collective */
    DMX_COLL_FLAT = 2,       /**< root talks to every rank directly */
    DMX_COLL_RING = 3,       /**< ring, store and forward (reductions: ring RS + ring AG) */
    DMX_COLL_PIPELINE = 4,   /**< pipelined ring (segments; scatter/gather: farthest first) */
    DMX_COLL_BINOMIAL = 5,   /**< binomial tree / hypercube */
    DMX_COLL_SCATTER_AG = 6, /**< broadcast as scatter + ring allgather */
    DMX_COLL_GRID = 7,       /**< 2D grid: rows then columns (near-square factor of p) */
    DMX_COLL_RECDBL = 8,     /**< recursive doubling (allgather, allreduce) */
    DMX_COLL_BRUCK = 9,      /**< Bruck's log p rounds (allgather, alltoall) */
    DMX_COLL_RS_GATHER = 10, /**< reduce-scatter then gather (reduce, allreduce: + allgather) */
    DMX_COLL_HALVING = 11,   /**< recursive halving (reduce-scatter) */
    DMX_COLL_PAIRWISE = 12,  /**< pairwise exchange, p-1 steps (alltoall) */
    DMX_COLL_HYPERCUBE = 13, /**< hypercube: log p store-and-forward rounds (alltoall, scan) */
    DMX_COLL_NALGS = 14
} dmx_coll_alg;

/** Collectives, for the model and for naming. Values are pinned. */
typedef enum dmx_coll_kind {
    DMX_COLL_BCAST = 0,
    DMX_COLL_SCATTER = 1,
    DMX_COLL_GATHER = 2,
    DMX_COLL_ALLGATHER = 3,
    DMX_COLL_REDUCE = 4,
    DMX_COLL_ALLREDUCE = 5,
    DMX_COLL_REDUCE_SCATTER = 6,
    DMX_COLL_ALLTOALL = 7,
    DMX_COLL_SCAN = 8,
    DMX_COLL_EXSCAN = 9,
    DMX_COLL_SHIFT = 10,
    DMX_COLL_NKINDS = 11
} dmx_coll_kind;

/** "auto", "mpi", "flat", "ring", ...; NULL for an invalid value. Local. */
DMX_API const char *dmx_coll_alg_name(dmx_coll_alg alg);
/** The algorithm called @p name (as dmx_coll_alg_name prints it); DMX_ERR_ARG if none. Local. */
DMX_API dmx_status dmx_coll_alg_from_name(const char *name, dmx_coll_alg *alg);
/** "bcast", "scatter", ...; NULL for an invalid value. Local. */
DMX_API const char *dmx_coll_kind_name(dmx_coll_kind kind);
/** 1 if @p alg implements @p kind (AUTO and MPI implement every kind), else 0. Local. */
DMX_API int dmx_coll_alg_valid(dmx_coll_kind kind, dmx_coll_alg alg);

/* ------------------------------------------------------------------------------------------ */
/* Collectives. "count" is per rank where MPI's call has it per rank.                           */
/* ------------------------------------------------------------------------------------------ */

/** Root's @p buf to every rank. Collective on comm. */
DMX_API dmx_status dmx_coll_bcast(void *buf, int64_t count, MPI_Datatype type, int root,
                                  MPI_Comm comm, dmx_coll_alg alg);
/** Block i (count elements) of root's sendbuf to rank i's recvbuf (MPI_IN_PLACE at root keeps
 *  root's block in sendbuf). sendbuf significant at root only. Collective on comm. */
DMX_API dmx_status dmx_coll_scatter(const void *sendbuf, void *recvbuf, int64_t count,
                                    MPI_Datatype type, int root, MPI_Comm comm, dmx_coll_alg alg);
/** Rank i's sendbuf (count elements) to block i of root's recvbuf (MPI_IN_PLACE as sendbuf at
 *  root: root's block is already in place). Collective on comm. */
DMX_API dmx_status dmx_coll_gather(const void *sendbuf, void *recvbuf, int64_t count,
                                   MPI_Datatype type, int root, MPI_Comm comm, dmx_coll_alg alg);
/** Gather to every rank (MPI_IN_PLACE as sendbuf: own block already in recvbuf). Collective. */
DMX_API dmx_status dmx_coll_allgather(const void *sendbuf, void *recvbuf, int64_t count,
                                      MPI_Datatype type, MPI_Comm comm, dmx_coll_alg alg);
/** Element-wise reduction to root (MPI_IN_PLACE as sendbuf at root: input in recvbuf).
 *  recvbuf significant at root only. Temporary memory: count elements on non-root ranks plus
 *  the algorithm's (docs/coll.md). Collective on comm. */
DMX_API dmx_status dmx_coll_reduce(const void *sendbuf, void *recvbuf, int64_t count,
                                   MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                   dmx_coll_alg alg);
/** Reduction to every rank (MPI_IN_PLACE as sendbuf: input in recvbuf). Collective on comm. */
DMX_API dmx_status dmx_coll_allreduce(const void *sendbuf, void *recvbuf, int64_t count,
                                      MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                      dmx_coll_alg alg);
/** Reduce p*count elements, block i (count elements) of the result to rank i
 *  (MPI_Reduce_scatter_block; MPI_IN_PLACE as sendbuf: input in recvbuf, which then holds
 *  p*count elements). Collective on comm. */
DMX_API dmx_status dmx_coll_reduce_scatter(const void *sendbuf, void *recvbuf, int64_t count,
                                           MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                           dmx_coll_alg alg);
/** Personalized all-to-all: block j of rank i's sendbuf to block i of rank j's recvbuf (count
 *  elements per block; MPI_IN_PLACE as sendbuf: input in recvbuf). Collective on comm. */
DMX_API dmx_status dmx_coll_alltoall(const void *sendbuf, void *recvbuf, int64_t count,
                                     MPI_Datatype type, MPI_Comm comm, dmx_coll_alg alg);
/** Inclusive prefix reduction over ranks 0..i (MPI_IN_PLACE allowed). Collective on comm. */
DMX_API dmx_status dmx_coll_scan(const void *sendbuf, void *recvbuf, int64_t count,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm, dmx_coll_alg alg);
/** Exclusive prefix reduction over ranks 0..i-1; rank 0's recvbuf is left unchanged, as in
 *  MPI_Exscan (MPI_IN_PLACE allowed). Collective on comm. */
DMX_API dmx_status dmx_coll_exscan(const void *sendbuf, void *recvbuf, int64_t count,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, dmx_coll_alg alg);
/** Circular shift: rank i's sendbuf goes to rank (i + k) mod p's recvbuf (any k, negative
 *  too; MPI_IN_PLACE as sendbuf: data in recvbuf). DMX_COLL_MPI is MPI_Sendrecv. Collective. */
DMX_API dmx_status dmx_coll_shift(const void *sendbuf, void *recvbuf, int64_t count,
                                  MPI_Datatype type, int64_t k, MPI_Comm comm, dmx_coll_alg alg);

/* ------------------------------------------------------------------------------------------ */
/* The cost model                                                                               */
/* ------------------------------------------------------------------------------------------ */

/**
 * Predicted time in seconds of @p alg for @p kind on @p p ranks and a message of @p bytes
 * (bytes per rank block for scatter, gather, allgather, reduce-scatter, alltoall and shift; the
 * whole vector otherwise), with all ranks on one node (@p nodes = 1) or spread over @p nodes
 * nodes. For DMX_COLL_AUTO the smallest prediction, and *chosen (may be NULL) names it. Uses
 * the parameters loaded from DMX_MODEL (or dmx_coll_model_load), else built-in defaults. Local.
 */
DMX_API dmx_status dmx_coll_predict(dmx_coll_kind kind, dmx_coll_alg alg, int64_t p, int64_t bytes,
                                    int64_t nodes, double *seconds, dmx_coll_alg *chosen);
/** What the next DMX_COLL_AUTO call of @p kind with @p bytes (as for dmx_coll_predict) on
 *  @p comm runs: *@p settled = 1 when that choice is final (tuned, tuning off, forced, one
 *  rank, or a single candidate), 0 while trials remain (*@p alg is then the next trial's
 *  algorithm). Every rank of @p comm gets the same answer. Collective the first time dmx sees
 *  @p comm (it is then duplicated, as by any collective here), local afterwards. */
DMX_API dmx_status dmx_coll_auto_choice(MPI_Comm comm, dmx_coll_kind kind, int64_t bytes,
                                        dmx_coll_alg *alg, int *settled);
/** Load model parameters from @p path (NULL: reset to the built-in defaults). A malformed file
 *  returns DMX_ERR_ARG with the line in dmx_last_error() and keeps the current parameters.
 *  Local (each rank loads its own copy; ranks must load the same file). */
DMX_API dmx_status dmx_coll_model_load(const char *path);

/* ------------------------------------------------------------------------------------------ */
/* 2D process grid                                                                              */
/* ------------------------------------------------------------------------------------------ */

/** A prow x pcol grid over a communicator, with a communicator per row and per column. */
typedef struct dmx_grid dmx_grid;

/** Along a row (the ranks of my grid row, indexed by column) or a column. */
typedef enum dmx_grid_dir { DMX_GRID_ROW = 0, DMX_GRID_COL = 1 } dmx_grid_dir;

/**
 * Grid of prow x pcol ranks of comm: rank r*pcol + c is (r, c) if order is 'R', rank r + c*prow
 * if 'C'. Ranks at or beyond prow*pcol are outside the grid (coordinates -1, MPI_COMM_NULL row
 * and column). comm is borrowed (the grid holds its own duplicates). Collective on comm.
 */
DMX_API dmx_status dmx_grid_create(MPI_Comm comm, int prow, int pcol, char order, dmx_grid **grid);
/** NULL-safe, sets *grid to NULL. Collective on the grid's communicator. */
DMX_API dmx_status dmx_grid_destroy(dmx_grid **grid);
/** Grid dimensions and my coordinates (-1, -1 outside the grid). Local. */
DMX_API dmx_status dmx_grid_coords(const dmx_grid *grid, int *prow, int *pcol, int *myrow,
                                   int *mycol);
/** The communicator of my row (rank = my column) or column (rank = my row); borrowed, valid
 *  until dmx_grid_destroy; MPI_COMM_NULL outside the grid. Local. */
DMX_API dmx_status dmx_grid_comm(const dmx_grid *grid, dmx_grid_dir dir, MPI_Comm *comm);
/** Broadcast along my row (root = a column index) or column (root = a row index). Collective
 *  on the grid's communicator ranks of that row/column; ranks outside the grid return at once. */
DMX_API dmx_status dmx_grid_bcast(const dmx_grid *grid, dmx_grid_dir dir, void *buf, int64_t count,
                                  MPI_Datatype type, int root, dmx_coll_alg alg);
/** Allreduce along my row or column. Collective on that row/column. */
DMX_API dmx_status dmx_grid_allreduce(const dmx_grid *grid, dmx_grid_dir dir, const void *sendbuf,
                                      void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                                      dmx_coll_alg alg);
/** Allgather along my row or column. Collective on that row/column. */
DMX_API dmx_status dmx_grid_allgather(const dmx_grid *grid, dmx_grid_dir dir, const void *sendbuf,
                                      void *recvbuf, int64_t count, MPI_Datatype type,
                                      dmx_coll_alg alg);

#ifdef __cplusplus
}
#endif

#endif /* DMX_COLL_H */
