/* SPDX-License-Identifier: BSD-3-Clause */
/* The measurement engine shared by `dmx bench coll` (bench_coll.c) and `dmx calibrate`
 * (tools/calibrate.c): one collective at one size on MPI_COMM_WORLD, its inputs, MPI's result
 * as the reference, and a timed, verified run of any algorithm. */
#ifndef DMX_BENCH_COLL_H
#define DMX_BENCH_COLL_H

#include "dmx.h"

/* Before MPI_Init: make glibc's allocator keep freed memory (M_MMAP_MAX 0, M_TRIM_THRESHOLD
 * 1 GiB) unless argv has --malloc-default. By default glibc maps a large block fresh (page faults
 * on every first touch) or not, and returns freed heap to the system or not, depending on what
 * was freed before (its mmap threshold adapts up to 32 MiB): a 16 MiB temporary made inside a
 * collective (MPI_Scan's, a dmx algorithm's) then costs a few ms more or less depending on which
 * algorithm ran before it, and the same algorithm measured twice did not agree. Returns 1 if set.
 * Local. */
/* The communicator the benchmark runs on: a duplicate of MPI_COMM_WORLD (bench_coll.c). */
extern MPI_Comm bcoll_world;

int bcoll_steady_malloc(int argc, char **argv);

/* "bytes" is the model's message size m: one rank's block for scatter, gather, allgather,
 * reduce-scatter, alltoall; the whole vector otherwise. Data are MPI_INT (reductions: sum). */
typedef struct bcoll_case {
    dmx_coll_kind kind;
    int64_t bytes, count; /* count = bytes / 4 ints per block or vector */
    int rank, size, root;
    char *in, *out, *ref;
    int64_t in_bytes, out_bytes, cmp_bytes; /* cmp: bytes of out to verify on this rank */
    double sample; /* seconds one sample should last (bcoll_calls); BCOLL_SAMPLE from setup */
} bcoll_case;

/* Allocate, fill and compute MPI's reference. Returns 0, or -1 if memory is short (every rank
 * agrees). Collective on MPI_COMM_WORLD. */
int bcoll_setup(bcoll_case *c, dmx_coll_kind kind, int64_t bytes);
void bcoll_free(bcoll_case *c);
/* One timed sample: one untimed call, barrier, `calls` calls of the algorithm back to back, the
 * elapsed time / calls, max over ranks. Only the last call's output is left to check, and it is
 * checked: *wrong = number of ranks whose output differs from the reference (or whose call failed).
 * The broadcast root's buffer is filled before the clock starts. Collective. */
double bcoll_time(bcoll_case *c, dmx_coll_alg alg, int calls, int *wrong);
/* Calls per sample so that one sample lasts about @p sample seconds (BCOLL_SAMPLE by default: a
 * single call of a few hundred ns after a barrier is mostly the barrier's skew), given one call's
 * time; 1 for calls longer than that (and for sample <= 0), at most BCOLL_MAX_CALLS. Every rank
 * gets the same answer from the same t_call. Local. */
#define BCOLL_SAMPLE 200e-6
#define BCOLL_MAX_CALLS 4096
int bcoll_calls(double t_call, double sample);
/* Measure algs[0..na) (dmx_coll_alg values, na <= BCOLL_MAXALGS) on c: warm-up, calls per
 * sample by bcoll_calls (c->sample), then `reps` rounds (reps <= 0: as many as `budget` seconds
 * allow, 7 to max_reps, at most 64), each round every algorithm once, starting with a different
 * one. med[i] = median over rounds of algs[i]'s time per call (max over ranks); wrong[i] = wrong
 * results summed over samples; *calls_out = calls per sample. Returns the rounds. Collective. */
#define BCOLL_MAXALGS 16
int bcoll_measure(bcoll_case *c, const int *algs, int na, int reps, double budget, int max_reps,
                  double *med, int *wrong, int *calls_out);
/* The model's prediction on MPI_COMM_WORLD's node count; -1 if none. */
double bcoll_predict(const bcoll_case *c, dmx_coll_alg alg, dmx_coll_alg *chosen);
/* Nodes spanned by MPI_COMM_WORLD. Collective (first call). */
int bcoll_nodes(void);
/* A comma-separated list of collective names (is_alg 0: dmx_coll_kind_name) or algorithm names
 * (is_alg 1: dmx_coll_alg_name): sel[i] = 1 for each named one of the n, 0 for the others.
 * Returns 0, or -1 if a name is unknown. Local. */
int bcoll_parse_names(const char *s, int *sel, int n, int is_alg);

#endif
