/* SPDX-License-Identifier: BSD-3-Clause */
/* Transposing bit copy with AVX register transposes (x86-64 CPUs that have AVX).
 *
 * Algorithm. D(i,j) = S(j,i) for 4-, 8- and 16-byte elements, bit for bit, where D(i,j) is at
 * d + i*esz + j*ldd and S(j,i) at s + i*lds + j*esz (byte strides). The problem is walked in
 * the same outer tiles and cache-line micro-blocks as the generic kernel (kernels.c), but each
 * micro-block is moved in register blocks of R x R elements, R = 32 / esz (one 32-byte vector
 * per row): R loads of rows of S, a transpose inside the registers, R stores of columns of D.
 *   - 8-byte elements: 4 x 4, unpack pairs within 128-bit lanes, then swap lanes;
 *   - 4-byte elements: 8 x 8, the same two steps plus a 64-bit shuffle in between;
 *   - 16-byte elements: 2 x 2, lane swaps only.
 * The generic kernel's element loop moves one element per load and store; this moves R.
 *
 * Preconditions: m and n are multiples of R (the caller copies the edges), S and D do not
 * overlap, the CPU has AVX (dmxi_kernel_avx_ok). No alignment is required.
 *
 * Cost: each element read once and written once; no temporary memory. Measured (noisy, loaded
 * machine) in docs/exec.md.
 */
#include "kernels_avx.h"

#if DMXI_HAVE_AVX_KERNELS

#include <immintrin.h>

/* Tile sizes as in kernels.c. */
#define TILE_I 64
#define TILE_J 256
#define CACHE_LINE 64
/* At most NARROW_J columns and D's columns within NARROW_D bytes (the packed ring of a pack):
 * each register row-block runs across all the columns, so every line of S is used whole at once
 * (in strips one line wide, a line of S off a line boundary is shared by two strips and read
 * twice: the rows of S are far apart and evict each other). D's lines stay in L1 meanwhile.
 * First used for S off a line only; S on a line gains as much on this project's VM (AMD EPYC
 * family 23): 24 MiB of 32 x 32 double tiles from a 16 KiB ld into a ring, one thread, 3.6-3.7
 * ms against 6.4-6.5 with line-wide strips (`test_kernels --bench-pack`, docs/exec.md). */
#define NARROW_J 64
#define NARROW_D 16384
#define MIN64(a, b) ((a) < (b) ? (a) : (b))
#define AVX_FN __attribute__((target("avx"), always_inline)) static inline

int dmxi_kernel_avx_ok(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
}

/* One R x R register block: rows of S at s + k*lds, columns of D at d + k*ldd. */
AVX_FN void blk8(const char *s, int64_t lds, char *d, int64_t ldd)
{
    const __m256d r0 = _mm256_loadu_pd((const double *)(const void *)s);
    const __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + lds));
    const __m256d r2 = _mm256_loadu_pd((const double *)(const void *)(s + 2 * lds));
    const __m256d r3 = _mm256_loadu_pd((const double *)(const void *)(s + 3 * lds));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd((double *)(void *)d, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd((double *)(void *)(d + ldd), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd((double *)(void *)(d + 2 * ldd), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd((double *)(void *)(d + 3 * ldd), _mm256_permute2f128_pd(t1, t3, 0x31));
}

AVX_FN void blk4(const char *s, int64_t lds, char *d, int64_t ldd)
{
    __m256 r[8], t[8];
    for (int k = 0; k < 8; k++)
        r[k] = _mm256_loadu_ps((const float *)(const void *)(s + k * lds));
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    /* t[k] holds pairs of rows k, k+1; now gather four rows per 128-bit lane. */
    for (int k = 0; k < 8; k += 4) {
        r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
        r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int k = 0; k < 4; k++) {
        _mm256_storeu_ps((float *)(void *)(d + k * ldd),
                         _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
        _mm256_storeu_ps((float *)(void *)(d + (k + 4) * ldd),
                         _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
    }
}

AVX_FN void blk16(const char *s, int64_t lds, char *d, int64_t ldd)
{
    const __m256d r0 = _mm256_loadu_pd((const double *)(const void *)s);
    const __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + lds));
    _mm256_storeu_pd((double *)(void *)d, _mm256_permute2f128_pd(r0, r1, 0x20));
    _mm256_storeu_pd((double *)(void *)(d + ldd), _mm256_permute2f128_pd(r0, r1, 0x31));
}

/* The tiled walk for one element size; BLK moves one register block of R x R. Inside a
 * micro-block, the R rows of S a register block reads are finished (one whole line each)
 * before the next R rows start. No software prefetch: measured on 32 x 32 double tiles of a
 * matrix with a 16 KB leading dimension, prefetching the micro-block two ahead (as the generic
 * kernel does) made this walk 20% slower, and it did not help whole 2048^2 tiles either. */
#define DEFINE_WALK(name, ESZ, BLK)                                                                \
    __attribute__((target("avx"))) static void name(int64_t m, int64_t n, const char *s,           \
                                                    int64_t lds, char *d, int64_t ldd)             \
    {                                                                                              \
        enum { R = 32 / ESZ };                                                                     \
        const int narrow = n <= NARROW_J && n * ldd <= NARROW_D;                                   \
        const int64_t MB = narrow ? n : CACHE_LINE / ESZ;                                          \
        for (int64_t j0 = 0; j0 < n; j0 += TILE_J) {                                               \
            const int64_t j1 = MIN64(n, j0 + TILE_J);                                              \
            for (int64_t i0 = 0; i0 < m; i0 += TILE_I) {                                           \
                const int64_t i1 = MIN64(m, i0 + TILE_I);                                          \
                for (int64_t jb = j0; jb < j1; jb += MB) {                                         \
                    const int64_t je = MIN64(j1, jb + MB);                                         \
                    for (int64_t i = i0; i < i1; i += R)                                           \
                        for (int64_t j = jb; j < je; j += R)                                       \
                            BLK(s + i * lds + j * ESZ, lds, d + i * ESZ + j * ldd, ldd);           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_WALK(walk4, 4, blk4)
DEFINE_WALK(walk8, 8, blk8)
DEFINE_WALK(walk16, 16, blk16)

void dmxi_kernel_tcopy_avx(size_t esz, int64_t m, int64_t n, const void *s, int64_t lds, void *d,
                           int64_t ldd)
{
    if (esz == 4)
        walk4(m, n, s, lds, d, ldd);
    else if (esz == 8)
        walk8(m, n, s, lds, d, ldd);
    else
        walk16(m, n, s, lds, d, ldd);
}

#endif
