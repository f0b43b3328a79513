/* SPDX-License-Identifier: BSD-3-Clause */
/* Transposing bit copy with AVX register transposes (x86-64 CPUs that have AVX).
 *
 * Algorithm. D(i,j) = S(j,i) for 4-, 8- and 16-byte elements, bit for bit, where D(i,j) is at
 * d + i*esz + j*ldd and S(j,i) at s + i*lds + j*esz (byte strides). The problem is walked in
 * the same outer tiles and cache-line micro-blocks as the generic kernel (kernels_transpose.c), but
 * each micro-block is moved in register blocks of R x R elements, R = 32 / esz (one 32-byte vector
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
#include "kernels_impl.h"

#if DMXI_HAVE_AVX_KERNELS

#include <immintrin.h>

/* Tile sizes as in kernels_transpose.c. */
#define TILE_I 64
#define TILE_J 256
/* At most NARROW_J columns and D's columns within NARROW_D bytes (the packed ring of a pack):
 * each register row-block runs across all the columns, so every line of S is used whole at once
 * (in strips one line wide, a line of S off a line boundary is shared by two strips and read
 * twice: the rows of S are far apart and evict each other). D's lines stay in L1 meanwhile.
 * First used for S off a line only; S on a line gains as much on this project's VM (AMD EPYC
 * family 23): 24 MiB of 32 x 32 double tiles from a 16 KiB ld into a ring, one thread, 3.6-3.7
 * ms against 6.4-6.5 with line-wide strips (`test_kernels --bench-pack`, docs/exec.md). */
#define NARROW_J 64
#define NARROW_D 16384
#define AVX_FN __attribute__((target("avx"), always_inline)) static inline

int dmxi_kernel_avx_ok(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
}

/* One R x R register block transposed in registers: o[k] is column k of the block whose rows
 * of S start at s + r*lds (r = 0..R-1), i.e. what goes to column k of D. */
AVX_FN void reg8(const char *s, int64_t lds, __m256d o[4])
{
    const __m256d r0 = _mm256_loadu_pd((const double *)(const void *)s);
    const __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + lds));
    const __m256d r2 = _mm256_loadu_pd((const double *)(const void *)(s + 2 * lds));
    const __m256d r3 = _mm256_loadu_pd((const double *)(const void *)(s + 3 * lds));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    o[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    o[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    o[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    o[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

AVX_FN void reg4(const char *s, int64_t lds, __m256 o[8])
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
        o[k] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
        o[k + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
    }
}

AVX_FN void reg16(const char *s, int64_t lds, __m256d o[2])
{
    const __m256d r0 = _mm256_loadu_pd((const double *)(const void *)s);
    const __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + lds));
    o[0] = _mm256_permute2f128_pd(r0, r1, 0x20);
    o[1] = _mm256_permute2f128_pd(r0, r1, 0x31);
}

/* One R x R register block: rows of S at s + k*lds, columns of D at d + k*ldd. */
AVX_FN void blk8(const char *s, int64_t lds, char *d, int64_t ldd)
{
    __m256d o[4];
    reg8(s, lds, o);
    for (int k = 0; k < 4; k++)
        _mm256_storeu_pd((double *)(void *)(d + k * ldd), o[k]);
}

AVX_FN void blk4(const char *s, int64_t lds, char *d, int64_t ldd)
{
    __m256 o[8];
    reg4(s, lds, o);
    for (int k = 0; k < 8; k++)
        _mm256_storeu_ps((float *)(void *)(d + k * ldd), o[k]);
}

AVX_FN void blk16(const char *s, int64_t lds, char *d, int64_t ldd)
{
    __m256d o[2];
    reg16(s, lds, o);
    for (int k = 0; k < 2; k++)
        _mm256_storeu_pd((double *)(void *)(d + k * ldd), o[k]);
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

/* ---- register transposes with an operation: D = alpha*op(S) + beta*D ------------------------ */

/* The scalars of an operation, broadcast (real kinds use ar and br only) and the mask xor-ed
 * into every transposed vector (the sign bits of the imaginary parts for op C, else zero). */
typedef struct avx_sc {
    __m256d ar, ai, br, bi, mask;
} avx_sc;

/* Complex products of interleaved (re, im) vectors: re = r*x - i*y, im = r*y + i*x, the
 * operations and their order as the generic kernel's (so results match it bit for bit). */
AVX_FN __m256d cmul_d(__m256d v, __m256d r, __m256d i)
{
    return _mm256_addsub_pd(_mm256_mul_pd(r, v), _mm256_mul_pd(i, _mm256_permute_pd(v, 0x5)));
}

AVX_FN __m256d cmul_s(__m256d v, __m256d r, __m256d i)
{
    const __m256 x = _mm256_castpd_ps(v);
    return _mm256_castps_pd(
        _mm256_addsub_ps(_mm256_mul_ps(_mm256_castpd_ps(r), x),
                         _mm256_mul_ps(_mm256_castpd_ps(i), _mm256_permute_ps(x, 0xB1))));
}

/* alpha * v for element kind K (0 float, 1 double, 2 complex float, 3 complex double). */
AVX_FN __m256d scale(int K, __m256d v, __m256d r, __m256d i)
{
    switch (K) {
    case 0: return _mm256_castps_pd(_mm256_mul_ps(_mm256_castpd_ps(r), _mm256_castpd_ps(v)));
    case 1: return _mm256_mul_pd(r, v);
    case 2: return cmul_s(v, r, i);
    default: return cmul_d(v, r, i);
    }
}

AVX_FN __m256d vadd(int K, __m256d a, __m256d b)
{
    if (K == 0 || K == 2)
        return _mm256_castps_pd(_mm256_add_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b)));
    return _mm256_add_pd(a, b);
}

/* One column vector v of a register block (32 bytes of op(S), already transposed) into D at d
 * with operation OP (kernels_impl.h's enum kop). */
AVX_FN void emit(int K, int OP, __m256d v, char *d, const avx_sc *c)
{
    v = _mm256_xor_pd(v, c->mask);
    __m256d r = v;
    if (OP != KOP_COPY) {
        const __m256d dv = OP == KOP_SCAL ? v : _mm256_loadu_pd((const double *)(const void *)d);
        switch (OP) {
        case KOP_SCAL: r = scale(K, v, c->ar, c->ai); break;
        case KOP_ADD: r = vadd(K, dv, v); break;
        case KOP_AXPY: r = vadd(K, dv, scale(K, v, c->ar, c->ai)); break;
        default: r = vadd(K, scale(K, v, c->ar, c->ai), scale(K, dv, c->br, c->bi)); break;
        }
    }
    _mm256_storeu_pd((double *)(void *)d, r);
}

/* One R x R register block of kind K (R = 8 floats, 4 doubles or complex floats, 2 complex
 * doubles) with operation OP. */
AVX_FN void opblk(int K, int OP, const char *s, int64_t lds, char *d, int64_t ldd, const avx_sc *c)
{
    if (K == 0) {
        __m256 o[8];
        reg4(s, lds, o);
        for (int k = 0; k < 8; k++)
            emit(K, OP, _mm256_castps_pd(o[k]), d + k * ldd, c);
    } else if (K == 3) {
        __m256d o[2];
        reg16(s, lds, o);
        for (int k = 0; k < 2; k++)
            emit(K, OP, o[k], d + k * ldd, c);
    } else {
        __m256d o[4];
        reg8(s, lds, o);
        for (int k = 0; k < 4; k++)
            emit(K, OP, o[k], d + k * ldd, c);
    }
}

/* The tiled walk of the bit copy (DEFINE_WALK) with an operation: micro-blocks one line wide
 * in both directions (all columns at once for a narrow tile), register blocks inside. */
#define DEFINE_OP_WALK(name, K, OP)                                                                \
    __attribute__((target("avx"))) static void name(                                               \
        int64_t m, int64_t n, const char *s, int64_t lds, char *d, int64_t ldd, const avx_sc *c)   \
    {                                                                                              \
        enum { ESZ = K == 0 ? 4 : K == 3 ? 16 : 8, R = 32 / ESZ };                                 \
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
                            opblk(K, OP, s + i * lds + j * ESZ, lds, d + i * ESZ + j * ldd, ldd,   \
                                  c);                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

#define DEFINE_KIND_WALKS(ch, K)                                                                   \
    DEFINE_OP_WALK(ch##_copy, K, KOP_COPY)                                                         \
    DEFINE_OP_WALK(ch##_scal, K, KOP_SCAL)                                                         \
    DEFINE_OP_WALK(ch##_add, K, KOP_ADD)                                                           \
    DEFINE_OP_WALK(ch##_axpy, K, KOP_AXPY)                                                         \
    DEFINE_OP_WALK(ch##_axpby, K, KOP_AXPBY)

DEFINE_KIND_WALKS(opw_s, 0)
DEFINE_KIND_WALKS(opw_d, 1)
DEFINE_KIND_WALKS(opw_c, 2)
DEFINE_KIND_WALKS(opw_z, 3)

/* ---- whole lines of D written non-temporally: D = alpha*op(S) with beta = 0 ------------------ */

/* Columns of D, in bytes of S's rows, that one pass of the line walk covers before it moves down
 * to the next strip: the strips' rows of S stay in L1 and L2 across the pass, and D's lines are
 * written whole, so D's order does not matter. Measured with 8-byte elements on 4096^2 arrays
 * (an 8 x 8 walk, both strides 32 KiB): 4096 bytes wide ran at 0.76x the time of a memcpy of the
 * same bytes, the whole width (32 KiB) at 1.18x. */
#define LINE_PASS_BYTES 4096

/* One register column vector, alpha and the conjugation applied, stored non-temporally at d (on
 * a 32-byte boundary). */
AVX_FN void emit_nt(int K, int OP, __m256d v, char *d, const avx_sc *c)
{
    v = _mm256_xor_pd(v, c->mask);
    if (OP == KOP_SCAL)
        v = scale(K, v, c->ar, c->ai);
    _mm256_stream_pd((double *)(void *)d, v);
}

/* R columns of D, one whole cache line (2R elements) of each: two register blocks, the rows of S
 * at s + k*lds (k = 0..2R-1), the columns of D at d + k*ldd, d on a line. */
AVX_FN void lineblk(int K, int OP, const char *s, int64_t lds, char *d, int64_t ldd,
                    const avx_sc *c)
{
    if (K == 0) {
        __m256 a[8], b[8];
        reg4(s, lds, a);
        reg4(s + 8 * lds, lds, b);
        for (int k = 0; k < 8; k++) {
            emit_nt(K, OP, _mm256_castps_pd(a[k]), d + k * ldd, c);
            emit_nt(K, OP, _mm256_castps_pd(b[k]), d + k * ldd + 32, c);
        }
    } else {
        __m256d a[4], b[4];
        const int r = K == 3 ? 2 : 4; /* columns (and rows) of one register block */
        if (K == 3) {
            reg16(s, lds, a);
            reg16(s + 2 * lds, lds, b);
        } else {
            reg8(s, lds, a);
            reg8(s + 4 * lds, lds, b);
        }
        for (int k = 0; k < r; k++) {
            emit_nt(K, OP, a[k], d + k * ldd, c);
            emit_nt(K, OP, b[k], d + k * ldd + 32, c);
        }
    }
}

/* The line walk: passes of LINE_PASS_BYTES of S's rows; in each, strips of one line of D's rows
 * (2R rows of S, read along their length), each strip across the pass's columns. */
#define DEFINE_LINE_WALK(name, K, OP)                                                              \
    __attribute__((target("avx"))) static void name(                                               \
        int64_t m, int64_t n, const char *s, int64_t lds, char *d, int64_t ldd, const avx_sc *c)   \
    {                                                                                              \
        enum { ESZ = K == 0 ? 4 : K == 3 ? 16 : 8, R = 32 / ESZ, PASS = LINE_PASS_BYTES / ESZ };   \
        for (int64_t j0 = 0; j0 < n; j0 += PASS) {                                                 \
            const int64_t j1 = MIN64(n, j0 + PASS);                                                \
            for (int64_t i = 0; i < m; i += 2 * R)                                                 \
                for (int64_t j = j0; j < j1; j += R)                                               \
                    lineblk(K, OP, s + i * lds + j * ESZ, lds, d + i * ESZ + j * ldd, ldd, c);     \
        }                                                                                          \
    }

DEFINE_LINE_WALK(lw_s_copy, 0, KOP_COPY)
DEFINE_LINE_WALK(lw_s_scal, 0, KOP_SCAL)
DEFINE_LINE_WALK(lw_d_copy, 1, KOP_COPY)
DEFINE_LINE_WALK(lw_d_scal, 1, KOP_SCAL)
DEFINE_LINE_WALK(lw_c_copy, 2, KOP_COPY)
DEFINE_LINE_WALK(lw_c_scal, 2, KOP_SCAL)
DEFINE_LINE_WALK(lw_z_copy, 3, KOP_COPY)
DEFINE_LINE_WALK(lw_z_scal, 3, KOP_SCAL)

typedef void (*opwalk)(int64_t, int64_t, const char *, int64_t, char *, int64_t, const avx_sc *);

static void set_scalars(int kind, int conj, const double sc[4], avx_sc *out);

__attribute__((target("avx"))) void dmxi_kernel_tapply_avx(int kind, int op, int conj,
                                                           const double sc[4], int64_t m, int64_t n,
                                                           const void *s, int64_t lds, void *d,
                                                           int64_t ldd)
{
    static const opwalk walks[4][KOP_COUNT] = {
        {opw_s_copy, opw_s_scal, opw_s_add, opw_s_axpy, opw_s_axpby},
        {opw_d_copy, opw_d_scal, opw_d_add, opw_d_axpy, opw_d_axpby},
        {opw_c_copy, opw_c_scal, opw_c_add, opw_c_axpy, opw_c_axpby},
        {opw_z_copy, opw_z_scal, opw_z_add, opw_z_axpy, opw_z_axpby}};
    avx_sc c;
    set_scalars(kind, conj, sc, &c);
    walks[kind][op](m, n, (const char *)s, lds, (char *)d, ldd, &c);
}

__attribute__((target("avx"))) void dmxi_kernel_tstream_avx(int kind, int op, int conj,
                                                            const double sc[4], int64_t m,
                                                            int64_t n, const void *s, int64_t lds,
                                                            void *d, int64_t ldd)
{
    static const opwalk walks[4][2] = {{lw_s_copy, lw_s_scal},
                                       {lw_d_copy, lw_d_scal},
                                       {lw_c_copy, lw_c_scal},
                                       {lw_z_copy, lw_z_scal}};
    avx_sc c;
    set_scalars(kind, conj, sc, &c);
    walks[kind][op == KOP_SCAL](m, n, (const char *)s, lds, (char *)d, ldd, &c);
}

/* The broadcast scalars and the conjugation mask of an operation (avx_sc). */
__attribute__((target("avx"))) static void set_scalars(int kind, int conj, const double sc[4],
                                                       avx_sc *out)
{
    avx_sc c;
    if (kind == 0 || kind == 2) { /* floats: every lane the float value */
        c.ar = _mm256_castps_pd(_mm256_set1_ps((float)sc[0]));
        c.ai = _mm256_castps_pd(_mm256_set1_ps((float)sc[1]));
        c.br = _mm256_castps_pd(_mm256_set1_ps((float)sc[2]));
        c.bi = _mm256_castps_pd(_mm256_set1_ps((float)sc[3]));
    } else {
        c.ar = _mm256_set1_pd(sc[0]), c.ai = _mm256_set1_pd(sc[1]);
        c.br = _mm256_set1_pd(sc[2]), c.bi = _mm256_set1_pd(sc[3]);
    }
    c.mask = _mm256_setzero_pd();
    if (conj && kind == 2) /* the sign bit of each complex float's imaginary part */
        c.mask = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)0x8000000000000000ULL));
    else if (conj && kind == 3)
        c.mask = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0);
    *out = c;
}

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
