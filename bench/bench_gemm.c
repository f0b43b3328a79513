/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench gemm: the distributed multiply C = A B (doubles) by dmx (auto and each algorithm)
 * against ScaLAPACK's pdgemm on the same block-cyclic data, and with A, B, C given in 32 x 32
 * blocks (the redistribution's share of the time).
 *
 *   mpirun -n P dmx bench gemm [options]      (dmx bench gemm --help lists them)
 *
 * Grid: the most square pr x pc = P. Data: block-cyclic with blocks ceil(m/pr) x ceil(n/pc) (the
 * layout dmx's SUMMA uses as is; pdgemm gets the same arrays and descriptors), or 32 x 32 blocks.
 * Each configuration: one warm-up, then R timed executions (barrier, MPI_Wtime, max over
 * ranks), the median reported. Every result is checked against a serial reference on 64 sampled
 * elements per rank (max_err: the largest relative error). Peak: min(P, cores online) ranks
 * time the fastest local multiply at once (an n = 2048 dgemm as one CBLAS call: dmx_gemm on
 * MPI_COMM_SELF with the panel forced to n; the rest sleep); peak = mean rate x min(P, cores
 * online). Run with OPENBLAS_NUM_THREADS=1. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "bench_util.h"
#include "cli.h"
#include "dmx.h"
#include "dmx/expert.h"
#ifdef DMX_HAVE_SCALAPACK
#include "bench_scalapack.h" /* pdgemm_ */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The benchmark's communicator: a duplicate of MPI_COMM_WORLD. Under SimGrid's SMPI every rank
 * shares one MPI_COMM_WORLD object and its attributes, so dmx's record of it (the node count
 * among them) was one for all simulated ranks: at 32 and 128 ranks some ranks had counted the
 * nodes and went on to the plan's agreement while others counted, a deadlock (docs/scale.md).
 * A duplicate is each rank's own there, and harmless on a real MPI. */
static MPI_Comm gworld = MPI_COMM_NULL;

static double fa(int64_t i, int64_t j)
{
    return (double)((i * 7 + j * 3) % 17 - 8) / 8.0;
}
static double fb(int64_t i, int64_t j)
{
    return (double)((i * 5 + j * 11) % 13 - 6) / 6.0;
}

typedef struct bc {
    int64_t m, n, mb, nb, lr, lc;
    double *d;
    dmx_layout *l;
} bc;

static int64_t numroc64(int64_t n, int64_t nb, int p, int np)
{
    int64_t full = n / nb, r = full / np * nb, extra = full % np; /* as ScaLAPACK's numroc */
    if (p < extra)
        r += nb;
    else if (p == extra)
        r += n % nb;
    return r;
}

static int make_bc(bc *x, int64_t m, int64_t n, int64_t mb, int64_t nb, int pr, int pc, int rank,
                   double (*f)(int64_t, int64_t))
{
    int myr = rank / pc, myc = rank % pc;
    x->m = m, x->n = n, x->mb = mb, x->nb = nb;
    x->lr = numroc64(m, mb, myr, pr);
    x->lc = numroc64(n, nb, myc, pc);
    x->d =
        calloc((size_t)(x->lr > 0 ? x->lr : 1) * (size_t)(x->lc > 0 ? x->lc : 1), sizeof(double));
    for (int64_t lj = 0; lj < x->lc; lj++)
        for (int64_t li = 0; li < x->lr; li++) {
            int64_t i = (li / mb * pr + myr) * mb + li % mb,
                    j = (lj / nb * pc + myc) * nb + lj % nb;
            x->d[li + lj * x->lr] = f ? f(i, j) : 0.0;
        }
    return dmx_layout_create_block_cyclic(gworld, m, n, mb, nb, pr, pc, 'R', 0, 0, x->d,
                                          x->lr > 0 ? x->lr : 1, &x->l) != DMX_SUCCESS;
}

static void free_bc(bc *x)
{
    dmx_layout_destroy(&x->l);
    free(x->d);
}

/* Largest relative error over 64 sampled local elements of C against a serial dot product. */
static double check(const bc *c, int64_t k, int pr, int pc, int rank)
{
    int myr = rank / pc, myc = rank % pc;
    double err = 0.0;
    for (int s = 0; s < 64 && c->lr > 0 && c->lc > 0; s++) {
        int64_t li = (s * 7919) % c->lr, lj = (s * 104729) % c->lc;
        int64_t i = (li / c->mb * pr + myr) * c->mb + li % c->mb;
        int64_t j = (lj / c->nb * pc + myc) * c->nb + lj % c->nb;
        double ref = 0.0, mag = 0.0;
        for (int64_t l = 0; l < k; l++) {
            ref += fa(i, l) * fb(l, j);
            mag += fabs(fa(i, l) * fb(l, j));
        }
        double e = fabs(c->d[li + lj * c->lr] - ref) / (mag > 0 ? mag : 1.0);
        err = e > err ? e : err;
    }
    double all = 0.0;
    MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, gworld);
    return all;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int warmup = 1; /* --no-warmup: the simulation is deterministic, a warm-up only costs */

static double timed(dmx_gemm_plan *g, int reps)
{
    double t[64] = {0}, best;
    if (reps > 64)
        reps = 64;
    if (reps < 1)
        reps = 1;
    if (warmup)
        dmx_gemm_plan_execute(g);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(gworld);
        double t0 = MPI_Wtime();
        dmx_gemm_plan_execute(g);
        MPI_Barrier(gworld); /* oversubscribed ranks start late: time until the last ends */
        double e = MPI_Wtime() - t0;
        MPI_Allreduce(&e, &t[r], 1, MPI_DOUBLE, MPI_MAX, gworld);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    best = t[reps / 2];
    return best;
}

/* Wait for the others without spinning on a core (Open MPI's blocking calls poll). */
static void idle_barrier(void)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(gworld, &r);
    while (!done) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
}

/* One core's best dgemm rate (GFLOP/s): ranks below the number of cores time a local n x n x n
 * multiply as one CBLAS call (panel n: no narrow rank-b updates) at the same time (the others
 * sleep), the mean of their rates. */
static double core_rate(int ncores)
{
    const int64_t n = 2048;
    int rank, np, measure;
    double rate = 0.0, sum = 0.0;
    MPI_Comm_rank(gworld, &rank);
    MPI_Comm_size(gworld, &np);
    measure = rank < ncores;
    idle_barrier();
    if (measure) {
        double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
               *c = malloc(sizeof(double) * n * n);
        dmx_layout *la = NULL, *lb = NULL, *lc = NULL;
        for (int64_t i = 0; i < n * n; i++)
            a[i] = fa(i % n, i / n), b[i] = fb(i % n, i / n), c[i] = 0;
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, a, n, &la);
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, b, n, &lb);
        dmx_layout_create_block_cyclic(MPI_COMM_SELF, n, n, n, n, 1, 1, 'R', 0, 0, c, n, &lc);
        dmx_scalar one = {1, 0}, zero = {0, 0};
        dmx_gemm_plan *g = NULL;
        dmx_gemm_options o;
        dmx_gemm_options_init(&o);
        o.alg = DMX_GEMM_SUMMA;
        o.panel = n;
        dmx_gemm_plan_create(MPI_COMM_SELF, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, la, lb, zero, lc,
                             &o, &g);
        dmx_gemm_plan_execute(g);
        double best = 1e30;
        for (int r = 0; r < 3; r++) { /* the fastest of three: noise only slows a run down */
            double t0 = MPI_Wtime();
            dmx_gemm_plan_execute(g);
            double e = MPI_Wtime() - t0;
            best = e < best ? e : best;
        }
        rate = 2.0 * (double)n * n * n / best / 1e9;
        dmx_gemm_plan_destroy(&g);
        dmx_layout_destroy(&la);
        dmx_layout_destroy(&lb);
        dmx_layout_destroy(&lc);
        free(a);
        free(b);
        free(c);
    }
    idle_barrier();
    MPI_Allreduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, gworld);
    return sum / (np < ncores ? np : ncores);
}

/* What a dmx plan chose (printed after its line): grid, G, panels. */
static void chosen(int json, int rank, const dmx_gemm_info *i)
{
    if (rank == 0 && !json)
        printf("          chose %s grid %dx%d G %d b %lld B %lld (model %.4f s), temp %.1f MiB\n",
               dmx_gemm_alg_name(i->alg), i->prow, i->pcol, i->groups, (long long)i->panel,
               (long long)i->outer_panel, i->predicted_seconds, (double)i->temp_bytes / 1048576.0);
}

/* peak <= 0 (--no-peak): no fraction of peak is printed (JSON: "frac_peak":null). */
static void report(int json, int rank, const char *impl, const char *alg, const char *layout,
                   int64_t m, int64_t n, int64_t k, int np, double t, double err, double peak,
                   double share)
{
    double gf = 2.0 * (double)m * (double)n * (double)k / t / 1e9;
    char frac[32] = "null", pct[32] = "";
    if (rank != 0)
        return;
    if (peak > 0) {
        snprintf(frac, sizeof frac, "%.3f", gf / peak);
        snprintf(pct, sizeof pct, "  %5.1f%% of peak", 100 * gf / peak);
    }
    if (json)
        printf("{\"bench\":\"gemm\",\"impl\":\"%s\",\"alg\":\"%s\",\"layout\":\"%s\",\"m\":%lld,"
               "\"n\":%lld,\"k\":%lld,\"np\":%d,\"t_med\":%.6f,\"gflops\":%.3f,\"frac_peak\":%s,"
               "\"max_err\":%.3g,\"redist_share\":%.3f}\n",
               impl, alg, layout, (long long)m, (long long)n, (long long)k, np, t, gf, frac, err,
               share);
    else
        printf("%-9s %-7s %-7s %5lldx%5lldx%5lld np %d  t_med %8.4f s  %7.2f GFLOP/s%s  "
               "max_err %.2g\n",
               impl, alg, layout, (long long)m, (long long)n, (long long)k, np, t, gf, pct, err);
    if (!json && share >= 0)
        printf("          redistribution share of the time: %.1f%%\n", 100 * share);
    fflush(stdout);
}

#ifdef DMX_HAVE_SCALAPACK
/* ScaLAPACK's pdgemm on the same arrays and descriptors as dmx ("fit" or "32x32"): what a user
 * whose data is in that layout would otherwise call. */
static void time_pdgemm(int json, int rank, const char *lay, bc *A, bc *B, bc *C, int64_t m,
                        int64_t n, int64_t k, int np, int pr, int pc, int reps, double peak)
{
    int ctxt, desca[9], descb[9], descc[9], info, one_i = 1, zero_i = 0;
    int M = (int)m, N = (int)n, K = (int)k, mb, nb, lld;
    double t[64] = {0};
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    mb = (int)A->mb, nb = (int)A->nb, lld = (int)(A->lr > 0 ? A->lr : 1);
    descinit_(desca, &M, &K, &mb, &nb, &zero_i, &zero_i, &ctxt, &lld, &info);
    mb = (int)B->mb, nb = (int)B->nb, lld = (int)(B->lr > 0 ? B->lr : 1);
    descinit_(descb, &K, &N, &mb, &nb, &zero_i, &zero_i, &ctxt, &lld, &info);
    mb = (int)C->mb, nb = (int)C->nb, lld = (int)(C->lr > 0 ? C->lr : 1);
    descinit_(descc, &M, &N, &mb, &nb, &zero_i, &zero_i, &ctxt, &lld, &info);
    double al = 1.0, be = 0.0;
    int R = reps > 64 ? 64 : reps < 1 ? 1 : reps;
    pdgemm_("N", "N", &M, &N, &K, &al, A->d, &one_i, &one_i, desca, B->d, &one_i, &one_i, descb,
            &be, C->d, &one_i, &one_i, descc);
    for (int r = 0; r < R; r++) {
        MPI_Barrier(gworld);
        double t0 = MPI_Wtime();
        pdgemm_("N", "N", &M, &N, &K, &al, A->d, &one_i, &one_i, desca, B->d, &one_i, &one_i, descb,
                &be, C->d, &one_i, &one_i, descc);
        MPI_Barrier(gworld);
        double e = MPI_Wtime() - t0;
        MPI_Allreduce(&e, &t[r], 1, MPI_DOUBLE, MPI_MAX, gworld);
    }
    qsort(t, (size_t)R, sizeof *t, cmp_d);
    report(json, rank, "scalapack", "pdgemm", lay, m, n, k, np, t[R / 2], check(C, k, pr, pc, rank),
           peak, -1);
    Cblacs_gridexit(ctxt);
}
#else
static void time_pdgemm(int json, int rank, const char *lay, bc *A, bc *B, bc *C, int64_t m,
                        int64_t n, int64_t k, int np, int pr, int pc, int reps, double peak)
{
    (void)json, (void)rank, (void)lay, (void)A, (void)B, (void)C, (void)m, (void)n, (void)k;
    (void)np, (void)pr, (void)pc, (void)reps, (void)peak;
}
#endif

static int parse_alg(const char *v, void *dest)
{
    for (int a = DMX_GEMM_AUTO; a <= DMX_GEMM_CANNON; a++)
        if (strcmp(v, dmx_gemm_alg_name((dmx_gemm_alg)a)) == 0) {
            *(int *)dest = a;
            return 0;
        }
    return -1;
}

typedef struct gemm_args {
    int64_t n, m, k, panel, outer, nodes;
    int reps, json, only, groups, nopeak, nowarmup, datagrid;
} gemm_args;

/* Returns CLI_RUN, CLI_HELP or CLI_ERROR (printed by the first process). */
static int parse(int argc, char **argv, gemm_args *g)
{
    *g = (gemm_args){.n = 4096, .reps = 3, .only = -1, .nodes = 1};
    cli_opt opts[] = {
        CLI_OPT("n", CLI_SIZE, &g->n, 1, 0, "N",
                "columns of C (and m, k unless given); default 4096"),
        CLI_OPT("m", CLI_SIZE, &g->m, 1, 0, "M", "rows of C and A; default N"),
        CLI_OPT("k", CLI_SIZE, &g->k, 1, 0, "K", "inner dimension; default N"),
        CLI_OPT("reps", CLI_INT, &g->reps, 1, 64, "R",
                "timed executions, median reported; default 3"),
        CLI_FLAG_OPT("json", &g->json, "one JSON line per measurement instead of the table"),
        CLI_FUNC_OPT(
            "only", &g->only, parse_alg, "auto, summa, hsumma or cannon", "ALG",
            "time one algorithm (auto, summa, hsumma, cannon) with\n--groups/--panel/--outer, and "
            "print the model's prediction;\ndefault: auto, each algorithm, pdgemm, 32x32 blocks"),
        CLI_OPT_REQ("groups", CLI_INT, &g->groups, 0, 0, "G",
                    "HSUMMA groups; default 0 (the model's)", "only"),
        CLI_OPT_REQ("panel", CLI_SIZE, &g->panel, 0, 0, "b", "panel width; default 0 (the model's)",
                    "only"),
        CLI_OPT_REQ("outer", CLI_SIZE, &g->outer, 0, 0, "B",
                    "HSUMMA outer panel width; default 0 (the model's)", "only"),
        CLI_FLAG_OPT("data-grid", &g->datagrid,
                     "with --only auto: the operands' grid forced, the rest chosen (the\n"
                     "model charges other grids the redistribution; this compares choices\n"
                     "without one)"),
        CLI_OPT_REQ("nodes", CLI_SIZE, &g->nodes, 1, 0, "N",
                    "nodes the model assumes for its prediction; default 1", "only"),
        CLI_FLAG_OPT("no-peak", &g->nopeak,
                     "do not measure the core rate; no % of peak is printed"),
        CLI_FLAG_OPT("no-warmup", &g->nowarmup, "no untimed execution first; default one warm-up"),
    };
    cli_spec spec = {"bench gemm",
                     1,
                     "[options]",
                     "Times C = A B (doubles) by dmx (auto and each algorithm) and ScaLAPACK's "
                     "pdgemm,\nwith blocks that fit and with 32 x 32 blocks; checks 64 elements "
                     "per rank.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    return cli_parse(&spec, argc, argv, bench_first_process());
}

/* The model's prediction for the configuration the plan chose (info), nodes as given, beside
 * the measured t: one JSON line. */
static void predicted(const dmx_gemm_info *info, int64_t m, int64_t n, int64_t k, int np,
                      int64_t nodes, double t)
{
    dmx_gemm_options po;
    dmx_gemm_info pred;
    dmx_gemm_options_init(&po);
    po.prow = info->prow, po.pcol = info->pcol;
    po.groups = info->alg == DMX_GEMM_HSUMMA ? info->groups : 0;
    po.panel = info->alg == DMX_GEMM_CANNON ? 0 : info->panel;
    po.outer_panel = info->alg == DMX_GEMM_HSUMMA ? info->outer_panel : 0;
    if (dmx_gemm_predict(info->alg, DMX_DOUBLE, m, n, k, np, nodes, &po, &pred) == DMX_SUCCESS)
        printf("{\"bench\":\"gemm_sim\",\"alg\":\"%s\",\"np\":%d,\"grid\":\"%dx%d\","
               "\"G\":%d,\"b\":%lld,\"B\":%lld,\"n\":%lld,\"t_med\":%.6f,"
               "\"t_model\":%.6f}\n",
               dmx_gemm_alg_name(info->alg), np, info->prow, info->pcol, info->groups,
               (long long)info->panel, (long long)info->outer_panel, (long long)n, t,
               pred.predicted_seconds);
}

static int run(const gemm_args *ga)
{
    int64_t n = ga->n, m = ga->m, k = ga->k, panel = ga->panel, outer = ga->outer,
            nodes = ga->nodes;
    int reps = ga->reps, json = ga->json, rank, np, pr = 1, pc, only = ga->only,
        groups = ga->groups, nopeak = ga->nopeak;
    warmup = !ga->nowarmup;
    m = m > 0 ? m : n;
    k = k > 0 ? k : n;
    MPI_Comm_rank(gworld, &rank);
    MPI_Comm_size(gworld, &np);
    for (int r = 1; r * r <= np; r++)
        if (np % r == 0)
            pr = r;
    pc = np / pr;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* progress: the core rate, each algorithm, pdgemm, then auto and pdgemm on 32 x 32 blocks */
    const int nalg = DMX_GEMM_CANNON - DMX_GEMM_AUTO + 1;
    const int total = (nopeak ? 0 : 1) + (only >= 0 ? 1 : nalg + 3);
    int step = 0;
    if (!nopeak)
        cli_progress(rank != 0, "bench gemm", ++step, total,
                     "core rate: one 2048^3 dgemm per core");
    double core = nopeak ? 0.0 : core_rate((int)cores);
    double peak = core * (double)(np < cores ? np : cores);
    if (rank == 0 && !json && nopeak)
        printf("# grid %dx%d, peak not measured (--no-peak)\n", pr, pc);
    else if (rank == 0 && !json)
        printf("# grid %dx%d, core rate %.2f GFLOP/s (one 2048^3 dgemm call per core), peak %.2f "
               "GFLOP/s (core rate x min(np, %ld cores)); timings on a shared machine are noisy\n",
               pr, pc, core, peak, cores);
    dmx_scalar one = {1, 0}, zero = {0, 0};
    bc A, B, C;
    int bad = make_bc(&A, m, k, (m + pr - 1) / pr, (k + pc - 1) / pc, pr, pc, rank, fa);
    bad |= make_bc(&B, k, n, (k + pr - 1) / pr, (n + pc - 1) / pc, pr, pc, rank, fb);
    bad |= make_bc(&C, m, n, (m + pr - 1) / pr, (n + pc - 1) / pc, pr, pc, rank, NULL);
    double t_fit = 0;
    for (int a = DMX_GEMM_AUTO; a <= DMX_GEMM_CANNON && !bad; a++) {
        dmx_gemm_options o;
        dmx_gemm_plan *g = NULL;
        dmx_gemm_options_init(&o);
        o.alg = (dmx_gemm_alg)a;
        if (only < 0 || a == only)
            cli_progress(rank != 0, "bench gemm", ++step, total, "dmx %s, blocks that fit",
                         dmx_gemm_alg_name((dmx_gemm_alg)a));
        if (only >= 0) {
            if (a != only)
                continue;
            o.groups = groups, o.panel = panel, o.outer_panel = outer;
            if ((a != DMX_GEMM_AUTO || ga->datagrid) && (a != DMX_GEMM_CANNON || pr == pc))
                o.prow = pr, o.pcol = pc; /* data grid */
        }
        if (dmx_gemm_plan_create(gworld, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.l, B.l, zero, C.l,
                                 &o, &g) != DMX_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "%s: %s\n", dmx_gemm_alg_name(o.alg), dmx_last_error());
            continue;
        }
        double t = timed(g, reps);
        dmx_gemm_info info;
        dmx_gemm_plan_get_info(g, &info);
        if (a == DMX_GEMM_AUTO)
            t_fit = t;
        char alg[32];
        snprintf(alg, sizeof alg, "%s%s", a == DMX_GEMM_AUTO ? "auto:" : "",
                 dmx_gemm_alg_name(info.alg));
        report(json, rank, "dmx", alg, "fit", m, n, k, np, t, check(&C, k, pr, pc, rank), peak, -1);
        chosen(json, rank, &info);
        if (only >= 0 && rank == 0)
            predicted(&info, m, n, k, np, nodes, t);
        dmx_gemm_plan_destroy(&g);
    }
    if (only >= 0)
        goto done;
    cli_progress(rank != 0, "bench gemm", ++step, total, "pdgemm, blocks that fit");
    time_pdgemm(json, rank, "fit", &A, &B, &C, m, n, k, np, pr, pc, reps, peak);
    free_bc(&A);
    free_bc(&B);
    free_bc(&C);
    /* A, B, C in 32 x 32 blocks: dmx auto redistributes them; share = 1 - t_fit / t. */
    bad |= make_bc(&A, m, k, 32, 32, pr, pc, rank, fa);
    bad |= make_bc(&B, k, n, 32, 32, pr, pc, rank, fb);
    bad |= make_bc(&C, m, n, 32, 32, pr, pc, rank, NULL);
    if (!bad) {
        dmx_gemm_plan *g = NULL;
        cli_progress(rank != 0, "bench gemm", ++step, total, "dmx auto, 32 x 32 blocks");
        if (dmx_gemm_plan_create(gworld, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.l, B.l, zero, C.l,
                                 NULL, &g) == DMX_SUCCESS) {
            double t = timed(g, reps);
            dmx_gemm_info info;
            dmx_gemm_plan_get_info(g, &info);
            char alg[32];
            snprintf(alg, sizeof alg, "auto:%s", dmx_gemm_alg_name(info.alg));
            report(json, rank, "dmx", alg, "32x32", m, n, k, np, t, check(&C, k, pr, pc, rank),
                   peak, t_fit > 0 ? 1.0 - t_fit / t : -1);
            chosen(json, rank, &info);
        }
        dmx_gemm_plan_destroy(&g);
        cli_progress(rank != 0, "bench gemm", ++step, total, "pdgemm, 32 x 32 blocks");
        time_pdgemm(json, rank, "32x32", &A, &B, &C, m, n, k, np, pr, pc, reps, peak);
    }
done:
    free_bc(&A);
    free_bc(&B);
    free_bc(&C);
    return bad;
}

int dmx_cmd_bench_gemm(int argc, char **argv)
{
    gemm_args ga;
    int p = parse(argc, argv, &ga);
    if (p != CLI_RUN)
        return p == CLI_HELP ? 0 : 2;
    MPI_Init(&argc, &argv);
    if (bench_world_dup(&gworld) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int rc = run(&ga);
    /* Every line out before any rank finalizes: under SimGrid's SMPI all ranks are one process,
     * and a rank may abort in MPI_Finalize (docs/scale.md), losing a buffered stdout. */
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&gworld);
    MPI_Finalize();
    return rc;
}
