/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx calibrate: measure this machine's parameters for the collectives' cost model and write
 * them as a model file (format: docs/coll.md; read with DMX_MODEL=FILE).
 *
 *  1. Point to point: ping-pong between ranks 0 and 1 (the other ranks wait in a barrier) at
 *     sizes in three ranges (up to 4 KiB, the eager limit; up to 256 KiB; beyond), one-way time
 *     = half the median round trip, and a least-squares fit of alpha + n beta per range. All
 *     ranks on one node: the inter-node parameters are left out, so the model uses the intra
 *     ones for both (the file says so).
 *  2. gamma: a timed MPI_Reduce_local (sum of ints) over 8 MiB.
 *  3. segment_overhead (p >= 3): the pipelined broadcast of 8 MiB with 1..64 segments; the
 *     least-squares o in T(r) = (p + r - 2)(t(m / r) + o).
 *  4. The sparse exchange (one node, p >= 2): NBX, PEX and PCX timed, the fastest written as
 *     `exchange = NAME`, AUTO's protocol on one node (tools/calibrate_exchange.c).
 *  5. Corrections (unless --no-corr): every collective and algorithm, and the MPI library's own
 *     call, measured at a few sizes; corr.<coll>.<alg> = measured / predicted and mpi.<coll> =
 *     MPI's time / the best algorithm's, per size range (boundaries at geometric midpoints).
 * Everything measured is written as the section `np = P` of the output file: a file that already
 * has sections keeps those of other np (factors measured at each job size, docs/coll.md), one
 * without sections is replaced. Timings on a shared machine are noisy: run it on a quiet one. */
#define _XOPEN_SOURCE 700 /* mkstemp, fdopen */

#include "bench_coll.h"
#include "bench_util.h"
#include "cli.h"
#include "dmx/expert.h"
#include "dmx_tool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TXT = 1 << 16 };

/* One-way time of an n-byte message: half a round trip between ranks 0 and 1, each sample a
 * batch of round trips lasting about BCOLL_SAMPLE (a single sub-microsecond round trip is below
 * what one clock reading after a barrier resolves), median over reps samples. */
static double pingpong(MPI_Comm c, int rank, char *buf, int64_t n, int reps)
{
    double t[64];
    int calls = 1;
    if (reps > 64)
        reps = 64;
    for (int k = -2; k < reps; k++) {
        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++) {
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 3, c);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 3, c, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 3, c, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 3, c);
            }
        }
        double x = (MPI_Wtime() - t0) / 2 / calls;
        MPI_Bcast(&x, 1, MPI_DOUBLE, 0, c);
        if (k >= 0)
            t[k] = x;
        else
            calls = bcoll_calls(2 * x, BCOLL_SAMPLE);
    }
    return bench_median(t, reps);
}

/* Least squares y = a + b x in relative error (weights 1 / y^2: a range's small sizes count as
 * much as its large ones; a plain fit let the largest size's few percent of noise become a
 * start-up of a millisecond); clamps to a >= 0, b >= 0. */
static void fit(const double *x, const double *y, int n, double *a, double *b)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double w = y[i] > 0 ? 1 / (y[i] * y[i]) : 0;
        sw += w;
        sx += w * x[i];
        sy += w * y[i];
        sxx += w * x[i] * x[i];
        sxy += w * x[i] * y[i];
    }
    double d = sw * sxx - sx * sx;
    *b = d > 0 ? (sw * sxy - sx * sy) / d : 0;
    if (*b < 0)
        *b = 0;
    *a = sw > 0 ? (sy - *b * sx) / sw : 0;
    if (*a < 0) {
        *a = 0;
        *b = sxx > 0 ? sxy / sxx : 0;
    }
}

/* Whether ok holds on every rank (a failure on one rank must not leave the others waiting in
 * the next collective of the measurement). */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Every rank loads the text rank 0 wrote, through a private temporary file in $TMPDIR (or
 * /tmp); 1 when every rank loaded it. */
static int load_text(const char *txt)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int ok = 0;
    snprintf(path, sizeof path, "%s/dmx_calibrate_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "dmx calibrate: cannot make a temporary file %s: %s\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(path);
        }
    } else {
        fputs(txt, f);
        if (ferror(f) | fclose(f)) {
            fprintf(stderr, "dmx calibrate: error writing %s\n", path);
        } else {
            dmx_status st = dmx_coll_model_load(path);
            if (st != DMX_SUCCESS)
                fprintf(stderr, "dmx calibrate: %s\n", dmx_last_error());
            ok = st == DMX_SUCCESS;
        }
        remove(path);
    }
    return all_ok(ok);
}

/* printf onto the end of the model text. */
static void append(char *txt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void append(char *txt, const char *fmt, ...)
{
    size_t n = strlen(txt);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(txt + n, TXT - n, fmt, ap);
    va_end(ap);
}

/* Steps shown by the progress lines: ping-pong ranges, gamma, segment overhead, the sparse
 * exchange, then one per collective for the corrections. */
enum { STEPS_BASE = 6 };

static void corrections(char *txt, int p, int quick, int rank, int total)
{
    /* The benchmark's sizes (8 B x 8^k up to 64 MiB), so the corrections are measured where
     * AUTO is judged, including the largest (a factor measured at 16 MiB did not hold at 64
     * MiB); at most 12 ranges per key (the model's limit). Buffers up to 128 MiB, as there. */
    int64_t sizes[9] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 67108864};
    int ns = quick ? 7 : 9;
    for (int kind = 0; kind < DMX_COLL_NKINDS; kind++) {
        double meas[9][DMX_COLL_NALGS], pred[9][DMX_COLL_NALGS];
        cli_progress(rank != 0, "calibrate", STEPS_BASE + kind + 1, total,
                     "corrections: %s, every algorithm and MPI's own, %d sizes 8 B .. %s",
                     dmx_coll_kind_name((dmx_coll_kind)kind), ns, quick ? "2 MiB" : "64 MiB");
        int ok[9] = {0};
        for (int si = 0; si < ns; si++) {
            int64_t per = (kind == DMX_COLL_SCATTER || kind == DMX_COLL_GATHER ||
                           kind == DMX_COLL_ALLGATHER || kind == DMX_COLL_REDUCE_SCATTER ||
                           kind == DMX_COLL_ALLTOALL)
                              ? p
                              : 1;
            if (sizes[si] * per > (128 << 20))
                continue;
            bcoll_case c;
            if (bcoll_setup(&c, (dmx_coll_kind)kind, sizes[si]) != 0)
                continue;
            /* As dmx bench coll measures: batches of calls per sample, rounds that start
             * with a different algorithm each, medians. */
            int algs[DMX_COLL_NALGS], na = 0, wrong[DMX_COLL_NALGS];
            double med[DMX_COLL_NALGS];
            for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++)
                if (dmx_coll_alg_valid((dmx_coll_kind)kind, (dmx_coll_alg)a))
                    algs[na++] = a;
            (void)bcoll_measure(&c, algs, na, quick ? 5 : 0, 0.25, 9, med, wrong, NULL);
            for (int i = 0; i < na; i++) {
                int a = algs[i];
                meas[si][a] = med[i];
                pred[si][a] = a == DMX_COLL_MPI ? 0 : bcoll_predict(&c, (dmx_coll_alg)a, NULL);
            }
            ok[si] = 1;
            bcoll_free(&c);
        }
        /* One line per measured size: up to the midpoint to the next measured size. */
        for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
            if (!dmx_coll_alg_valid((dmx_coll_kind)kind, (dmx_coll_alg)a))
                continue;
            for (int si = 0; si < ns; si++) {
                if (!ok[si])
                    continue;
                int nx = si + 1;
                while (nx < ns && !ok[nx])
                    nx++;
                double upto = nx < ns ? sqrt((double)sizes[si] * (double)sizes[nx]) : 1e30;
                double f = 1;
                if (a == DMX_COLL_MPI) {
                    double best = 1e300;
                    for (int b = DMX_COLL_FLAT; b < DMX_COLL_NALGS; b++)
                        if (dmx_coll_alg_valid((dmx_coll_kind)kind, (dmx_coll_alg)b) &&
                            meas[si][b] < best)
                            best = meas[si][b];
                    f = meas[si][a] / best;
                } else if (pred[si][a] > 0) {
                    f = meas[si][a] / pred[si][a];
                }
                size_t n = strlen(txt);
                if (a == DMX_COLL_MPI)
                    snprintf(txt + n, TXT - n, "mpi.%s = %.4g %.4g\n",
                             dmx_coll_kind_name((dmx_coll_kind)kind), upto, f);
                else
                    snprintf(txt + n, TXT - n, "corr.%s.%s = %.4g %.4g\n",
                             dmx_coll_kind_name((dmx_coll_kind)kind),
                             dmx_coll_alg_name((dmx_coll_alg)a), upto, f);
            }
        }
    }
}

/* End the calibration on every rank (all of them reach it together) with exit status 1. */
static int fail(char *txt, int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr, "dmx calibrate: %s: nothing written\n", why);
    free(txt);
    MPI_Finalize();
    return 1;
}

/* The opening comment of a new model file. */
static const char header[] =
    "# dmx collectives model, written by dmx calibrate: one section per job size calibrated;\n"
    "# np = N opens one (the lines below it apply to communicators nearest N ranks in log2).\n"
    "# intra/inter = max_bytes alpha[s] beta[s/byte]: point-to-point time alpha + n beta\n"
    "#   for messages up to max_bytes (ranges ascending; the last also covers larger).\n"
    "# gamma [s/byte]: local reduction; segment_overhead [s]: per pipeline segment and hop.\n"
    "# corr.<coll>.<alg> = max_bytes factor: measured/predicted, per size range.\n"
    "# mpi.<coll> = max_bytes factor: MPI's own call / the best dmx algorithm.\n"
    "# exchange = nbx|pex|pcx: the sparse exchange's protocol for AUTO on one node.\n";

/* The section's opening lines: np = p and where it was measured. */
static void write_header(char *txt, int p, int nodes)
{
    snprintf(txt, TXT, "np = %d\n# measured by dmx calibrate at np %d on %d node(s)\n", p, p,
             nodes);
}

/* Step 1, the point-to-point lines (steps 1-3 of the progress): a ping-pong fit per size range,
 * or built-in defaults on one rank. NULL, or why every rank stops. */
static const char *pingpong_lines(char *txt, int rank, int p, int nodes, int total)
{
    if (p < 2) {
        strcat(txt, "note = one rank: nothing to measure, built-in point-to-point defaults\n"
                    "intra = 4096 3e-07 1.43e-10\nintra = 1e30 3e-06 1.43e-10\n");
        return NULL;
    }
    if (nodes == 1)
        strcat(txt, "note = all ranks share one node: no inter lines, inter = intra\n");
    int64_t rs[3][5] = {{8, 64, 512, 2048, 4096},
                        {8192, 32768, 131072, 262144, 0},
                        {524288, 2097152, 8388608, 0, 0}};
    double maxb[3] = {4096, 262144, 1e30};
    char *buf = calloc(8388608, 1);
    if (!all_ok(buf != NULL)) {
        free(buf); /* another rank may be the one without memory */
        return "out of memory for the ping-pong buffer";
    }
    for (int r = 0; r < 3; r++) {
        double x[5], y[5], a = 0, b = 0;
        int n = 0;
        cli_progress(rank != 0, "calibrate", r + 1, total, "ping-pong between ranks 0 and 1, %s",
                     r == 0   ? "8 B .. 4 KiB"
                     : r == 1 ? "8 KiB .. 256 KiB"
                              : "512 KiB .. 8 MiB");
        for (int i = 0; i < 5 && rs[r][i] > 0; i++, n++) {
            x[i] = (double)rs[r][i];
            y[i] = pingpong(MPI_COMM_WORLD, rank, buf, rs[r][i], r == 2 ? 9 : 15);
        }
        fit(x, y, n, &a, &b);
        append(txt, "intra = %.6g %.6g %.6g\n", maxb[r], a, b);
    }
    free(buf);
    return NULL;
}

/* Step 2, the gamma line: a timed local reduction. NULL, or why every rank stops. */
static const char *gamma_line(char *txt, int rank, int total)
{
    cli_progress(rank != 0, "calibrate", 4, total, "local reduction rate (gamma)");
    int64_t n = 2 << 20;
    int *a = calloc((size_t)n, sizeof(int)), *b = calloc((size_t)n, sizeof(int));
    if (!all_ok(a && b)) {
        free(a);
        free(b);
        return "out of memory for the reduction";
    }
    double t[5];
    for (int k = 0; k < 5; k++) {
        double t0 = MPI_Wtime();
        MPI_Reduce_local(a, b, (int)n, MPI_INT, MPI_SUM);
        t[k] = MPI_Wtime() - t0;
    }
    double g = bench_median(t, 5) / (double)(n * 4);
    MPI_Bcast(&g, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    append(txt, "gamma = %.6g\n", g);
    free(a);
    free(b);
    return NULL;
}

/* Rank 0's text to every rank, and every rank's model loaded from it (the next steps predict
 * with it). NULL, or why every rank stops. */
static const char *share_and_load(char *txt)
{
    MPI_Bcast(txt, TXT, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!load_text(txt))
        return "a rank could not load the parameters measured so far";
    return NULL;
}

/* Step 3, the segment_overhead line (p >= 3): a sweep of the pipelined broadcast. NULL, or why
 * every rank stops. */
static const char *segment_line(char *txt, int rank, int p, int total)
{
    cli_progress(rank != 0, "calibrate", 5, total, "pipeline segment overhead%s",
                 p >= 3 ? ": 8 MiB broadcast, 1 .. 64 segments" : " (skipped: fewer than 3 ranks)");
    bcoll_case c;
    if (p < 3 || bcoll_setup(&c, DMX_COLL_BCAST, 8 << 20) != 0)
        return NULL;
    int64_t segs[7] = {1, 2, 4, 8, 16, 32, 64};
    double T[7][5];
    int w = 0;
    for (int k = -1; k < 5; k++)
        for (int i = 0; i < 7; i++) {
            dmx_coll_set_pipeline_segments(segs[i]);
            double x = bcoll_time(&c, DMX_COLL_PIPELINE, 1, &w);
            if (k >= 0)
                T[i][k] = x;
        }
    dmx_coll_set_pipeline_segments(0);
    /* o = sum w (T - w t) / sum w^2 with w = p + r - 2 and t the model's hop time
     * without overhead (t = predicted time of a 1-segment ring on 2 ranks). */
    double num = 0, den = 0;
    for (int i = 0; i < 7; i++) {
        double wgt = (double)(p + segs[i] - 2), th = 0;
        dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 2,
                         (int64_t)ceil((double)c.bytes / (double)segs[i]), 1, &th, NULL);
        num += wgt * (bench_median(T[i], 5) - wgt * th);
        den += wgt * wgt;
    }
    double o = den > 0 && num > 0 ? num / den : 0;
    MPI_Bcast(&o, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    append(txt, "segment_overhead = %.6g\n", o);
    bcoll_free(&c);
    return share_and_load(txt);
}

/* Whether the output file, when it already has np sections (which are kept), loads as a model
 * file on rank 0, so that a file the calibration would merge into is checked before minutes of
 * measuring; 1 on every rank when so. */
static int output_ok(const char *out, int rank)
{
    int ok = 1;
    if (rank == 0 && dmx_model_has_sections(out) && dmx_coll_model_load(out) != DMX_SUCCESS) {
        fprintf(stderr,
                "dmx calibrate: %s (its other np sections would be kept, so it must load)\n",
                dmx_last_error());
        ok = 0;
    }
    return all_ok(ok);
}

/* Rank 0 writes the model file: txt as the section np = p, in place of the file's section
 * np = p if it has one, the other sections kept; 0, or 1 when it could not. */
static int write_model(const char *txt, const char *out, int p, int nodes)
{
    char kept[256];
    char *all = dmx_model_merge_section(out, header, txt, p, kept, sizeof kept);
    if (!all) {
        fprintf(stderr, "dmx calibrate: out of memory merging into %s\n", out);
        return 1;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "dmx calibrate: cannot write %s\n", out);
        free(all);
        return 1;
    }
    fputs(all, f);
    free(all);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "dmx calibrate: error writing %s\n", out);
        return 1;
    }
    printf("dmx calibrate: wrote %s (section np = %d, %d node(s)%s%s)\n", out, p, nodes,
           kept[0] ? "; kept np = " : "", kept);
    return 0;
}

int dmx_cmd_calibrate(int argc, char **argv)
{
    int rank = 0, p = 0, quick = 0, nocorr = 0, malloc_default = 0;
    const char *out = "dmx_model.txt";
    cli_opt opts[] = {
        {.name = "output",
         .short_name = 'o',
         .kind = CLI_STR,
         .dest = &out,
         .meta = "FILE",
         .help = "the model file to write; default dmx_model.txt"},
        CLI_FLAG_OPT("quick", &quick,
                     "corrections at 7 sizes up to 2 MiB with fewer samples\n(default: 9 sizes "
                     "up to 64 MiB)"),
        CLI_FLAG_OPT("no-corr", &nocorr,
                     "skip the corrections (point-to-point, gamma and segment\noverhead only)"),
        CLI_FLAG_OPT("malloc-default", &malloc_default,
                     "keep glibc's malloc settings (default: no mmap'ed chunks,\nno trimming, as "
                     "dmx bench coll measures)"),
    };
    cli_spec spec = {"calibrate",
                     1,
                     "[options]",
                     "Measures this machine's parameters for the collectives' cost model "
                     "(ping-pong,\nreduction rate, pipeline segment overhead, then measured / "
                     "predicted corrections\nfor every collective and algorithm) and writes a "
                     "model file (read with\nDMX_MODEL=FILE; format in docs/coll.md). Takes "
                     "minutes; progress on stderr.",
                     opts,
                     CLI_NOPTS(opts),
                     "Exit status: 0 written, 1 a measurement or the file failed (nothing "
                     "written), 2 bad options.\n"};
    int pr = cli_parse(&spec, argc, argv, bench_first_process());
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (!malloc_default)
        (void)bcoll_steady_malloc(argc, argv); /* as dmx bench coll measures */
    MPI_Init(&argc, &argv);
    bcoll_world = MPI_COMM_WORLD; /* the communicator bench_coll_run.c's cases run on */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int total = STEPS_BASE + (nocorr || p < 2 ? 0 : DMX_COLL_NKINDS);
    char *txt = calloc(TXT, 1);
    if (!all_ok(txt != NULL))
        return fail(txt, rank, "out of memory");
    if (!output_ok(out, rank))
        return fail(txt, rank, "the output file does not load");
    int nodes = bcoll_nodes();
    write_header(txt, p, nodes);
    const char *why = pingpong_lines(txt, rank, p, nodes, total);
    if (!why)
        why = gamma_line(txt, rank, total);
    if (!why)
        why = share_and_load(txt);
    if (!why)
        why = segment_line(txt, rank, p, total);
    if (!why) {
        char line[256];
        cli_progress(rank != 0, "calibrate", 6, total, "sparse exchange%s",
                     p >= 2 && nodes == 1 ? ": NBX, PEX, PCX, 8 B to up to 6 neighbours"
                                          : " (skipped: one rank, or more than one node)");
        why = dmx_calibrate_exchange(line, sizeof line, p, nodes);
        if (!why)
            append(txt, "%s", line);
    }
    if (why)
        return fail(txt, rank, why);
    if (!nocorr && p >= 2) {
        corrections(txt, p, quick, rank, total);
        MPI_Bcast(txt, TXT, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    int rc = rank == 0 ? write_model(txt, out, p, nodes) : 0;
    free(txt);
    MPI_Finalize();
    return rc;
}
