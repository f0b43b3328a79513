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
 * stall the core (measured: 2x slower). That generic loop runs where the CPU has no AVX and on
 * the edges the others leave; with AVX every operation goes through register transposes
 * (kernels_avx.c: the bit copy, and alpha/beta/conjugation applied in registers). With
 * DMXI_KERNEL_STREAM and beta = 0, where D's columns start at one offset in a line and the CPU
 * has AVX, whole lines of D are stored non-temporally straight from the register transposes
 * (tl_lines); elsewhere the tile is staged (tl_staged): blocks are transformed into an L1
 * buffer, then each column of D is written as one non-temporal run, as the copy writes it.
 * Cost: each element of S read once, each element of D read at most once and written once (plus
 * one write and read of the L1 buffer when staged). docs/exec.md has the measurements. */
#include "kernels_impl.h"
#include "kernels_avx.h"
#include "ntstore.h"

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

/* ---- streamed transposes staged through L1 ------------------------------------------------ */

/* Bytes of the staging buffer (in L1 with the source lines a block reads); the least and the
 * most bytes of each column run of a staged block; bytes of S's rows in one panel. */
#define STAGE_BYTES 16384
#define STAGE_RUN_MIN 128
#define STAGE_RUN_MAX 512
#define STAGE_PANEL 4096

/* Rows of D in the staged blocks of a tile m rows x n columns of esz-byte elements, a multiple of
 * a line, at most m. Elements of 8 bytes or more: as few rows as fill the buffer with whole
 * panel rows of S (n columns, at most STAGE_PANEL bytes), between STAGE_RUN_MIN and
 * STAGE_RUN_MAX bytes. Floats: STAGE_RUN_MAX bytes (measured in the engine's order on 128 x 128
 * tiles, docs/exec.md: whole rows made floats 1.99-2.03x the copy against 1.56-1.63x). */
static int64_t stage_rows(int64_t m, int64_t n, int64_t esz)
{
    const int64_t L = CACHE_LINE / esz, w = MIN64(n * esz, STAGE_PANEL);
    int64_t mc = STAGE_BYTES / w / L * L;
    mc = esz < 8                    ? STAGE_RUN_MAX / esz
         : mc < STAGE_RUN_MIN / esz ? STAGE_RUN_MIN / esz
                                    : MIN64(mc, STAGE_RUN_MAX / esz);
    const int64_t nbk = (m + mc - 1) / mc;
    return ((m + nbk - 1) / nbk + L - 1) / L * L;
}

/* Rows [0, rows) of columns [j0, j1) of a streamed tile (s and d at the rows' first element of
 * column 0), nc columns at a time: transformed by job->staged into buf (rows x nc, packed), then
 * each column's run stored non-temporally (dmxi_nt_copy: whole lines 16 bytes at a time, the
 * partial lines at its ends element by element). */
static void stage_out(const kjob *job, int64_t rows, int64_t nc, int64_t j0, int64_t j1,
                      const char *s, char *d, char *buf)
{
    const int64_t esz = (int64_t)job->esz, ldd = job->ldd * esz;
    kjob sub = *job;
    sub.stream = 0;
    sub.ldd = rows;
    for (int64_t j = j0; j < j1; j += nc) {
        const int64_t cols = MIN64(nc, j1 - j);
        job->staged(&sub, rows, cols, s + j * esz, buf);
        for (int64_t c = 0; c < cols; c++)
            dmxi_nt_copy(d + (j + c) * ldd, buf + c * rows * esz, (size_t)(rows * esz));
    }
}

/* D = alpha*op(S) (beta = 0) written whole columns at a time: each block of `per` rows (above)
 * x STAGE_BYTES / (per * esz) columns is transformed by job->staged (the cached kernel: register
 * transposes where it has them) into a packed buffer on the stack, then each of its columns is
 * copied into D as one run, with non-temporal stores (core/ntstore.h; short runs by memcpy, as
 * the copy-like kernel does). So D is written in the order and the runs a copy writes it: one
 * contiguous run per column, not one line per column and strip. Row blocks after the first
 * start on a line of D. The tile is walked in panels of STAGE_PANEL bytes of S's rows, in each
 * panel block row after block row, so a block reads whole rows of the panel (measured on 128 x
 * 128 double tiles, docs/exec.md: blocks of 16 rows x 128 columns beat 64 x 32 by about 10 %)
 * and the pages of D a panel writes stay few. */
static void tl_staged(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    _Alignas(64) char buf[STAGE_BYTES];
    const int64_t esz = (int64_t)job->esz, lds = job->sri * esz;
    const int64_t R = 32 / esz, pw = STAGE_PANEL / esz;
    const int64_t head = (int64_t)((CACHE_LINE - (uintptr_t)d % CACHE_LINE) % CACHE_LINE) / esz;
    const int64_t per = stage_rows(m, n, esz);
    kjob sub = *job;
    sub.stream = 0;
    if (m * esz < 4 * CACHE_LINE) { /* runs the copy-like kernel would not stream either */
        job->staged(&sub, m, n, s, d);
        return;
    }
    for (int64_t p0 = 0; p0 < n; p0 += pw) {
        const int64_t p1 = MIN64(n, p0 + pw);
        for (int64_t i0 = 0; i0 < m;) {
            const int64_t i1 = MIN64(m, i0 == 0 ? head + per : i0 + per), rows = i1 - i0;
            int64_t nc = STAGE_BYTES / (rows * esz);
            nc = nc >= R ? nc / R * R : nc > 0 ? nc : 1;
            stage_out(job, rows, nc, p0, p1, (const char *)s + i0 * lds, (char *)d + i0 * esz, buf);
            i0 = i1;
        }
    }
}

#if DMXI_HAVE_AVX_KERNELS
/* A few rows of a streamed tile (the parts of lines tl_lines leaves): transformed into a buffer
 * on the stack as tl_staged does, each column's piece then stored non-temporally element by
 * element (core/ntstore.h), so the line it shares with a neighbouring piece is not read first. */
static void tl_edge(const kjob *job, int64_t m, int64_t n, const char *s, char *d)
{
    _Alignas(64) char buf[STAGE_BYTES];
    const int64_t esz = (int64_t)job->esz;
    stage_out(job, m, m * esz < STAGE_BYTES ? STAGE_BYTES / (m * esz) : 1, 0, n, s, d, buf);
}

/* D = alpha*op(S) (beta = 0) into a large D with every whole line of D written by one
 * non-temporal store per half line, straight from the registers (kernels_avx.c's line walk):
 * no staging buffer, and S read along its rows. Applies where all columns of D start at the
 * same offset in a line (ldd a multiple of a line); the rows above the first line boundary, the
 * rows below the last one and the last n % R columns go through tl_edge. Elsewhere tl_staged.
 * Measured on 4096^2 doubles of 128 x 128 blocks, plain malloc arrays, one thread (docs/exec.md,
 * with local_order.c's merged rectangles): the all-local transpose 1.16-1.17x the copy's time
 * this way (1.6x staged, before the merge). Floats gain less: 1.5-1.75x the copy. */
static void tl_lines(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    const int64_t esz = (int64_t)job->esz, lds = job->sri * esz, ldd = job->ldd * esz;
    const int64_t L = CACHE_LINE / esz, R = 32 / esz;
    const uintptr_t a = (uintptr_t)d;
    /* short columns stream only from a line's start (edge_join.c's rows: whole lines) */
    if (ldd % CACHE_LINE != 0 || a % (uintptr_t)esz != 0 ||
        m * esz < (a % CACHE_LINE == 0 ? CACHE_LINE : 4 * CACHE_LINE)) {
        tl_staged(job, m, n, s, d);
        return;
    }
    const int64_t head = MIN64(m, (int64_t)((CACHE_LINE - a % CACHE_LINE) % CACHE_LINE) / esz);
    const int64_t body = (m - head) / L * L, nb = n / R * R, tail = m - head - body;
    const char *sp = s;
    char *dp = d;
    if (head > 0)
        tl_edge(job, head, n, sp, dp);
    if (body > 0 && nb > 0) {
        const double sc[4] = {job->ar, job->ai, job->br, job->bi};
        dmxi_kernel_tstream_avx(job->kind, job->op, job->conj, sc, body, nb, sp + head * lds, lds,
                                dp + head * esz, ldd);
    }
    if (body > 0 && nb < n)
        tl_edge(job, body, n - nb, sp + head * lds + nb * esz, dp + head * esz + nb * ldd);
    if (tail > 0)
        tl_edge(job, tail, n, sp + (head + body) * lds, dp + (head + body) * esz);
}
#endif

/* ---- choice ---------------------------------------------------------------------------- */

static kfn cached_fn(kjob *job, dmx_dtype dt, enum kop k, int conj, kfn fn);

/* The element kind of kernels_avx.c: 0 float, 1 double, 2 complex float, 3 complex double. */
static int kind_of(dmx_dtype dt)
{
    return dt == DMX_FLOAT ? 0 : dt == DMX_DOUBLE ? 1 : dt == DMX_CFLOAT ? 2 : 3;
}

kfn dmxi_kernel_transpose_fn(kjob *job, dmx_dtype dt, enum kop k, int conj)
{
    const kfn(*fns)[2] = dt == DMX_FLOAT    ? s_fns
                         : dt == DMX_DOUBLE ? d_fns
                         : dt == DMX_CFLOAT ? c_fns
                                            : z_fns;
    kfn fn = fns[k][conj];
    if (job->stream && (k == KOP_COPY || k == KOP_SCAL)) {
        /* beta = 0 into a large D: staged, each column of D written as one streamed run */
        kjob tmp = *job;
        tmp.stream = 0;
        tmp.fallback = fn;
        job->staged = cached_fn(&tmp, dt, k, conj, fn);
        job->fallback = fn;
        job->kind = kind_of(dt);
        job->op = (int)k;
#if DMXI_HAVE_AVX_KERNELS
        if (dmxi_kernel_avx_ok())
            return tl_lines;
#endif
        return tl_staged;
    }
    return cached_fn(job, dt, k, conj, fn);
}

static kfn cached_fn(kjob *job, dmx_dtype dt, enum kop k, int conj, kfn fn)
{
    (void)dt;
#if DMXI_HAVE_AVX_KERNELS
    if (k == KOP_COPY && !conj && job->esz >= 4 && dmxi_kernel_avx_ok()) {
        job->fallback = fn;
        return tl_copy_avx;
    }
    if (dmxi_kernel_avx_ok()) {
        job->fallback = fn;
        job->kind = kind_of(dt);
        job->op = (int)k;
        return tl_op_avx;
    }
#endif
    return fn;
}
