/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/layout.h
 * @brief Distributed matrix layouts: block-cyclic, custom grid, locally known blocks, views.
 * Conventions: see dmx/base.h.
 */
#ifndef DMX_LAYOUT_H
#define DMX_LAYOUT_H

#include "dmx/base.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * parent may be destroyed afterwards. Collective on the parent's communicator. A NULL
 * @p parent leaves the rank no communicator to agree on: it goes to the error handler
 * (dmx_set_error_handler; the default aborts the job).
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
 * Plans built on the layout use the new memory from their next execution. @p local may be NULL
 * only on a rank that owns no element of the layout (else DMX_ERR_NULL, and the layout keeps its
 * memory). Local.
 */
DMX_API dmx_status dmx_layout_rebind(dmx_layout *layout, void *local);

/**
 * The rank owning global element (i, j) into *@p owner; for a layout known only locally, this
 * rank if it owns the element, else -1. An element outside the matrix is DMX_ERR_ARG (and
 * *owner = -1). Local.
 */
DMX_API dmx_status dmx_layout_get_owner(const dmx_layout *layout, int64_t i, int64_t j, int *owner);

#ifdef __cplusplus
}
#endif

#endif /* DMX_LAYOUT_H */
