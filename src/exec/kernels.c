/* SPDX-License-Identifier: BSD-3-Clause */
/* Local transform kernels: D = alpha * op(S) + beta * D on one rows x cols tile; this file
 * normalizes the problem and dispatches (kernels_impl.h lists the files of the kernels).
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
 *  3. Copy-like tiles go to kernels_copy.c, transpose-like ones to kernels_transpose.c (their
 *     headers say how each walks its tile).
 *  4. With OpenMP, a tile of OMP_MIN_BYTES or more is split over the threads by
 *     column ranges (or row ranges for a tall, narrow tile).
 *
 * Cost: each element of S is read at most once and each element of D read at most once and
 * written once.
 * The s/d/c/z kernels are stamped out of one definition (DEFINE_TYPE_KERNELS); complex
 * elements are interleaved (re, im) pairs of the real type. */
#include "kernels.h"
#include "dmxi.h"
#include "kernels_impl.h"
#include "ntstore.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Tiles of at least this many bytes of D are split over OpenMP threads: 64 KiB or more for each
 * of two threads, the engine's threshold for a group of tiles (engine.c, PAR_MIN_BYTES: a fork
 * and join costs a few microseconds, 64 KiB take 5-10 to copy). Was 65536 elements (512 KiB of
 * doubles), so a single tile of 64-512 KiB, such as a 128 x 128 block of complex doubles, ran on
 * one thread. */
#define OMP_MIN_BYTES ((int64_t)128 * 1024)
/* Row ranges given to threads are multiples of this many elements (keeps cache lines apart). */
#define OMP_ROW_ALIGN 64
/* Column ranges of a transpose-like tile given to threads are multiples of this many (a cache
 * line of S's rows for floats; was 256, which gave a tile of up to 256 columns to one thread). */
#define OMP_COL_ALIGN 16

void dmxi_kernel_fence(void)
{
    dmxi_nt_fence();
}

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
    if (nthreads > 1 && job->m >= OMP_MIN_BYTES / (int64_t)job->esz / job->n) {
#pragma omp parallel num_threads(nthreads)
        {
            const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
            /* Split columns if there are enough of them, else rows. */
            const int by_cols = job->n >= nt;
            const int64_t len = by_cols ? job->n : job->m;
            const int64_t align = by_cols ? (job->transposed ? OMP_COL_ALIGN : 1) : OMP_ROW_ALIGN;
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

    kjob job;
    switch (dtype) {
    case DMX_FLOAT: job.esz = sizeof(float); break;
    case DMX_DOUBLE: job.esz = sizeof(double); break;
    case DMX_CFLOAT: job.esz = 2 * sizeof(float); break;
    case DMX_CDOUBLE: job.esz = 2 * sizeof(double); break;
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
    job.fallback = NULL;

    if (alpha0) {
        if (beta1)
            return;
        job.s = NULL;
        job.transposed = 0;
        job.fn = dmxi_kernel_donly_fn(dtype, beta0);
        job.sri = job.scj = 0;
    } else {
        enum kop k = KOP_AXPBY;
        if (beta0)
            k = alpha1 ? KOP_COPY : KOP_SCAL;
        else if (beta1)
            k = alpha1 ? KOP_ADD : KOP_AXPY;
        job.fn = job.transposed ? dmxi_kernel_transpose_fn(&job, dtype, k, conj)
                                : dmxi_kernel_copy_fn(dtype, k, conj);
    }

    /* Packed copy-like columns (or a D-only operation on packed D) collapse into one column. */
    if (!job.transposed && job.n > 1 && job.ldd == job.m && (job.s == NULL || job.scj == job.m)) {
        job.m *= job.n;
        job.n = 1;
    }
    run(&job);
}
