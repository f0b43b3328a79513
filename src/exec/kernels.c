/* SPDX-License-Identifier: BSD-3-Clause */
/* Local transform kernels: D = alpha * op(S) + beta * D on one rows x cols tile.
 *
 * Algorithm.
 *  1. Normalize the access pattern. D(i,j) lives at d[i*drs + j*dcs] and op(S)(i,j) at
 *     s[i*srs + j*scs]; op only swaps S's strides. If D is row-major the whole problem is
 *     transposed (rows <-> cols, both stride pairs swapped), so afterwards D always has unit
 *     stride along i. Then either S also has unit stride along i ("copy-like": columns of D are
 *     filled from columns of S, both contiguous) or S has unit stride along j ("transpose-like").
 *     A copy-like tile whose columns are both packed (ld == rows) collapses into one long column.
 *  2. Classify alpha and beta (after rounding to the dtype) and pick one element operation:
 *     zero fill, scale D, bit copy (alpha = 1, beta = 0, no conjugation), conjugate copy,
 *     alpha*op(S), op(S) + D, alpha*op(S) + D, or alpha*op(S) + beta*D. The operations that do
 *     not need S never read it; the ones with beta = 0 never read D.
 *  3. Copy-like tiles run one contiguous loop per column (a memcpy for the bit copy).
 *     Transpose-like tiles run over outer tiles of TILE_I x TILE_J elements, each cut into
 *     micro-blocks one cache line wide in both directions (64 bytes / element size), so every
 *     cache line of S and D a micro-block touches is used whole while it is in L1, whatever
 *     the leading dimensions (power-of-two strides included). The lines of the micro-block
 *     PREFETCH_BLOCKS ahead are prefetched: hardware prefetchers do not follow this walk, and
 *     without it stores that miss stall the core (measured: 2x slower).
 *  4. With OpenMP, a tile of more than OMP_MIN_ELEMS elements is split over the threads by
 *     column ranges (or row ranges for a tall, narrow tile).
 *
 * Cost: each element of S is read at most once and each element of D read at most once and
 * written once. Measured on 4096 x 4096 doubles, one thread (`test_kernels --bench`): copy-like
 * tiles run at memcpy speed, transpose-like ones take 1.7-1.9x the time of memcpy (floats 2.7x).
 * The s/d/c/z kernels are stamped out of one definition (DEFINE_TYPE_KERNELS); complex
 * elements are interleaved (re, im) pairs of the real type. */
#include "kernels.h"
#include "dmxi.h"
#include "kernels_avx.h"
#include "ntstore.h"
#include "shortcopy.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- tuning thresholds (all in one place) ------------------------------------------------- */

/* Outer tile of the transpose-like loop, in elements: TILE_I along D's contiguous index, TILE_J
 * along S's. Measured on 4096^2 doubles: 64 x 256 beats 32..256 squares by 5-15%. */
#define TILE_I 64
#define TILE_J 256
/* Bytes of one cache line: micro-block edge is CACHE_LINE / element size. */
#define CACHE_LINE 64
/* Distance, in micro-blocks, at which the transpose-like loop prefetches S and D. */
#define PREFETCH_BLOCKS 2
/* Copy-like tiles whose columns of S are at most PREFETCH_RUN_BYTES long (and not packed into
 * one) prefetch S's column PREFETCH_COLS ahead: such columns are short runs far apart (a 32 x 32
 * block of a local array with ld 2048: 256 bytes every 16 KiB), which the hardware prefetchers
 * do not follow, so each run's lines were fetched only when the copy reached them. */
#define PREFETCH_RUN_BYTES 1024
#define PREFETCH_COLS 4
/* Tiles with more elements than this are split over OpenMP threads. */
#define OMP_MIN_ELEMS 65536
/* Row ranges given to threads are multiples of this many elements (keeps cache lines apart). */
#define OMP_ROW_ALIGN 64

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Software prefetch: the hardware prefetchers do not follow a transposing walk, and a store
 * that misses stalls the store buffer, so lines of S and D are requested this many micro-blocks
 * ahead. A prefetch is only a hint: it reads nothing (beta = 0 may prefetch D). */
#if defined(__GNUC__)
#define PREFETCH_R(p) __builtin_prefetch((p), 0, 3)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_R(p) ((void)(p))
#define PREFETCH_W(p) ((void)(p))
#endif

#ifdef _OPENMP
#define SIMD_LOOP _Pragma("omp simd")
#else
#define SIMD_LOOP
#endif

#define MIN64(a, b) ((a) < (b) ? (a) : (b))

/* Prefetch the cache lines of the n bytes at p for reading. */
static ALWAYS_INLINE void prefetch_run(const void *p, size_t n)
{
    const uintptr_t end = (uintptr_t)p + n;
    for (uintptr_t a = (uintptr_t)p - (uintptr_t)p % CACHE_LINE; a < end; a += CACHE_LINE)
        PREFETCH_R((const void *)a);
}

/* Copy n bytes; with stream set, every byte of d non-temporally, partial edge lines included
 * (core/ntstore.h says why). A run shorter than a few lines is copied normally. */
static ALWAYS_INLINE void copy_bytes(void *restrict d, const void *restrict s, size_t n, int stream)
{
    if (stream && n >= 4 * CACHE_LINE)
        dmxi_nt_copy(d, s, n);
    else
        memcpy(d, s, n);
}

void dmxi_kernel_fence(void)
{
    dmxi_nt_fence();
}

/* Element operations. */
enum kop {
    KOP_COPY = 0, /* D = S bit for bit (with conjugation: D = conj(S)) */
    KOP_SCAL,     /* D = alpha*S */
    KOP_ADD,      /* D = S + D */
    KOP_AXPY,     /* D = alpha*S + D */
    KOP_AXPBY,    /* D = alpha*S + beta*D */
    KOP_COUNT
};

typedef struct kjob kjob;

/* A typed kernel: the m x n canonical sub-tile at s, d (strides and scalars from the job). */
typedef void (*kfn)(const kjob *job, int64_t m, int64_t n, const void *s, void *d);

/* The normalized problem: D(i,j) at d[i + j*ldd], op(S)(i,j) at s[i*sri + j*scj] (element
 * units); sri == 1 (copy-like) or scj == 1 (transpose-like). */
struct kjob {
    kfn fn;
    size_t esz;
    int64_t m, n;
    int64_t ldd;
    int64_t sri, scj;
    int transposed;
    int stream;            /* DMXI_KERNEL_STREAM */
    int conj;              /* op C on a complex dtype */
    int avx;               /* tl_copy_stream: the AVX kernels may run */
    kfn fallback;          /* tl_copy_stream: the ordinary kernel for partial lines */
    double ar, ai, br, bi; /* alpha and beta, already rounded to the dtype */
    const char *s;         /* NULL when the operation does not read S */
    char *d;
};

/* ---- operations that read only D --------------------------------------------------------- */

static void zero_fill(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    (void)s;
    const size_t col = (size_t)m * job->esz;
    const int64_t ldb = job->ldd * (int64_t)job->esz;
    for (int64_t j = 0; j < n; j++)
        memset((char *)d + j * ldb, 0, col);
}

/* ---- the generic typed kernels ------------------------------------------------------------ */

/* One element: dc = f(sc, dc) for operation OP, conjugating S if CJ. R is the real type, NC the
 * number of R per element (1 real, 2 complex). OP, CJ and NC are constants at every call, so the
 * switch and the branches fold away. */
#define DEFINE_ELEM(ch, R, NC)                                                                     \
    static ALWAYS_INLINE void ch##_elem(int op, int cj, const R *sc, R *dc, R ar, R ai, R br,      \
                                        R bi)                                                      \
    {                                                                                              \
        if (op == KOP_COPY) {                                                                      \
            if (NC == 2 && cj) {                                                                   \
                dc[0] = sc[0];                                                                     \
                dc[1] = -sc[1];                                                                    \
            } else {                                                                               \
                memcpy(dc, sc, sizeof(R) * NC);                                                    \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        const R sr = sc[0];                                                                        \
        const R si = NC == 2 ? (cj ? -sc[1] : sc[1]) : (R)0;                                       \
        if (NC == 1) {                                                                             \
            switch (op) {                                                                          \
            case KOP_SCAL: dc[0] = ar * sr; break;                                                 \
            case KOP_ADD: dc[0] = dc[0] + sr; break;                                               \
            case KOP_AXPY: dc[0] = dc[0] + ar * sr; break;                                         \
            default: dc[0] = ar * sr + br * dc[0]; break;                                          \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        switch (op) {                                                                              \
        case KOP_SCAL:                                                                             \
            dc[0] = ar * sr - ai * si;                                                             \
            dc[1] = ar * si + ai * sr;                                                             \
            break;                                                                                 \
        case KOP_ADD:                                                                              \
            dc[0] = dc[0] + sr;                                                                    \
            dc[1] = dc[1] + si;                                                                    \
            break;                                                                                 \
        case KOP_AXPY:                                                                             \
            dc[0] = dc[0] + (ar * sr - ai * si);                                                   \
            dc[1] = dc[1] + (ar * si + ai * sr);                                                   \
            break;                                                                                 \
        default: {                                                                                 \
            const R dr = dc[0], di = dc[1];                                                        \
            dc[0] = (ar * sr - ai * si) + (br * dr - bi * di);                                     \
            dc[1] = (ar * si + ai * sr) + (br * di + bi * dr);                                     \
        } break;                                                                                   \
        }                                                                                          \
    }

/* D = beta*D (alpha == 0, beta not 0 or 1): S is never touched. */
#define DEFINE_SCALD(ch, R, NC)                                                                    \
    static void ch##_scald(const kjob *job, int64_t m, int64_t n, const void *s, void *d)          \
    {                                                                                              \
        (void)s;                                                                                   \
        const R br = (R)job->br, bi = (R)job->bi;                                                  \
        const int64_t ldd = job->ldd * NC;                                                         \
        for (int64_t j = 0; j < n; j++) {                                                          \
            R *dc = (R *)d + j * ldd;                                                              \
            for (int64_t i = 0; i < m * NC; i += NC) {                                             \
                if (NC == 1) {                                                                     \
                    dc[i] = br * dc[i];                                                            \
                } else {                                                                           \
                    const R dr = dc[i], di = dc[i + NC - 1];                                       \
                    dc[i] = br * dr - bi * di;                                                     \
                    dc[i + NC - 1] = br * di + bi * dr;                                            \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* The copy-like (cl) and transpose-like (tl) loops of one operation. */
#define DEFINE_OP_KERNELS(ch, R, NC, name, OP, CJ)                                                 \
    static ALWAYS_INLINE void ch##_##name##_col(int64_t m, const R *restrict sc, R *restrict dc,   \
                                                R ar, R ai, R br, R bi, int stream)                \
    {                                                                                              \
        if (OP == KOP_COPY && !(NC == 2 && CJ)) {                                                  \
            copy_bytes(dc, sc, (size_t)m * sizeof(R) * NC, stream);                                \
            return;                                                                                \
        }                                                                                          \
        (void)stream;                                                                              \
        for (int64_t i = 0; i < m; i++)                                                            \
            ch##_elem(OP, CJ, sc + i * NC, dc + i * NC, ar, ai, br, bi);                           \
    }                                                                                              \
    static void ch##_##name##_cl(const kjob *job, int64_t m, int64_t n, const void *s, void *d)    \
    {                                                                                              \
        const R ar = (R)job->ar, ai = (R)job->ai, br = (R)job->br, bi = (R)job->bi;                \
        const int64_t lds = job->scj * NC, ldd = job->ldd * NC;                                    \
        const size_t run = (size_t)m * sizeof(R) * NC;                                             \
        const int64_t pf = n > 1 && run <= PREFETCH_RUN_BYTES ? PREFETCH_COLS : 0;                 \
        for (int64_t j = 0; j < pf && j < n; j++)                                                  \
            prefetch_run((const R *)s + j * lds, run);                                             \
        if (OP == KOP_COPY && !(NC == 2 && CJ) && run <= DMXI_SHORT_RUN) {                         \
            dmxi_copy_short_runs(d, ldd *(int64_t)sizeof(R), s, lds *(int64_t)sizeof(R), run, n,   \
                                 pf);                                                              \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                          \
            if (pf && j + pf < n)                                                                  \
                prefetch_run((const R *)s + (j + pf) * lds, run);                                  \
            ch##_##name##_col(m, (const R *)s + j * lds, (R *)d + j * ldd, ar, ai, br, bi,         \
                              job->stream);                                                        \
        }                                                                                          \
    }                                                                                              \
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

/* Everything for one dtype, plus its table fns[op][conjugate][transposed]. */
#define DEFINE_TYPE_KERNELS(ch, R, NC)                                                             \
    DEFINE_ELEM(ch, R, NC)                                                                         \
    DEFINE_SCALD(ch, R, NC)                                                                        \
    DEFINE_OP_KERNELS(ch, R, NC, copy, KOP_COPY, 0)                                                \
    DEFINE_OP_KERNELS(ch, R, NC, copyc, KOP_COPY, 1)                                               \
    DEFINE_OP_KERNELS(ch, R, NC, scal, KOP_SCAL, 0)                                                \
    DEFINE_OP_KERNELS(ch, R, NC, scalc, KOP_SCAL, 1)                                               \
    DEFINE_OP_KERNELS(ch, R, NC, add, KOP_ADD, 0)                                                  \
    DEFINE_OP_KERNELS(ch, R, NC, addc, KOP_ADD, 1)                                                 \
    DEFINE_OP_KERNELS(ch, R, NC, axpy, KOP_AXPY, 0)                                                \
    DEFINE_OP_KERNELS(ch, R, NC, axpyc, KOP_AXPY, 1)                                               \
    DEFINE_OP_KERNELS(ch, R, NC, axpby, KOP_AXPBY, 0)                                              \
    DEFINE_OP_KERNELS(ch, R, NC, axpbyc, KOP_AXPBY, 1)                                             \
    static const kfn ch##_fns[KOP_COUNT][2][2] = {                                                 \
        {{ch##_copy_cl, ch##_copy_tl}, {ch##_copyc_cl, ch##_copyc_tl}},                            \
        {{ch##_scal_cl, ch##_scal_tl}, {ch##_scalc_cl, ch##_scalc_tl}},                            \
        {{ch##_add_cl, ch##_add_tl}, {ch##_addc_cl, ch##_addc_tl}},                                \
        {{ch##_axpy_cl, ch##_axpy_tl}, {ch##_axpyc_cl, ch##_axpyc_tl}},                            \
        {{ch##_axpby_cl, ch##_axpby_tl}, {ch##_axpbyc_cl, ch##_axpbyc_tl}}};

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
/* Rows [0, m) of the transposed bit copy, element by element non-temporally (D esz-aligned;
 * dmxi_nt_edge of core/ntstore.h, which also stores the copy-like runs' partial lines). */
static void tl_strip_nt(const kjob *job, int64_t m, int64_t n, const char *s, char *d)
{
    const int64_t esz = (int64_t)job->esz, lds = job->sri * esz, ldd = job->ldd * esz;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
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

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Run the sub-tile rows [i0, i1) x columns [j0, j1) of the canonical problem. */
static void run_rect(const kjob *job, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    const int64_t esz = (int64_t)job->esz;
    const char *s = job->s ? job->s + (i0 * job->sri + j0 * job->scj) * esz : NULL;
    char *d = job->d + (i0 + j0 * job->ldd) * esz;
    job->fn(job, i1 - i0, j1 - j0, s, d);
}

static void run(const kjob *job)
{
#ifdef _OPENMP
    const int nthreads = dmxi_threads();
    if (job->m > OMP_MIN_ELEMS / job->n && nthreads > 1) {
#pragma omp parallel num_threads(nthreads)
        {
            const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
            /* Split columns if there are enough of them, else rows. */
            const int by_cols = job->n >= nt;
            const int64_t len = by_cols ? job->n : job->m;
            const int64_t align = by_cols ? (job->transposed ? TILE_J : 1) : OMP_ROW_ALIGN;
            int64_t q = (len + nt - 1) / nt;
            q = (q + align - 1) / align * align;
            const int64_t lo = MIN64(len, t * q), hi = MIN64(len, lo + q);
            if (lo < hi) {
                if (by_cols)
                    run_rect(job, 0, job->m, lo, hi);
                else
                    run_rect(job, lo, hi, 0, job->n);
            }
            if (job->stream) /* each thread orders its own non-temporal stores */
                dmxi_kernel_fence();
        }
        return;
    }
#endif
    run_rect(job, 0, job->m, 0, job->n);
}

/* Round a scalar to the dtype (float types round, real types drop the imaginary part). */
static void round_scalar(dmx_dtype t, dmx_scalar x, double *re, double *im)
{
    const int single = t == DMX_FLOAT || t == DMX_CFLOAT;
    const int cplx = t == DMX_CFLOAT || t == DMX_CDOUBLE;
    *re = single ? (double)(float)x.re : x.re;
    *im = !cplx ? 0.0 : single ? (double)(float)x.im : x.im;
}

void dmxi_kernel_apply(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, dmx_scalar beta,
                       const void *src, int64_t src_ld, dmx_order src_order, void *dst,
                       int64_t dst_ld, dmx_order dst_order, int64_t rows, int64_t cols)
{
    dmxi_kernel_apply_flags(dtype, op, alpha, beta, src, src_ld, src_order, dst, dst_ld, dst_order,
                            rows, cols, 0);
}

void dmxi_kernel_apply_flags(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, dmx_scalar beta,
                             const void *src, int64_t src_ld, dmx_order src_order, void *dst,
                             int64_t dst_ld, dmx_order dst_order, int64_t rows, int64_t cols,
                             unsigned flags)
{
    if (rows <= 0 || cols <= 0)
        return;

    const kfn(*fns)[2][2];
    kjob job;
    switch (dtype) {
    case DMX_FLOAT: fns = s_fns, job.esz = sizeof(float); break;
    case DMX_DOUBLE: fns = d_fns, job.esz = sizeof(double); break;
    case DMX_CFLOAT: fns = c_fns, job.esz = 2 * sizeof(float); break;
    case DMX_CDOUBLE: fns = z_fns, job.esz = 2 * sizeof(double); break;
    default: return;
    }
    const int cplx = dtype == DMX_CFLOAT || dtype == DMX_CDOUBLE;
    round_scalar(dtype, alpha, &job.ar, &job.ai);
    round_scalar(dtype, beta, &job.br, &job.bi);
    const int alpha0 = job.ar == 0 && job.ai == 0, alpha1 = job.ar == 1 && job.ai == 0;
    const int beta0 = job.br == 0 && job.bi == 0, beta1 = job.br == 1 && job.bi == 0;
    const int conj = cplx && op == DMX_OP_C;

    /* Strides of D and op(S), in elements. */
    int64_t drs = 1, dcs = dst_ld;
    if (dst_order == DMX_ROW_MAJOR)
        drs = dst_ld, dcs = 1;
    int64_t srs = 1, scs = src_ld;
    if (src_order == DMX_ROW_MAJOR)
        srs = src_ld, scs = 1;
    if (op != DMX_OP_N) {
        const int64_t t = srs;
        srs = scs, scs = t;
    }
    /* Make D unit-stride along i by transposing the whole problem if needed. */
    job.m = rows, job.n = cols;
    if (drs != 1) {
        job.m = cols, job.n = rows;
        int64_t t = drs;
        drs = dcs, dcs = t;
        t = srs;
        srs = scs, scs = t;
    }
    /* With a single canonical row the stride of S along i never matters: copy-like. */
    job.transposed = srs != 1 && job.m > 1;
    job.ldd = dcs;
    job.sri = job.transposed ? srs : 1;
    job.scj = scs;
    job.s = (const char *)src;
    job.d = (char *)dst;
    job.stream = (flags & DMXI_KERNEL_STREAM) != 0;
    job.conj = conj;
    job.avx = 0;
#if DMXI_HAVE_AVX_KERNELS
    /* the streamed AVX transposing copy (kernels_avx.c says why floats and conjugated complex
     * floats stay on the other kernels) */
    job.avx = job.stream && job.transposed && job.esz >= 8 && !(conj && job.esz == 8) &&
              dmxi_kernel_avx_ok();
#endif

    if (alpha0) {
        if (beta1)
            return;
        job.s = NULL;
        job.transposed = 0;
        job.fn = beta0                 ? zero_fill
                 : dtype == DMX_FLOAT  ? s_scald
                 : dtype == DMX_DOUBLE ? d_scald
                 : dtype == DMX_CFLOAT ? c_scald
                                       : z_scald;
        job.sri = job.scj = 0;
    } else {
        enum kop k = KOP_AXPBY;
        if (beta0)
            k = alpha1 ? KOP_COPY : KOP_SCAL;
        else if (beta1)
            k = alpha1 ? KOP_ADD : KOP_AXPY;
        job.fn = fns[k][conj][job.transposed];
#if defined(__SSE2__)
        /* streamed transposed copies: AVX for every element size and conjugation, else SSE2
         * for plain 8- and 16-byte copies */
        if (job.stream && k == KOP_COPY && job.transposed &&
            ((!conj && (job.esz == 8 || job.esz == 16)) || job.avx)) {
            job.fallback = job.fn;
            job.fn = tl_copy_stream;
        }
#endif
#if DMXI_HAVE_AVX_KERNELS
        if (job.fn == fns[k][conj][1] && k == KOP_COPY && !conj && job.transposed && job.esz >= 4 &&
            dmxi_kernel_avx_ok()) {
            job.fallback = job.fn;
            job.fn = tl_copy_avx;
        }
#endif
    }

    /* Packed copy-like columns (or a D-only operation on packed D) collapse into one column. */
    if (!job.transposed && job.n > 1 && job.ldd == job.m && (job.s == NULL || job.scj == job.m)) {
        job.m *= job.n;
        job.n = 1;
    }
    run(&job);
}
