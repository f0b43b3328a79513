/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist --sweep: one-shot calls from 1 x 1 to 4096 x 4096 against ScaLAPACK.
 *
 * Per size n (1, 2, 4, ..., 64, 256, 1024, 4096, up to --max-n) and op: B is n x n in blocks of
 * min(32, ceil(n/4)), A in blocks of min(128, ceil(n/2)), both block-cyclic on the default grid
 * (2 x 2 for P >= 4, 1 x 2 for P = 2, 1 x P otherwise): at n >= 256 the default case, below it
 * small matrices that still spread over the grid. Implementations, interleaved in every round
 * (each once per round; median over rounds):
 *   once       dmx_transform_once: plan create + execute + destroy (the layouts are made once,
 *              outside the timing, as a user holds them for their matrices);
 *   exec       dmx_plan_execute of a plan made once (the floor one-shot planning sits on);
 *   scalapack  pdgemr2d_ (op N) / pdtran_ (op T) of Debian's ScaLAPACK;
 *   dropin     (bench_sp_gemr2d only) the same Fortran entries of libdmx_scalapack, whose plan
 *              cache then hits after the first call; DMX_SCALAPACK_CACHE=0 makes every call a
 *              one-shot.
 * Every call (warm-up round included) is checked against the formula outside the timing, A
 * being NaN-filled first. Rounds: --reps, times 5 up to 64 x 64 (microsecond calls are noisy).
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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SW_ONCE, SW_EXEC, SW_SCALAPACK, SW_DROPIN, SW_NIMPL };
static const char *const sw_name[SW_NIMPL] = {"once", "exec", "scalapack", "dropin"};

void sweep_opts_default(sweep_opts *so)
{
    memset(so, 0, sizeof *so);
    so->reps = 10;
    so->align = 64;
    so->op_n = so->op_t = 1;
    so->max_n = 4096;
    so->count = 90;
    so->seq_min = 200;
    so->seq_max = 1000;
}

/* ---- shared helpers -------------------------------------------------------------------------- */

int64_t sw_local_elems(const bench_bc *bc, int rank)
{
    int pr, pc;
    int64_t mloc, nloc;
    bench_bc_local(bc, rank, &pr, &pc, &mloc, &nloc);
    return (mloc > 1 ? mloc : 1) * (nloc > 1 ? nloc : 1);
}

void sw_mat_init(sw_mat *x, const bench_bc *bc, int rank, int ctxt, double *data)
{
    x->bc = *bc;
    bench_bc_local(bc, rank, &x->pr, &x->pc, &x->mloc, &x->nloc);
    x->ld = x->mloc > 0 ? x->mloc : 1;
    x->data = data;
    const int in = x->pr >= 0;
    const int d[9] = {1, in ? ctxt : -1, (int)bc->m, (int)bc->n, (int)bc->mb, (int)bc->nb, 0,
                      0, (int)x->ld};
    memcpy(x->desc, d, sizeof d);
}

static double sw_value(int64_t i, int64_t j, int64_t bn)
{
    return (double)(i * bn + j + 1);
}

void sw_fill(const sw_mat *x, int64_t bn)
{
    for (int64_t jl = 0; jl < x->nloc; jl++) {
        const int64_t j = bench_bc_global(jl, x->bc.nb, x->pc, x->bc.pcol);
        for (int64_t il = 0; il < x->mloc; il++)
            x->data[il + jl * x->ld] =
                sw_value(bench_bc_global(il, x->bc.mb, x->pr, x->bc.prow), j, bn);
    }
}

void sw_fill_nan(const sw_mat *x)
{
    for (int64_t k = 0; k < x->ld * x->nloc; k++)
        x->data[k] = NAN;
}

int64_t sw_count_wrong(const sw_mat *a, int trans, int64_t bn)
{
    int64_t wrong = 0;
    for (int64_t jl = 0; jl < a->nloc; jl++) {
        const int64_t j = bench_bc_global(jl, a->bc.nb, a->pc, a->bc.pcol);
        for (int64_t il = 0; il < a->mloc; il++) {
            const int64_t i = bench_bc_global(il, a->bc.mb, a->pr, a->bc.prow);
            const double want = trans ? sw_value(j, i, bn) : sw_value(i, j, bn);
            wrong += !(a->data[il + jl * a->ld] == want);
        }
    }
    return wrong;
}

int sw_blacs_grid(int pr, int pc)
{
#ifdef DMX_HAVE_SCALAPACK
    int ctxt = -1;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    return ctxt;
#else
    (void)pr;
    (void)pc;
    return -1;
#endif
}

void sw_blacs_free(int ctxt)
{
#ifdef DMX_HAVE_SCALAPACK
    if (ctxt >= 0)
        Cblacs_gridexit(ctxt);
#else
    (void)ctxt;
#endif
}

dmx_status sw_layout(const sw_mat *x, dmx_layout **out)
{
    return dmx_layout_create_block_cyclic(MPI_COMM_WORLD, x->bc.m, x->bc.n, x->bc.mb, x->bc.nb,
                                          x->bc.prow, x->bc.pcol, 'R', 0, 0,
                                          x->pr >= 0 ? x->data : NULL, x->ld, out);
}

/* ---- the sweep ------------------------------------------------------------------------------- */

typedef struct sw_size {
    sw_mat b, a;
    dmx_layout *lb, *la;
    dmx_plan *plan;
    int trans;
    int ictxt; /* 1 x P grid of every rank (pdgemr2d's context) */
} sw_size;

/* One call of impl; returns a dmx status (ScaLAPACK's calls abort on failure). */
static dmx_status sw_call(sw_size *s, int impl)
{
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    const dmx_op op = s->trans ? DMX_OP_T : DMX_OP_N;
    const int m = (int)s->a.bc.m, n = (int)s->a.bc.n, i1 = 1;
    const double alpha = 1.0, beta = 0.0;
    (void)m, (void)n, (void)i1, (void)alpha, (void)beta;
    switch (impl) {
    case SW_ONCE: return dmx_transform_once(DMX_DOUBLE, op, one, s->lb, zero, s->la);
    case SW_EXEC: return dmx_plan_execute(s->plan);
#ifdef DMX_HAVE_SCALAPACK
    case SW_SCALAPACK:
        if (!s->trans)
            pdgemr2d_(&m, &n, s->b.data, &i1, &i1, s->b.desc, s->a.data, &i1, &i1, s->a.desc,
                      &s->ictxt);
        else if (s->a.desc[1] >= 0) /* processes outside the grid do not call the PBLAS */
            pdtran_(&m, &n, &alpha, s->b.data, &i1, &i1, s->b.desc, &beta, s->a.data, &i1, &i1,
                    s->a.desc);
        return DMX_SUCCESS;
#endif
#ifdef BENCH_SWEEP_DROPIN
    case SW_DROPIN:
        if (!s->trans)
            dmxsp_test_pdgemr2d_(&m, &n, s->b.data, &i1, &i1, s->b.desc, s->a.data, &i1, &i1,
                                 s->a.desc, &s->ictxt);
        else if (s->a.desc[1] >= 0)
            dmxsp_test_pdtran_(&m, &n, &alpha, s->b.data, &i1, &i1, s->b.desc, &beta, s->a.data,
                               &i1, &i1, s->a.desc);
        return DMX_SUCCESS;
#endif
    default: return DMX_ERR_UNSUPPORTED;
    }
}

static int all_ok(int ok)
{
    int out = 0;
    MPI_Allreduce(&ok, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return out;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* One size and op of the sweep. */
typedef struct sw_point {
    int64_t n, fb, tb; /* order, from and to block sizes */
    int trans, pr, pc, np, rounds;
} sw_point;

/* Rank 0's lines for one point: per implementation a JSON record, or one table row; returns rc
 * raised to 1 if any implementation was wrong. */
static int report(const sweep_opts *so, const sw_point *p, const int *use, double *const *t,
                  const int64_t *wrong, const dmx_status *fail, double t_plan, int rc)
{
    double med[SW_NIMPL];
    for (int i = 0; i < SW_NIMPL; i++)
        med[i] = use[i] && fail[i] == DMX_SUCCESS ? bench_median(t[i], p->rounds) : -1;
    const double ref = med[SW_SCALAPACK];
    for (int i = 0; i < SW_NIMPL; i++) {
        if (!use[i])
            continue;
        if (wrong[i] > 0)
            rc = 1;
        if (so->json) {
            printf("{\"bench\":\"redist_sweep\",\"impl\":\"%s\",\"op\":\"%s\",\"np\":%d,"
                   "\"m\":%lld,\"n\":%lld,\"from_mb\":%lld,\"to_mb\":%lld,\"grid\":\"%dx%d\","
                   "\"align\":%d,\"rounds\":%d,",
                   sw_name[i], p->trans ? "T" : "N", p->np, (long long)p->n, (long long)p->n,
                   (long long)p->fb, (long long)p->tb, p->pr, p->pc, so->align, p->rounds);
            if (med[i] >= 0)
                printf("\"t_med\":%.9g,", med[i]);
            else
                printf("\"t_med\":null,");
            if (i != SW_SCALAPACK && med[i] > 0 && ref > 0)
                printf("\"speedup_vs_scalapack\":%.4g,", ref / med[i]);
            if (i == SW_EXEC)
                printf("\"t_plan\":%.9g,", t_plan);
            printf("\"wrong\":%lld,\"status\":\"%s\"}\n", (long long)wrong[i],
                   fail[i] == DMX_SUCCESS ? "ok" : "failed");
        }
    }
    if (!so->json) {
        printf("%6lld %-2s %5lld %5lld", (long long)p->n, p->trans ? "T" : "N", (long long)p->fb,
               (long long)p->tb);
        for (int i = 0; i < SW_NIMPL; i++)
            if (use[i])
                printf(" %11.1f", med[i] * 1e6);
            else
                printf(" %11s", "-");
        for (int i = 0; i < SW_NIMPL; i++)
            if (i != SW_SCALAPACK && i != SW_EXEC) {
                if (use[i] && med[i] > 0 && ref > 0)
                    printf(" %7.2fx", ref / med[i]);
                else
                    printf(" %8s", "-");
            }
        printf(" %6lld%s\n", (long long)(wrong[0] + wrong[1] + wrong[2] + wrong[3]),
               rc == 3 ? " FAILED" : "");
    }
    fflush(stdout);
    return rc;
}

/* Times one size and op; prints its line(s). Returns 0, 1 (wrong) or 3 (failed). */
static int sweep_one(const sweep_opts *so, int64_t n, int trans, int pr, int pc, int rank, int np,
                     int ctxt, int ictxt)
{
    int use[SW_NIMPL] = {1, 1, 0, 0};
#ifdef DMX_HAVE_SCALAPACK
    use[SW_SCALAPACK] = 1;
#endif
#ifdef BENCH_SWEEP_DROPIN
    use[SW_DROPIN] = 1;
#endif
    int64_t fb = ceil_div(n, 4) < 32 ? ceil_div(n, 4) : 32;
    int64_t tb = ceil_div(n, 2) < 128 ? ceil_div(n, 2) : 128;
    const bench_bc bcb = {n, n, fb, fb, pr, pc}, bca = {n, n, tb, tb, pr, pc};
    sw_size s;
    memset(&s, 0, sizeof s);
    s.trans = trans;
    s.ictxt = ictxt;
    double *bbuf = bench_alloc_aligned((size_t)sw_local_elems(&bcb, rank) * 8, so->align);
    double *abuf = bench_alloc_aligned((size_t)sw_local_elems(&bca, rank) * 8, so->align);
    const int rounds = so->reps * (n <= 64 ? 5 : 1);
    double *t[SW_NIMPL];
    for (int i = 0; i < SW_NIMPL; i++)
        t[i] = calloc((size_t)rounds, sizeof(double));
    int rc = 0, ok = bbuf && abuf && t[0] && t[1] && t[2] && t[3];
    int64_t wrong[SW_NIMPL] = {0, 0, 0, 0};
    dmx_status fail[SW_NIMPL] = {DMX_SUCCESS, DMX_SUCCESS, DMX_SUCCESS, DMX_SUCCESS};
    double t_plan = -1;
    if (!all_ok(ok)) {
        rc = 3;
        goto cleanup;
    }
    sw_mat_init(&s.b, &bcb, rank, ctxt, bbuf);
    sw_mat_init(&s.a, &bca, rank, ctxt, abuf);
    sw_fill(&s.b, n);
    dmx_status st = sw_layout(&s.b, &s.lb);
    if (st == DMX_SUCCESS)
        st = sw_layout(&s.a, &s.la);
    if (st == DMX_SUCCESS) {
        dmx_transform tr = {DMX_DOUBLE, trans ? DMX_OP_T : DMX_OP_N, {1, 0}, {0, 0}, s.lb, s.la, 0,
                            0};
        double t0 = MPI_Wtime();
        st = dmx_plan_create(1, &tr, &s.plan);
        t_plan = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
    }
    if (!all_ok(st == DMX_SUCCESS)) {
        if (rank == 0)
            fprintf(stderr, "sweep n=%lld: dmx setup failed: %s\n", (long long)n, dmx_last_error());
        rc = 3;
        goto cleanup;
    }
    for (int r = -1; r < rounds; r++) {
        for (int i = 0; i < SW_NIMPL; i++) {
            if (!use[i] || fail[i] != DMX_SUCCESS)
                continue;
            sw_fill_nan(&s.a);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            dmx_status cst = sw_call(&s, i);
            double dt = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
            int64_t mine = cst == DMX_SUCCESS ? sw_count_wrong(&s.a, trans, n) : 0, sum = 0;
            int cbad = cst != DMX_SUCCESS, anybad = 0;
            MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(&cbad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (anybad) {
                fail[i] = DMX_ERR_INTERNAL;
                rc = rc ? rc : 3;
                continue;
            }
            wrong[i] = sum > wrong[i] ? sum : wrong[i];
            if (r >= 0)
                t[i][r] = dt;
        }
    }
    if (rank == 0) {
        const sw_point pt = {n, fb, tb, trans, pr, pc, np, rounds};
        rc = report(so, &pt, use, t, wrong, fail, t_plan, rc);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
cleanup:
    dmx_plan_destroy(&s.plan);
    dmx_layout_destroy(&s.la);
    dmx_layout_destroy(&s.lb);
    free(bbuf);
    free(abuf);
    for (int i = 0; i < SW_NIMPL; i++)
        free(t[i]);
    return rc;
}

int bench_sweep_run(const sweep_opts *so)
{
    int rank, np, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int pr = np >= 4 ? 2 : 1, pc = np >= 4 ? 2 : np;
    const int ctxt = sw_blacs_grid(pr, pc), ictxt = sw_blacs_grid(1, np);
    if (rank == 0 && !so->json) {
        printf("dmx bench redist --sweep: np=%d, grid %dx%d, doubles, arrays %d-byte aligned; "
               "median of rounds (max over ranks), microseconds;\n"
               "once = dmx_transform_once (plan+execute+destroy), exec = dmx_plan_execute of a "
               "plan made once; speedup = scalapack / impl\n",
               np, pr, pc, so->align);
        printf("%6s %-2s %5s %5s %11s %11s %11s %11s %8s %8s %6s\n", "n", "op", "B nb", "A nb",
               "once us", "exec us", "scalapack", "dropin us", "once x", "dropin x", "wrong");
        fflush(stdout);
    }
    static const int64_t sizes[] = {1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096};
    int nsz = 0;
    while (nsz < (int)(sizeof sizes / sizeof sizes[0]) && sizes[nsz] <= so->max_n)
        nsz++;
    for (int k = 0; k < nsz; k++) {
        cli_progress(rank != 0, "bench redist --sweep", k + 1, nsz, "n = %lld",
                     (long long)sizes[k]);
        for (int t = 0; t < 2; t++) {
            if (!(t ? so->op_t : so->op_n))
                continue;
            int r = sweep_one(so, sizes[k], t, pr, pc, rank, np, ctxt, ictxt);
            if (r == 1 || (r == 3 && rc == 0))
                rc = r;
        }
    }
    sw_blacs_free(ctxt);
    sw_blacs_free(ictxt);
    return rc;
}
