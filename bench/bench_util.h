/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers every benchmark shares: clocks, the maximum of a time over ranks, medians, option
 * parsing, JSON string output and aligned allocation. Not part of the library.
 *
 * The timing rule of every dmx benchmark: MPI_Barrier, t0 = MPI_Wtime(), the operation,
 * MPI_Wtime() - t0, then the maximum over ranks (bench_max_over_ranks); implementations that are
 * compared run interleaved in each repetition, and the report is the median over repetitions
 * (bench_median). */
#ifndef DMX_BENCH_UTIL_H
#define DMX_BENCH_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- clocks and reductions ----------------------------------------------------------------- */

/* Wall-clock seconds from timespec_get (for timing without MPI). */
double bench_wall_now(void);

/* CPU seconds of this process (all its threads); 0 if the clock is unavailable. */
double bench_cpu_now(void);

/* Maximum of t over the ranks of comm (MPI_Allreduce). Collective. */
double bench_max_over_ranks(MPI_Comm comm, double t);

/* Sorts v[0..n) (n >= 1) in place and returns its median (mean of the middle two if n is even). */
double bench_median(double *v, int n);

/* ---- option parsing ------------------------------------------------------------------------ */

/* A whole decimal integer >= lo. Returns 0, or -1 if s is not one. */
int bench_parse_i64(const char *s, int64_t lo, int64_t *out);

/* As bench_parse_i64 for an int in [lo, 10^9]. */
int bench_parse_int(const char *s, int lo, int *out);

/* "A<sep>B" with both parts integers >= 1; sep 'x' also accepts 'X'. Returns 0 or -1. */
int bench_parse_pair(const char *s, char sep, int64_t *a, int64_t *b);

/* A finite decimal number >= lo. Returns 0, or -1 if s is not one. */
int bench_parse_double(const char *s, double lo, double *out);

/* A size: a whole decimal count with an optional binary suffix k, M or G (either case: times
 * 2^10, 2^20, 2^30), >= lo and within int64_t. Returns 0, or -1 if s is not one. */
int bench_parse_size(const char *s, int64_t lo, int64_t *out);

/* A comma-separated list of one to max sizes (bench_parse_size), each >= lo. Returns the count,
 * or -1. */
int bench_parse_size_list(const char *s, int64_t lo, int64_t *out, int max);

/* bench_parse_size_list with lo = 0. */
int bench_parse_list(const char *s, int64_t *out, int max);

/* Before MPI_Init: is this the first process of the job (or a lone process)? Lets --help print
 * once without starting MPI. */
int bench_first_process(void);

/* The communicator a benchmark runs dmx on: a duplicate of MPI_COMM_WORLD (under SimGrid's SMPI
 * the simulated ranks share one MPI_COMM_WORLD object and its attributes, docs/scale.md). The
 * simulation build (DMX_SIM_WAIT) makes it with MPI_Comm_create over the world's group, which
 * SMPI shares where MPI_Comm_dup copies it (12 bytes per pair of ranks). Returns MPI's code. */
int bench_world_dup(MPI_Comm *out);

/* ---- output and memory --------------------------------------------------------------------- */

/* Write str as a JSON string literal (quotes included): escapes '"' and '\\', drops control
 * characters. */
void bench_json_string(FILE *out, const char *str);

/* bytes of memory aligned to align bytes (a power of two >= sizeof(void *)), or from plain
 * malloc if align is 0; free it with free(). NULL if out of memory or align is invalid. */
void *bench_alloc_aligned(size_t bytes, int align);

/* End the job after an error message: flush stdout and stderr, sleep 0.3 s so the launcher
 * forwards the message (MPICH's Hydra does not drain it on MPI_Abort), then MPI_Abort. */
_Noreturn void bench_abort(int code);

/* ---- pseudo-random numbers ----------------------------------------------------------------- */

/* splitmix64: advances *state and returns the next 64 random bits. */
uint64_t bench_random_next(uint64_t *state);

#endif /* DMX_BENCH_UTIL_H */
