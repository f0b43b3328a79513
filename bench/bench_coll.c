/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench coll: every collective x every algorithm x AUTO x the MPI library's own call, at
 * sizes 8 B to 64 MiB, MPI_COMM_WORLD. Median of interleaved rounds (each round runs every
 * algorithm once, each round starting with a different one), time = max over ranks, every result
 * verified against MPI's; the model's prediction beside each measurement. Also a sweep of the
 * pipelined broadcast's segment count (--sweep-segments).
 *
 * Before a cell is measured AUTO is called until its choice is settled (its trials, coll_tune.c),
 * so the table shows what a program that repeats the call gets.
 *
 * Output: a table per collective with the median time of each algorithm, AUTO's settled choice
 * (marked * where the trials overruled the model's pick) and the ratios auto/best and mpi/best;
 * --json prints one line per measurement instead ({"bench":"coll","coll":...,"alg":...,
 * "bytes":...,"np":...,"t_med":...,"t_pred":...,"wrong":...}, no t_pred for mpi; AUTO's line
 * also "pick", "model_pick" and "trials", the calls before it settled). The foreign load
 * (/proc/loadavg) before and after is printed so noisy runs can be recognized. */
#include "bench.h"
#include "bench_coll.h"
#include "bench_util.h"
#include "cli.h"
#include "dmx/expert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXS = 32, MAXREP = 41, AUTOREP = 21 };

typedef struct opts {
    int json, reps, retries, kinds[DMX_COLL_NKINDS], algs[DMX_COLL_NALGS];
    int64_t minb, maxb, sweep, cap, overhead;
    double budget, sample;
} opts;

MPI_Comm bcoll_world;

static void loadavg(char *buf, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    buf[0] = '\0';
    if (f) {
        if (fgets(buf, (int)n, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    size_t l = strlen(buf);
    if (l > 0 && buf[l - 1] == '\n')
        buf[l - 1] = '\0';
}

/* -1, 0 or 1: a below, within 5 % of, or above b. Algorithms that run the same code (at np 2 the
 * flat, ring, binomial and grid broadcasts all send one message) measure within noise of each
 * other in either order, so a strict order of such a pair is a coin toss; with ties the model
 * agrees on it when it predicts the two within 5 % too (AUTO's margin). */
static int tie_sign(double a, double b)
{
    if (a > 1.05 * b)
        return 1;
    if (b > 1.05 * a)
        return -1;
    return 0;
}

/* Run AUTO on c until its choice is settled (at most 64 calls; every rank settles at the same
 * call); *pick: the settled choice. Returns the calls made; wrong results are added to
 * *wrong (NULL: AUTO is not measured, nothing is run). */
static int settle_auto(bcoll_case *c, int *wrong, dmx_coll_alg *pick)
{
    int settled = 0, n = 0, w = 0;
    (void)dmx_coll_auto_choice(bcoll_world, c->kind, c->bytes, pick, &settled);
    for (; wrong != NULL && !settled && n < 64; n++) {
        bcoll_time(c, DMX_COLL_AUTO, 0, &w); /* one untimed call + one timed: two trials */
        *wrong += w;
        (void)dmx_coll_auto_choice(bcoll_world, c->kind, c->bytes, pick, &settled);
    }
    return 2 * n;
}

static void sweep_segments(const opts *o, int rank, int p)
{
    bcoll_case c;
    if (bcoll_setup(&c, DMX_COLL_BCAST, o->sweep) != 0)
        return;
    int64_t rs[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128};
    int nr = (int)(sizeof rs / sizeof rs[0]);
    double t[16][MAXREP];
    int reps = o->reps > 0 ? o->reps : 7, wrong = 0, bad = 0;
    for (int i = 0; i < nr; i++) { /* warm up */
        dmx_coll_set_pipeline_segments(rs[i]);
        bcoll_time(&c, DMX_COLL_PIPELINE, 1, &wrong);
    }
    for (int k = 0; k < reps; k++)
        for (int j = 0; j < nr; j++) {
            int i = (j + k) % nr; /* each round starts elsewhere (see the main loop) */
            dmx_coll_set_pipeline_segments(rs[i]);
            t[i][k] = bcoll_time(&c, DMX_COLL_PIPELINE, 1, &wrong);
            bad += wrong;
        }
    dmx_coll_set_pipeline_segments(0);
    int64_t model = 0;
    double textbook = 0;
    dmx_coll_pipeline_segments(p, c.bytes, bcoll_nodes(), &model, &textbook);
    double tm[16], best = 1e300;
    int bi = 0;
    for (int i = 0; i < nr; i++) {
        tm[i] = bench_median(t[i], reps);
        if (tm[i] < best) {
            best = tm[i];
            bi = i;
        }
    }
    /* The model's r measured: the nearest swept value at or below it, and above it. */
    double at_model = -1;
    for (int i = 0; i < nr; i++)
        if (rs[i] <= model)
            at_model = tm[i];
    if (rank == 0) {
        for (int i = 0; i < nr; i++)
            if (o->json)
                printf("{\"bench\":\"coll_segments\",\"bytes\":%lld,\"np\":%d,\"segments\":%lld,"
                       "\"t_med\":%.9g,\"wrong\":%d}\n",
                       (long long)c.bytes, p, (long long)rs[i], tm[i], bad);
            else
                printf("segments %4lld  t_med %10.1f us%s\n", (long long)rs[i], tm[i] * 1e6,
                       i == bi ? "  <- best" : "");
        printf("%smodel picks %lld segments (textbook %.1f), best measured %lld; "
               "t(model)/t(best) = %.2f (nearest swept value at or below)%s\n",
               o->json ? "# " : "", (long long)model, textbook, (long long)rs[bi], at_model / best,
               bad ? "  WRONG RESULTS" : "");
    }
    bcoll_free(&c);
}

/* The front end's cost per call: n 8-byte broadcasts from rank 0 in a row by MPI_Bcast (on a
 * duplicate of MPI_COMM_WORLD), by dmx AUTO, by dmx naming the algorithm "mpi" and by dmx
 * binomial. Rounds run every variant once, starting with a different one each round; per round
 * and variant the elapsed time (max over ranks) / n; the median over rounds is printed. */
static void overhead(const opts *o, int rank, int p)
{
    enum { NV = 4, ROUNDS = 7 };
    const char *names[NV] = {"MPI_Bcast", "dmx auto", "dmx mpi", "dmx binomial"};
    const dmx_coll_alg algs[NV] = {DMX_COLL_MPI, DMX_COLL_AUTO, DMX_COLL_MPI, DMX_COLL_BINOMIAL};
    double t[NV][ROUNDS], buf = 1.0;
    int64_t n = o->overhead;
    int bad = 0;
    MPI_Comm dup;
    MPI_Comm_dup(bcoll_world, &dup);
    dmx_coll_alg pick = DMX_COLL_MPI;
    for (int v = 1; v < NV; v++) /* warm up: the communicator cache, AUTO's memo */
        bad |= dmx_coll_bcast(&buf, 1, MPI_DOUBLE, 0, bcoll_world, algs[v]) != DMX_SUCCESS;
    for (int settled = 0, i = 0; i < 64; i++) { /* and AUTO's trials (coll_tune.c) */
        dmx_coll_auto_choice(bcoll_world, DMX_COLL_BCAST, 8, &pick, &settled);
        if (settled)
            break;
        bad |= dmx_coll_bcast(&buf, 1, MPI_DOUBLE, 0, bcoll_world, DMX_COLL_AUTO) != DMX_SUCCESS;
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < NV; j++) {
            int v = (j + r) % NV;
            MPI_Barrier(bcoll_world);
            double t0 = MPI_Wtime();
            if (v == 0)
                for (int64_t i = 0; i < n; i++)
                    bad |= MPI_Bcast(&buf, 1, MPI_DOUBLE, 0, dup) != MPI_SUCCESS;
            else
                for (int64_t i = 0; i < n; i++)
                    bad |=
                        dmx_coll_bcast(&buf, 1, MPI_DOUBLE, 0, bcoll_world, algs[v]) != DMX_SUCCESS;
            t[v][r] = bench_max_over_ranks(bcoll_world, MPI_Wtime() - t0) / (double)n;
        }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, bcoll_world);
    double base = bench_median(t[0], ROUNDS);
    if (rank == 0) {
        printf("# %lld 8-byte broadcasts in a row, np %d, median of %d rounds (AUTO picks %s)\n",
               (long long)n, p, ROUNDS, dmx_coll_alg_name(pick));
        for (int v = 0; v < NV; v++) {
            double m = bench_median(t[v], ROUNDS);
            if (o->json)
                printf("{\"bench\":\"coll_overhead\",\"impl\":\"%s\",\"np\":%d,\"calls\":%lld,"
                       "\"t_call\":%.9g,\"wrong\":%d}\n",
                       names[v], p, (long long)n, m, anybad);
            else
                printf("%-14s %8.1f ns per call  (%+.1f ns vs MPI_Bcast)\n", names[v], m * 1e9,
                       (m - base) * 1e9);
        }
        if (anybad)
            printf("# some calls failed\n");
    }
    MPI_Comm_free(&dup);
}

static int parse_kinds(const char *v, void *dest)
{
    return bcoll_parse_names(v, dest, DMX_COLL_NKINDS, 0);
}

static int parse_algs(const char *v, void *dest)
{
    return bcoll_parse_names(v, dest, DMX_COLL_NALGS, 1);
}

/* CLI_RUN, CLI_HELP or CLI_ERROR (printed by the first process). */
static int parse_coll(int argc, char **argv, opts *o, int *malloc_default)
{
    cli_opt opts_[] = {
        CLI_FLAG_OPT("json", &o->json, "one JSON line per measurement instead of the tables"),
        CLI_FUNC_OPT("coll", o->kinds, parse_kinds, "collective names, comma-separated", "LIST",
                     "collectives (bcast,scatter,...); default all"),
        CLI_FUNC_OPT("alg", o->algs, parse_algs, "algorithm names, comma-separated", "LIST",
                     "algorithms (mpi,auto,ring,...; dmx: all of dmx's own); default all"),
        CLI_OPT("min", CLI_SIZE, &o->minb, 0, 0, "BYTES",
                "smallest size (8 B x 8^k up to 64 MiB; blocked\ncollectives: per block); "
                "default 8"),
        CLI_OPT("max", CLI_SIZE, &o->maxb, 0, 0, "BYTES", "largest size; default 64M"),
        CLI_OPT("reps", CLI_INT, &o->reps, 0, MAXREP, "N",
                "rounds per cell; default 0: as many as --budget allows\n(7 to 41)"),
        CLI_OPT("budget", CLI_DOUBLE, &o->budget, 0, 0, "SECONDS",
                "time per cell when --reps is 0; default 0.6"),
        CLI_OPT("sample", CLI_DOUBLE, &o->sample, 0, 0, "SECONDS",
                "time one sample (a batch of calls) should last; default\n200e-6. Shorter "
                "makes fewer calls per cell (simulators\nsimulate every call); longer keeps "
                "more of the barrier's\nskew out of sub-microsecond calls"),
        CLI_OPT("retries", CLI_INT, &o->retries, 0, 0, "N",
                "measure a cell again (up to N times) when auto and the\nalgorithm it runs "
                "measure more than 10% apart; default 2"),
        CLI_OPT("sweep-segments", CLI_SIZE, &o->sweep, 1, 0, "BYTES",
                "instead: the pipelined broadcast of BYTES at 1..128\nsegments"),
        CLI_OPT("overhead", CLI_I64, &o->overhead, 1, 0, "CALLS",
                "instead: ns per call of CALLS 8-byte broadcasts in a row,\nMPI_Bcast vs dmx"),
        CLI_FLAG_OPT("malloc-default", malloc_default,
                     "keep glibc's allocator settings (default: freed memory\nkept, so "
                     "temporaries do not page-fault depending on what\nran before)"),
    };
    cli_spec spec = {"bench coll",
                     1,
                     "[options]",
                     "Every collective x every algorithm x AUTO x MPI's own call, sizes 8 B to 64 "
                     "MiB, on\nMPI_COMM_WORLD: median of interleaved rounds, max over ranks, "
                     "every result checked\nagainst MPI's, the model's prediction beside each. "
                     "Cases needing more than 128 MiB\nper buffer are skipped. Progress on "
                     "stderr.",
                     opts_,
                     CLI_NOPTS(opts_),
                     NULL};
    int loud = bench_first_process();
    int rc = cli_parse(&spec, argc, argv, loud);
    if (rc == CLI_RUN && o->minb > o->maxb) {
        if (loud)
            cli_error(&spec, "--min %lld is larger than --max %lld", (long long)o->minb,
                      (long long)o->maxb);
        rc = CLI_ERROR;
    }
    if (rc == CLI_RUN && o->sweep > 0 && o->overhead > 0) {
        if (loud)
            cli_error(&spec, "--sweep-segments and --overhead exclude each other");
        rc = CLI_ERROR;
    }
    return rc;
}

/* The summary over cells: auto within 1.1x of the best; cells where MPI is >= 1.5x slower than
 * the best and auto beats MPI by >= 1.3x; model order of dmx algorithms vs measured. */
typedef struct tally {
    int total_wrong;
    int cells, auto_ok, mpi_slow, auto_beats, pairs, concord;
    int dpairs, dconcord;     /* pairs whose measured times differ by more than 10% */
    int tconcord;             /* pairs whose order agrees when a difference within 5 % is a tie */
    int remeasured, disagree; /* cells measured again; cells whose auto and pick differ */
    int overruled;            /* cells where AUTO's trials overruled the model's pick */
} tally;

/* One cell (collective, size) of the table: medians and wrong results per algorithm, AUTO's
 * pick and the model's, and how the measurement went. */
typedef struct cell {
    double med[DMX_COLL_NALGS];
    int wrong[DMX_COLL_NALGS], calls, reps, tries, agree, tuned;
    dmx_coll_alg pick, mpick;
    double best, tauto, tmpi;
} cell;

/* Does the model order the dmx algorithms of the cell as measured? Pairs counted in T. */
static void model_order(const bcoll_case *c, const int *algs, int na, const double *med, tally *T)
{
    for (int i = 0; i < na; i++)
        for (int j = i + 1; j < na; j++) {
            if (algs[i] <= DMX_COLL_MPI || algs[j] <= DMX_COLL_MPI)
                continue;
            double pi = bcoll_predict(c, (dmx_coll_alg)algs[i], NULL);
            double pj = bcoll_predict(c, (dmx_coll_alg)algs[j], NULL);
            T->pairs++;
            T->concord += (pi < pj) == (med[i] < med[j]);
            T->tconcord += tie_sign(pi, pj) == tie_sign(med[i], med[j]);
            if (med[i] > 1.1 * med[j] || med[j] > 1.1 * med[i]) {
                T->dpairs++;
                T->dconcord += (pi < pj) == (med[i] < med[j]);
            }
        }
}

/* Rank 0's output for one cell: one JSON line per algorithm, or one table row. */
static void cell_print(const opts *o, const bcoll_case *c, int kind, const int *algs, int na,
                       const cell *x, int p)
{
    if (o->json) {
        for (int i = 0; i < na; i++) {
            printf("{\"bench\":\"coll\",\"coll\":\"%s\",\"alg\":\"%s\",\"bytes\":%lld,"
                   "\"np\":%d,\"t_med\":%.9g",
                   dmx_coll_kind_name(kind), dmx_coll_alg_name((dmx_coll_alg)algs[i]),
                   (long long)c->bytes, p, x->med[i]);
            if (algs[i] != DMX_COLL_MPI)
                printf(",\"t_pred\":%.9g", bcoll_predict(c, (dmx_coll_alg)algs[i], NULL));
            if (algs[i] == DMX_COLL_AUTO)
                printf(",\"pick\":\"%s\",\"model_pick\":\"%s\",\"trials\":%d",
                       dmx_coll_alg_name(x->pick), dmx_coll_alg_name(x->mpick), x->tuned);
            printf(",\"reps\":%d,\"calls\":%d,\"wrong\":%d}\n", x->reps, x->calls, x->wrong[i]);
        }
    } else {
        printf("%10lld", (long long)c->bytes);
        for (int i = 0; i < na; i++)
            printf(" %10.1f%s", x->med[i] * 1e6, x->wrong[i] ? "!" : "");
        printf("  %-9s%c%c", dmx_coll_alg_name(x->pick), x->pick != x->mpick ? '*' : ' ',
               x->agree ? (x->tries ? 'r' : ' ') : '~');
        if (x->tauto > 0)
            printf(" %8.2f", x->tauto / x->best);
        else
            printf(" %8s", "-");
        if (x->tmpi > 0)
            printf(" %8.2f", x->tmpi / x->best);
        printf(" %5d\n", x->calls);
    }
    fflush(stdout);
}

/* Measure one cell (collective kind, b bytes) over algs, print it and add it to T. Collective. */
static void one_cell(const opts *o, int kind, const int *algs, int na, int64_t b, int rank, int p,
                     int nodes, tally *T)
{
    int64_t per =
        (kind == DMX_COLL_SCATTER || kind == DMX_COLL_GATHER || kind == DMX_COLL_ALLGATHER ||
         kind == DMX_COLL_REDUCE_SCATTER || kind == DMX_COLL_ALLTOALL)
            ? p
            : 1;
    if (b * per > o->cap)
        return;
    bcoll_case c;
    if (bcoll_setup(&c, (dmx_coll_kind)kind, b) != 0)
        return;
    c.sample = o->sample;
    cell x = {.calls = 1, .agree = 1, .pick = DMX_COLL_MPI, .mpick = DMX_COLL_MPI};
    (void)dmx_coll_choose((dmx_coll_kind)kind, p, c.bytes, nodes, &x.mpick);
    int ia = -1, ip = -1; /* AUTO's column and its pick's: the same algorithm twice */
    for (int i = 0; i < na; i++)
        ia = algs[i] == DMX_COLL_AUTO ? i : ia;
    /* AUTO's trials (coll_tune.c) first: the table measures what AUTO settles on, as a
     * program that repeats the call sees it. Each trial's result is verified too. */
    x.tuned = settle_auto(&c, ia >= 0 ? &x.wrong[ia] : NULL, &x.pick);
    for (int i = 0; i < na; i++)
        ip = algs[i] == (int)x.pick ? i : ip;
    /* The consistency check: AUTO runs its pick, so the two columns measure the same
     * algorithm; apart by more than 10 %, the cell saw a slow spell of the machine and
     * is measured again (up to --retries times; the last measurement stands, and the
     * summary counts the cells that never agreed). */
    do {
        int wr[DMX_COLL_NALGS];
        x.reps = bcoll_measure(&c, algs, na, o->reps, o->budget, AUTOREP, x.med, wr, &x.calls);
        for (int i = 0; i < na; i++)
            x.wrong[i] += wr[i];
        x.agree =
            ia < 0 || ip < 0 || (x.med[ia] <= 1.1 * x.med[ip] && x.med[ip] <= 1.1 * x.med[ia]);
    } while (!x.agree && x.tries++ < o->retries);
    T->remeasured += x.tries > 0;
    T->overruled += ia >= 0 && x.pick != x.mpick;
    T->disagree += !x.agree;
    x.best = 1e300, x.tauto = -1, x.tmpi = -1;
    for (int i = 0; i < na; i++) {
        T->total_wrong += x.wrong[i];
        if (x.med[i] < x.best)
            x.best = x.med[i];
        if (algs[i] == DMX_COLL_AUTO)
            x.tauto = x.med[i];
        if (algs[i] == DMX_COLL_MPI)
            x.tmpi = x.med[i];
    }
    if (x.tauto > 0 && x.tmpi > 0) {
        T->cells++;
        T->auto_ok += x.tauto <= 1.1 * x.best;
        if (x.tmpi >= 1.5 * x.best) {
            T->mpi_slow++;
            T->auto_beats += x.tmpi >= 1.3 * x.tauto;
        }
    }
    model_order(&c, algs, na, x.med, T);
    if (rank == 0)
        cell_print(o, &c, kind, algs, na, &x, p);
    bcoll_free(&c);
}

/* The table of one collective: every size from --min to --max (x8) over the chosen algorithms. */
static void one_kind(const opts *o, int kind, int rank, int p, int nodes, tally *T)
{
    int algs[DMX_COLL_NALGS], na = 0;
    for (int a = 0; a < DMX_COLL_NALGS; a++)
        if (o->algs[a] && dmx_coll_alg_valid((dmx_coll_kind)kind, (dmx_coll_alg)a))
            algs[na++] = a;
    if (rank == 0 && !o->json) {
        printf("\n%s (np %d; median us, max over ranks)\n%10s", dmx_coll_kind_name(kind), p,
               "bytes");
        for (int i = 0; i < na; i++)
            printf(" %10s", dmx_coll_alg_name((dmx_coll_alg)algs[i]));
        printf("  %-11s %8s %8s %5s\n", "auto-pick", "auto/bst", "mpi/bst", "x");
    }
    for (int64_t b = 8; b <= o->maxb; b = b * 8 > (64 << 20) && b < (64 << 20) ? (64 << 20) : b * 8)
        if (b >= o->minb)
            one_cell(o, kind, algs, na, b, rank, p, nodes, T);
}

static void print_summary(const tally *T, int retries)
{
    printf("# summary: auto within 1.1x of the best in %d of %d cells; MPI >= 1.5x slower "
           "than the best in %d cells, auto >= 1.3x faster than MPI in %d of them; model "
           "orders %d of %d algorithm pairs as measured (%.0f%%), %d of the %d pairs that "
           "differ by more than 10%% (%.0f%%)\n",
           T->auto_ok, T->cells, T->mpi_slow, T->auto_beats, T->concord, T->pairs,
           T->pairs ? 100.0 * T->concord / T->pairs : 0.0, T->dconcord, T->dpairs,
           T->dpairs ? 100.0 * T->dconcord / T->dpairs : 0.0);
    printf("# model order with ties (two times within 5%% of each other are a tie, in the "
           "model and in the measurement): %d of %d pairs (%.0f%%)\n",
           T->tconcord, T->pairs, T->pairs ? 100.0 * T->tconcord / T->pairs : 0.0);
    printf("# consistency: auto and the algorithm it runs measured within 10%% of each other "
           "in %d of %d cells (%d cells measured again, up to %d times; r = again, ~ = never "
           "agreed)\n",
           T->cells - T->disagree, T->cells, T->remeasured, retries);
    printf("# AUTO's trials overruled the model's pick in %d of %d cells (marked *)\n",
           T->overruled, T->cells);
}

int dmx_cmd_bench_coll(int argc, char **argv)
{
    opts o = {0};
    int malloc_default = 0;
    o.minb = 8;
    o.maxb = 64 << 20;
    o.cap = 128 << 20;
    o.budget = 0.6;
    o.sample = BCOLL_SAMPLE;
    o.retries = 2;
    for (int i = 0; i < DMX_COLL_NKINDS; i++)
        o.kinds[i] = 1;
    for (int i = 0; i < DMX_COLL_NALGS; i++)
        o.algs[i] = 1;
    int pr = parse_coll(argc, argv, &o, &malloc_default);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    int steady = malloc_default ? 0 : bcoll_steady_malloc(argc, argv); /* before MPI allocates */
    MPI_Init(&argc, &argv);
    /* Everything runs on a duplicate: SimGrid's SMPI keeps one MPI_COMM_WORLD object, and so
     * one set of attributes (dmx's per-communicator caches), for all simulated ranks. */
    bench_world_dup(&bcoll_world);
    int rank = 0, p = 0;
    MPI_Comm_rank(bcoll_world, &rank);
    MPI_Comm_size(bcoll_world, &p);
    if (o.reps > MAXREP)
        o.reps = MAXREP;
    char l0[128], l1[128];
    loadavg(l0, sizeof l0);
    int nodes = bcoll_nodes(); /* collective: every rank */
    if (rank == 0)
        printf("# dmx bench coll: np %d, nodes %d, load before: %s; allocator %s\n", p, nodes, l0,
               steady ? "steady (freed memory kept)" : "default");
    tally T = {0};
    if (o.sweep > 0) {
        sweep_segments(&o, rank, p);
    } else if (o.overhead > 0) {
        overhead(&o, rank, p);
    } else {
        int nkinds = 0, kstep = 0;
        for (int kind = 0; kind < DMX_COLL_NKINDS; kind++)
            nkinds += o.kinds[kind];
        for (int kind = 0; kind < DMX_COLL_NKINDS; kind++) {
            if (!o.kinds[kind])
                continue;
            cli_progress(rank != 0, "bench coll", ++kstep, nkinds, "%s, sizes %lld .. %lld bytes",
                         dmx_coll_kind_name((dmx_coll_kind)kind), (long long)o.minb,
                         (long long)o.maxb);
            one_kind(&o, kind, rank, p, nodes, &T);
        }
        if (rank == 0)
            print_summary(&T, o.retries);
    }
    loadavg(l1, sizeof l1);
    if (rank == 0)
        printf("# load after: %s; wrong results: %d%s\n", l1, T.total_wrong,
               T.total_wrong ? " (marked !)" : "");
    MPI_Comm_free(&bcoll_world);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has printed before any rank finalizes */
    MPI_Finalize();
    return T.total_wrong ? 1 : 0;
}
