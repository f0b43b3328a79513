/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of dmxi_kernel_apply: D = alpha*op(S) + beta*D on one local tile.
 *
 * Every case is compared with a naive element-by-element reference written here (explicit
 * complex arithmetic in double precision), over dtype x op x source order x destination order x
 * alpha x beta x sizes (empty, 1, odd, around and above the kernel's tile and micro-block sizes)
 * with padded leading dimensions. Buffers are allocated to their exact extent so a sanitizer
 * build catches any access past the last element; padding must come back untouched.
 * Special cases are checked bit for bit: beta = 0 with D full of NaN, alpha = 0 with S full of
 * NaN (or NULL), alpha = 0 and beta = 0 giving zeros, and alpha = 1, beta = 0 copying integer and
 * signaling-NaN bit patterns unchanged.
 *
 * `test_kernels --bench [n]` instead times n x n double tiles (default 4096) against memcpy and
 * prints one JSON line per configuration.
 */
#define _DEFAULT_SOURCE /* mmap flags, clock_gettime */

#include "dmxt_util.h"
#include "exec/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__unix__)
#include <sys/mman.h>
#endif

/* This test's checks, and its random sizes and scalars from the tests' one generator. */
static dmxt_count results;
static dmxt_rng rng;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
    } while (0)

/* ---- helpers ------------------------------------------------------------------------------- */

static const char *dtype_name(dmx_dtype t)
{
    static const char *names[] = {"float", "double", "cfloat", "cdouble"};
    return names[t];
}

static int is_complex(dmx_dtype t)
{
    return t == DMX_CFLOAT || t == DMX_CDOUBLE;
}

static int is_single(dmx_dtype t)
{
    return t == DMX_FLOAT || t == DMX_CFLOAT;
}

static size_t elem_size(dmx_dtype t)
{
    return (is_single(t) ? sizeof(float) : sizeof(double)) * (is_complex(t) ? 2 : 1);
}

static void load(dmx_dtype t, const void *buf, int64_t k, double *re, double *im)
{
    *re = 0;
    *im = 0;
    switch (t) {
    case DMX_FLOAT: *re = ((const float *)buf)[k]; break;
    case DMX_DOUBLE: *re = ((const double *)buf)[k]; break;
    case DMX_CFLOAT:
        *re = ((const float *)buf)[2 * k];
        *im = ((const float *)buf)[2 * k + 1];
        break;
    case DMX_CDOUBLE:
        *re = ((const double *)buf)[2 * k];
        *im = ((const double *)buf)[2 * k + 1];
        break;
    }
}

static void store(dmx_dtype t, void *buf, int64_t k, double re, double im)
{
    switch (t) {
    case DMX_FLOAT: ((float *)buf)[k] = (float)re; break;
    case DMX_DOUBLE: ((double *)buf)[k] = re; break;
    case DMX_CFLOAT:
        ((float *)buf)[2 * k] = (float)re;
        ((float *)buf)[2 * k + 1] = (float)im;
        break;
    case DMX_CDOUBLE:
        ((double *)buf)[2 * k] = re;
        ((double *)buf)[2 * k + 1] = im;
        break;
    }
}

/* Flat index of element (i, j) of a matrix stored with order and ld. */
static int64_t at(dmx_order o, int64_t ld, int64_t i, int64_t j)
{
    return o == DMX_COL_MAJOR ? i + j * ld : i * ld + j;
}

/* Number of elements a buffer holding an r x c matrix needs (exact: the last row or column is
 * not padded), at least 1 so empty matrices still get a pointer. */
static int64_t extent(dmx_order o, int64_t ld, int64_t r, int64_t c)
{
    if (r == 0 || c == 0)
        return 1;
    return o == DMX_COL_MAJOR ? ld * (c - 1) + r : ld * (r - 1) + c;
}

/* The scalar as the kernel must use it: real types drop im, float types round. */
static void effective(dmx_dtype t, dmx_scalar x, double *re, double *im)
{
    *re = is_single(t) ? (double)(float)x.re : x.re;
    *im = is_complex(t) ? (is_single(t) ? (double)(float)x.im : x.im) : 0.0;
}

/* ---- one randomized case ------------------------------------------------------------------ */

typedef struct kcase {
    dmx_dtype dtype;
    dmx_op op;
    dmx_order so, dord;
    dmx_scalar alpha, beta;
    int64_t rows, cols;
    int64_t spad, dpad; /* extra leading dimension */
    int null_src;       /* pass src = NULL (only with alpha == 0) */
    unsigned flags;     /* dmxi_kernel_apply_flags */
    int64_t doff;       /* D starts this many bytes after a 64-byte boundary */
    int64_t soff;       /* S likewise (0: wherever malloc puts it) */
} kcase;

static void describe(const kcase *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s op=%c S=%s D=%s alpha=(%g,%g) beta=(%g,%g) %lldx%lld pad=%lld/%lld flags=%u "
             "D at 64k+%lld S at +%lld",
             dtype_name(c->dtype), "NTC"[c->op], c -> so == DMX_COL_MAJOR ? "col" : "row",
             c->dord == DMX_COL_MAJOR ? "col" : "row", c->alpha.re, c->alpha.im, c->beta.re,
             c->beta.im, (long long)c->rows, (long long)c->cols, (long long)c->spad,
             (long long)c->dpad, c->flags, (long long)c->doff, (long long)c->soff);
}

/* Returns 1 if the case passed. */
static int run_case(const kcase *c)
{
    const dmx_dtype t = c->dtype;
    const size_t es = elem_size(t);
    const int cplx = is_complex(t);
    /* S is rows x cols for op N, else cols x rows. */
    const int64_t sr = c->op == DMX_OP_N ? c->rows : c->cols;
    const int64_t sc = c->op == DMX_OP_N ? c->cols : c->rows;
    const int64_t sld = (c->so == DMX_COL_MAJOR ? sr : sc) + c->spad;
    const int64_t dld = (c->dord == DMX_COL_MAJOR ? c->rows : c->cols) + c->dpad;
    const int64_t sn = extent(c->so, sld < 1 ? 1 : sld, sr, sc);
    const int64_t dn = extent(c->dord, dld < 1 ? 1 : dld, c->rows, c->cols);
    double ar, ai, br, bi;
    effective(t, c->alpha, &ar, &ai);
    effective(t, c->beta, &br, &bi);
    const int alpha0 = ar == 0 && ai == 0, beta0 = br == 0 && bi == 0;
    const int alpha1 = ar == 1 && ai == 0, beta1 = br == 1 && bi == 0;
    const int conj = cplx && c->op == DMX_OP_C;
    const double tol = is_single(t) ? 1e-5 : 1e-13;
    int ok = 1;

    /* D ends exactly at the end of its allocation, which starts on a cache line */
    void *sbase = NULL;
    if (c->soff == 0)
        sbase = malloc((size_t)sn * es);
    else if (posix_memalign(&sbase, 64, (size_t)c->soff + (size_t)sn * es) != 0)
        sbase = NULL;
    unsigned char *s = sbase ? (unsigned char *)sbase + c->soff : NULL;
    unsigned char *s0 = malloc((size_t)sn * es);
    void *dbase = NULL;
    if (posix_memalign(&dbase, 64, (size_t)c->doff + (size_t)dn * es) != 0)
        dbase = NULL;
    unsigned char *d = dbase ? (unsigned char *)dbase + c->doff : NULL;
    unsigned char *d0 = malloc((size_t)dn * es);
    if (!s || !s0 || !d || !d0) {
        FAIL("out of memory");
        free(sbase), free(s0), free(dbase), free(d0);
        return 0;
    }
    /* Distinct values per position; NaN where the kernel must not look. */
    for (int64_t k = 0; k < sn; k++) {
        if (alpha0)
            store(t, s, k, NAN, NAN);
        else
            store(t, s, k, 1.0 + (double)k, -0.5 - (double)k);
    }
    for (int64_t k = 0; k < dn; k++) {
        if (beta0)
            store(t, d, k, NAN, NAN);
        else
            store(t, d, k, -3.0 - 2.0 * (double)k, 7.0 + 0.25 * (double)k);
    }
    memcpy(s0, s, (size_t)sn * es);
    memcpy(d0, d, (size_t)dn * es);

    dmxi_kernel_apply_flags(t, c->op, c->alpha, c->beta, c->null_src ? NULL : s, sld, c->so, d, dld,
                            c->dord, c->rows, c->cols, c->flags);
    dmxi_kernel_fence();

    char desc[256];
    if (memcmp(s, s0, (size_t)sn * es) != 0) {
        describe(c, desc, sizeof desc);
        FAIL("%s: S was modified", desc);
        ok = 0;
    }
    /* Elements of D's buffer outside the tile must be untouched. */
    unsigned char *inside = calloc((size_t)dn, 1);
    if (!inside) {
        FAIL("out of memory");
        ok = 0;
        goto done;
    }
    for (int64_t i = 0; i < c->rows && ok; i++) {
        for (int64_t j = 0; j < c->cols; j++) {
            const int64_t kd = at(c->dord, dld, i, j);
            const int64_t si = c->op == DMX_OP_N ? i : j, sj = c->op == DMX_OP_N ? j : i;
            const int64_t ks = at(c->so, sld, si, sj);
            inside[kd] = 1;
            const unsigned char *got = d + kd * (int64_t)es;
            double gr, gi, sre = 0, sim = 0, dre, dim;
            load(t, d, kd, &gr, &gi);
            load(t, d0, kd, &dre, &dim);
            if (!alpha0)
                load(t, s0, ks, &sre, &sim);
            if (conj)
                sim = -sim;
            int good;
            if (alpha1 && beta0 && !conj) {
                good = memcmp(got, s0 + ks * (int64_t)es, es) == 0;
            } else if (alpha0 && beta0) {
                good = gr == 0 && gi == 0;
            } else if (alpha0 && beta1) {
                good = memcmp(got, d0 + kd * (int64_t)es, es) == 0;
            } else {
                /* reference: (ar + i ai)(sre + i sim) + (br + i bi)(dre + i dim) */
                double rr = 0, ri = 0, mag = 1e-300;
                if (!alpha0) {
                    rr += ar * sre - ai * sim;
                    ri += ar * sim + ai * sre;
                    mag += hypot(ar, ai) * hypot(sre, sim);
                }
                if (!beta0) {
                    rr += br * dre - bi * dim;
                    ri += br * dim + bi * dre;
                    mag += hypot(br, bi) * hypot(dre, dim);
                }
                good = isfinite(gr) && isfinite(gi) && fabs(gr - rr) <= tol * mag &&
                       fabs(gi - ri) <= tol * mag;
                if (!good) {
                    describe(c, desc, sizeof desc);
                    FAIL("%s: D(%lld,%lld) = (%g,%g), expected (%g,%g)", desc, (long long)i,
                         (long long)j, gr, gi, rr, ri);
                    ok = 0;
                    break;
                }
            }
            if (!good) {
                describe(c, desc, sizeof desc);
                FAIL("%s: D(%lld,%lld) = (%g,%g) has the wrong bits", desc, (long long)i,
                     (long long)j, gr, gi);
                ok = 0;
                break;
            }
        }
    }
    for (int64_t k = 0; k < dn && ok; k++) {
        if (!inside[k] && memcmp(d + k * (int64_t)es, d0 + k * (int64_t)es, es) != 0) {
            describe(c, desc, sizeof desc);
            FAIL("%s: element %lld of D's buffer outside the tile was written", desc, (long long)k);
            ok = 0;
        }
    }
    free(inside);
done:
    free(sbase), free(s0), free(dbase), free(d0);
    return ok;
}

static void count(int ok)
{
    if (ok)
        results.passed++;
    else
        results.failed++; /* the reason was printed by FAIL */
}

/* dtype x op x orders x alpha x beta, each at fixed edge sizes and a few random ones. */
static void test_cross_product(void)
{
    static const int64_t sizes[] = {0,  1,  2,  3,  5,  8,   15,  16, 17,
                                    31, 33, 63, 64, 65, 100, 129, 150};
    static const int64_t fixed[][2] = {{0, 3}, {3, 0}, {1, 1}, {1, 9}, {9, 1}, {67, 130}};
    static const int64_t pads[] = {0, 0, 1, 3, 16};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    const int nrandom = 4;
    dmx_scalar scal[5] = {{0, 0}, {1, 0}, {-1, 0}, {0, 0}, {0, 0.75}};
    for (int t = 0; t < 4; t++)
        for (int op = 0; op < 3; op++)
            for (int so = 0; so < 2; so++)
                for (int dord = 0; dord < 2; dord++)
                    for (int a = 0; a < 5; a++)
                        for (int b = 0; b < 5; b++) {
                            scal[3].re = 0.25 + 1.5 * dmxt_rng_unit(&rng);
                            scal[3].im = -0.25 - 1.5 * dmxt_rng_unit(&rng);
                            kcase c = {.dtype = (dmx_dtype)t,
                                       .op = (dmx_op)op,
                                       .so = (dmx_order)so,
                                       .dord = (dmx_order)dord,
                                       .alpha = scal[a],
                                       .beta = scal[b]};
                            for (int k = 0; k < nfixed + nrandom; k++) {
                                if (k < nfixed) {
                                    c.rows = fixed[k][0];
                                    c.cols = fixed[k][1];
                                } else {
                                    c.rows = sizes[dmxt_rng_next(&rng) % (uint64_t)nsizes];
                                    c.cols = sizes[dmxt_rng_next(&rng) % (uint64_t)nsizes];
                                }
                                c.spad = pads[dmxt_rng_next(&rng) % 5];
                                c.dpad = pads[dmxt_rng_next(&rng) % 5];
                                double ar, ai;
                                effective(c.dtype, c.alpha, &ar, &ai);
                                c.null_src = ar == 0 && ai == 0 && (k & 1);
                                count(run_case(&c));
                            }
                        }
}

/* dtype x op x orders x 3 scalar/padding variants on each shape, with kernel flags. D starts
 * doffs[..] bytes after a cache line boundary (the AVX transposing copy and the streaming
 * kernels must both handle D off a line); with flags every case also runs once with D on a
 * boundary and unpadded. */
static void sweep_shapes(const int64_t (*shapes)[2], size_t nshapes, unsigned flags)
{
    static const int64_t doffs[] = {0, 8, 16, 48};
    static const int64_t dpads[] = {0, 8, 3};
    const dmx_scalar one = {1, 0}, zero = {0, 0}, a = {0.75, -0.5}, b = {-1.25, 0.25};
    for (size_t sh = 0; sh < nshapes; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 0; op < 3; op++)
                for (int so = 0; so < 2; so++)
                    for (int dord = 0; dord < 2; dord++)
                        for (int v = 0; v < 3; v++) {
                            kcase c = {.dtype = (dmx_dtype)t,
                                       .op = (dmx_op)op,
                                       .so = (dmx_order)so,
                                       .dord = (dmx_order)dord,
                                       .alpha = v == 2 ? a : one,
                                       .beta = v == 2 ? b : zero,
                                       .rows = shapes[sh][0],
                                       .cols = shapes[sh][1],
                                       .spad = v == 1 ? 5 : 0,
                                       .dpad = dpads[(sh + (size_t)v) % 3],
                                       .flags = flags,
                                       .doff = doffs[(sh + (size_t)t + (size_t)v) % 4]};
                            count(run_case(&c));
                            if (flags) {
                                c.doff = 0;
                                c.dpad = 0;
                                count(run_case(&c));
                            }
                        }
}

/* Every scalar class with and without DMXI_KERNEL_STREAM, on shapes that cross the streamed
 * transposes' staging blocks (kernels_transpose.c: column runs of up to 512 bytes, 16 KiB per
 * block, row blocks after the first on a line of D) and the AVX register blocks, odd sizes and
 * long thin ones: alpha = 1 / other x beta = 0 / 1 / other (bit copy, scaled copy through the
 * staging buffer, the read-modify-write operations), D at every 8-byte offset class within a
 * line. Under OMP_NUM_THREADS=2 (test kernels_omp2) the larger shapes are split over threads. */
static void test_scalar_classes(void)
{
    static const int64_t shapes[][2] = {{1000, 3}, {3, 1000}, {7, 17},    {17, 7}, {65, 513},
                                        {513, 65}, {257, 33}, {40, 1000}, {33, 9}, {1, 700}};
    static const int64_t doffs[] = {0, 8, 16, 48};
    const dmx_scalar one = {1, 0}, zero = {0, 0}, a = {0.75, -0.5}, b = {-1.25, 0.25};
    const dmx_scalar al[6] = {one, a, one, a, one, a}, be[6] = {zero, zero, one, one, b, b};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 0; op < 3; op++)
                for (int v = 0; v < 6; v++)
                    for (unsigned f = 0; f < 2; f++) {
                        kcase c = {.dtype = (dmx_dtype)t,
                                   .op = (dmx_op)op,
                                   .so = (dmx_order)((sh + (size_t)v) % 2),
                                   .dord = DMX_COL_MAJOR,
                                   .alpha = al[v],
                                   .beta = be[v],
                                   .rows = shapes[sh][0],
                                   .cols = shapes[sh][1],
                                   .spad = (int64_t)((sh + (size_t)t) % 3),
                                   .dpad = (int64_t)(v % 2) * 3,
                                   .flags = f ? DMXI_KERNEL_STREAM : 0u,
                                   .doff = doffs[(sh + (size_t)t + (size_t)v) % 4]};
                        count(run_case(&c));
                    }
}

/* Shapes that cross the kernel's outer tiles (64 x 256 elements) in both directions. */
static void test_large_tiles(void)
{
    static const int64_t shapes[][2] = {{70, 300}, {300, 70}, {1, 300}};
    sweep_shapes(shapes, sizeof shapes / sizeof shapes[0], 0);
}

/* The transposed bit copy without flags runs AVX register blocks of 32 / esz elements square
 * where the CPU has AVX and the ordinary kernel on the rest: shapes whole in blocks, one short
 * of them and one over, for each element size, with D on and off a cache line. */
static void test_register_blocks(void)
{
    static const int64_t shapes[][2] = {{2, 2}, {4, 4},   {8, 8},   {32, 32}, {3, 5},
                                        {7, 9}, {33, 31}, {30, 34}, {9, 260}, {260, 9}};
    sweep_shapes(shapes, sizeof shapes / sizeof shapes[0], 0);
}

/* DMXI_KERNEL_STREAM: the non-temporal paths (copy-like runs, and the transposed bit copy of
 * 8- and 16-byte elements) take over only where D's lines are whole and aligned; these shapes
 * and offsets put D on and off cache line boundaries, with whole and partial lines and
 * micro-blocks at the edges, and one tile large enough to be split over OpenMP threads. */
static void test_streaming(void)
{
    static const int64_t shapes[][2] = {{8, 8},    {16, 16},  {32, 32}, {17, 33},  {64, 72},
                                        {67, 130}, {300, 70}, {1, 40},  {264, 300}};
    sweep_shapes(shapes, sizeof shapes / sizeof shapes[0], DMXI_KERNEL_STREAM);
}

/* The streamed transposed bit copy with D off a cache line but its columns a whole number of
 * lines apart: the partial lines at the top and bottom of each column are stored non-temporally
 * element by element, the aligned rows between as whole streamed lines. Every dtype and op (the
 * paths that do not qualify must stay correct), every 8-byte offset of D within a line, rows
 * short of and past two lines, column counts off the micro-block. */
static void test_streaming_off_line(void)
{
    static const int64_t shapes[][2] = {{16, 8}, {17, 9}, {32, 32}, {45, 13}, {100, 70}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 0; op < 3; op++)
                for (int64_t off = 8; off < 64; off += 8) {
                    const int64_t es = t == 0 ? 4 : t == 3 ? 16 : 8, per = 64 / es;
                    const int64_t rows = shapes[sh][0], cols = shapes[sh][1];
                    kcase c = {.dtype = (dmx_dtype)t,
                               .op = (dmx_op)op,
                               .so = DMX_COL_MAJOR,
                               .dord = DMX_COL_MAJOR,
                               .alpha = {1, 0},
                               .beta = {0, 0},
                               .rows = rows,
                               .cols = cols,
                               .dpad = (per - rows % per) % per + (sh % 2 ? per : 0),
                               .flags = DMXI_KERNEL_STREAM,
                               .doff = off};
                    count(run_case(&c));
                }
}

/* The streamed transposes through AVX register blocks (kernels_avx.c's line walk: every dtype,
 * op T and C, alpha = 1 and alpha != 1 with beta = 0; the operations that read D must stay right
 * on their own kernels): D's columns whole lines apart, D on a line, 16 and 48 bytes off it
 * (plain malloc), row counts that leave partial lines at both ends, column counts off the
 * register block, across the walk's 32-column blocks and across its 4 KiB passes of S's rows
 * (600 and 1100 columns), S column- and row-major with a padded ld. */
static void test_streaming_avx(void)
{
    static const int64_t shapes[][2] = {{8, 4},     {9, 5},  {64, 33},  {70, 67},
                                        {130, 100}, {33, 3}, {24, 600}, {40, 1100}};
    static const int64_t offs[] = {0, 16, 48};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 0; op < 3; op++)
                for (int so = 0; so < 2; so++)
                    for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                        const int64_t es = (int64_t)elem_size((dmx_dtype)t), per = 64 / es;
                        const int64_t rows = shapes[sh][0], cols = shapes[sh][1];
                        kcase c = {.dtype = (dmx_dtype)t,
                                   .op = (dmx_op)op,
                                   .so = (dmx_order)so,
                                   .dord = DMX_COL_MAJOR,
                                   .alpha = {1, 0},
                                   .beta = {0, 0},
                                   .rows = rows,
                                   .cols = cols,
                                   .spad = (int64_t)o + (int64_t)sh % 2,
                                   .dpad = (per - rows % per) % per,
                                   .flags = DMXI_KERNEL_STREAM,
                                   .doff = offs[o]};
                        count(run_case(&c));
                        /* the same shape with arithmetic, which must not take the copy path */
                        c.alpha = (dmx_scalar){0.5, -0.25};
                        c.beta = (dmx_scalar){(double)(o % 2), 0};
                        count(run_case(&c));
                    }
}

/* The streamed copy-like bit copy (columns of S into columns of D) with D off a cache line:
 * the partial lines at both ends of each column are stored non-temporally 8 and 4 bytes at a
 * time. Every element-aligned offset of D within a line (4-byte ones for floats, which start
 * the head with a 4-byte store), column lengths from four lines up so that the tail ends on
 * every element boundary, and a padded ld so that consecutive columns start at other offsets. */
static void test_streaming_edges(void)
{
    for (int t = 0; t < 4; t++) {
        const int64_t es = t == 0 ? 4 : t == 3 ? 16 : 8, step = es < 8 ? es : 8;
        for (int64_t off = 0; off < 64; off += step)
            for (int64_t rows = 256 / es; rows * es <= 256 + 64 + es; rows++)
                for (int pad = 0; pad < 2; pad++) {
                    kcase c = {.dtype = (dmx_dtype)t,
                               .op = DMX_OP_N,
                               .so = DMX_COL_MAJOR,
                               .dord = DMX_COL_MAJOR,
                               .alpha = {1, 0},
                               .beta = {0, 0},
                               .rows = rows,
                               .cols = 5,
                               .dpad = pad ? 1 : 0,
                               .flags = DMXI_KERNEL_STREAM,
                               .doff = off};
                    count(run_case(&c));
                }
    }
}

/* The streamed transposes with beta = 0 are staged (kernels_transpose.c, tl_staged): panels of
 * 4 KiB of S's rows (1024 floats, 512 doubles or complex floats, 256 complex doubles), in each
 * blocks of D's rows sized so that the block reads whole panel rows (16 rows of 128 doubles,
 * 8 of 128 complex doubles; 128 to 512 bytes), the first block stretched to D's first line
 * boundary. Shapes whose rows are not a whole number of blocks and whose columns cross one or
 * two panels and stop short of a register block, one row or one column, every dtype, op T and
 * C with every scalar class that has beta = 0 and two that do not, odd leading dimensions of
 * S and D, D on and off a line; against the element-by-element reference of run_case. */
static void test_staged_panels(void)
{
    static const int64_t shapes[][2] = {{130, 129}, {37, 601}, {50, 1100}, {700, 1},
                                        {1, 700},   {33, 258}, {129, 515}};
    static const int64_t offs[] = {0, 16, 40};
    const dmx_scalar one = {1, 0}, zero = {0, 0}, a = {0.75, -0.5}, b = {-1.25, 0.25};
    const dmx_scalar al[4] = {one, a, a, one}, be[4] = {zero, zero, b, one};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 1; op < 3; op++)
                for (int v = 0; v < 4; v++) {
                    kcase c = {.dtype = (dmx_dtype)t,
                               .op = (dmx_op)op,
                               .so = (dmx_order)((sh + (size_t)v) % 2),
                               .dord = DMX_COL_MAJOR,
                               .alpha = al[v],
                               .beta = be[v],
                               .rows = shapes[sh][0],
                               .cols = shapes[sh][1],
                               .spad = 1 + 2 * (int64_t)((sh + (size_t)t) % 2),
                               .dpad = (int64_t)(v % 2) * 3,
                               .flags = DMXI_KERNEL_STREAM,
                               .doff = offs[(sh + (size_t)t + (size_t)v) % 3]};
                    count(run_case(&c));
                }
}

/* The unstreamed transposed bit copy (AVX register blocks where the CPU has them) with S off a
 * cache line and at most 64 columns runs each register row-block across all the columns;
 * every dtype, op and 8-byte offset of S, D on and off a line, widths around the limit. */
static void test_transpose_s_off_line(void)
{
    static const int64_t shapes[][2] = {{32, 32}, {9, 17}, {40, 64}, {24, 65}, {8, 130}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 0; t < 4; t++)
            for (int op = 0; op < 3; op++)
                for (int64_t off = 8; off < 64; off += 8) {
                    kcase c = {.dtype = (dmx_dtype)t,
                               .op = (dmx_op)op,
                               .so = DMX_ROW_MAJOR,
                               .dord = DMX_COL_MAJOR,
                               .alpha = {1, 0},
                               .beta = {0, 0},
                               .rows = shapes[sh][0],
                               .cols = shapes[sh][1],
                               .spad = (int64_t)sh % 3 * 5,
                               .dpad = (int64_t)sh % 2 * 3,
                               .doff = off % 16 ? 0 : 16,
                               .soff = off};
                    if (t == 0 && off % 16 == 8) /* 4-byte offsets for floats */
                        c.soff = off - 4;
                    count(run_case(&c));
                }
}

/* Scalars that round to 0 or 1 in single precision must take the exact paths there. */
static void test_rounding(void)
{
    const dmx_scalar tiny = {1e-60, 0}, near_one = {1.0 + 1e-12, 0};
    kcase c = {.dtype = DMX_FLOAT, .op = DMX_OP_T, .rows = 19, .cols = 23, .dpad = 2};
    c.alpha = tiny;
    c.beta = near_one; /* alpha rounds to 0: S full of NaN, D unchanged */
    count(run_case(&c));
    c.alpha = near_one;
    c.beta = tiny; /* rounds to a bit copy that must not read D */
    count(run_case(&c));
    c.dtype = DMX_CFLOAT;
    c.alpha = (dmx_scalar){0, 1e-60};
    c.beta = (dmx_scalar){0, 0};
    count(run_case(&c));
}

/* alpha = 1, beta = 0 moves bits, not values: integers, signaling NaNs, denormals, -0. */
static void test_bit_patterns(void)
{
    static const uint32_t p32[] = {0x7f800001u, 0xff800001u, 0x7fa00000u, 0x7fbfffffu,
                                   0x7fc00001u, 0x00000001u, 0x80000000u, 0x807fffffu,
                                   0xdeadbeefu, 0x00000000u, 0x12345678u, 0xffffffffu};
    static const uint64_t p64[] = {UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000000001),
                                   UINT64_C(0x7ff4000000000000), UINT64_C(0x7ff7ffffffffffff),
                                   UINT64_C(0x0000000000000001), UINT64_C(0x8000000000000000),
                                   UINT64_C(0xdeadbeefcafebabe), UINT64_C(0xffffffffffffffff)};
    static const int64_t shapes[][2] = {{1, 1}, {7, 5}, {16, 16}, {17, 70}, {70, 17}, {130, 67}};
    const dmx_scalar one = {1, 0}, zero = {0, 0};
    for (int t = 0; t < 4; t++) {
        const dmx_dtype dt = (dmx_dtype)t;
        const size_t es = elem_size(dt);
        const size_t word = is_single(dt) ? 4 : 8;
        for (int op = 0; op < 3; op++)
            for (int so = 0; so < 2; so++)
                for (int dord = 0; dord < 2; dord++)
                    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
                        const int64_t rows = shapes[sh][0], cols = shapes[sh][1];
                        const int64_t sr = op == DMX_OP_N ? rows : cols;
                        const int64_t sc = op == DMX_OP_N ? cols : rows;
                        const int64_t sld = (so == DMX_COL_MAJOR ? sr : sc) + 1;
                        const int64_t dld = (dord == DMX_COL_MAJOR ? rows : cols) + 2;
                        const int64_t sn = extent((dmx_order)so, sld, sr, sc);
                        const int64_t dn = extent((dmx_order)dord, dld, rows, cols);
                        unsigned char *s = malloc((size_t)sn * es);
                        unsigned char *d = malloc((size_t)dn * es);
                        if (!s || !d) {
                            FAIL("out of memory");
                            free(s), free(d);
                            count(0);
                            continue;
                        }
                        /* Word w of S gets pattern w mixed with its index. */
                        const int64_t nwords = sn * (int64_t)(es / word);
                        for (int64_t w = 0; w < nwords; w++) {
                            if (word == 4) {
                                uint32_t v = p32[w % 12];
                                if ((w / 12) % 2)
                                    v ^= (uint32_t)(w / 24) & 0x3fu; /* keeps NaNs NaN */
                                memcpy(s + w * 4, &v, 4);
                            } else {
                                uint64_t v = p64[w % 8] ^ ((uint64_t)(w / 8) & 0x3ffu);
                                memcpy(s + w * 8, &v, 8);
                            }
                        }
                        memset(d, 0x5a, (size_t)dn * es);
                        dmxi_kernel_apply(dt, (dmx_op)op, one, zero, s, sld, (dmx_order)so, d, dld,
                                          (dmx_order)dord, rows, cols);
                        int ok = 1;
                        const int conj = is_complex(dt) && op == DMX_OP_C;
                        for (int64_t i = 0; i < rows && ok; i++)
                            for (int64_t j = 0; j < cols && ok; j++) {
                                const int64_t si = op == DMX_OP_N ? i : j;
                                const int64_t sj = op == DMX_OP_N ? j : i;
                                unsigned char want[16];
                                memcpy(want, s + at((dmx_order)so, sld, si, sj) * (int64_t)es, es);
                                if (conj) /* conj flips the sign bit of the imaginary part */
                                    want[es - 1] ^= 0x80u;
                                if (memcmp(want, d + at((dmx_order)dord, dld, i, j) * (int64_t)es,
                                           es) != 0) {
                                    FAIL("bit copy %s op=%c S=%d D=%d %lldx%lld: element "
                                         "(%lld,%lld) changed",
                                         dtype_name(dt), "NTC"[op], so, dord, (long long)rows,
                                         (long long)cols, (long long)i, (long long)j);
                                    ok = 0;
                                }
                            }
                        count(ok);
                        free(s), free(d);
                    }
    }
}

/* rows or cols 0 does nothing, even with NULL pointers. */
static void test_empty(void)
{
    const dmx_scalar one = {1, 0}, two = {2, 0};
    dmxi_kernel_apply(DMX_DOUBLE, DMX_OP_T, one, two, NULL, 1, DMX_COL_MAJOR, NULL, 1,
                      DMX_ROW_MAJOR, 0, 10);
    dmxi_kernel_apply(DMX_CDOUBLE, DMX_OP_N, two, one, NULL, 5, DMX_ROW_MAJOR, NULL, 5,
                      DMX_COL_MAJOR, 10, 0);
    count(1);
}

/* Offsets beyond 2^31 elements: a 3 x 3 tile whose leading dimensions exceed INT32_MAX, placed
 * in a sparse address-space reservation (only the touched pages get memory). */
static void test_huge_ld(void)
{
#if defined(__unix__) && defined(MAP_NORESERVE) && defined(MAP_ANONYMOUS)
    const int64_t ld = (INT64_C(1) << 31) + 5;
    const int64_t n = 3;
    const size_t bytes = (size_t)(ld * (n - 1) + n) * sizeof(double);
    const dmx_scalar one = {1, 0}, zero = {0, 0}, two = {2, 0};
    void *sm = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *dm = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sm == MAP_FAILED || dm == MAP_FAILED) {
        printf("note: huge-ld test skipped (cannot reserve address space)\n");
        if (sm != MAP_FAILED)
            munmap(sm, bytes);
        if (dm != MAP_FAILED)
            munmap(dm, bytes);
        return;
    }
    double *s = sm, *d = dm;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            s[i * ld + j] = (double)(10 * i + j); /* S row-major */
    for (int op = 0; op < 2; op++) {
        for (int pass = 0; pass < 2; pass++) {
            /* pass 0: bit copy; pass 1: D = 2*op(S) + D */
            dmxi_kernel_apply(DMX_DOUBLE, (dmx_op)op, pass ? two : one, pass ? one : zero, s, ld,
                              DMX_ROW_MAJOR, d, ld, DMX_COL_MAJOR, n, n);
            int ok = 1;
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    const double sv = op == DMX_OP_N ? s[i * ld + j] : s[j * ld + i];
                    if (d[i + j * ld] != (pass ? 3 : 1) * sv) {
                        FAIL("huge ld op=%c pass %d: D(%lld,%lld) = %g", "NTC"[op], pass,
                             (long long)i, (long long)j, d[i + j * ld]);
                        ok = 0;
                    }
                }
            count(ok);
        }
    }
    munmap(sm, bytes);
    munmap(dm, bytes);
#endif
}

/* Tiles above the threading threshold, with several threads, against the reference. */
static void test_threads(void)
{
#ifdef _OPENMP
    const int saved = omp_get_max_threads();
    static const int64_t shapes[][2] = {{300, 251}, {1, 70001}, {70001, 1}, {2, 40000}, {40000, 3}};
    omp_set_num_threads(3);
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int t = 1; t < 4; t += 2) /* double, cdouble */
            for (int op = 0; op < 3; op++)
                for (int dord = 0; dord < 2; dord++)
                    for (int v = 0; v < 2; v++) {
                        kcase c = {.dtype = (dmx_dtype)t,
                                   .op = (dmx_op)op,
                                   .so = (dmx_order)((op + sh) % 2),
                                   .dord = (dmx_order)dord,
                                   .rows = shapes[sh][0],
                                   .cols = shapes[sh][1],
                                   .spad = (int64_t)sh % 2,
                                   .dpad = v};
                        c.alpha = v ? (dmx_scalar){0.5, -1.25} : (dmx_scalar){1, 0};
                        c.beta = v ? (dmx_scalar){-2, 0.5} : (dmx_scalar){0, 0};
                        count(run_case(&c));
                    }
    omp_set_num_threads(saved);
#endif
}

/* ---- benchmark ----------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the process (all threads): under a loaded machine it counts the work done. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One benchmark configuration. Bandwidth counts the arrays of n*n elements streamed: 2 (read
 * S, write D) or 3 (also read D). */
typedef struct bcase {
    const char *name;
    int kind; /* -1 memcpy, 0 dmxi_kernel_apply, 1 naive transpose loop (double only) */
    dmx_dtype dtype;
    dmx_op op;
    dmx_order so, dord;
    dmx_scalar alpha, beta;
    int streams;
    unsigned flags; /* dmxi_kernel_apply_flags */
} bcase;

/* Evict S and D from the caches (this machine's L3 holds both 128 MB arrays), so that every
 * timed run starts from memory and pays for the write-back of its own dirty lines only. */
static double flush_sink;
static void flush_caches(const unsigned char *buf, size_t len)
{
    double acc = 0;
    for (size_t k = 0; k < len; k += 64)
        acc += buf[k];
    flush_sink += acc;
}

/* Time every configuration reps times, round-robin so that all see the same machine load, and
 * report the best time of each. */
static int bench(int64_t n, int reps, int64_t pad)
{
    const dmx_scalar one = {1, 0}, zero = {0, 0}, two = {2, 0}, zc = {0.5, 0.25};
    const dmx_order C = DMX_COL_MAJOR, R = DMX_ROW_MAJOR;
    const bcase cases[] = {
        {"memcpy", -1, DMX_DOUBLE, DMX_OP_N, C, C, one, zero, 2, 0},
        {"d copy N col->col (copy-like, memcpy)", 0, DMX_DOUBLE, DMX_OP_N, C, C, one, zero, 2, 0},
        {"d copy T col->col (transpose-like)", 0, DMX_DOUBLE, DMX_OP_T, C, C, one, zero, 2, 0},
        {"d copy N col->col, streamed", 0, DMX_DOUBLE, DMX_OP_N, C, C, one, zero, 2,
         DMXI_KERNEL_STREAM},
        {"d copy T col->col, streamed", 0, DMX_DOUBLE, DMX_OP_T, C, C, one, zero, 2,
         DMXI_KERNEL_STREAM},
        {"d copy N col->row (transpose-like)", 0, DMX_DOUBLE, DMX_OP_N, C, R, one, zero, 2, 0},
        {"d naive transpose loop (reference)", 1, DMX_DOUBLE, DMX_OP_T, C, C, one, zero, 2, 0},
        {"d 2*S N (copy-like)", 0, DMX_DOUBLE, DMX_OP_N, C, C, two, zero, 2, 0},
        {"d 2*S^T (transpose-like)", 0, DMX_DOUBLE, DMX_OP_T, C, C, two, zero, 2, 0},
        {"d S+D N (copy-like)", 0, DMX_DOUBLE, DMX_OP_N, C, C, one, one, 3, 0},
        {"d S^T+D (transpose-like)", 0, DMX_DOUBLE, DMX_OP_T, C, C, one, one, 3, 0},
        {"d 2*S^T+2*D (transpose-like)", 0, DMX_DOUBLE, DMX_OP_T, C, C, two, two, 3, 0},
        {"s copy T col->col (transpose-like)", 0, DMX_FLOAT, DMX_OP_T, C, C, one, zero, 2, 0},
        {"z copy C col->col (transpose-like)", 0, DMX_CDOUBLE, DMX_OP_C, C, C, one, zero, 2, 0},
        {"z a*S^H+b*D (transpose-like)", 0, DMX_CDOUBLE, DMX_OP_C, C, C, zc, zc, 3, 0},
    };
    enum { NCASES = sizeof cases / sizeof cases[0] };
    int maxthreads = 1;
#ifdef _OPENMP
    maxthreads = omp_get_num_procs();
#endif
    const int nconf = NCASES * (maxthreads > 1 ? 2 : 1);
    double best[2 * NCASES];
    /* Every array holds n x n doubles' worth of elements plus padding. */
    const int64_t nelem = n * (n + 2 * pad);
    const size_t bytes = (size_t)nelem * sizeof(double);
    const size_t flen = 4 * bytes > ((size_t)1 << 29) ? 4 * bytes : (size_t)1 << 29;
    /* cache-line aligned, so the streamed rows can write whole lines */
    void *sv = NULL, *dv = NULL;
    double *s = posix_memalign(&sv, 64, bytes) == 0 ? sv : NULL;
    double *d = posix_memalign(&dv, 64, bytes) == 0 ? dv : NULL;
    unsigned char *fbuf = malloc(flen);
    if (!s || !d || !fbuf) {
        fprintf(stderr, "bench: out of memory\n");
        free(s), free(d), free(fbuf);
        return 1;
    }
    memset(fbuf, 1, flen);
    for (int64_t k = 0; k < nelem; k++) {
        s[k] = (double)k;
        d[k] = 1.0;
    }
    for (int q = 0; q < nconf; q++)
        best[q] = 1e300;
    /* Single-threaded rounds first: idle OpenMP workers spin for a while after a parallel
     * region and would slow a single thread running next to them. */
    for (int r = 0; r <= 2 * reps + 1; r++) {
        const int q0 = r <= reps ? 0 : NCASES, q1 = r <= reps ? NCASES : nconf;
        for (int q = q0; q < q1; q++) {
            const bcase *b = &cases[q % NCASES];
            const int nt = q < NCASES ? 1 : maxthreads;
            if (b->kind != 0 && nt > 1)
                continue;
#ifdef _OPENMP
            omp_set_num_threads(nt);
#endif
            /* D is rows x n with rows * elem_size == n * 8 bytes: the same bytes for every
             * dtype. */
            const int64_t rows = n * (int64_t)sizeof(double) / (int64_t)elem_size(b->dtype);
            const int64_t sr = b->op == DMX_OP_N ? rows : n, sc = b->op == DMX_OP_N ? n : rows;
            const int64_t sld = (b->so == DMX_COL_MAJOR ? sr : sc) + pad;
            const int64_t dld = (b->dord == DMX_COL_MAJOR ? rows : n) + pad;
            flush_caches(fbuf, flen);
            const double t0 = now();
            if (b->kind < 0) {
                memcpy(d, s, (size_t)(n * n) * sizeof(double));
            } else if (b->kind == 1) {
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++)
                        d[i + j * dld] = s[j + i * sld];
            } else {
                dmxi_kernel_apply_flags(b->dtype, b->op, b->alpha, b->beta, s, sld, b->so, d, dld,
                                        b->dord, rows, n, b->flags);
                dmxi_kernel_fence();
            }
            const double dt = now() - t0;
            if (r != 0 && r != reps + 1 && dt < best[q]) /* first round of each warms up */
                best[q] = dt;
        }
    }
    for (int q = 0; q < nconf; q++) {
        const bcase *b = &cases[q % NCASES];
        const int nt = q < NCASES ? 1 : maxthreads;
        if (b->kind != 0 && nt > 1)
            continue;
        const double moved = (double)b->streams * (double)(n * n) * sizeof(double);
        printf("{\"bench\":\"kernels\",\"case\":\"%s\",\"n\":%lld,\"ld\":%lld,\"threads\":%d,"
               "\"t_min\":%.6f,\"gbps\":%.2f,\"vs_memcpy\":%.2f}\n",
               b->name, (long long)n, (long long)(n + pad), nt, best[q], moved / best[q] / 1e9,
               best[q] / best[0]);
    }
    free(s), free(d), free(fbuf);
    return flush_sink < 0;
}

/* --bench-pack: the pack of the default redistribution benchmark on one thread. 32 x 32 double
 * tiles of a 2048 x 2048 local array (ld 2048, 16 KiB between columns) go into a 128 KiB ring,
 * three tiles of every four down each tile column (the fourth stays local), with op N and T,
 * with S's array on a line (offset 0 and 64) and off it (16, as plain malloc gives). Best of reps
 * passes of 24 MiB each, the configurations interleaved; S is left in memory between passes
 * (32 MiB, over the caches), the ring stays cached as in the engine. */
static int bench_pack(int reps)
{
    enum { M = 2048, RB = 32, RING = 1 << 17 };
    static const int offs[] = {0, 16, 64};
    const dmx_scalar one = {1, 0}, zero = {0, 0};
    unsigned char *raw = NULL, *ring = NULL;
    if (posix_memalign((void **)&raw, 4096, (size_t)M * M * 8 + 4096) != 0 ||
        posix_memalign((void **)&ring, 4096, RING) != 0) {
        fprintf(stderr, "bench-pack: out of memory\n");
        free(raw);
        return 1;
    }
    memset(raw, 1, (size_t)M * M * 8 + 4096);
    memset(ring, 0, RING);
    double best[2][3];
    for (int o = 0; o < 2; o++)
        for (int a = 0; a < 3; a++)
            best[o][a] = 1e300;
    for (int r = 0; r <= reps; r++)
        for (int o = 0; o < 2; o++)
            for (int a = 0; a < 3; a++) {
                const unsigned char *b = raw + offs[a];
                size_t ro = 0;
                const double t0 = now();
                for (int64_t cb = 0; cb < M / RB; cb++)
                    for (int64_t k = 0; k < M / RB; k++) {
                        if (k % 4 == 0)
                            continue;
                        dmxi_kernel_apply(DMX_DOUBLE, o ? DMX_OP_T : DMX_OP_N, one, zero,
                                          b + (size_t)(cb * RB * M + k * RB) * 8, M, DMX_COL_MAJOR,
                                          ring + ro, RB, DMX_COL_MAJOR, RB, RB);
                        ro = (ro + RB * RB * 8) % RING;
                    }
                const double dt = now() - t0;
                if (r > 0 && dt < best[o][a]) /* the first pass warms up */
                    best[o][a] = dt;
            }
    for (int o = 0; o < 2; o++)
        for (int a = 0; a < 3; a++)
            printf("{\"bench\":\"kernels_pack\",\"op\":\"%c\",\"s_offset\":%d,\"t_min\":%.6f}\n",
                   o ? 'T' : 'N', offs[a], best[o][a]);
    free(raw);
    free(ring);
    return 0;
}

/* Whether dtype t is among the dtype names listed in only (any separator; NULL: all). */
static int wanted(const char *only, dmx_dtype t)
{
    if (only == NULL)
        return 1;
    char buf[64];
    snprintf(buf, sizeof buf, ",%s,", only);
    char name[16];
    snprintf(name, sizeof name, ",%s,", dtype_name(t));
    return strstr(buf, name) != NULL;
}

/* --bench-local: the local phase of `dmx bench redist` on one rank, per dtype. An n x n matrix
 * (n = 4096 doubles' worth of bytes per column) is copied tile by tile, b x b element tiles
 * (default 128, as case `same`; 32 as the 32 -> 128 case), from S to D, both from plain malloc
 * (16 bytes off a line), with DMXI_KERNEL_STREAM as the engine sets it for large A. For each
 * dtype and scalar pair, op N (the copy) and op T / C (the transpose) run interleaved; prints
 * the best time of each and the ratio T/N. With OpenMP the tiles of one call are split over
 * omp_get_max_threads() threads by a parallel loop (as the engine's local phase does).
 * `--bench-local TILE REPS DTYPES` times only the dtypes listed (comma-separated names as
 * printed, e.g. double,float). */
static int bench_local(int64_t b, int reps, const char *only)
{
    enum { NBYTES = 4096 * 8 };
    const dmx_scalar one = {1, 0}, zero = {0, 0}, al = {0.5, 0.25}, be = {-1.5, 0.5};
    const dmx_scalar sc[3][2] = {{one, zero}, {al, zero}, {al, be}};
    const size_t bytes = (size_t)NBYTES * NBYTES;
    unsigned char *s = malloc(bytes + 64), *d = malloc(bytes + 64);
    if (!s || !d) {
        fprintf(stderr, "bench-local: out of memory\n");
        free(s), free(d);
        return 1;
    }
    /* S holds nonzero, varying values: zero-filled source pages read measurably faster than real
     * data on this project's VMs (a transpose from zeros ran 1.4x the copy, from real data 2.4x)
     * */
    for (size_t k = 0; k < bytes / sizeof(double); k++)
        ((double *)(void *)s)[k] = 1.0 + (double)(k % 1000003);
    memset(d, 0, bytes);
    double best[4][3][3], bcpu[4][3][3];
    for (int t = 0; t < 4; t++)
        for (int v = 0; v < 3; v++)
            for (int o = 0; o < 3; o++)
                best[t][v][o] = bcpu[t][v][o] = 1e300;
    for (int r = 0; r <= reps; r++)
        for (int t = 0; t < 4; t++)
            for (int v = 0; v < 3; v++)
                for (int o = 0; o < 3; o++) {
                    if ((o == 2 && !is_complex((dmx_dtype)t)) || !wanted(only, (dmx_dtype)t))
                        continue;
                    const int64_t es = (int64_t)elem_size((dmx_dtype)t), n = NBYTES / es;
                    const int64_t nb = n / b;
                    const double t0 = now(), c0 = cpu_now();
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4)
#endif
                    for (int64_t k = 0; k < nb * nb; k++) {
                        const int64_t bi = k % nb, bj = k / nb;
                        const size_t so = (size_t)((o ? bj + bi * n : bi + bj * n) * b * es);
                        const size_t dof = (size_t)((bi + bj * n) * b * es);
                        dmxi_kernel_apply_flags((dmx_dtype)t, (dmx_op)o, sc[v][0], sc[v][1], s + so,
                                                n, DMX_COL_MAJOR, d + dof, n, DMX_COL_MAJOR, b, b,
                                                DMXI_KERNEL_STREAM);
                    }
                    dmxi_kernel_fence();
                    const double dt = now() - t0, dc = cpu_now() - c0;
                    if (r > 0 && dt < best[t][v][o])
                        best[t][v][o] = dt;
                    if (r > 0 && dc < bcpu[t][v][o])
                        bcpu[t][v][o] = dc;
                }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    for (int t = 0; t < 4; t++)
        for (int v = 0; v < 3; v++)
            for (int o = 1; o < 3; o++) {
                if ((o == 2 && !is_complex((dmx_dtype)t)) || !wanted(only, (dmx_dtype)t))
                    continue;
                printf("{\"bench\":\"kernels_local\",\"dtype\":\"%s\",\"op\":\"%c\",\"alpha\":%d,"
                       "\"beta\":%d,\"tile\":%lld,\"threads\":%d,\"t_copy\":%.6f,\"t_op\":%.6f,"
                       "\"ratio\":%.3f,\"cpu_copy\":%.6f,\"cpu_op\":%.6f,\"cpu_ratio\":%.3f}\n",
                       dtype_name((dmx_dtype)t), "NTC"[o], v > 0, v > 1, (long long)b, threads,
                       best[t][v][0], best[t][v][o], best[t][v][o] / best[t][v][0], bcpu[t][v][0],
                       bcpu[t][v][o], bcpu[t][v][o] / bcpu[t][v][0]);
            }
    free(s), free(d);
    return 0;
}

int main(int argc, char **argv)
{
    dmxt_rng_seed(&rng, UINT64_C(0x9E3779B97F4A7C15), 0);
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench(argc > 2 ? atoll(argv[2]) : 4096, argc > 3 ? atoi(argv[3]) : 10,
                     argc > 4 ? atoll(argv[4]) : 0);
    if (argc > 1 && strcmp(argv[1], "--bench-local") == 0)
        return bench_local(argc > 2 ? atoll(argv[2]) : 128, argc > 3 ? atoi(argv[3]) : 5,
                           argc > 4 ? argv[4] : NULL);
    if (argc > 1 && strcmp(argv[1], "--bench-pack") == 0)
        return bench_pack(argc > 2 ? atoi(argv[2]) : 7);

    test_empty();
    test_cross_product();
    test_large_tiles();
    test_scalar_classes();
    test_register_blocks();
    test_streaming();
    test_streaming_off_line();
    test_streaming_edges();
    test_streaming_avx();
    test_staged_panels();
    test_transpose_s_off_line();
    test_rounding();
    test_bit_patterns();
    test_huge_ld();
    test_threads();
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
