/* SPDX-License-Identifier: BSD-3-Clause */
/* The part of the test harness every dmx test uses, MPI or not: see dmxt_util.h. */
#define _POSIX_C_SOURCE 200809L /* write, alarm, nanosleep */

#include "dmxt_util.h"

#include <signal.h>
#include <unistd.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------- */
/* RNG                                                                                      */
/* ---------------------------------------------------------------------------------------- */

uint64_t dmxt_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void dmxt_rng_seed(dmxt_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    for (int i = 0; i < 4; i++)
        r->s[i] = dmxt_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t dmxt_rng_next(dmxt_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

int64_t dmxt_rng_int(dmxt_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(dmxt_rng_next(r) % span);
}

double dmxt_rng_unit(dmxt_rng *r)
{
    return (double)(dmxt_rng_next(r) >> 11) * 0x1.0p-53;
}

int dmxt_rng_chance(dmxt_rng *r, int percent)
{
    return dmxt_rng_int(r, 0, 99) < percent;
}

void dmxt_rng_shuffle(dmxt_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)dmxt_rng_int(r, 0, i);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* ScaLAPACK index arithmetic                                                               */
/* ---------------------------------------------------------------------------------------- */

int64_t dmxt_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    int mydist = (nprocs + iproc - isrc) % nprocs;
    int64_t nblocks = n / nb;
    int64_t num = (nblocks / nprocs) * nb;
    int64_t extra = nblocks % nprocs;
    if (mydist < extra)
        num += nb;
    else if (mydist == extra)
        num += n % nb;
    return num;
}

int dmxt_indxg2p(int64_t g, int64_t nb, int isrc, int nprocs)
{
    return (int)((isrc + g / nb) % nprocs);
}

int64_t dmxt_indxg2l(int64_t g, int64_t nb, int nprocs)
{
    return (g / (nb * nprocs)) * nb + g % nb;
}

int64_t dmxt_indxl2g(int64_t l, int64_t nb, int iproc, int isrc, int nprocs)
{
    return (int64_t)nprocs * nb * (l / nb) + l % nb + ((nprocs + iproc - isrc) % nprocs) * nb;
}

/* ---------------------------------------------------------------------------------------- */
/* Pass/fail counter                                                                        */
/* ---------------------------------------------------------------------------------------- */

void dmxt_count_fail(dmxt_count *c, const char *file, int line, const char *fmt, ...)
{
    c->failed++;
    printf("FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

void dmxt_count_print(const dmxt_count *c)
{
    printf("%lld passed, %lld failed\n", (long long)c->passed, (long long)c->failed);
    fflush(stdout);
}

int dmxt_count_exit_code(const dmxt_count *c)
{
    return c->failed == 0 ? 0 : 1;
}

static char watchdog_msg[256];
static int watchdog_fd = 2;

static void watchdog_fire(int sig)
{
    (void)sig;
    ssize_t w = write(watchdog_fd, watchdog_msg, strlen(watchdog_msg));
    (void)w;
    _exit(3);
}

void dmxt_watchdog(unsigned seconds, int fd, const char *message)
{
    snprintf(watchdog_msg, sizeof watchdog_msg, "%s", message);
    watchdog_fd = fd;
    signal(SIGALRM, watchdog_fire);
    alarm(seconds);
}

void dmxt_flush_before_abort(void)
{
    fflush(stdout);
    fflush(stderr);
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
}
