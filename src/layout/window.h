/* SPDX-License-Identifier: BSD-3-Clause */
/* A's coordinates: the one home of two rules every stage of a transform A = alpha*op(B) + beta*A
 * needs (the planner's overlay and directory, the engine's kernels):
 *  - the op(B) window: op(B) seen in A's coordinates is B for DMX_OP_N and B's transpose for
 *    DMX_OP_T / DMX_OP_C, so every query about op(B) at A coordinates (r, c) is a query about B
 *    at (r, c) or (c, r);
 *  - the uplo/diag trapezoid of a transform: uplo 'U' keeps i <= j - unit, 'L' keeps
 *    i >= j + unit, where unit = 1 for diag 'U' (the diagonal is left alone) and 0 otherwise;
 *    any other uplo keeps everything.
 * Everything here is Local and inline (the planner calls it per block, the engine per piece).
 * Included by layout/layout.h. */
#ifndef DMXI_LAYOUT_WINDOW_H
#define DMXI_LAYOUT_WINDOW_H

/* ---- op(B) in A's coordinates ------------------------------------------------------------ */

/* Does op swap rows and columns? */
static inline int dmxi_op_swaps(dmx_op op)
{
    return op != DMX_OP_N;
}

/* B coordinates of the op(B) element at A coordinates (r, c) (the map is its own inverse: it
 * also turns B coordinates into A coordinates). Works as well for sizes and block indices. */
static inline void dmxi_opb_coords(dmx_op op, int64_t r, int64_t c, int64_t *br, int64_t *bc)
{
    const int64_t r2 = r, c2 = c;
    *br = dmxi_op_swaps(op) ? c2 : r2;
    *bc = dmxi_op_swaps(op) ? r2 : c2;
}

/* Start row / column (A coordinates) of op(B)'s block k, 0 <= k <= number of blocks. */
static inline int64_t dmxi_opb_row_start(const dmx_layout *B, dmx_op op, int64_t k)
{
    return dmxi_op_swaps(op) ? dmxi_layout_col_start(B, k) : dmxi_layout_row_start(B, k);
}
static inline int64_t dmxi_opb_col_start(const dmx_layout *B, dmx_op op, int64_t k)
{
    return dmxi_op_swaps(op) ? dmxi_layout_row_start(B, k) : dmxi_layout_col_start(B, k);
}

/* op(B)'s block row containing A row r / block column containing A column c. */
static inline int64_t dmxi_opb_row_block(const dmx_layout *B, dmx_op op, int64_t r)
{
    return dmxi_op_swaps(op) ? dmxi_layout_col_block(B, r) : dmxi_layout_row_block(B, r);
}
static inline int64_t dmxi_opb_col_block(const dmx_layout *B, dmx_op op, int64_t c)
{
    return dmxi_op_swaps(op) ? dmxi_layout_row_block(B, c) : dmxi_layout_col_block(B, c);
}

/* Owner (a rank of B's communicator) of op(B)'s block (p, q). */
static inline int dmxi_opb_block_owner(const dmx_layout *B, dmx_op op, int64_t p, int64_t q)
{
    return dmxi_op_swaps(op) ? dmxi_layout_block_owner(B, q, p) : dmxi_layout_block_owner(B, p, q);
}

/* B's memory for the op(B) element at A coordinates (r, c) (anywhere in B's local blocks, or
 * inside B's local block k). */
static inline dmx_status dmxi_opb_mem(const dmx_layout *B, dmx_op op, int64_t r, int64_t c,
                                      dmxi_mem *mem)
{
    int64_t br, bc;
    dmxi_opb_coords(op, r, c, &br, &bc);
    return dmxi_layout_mem(B, br, bc, mem);
}
static inline dmx_status dmxi_opb_mem_in_block(const dmx_layout *B, dmx_op op, int64_t k, int64_t r,
                                               int64_t c, dmxi_mem *mem)
{
    int64_t br, bc;
    dmxi_opb_coords(op, r, c, &br, &bc);
    return dmxi_layout_mem_in_block(B, k, br, bc, mem);
}

/* B's local block k as a rectangle of op(B) in A's coordinates. */
static inline void dmxi_opb_local_rect(const dmx_layout *B, dmx_op op, int64_t k, int64_t *r0,
                                       int64_t *c0, int64_t *rows, int64_t *cols)
{
    int64_t br0, bc0, brows, bcols;
    dmxi_layout_local_rect(B, k, &br0, &bc0, &brows, &bcols);
    dmxi_opb_coords(op, br0, bc0, r0, c0);
    dmxi_opb_coords(op, brows, bcols, rows, cols);
}

/* ---- the uplo/diag trapezoid ------------------------------------------------------------- */

/* +1 upper, -1 lower, 0 no trapezoid; *unit = 1 when the diagonal is excluded. */
static inline int dmxi_trapezoid_kind(const dmx_transform *t, int64_t *unit)
{
    *unit = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
    if (t->uplo == 'U' || t->uplo == 'u')
        return 1;
    if (t->uplo == 'L' || t->uplo == 'l')
        return -1;
    return 0;
}

/* Does the trapezoid of t meet the rectangle at all? */
static inline int dmxi_trapezoid_meets(const dmx_transform *t, int64_t r0, int64_t c0, int64_t rows,
                                       int64_t cols)
{
    int64_t unit;
    const int kind = dmxi_trapezoid_kind(t, &unit);
    if (kind > 0)
        return (c0 + cols - 1) - r0 >= unit; /* max (j - i) */
    if (kind < 0)
        return (r0 + rows - 1) - c0 >= unit; /* max (i - j) */
    return 1;
}

/* Is the rectangle entirely inside the trapezoid of t (or t has none)? */
static inline int dmxi_trapezoid_inside(const dmx_transform *t, int64_t r0, int64_t c0,
                                        int64_t rows, int64_t cols)
{
    int64_t unit;
    const int kind = dmxi_trapezoid_kind(t, &unit);
    if (kind > 0)
        return c0 - (r0 + rows - 1) >= unit; /* min (j - i) */
    if (kind < 0)
        return r0 - (c0 + cols - 1) >= unit; /* min (i - j) */
    return 1;
}

/* Rows [*i0, *i1) (counted from r0, within [0, rows)) of column j that lie in the trapezoid;
 * *i0 >= *i1 when none. */
static inline void dmxi_trapezoid_column(const dmx_transform *t, int64_t r0, int64_t rows,
                                         int64_t j, int64_t *i0, int64_t *i1)
{
    int64_t unit;
    const int kind = dmxi_trapezoid_kind(t, &unit);
    *i0 = 0, *i1 = rows;
    if (kind > 0) {
        int64_t last = j - unit - r0; /* i <= j - unit */
        *i1 = last + 1 < rows ? last + 1 : rows;
    } else if (kind < 0) {
        int64_t first = j + unit - r0; /* i >= j + unit */
        *i0 = first > 0 ? first : 0;
    }
}

#endif
