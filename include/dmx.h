/**
 * @file dmx.h
 * @brief dmx: move distributed dense matrices between layouts, A = alpha*op(B) + beta*A.
 *
 * Conventions used throughout this header:
 *  - Every call returns a ::dmx_status; outputs come last.
 *  - "Collective on comm" means every rank of the communicator must make the call with
 *    arguments that describe the same global object; if any rank finds an error, every rank
 *    returns the same (non-zero) status and nothing is created.
 *  - "Local" calls involve no communication.
 *  - Arrays passed in are copied unless the documentation says "borrowed".
 *  - Destroy functions are NULL-safe and set the handle to NULL.
 *  - Indices are 0-based; sizes and counts are int64_t.
 */
#ifndef DMX_H
#define DMX_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#if defined(DMX_BUILDING_LIBRARY) && defined(__GNUC__)
#define DMX_API __attribute__((visibility("default")))
#else
#define DMX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DMX_VERSION_MAJOR 0
#define DMX_VERSION_MINOR 1
#define DMX_VERSION_PATCH 0

/** Status codes. Values are pinned and will not change. */
typedef enum dmx_status {
    DMX_SUCCESS = 0,
    DMX_ERR_ARG = 1,         /**< an argument is out of range or inconsistent */
    DMX_ERR_NULL = 2,        /**< a required pointer is NULL */
    DMX_ERR_ALLOC = 3,       /**< memory allocation failed */
    DMX_ERR_STATE = 4,       /**< call not allowed in the object's current state */
    DMX_ERR_LAYOUT = 5,      /**< a layout description is invalid or layouts do not match */
    DMX_ERR_OVERFLOW = 6,    /**< a size or count does not fit the type it must pass through */
    DMX_ERR_MPI = 7,         /**< an MPI call failed */
    DMX_ERR_UNSUPPORTED = 8, /**< valid request that dmx does not implement */
    DMX_ERR_INTERNAL = 9     /**< a bug in dmx; please report it */
} dmx_status;

/** Element types. */
typedef enum dmx_dtype {
    DMX_FLOAT = 0,  /**< float */
    DMX_DOUBLE = 1, /**< double */
    DMX_CFLOAT = 2, /**< float _Complex (two floats, real first) */
    DMX_CDOUBLE = 3 /**< double _Complex (two doubles, real first) */
} dmx_dtype;

/** The operation applied to B. */
typedef enum dmx_op {
    DMX_OP_N = 0, /**< op(B) = B */
    DMX_OP_T = 1, /**< op(B) = B^T */
    DMX_OP_C = 2  /**< op(B) = conj(B)^T; same as DMX_OP_T for real types */
} dmx_op;

/** Storage order of one local block. */
typedef enum dmx_order {
    DMX_COL_MAJOR = 0, /**< element (i,j) at data[i + j*ld] */
    DMX_ROW_MAJOR = 1  /**< element (i,j) at data[i*ld + j] */
} dmx_order;

/** A scalar usable with every dtype: real types use re only; float types round. */
typedef struct dmx_scalar {
    double re;
    double im;
} dmx_scalar;

/** Size in bytes of one element of @p t, 0 for an invalid type. Local. */
DMX_API size_t dmx_dtype_size(dmx_dtype t);

/** A fixed English name for @p st ("DMX_ERR_ARG", ...). Local. */
DMX_API const char *dmx_status_string(dmx_status st);

/** The calling thread's last error as "file:line: message", or "" if none. Local. */
DMX_API const char *dmx_last_error(void);

/* ------------------------------------------------------------------------------------------ */
/* Layouts                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * A distributed m x n matrix: a grid of row splits and column splits, an owner rank (in the
 * layout's communicator) for each grid block, and for this rank the memory of the blocks it owns.
 * The communicator is borrowed: it must stay valid as long as the layout and plans built on it.
 * Data pointers are borrowed: dmx reads or writes them only inside transforms.
 */
typedef struct dmx_layout dmx_layout;

/** One local block of a custom layout, as the user describes it. */
typedef struct dmx_block {
    int64_t brow; /**< grid block row index, 0 <= brow < number of row blocks */
    int64_t bcol; /**< grid block column index */
    void *data;   /**< first element of the block (borrowed) */
    int64_t ld;   /**< leading dimension in elements: >= rows (col-major) or >= cols (row-major) */
    dmx_order order; /**< storage order of this block */
} dmx_block;

/**
 * ScaLAPACK-style block-cyclic layout. Collective on comm.
 *
 * Global m x n matrix in mb x nb blocks dealt cyclically over a prow x pcol process grid whose
 * first block row/column sits on process row rsrc / column csrc. Process (pr, pc) of the grid is
 * rank pr*pcol + pc of comm if grid_order is 'R', rank pr + pc*prow if 'C'; ranks at or beyond
 * prow*pcol own nothing. The rank's local array is column-major with leading dimension lld (>= its
 * local row count, >= 1), exactly as ScaLAPACK stores it. @p local may be NULL
 * (lld is then ignored): on ranks that own no elements, or to make a description without memory,
 * such as a relabeling target; planning a transform that would touch missing memory fails with
 * DMX_ERR_NULL.
 */
DMX_API dmx_status dmx_layout_create_block_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                                  int64_t nb, int prow, int pcol, char grid_order,
                                                  int rsrc, int csrc, void *local, int64_t lld,
                                                  dmx_layout **out);

/**
 * Block-cyclic layout on an arbitrary process grid: process (pr, pc) is rank
 * grid_ranks[pr*pcol + pc] of comm (copied). The ranks must be distinct. Collective on comm.
 */
DMX_API dmx_status dmx_layout_create_block_cyclic_mapped(MPI_Comm comm, int64_t m, int64_t n,
                                                         int64_t mb, int64_t nb, int prow, int pcol,
                                                         const int *grid_ranks, int rsrc, int csrc,
                                                         void *local, int64_t lld,
                                                         dmx_layout **out);

/**
 * Custom grid layout. Collective on comm.
 *
 * rowsplits[0..nrb] (copied) must start at 0, strictly increase and end at m; likewise colsplits
 * for n. owners[i*ncb + j] (copied) is the rank owning block (i, j). Each rank passes exactly the
 * blocks it owns (nlocal entries of @p blocks, copied), in any order. An empty matrix (m or n 0)
 * has nrb or ncb 0.
 */
DMX_API dmx_status dmx_layout_create_custom(MPI_Comm comm, int64_t m, int64_t n, int64_t nrb,
                                            const int64_t *rowsplits, int64_t ncb,
                                            const int64_t *colsplits, const int *owners,
                                            int64_t nlocal, const dmx_block *blocks,
                                            dmx_layout **out);

/** One block of a layout known only locally: a rectangle of the global matrix and its memory. */
typedef struct dmx_local_block {
    int64_t row0, col0; /**< global position of the block's element (0,0) */
    int64_t rows, cols; /**< size, >= 1 each */
    void *data;         /**< first element (borrowed) */
    int64_t ld;         /**< leading dimension in elements */
    dmx_order order;    /**< storage order */
} dmx_local_block;

/**
 * Layout known only locally. Collective on comm.
 *
 * Each rank passes only its own blocks (copied): rectangles of any size, no grid, no owner map,
 * and no rank ever learns the others' blocks. Together the blocks must tile the m x n matrix
 * exactly. Creation checks what it can cheaply (blocks inside the matrix, ld, a rank's own blocks
 * disjoint, total area m*n); planning a transform checks the rest (no two ranks' blocks overlap)
 * and discovers partners through a sparse data exchange over an assumed-partition directory of
 * the index space, with per-rank memory proportional to its own blocks and peers.
 * Views of such layouts are not supported.
 */
DMX_API dmx_status dmx_layout_create_local(MPI_Comm comm, int64_t m, int64_t n, int64_t nlocal,
                                           const dmx_local_block *blocks, dmx_layout **out);

/**
 * The m x n submatrix of @p parent starting at global row i0, column j0 (0-based), as a layout
 * of its own whose element (0,0) is the parent's (i0,j0). It shares the parent's memory; the
 * parent may be destroyed afterwards. Collective on the parent's communicator.
 */
DMX_API dmx_status dmx_layout_create_view(const dmx_layout *parent, int64_t i0, int64_t j0,
                                          int64_t m, int64_t n, dmx_layout **out);

/** Destroy a layout. NULL-safe; sets *layout to NULL. Local. */
DMX_API dmx_status dmx_layout_destroy(dmx_layout **layout);

/** Global size. Local. */
DMX_API dmx_status dmx_layout_get_size(const dmx_layout *layout, int64_t *m, int64_t *n);

/** Number of blocks this rank owns. Local. */
DMX_API dmx_status dmx_layout_get_num_local_blocks(const dmx_layout *layout, int64_t *nlocal);

/**
 * Describe local block k (0 <= k < nlocal): its origin (row0, col0) in the layout's coordinates,
 * its size, and its memory: *data is the address of the block's element (0,0) for elements of
 * type @p dtype (layouts are untyped, so views need the element size to offset pointers).
 * Any output pointer may be NULL. Local.
 */
DMX_API dmx_status dmx_layout_get_local_block(const dmx_layout *layout, int64_t k, dmx_dtype dtype,
                                              int64_t *row0, int64_t *col0, int64_t *rows,
                                              int64_t *cols, void **data, int64_t *ld,
                                              dmx_order *order);

/**
 * Point a block-cyclic layout (or a view of one) at another local array with the same lld.
 * Plans built on the layout use the new memory from their next execution. Local.
 */
DMX_API dmx_status dmx_layout_rebind(dmx_layout *layout, void *local);

/**
 * Rank owning global element (i, j), or -1 if out of range (for a layout known only locally:
 * this rank if it owns the element, else -1). Local.
 */
DMX_API int dmx_layout_owner_of(const dmx_layout *layout, int64_t i, int64_t j);

/* ------------------------------------------------------------------------------------------ */
/* Transforms and plans                                                                         */
/* ------------------------------------------------------------------------------------------ */

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
 * transforms array is copied. Any error is returned on every rank, except on a rank that passes
 * no layout at all (NULL transforms, or only NULL layouts), which has no communicator to agree
 * on: it fails alone and the others wait for it.
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
} dmx_plan_info;

DMX_API dmx_status dmx_plan_get_info(const dmx_plan *plan, dmx_plan_info *info);

/** Destroy a plan. NULL-safe, sets *plan to NULL. Collective (frees a communicator). */
DMX_API dmx_status dmx_plan_destroy(dmx_plan **plan);

/** Plan, execute once and destroy: A = alpha*op(B) + beta*A. Collective. */
DMX_API dmx_status dmx_transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha,
                                      const dmx_layout *b, dmx_scalar beta, dmx_layout *a);

#ifdef __cplusplus
}
#endif

#include "dmx/exchange.h"
#include "dmx/relabel.h"
#include "dmx/coll.h"

#endif /* DMX_H */
