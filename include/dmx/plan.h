/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/plan.h
 * @brief Transforms A = alpha*op(B) + beta*A between layouts, batched into plans.
 * Conventions: see dmx/base.h.
 */
#ifndef DMX_PLAN_H
#define DMX_PLAN_H

#include "dmx/base.h"
#include "dmx/layout.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One transform A = alpha*op(B) + beta*A of a batch. */
typedef struct dmx_transform {
    dmx_dtype dtype;     /**< element type of both A and B */
    dmx_op op;           /**< op applied to B */
    dmx_scalar alpha;    /**< alpha = 0 never reads B */
    dmx_scalar beta;     /**< beta = 0 never reads A (A may hold NaN) */
    const dmx_layout *b; /**< source (borrowed by a plan) */
    dmx_layout *a;       /**< target (borrowed by a plan) */
    /** Restrict the update to a trapezoid of A (in A's own coordinates): 0 or 'G' updates all of
     * A; 'U' only elements with j >= i, 'L' only elements with i >= j. Elements outside are
     * neither read nor written. */
    char uplo;
    /** With uplo 'U' or 'L': 'U' (unit) also leaves the diagonal i == j untouched; 0 or 'N'
     * includes it. */
    char diag;
} dmx_transform;

typedef struct dmx_plan dmx_plan;

/**
 * Plan a batch of transforms. Collective on the layouts' communicator. All layouts must live on
 * communicators of the same processes: the same or congruent ones, or ones that order the
 * processes differently (such as a relabeled communicator); the plan duplicates the first
 * layout's. op(B) must have A's size. The layouts are borrowed: they must outlive the plan. The
 * transforms array is copied. A B sharing memory with an A of the batch where an element would
 * be read after another position wrote it (an in-place transpose, overlapping windows of one
 * matrix) is DMX_ERR_ARG; disjoint windows of one array and A = alpha A + beta A on one window
 * are fine (docs/errors.md). Any error is returned on every rank (and nothing is created),
 * except where a rank has no communicator to agree on: ntransforms <= 0, NULL transforms, or
 * only NULL layouts go to the error handler (dmx_set_error_handler; the default prints the
 * message and aborts the job), as does an agreement that does not complete within DMX_TIMEOUT
 * seconds (ranks passing layouts on different communicators). A layout of more elements, or
 * bytes, than int64_t holds fails with DMX_ERR_OVERFLOW on every rank.
 */
DMX_API dmx_status dmx_plan_create(int ntransforms, const dmx_transform *transforms,
                                   dmx_plan **out);

/** Run every transform of the plan once. Collective on the plan's communicator. */
DMX_API dmx_status dmx_plan_execute(dmx_plan *plan);

/** Change alpha and beta of transform @p k for later executions. Local (must agree on ranks). */
DMX_API dmx_status dmx_plan_set_scalars(dmx_plan *plan, int k, dmx_scalar alpha, dmx_scalar beta);

/** Statistics of this rank's part of a plan. Local. */
typedef struct dmx_plan_info {
    int npeers_send;      /**< ranks this rank sends to (itself excluded) */
    int npeers_recv;      /**< ranks this rank receives from (itself excluded) */
    int64_t send_elems;   /**< elements sent to other ranks per execution */
    int64_t recv_elems;   /**< elements received from other ranks per execution */
    int64_t local_elems;  /**< elements copied locally without buffers */
    int64_t buffer_bytes; /**< temporary buffer memory one execution needs */
    /** receive peers on this node whose packages come through a shared-memory window (no copy by
     * MPI; DMX_SHM=0 turns this off) */
    int npeers_shared_memory;
    /** bytes of planning data the plan keeps on this rank (its pieces, local rectangles, runs
     * and peers; buffer_bytes not included): about 80 bytes per rectangle of the overlay, or
     * per chunk plus 32 per run for transforms between block-cyclic layouts with small blocks */
    int64_t plan_bytes;
} dmx_plan_info;

DMX_API dmx_status dmx_plan_get_info(const dmx_plan *plan, dmx_plan_info *info);

/** Destroy a plan. NULL-safe, sets *plan to NULL. Collective: every rank destroys and creates the
 * plans of a communicator in the same order (its private communicator is kept for the next plan
 * on the same communicator, or freed). */
DMX_API dmx_status dmx_plan_destroy(dmx_plan **plan);

/** Plan, execute once and destroy: A = alpha*op(B) + beta*A. Collective.
 *  With dmx's default error handler and DMX_PLAN_CHECK=local (the default), a small call between
 *  layouts known globally makes no agreement (a rank whose check fails ends the job through the
 *  handler) and keeps its plan for later calls with the same layouts, dtype and op (the plans
 *  of the last 4 such transforms per communicator, within DMX_CACHE_BYTES of kept plans); every
 *  rank must then pass the same transform (docs/errors.md). */
DMX_API dmx_status dmx_transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha,
                                      const dmx_layout *b, dmx_scalar beta, dmx_layout *a);

/** dmx_transform_once for one transform given whole, its trapezoid (uplo, diag) included: the
 *  same paths, the same collective rules and the same kept plans (whose key includes uplo and
 *  diag). Collective. A NULL t goes to the error handler, as dmx_plan_create's does. */
DMX_API dmx_status dmx_transform_once_ex(const dmx_transform *t);

#ifdef __cplusplus
}
#endif

#endif /* DMX_PLAN_H */
