/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist --sequence: a sequence of redistributions in the style of ScaLAPACK's REDIST
 * tester (xdgemr reading GEMR2D.dat), timed as a whole.
 *
 * The tester runs 90 tests; each moves an m x m matrix (m from 200 to 1000) from one process grid
 * and block size to another and back, with a new shape on every call: grids 1 x P, P x 1, square,
 * or one process fewer; small, odd blocks. This mode generates such a sequence (--count tests,
 * sizes from --seq-min to --seq-max, ten per size step, blocks 1 .. m/30, grids chosen among the
 * shapes p x q with P - 1 <= p*q <= P; a fixed random seed, so every run and every rank has the
 * same sequence). Every test is one call grid 0 -> grid 1 and one back, through every ScaLAPACK
 * context of all ranks (1 x P), as the tester does. Shapes never repeat within --count <= 16
 * calls of a cache either, so dmx's drop-in plans every call.
 *
 * Implementations (each runs the whole sequence once per round, interleaved; median of rounds):
 *   once       per call: both dmx layouts created, dmx_transform_once, layouts destroyed (what a
 *              user of the public API does for a shape seen once);
 *   scalapack  pdgemr2d_ of Debian's ScaLAPACK;
 *   dropin     (bench_sp_gemr2d only) pdgemr2d_ of libdmx_scalapack.
 * A first, untimed pass checks every call of every implementation against the formula.
 */
#include "bench_sweep.h"
#include "bench_util.h"
#include "cli.h"
#ifdef DMX_HAVE_SCALAPACK
#include "bench_scalapack.h"
#endif
#ifdef BENCH_SWEEP_DROPIN
#include "dmx/scalapack.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SQ_ONCE, SQ_SCALAPACK, SQ_DROPIN, SQ_NIMPL };
static const char *const sq_name[SQ_NIMPL] = {"once", "scalapack", "dropin"};

typedef struct sq_test {
    bench_bc g0, g1; /* the two sides (same m x n) */
    int c0, c1;      /* their BLACS contexts */
} sq_test;

typedef struct sq_shape {
    int p, q, ctxt;
} sq_shape;

/* A -> B by impl: x holds A's data, y B's. */
static dmx_status sq_call(int impl, sw_mat *x, sw_mat *y, int ictxt)
{
    const int m = (int)x->bc.m, n = (int)x->bc.n, i1 = 1;
    (void)m, (void)n, (void)i1, (void)ictxt;
    switch (impl) {
    case SQ_ONCE: {
        dmx_layout *lx = NULL, *ly = NULL;
        dmx_status st = sw_layout(x, &lx);
        if (st == DMX_SUCCESS)
            st = sw_layout(y, &ly);
        if (st == DMX_SUCCESS)
            st = dmx_transform_once(DMX_DOUBLE, DMX_OP_N, (dmx_scalar){1, 0}, lx,
                                    (dmx_scalar){0, 0}, ly);
        dmx_layout_destroy(&lx);
        dmx_layout_destroy(&ly);
        return st;
    }
#ifdef DMX_HAVE_SCALAPACK
    case SQ_SCALAPACK:
        pdgemr2d_(&m, &n, x->data, &i1, &i1, x->desc, y->data, &i1, &i1, y->desc, &ictxt);
        return DMX_SUCCESS;
#endif
#ifdef BENCH_SWEEP_DROPIN
    case SQ_DROPIN:
        dmxsp_test_pdgemr2d_(&m, &n, x->data, &i1, &i1, x->desc, y->data, &i1, &i1, y->desc,
                             &ictxt);
        return DMX_SUCCESS;
#endif
    default: return DMX_ERR_UNSUPPORTED;
    }
}

static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(bench_random_next(s) % (uint64_t)(hi - lo + 1));
}

/* The shapes p x q with np - 1 <= p*q <= np (at least 1). */
static int make_shapes(int np, sq_shape *v, int cap)
{
    int k = 0;
    for (int p = 1; p <= np; p++)
        for (int q = 1; q <= np && k < cap; q++)
            if (p * q <= np && p * q >= (np > 1 ? np - 1 : 1))
                v[k++] = (sq_shape){p, q, -1};
    return k;
}

/* Runs the sequence once by impl; check: verify every call. Returns the wrong count of this rank
 * (check) or 0, and -1 if a dmx call failed on this rank. */
static int64_t run_sequence(int impl, const sq_test *tv, int count, double *buf0, double *buf1,
                            int rank, int ictxt, int check)
{
    int64_t wrong = 0;
    for (int k = 0; k < count; k++) {
        sw_mat x, y;
        sw_mat_init(&x, &tv[k].g0, rank, tv[k].c0, buf0);
        sw_mat_init(&y, &tv[k].g1, rank, tv[k].c1, buf1);
        if (check) {
            sw_fill(&x, x.bc.n);
            sw_fill_nan(&y);
        }
        if (sq_call(impl, &x, &y, ictxt) != DMX_SUCCESS)
            return -1;
        if (check) {
            wrong += sw_count_wrong(&y, 0, x.bc.n);
            sw_fill_nan(&x);
        }
        if (sq_call(impl, &y, &x, ictxt) != DMX_SUCCESS)
            return -1;
        if (check)
            wrong += sw_count_wrong(&x, 0, x.bc.n);
    }
    return wrong;
}

/* Implementation i's line (or JSON record): its median med (-1: none), ScaLAPACK's ref, the
 * wrong elements over all rounds, whether it failed. */
static void report(const sweep_opts *so, int np, int i, double med, double ref, int64_t wrong,
                   int failed)
{
    if (so->json) {
        printf("{\"bench\":\"redist_sequence\",\"impl\":\"%s\",\"np\":%d,\"count\":%d,"
               "\"m_min\":%lld,\"m_max\":%lld,\"align\":%d,\"reps\":%d,",
               sq_name[i], np, so->count, (long long)so->seq_min, (long long)so->seq_max, so->align,
               so->reps);
        if (med >= 0)
            printf("\"t_med\":%.9g,", med);
        else
            printf("\"t_med\":null,");
        if (i != SQ_SCALAPACK && med > 0 && ref > 0)
            printf("\"speedup_vs_scalapack\":%.4g,", ref / med);
        printf("\"wrong\":%lld,\"status\":\"%s\"}\n", (long long)wrong, failed ? "failed" : "ok");
    } else if (failed) {
        printf("  %-10s FAILED\n", sq_name[i]);
    } else {
        printf("  %-10s %10.1f ms  wrong %lld", sq_name[i], med * 1e3, (long long)wrong);
        if (i != SQ_SCALAPACK && ref > 0)
            printf("  speedup vs scalapack %.2fx", ref / med);
        printf("\n");
    }
}

int bench_sequence_run(const sweep_opts *so)
{
    int rank, np, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int use[SQ_NIMPL] = {1, 0, 0};
#ifdef DMX_HAVE_SCALAPACK
    use[SQ_SCALAPACK] = 1;
#endif
#ifdef BENCH_SWEEP_DROPIN
    use[SQ_DROPIN] = 1;
#endif
    sq_shape shapes[64];
    const int nshape = make_shapes(np, shapes, 64);
    for (int s = 0; s < nshape; s++)
        shapes[s].ctxt = sw_blacs_grid(shapes[s].p, shapes[s].q);
    const int ictxt = sw_blacs_grid(1, np);
    sq_test *tv = calloc((size_t)so->count, sizeof *tv);
    double *t[SQ_NIMPL] = {NULL, NULL, NULL};
    for (int i = 0; i < SQ_NIMPL; i++)
        t[i] = calloc((size_t)so->reps, sizeof(double));
    int64_t e0 = 1, e1 = 1;
    uint64_t seed = 0x5eed0fd1u;
    const int64_t steps = so->seq_max > so->seq_min ? (so->seq_max - so->seq_min) / 100 + 1 : 1;
    for (int k = 0; tv != NULL && k < so->count; k++) {
        int64_t m = so->seq_min + 100 * ((k / 10) % steps);
        m = m < so->seq_max ? m : so->seq_max;
        const int64_t bmax = m / 30 > 1 ? m / 30 : 1;
        const sq_shape *s0 = &shapes[rnd(&seed, 0, nshape - 1)];
        const sq_shape *s1 = &shapes[rnd(&seed, 0, nshape - 1)];
        tv[k].g0 = (bench_bc){m, m, rnd(&seed, 1, bmax), rnd(&seed, 1, bmax), s0->p, s0->q};
        tv[k].g1 = (bench_bc){m, m, rnd(&seed, 1, bmax), rnd(&seed, 1, bmax), s1->p, s1->q};
        tv[k].c0 = s0->ctxt;
        tv[k].c1 = s1->ctxt;
        int64_t l0 = sw_local_elems(&tv[k].g0, rank), l1 = sw_local_elems(&tv[k].g1, rank);
        e0 = l0 > e0 ? l0 : e0;
        e1 = l1 > e1 ? l1 : e1;
    }
    double *buf0 = bench_alloc_aligned((size_t)e0 * 8, so->align);
    double *buf1 = bench_alloc_aligned((size_t)e1 * 8, so->align);
    int ok = tv && buf0 && buf1 && t[0] && t[1] && t[2], okall = 0;
    MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int64_t wrong[SQ_NIMPL] = {0, 0, 0};
    int failed[SQ_NIMPL] = {0, 0, 0};
    if (!okall) {
        rc = 3;
        goto cleanup;
    }
    for (int r = -1; r < so->reps; r++) {
        cli_progress(rank != 0, "bench redist --sequence", r + 2, so->reps + 1,
                     "%s, %d tests per implementation", r < 0 ? "warm-up" : "timed round",
                     so->count);
        for (int i = 0; i < SQ_NIMPL; i++) {
            if (!use[i] || failed[i])
                continue;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int64_t w = run_sequence(i, tv, so->count, buf0, buf1, rank, ictxt, r < 0);
            double dt = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
            int bad = w < 0, anybad = 0;
            int64_t mine = w > 0 ? w : 0, sum = 0;
            MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            failed[i] = anybad;
            wrong[i] += sum;
            if (r >= 0)
                t[i][r] = dt;
        }
    }
    if (rank == 0) {
        double med[SQ_NIMPL];
        for (int i = 0; i < SQ_NIMPL; i++)
            med[i] = use[i] && !failed[i] ? bench_median(t[i], so->reps) : -1;
        if (!so->json)
            printf("dmx bench redist --sequence: np=%d, %d tests of m x m doubles, m %lld..%lld "
                   "(GEMR2D.dat style: new grids and blocks on every call, there and back), "
                   "arrays %d-byte aligned, median of %d rounds after a checked one\n",
                   np, so->count, (long long)so->seq_min, (long long)so->seq_max, so->align,
                   so->reps);
        for (int i = 0; i < SQ_NIMPL; i++) {
            if (!use[i])
                continue;
            rc = wrong[i] > 0 ? 1 : failed[i] && rc == 0 ? 3 : rc;
            report(so, np, i, med[i], med[SQ_SCALAPACK], wrong[i], failed[i]);
        }
#ifdef BENCH_SWEEP_DROPIN
        dmx_scalapack_stats st;
        if (use[SQ_DROPIN] && !so->json && dmxsp_test_dmx_scalapack_get_stats(&st) == 0)
            printf("  dropin paths (rank 0, all rounds): %lld calls, %lld with no collective, "
                   "%lld with one gather, %lld agreed (%lld misses)\n",
                   (long long)st.calls, (long long)st.local_calls, (long long)st.gathered_calls,
                   (long long)(st.calls - st.local_calls - st.gathered_calls),
                   (long long)st.misses);
#endif
        fflush(stdout);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
cleanup:
    free(buf0);
    free(buf1);
    free(tv);
    for (int i = 0; i < SQ_NIMPL; i++)
        free(t[i]);
    for (int s = 0; s < nshape; s++)
        sw_blacs_free(shapes[s].ctxt);
    sw_blacs_free(ictxt);
    return rc;
}
