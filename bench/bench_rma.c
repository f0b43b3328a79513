/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench rma: strided one-sided put and get, dmx against MPI's own ways to do it, and the
 * patch fetch of bench_rma_patch.c (the options: bench_rma_options.c).
 *
 *   mpirun -n P dmx bench rma [options]       (--help lists them with their defaults)
 *
 * Strided: every rank moves MIB MiB of doubles to (put) or from (get) rank (r+1) % P, in blocks
 * of b elements at a stride of 2b on both sides. Implementations:
 *   dmx         dmx_aput + dmx_rma_quiet / dmx_aget on a heap made with DMX_SHM=1 (shm 1: node
 *               peers are copied to directly) or DMX_SHM=0 (shm 0: the message path);
 *   mpi_blocks  one MPI_Put/MPI_Get per block, then MPI_Win_flush;
 *   mpi_vector  one MPI_Put/MPI_Get with an MPI_Type_vector on both sides, then MPI_Win_flush;
 *   mpi_pack    put: pack, one contiguous MPI_Put into a staging area, flush, barrier, the
 *               target unpacks; get: the target packs into its staging area, barrier, one
 *               contiguous MPI_Get, flush, unpack (needs the target's help: a reference point).
 * The MPI methods use one MPI_Win_allocate window (one communicator, no split halves here).
 * Each repetition: MPI_Barrier, MPI_Wtime around the operation up to remote completion (the
 * data is at the target for puts, here for gets), the maximum over ranks. Implementations are
 * interleaved within every repetition, in an order rotated by one per repetition; t_med is the
 * median. Every result is verified (values and untouched gaps) outside the timing; "wrong"
 * counts bad elements over all ranks.
 * Output: a table, or with --json one line per measurement. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"
#include "bench_rma.h"
#include "bench_util.h"
#include "cli.h"
#include "dmx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IMPL_DMX = 0, IMPL_BLOCKS = 1, IMPL_VECTOR = 2, IMPL_PACK = 3, NIMPL = 4 };
static const char *impl_name[NIMPL] = {"dmx", "mpi_blocks", "mpi_vector", "mpi_pack"};

typedef struct run {
    const bench_rma_opts *o;
    int rank, np, target, origin;
    int64_t E, be, count; /* elements moved, block length, blocks */
    double *src, *dst, *pk;
    dmx_rma_heap *heap[2]; /* shm 1, shm 0 (NULL if it could not be made) */
    MPI_Win win;
    double *mbase; /* 2E strided area + E staging */
    MPI_Datatype vec;
} run;

static double srcval(int r, int64_t k)
{
    return r * 1e8 + (double)k + 1;
}
static double heapval(int r, int64_t k)
{
    return -(r * 1e8 + (double)k + 1);
}

/* Prepare the destination for one repetition (outside the timing). */
static void prepare(run *R, int op, double *area)
{
    if (op == 0) {
        memset(area, 0, (size_t)(2 * R->E) * sizeof(double));
    } else {
        for (int64_t k = 0; k < 2 * R->E; k++)
            area[k] = heapval(R->rank, k);
        memset(R->dst, 0, (size_t)(2 * R->E) * sizeof(double));
    }
}

/* Count wrong elements of the strided destination (put: my area, written by origin; get: dst,
 * read from target). */
static int64_t verify(const run *R, int op, const double *area)
{
    int64_t bad = 0;
    const double *d = op == 0 ? area : R->dst;
    for (int64_t k = 0; k < 2 * R->E; k++) {
        int in = (k % (2 * R->be)) < R->be;
        double want = !in ? 0.0 : op == 0 ? srcval(R->origin, k) : heapval(R->target, k);
        bad += d[k] != want;
    }
    return bad;
}

/* The heap's base on this rank, or NULL if the heap is missing. */
static double *heap_base(const dmx_rma_heap *h)
{
    void *base = NULL;
    return dmx_rma_get_base(h, &base) == DMX_SUCCESS ? base : NULL;
}

static int one_rep(run *R, int op, int impl, int shm, double *t)
{
    double *area = impl == IMPL_DMX ? heap_base(R->heap[shm ? 0 : 1]) : R->mbase;
    dmx_rma_heap *h = R->heap[shm ? 0 : 1];
    int64_t be = R->be, st2 = 2 * be;
    dmx_status st = DMX_SUCCESS;
    prepare(R, op, area);
    MPI_Win_sync(R->win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (impl == IMPL_DMX) {
        if (op == 0) {
            st = dmx_aput(h, DMX_DOUBLE, area, R->src, st2, st2, be, R->count, R->target);
            if (st == DMX_SUCCESS)
                st = dmx_rma_quiet(h);
        } else {
            st = dmx_aget(h, DMX_DOUBLE, R->dst, area, st2, st2, be, R->count, R->target);
        }
    } else if (impl == IMPL_BLOCKS) {
        for (int64_t b = 0; b < R->count; b++) {
            if (op == 0)
                MPI_Put(R->src + b * st2, (int)be, MPI_DOUBLE, R->target, (MPI_Aint)(b * st2 * 8),
                        (int)be, MPI_DOUBLE, R->win);
            else
                MPI_Get(R->dst + b * st2, (int)be, MPI_DOUBLE, R->target, (MPI_Aint)(b * st2 * 8),
                        (int)be, MPI_DOUBLE, R->win);
        }
        MPI_Win_flush(R->target, R->win);
    } else if (impl == IMPL_VECTOR) {
        if (op == 0)
            MPI_Put(R->src, 1, R->vec, R->target, 0, 1, R->vec, R->win);
        else
            MPI_Get(R->dst, 1, R->vec, R->target, 0, 1, R->vec, R->win);
        MPI_Win_flush(R->target, R->win);
    } else {
        double *stage = R->mbase + 2 * R->E;
        MPI_Aint sdisp = (MPI_Aint)(2 * R->E * 8);
        if (op == 0) {
            for (int64_t b = 0; b < R->count; b++)
                memcpy(R->pk + b * be, R->src + b * st2, (size_t)be * 8);
            MPI_Put(R->pk, (int)R->E, MPI_DOUBLE, R->target, sdisp, (int)R->E, MPI_DOUBLE, R->win);
            MPI_Win_flush(R->target, R->win);
            MPI_Win_sync(R->win);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Win_sync(R->win);
            for (int64_t b = 0; b < R->count; b++)
                memcpy(area + b * st2, stage + b * be, (size_t)be * 8);
        } else {
            for (int64_t b = 0; b < R->count; b++)
                memcpy(stage + b * be, area + b * st2, (size_t)be * 8);
            MPI_Win_sync(R->win);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Win_sync(R->win);
            MPI_Get(R->pk, (int)R->E, MPI_DOUBLE, R->target, sdisp, (int)R->E, MPI_DOUBLE, R->win);
            MPI_Win_flush(R->target, R->win);
            for (int64_t b = 0; b < R->count; b++)
                memcpy(R->dst + b * st2, R->pk + b * be, (size_t)be * 8);
        }
    }
    *t = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
    int ok = st == DMX_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (impl == IMPL_DMX)
        dmx_rma_barrier(h);
    MPI_Win_sync(R->win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(R->win);
    return all ? 0 : -1;
}

static int64_t strided(const bench_rma_opts *o, int rank, int np)
{
    run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    R.rank = rank;
    R.np = np;
    R.target = (rank + 1) % np;
    R.origin = (rank - 1 + np) % np;
    R.E = o->mib * 1024 * 1024 / 8;
    int64_t total_wrong = 0;
    R.src = malloc((size_t)(2 * R.E) * 8);
    R.dst = malloc((size_t)(2 * R.E) * 8);
    R.pk = malloc((size_t)R.E * 8);
    for (int64_t k = 0; k < 2 * R.E; k++)
        R.src[k] = srcval(rank, k);
    for (int s = 0; s < 2; s++) {
        setenv("DMX_SHM", s == 0 ? "1" : "0", 1);
        if (dmx_rma_alloc(MPI_COMM_WORLD, 2 * R.E * 8, &R.heap[s]) != DMX_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "bench rma: no heap with DMX_SHM=%d under osc %s: %s\n", s == 0,
                        bench_rma_osc(), dmx_last_error());
            R.heap[s] = NULL;
        }
    }
    unsetenv("DMX_SHM");
    MPI_Win_allocate((MPI_Aint)(3 * R.E * 8), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &R.mbase, &R.win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, R.win);
    if (rank == 0 && !o->json)
        printf("%-4s %-11s %3s %7s %12s %8s %6s\n", "op", "impl", "shm", "block", "t_med [s]",
               "GB/s", "wrong");
    for (int oi = 0; oi < o->nops; oi++) {
        int op = o->ops[oi];
        for (int bi = 0; bi < o->nblocks; bi++) {
            R.be = o->blocks[bi];
            if (R.be <= 0 || R.E % R.be != 0)
                continue;
            R.count = R.E / R.be;
            MPI_Type_vector((int)R.count, (int)R.be, (int)(2 * R.be), MPI_DOUBLE, &R.vec);
            MPI_Type_commit(&R.vec);
            /* configurations: dmx with each shm mode, then the MPI methods */
            int ncfg = 0, cimpl[8], cshm[8];
            for (int s = 0; s < o->nshm; s++)
                if (R.heap[o->shm[s] ? 0 : 1]) {
                    cimpl[ncfg] = IMPL_DMX;
                    cshm[ncfg++] = o->shm[s];
                }
            for (int i = IMPL_BLOCKS; i < NIMPL; i++) {
                cimpl[ncfg] = i;
                cshm[ncfg++] = -1;
            }
            double *times = calloc((size_t)(ncfg * o->reps), sizeof(double));
            int64_t wrong[8] = {0};
            for (int rep = -o->warmup; rep < o->reps; rep++)
                for (int c0 = 0; c0 < ncfg; c0++) {
                    /* each repetition starts one configuration later: no implementation always
                     * follows the same one (the 32 MiB L3 here holds what the previous one left) */
                    int c = (c0 + rep + o->warmup) % ncfg;
                    double t = 0;
                    int fail = one_rep(&R, op, cimpl[c], cshm[c] == 1, &t);
                    double *area =
                        cimpl[c] == IMPL_DMX ? heap_base(R.heap[cshm[c] ? 0 : 1]) : R.mbase;
                    int64_t bad = fail ? 2 * R.E : verify(&R, op, area), sum = 0;
                    MPI_Allreduce(&bad, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
                    wrong[c] += sum;
                    if (rep >= 0)
                        times[c * o->reps + rep] = t;
                }
            for (int c = 0; c < ncfg; c++) {
                double tm = bench_median(times + c * o->reps, o->reps);
                double gbs = (double)R.E * 8 / tm / 1e9;
                total_wrong += wrong[c];
                if (rank != 0)
                    continue;
                if (o->json)
                    printf("{\"bench\":\"rma\",\"impl\":\"%s\",\"shm\":%d,\"op\":\"%s\","
                           "\"blockelems\":%lld,\"stride\":%lld,\"bytes\":%lld,\"np\":%d,"
                           "\"osc\":\"%s\",\"dmx_rma\":\"%s\",\"reps\":%d,\"t_med\":%.6e,"
                           "\"gbs\":%.3f,\"wrong\":%lld}\n",
                           impl_name[cimpl[c]], cshm[c], op ? "get" : "put", (long long)R.be,
                           (long long)(2 * R.be), (long long)(R.E * 8), np, bench_rma_osc(),
                           getenv("DMX_RMA") ? getenv("DMX_RMA") : "auto", o->reps, tm, gbs,
                           (long long)wrong[c]);
                else
                    printf("%-4s %-11s %3s %7lld %12.4e %8.3f %6lld\n", op ? "get" : "put",
                           impl_name[cimpl[c]],
                           cshm[c] < 0 ? "-"
                           : cshm[c]   ? "1"
                                       : "0",
                           (long long)R.be, tm, gbs, (long long)wrong[c]);
            }
            fflush(stdout);
            free(times);
            MPI_Type_free(&R.vec);
        }
    }
    MPI_Win_unlock_all(R.win);
    MPI_Win_free(&R.win);
    dmx_rma_free(&R.heap[0]);
    dmx_rma_free(&R.heap[1]);
    free(R.src);
    free(R.dst);
    free(R.pk);
    return total_wrong;
}

int dmx_cmd_bench_rma(int argc, char **argv)
{
    bench_rma_opts o = {0, 5,      1, 1,      1,    8,   5,  {1, 8, 64, 512, 4096},
                        2, {1, 0}, 2, {0, 1}, 4096, 256, 64, 20};
    int pr = bench_rma_parse(argc, argv, &o);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    int init = 0, rank = 0, np = 1;
    MPI_Initialized(&init);
    if (!init)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int64_t wrong = 0;
    if (o.strided)
        wrong += strided(&o, rank, np);
    if (o.patch && o.patch_m <= o.patch_n)
        wrong += bench_rma_patch(&o);
    if (!init)
        MPI_Finalize();
    return wrong ? 1 : 0;
}
