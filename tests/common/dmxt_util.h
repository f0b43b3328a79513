/* SPDX-License-Identifier: BSD-3-Clause */
/* The part of the test harness every dmx test uses, with or without MPI (tests/common):
 *  - the one random number generator of the tests (xoshiro256**, seeded through splitmix64),
 *    identical on every rank for the same seed and stream;
 *  - ScaLAPACK index arithmetic (numroc, indxg2p, ...) written independently of dmx;
 *  - the pass/fail counter and the closing line "N passed, N failed".
 * dmxtest.h builds on it for MPI tests (formula fill, test matrices, serial reference, result
 * reduction over ranks). Library: dmxt_util (no dependencies). */
#ifndef DMXT_UTIL_H
#define DMXT_UTIL_H

#include <stdint.h>

/* ---------------------------------------------------------------------------------------- */
/* Random numbers (xoshiro256**), identical on every rank for the same seed and stream.      */
/* ---------------------------------------------------------------------------------------- */

typedef struct dmxt_rng {
    uint64_t s[4];
} dmxt_rng;

/* splitmix64: advances *x and returns 64 mixed bits (the seeding step of dmxt_rng). */
uint64_t dmxt_splitmix64(uint64_t *x);

void dmxt_rng_seed(dmxt_rng *r, uint64_t seed, uint64_t stream);
uint64_t dmxt_rng_next(dmxt_rng *r);
/* Uniform integer in [lo, hi] (lo <= hi). */
int64_t dmxt_rng_int(dmxt_rng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double dmxt_rng_unit(dmxt_rng *r);
/* 1 with probability percent/100. */
int dmxt_rng_chance(dmxt_rng *r, int percent);
/* Shuffle n ints. */
void dmxt_rng_shuffle(dmxt_rng *r, int *a, int n);

/* ---------------------------------------------------------------------------------------- */
/* ScaLAPACK index arithmetic, 0-based indices and process coordinates.                     */
/* ---------------------------------------------------------------------------------------- */

/* Number of the n rows (or columns) dealt in nb-blocks over nprocs processes starting at isrc
 * that process iproc owns. */
int64_t dmxt_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);
/* Process owning global index g. */
int dmxt_indxg2p(int64_t g, int64_t nb, int isrc, int nprocs);
/* Local index of global index g on its owner. */
int64_t dmxt_indxg2l(int64_t g, int64_t nb, int nprocs);
/* Global index of local index l on process iproc. */
int64_t dmxt_indxl2g(int64_t l, int64_t nb, int iproc, int isrc, int nprocs);

/* ---------------------------------------------------------------------------------------- */
/* Pass/fail counter.                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* Checks of one process (MPI tests reduce them over ranks first: see dmxt_case_end). */
typedef struct dmxt_count {
    int64_t passed, failed;
} dmxt_count;

/* Count a check of cond; on failure print "FAIL file:line: " and the message (printf format;
 * the arguments are only evaluated on failure). */
#define DMXT_EXPECT(count, cond, ...)                                                              \
    do {                                                                                           \
        if (cond)                                                                                  \
            (count)->passed++;                                                                     \
        else                                                                                       \
            dmxt_count_fail((count), __FILE__, __LINE__, __VA_ARGS__);                             \
    } while (0)

/* Count one failure and print "FAIL file:line: <message>" on stdout. */
void dmxt_count_fail(dmxt_count *c, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Print the closing line "N passed, N failed" on stdout. */
void dmxt_count_print(const dmxt_count *c);

/* The exit status of a test program: 0 if nothing failed, else 1. */
int dmxt_count_exit_code(const dmxt_count *c);

/* A watchdog for a test that might hang: after @p seconds, write @p message (copied, at most
 * 255 bytes) to file descriptor @p fd and end the process with exit code 3. Once per process;
 * seconds 0 turns it off. */
void dmxt_watchdog(unsigned seconds, int fd, const char *message);

/* Before a test ends the job with MPI_Abort: flush stdout and stderr, then sleep 0.3 s, so the
 * launcher forwards the line that says why. MPICH's launcher (Hydra) kills the job without
 * draining what the aborting process has written (the library's default error handler pauses
 * the same way, src/core/error.c). */
void dmxt_flush_before_abort(void);

#endif /* DMXT_UTIL_H */
