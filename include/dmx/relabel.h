/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/relabel.h
 * @brief Communication-optimal process relabeling (included by dmx.h; compiles on its own).
 *
 * Moving B into a target layout, the ranks of the target are roles: any rank may play any role.
 * Relabeling picks the assignment sigma (role j played by rank sigma[j]) that minimizes the
 * communication cost, by solving a linear assignment problem exactly (or greedily on request).
 *
 * The safe way to use it is one call, dmx_plan_create_relabeled(): it returns sigma, a new
 * communicator in which every rank's rank IS the role it plays, target layouts on that
 * communicator whose memory dmx allocated for the right role, and a plan that fills them. The
 * caller then continues on the new communicator. (Keeping the old communicator and indexing the
 * target with the old rank is the classic mistake: the new layouts make it impossible.)
 *
 * Callers that want their own target memory use the pieces: dmx_relabel_compute() (sigma),
 * dmx_relabel_comm() (the new communicator), then create the target layouts on the new
 * communicator themselves and call dmx_plan_create(): plans accept layouts whose communicators
 * hold the same processes in a different order.
 */
#ifndef DMX_RELABEL_H
#define DMX_RELABEL_H

#include "dmx/base.h"
#include "dmx/layout.h"
#include "dmx/plan.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How to solve the assignment problem. */
typedef enum dmx_relabel_method {
    DMX_RELABEL_EXACT = 0,   /**< optimal assignment (default) */
    DMX_RELABEL_GREEDY = 1,  /**< greedy 1/2-approximation, for comparison */
    DMX_RELABEL_IDENTITY = 2 /**< no relabeling: sigma = identity */
} dmx_relabel_method;

/** The communication cost w(i, j, package) of sending a package from rank i to rank j. */
typedef enum dmx_cost_kind {
    /** Locally-free volume (seed eq. 1): bytes of the package if i != j, 0 if i == j. */
    DMX_COST_VOLUME = 0,
    /** latency[i*P + j] + bandwidth[i*P + j] * bytes for every nonempty package (i != j). */
    DMX_COST_LATBW = 1,
    /** Node-aware: bytes * 1 between ranks of one node (MPI_COMM_TYPE_SHARED), bytes *
     * node_ratio between nodes, 0 within a rank. */
    DMX_COST_NODE = 2,
    /** A user function, called for every nonempty package and every candidate rank. */
    DMX_COST_CALLBACK = 3
} dmx_cost_kind;

/** User cost of sending @p bytes from rank @p src to rank @p dst; @p transformed_bytes of them
 * belong to transforms that transpose or scale (op != N, alpha != 1 or beta != 0). */
typedef double (*dmx_cost_fn)(int src, int dst, int64_t bytes, int64_t transformed_bytes,
                              void *ctx);

/** Relabeling options. A zero-initialized struct means: exact, locally-free volume. */
typedef struct dmx_relabel_opts {
    dmx_relabel_method method;
    dmx_cost_kind cost;
    const double *latency;   /**< DMX_COST_LATBW: P x P row-major, borrowed for the call */
    const double *bandwidth; /**< DMX_COST_LATBW: P x P row-major (cost per byte) */
    double node_ratio;       /**< DMX_COST_NODE: across-node / within-node cost (<= 0: 10) */
    /** Added to every remote package: transform_weight * its transformed bytes (seed sec. 3). */
    double transform_weight;
    dmx_cost_fn fn; /**< DMX_COST_CALLBACK */
    void *ctx;      /**< passed to fn */
} dmx_relabel_opts;

/** What relabeling achieved (identical on every rank). */
typedef struct dmx_relabel_result {
    int64_t volume_identity;  /**< bytes crossing ranks without relabeling */
    int64_t volume_relabeled; /**< bytes crossing ranks with sigma */
    double cost_identity;     /**< total cost without relabeling, under the chosen cost */
    double cost_relabeled;    /**< total cost with sigma */
    double solve_seconds;     /**< time of the assignment solve */
    /** The busiest link's load without relabeling and with sigma, in the cost's units. With
     * DMX_COST_NODE each node has a link out and a link in (an across-node package loads its
     * sender's out and its receiver's in link with its cost) and a memory its ranks share (a
     * package between two of its ranks loads it with its cost); with the other kinds each rank
     * has a link out and a link in. A rank's packages to itself load nothing. Where the links
     * work at the same time, time follows the busiest one: busiest_identity /
     * busiest_relabeled predicts the time gain, cost_identity / cost_relabeled (all links
     * added) the gain in volume. The assignment minimizes the total cost, not this one. */
    double busiest_identity;
    double busiest_relabeled;
} dmx_relabel_result;

/**
 * Compute sigma for moving each transforms[k].b into a target laid out like transforms[k].a.
 * Collective on the layouts' communicator (size P). The target layouts are descriptions only:
 * their memory is never touched. On return sigma[0..P) (caller's array) holds, for every role j
 * (rank j of the targets' communicator), the rank that plays it; every rank gets the same sigma.
 * @p opts may be NULL (exact, volume); @p result may be NULL.
 * Dense cost kinds (LATBW, NODE, CALLBACK) need P <= 2048; the volume cost has no such limit.
 */
DMX_API dmx_status dmx_relabel_compute(int ntransforms, const dmx_transform *transforms,
                                       const dmx_relabel_opts *opts, int *sigma,
                                       dmx_relabel_result *result);

/**
 * The relabeled communicator: the processes of @p comm, where the rank that plays role j
 * (sigma[j]) has rank j. Collective on comm; free the result with MPI_Comm_free.
 */
DMX_API dmx_status dmx_relabel_comm(MPI_Comm comm, const int *sigma, MPI_Comm *newcomm);

/**
 * Plan with relabeling, in one call. Collective on the layouts' communicator.
 *
 * transforms[k].a are target descriptions (memory never touched, may be NULL); beta must be 0
 * (the target is new). On return: sigma[0..P) as in dmx_relabel_compute; *newcomm the relabeled
 * communicator (free with MPI_Comm_free); relabeled[k] a layout on *newcomm with the same
 * description as transforms[k].a and memory allocated by dmx for this rank's new role (owned by
 * the layout, freed by dmx_layout_destroy; query it with dmx_layout_get_local_block); *plan moves
 * every B into its relabeled target. Destroy the plan before the layouts. @p result may be NULL.
 */
DMX_API dmx_status dmx_plan_create_relabeled(int ntransforms, const dmx_transform *transforms,
                                             const dmx_relabel_opts *opts, int *sigma,
                                             MPI_Comm *newcomm, dmx_layout **relabeled,
                                             dmx_plan **plan, dmx_relabel_result *result);

/* ---- Offline relabeling studies: Local calls, no MPI ---------------------------------------
 *
 * The pieces behind relabeling, for studies on one process at any scale (the `dmx plan` tool is
 * built on them): solving a sparse linear assignment problem, and the package volumes between two
 * descriptions of a matrix's distribution (block-cyclic or general grid), computed in closed form
 * without any matrix memory or MPI. All of them are Local (callable before MPI_Init or without
 * MPI), thread-safe on distinct arguments, and deterministic: the result depends only on the
 * input values and their order. Errors leave the outputs unspecified (no memory is leaked and no
 * handle is half built); dmx_last_error() tells what went wrong. */

/** Largest gain dmx_relabel_assign() accepts: 2^60, so its sums cannot overflow. */
#define DMX_RELABEL_GAIN_MAX (INT64_C(1) << 60)

/**
 * A sparse gain matrix in compressed sparse rows: giving role x to process y gains
 * gain[k] for the k in [rowptr[x], rowptr[x+1]) with col[k] == y; pairs not listed gain 0.
 * Requirements: n >= 0; rowptr has n + 1 nondecreasing entries starting at 0; col[k] in [0, n),
 * each at most once per row (any order within a row); 0 <= gain[k] <= DMX_RELABEL_GAIN_MAX.
 * The arrays are borrowed by the calls that take the struct; nothing is copied or kept.
 */
typedef struct dmx_relabel_gains {
    int n;                 /**< roles = processes */
    const int64_t *rowptr; /**< n + 1 offsets into col and gain */
    const int *col;        /**< rowptr[n] process indices */
    const int64_t *gain;   /**< rowptr[n] gains */
} dmx_relabel_gains;

/**
 * Solve the assignment problem: the permutation sigma (role x played by process sigma[x]) that
 * maximizes sum_x gain(x, sigma[x]). Local.
 * - DMX_RELABEL_EXACT: an optimal sigma (shortest augmenting paths on the sparse matrix; memory
 *   O(n + nnz), time O(nnz log n) when the augmenting searches are short, which is typical of
 *   relabeling, and at most O(n * nnz log n)).
 * - DMX_RELABEL_GREEDY: pairs by gain descending (ties in row order), then the unmatched roles;
 *   at least half the optimal gain; time and memory O(n + nnz).
 * - DMX_RELABEL_IDENTITY: sigma[x] = x.
 * Roles without a gainful process keep their own index where possible. The input is validated
 * (DMX_ERR_ARG / DMX_ERR_NULL, see dmx_relabel_gains). sigma[0..n) is the caller's array;
 * @p total_gain (may be NULL) receives the gain of sigma.
 */
DMX_API dmx_status dmx_relabel_assign(const dmx_relabel_gains *gains, dmx_relabel_method method,
                                      int *sigma, int64_t *total_gain);

/** Total gain sum_x gain(x, sigma[x]) of a permutation sigma[0..n) (DMX_ERR_ARG if it is not
 * one). Local; O(n + nnz) time, O(n) temporary memory. */
DMX_API dmx_status dmx_relabel_assign_gain(const dmx_relabel_gains *gains, const int *sigma,
                                           int64_t *total_gain);

/** The kinds of distribution description dmx_relabel_volume_create() takes. */
typedef enum dmx_relabel_desc_kind {
    DMX_RELABEL_DESC_BLOCK_CYCLIC = 0, /**< ScaLAPACK-style block-cyclic on a process grid */
    DMX_RELABEL_DESC_GRID = 1          /**< any grid of blocks, each with its owner */
} dmx_relabel_desc_kind;

/**
 * How an m x n matrix is distributed over ranks, as a description only (no memory, no
 * communicator). Zero-initialize, set kind, m, n and the fields of that kind.
 *
 * Block-cyclic: mb x nb blocks on a prow x pcol process grid; block row b lives on process row
 * (b + rsrc) mod prow, block column b on process column (b + csrc) mod pcol, and grid process
 * (pr, pc) is rank pr*pcol + pc if order is 'R', pr + pc*prow if 'C' (lower case accepted).
 * Requires mb, nb >= 1, prow, pcol >= 1, prow*pcol <= INT_MAX, 0 <= rsrc < prow, 0 <= csrc < pcol.
 *
 * Grid: block (bi, bj) covers rows [rowsplits[bi], rowsplits[bi+1]) and columns
 * [colsplits[bj], colsplits[bj+1]) and belongs to rank owners[bi*ncb + bj]. rowsplits has nrb + 1
 * strictly increasing entries from 0 to m (nrb = 0 only if m = 0), colsplits likewise to n,
 * owners nrb * ncb ranks >= 0. The arrays are borrowed for the call.
 */
typedef struct dmx_relabel_desc {
    dmx_relabel_desc_kind kind;
    int64_t m, n; /**< global size, >= 0 */
    /* DMX_RELABEL_DESC_BLOCK_CYCLIC */
    int64_t mb, nb;
    int prow, pcol;
    char order;
    int rsrc, csrc;
    /* DMX_RELABEL_DESC_GRID */
    int64_t nrb, ncb;
    const int64_t *rowsplits;
    const int64_t *colsplits;
    const int *owners;
} dmx_relabel_desc;

/** Package volumes between two distributions (opaque): the sparse P x P matrix V(i, j) = number
 * of elements rank i holds in the source that rank j holds in the target. */
typedef struct dmx_relabel_volume dmx_relabel_volume;

/**
 * Compute the package volumes for moving a matrix from distribution @p src into @p dst, which
 * describes the same m x n matrix, or its n x m transpose if @p transpose is nonzero. Local.
 *
 * @p p is the number of ranks P; ranks that own nothing in either description are allowed.
 * p = 0 means the least that fits: the larger prow*pcol of the block-cyclic sides and 1 + the
 * largest owner of the grid sides. A p below that is DMX_ERR_ARG.
 *
 * Two block-cyclic sides: closed form, no per-block work (each dimension is one merge of block
 * boundaries over one period lcm(mb*prow, mb'*prow') or the extent, whichever is shorter), so any
 * scale is cheap; time and memory O(nnz) beyond that. Otherwise (at least one grid side) both
 * sides are brought to grid form (a block-cyclic side must then have at most 2^26 blocks) and
 * overlaid: time and memory O((nrb + nrb') * (ncb + ncb')) plus the sort of that many entries.
 * Too large a problem fails with DMX_ERR_UNSUPPORTED rather than trying to allocate it.
 * Descriptions are validated (DMX_ERR_ARG, DMX_ERR_NULL; DMX_ERR_LAYOUT if the sizes do not
 * match or a grid's splits or owners are inconsistent). On success *volume is a new handle (free
 * with dmx_relabel_volume_destroy); on failure it is NULL.
 */
DMX_API dmx_status dmx_relabel_volume_create(const dmx_relabel_desc *src,
                                             const dmx_relabel_desc *dst, int transpose, int p,
                                             dmx_relabel_volume **volume);

/** Free a volume handle. NULL-safe (also *volume == NULL); sets *volume to NULL. Local. */
DMX_API dmx_status dmx_relabel_volume_destroy(dmx_relabel_volume **volume);

/** Rank count P, number of nonzero volumes and total volume (m * n elements) of @p volume. Each
 * output may be NULL. Local. */
DMX_API dmx_status dmx_relabel_volume_get_info(const dmx_relabel_volume *volume, int *p,
                                               int64_t *nnz, int64_t *total);

/**
 * The volumes as the gain matrix of relabeling: row j (target rank, a role) lists the source
 * ranks col[k], ascending, with gain[k] = V(col[k], j) > 0. Playing role j on the process that
 * already holds V(i, j) of its elements saves moving them, so dmx_relabel_assign() on these gains
 * minimizes the remote volume. The arrays are borrowed from @p volume: valid until it is
 * destroyed, not to be written. Local.
 */
DMX_API dmx_status dmx_relabel_volume_get_gains(const dmx_relabel_volume *volume,
                                                dmx_relabel_gains *gains);

/** Remote volume (elements that change rank) when target role j is played by process sigma[j]:
 * total - sum_j V(sigma[j], j). sigma[0..P) must be a permutation (DMX_ERR_ARG otherwise);
 * sigma NULL means no relabeling (the identity). Local; O(P log(nnz / P)) time, O(P) memory. */
DMX_API dmx_status dmx_relabel_volume_remote(const dmx_relabel_volume *volume, const int *sigma,
                                             int64_t *remote);

/** Relabel by @p method on the volumes' gains: sigma[0..P) (caller's array) as in
 * dmx_relabel_assign() and, if @p remote is not NULL, the remote volume with it. Local. */
DMX_API dmx_status dmx_relabel_volume_solve(const dmx_relabel_volume *volume,
                                            dmx_relabel_method method, int *sigma, int64_t *remote);

#ifdef __cplusplus
}
#endif

#endif /* DMX_RELABEL_H */
