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

/* One round's matrix and grid: a near-square pr x pc grid, A (n x n, nb x nb blocks) with local
 * leading dimension lld, in malloc'd memory or in heap; buf holds this rank's m x m patch. */
typedef struct pround {
    const bench_rma_opts *o;
    int rank, np, pr, pc, heapmem;
    int64_t n, m, nb, lld;
    dmx_rma_heap *heap;
    double *a, *buf;
} pround;

/* ScaLAPACK's side (DMX_HAVE_SCALAPACK): a context on the grid with A's descriptor, and one
 * 1 x 1 context per rank for the patch it wants. */
typedef struct spside {
    int ctxt_all, *ctxt_one, desca[9];
} spside;

/* Allocate and fill A (a(i,j) = i*n + j) and the patch buffer; 0 if the heap cannot be made
 * (said on rank 0). */
static int round_open(pround *P)
{
    int64_t n = P->n, nb = P->nb;
    int myr = P->rank / P->pc, myc = P->rank % P->pc;
    int64_t lr = bench_bc_numroc(n, nb, myr, P->pr), lc = bench_bc_numroc(n, nb, myc, P->pc);
    P->lld = lr > 1 ? lr : 1;
    int64_t abytes = P->lld * (lc > 0 ? lc : 1) * (int64_t)sizeof(double);
    if (P->heapmem) {
        MPI_Allreduce(MPI_IN_PLACE, &abytes, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (dmx_rma_alloc(MPI_COMM_WORLD, abytes, &P->heap) != DMX_SUCCESS) {
            if (P->rank == 0)
                printf("patch_get on heap memory skipped: %s\n", dmx_last_error());
            return 0;
        }
        void *base = NULL;
        if (dmx_rma_get_base(P->heap, &base) != DMX_SUCCESS)
            return 0;
        P->a = base;
    } else {
        P->a = malloc((size_t)abytes);
    }
    P->buf = malloc((size_t)(P->m * P->m) * sizeof(double));
    for (int64_t jl = 0; jl < lc; jl++)
        for (int64_t il = 0; il < lr; il++) {
            int64_t i = (il / nb * P->pr + myr) * nb + il % nb,
                    j = (jl / nb * P->pc + myc) * nb + jl % nb;
            P->a[il + jl * P->lld] = (double)(i * n + j);
        }
    return 1;
}

static void round_close(pround *P)
{
    if (P->heapmem)
        dmx_rma_free(&P->heap);
    else
        free(P->a);
    free(P->buf);
}

/* The number of implementations: 2 with ScaLAPACK (its contexts made), else 1. */
static int sp_open(const pround *P, spside *s)
{
    s->ctxt_one = NULL;
#ifdef DMX_HAVE_SCALAPACK
    int in = (int)P->n, inb = (int)P->nb, zero = 0, illd = (int)P->lld, info = 0;
    s->ctxt_one = malloc((size_t)P->np * sizeof(int));
    Cblacs_get(-1, 0, &s->ctxt_all);
    Cblacs_gridinit(&s->ctxt_all, "Row", P->pr, P->pc);
    descinit_(s->desca, &in, &in, &inb, &inb, &zero, &zero, &s->ctxt_all, &illd, &info);
    for (int r = 0; r < P->np; r++) {
        int map = r;
        Cblacs_get(-1, 0, &s->ctxt_one[r]);
        Cblacs_gridmap(&s->ctxt_one[r], &map, 1, 1, 1);
    }
    return 2;
#else
    (void)P;
    return 1;
#endif
}

static void sp_close(const pround *P, spside *s)
{
#ifdef DMX_HAVE_SCALAPACK
    for (int r = 0; r < P->np; r++)
        if (P->rank == r)
            Cblacs_gridexit(s->ctxt_one[r]);
    Cblacs_gridexit(s->ctxt_all);
#else
    (void)P;
#endif
    free(s->ctxt_one);
}

/* Every rank's patch (i0[r], j0[r]) into buf, by implementation impl (0 dmx_patch_get, 1 one
 * pdgemr2d per rank, up to 64 ranks). */
static void fetch(const pround *P, dmx_patch *w, spside *s, int impl, const int64_t *i0,
                  const int64_t *j0)
{
    int64_t m = P->m;
    int me = P->rank < 64 ? P->rank : 0;
    if (impl == 0) {
        dmx_patch_get(w, i0[me], j0[me], m, m, P->buf, m, DMX_OP_N);
        return;
    }
#ifdef DMX_HAVE_SCALAPACK
    int descb[9], info = 0;
    for (int r = 0; r < P->np && r < 64; r++) {
        int im = (int)m, ia = (int)i0[r] + 1, ja = (int)j0[r] + 1, one = 1, zero = 0;
        if (P->rank == r) {
            descinit_(descb, &im, &im, &im, &im, &zero, &zero, &s->ctxt_one[r], &im, &info);
        } else {
            int d[9] = {1, -1, im, im, im, im, 0, 0, 1};
            memcpy(descb, d, sizeof d);
        }
        pdgemr2d_(&im, &im, P->a, &ia, &ja, s->desca, P->buf, &one, &one, descb, &s->ctxt_all);
    }
#else
    (void)s, (void)i0, (void)j0;
#endif
}

static void report(const pround *P, int impl, double tm, int64_t wrong)
{
    const bench_rma_opts *o = P->o;
    long long m = (long long)P->m, n = (long long)P->n, nb = (long long)P->nb;
    if (P->rank != 0)
        return;
    if (o->json)
        printf("{\"bench\":\"rma\",\"impl\":\"%s\",\"op\":\"patch_get\",\"blockelems\":%lld,"
               "\"n\":%lld,\"nb\":%lld,\"np\":%d,\"grid\":\"%dx%d\",\"osc\":\"%s\","
               "\"mem\":\"%s\",\"reps\":%d,\"t_med\":%.6e,\"wrong\":%lld}\n",
               impl ? "pdgemr2d" : "dmx_patch", m, n, nb, P->np, P->pr, P->pc, bench_rma_osc(),
               P->heapmem ? "heap" : "malloc", o->patch_reps, tm, (long long)wrong);
    else
        printf("patch_get %-9s %lldx%lld of %lldx%lld nb %lld grid %dx%d, %s memory: t_med "
               "%.4e s (all %d ranks one patch each), wrong %lld\n",
               impl ? "pdgemr2d" : "dmx_patch", m, m, n, n, nb, P->pr, P->pc,
               P->heapmem ? "heap" : "malloc", tm, P->np, (long long)wrong);
}

/* One round with the matrix in malloc'd memory (heapmem 0: node peers' blocks read through
 * CMA) or in a dmx_rma_alloc heap (heapmem 1: node peers' blocks read with plain loads, the
 * Global Arrays arrangement where the library allocates distributed arrays). */
static int64_t patch_round(const bench_rma_opts *o, int heapmem)
{
    pround P = {o, 0, 1, 1, 1, heapmem, o->patch_n, o->patch_m, o->patch_nb, 1, NULL, NULL, NULL};
    MPI_Comm_rank(MPI_COMM_WORLD, &P.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P.np);
    for (int d = 1; d * d <= P.np; d++)
        if (P.np % d == 0)
            P.pr = d;
    /* cppcheck-suppress zerodiv ; pr divides np and np >= 1, so pc >= 1 */
    P.pc = P.np / P.pr;
    if (!round_open(&P))
        return 0;
    int64_t n = P.n, m = P.m;
    dmx_layout *L = NULL;
    dmx_patch *w = NULL;
    if (dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, P.nb, P.nb, P.pr, P.pc, 'R', 0, 0, P.a,
                                       P.lld, &L) != DMX_SUCCESS ||
        dmx_patch_open(L, DMX_DOUBLE, &w) != DMX_SUCCESS) {
        /* a part this MPI cannot run is skipped with its reason, never the whole bench */
        if (P.rank == 0)
            printf("patch_get skipped under osc %s: %s\n", bench_rma_osc(), dmx_last_error());
        dmx_layout_destroy(&L);
        round_close(&P);
        return 0;
    }
    spside sp;
    int nimpl = sp_open(&P, &sp);
    double *times = calloc((size_t)(2 * o->patch_reps), sizeof(double));
    int64_t wrong[2] = {0, 0};
    for (int rep = -1; rep < o->patch_reps; rep++) {
        int64_t i0[64], j0[64]; /* every rank's patch (up to 64 ranks in the pdgemr2d loop) */
        for (int r = 0; r < P.np && r < 64; r++) {
            i0[r] =
                (int64_t)(mix((uint64_t)(rep + 7) * 1000 + (uint64_t)r) % (uint64_t)(n - m + 1));
            j0[r] =
                (int64_t)(mix((uint64_t)(rep + 7) * 2000 + (uint64_t)r) % (uint64_t)(n - m + 1));
        }
        int me = P.rank < 64 ? P.rank : 0;
        for (int impl = 0; impl < nimpl; impl++) {
            memset(P.buf, 0, (size_t)(m * m) * sizeof(double));
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            fetch(&P, w, &sp, impl, i0, j0);
            double t = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
            int64_t bad = check(P.buf, m, n, i0[me], j0[me]), sum = 0;
            MPI_Allreduce(&bad, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            wrong[impl] += sum;
            if (rep >= 0)
                times[impl * o->patch_reps + rep] = t;
        }
    }
    for (int impl = 0; impl < nimpl; impl++)
        report(&P, impl, bench_median(times + impl * o->patch_reps, o->patch_reps), wrong[impl]);
    sp_close(&P, &sp);
    dmx_patch_close(&w);
    dmx_layout_destroy(&L);
    free(times);
    round_close(&P);
    return wrong[0] + wrong[1];
}

int64_t bench_rma_patch(const bench_rma_opts *o)
{
    return patch_round(o, 0) + patch_round(o, 1);
}
