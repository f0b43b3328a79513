/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench rma, patch part: fetch random m x m patches of an n x n block-cyclic matrix of
 * doubles (nb x nb blocks, a near-square process grid) to the rank that wants them.
 *
 *   dmx_patch   every rank fetches its own random patch with dmx_patch_get (one-sided, the
 *               owners call nothing); one repetition = every rank has its patch.
 *   pdgemr2d    the same P patches, each moved by one collective pdgemr2d call into an m x m
 *               matrix on a 1 x 1 BLACS grid of the rank that wants it (built only with
 *               ScaLAPACK: DMX_HAVE_SCALAPACK).
 * Two rounds: the matrix in malloc'd memory (node peers' blocks read through CMA), then in a
 * dmx_rma_alloc heap (read with plain loads through the node's shared segment).
 * Both are timed per repetition (barrier, MPI_Wtime, maximum over ranks) and interleaved;
 * every fetched patch is compared with the closed formula a(i,j) = i*n + j. */
#define _POSIX_C_SOURCE 200809L

#include "alltoallv_redist.h"
#include "bench_rma.h"
#include "bench_util.h"
#include "dmx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DMX_HAVE_SCALAPACK
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *icontxt, int *usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridexit(int icontxt);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
#endif

/* A random 64-bit value as a function of seed (splitmix64's first output from that state). */
static uint64_t mix(uint64_t seed)
{
    return bench_random_next(&seed);
}

static int64_t check(const double *buf, int64_t m, int64_t n, int64_t i0, int64_t j0)
{
    int64_t bad = 0;
    for (int64_t c = 0; c < m; c++)
        for (int64_t r = 0; r < m; r++)
            bad += buf[r + c * m] != (double)((i0 + r) * n + j0 + c);
    return bad;
}

/* One round with the matrix in malloc'd memory (heapmem 0: node peers' blocks read through
 * CMA) or in a dmx_rma_alloc heap (heapmem 1: node peers' blocks read with plain loads, the
 * Global Arrays arrangement where the library allocates distributed arrays). */
static int64_t patch_round(const bench_rma_opts *o, int heapmem)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int64_t n = o->patch_n, m = o->patch_m, nb = o->patch_nb;
    int pr = 1;
    for (int d = 1; d * d <= np; d++)
        if (np % d == 0)
            pr = d;
    /* cppcheck-suppress zerodiv ; pr divides np and np >= 1, so pc >= 1 */
    int pc = np / pr, myr = rank / pc, myc = rank % pc;
    int64_t lr = bench_bc_numroc(n, nb, myr, pr), lc = bench_bc_numroc(n, nb, myc, pc),
            lld = lr > 1 ? lr : 1;
    int64_t abytes = lld * (lc > 0 ? lc : 1) * (int64_t)sizeof(double);
    dmx_rma_heap *heap = NULL;
    double *a = NULL;
    if (heapmem) {
        MPI_Allreduce(MPI_IN_PLACE, &abytes, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (dmx_rma_alloc(MPI_COMM_WORLD, abytes, &heap) != DMX_SUCCESS) {
            if (rank == 0)
                printf("patch_get on heap memory skipped: %s\n", dmx_last_error());
            return 0;
        }
        a = dmx_rma_base(heap);
    } else {
        a = malloc((size_t)abytes);
    }
    double *buf = malloc((size_t)(m * m) * sizeof(double));
    for (int64_t jl = 0; jl < lc; jl++)
        for (int64_t il = 0; il < lr; il++) {
            int64_t i = (il / nb * pr + myr) * nb + il % nb,
                    j = (jl / nb * pc + myc) * nb + jl % nb;
            a[il + jl * lld] = (double)(i * n + j);
        }
    dmx_layout *L = NULL;
    dmx_patch *w = NULL;
    if (dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, nb, nb, pr, pc, 'R', 0, 0, a, lld,
                                       &L) != DMX_SUCCESS ||
        dmx_patch_open(L, DMX_DOUBLE, &w) != DMX_SUCCESS) {
        /* a part this MPI cannot run is skipped with its reason, never the whole bench */
        if (rank == 0)
            printf("patch_get skipped under osc %s: %s\n", bench_rma_osc(), dmx_last_error());
        dmx_layout_destroy(&L);
        if (heapmem)
            dmx_rma_free(&heap);
        else
            free(a);
        free(buf);
        return 0;
    }
    int nimpl = 1;
#ifdef DMX_HAVE_SCALAPACK
    int ctxt_all, *ctxt_one = malloc((size_t)np * sizeof(int)), desca[9], descb[9], info = 0;
    {
        int in = (int)n, inb = (int)nb, zero = 0, illd = (int)lld;
        Cblacs_get(-1, 0, &ctxt_all);
        Cblacs_gridinit(&ctxt_all, "Row", pr, pc);
        descinit_(desca, &in, &in, &inb, &inb, &zero, &zero, &ctxt_all, &illd, &info);
        for (int r = 0; r < np; r++) {
            int map = r;
            Cblacs_get(-1, 0, &ctxt_one[r]);
            Cblacs_gridmap(&ctxt_one[r], &map, 1, 1, 1);
        }
        nimpl = 2;
    }
#endif
    double *times = calloc((size_t)(2 * o->patch_reps), sizeof(double));
    int64_t wrong[2] = {0, 0};
    for (int rep = -1; rep < o->patch_reps; rep++) {
        int64_t i0[64], j0[64]; /* every rank's patch (up to 64 ranks in the pdgemr2d loop) */
        for (int r = 0; r < np && r < 64; r++) {
            i0[r] =
                (int64_t)(mix((uint64_t)(rep + 7) * 1000 + (uint64_t)r) % (uint64_t)(n - m + 1));
            j0[r] =
                (int64_t)(mix((uint64_t)(rep + 7) * 2000 + (uint64_t)r) % (uint64_t)(n - m + 1));
        }
        int me = rank < 64 ? rank : 0;
        for (int impl = 0; impl < nimpl; impl++) {
            memset(buf, 0, (size_t)(m * m) * sizeof(double));
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (impl == 0) {
                dmx_patch_get(w, i0[me], j0[me], m, m, buf, m, DMX_OP_N);
            } else {
#ifdef DMX_HAVE_SCALAPACK
                for (int r = 0; r < np && r < 64; r++) {
                    int im = (int)m, ia = (int)i0[r] + 1, ja = (int)j0[r] + 1, one = 1, zero = 0;
                    if (rank == r) {
                        descinit_(descb, &im, &im, &im, &im, &zero, &zero, &ctxt_one[r], &im,
                                  &info);
                    } else {
                        int d[9] = {1, -1, im, im, im, im, 0, 0, 1};
                        memcpy(descb, d, sizeof d);
                    }
                    pdgemr2d_(&im, &im, a, &ia, &ja, desca, buf, &one, &one, descb, &ctxt_all);
                }
#endif
            }
            double t = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
            int64_t bad = check(buf, m, n, i0[me], j0[me]), sum = 0;
            MPI_Allreduce(&bad, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            wrong[impl] += sum;
            if (rep >= 0)
                times[impl * o->patch_reps + rep] = t;
        }
    }
    for (int impl = 0; impl < nimpl; impl++) {
        double tm = bench_median(times + impl * o->patch_reps, o->patch_reps);
        if (rank != 0)
            continue;
        if (o->json)
            printf("{\"bench\":\"rma\",\"impl\":\"%s\",\"op\":\"patch_get\",\"blockelems\":%lld,"
                   "\"n\":%lld,\"nb\":%lld,\"np\":%d,\"grid\":\"%dx%d\",\"osc\":\"%s\","
                   "\"mem\":\"%s\",\"reps\":%d,\"t_med\":%.6e,\"wrong\":%lld}\n",
                   impl ? "pdgemr2d" : "dmx_patch", (long long)m, (long long)n, (long long)nb, np,
                   pr, pc, bench_rma_osc(), heapmem ? "heap" : "malloc", o->patch_reps, tm,
                   (long long)wrong[impl]);
        else
            printf("patch_get %-9s %lldx%lld of %lldx%lld nb %lld grid %dx%d, %s memory: t_med "
                   "%.4e s (all %d ranks one patch each), wrong %lld\n",
                   impl ? "pdgemr2d" : "dmx_patch", (long long)m, (long long)m, (long long)n,
                   (long long)n, (long long)nb, pr, pc, heapmem ? "heap" : "malloc", tm, np,
                   (long long)wrong[impl]);
    }
#ifdef DMX_HAVE_SCALAPACK
    for (int r = 0; r < np; r++)
        if (rank == r)
            Cblacs_gridexit(ctxt_one[r]);
    Cblacs_gridexit(ctxt_all);
    free(ctxt_one);
#endif
    dmx_patch_close(&w);
    dmx_layout_destroy(&L);
    free(times);
    if (heapmem)
        dmx_rma_free(&heap);
    else
        free(a);
    free(buf);
    return wrong[0] + wrong[1];
}

int64_t bench_rma_patch(const bench_rma_opts *o)
{
    return patch_round(o, 0) + patch_round(o, 1);
}
