/* SPDX-License-Identifier: BSD-3-Clause */
/* Local transform kernels: the only code that touches matrix elements.
 *
 * dmxi_kernel_apply computes, for a rows x cols destination tile D,
 *     D = alpha * op(S) + beta * D
 * where S is rows x cols if op == DMX_OP_N and cols x rows otherwise (op = T transposes,
 * op = C conjugates and transposes; for real dtypes C is the same as T).
 * Each operand has its own leading dimension and storage order:
 *     col-major: X(i,j) at x[i + j*ld]      row-major: X(i,j) at x[i*ld + j]
 * Guarantees:
 *   - beta == 0 never reads D (D may hold NaN or uninitialized memory);
 *   - alpha == 0 never reads S;
 *   - alpha == 1, beta == 0 and no conjugation copies elements bit for bit (any 4/8/16-byte
 *     payload moves unchanged, so integers may travel as DMX_FLOAT);
 *   - S and D must not overlap.
 * Transposing access patterns use a cache-blocked loop; large tiles are split over OpenMP
 * threads when more than one is available and no parallel region is active (the engine splits
 * its many smaller tiles itself, exec/engine.c).
 */
#ifndef DMXI_KERNELS_H
#define DMXI_KERNELS_H

#include "dmx.h"

#include <stdint.h>

void dmxi_kernel_apply(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, dmx_scalar beta,
                       const void *src, int64_t src_ld, dmx_order src_order, void *dst,
                       int64_t dst_ld, dmx_order dst_order, int64_t rows, int64_t cols);

/* Flags of dmxi_kernel_apply_flags. DMXI_KERNEL_STREAM: D is not read again soon, so plain
 * copies (alpha = 1, beta = 0, no conjugation) write its whole cache lines with non-temporal
 * stores where the CPU has them. Call dmxi_kernel_fence() before another thread or process may
 * read what was written that way. */
enum { DMXI_KERNEL_STREAM = 1u };

void dmxi_kernel_apply_flags(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, dmx_scalar beta,
                             const void *src, int64_t src_ld, dmx_order src_order, void *dst,
                             int64_t dst_ld, dmx_order dst_order, int64_t rows, int64_t cols,
                             unsigned flags);

/* Orders earlier non-temporal stores before later stores (a no-op without them). */
void dmxi_kernel_fence(void);

#endif
