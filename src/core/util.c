/* SPDX-License-Identifier: BSD-3-Clause */
/* Checked integer arithmetic, allocation, hashing and environment settings. */
#include "dmxi.h"

#include <string.h>

size_t dmx_dtype_size(dmx_dtype t)
{
    switch (t) {
    case DMX_FLOAT: return sizeof(float);
    case DMX_DOUBLE: return sizeof(double);
    case DMX_CFLOAT: return 2 * sizeof(float);
    case DMX_CDOUBLE: return 2 * sizeof(double);
    }
    return 0;
}

dmx_status dmxi_to_int(int64_t v, int *out, const char *what)
{
    if (v < INT_MIN || v > INT_MAX)
        return dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__,
                          "%s = %lld does not fit in an int (MPI count)", what, (long long)v);
    *out = (int)v;
    return DMX_SUCCESS;
}

/* The compiler's overflow test where there is one, not a 64-bit division: the drop-in's tiny
 * path makes two of these checks per call, and with the division they were about 6 % of a 1 x 1
 * pdtran_ in perf (docs/scalapack.md). */
dmx_status dmxi_mul64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r = 0;
#if defined(__GNUC__)
    int over = __builtin_mul_overflow(a, b, &r);
#else
    int over = a != 0 && b > INT64_MAX / a;
    if (!over)
        r = a * b;
#endif
    if (a < 0 || b < 0 || over)
        return dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__, "%lld * %lld overflows 64 bits",
                          (long long)a, (long long)b);
    *out = r;
    return DMX_SUCCESS;
}

dmx_status dmxi_add64(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__, "%lld + %lld overflows 64 bits",
                          (long long)a, (long long)b);
    *out = a + b;
    return DMX_SUCCESS;
}

void *dmxi_malloc(int64_t n, size_t sz)
{
    if (n < 0 || (sz != 0 && (uint64_t)n > SIZE_MAX / sz))
        return NULL;
    size_t bytes = (size_t)n * sz;
    return malloc(bytes ? bytes : 1);
}

void *dmxi_calloc(int64_t n, size_t sz)
{
    if (n < 0 || (sz != 0 && (uint64_t)n > SIZE_MAX / sz))
        return NULL;
    return calloc(n ? (size_t)n : 1, sz ? sz : 1);
}

dmx_status dmxi_reserve(void **arr, int64_t *cap, int64_t need, size_t sz)
{
    if (need <= *cap)
        return DMX_SUCCESS;
    int64_t ncap = *cap > 0 ? *cap : 8;
    while (ncap < need)
        ncap = ncap > INT64_MAX / 2 ? need : 2 * ncap;
    if ((uint64_t)ncap > SIZE_MAX / sz)
        return dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__, "array of %lld items too large",
                          (long long)ncap);
    void *p = realloc(*arr, (size_t)ncap * sz);
    if (!p)
        return dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory (%lld items)",
                          (long long)ncap);
    *arr = p;
    *cap = ncap;
    return DMX_SUCCESS;
}

uint64_t dmxi_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* GCC 12 reads MPICH's MPI_Status array parameter as needing n statuses and warns
 * (-Wstringop-overflow) on MPI_STATUSES_IGNORE, a constant that is no array; this is the one
 * place that holds the exemption. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int dmxi_testall(int n, MPI_Request *req, int *flag)
{
    return MPI_Testall(n, req, flag, MPI_STATUSES_IGNORE);
}

int dmxi_waitall(int n, MPI_Request *req)
{
#ifdef DMX_SIM_WAIT
    /* Simulation builds: SimGrid 3.32's MPI_Waitall is an MPI_Waitany per request, each of which
     * tests every request still pending (n^2 / 2 tests); one MPI_Wait per request in order ends
     * at the same simulated time, the last completion (src/exec/engine.c, sim_next_recv). */
    for (int i = 0; i < n; i++) {
        const int rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
#else
    return MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
#endif
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

MPI_Info dmxi_info_hints(dmx_status *out, const char *const *kv, int n)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Info info = MPI_INFO_NULL;
    int made = 0;
    DMXI_MPI(MPI_Info_create(&info));
    made = 1;
    for (int i = 0; i < n; i++)
        DMXI_MPI(MPI_Info_set(info, kv[2 * i], kv[2 * i + 1]));
    return info;
cleanup:
    if (made)
        DMXI_MPI_ALL(MPI_Info_free(&info));
    if (*out == DMX_SUCCESS)
        *out = st;
    return MPI_INFO_NULL;
}
