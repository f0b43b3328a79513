/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of `dmx bench rma` (bench_rma.c: strided put/get, bench_rma_patch.c: patch
 * fetch against pdgemr2d, bench_rma_options.c: the command line). */
#ifndef BENCH_RMA_H
#define BENCH_RMA_H

#include <mpi.h>
#include <stdint.h>

typedef struct bench_rma_opts {
    int json, reps, warmup, strided, patch;
    int64_t mib;
    int nblocks;
    int64_t blocks[16];
    int nshm;
    int shm[2];
    int nops;
    int ops[2]; /* 0 put, 1 get */
    int64_t patch_n, patch_m, patch_nb;
    int patch_reps;
} bench_rma_opts;

/* Parse the command line into o (which holds the defaults): CLI_RUN, CLI_HELP or CLI_ERROR
 * (bench_rma_options.c). */
int bench_rma_parse(int argc, char **argv, bench_rma_opts *o);

/* The one-sided component as given on the mpirun command line ("default" if none). */
const char *bench_rma_osc(void);

/* Patch fetch benchmark; returns the number of wrong results on this rank. */
int64_t bench_rma_patch(const bench_rma_opts *o);

#endif
