/* SPDX-License-Identifier: BSD-3-Clause */
/* Copy-like local kernels: D = alpha * op(S) + beta * D on a tile whose columns of D are filled
 * from contiguous columns of op(S) (kernels_impl.h: the normalized problem), and the operations
 * that read only D (zero fill, D = beta*D).
 *
 * Algorithm: one contiguous loop per column, a memcpy (or non-temporal copy, with streaming)
 * for the bit copy, dmxi_copy_short_runs (core/shortcopy.h) for many short bit-copied columns;
 * columns of S at most PREFETCH_RUN_BYTES long are prefetched PREFETCH_COLS columns ahead.
 * Cost: each element of S read once, each element of D read at most once and written once; a
 * packed tile (both ld == rows) is one long column (kernels.c collapses it). Measured: memcpy
 * speed (bench/kernels_note.md). */
#include "kernels_impl.h"
#include "ntstore.h"
#include "shortcopy.h"

/* Copy-like tiles whose columns of S are at most PREFETCH_RUN_BYTES long (and not packed into
 * one) prefetch S's column PREFETCH_COLS ahead: such columns are short runs far apart (a 32 x 32
 * block of a local array with ld 2048: 256 bytes every 16 KiB), which the hardware prefetchers
 * do not follow, so each run's lines were fetched only when the copy reached them. */
#define PREFETCH_RUN_BYTES 1024
#define PREFETCH_COLS 4

/* Prefetch the cache lines of the n bytes at p for reading. */
static ALWAYS_INLINE void prefetch_run(const void *p, size_t n)
{
    const uintptr_t end = (uintptr_t)p + n;
    for (uintptr_t a = (uintptr_t)p - (uintptr_t)p % CACHE_LINE; a < end; a += CACHE_LINE)
        PREFETCH_R((const void *)a);
}

/* Copy n bytes; with stream set, every byte of d non-temporally, partial edge lines included
 * (core/ntstore.h says why). A run shorter than a few lines is copied normally, unless it starts
 * on a line (edge_join.c's runs: whole lines, nothing partial in front). */
static ALWAYS_INLINE void copy_bytes(void *restrict d, const void *restrict s, size_t n, int stream)
{
    if (stream && (n >= 4 * CACHE_LINE || (n >= CACHE_LINE && (uintptr_t)d % CACHE_LINE == 0)))
        dmxi_nt_copy(d, s, n);
    else
        memcpy(d, s, n);
}

static void zero_fill(const kjob *job, int64_t m, int64_t n, const void *s, void *d)
{
    (void)s;
    const size_t col = (size_t)m * job->esz;
    const int64_t ldb = job->ldd * (int64_t)job->esz;
    for (int64_t j = 0; j < n; j++)
        memset((char *)d + j * ldb, 0, col);
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

/* The copy-like (cl) loop of one operation. */
#define DEFINE_CL_KERNELS(ch, R, NC, name, OP, CJ)                                                 \
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
    }

/* Everything for one dtype, plus its table fns[op][conjugate]. */
#define DEFINE_TYPE_KERNELS(ch, R, NC)                                                             \
    DEFINE_ELEM(ch, R, NC)                                                                         \
    DEFINE_SCALD(ch, R, NC)                                                                        \
    DEFINE_CL_KERNELS(ch, R, NC, copy, KOP_COPY, 0)                                                \
    DEFINE_CL_KERNELS(ch, R, NC, copyc, KOP_COPY, 1)                                               \
    DEFINE_CL_KERNELS(ch, R, NC, scal, KOP_SCAL, 0)                                                \
    DEFINE_CL_KERNELS(ch, R, NC, scalc, KOP_SCAL, 1)                                               \
    DEFINE_CL_KERNELS(ch, R, NC, add, KOP_ADD, 0)                                                  \
    DEFINE_CL_KERNELS(ch, R, NC, addc, KOP_ADD, 1)                                                 \
    DEFINE_CL_KERNELS(ch, R, NC, axpy, KOP_AXPY, 0)                                                \
    DEFINE_CL_KERNELS(ch, R, NC, axpyc, KOP_AXPY, 1)                                               \
    DEFINE_CL_KERNELS(ch, R, NC, axpby, KOP_AXPBY, 0)                                              \
    DEFINE_CL_KERNELS(ch, R, NC, axpbyc, KOP_AXPBY, 1)                                             \
    static const kfn ch##_fns[KOP_COUNT][2] = {{ch##_copy_cl, ch##_copyc_cl},                      \
                                               {ch##_scal_cl, ch##_scalc_cl},                      \
                                               {ch##_add_cl, ch##_addc_cl},                        \
                                               {ch##_axpy_cl, ch##_axpyc_cl},                      \
                                               {ch##_axpby_cl, ch##_axpbyc_cl}};

DEFINE_TYPE_KERNELS(s, float, 1)
DEFINE_TYPE_KERNELS(d, double, 1)
DEFINE_TYPE_KERNELS(c, float, 2)
DEFINE_TYPE_KERNELS(z, double, 2)

kfn dmxi_kernel_copy_fn(dmx_dtype dt, enum kop k, int conj)
{
    switch (dt) {
    case DMX_FLOAT: return s_fns[k][conj];
    case DMX_DOUBLE: return d_fns[k][conj];
    case DMX_CFLOAT: return c_fns[k][conj];
    default: return z_fns[k][conj];
    }
}

kfn dmxi_kernel_donly_fn(dmx_dtype dt, int zero)
{
    if (zero)
        return zero_fill;
    switch (dt) {
    case DMX_FLOAT: return s_scald;
    case DMX_DOUBLE: return d_scald;
    case DMX_CFLOAT: return c_scald;
    default: return z_scald;
    }
}
