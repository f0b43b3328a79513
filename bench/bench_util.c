/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers every benchmark shares; see bench_util.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_memalign, nanosleep */
#include "bench_util.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_wall_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_max_over_ranks(MPI_Comm comm, double t)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_parse_i64(const char *s, int64_t lo, int64_t *out)
{
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int bench_parse_double(const char *s, double lo, double *out)
{
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !(v >= lo) || v > DBL_MAX)
        return -1;
    *out = v;
    return 0;
}

/* A size at s (see bench_parse_size) ending at *end. */
static int size_at(const char *s, int64_t lo, int64_t *out, const char **end)
{
    char *e = NULL;
    if (*s < '0' || *s > '9') /* no sign, no space: a count */
        return -1;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (e == s || errno == ERANGE)
        return -1;
    int shift = 0;
    switch (*e) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    default: break;
    }
    if (shift) {
        if (v > (INT64_MAX >> shift))
            return -1;
        v <<= shift;
        e++;
    }
    if (v < lo)
        return -1;
    *out = (int64_t)v;
    *end = e;
    return 0;
}

int bench_parse_size(const char *s, int64_t lo, int64_t *out)
{
    const char *end = NULL;
    int64_t v = 0;
    if (s == NULL || size_at(s, lo, &v, &end) != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int bench_parse_size_list(const char *s, int64_t lo, int64_t *out, int max)
{
    int n = 0;
    if (s == NULL || *s == '\0')
        return -1;
    for (;;) {
        const char *end = NULL;
        if (n == max || size_at(s, lo, &out[n], &end) != 0)
            return -1;
        n++;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

int bench_parse_int(const char *s, int lo, int *out)
{
    int64_t v;
    if (bench_parse_i64(s, lo, &v) != 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

int bench_parse_pair(const char *s, char sep, int64_t *a, int64_t *b)
{
    char buf[64];
    if (s == NULL || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *mid = strchr(buf, sep);
    if (mid == NULL && sep == 'x')
        mid = strchr(buf, 'X');
    if (mid == NULL)
        return -1;
    *mid = '\0';
    return bench_parse_i64(buf, 1, a) == 0 && bench_parse_i64(mid + 1, 1, b) == 0 ? 0 : -1;
}

int bench_parse_list(const char *s, int64_t *out, int max)
{
    return bench_parse_size_list(s, 0, out, max);
}

int bench_first_process(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *v = getenv(vars[k]);
        if (v != NULL)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

int bench_world_dup(MPI_Comm *out)
{
#ifdef DMX_SIM_WAIT
    MPI_Group grp = MPI_GROUP_NULL;
    int rc = MPI_Comm_group(MPI_COMM_WORLD, &grp);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_create(MPI_COMM_WORLD, grp, out);
    MPI_Group_free(&grp);
    return rc;
#else
    return MPI_Comm_dup(MPI_COMM_WORLD, out);
#endif
}

void bench_json_string(FILE *out, const char *str)
{
    fputc('"', out);
    for (const char *p = str; *p; p++)
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if ((unsigned char)*p >= 0x20)
            fputc(*p, out);
    fputc('"', out);
}

void *bench_alloc_aligned(size_t bytes, int align)
{
    if (align == 0)
        return malloc(bytes);
    void *p = NULL;
    return posix_memalign(&p, (size_t)align, bytes) == 0 ? p : NULL;
}

uint64_t bench_random_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

_Noreturn void bench_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    abort(); /* MPI_Abort does not return */
}
