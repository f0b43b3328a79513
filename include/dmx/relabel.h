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

#ifdef __cplusplus
}
#endif

#endif /* DMX_RELABEL_H */
