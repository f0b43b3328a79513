/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenSHMEM reference for `dmx bench rma`: strided put of MIB MiB of doubles in blocks of b
 * elements at a stride of 2b on both sides, PE r -> PE (r+1) % npes, with what OpenSHMEM 1.4
 * offers (Open MPI's oshmem has no ibput):
 *   oshmem_iput     b calls of shmem_double_iput, one per element column of the blocks;
 *   oshmem_put_nbi  one shmem_double_put_nbi per block (how Sandia OpenSHMEM does ibput);
 *   oshmem_fig2     the seed's Figure 2 reference APUT: iput columns if b < blocks, else one
 *                   blocking shmem_double_put per block.
 * Each repetition: shmem_barrier_all, wall clock around the operation and shmem_quiet, the
 * maximum over PEs; methods interleaved; median printed. Every result is verified.
 * Built by bench/rma_compare.sh with oshcc (not part of the CMake build, which compiles the .c
 * files directly in bench/ into the dmx program); run with `oshrun --mca osc ^rdma` (Open MPI 4.1's
 * oshmem crashes in shmem_finalize otherwise). oshrun -n P --mca osc ^rdma ./oshmem_aput [--mib 8]
 * [--blocks 1,8,64,512,4096] [--reps 5] */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double tin, tout;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double max_over_pes(double t)
{
    tin = t;
    shmem_barrier_all();
    shmem_double_max_to_all(&tout, &tin, 1, 0, 0, shmem_n_pes(), pwrk, psync);
    shmem_barrier_all();
    return tout;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long mib = 8, reps = 5, blocks[16] = {1, 8, 64, 512, 4096};
    int nblocks = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mib") == 0)
            mib = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--blocks") == 0) {
            nblocks = 0;
            for (char *t = strtok(argv[i + 1], ","); t && nblocks < 16; t = strtok(NULL, ","))
                blocks[nblocks++] = atol(t);
        }
    }
    shmem_init();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    int me = shmem_my_pe(), np = shmem_n_pes(), pe = (me + 1) % np, from = (me - 1 + np) % np;
    long E = mib * 1024 * 1024 / 8;
    double *dst = shmem_malloc((size_t)(2 * E) * sizeof(double));
    double *src = malloc((size_t)(2 * E) * sizeof(double));
    double *times = malloc((size_t)(3 * reps) * sizeof(double));
    const char *names[3] = {"oshmem_iput", "oshmem_put_nbi", "oshmem_fig2"};
    long bad_total = 0;
    for (long k = 0; k < 2 * E; k++)
        src[k] = me * 1e8 + (double)k + 1;
    for (int bi = 0; bi < nblocks; bi++) {
        long b = blocks[bi];
        if (b <= 0 || E % b != 0)
            continue;
        long cnt = E / b, st = 2 * b, wrong[3] = {0, 0, 0};
        for (long rep = -1; rep < reps; rep++)
            for (int m = 0; m < 3; m++) {
                memset(dst, 0, (size_t)(2 * E) * sizeof(double));
                shmem_barrier_all();
                double t0 = now();
                if (m == 0 || (m == 2 && b < cnt)) {
                    for (long e = 0; e < b; e++)
                        shmem_double_iput(dst + e, src + e, st, st, (size_t)cnt, pe);
                } else if (m == 1) {
                    for (long k = 0; k < cnt; k++)
                        shmem_double_put_nbi(dst + k * st, src + k * st, (size_t)b, pe);
                } else {
                    for (long k = 0; k < cnt; k++)
                        shmem_double_put(dst + k * st, src + k * st, (size_t)b, pe);
                }
                shmem_quiet();
                double t = max_over_pes(now() - t0);
                long bad = 0;
                for (long k = 0; k < 2 * E; k++) {
                    double want = (k % st) < b ? from * 1e8 + (double)k + 1 : 0.0;
                    bad += dst[k] != want;
                }
                wrong[m] += (long)max_over_pes((double)bad);
                if (rep >= 0)
                    times[m * reps + rep] = t;
            }
        for (int m = 0; m < 3; m++) {
            qsort(times + m * reps, (size_t)reps, sizeof(double), cmp);
            double tm = reps % 2
                            ? times[m * reps + reps / 2]
                            : 0.5 * (times[m * reps + reps / 2 - 1] + times[m * reps + reps / 2]);
            bad_total += wrong[m];
            if (me == 0)
                printf("{\"bench\":\"rma\",\"impl\":\"%s\",\"op\":\"put\",\"blockelems\":%ld,"
                       "\"stride\":%ld,\"bytes\":%ld,\"np\":%d,\"reps\":%ld,\"t_med\":%.6e,"
                       "\"gbs\":%.3f,\"wrong\":%ld}\n",
                       names[m], b, st, E * 8, np, reps, tm, (double)E * 8 / tm / 1e9, wrong[m]);
        }
        fflush(stdout);
    }
    shmem_free(dst);
    free(src);
    free(times);
    shmem_finalize();
    return bad_total ? 1 : 0;
}
