/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/gemm.h
 * @brief Distributed matrix multiply C = alpha*op(A)*op(B) + beta*C on dmx layouts, by SUMMA,
 * hierarchical SUMMA or Cannon, chosen by a cost model. Conventions: see dmx/base.h.
 *
 * A, B and C may be in any dmx layout (block-cyclic, custom, views of these). A plan brings A
 * and B into the chosen algorithm's layout with dmx plans (op is applied there), multiplies
 * with CBLAS on each rank, and adds the result into C with one more dmx plan. An operand whose
 * layout already fits (op N; on every rank exactly the one column-major block the algorithm
 * needs there) is used where it is, without a plan. docs/gemm.md describes the algorithms, the
 * model and the memory each needs.
 */
#ifndef DMX_GEMM_H
#define DMX_GEMM_H

#include "dmx/base.h"
#include "dmx/layout.h"
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Multiply algorithms. Values are pinned. */
typedef enum dmx_gemm_alg {
    DMX_GEMM_AUTO = 0,   /**< the model's cheapest (or the DMX_GEMM setting) */
    DMX_GEMM_SUMMA = 1,  /**< SUMMA: row and column panel broadcasts on a pr x pc grid */
    DMX_GEMM_HSUMMA = 2, /**< hierarchical SUMMA: G groups, outer panel B, inner panel b */
    DMX_GEMM_CANNON = 3  /**< Cannon on a q x q grid, q = floor(sqrt(p)) */
} dmx_gemm_alg;

/** "auto", "summa", "hsumma", "cannon"; NULL for an invalid value. Local. */
DMX_API const char *dmx_gemm_alg_name(dmx_gemm_alg alg);

/** Choices a caller may force; zero fields (and DMX_GEMM_AUTO) are left to the model. */
typedef struct dmx_gemm_options {
    dmx_gemm_alg alg;    /**< algorithm (AUTO: DMX_GEMM, else the model) */
    int prow, pcol;      /**< process grid (0, 0: chosen); prow*pcol <= p, ranks beyond idle */
    int groups;          /**< HSUMMA's G (0: chosen); must split the grid into equal groups */
    int64_t panel;       /**< inner panel width b (0: chosen) */
    int64_t outer_panel; /**< HSUMMA's outer panel width B, a multiple of b (0: chosen) */
    /** 1 (default): the next panel's broadcasts (or Cannon's next shift) run nonblocking under
     * the current local multiply (MPI_Ibcast / MPI_Isend, since dmx_coll has no nonblocking
     * form); 0: blocking broadcasts through dmx_grid_bcast with the model's algorithm. */
    int overlap;
} dmx_gemm_options;

/** Fill @p opt with the defaults (everything chosen, overlap on). Local. */
DMX_API dmx_status dmx_gemm_options_init(dmx_gemm_options *opt);

/** What a plan chose and what one execution sent. */
typedef struct dmx_gemm_info {
    dmx_gemm_alg alg; /**< the algorithm run */
    int prow, pcol;   /**< its grid */
    int groups;       /**< HSUMMA's G (group grid group_rows x group_cols), else 1 */
    int group_rows, group_cols;
    int64_t panel;       /**< b (Cannon: the k block width of the largest block) */
    int64_t outer_panel; /**< B (HSUMMA), else equal to panel */
    int64_t m, n, k;     /**< the product's dimensions */
    /** operands used in place (1) or redistributed by a plan (0); C in place means the
     * multiply writes C's memory directly */
    int a_in_place, b_in_place, c_in_place;
    double predicted_seconds; /**< the model's time for the multiply (redistribution excluded) */
    double compute_seconds;   /**< its local multiply part (the rest is communication) */
    /* Counted by this rank during the last execution (0 before the first). */
    int64_t bcasts;      /**< broadcasts this rank took part in (communicators of 2+ ranks) */
    int64_t bcast_bytes; /**< payload bytes of those broadcasts */
    int64_t shifts;      /**< Cannon's point-to-point messages sent */
    int64_t shift_bytes; /**< their bytes */
    int64_t local_gemms; /**< local CBLAS calls */
    int64_t temp_bytes;  /**< temporary memory the plan holds (operand copies, panel buffers) */
    /** the model's time for bringing A and B from the caller's layouts into the grid and C back
     * (0 where nothing moves or the layouts are not known); AUTO compares the multiply's time
     * plus this one */
    double redist_seconds;
} dmx_gemm_info;

typedef struct dmx_gemm_plan dmx_gemm_plan;

/**
 * Plan C = alpha*op(A)*op(B) + beta*C with op(A) m x k, op(B) k x n, C m x n. Collective on
 * @p comm, which must hold the same processes as the layouts' communicators (it is
 * duplicated; the layouts are borrowed and must outlive the plan; their memory is read or
 * written only inside dmx_gemm_plan_execute, which follows a dmx_layout_rebind made between
 * executions and then checks C against A and B again: an overlap found there goes to the error
 * handler). @p options may be NULL (all defaults). Errors,
 * on every rank alike: DMX_ERR_NULL (a NULL layout or output), DMX_ERR_ARG (bad dtype, op or
 * option; C the same layout as A or B, or its memory overlapping theirs on any rank),
 * DMX_ERR_LAYOUT (dimensions that do not match), DMX_ERR_OVERFLOW (m, n or k above INT_MAX:
 * the local multiplies call CBLAS, whose sizes are int), DMX_ERR_UNSUPPORTED (a forced grid or G
 * that does not fit p), and those of dmx_plan_create. comm = MPI_COMM_NULL on a rank leaves it
 * no communicator to tell the others: it calls the error handler (dmx_set_error_handler; the
 * default prints dmx's message and calls MPI_Abort, ending every rank at once) instead of
 * returning while the others wait for it; a handler that returns makes the call return
 * DMX_ERR_NULL on that rank (docs/errors.md). The agreements wait with the bound DMX_TIMEOUT
 * only for a rank that calls on another communicator or never calls.
 */
DMX_API dmx_status dmx_gemm_plan_create(MPI_Comm comm, dmx_dtype dtype, dmx_op transa,
                                        dmx_op transb, dmx_scalar alpha, const dmx_layout *a,
                                        const dmx_layout *b, dmx_scalar beta, dmx_layout *c,
                                        const dmx_gemm_options *options, dmx_gemm_plan **out);
/** Run the multiply once with the layouts' current memory. Collective on the plan's comm. A
 * NULL plan on a rank: the error handler, as for MPI_COMM_NULL in dmx_gemm_plan_create. */
DMX_API dmx_status dmx_gemm_plan_execute(dmx_gemm_plan *plan);
/** What the plan chose, and this rank's counts of the last execution. Local. */
DMX_API dmx_status dmx_gemm_plan_get_info(const dmx_gemm_plan *plan, dmx_gemm_info *info);
/** NULL-safe, sets *plan to NULL. Collective (frees communicators): a rank passing NULL while
 * the others destroy a plan is not detected, as for dmx_plan_destroy. */
DMX_API dmx_status dmx_gemm_plan_destroy(dmx_gemm_plan **plan);

/** Plan, execute once and destroy. Collective on @p comm; errors as dmx_gemm_plan_create
 * (MPI_COMM_NULL on a rank: the error handler). */
DMX_API dmx_status dmx_gemm(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb,
                            dmx_scalar alpha, const dmx_layout *a, const dmx_layout *b,
                            dmx_scalar beta, dmx_layout *c, const dmx_gemm_options *options);

#ifdef __cplusplus
}
#endif

#endif /* DMX_GEMM_H */
