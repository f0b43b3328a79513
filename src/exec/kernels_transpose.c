/* SPDX-License-Identifier: BSD-3-Clause */
/* Transpose-like local kernels: D = alpha * op(S) + beta * D on a tile whose columns of D are
 * filled from rows of op(S) (kernels_impl.h: the normalized problem; S has unit stride along
 * D's rows).
 *
 * Algorithm: outer tiles of TILE_I x TILE_J elements, each cut into micro-blocks one cache line
 * wide in both directions (64 bytes / element size), so every cache line of S and D a
 * micro-block touches is used whole while it is in L1, whatever the leading dimensions
 * (power-of-two strides included). The lines of the micro-block PREFETCH_BLOCKS ahead are
 * prefetched: hardware prefetchers do not follow this walk, and without it stores that miss
 * stall the core (measured: 2x slower). Bit copies go through register transposes with AVX
 * (kernels_avx.c) where the CPU has it; streamed bit copies write D with non-temporal stores.
 * Cost: each element of S read once, each element of D read at most once and written once. */
#include "kernels_impl.h"
#include "kernels_avx.h"
#include "ntstore.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Outer tile of the transpose-like loop, in elements: TILE_I along D's contiguous index, TILE_J
 * along S's. Measured on 4096^2 doubles: 64 x 256 beats 32..256 squares by 5-15%. */
#define TILE_I 64
#define TILE_J 256
/* Distance, in micro-blocks, at which the transpose-like loop prefetches S and D. */
#define PREFETCH_BLOCKS 2

/* The transpose-like (tl) loop of one operation. */
#define DEFINE_TL_KERNELS(ch, R, NC, name, OP, CJ)                                                 \
    /* One micro-block: mi x nj elements, S row-contiguous (stride lds), D column-contiguous.      \
     * "omp simd" makes the compiler vectorize along D's columns (whole-vector stores) rather      \
     * than along S's rows (scattered 8-byte stores): 1.4x faster for 2*S^T on 4096^2 doubles.     \
     * The bit copy is left to the compiler, which already does that (simd made it 10% slower). */ \
    static ALWAYS_INLINE void ch##_##name##_blk(int64_t mi, int64_t nj, const R *restrict sb,      \
                                                int64_t lds, R *restrict db, int64_t ldd, R ar,    \
                                                R ai, R br, R bi)                                  \
    {                                                                                              \
        if (OP == KOP_COPY && !(NC == 2 && CJ)) {                                                  \
            for (int64_t j = 0; j < nj; j++)                                                       \
                for (int64_t i = 0; i < mi; i++)                                                   \
                    memcpy(db + i * NC + j * ldd, sb + i * lds + j * NC, sizeof(R) * NC);          \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < nj; j++) {                                                         \
            SIMD_LOOP                                                                              \
            for (int64_t i = 0; i < mi; i++)                                                       \
                ch##_elem(OP, CJ, sb + i * lds + j * NC, db + i * NC + j * ldd, ar, ai, br, bi);   \
        }                                                                                          \
    }                                                                                              \
    static void ch##_##name##_tl(const kjob *job, int64_t m, int64_t n, const void *s, void *d)    \
    {                                                                                              \
        enum { MB = CACHE_LINE / (sizeof(R) * NC), PF = PREFETCH_BLOCKS * MB };                    \
        const R ar = (R)job->ar, ai = (R)job->ai, br = (R)job->br, bi = (R)job->bi;                \
        const int64_t lds = job->sri * NC, ldd = job->ldd * NC;                                    \
        const R *sp = (const R *)s;                                                                \
        R *dp = (R *)d;                                                                            \
        for (int64_t j0 = 0; j0 < n; j0 += TILE_J) {                                               \
            const int64_t j1 = MIN64(n, j0 + TILE_J);                                              \
            for (int64_t i0 = 0; i0 < m; i0 += TILE_I) {                                           \
                const int64_t i1 = MIN64(m, i0 + TILE_I);                                          \
                for (int64_t jb = j0; jb < j1; jb += MB) {                                         \
                    const int64_t nj = MIN64(MB, j1 - jb);                                         \
                    for (int64_t ib = i0; ib < i1; ib += MB) {                                     \
                        const int64_t mi = MIN64(MB, i1 - ib);                                     \
                        const R *sb = sp + ib * lds + jb * NC;                                     \
                        R *db = dp + ib * NC + jb * ldd;                                           \
                        if (mi == MB && nj == MB) {                                                \
                            if (ib + PF + MB <= m)                                                 \
                                for (int64_t k = 0; k < MB; k++) {                                 \
                                    PREFETCH_R(sb + (PF + k) * lds);                               \
                                    PREFETCH_W(db + PF * NC + k * ldd);                            \
                                }                                                                  \
                            ch##_##name##_blk(MB, MB, sb, lds, db, ldd, ar, ai, br, bi);           \
                        } else {                                                                   \
                            ch##_##name##_blk(mi, nj, sb, lds, db, ldd, ar, ai, br, bi);           \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* Everything for one dtype, plus its table fns[op][conjugate]. */
#define DEFINE_TYPE_KERNELS(ch, R, NC)                                                             \
    DEFINE_ELEM(ch, R, NC)                                                                         \
    DEFINE_TL_KERNELS(ch, R, NC, copy, KOP_COPY, 0)                                                \
    DEFINE_TL_KERNELS(ch, R, NC, copyc, KOP_COPY, 1)                                               \
    DEFINE_TL_KERNELS(ch, R, NC, scal, KOP_SCAL, 0)                                                \
    DEFINE_TL_KERNELS(ch, R, NC, scalc, KOP_SCAL, 1)                                               \
    DEFINE_TL_KERNELS(ch, R, NC, add, KOP_ADD, 0)                                                  \
    DEFINE_TL_KERNELS(ch, R, NC, addc, KOP_ADD, 1)                                                 \
    DEFINE_TL_KERNELS(ch, R, NC, axpy, KOP_AXPY, 0)                                                \
    DEFINE_TL_KERNELS(ch, R, NC, axpyc, KOP_AXPY, 1)                                               \
    DEFINE_TL_KERNELS(ch, R, NC, axpby, KOP_AXPBY, 0)                                              \
    DEFINE_TL_KERNELS(ch, R, NC, axpbyc, KOP_AXPBY, 1)                                             \
    static const kfn ch##_fns[KOP_COUNT][2] = {{ch##_copy_tl, ch##_copyc_tl},                      \
                                               {ch##_scal_tl, ch##_scalc_tl},                      \
                                               {ch##_add_tl, ch##_addc_tl},                        \
                                               {ch##_axpy_tl, ch##_axpyc_tl},                      \
                                               {ch##_axpby_tl, ch##_axpbyc_tl}};

DEFINE_TYPE_KERNELS(s, float, 1)
DEFINE_TYPE_KERNELS(d, double, 1)
DEFINE_TYPE_KERNELS(c, float, 2)
DEFINE_TYPE_KERNELS(z, double, 2)

/* ---- streaming transposed bit copy ------------------------------------------------------- */

#if defined(__SSE2__)
/* One micro-block of the transposed bit copy, L x L elements (one cache line of D per
 * column), written with non-temporal stores; every line of D it writes is 64-byte aligned.
 * 8-byte elements go through 2 x 2 register transposes, 16-byte elements move whole. */
static ALWAYS_INLINE void stream_blk(size_t esz, const char *sb, int64_t lds, char *db, int64_t ldd)
{
    if (esz == 8) {
        for (int jj = 0; jj < 8; jj += 2)
            for (int ii = 0; ii < 8; ii += 2) {
                const __m128d r0 =
                    _mm_loadu_pd((const double *)(const void *)(sb + ii * lds + jj * 8));
                const __m128d r1 =
                    _mm_loadu_pd((const double *)(const void *)(sb + (ii + 1) * lds + jj * 8));
                _mm_stream_pd((double *)(void *)(db + ii * 8 + jj * ldd), _mm_unpacklo_pd(r0, r1));
                _mm_stream_pd((double *)(void *)(db + ii * 8 + (jj + 1) * ldd),
                              _mm_unpackhi_pd(r0, r1));
            }
    } else {
        for (int jj = 0; jj < 4; jj++)
            for (int ii = 0; ii < 4; ii++)
                _mm_stream_si128(
                    (__m128i *)(void *)(db + ii * 16 + jj * ldd),
                    _mm_loadu_si128((const __m128i *)(const void *)(sb + ii * lds + jj * 16)));
    }
}

#if defined(__x86_64__)
#define EDGE_NT 1
/* Rows [0, m) of the transposed bit copy of 8- or 16-byte elements into a D on 16-byte
 * boundaries (d and ldd), 16 bytes per non-temporal store: pairs of rows of 8-byte elements
 * through 2 x 2 register transposes, 16-byte elements whole; with conj the imaginary parts
 * negated. Column by column, so the partial line of each column of D is written at once.
 * Returns the rows done (an odd last row of 8-byte elements is left to the caller). */
static int64_t strip_nt16(const kjob *job, int64_t m, int64_t n, const char *s, char *d)
{
    const int64_t esz = (int64_t)job->esz, lds = job->sri * esz, ldd = job->ldd * esz;
    if (esz == 16) {
        const __m128i mask =
            job->conj ? _mm_set_epi32((int)0x80000000, 0, 0, 0) : _mm_setzero_si128();
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                _mm_stream_si128(
                    (__m128i *)(void *)(d + i * 16 + j * ldd),
                    _mm_xor_si128(mask, _mm_loadu_si128((
                                            const __m128i *)(const void *)(s + i * lds + j * 16))));
        return m;
    }
    const __m128d mask = job->conj ? _mm_set_pd(-0.0, -0.0) : _mm_setzero_pd();
    const int64_t m2 = m / 2 * 2, n2 = n / 2 * 2;
    for (int64_t j = 0; j < n2; j += 2)
        for (int64_t i = 0; i < m2; i += 2) {
            const char *e = s + i * lds + j * 8;
            const __m128d r0 = _mm_loadu_pd((const double *)(const void *)e);
            const __m128d r1 = _mm_loadu_pd((const double *)(const void *)(e + lds));
            char *o = d + i * 8 + j * ldd;
            _mm_stream_pd((double *)(void *)o, _mm_xor_pd(mask, _mm_unpacklo_pd(r0, r1)));
            _mm_stream_pd((double *)(void *)(o + ldd), _mm_xor_pd(mask, _mm_unpackhi_pd(r0, r1)));
        }
    if (n2 < n) /* the last column: two elements of one column of S per store */
        for (int64_t i = 0; i < m2; i += 2) {
            const char *e = s + i * lds + n2 * 8;
            const __m128d v = _mm_castsi128_pd(
                _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)e),
                                   _mm_loadl_epi64((const __m128i *)(const void *)(e + lds))));
            _mm_stream_pd((double *)(void *)(d + i * 8 + n2 * ldd), _mm_xor_pd(mask, v));
        }
    return m2;
}

/* Rows [0, m) of the transposed bit copy, non-temporally (D esz-aligned): through strip_nt16
 * when D is on 16-byte boundaries, the rest element by element (dmxi_nt_edge of
 * core/ntstore.h, which also stores the copy-like runs' partial lines). Measured on 32 x 32
 * double tiles of a 4096^2 matrix with D 16 bytes off a line: the element loop alone took as
 * long as the aligned rows of the tile, 8 rows of 32 against 24. */
static void tl_strip_nt(const kjob *job, int64_t m, int64_t n, const char *s, char *d)
{
    const int64_t esz = (int64_t)job->esz, lds = job->sri * esz, ldd = job->ldd * esz;
    int64_t done = 0;
    if (esz >= 8 && (uintptr_t)d % 16 == 0 && ldd % 16 == 0)
        done = strip_nt16(job, m, n, s, d);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = done; i < m; i++) {
            const char *e = s + i * lds + j * esz;
            unsigned char t[16];
            if (job->conj) { /* flip the sign bit of the imaginary part (little-endian) */
                memcpy(t, e, (size_t)esz);
                t[esz - 1] ^= 0x80u;
                e = (const char *)t;
            }
            dmxi_nt_edge(d + i * esz + j * ldd, e, (size_t)esz);
        }
}
#else
#define EDGE_NT 0
#define tl_strip_nt(job, m, n, s, d) (job)->fallback((job), (m), (n), (s), (d))
#endif

/* The aligned body of tl_copy_stream without AVX: m and n multiples of L = 64 / esz (8 or 16
 * bytes), micro-blocks through stream_blk, S prefetched PREFETCH_BLOCKS micro-blocks ahead. */
static void tl_stream_sse(size_t esz, int64_t m, int64_t n, const char *sp, int64_t lds, char *dp,
                          int64_t ldd)
{
    const int64_t L = CACHE_LINE / (int64_t)esz;
    for (int64_t j0 = 0; j0 < n; j0 += TILE_J) {
        const int64_t j1 = MIN64(n, j0 + TILE_J);
        for (int64_t i0 = 0; i0 < m; i0 += TILE_I) {
            const int64_t i1 = MIN64(m, i0 + TILE_I);
            for (int64_t jb = j0; jb < j1; jb += L)
                for (int64_t ib = i0; ib < i1; ib += L) {
                    const char *sb = sp + ib * lds + jb * (int64_t)esz;
                    if (ib + (PREFETCH_BLOCKS + 1) * L <= m)
                        for (int64_t k = 0; k < L; k++)
                            PREFETCH_R(sb + (PREFETCH_BLOCKS * L + k) * lds);
                    stream_blk(esz, sb, lds, dp + ib * (int64_t)esz + jb * ldd, ldd);
                }
        }
    }
}

/* Transposed bit copy of 8- or 16-byte elements, non-temporal stores to D, whose columns must
 * be whole lines apart (else job->fallback, the ordinary kernel, does it all). Whole aligned
 * micro-blocks go through stream_blk, columns beyond them through job->fallback. D off a line:
 * the partial lines at both ends of its columns go through tl_strip_nt (ordinary stores there
 * were 1.6x slower than no streaming, on 32 x 32 tiles); else short rows through fallback. */
static void tl_copy_stream(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    const size_t esz = job->esz;
    const int64_t L = CACHE_LINE / (int64_t)esz; /* elements per line */
    const int64_t lds = job->sri * (int64_t)esz, ldd = job->ldd * (int64_t)esz;
    const int edge_nt = (uintptr_t)d % CACHE_LINE != 0;
    if (ldd % CACHE_LINE != 0 || (edge_nt && !(EDGE_NT && (uintptr_t)d % esz == 0 && m >= 2 * L))) {
        job->fallback(job, m, n, s, d);
        return;
    }
    const int64_t h = edge_nt ? (int64_t)((CACHE_LINE - (uintptr_t)d % CACHE_LINE) / esz) : 0;
    if (h > 0) /* rows up to D's first line boundary */
        tl_strip_nt(job, h, n, s, d);
    s = (const char *)s + h * lds, d = (char *)d + h * (int64_t)esz, m -= h;
    const int64_t body = m / L * L;
    int64_t nfull = n / L * L;
    const char *sp = (const char *)s;
    char *dp = (char *)d;
    if (body > 0 && job->avx) { /* AVX: columns in register blocks of 32 bytes */
        nfull = n / (32 / (int64_t)esz) * (32 / (int64_t)esz);
#if DMXI_HAVE_AVX_KERNELS
        if (nfull > 0)
            dmxi_kernel_tcopy_avx_nt(esz, job->conj, body, nfull, sp, lds, dp, ldd);
#endif
    } else if (body > 0) {
        tl_stream_sse(esz, body, nfull, sp, lds, dp, ldd);
    }
    if (body > 0 && nfull < n)
        job->fallback(job, body, n - nfull, sp + nfull * (int64_t)esz, dp + nfull * ldd);
    if (body < m && edge_nt)
        tl_strip_nt(job, m - body, n, sp + body * lds, dp + body * (int64_t)esz);
    else if (body < m)
        job->fallback(job, m - body, n, sp + body * lds, dp + body * (int64_t)esz);
}
#endif

#if DMXI_HAVE_AVX_KERNELS
/* Transpose-like bit copy of 4-, 8- or 16-byte elements by AVX register transposes
 * (kernels_avx.c) on the whole register blocks; the last m % R rows and n % R columns go
 * through the ordinary kernel, job->fallback. */
static void tl_copy_avx(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    const int64_t esz = (int64_t)job->esz, r = 32 / esz;
    const int64_t lds = job->sri * esz, ldd = job->ldd * esz;
    const int64_t body = m / r * r, nfull = n / r * r;
    if (body > 0 && nfull > 0)
        dmxi_kernel_tcopy_avx(job->esz, body, nfull, s, lds, d, ldd);
    if (body > 0 && nfull < n)
        job->fallback(job, body, n - nfull, (const char *)s + nfull * esz, (char *)d + nfull * ldd);
    if (body < m)
        job->fallback(job, m - body, n, (const char *)s + body * lds, (char *)d + body * esz);
}
#endif

#if DMXI_HAVE_AVX_KERNELS
/* Transpose-like operation other than the plain bit copy by AVX register transposes with the
 * operation applied in registers (kernels_avx.c) on the whole register blocks; the last m % R
 * rows and n % R columns go through the ordinary kernel, job->fallback. job->kind and job->op
 * say which. */
static void tl_op_avx(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    const int64_t esz = (int64_t)job->esz, r = 32 / esz;
    const int64_t lds = job->sri * esz, ldd = job->ldd * esz;
    const int64_t body = m / r * r, nfull = n / r * r;
    const double sc[4] = {job->ar, job->ai, job->br, job->bi};
    if (body > 0 && nfull > 0)
        dmxi_kernel_tapply_avx(job->kind, job->op, job->conj, sc, body, nfull, s, lds, d, ldd);
    if (body > 0 && nfull < n)
        job->fallback(job, body, n - nfull, (const char *)s + nfull * esz, (char *)d + nfull * ldd);
    if (body < m)
        job->fallback(job, m - body, n, (const char *)s + body * lds, (char *)d + body * esz);
}
#endif

/* ---- choice ---------------------------------------------------------------------------- */

kfn dmxi_kernel_transpose_fn(kjob *job, dmx_dtype dt, enum kop k, int conj)
{
    const kfn(*fns)[2] = dt == DMX_FLOAT    ? s_fns
                         : dt == DMX_DOUBLE ? d_fns
                         : dt == DMX_CFLOAT ? c_fns
                                            : z_fns;
    kfn fn = fns[k][conj];
    job->avx = 0;
#if DMXI_HAVE_AVX_KERNELS
    /* the streamed AVX transposing copy (kernels_avx.c says why floats and conjugated complex
     * floats stay on the other kernels) */
    job->avx = job->stream && job->esz >= 8 && !(conj && job->esz == 8) && dmxi_kernel_avx_ok();
#endif
#if defined(__SSE2__)
    /* streamed transposed copies: AVX for every element size and conjugation, else SSE2 for
     * plain 8- and 16-byte copies */
    if (job->stream && k == KOP_COPY &&
        ((!conj && (job->esz == 8 || job->esz == 16)) || job->avx)) {
        job->fallback = fn;
        return tl_copy_stream;
    }
#endif
#if DMXI_HAVE_AVX_KERNELS
    if (k == KOP_COPY && !conj && job->esz >= 4 && dmxi_kernel_avx_ok()) {
        job->fallback = fn;
        return tl_copy_avx;
    }
    if (dmxi_kernel_avx_ok()) {
        job->fallback = fn;
        job->kind = dt == DMX_FLOAT ? 0 : dt == DMX_DOUBLE ? 1 : dt == DMX_CFLOAT ? 2 : 3;
        job->op = (int)k;
        return tl_op_avx;
    }
#endif
    return fn;
}
