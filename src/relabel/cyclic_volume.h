/* SPDX-License-Identifier: BSD-3-Clause */
/* Package volumes between two grid layouts of one global matrix: the sparse P x P matrix
 * V(S_{i,j}) = elements source rank i must send to target rank j (seed section 5, algorithm 2),
 * and the remote volume before and after a relabeling.
 *
 * Everything here is Local, uses no MPI and is deterministic. Volumes are counted in elements
 * as int64_t, the same number type the sparse assignment solvers take as gains (lap.h).
 */
#ifndef DMXI_RELABEL_CYCLIC_VOLUME_H
#define DMXI_RELABEL_CYCLIC_VOLUME_H

#include "dmxi.h"
#include "lap.h"

#include <stdint.h>

/* A block-cyclic layout (ScaLAPACK style) of an m x n matrix. Process (pr, pc) of the grid is
 * rank pr*pcol + pc if order is 'R', rank pr + pc*prow if 'C'. Block row b lives on process row
 * (b + rsrc) mod prow, block column b on process column (b + csrc) mod pcol. */
typedef struct dmxi_bc_desc {
    int64_t m, n;   /* global size, >= 0 */
    int64_t mb, nb; /* block size, >= 1 */
    int prow, pcol; /* process grid, >= 1, prow*pcol <= INT_MAX */
    char order;     /* 'R' or 'C' (lower case accepted) */
    int rsrc, csrc; /* grid coordinates of the first block, 0 <= rsrc < prow, 0 <= csrc < pcol */
} dmxi_bc_desc;

/* A general grid layout (seed section 5): block (bi, bj) covers rows
 * [rowsplits[bi], rowsplits[bi+1]) and columns [colsplits[bj], colsplits[bj+1]) and belongs to
 * rank owners[bi*ncb + bj]. Arrays borrowed. */
typedef struct dmxi_grid_desc {
    int64_t m, n;
    int64_t nrb, ncb;         /* number of block rows / columns (0 only if m / n is 0) */
    const int64_t *rowsplits; /* nrb + 1 entries: 0 = r_0 < r_1 < ... < r_nrb = m */
    const int64_t *colsplits; /* ncb + 1 entries, likewise ending at n */
    const int *owners;        /* nrb * ncb ranks, row-major */
} dmxi_grid_desc;

/* The volume matrix, stored by target rank: row j lists the source ranks col[k] (ascending)
 * with V(S_{col[k], j}) = vol[k] > 0, for rowptr[j] <= k < rowptr[j+1]. Owns its arrays. */
typedef struct dmxi_volume {
    int p; /* ranks: the larger of the two layouts' rank counts */
    int64_t nnz;
    int64_t *rowptr; /* p + 1 */
    int *col;
    int64_t *vol;
    int64_t total; /* sum of all volumes = m * n */
} dmxi_volume;

/*
 * Volumes between two block-cyclic layouts. @p dst describes the target: the same m x n as
 * @p src, or, if @p transpose is nonzero, the n x m matrix op(src) = src^T. P = max(prow*pcol)
 * of the two; ranks beyond a grid own nothing. Rows and columns are independent: the 1D overlap
 * counts of each dimension come from one merge of the two sets of split points over a period
 * lcm(mb*prow, mb'*prow') (O(min(m, period)/mb + .../mb') per dimension), and V is their
 * Kronecker product, produced nonzero by nonzero. *out must be zeroed or freed; on failure it
 * holds nothing.
 */
dmx_status dmxi_cyclic_volume(const dmxi_bc_desc *src, const dmxi_bc_desc *dst, int transpose,
                              dmxi_volume *out);

/*
 * Volumes between two general grid layouts on @p p ranks (owners must be < p) by the grid
 * overlay, O((nrb + nrb') * (ncb + ncb')) time. The target is m x n, or n x m if transpose.
 */
dmx_status dmxi_cyclic_volume_grid(const dmxi_grid_desc *src, const dmxi_grid_desc *dst,
                                   int transpose, int p, dmxi_volume *out);

/*
 * The grid form of a block-cyclic layout (for mixing with custom layouts): allocates
 * *rowsplits, *colsplits, *owners (caller frees) and fills @p grid to point at them. Fails with
 * DMX_ERR_UNSUPPORTED if the layout has more than 2^26 blocks.
 */
dmx_status dmxi_cyclic_volume_bc_to_grid(const dmxi_bc_desc *bc, dmxi_grid_desc *grid,
                                         int64_t **rowsplits, int64_t **colsplits, int **owners);

/* Free the arrays of @p v and zero it. NULL-safe. */
void dmxi_cyclic_volume_free(dmxi_volume *v);

/*
 * Remote volume when target role j is played by process sigma[j]: total - sum_j V(sigma[j], j).
 * sigma NULL means the identity (no relabeling). O(p log(nnz / p)).
 */
dmx_status dmxi_cyclic_volume_remote(const dmxi_volume *v, const int *sigma, int64_t *remote);

/* The volume matrix read as relabeling gains g(j, i) = V(S_{i,j}) (borrows v's arrays). */
dmxi_lap_sparse dmxi_cyclic_volume_gains(const dmxi_volume *v);

#endif /* DMXI_RELABEL_CYCLIC_VOLUME_H */
