/* SPDX-License-Identifier: BSD-3-Clause */
/* Local kernels of the multiply: CBLAS calls for the four element types, scaling and copying
 * of column-major blocks. No communication, no temporary memory. */
#include "dmx/gemm.h"
#include "gemm_internal.h"

#include <cblas.h>
#include <complex.h>
#include <string.h>

#ifdef DMX_SIM_FLOPS
#include <smpi/smpi.h> /* SimGrid builds (scripts/simulate.sh): multiplies as simulated flops */
#endif

MPI_Datatype dmxi_gemm_mpi_type(dmx_dtype t)
{
    switch (t) {
    case DMX_FLOAT: return MPI_FLOAT;
    case DMX_DOUBLE: return MPI_DOUBLE;
    case DMX_CFLOAT: return MPI_C_FLOAT_COMPLEX;
    default: return MPI_C_DOUBLE_COMPLEX;
    }
}

int dmxi_gemm_is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

int64_t dmxi_gemm_sim_panels(int64_t n)
{
#ifdef DMX_SIM_FLOPS
    /* Simulation only (scripts/simulate.sh, SIM_PANELS): the first K panels (Cannon: steps)
     * of n, the same messages as the whole run's first K; the script extrapolates the time. */
    int64_t k = dmxi_setting_int(DMXI_SET_SIM_PANELS);
    if (k > 0 && k < n)
        return k;
#endif
    return n;
}

/* Sizes reach CBLAS as int (blasint in OpenBLAS's LP64 build); the plan checked them. */
void dmxi_gemm_local(dmx_dtype t, int64_t m, int64_t n, int64_t k, dmx_scalar alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb, dmx_scalar beta, void *c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        dmxi_gemm_scale(t, m, n, beta, c, ldc);
        return;
    }
#ifdef DMX_SIM_FLOPS
    /* Simulation only: charge the multiply's flops to the simulated host instead of running it
     * (the result is not computed), so simulated times do not depend on the real machine's load. */
    (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    smpi_execute_flops((t >= DMX_CFLOAT ? 8.0 : 2.0) * (double)m * (double)n * (double)k);
    return;
#endif
    int M = (int)m, N = (int)n, K = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    switch (t) {
    case DMX_FLOAT:
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, (float)alpha.re, a, la, b,
                    lb, (float)beta.re, c, lc);
        break;
    case DMX_DOUBLE:
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha.re, a, la, b, lb,
                    beta.re, c, lc);
        break;
    case DMX_CFLOAT: {
        float al[2] = {(float)alpha.re, (float)alpha.im}, be[2] = {(float)beta.re, (float)beta.im};
        cblas_cgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, al, a, la, b, lb, be, c,
                    lc);
        break;
    }
    default: {
        double al[2] = {alpha.re, alpha.im}, be[2] = {beta.re, beta.im};
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, al, a, la, b, lb, be, c,
                    lc);
        break;
    }
    }
}

void dmxi_gemm_scale(dmx_dtype t, int64_t m, int64_t n, dmx_scalar beta, void *c, int64_t ldc)
{
    size_t esz = dmx_dtype_size(t);
    if (m <= 0 || n <= 0) /* an empty block may have no memory at all (c NULL) */
        return;
    for (int64_t j = 0; j < n; j++) {
        void *col = (char *)c + (size_t)(j * ldc) * esz;
        if (dmxi_gemm_is_zero(beta)) {
            memset(col, 0, (size_t)m * esz);
            continue;
        }
        for (int64_t i = 0; i < m; i++) {
            switch (t) {
            case DMX_FLOAT: ((float *)col)[i] *= (float)beta.re; break;
            case DMX_DOUBLE: ((double *)col)[i] *= beta.re; break;
            case DMX_CFLOAT:
                ((float complex *)col)[i] *= (float)beta.re + (float)beta.im * I;
                break;
            default: ((double complex *)col)[i] *= beta.re + beta.im * I; break;
            }
        }
    }
}

void dmxi_gemm_copy(size_t esz, int64_t m, int64_t n, const void *src, int64_t lds, void *dst,
                    int64_t ldd)
{
    if (m <= 0 || n <= 0)
        return;
    if (lds == m && ldd == m) {
        memcpy(dst, src, (size_t)(m * n) * esz);
        return;
    }
    for (int64_t j = 0; j < n; j++)
        memcpy((char *)dst + (size_t)(j * ldd) * esz, (const char *)src + (size_t)(j * lds) * esz,
               (size_t)m * esz);
}
