/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX transposing bit copy (kernels_avx.c), used by kernels_transpose.c when the CPU has AVX. */
#ifndef DMXI_KERNELS_AVX_H
#define DMXI_KERNELS_AVX_H

#include <stddef.h>
#include <stdint.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(DMX_NO_AVX)
#define DMXI_HAVE_AVX_KERNELS 1
#else
#define DMXI_HAVE_AVX_KERNELS 0
#endif

#if DMXI_HAVE_AVX_KERNELS
/* Local. Nonzero when this CPU runs AVX instructions. */
int dmxi_kernel_avx_ok(void);

/* Local. D(i,j) = S(j,i) bit for bit for i < m, j < n; elements of esz = 4, 8 or 16 bytes;
 * D(i,j) at d + i*esz + j*ldd, the source of D(i,j) at s + i*lds + j*esz (strides in bytes).
 * m and n must be multiples of 32 / esz; S and D must not overlap. */
void dmxi_kernel_tcopy_avx(size_t esz, int64_t m, int64_t n, const void *s, int64_t lds, void *d,
                           int64_t ldd);

/* Local. D(i,j) = alpha * op(S)(i,j) + beta * D(i,j) with register transposes, for element kind
 * kind (0 float, 1 double, 2 complex float, 3 complex double) and operation op (kernels_impl.h's
 * enum kop; beta is read only by KOP_AXPBY, alpha by KOP_SCAL, KOP_AXPY, KOP_AXPBY), with conj
 * the imaginary parts of S negated; sc = {alpha re, alpha im, beta re, beta im}, rounded to the
 * dtype. Layout and preconditions as dmxi_kernel_tcopy_avx (m and n multiples of 32 / size). */
void dmxi_kernel_tapply_avx(int kind, int op, int conj, const double sc[4], int64_t m, int64_t n,
                            const void *s, int64_t lds, void *d, int64_t ldd);

/* Local. D = alpha * op(S) (beta = 0; op KOP_COPY or KOP_SCAL) with register transposes, every
 * cache line of D written whole by non-temporal stores (visible to others after an sfence).
 * Arguments as dmxi_kernel_tapply_avx; m a multiple of 64 / size, n of 32 / size, d on a 64-byte
 * boundary and ldd a multiple of 64. */
void dmxi_kernel_tstream_avx(int kind, int op, int conj, const double sc[4], int64_t m, int64_t n,
                             const void *s, int64_t lds, void *d, int64_t ldd);
#endif

#endif
