/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx model gemm: the multiply's cost model at any scale, without running anything.
 *
 *   dmx model gemm --p P[,P...] --n N [options]     (--help lists them)
 *
 * For each P (one rank per node unless --nodes): SUMMA's best panel and time; HSUMMA's time and
 * communication time for every G that splits the grid (best B and b for each), the best G; Cannon;
 * and AUTO's choice. "comm" is the time without look-ahead minus the local multiply, i.e. the
 * communication the seed's analysis compares (HSUMMA against SUMMA over P). The best G is the one
 * of least total time (the time column). --svg draws total and communication time against P
 * (log-log), one line per algorithm, AUTO's choice ringed. The parameters: built-in
 * defaults, DMX_MODEL's file or --model FILE; the local rate: DMX_GEMM_MODEL or the
 * built-in curve scaled to DMX_GEMM_MFLOPS (docs/gemm.md). */
#include "bench_util.h"
#include "cli.h"
#include "dmx.h"
#include "dmx/expert.h"
#include "dmx_tool.h"
#include "svgplot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXP = 64 };

/* Communication time of a configuration: blocking time minus the local multiply. */
static double comm_time(dmx_gemm_alg alg, dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p,
                        int64_t nodes, const dmx_gemm_info *cfg)
{
    dmx_gemm_options o;
    dmx_gemm_info x;
    dmx_gemm_options_init(&o);
    o.overlap = 0;
    o.prow = cfg->prow;
    o.pcol = cfg->pcol;
    o.groups = alg == DMX_GEMM_HSUMMA ? cfg->groups : 0;
    o.panel = alg == DMX_GEMM_CANNON ? 0 : cfg->panel;
    o.outer_panel = alg == DMX_GEMM_HSUMMA ? cfg->outer_panel : 0;
    if (dmx_gemm_predict(alg, t, m, n, k, p, nodes, &o, &x) != DMX_SUCCESS)
        return NAN;
    return x.predicted_seconds - x.compute_seconds;
}

/* One P: total and communication time of SUMMA, HSUMMA at its best G (least total time, the
 * time column) and Cannon (NAN where an algorithm does not apply), and AUTO's choice. */
typedef struct row {
    int64_t p;
    double time[3], comm[3];
    int best_g;
    double auto_time, auto_comm;
} row;

/* Two panels against P: predicted time and communication time, one line per algorithm, AUTO's
 * choice ringed. Returns 0 or -1. */
static int svg(const char *path, const row *r, int nr, int64_t m, int64_t n, int64_t k)
{
    static const char *const names[3] = {"SUMMA", "HSUMMA (best G)", "Cannon"};
    double x[MAXP], y[2][4][MAXP];
    for (int i = 0; i < nr; i++) {
        x[i] = (double)r[i].p;
        for (int a = 0; a < 3; a++) {
            y[0][a][i] = r[i].time[a];
            y[1][a][i] = r[i].comm[a];
        }
        y[0][3][i] = r[i].auto_time;
        y[1][3][i] = r[i].auto_comm;
    }
    svgp_panel pan[2];
    memset(pan, 0, sizeof pan);
    for (int q = 0; q < 2; q++) {
        pan[q].title = q ? "communication time (no look-ahead, minus the local multiply)"
                         : "predicted time of the multiply";
        pan[q].xlabel = "P (ranks)";
        pan[q].ylabel = q ? "communication time" : "time";
        pan[q].xlog = pan[q].ylog = 1;
        pan[q].xunit = SVGP_PLAIN;
        pan[q].yunit = SVGP_SECONDS;
        pan[q].nseries = 4;
        for (int a = 0; a < 4; a++)
            pan[q].s[a] =
                (svgp_series){a < 3 ? names[a] : "auto's choice", nr, x, y[q][a], -1, NULL, a == 3};
    }
    char sub[160];
    snprintf(sub, sizeof sub, "C = A B, m = %lld, n = %lld, k = %lld", (long long)m, (long long)n,
             (long long)k);
    return svgp_write(path, "model gemm", "dmx model gemm: predicted times against P", sub, pan, 2,
                      2);
}

/* HSUMMA at every G that divides p on SUMMA's grid; fills r's HSUMMA entries with the G of least
 * total time. */
static void hsumma_rows(dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p, int64_t nd,
                        const dmx_gemm_info *s, row *r)
{
    r->best_g = 0;
    r->time[1] = r->comm[1] = NAN;
    for (int64_t G = 1; G <= p; G++) {
        dmx_gemm_options o;
        dmx_gemm_info h;
        if (p % G)
            continue;
        dmx_gemm_options_init(&o);
        o.prow = s->prow;
        o.pcol = s->pcol;
        o.groups = (int)G;
        if (dmx_gemm_predict(DMX_GEMM_HSUMMA, t, m, n, k, p, nd, &o, &h) != DMX_SUCCESS)
            continue;
        double hc = comm_time(DMX_GEMM_HSUMMA, t, m, n, k, p, nd, &h);
        if (p <= 64 || (G & (G - 1)) == 0 || G == p)
            printf("  hsumma  G %-7lld (%dx%d) B %-5lld b %-5lld time %.4g s  comm %.4g s\n",
                   (long long)G, h.group_rows, h.group_cols, (long long)h.outer_panel,
                   (long long)h.panel, h.predicted_seconds, hc);
        if (r->best_g == 0 || h.predicted_seconds < r->time[1]) {
            r->best_g = (int)G;
            r->time[1] = h.predicted_seconds;
            r->comm[1] = hc;
        }
    }
}

typedef struct plist {
    int64_t v[MAXP];
    int n;
} plist;

static int parse_plist(const char *s, void *dest)
{
    plist *l = dest;
    l->n = bench_parse_size_list(s, 1, l->v, MAXP);
    return l->n > 0 ? 0 : -1;
}

static int model_row(dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p, int64_t nd, row *r)
{
    dmx_gemm_info s, c, a;
    if (dmx_gemm_predict(DMX_GEMM_SUMMA, t, m, n, k, p, nd, NULL, &s) != DMX_SUCCESS) {
        fprintf(stderr, "dmx: model gemm: %s\n", dmx_last_error());
        return -1;
    }
    double sc = comm_time(DMX_GEMM_SUMMA, t, m, n, k, p, nd, &s);
    printf("P %lld  m %lld n %lld k %lld  nodes %lld\n", (long long)p, (long long)m, (long long)n,
           (long long)k, (long long)nd);
    printf("  summa   grid %dx%d b %-5lld  time %.4g s  comm %.4g s  (multiply %.4g s)\n", s.prow,
           s.pcol, (long long)s.panel, s.predicted_seconds, sc, s.compute_seconds);
    r->p = p;
    r->time[0] = s.predicted_seconds;
    r->comm[0] = sc;
    hsumma_rows(t, m, n, k, p, nd, &s, r);
    r->time[2] = r->comm[2] = NAN;
    if (dmx_gemm_predict(DMX_GEMM_CANNON, t, m, n, k, p, nd, NULL, &c) == DMX_SUCCESS) {
        r->time[2] = c.predicted_seconds;
        r->comm[2] = comm_time(DMX_GEMM_CANNON, t, m, n, k, p, nd, &c);
        printf("  cannon  q %d  time %.4g s  comm %.4g s\n", c.prow, r->time[2], r->comm[2]);
    } else {
        printf("  cannon  does not apply\n");
    }
    if (r->best_g > 0)
        printf("  best G %d (least time): HSUMMA time %.4g s comm %.4g s vs SUMMA time %.4g s "
               "comm %.4g s (comm ratio %.3f, sqrt(P) = %.0f)\n",
               r->best_g, r->time[1], r->comm[1], r->time[0], sc, r->comm[1] / sc, sqrt((double)p));
    r->auto_time = r->auto_comm = NAN;
    if (dmx_gemm_predict(DMX_GEMM_AUTO, t, m, n, k, p, nd, NULL, &a) == DMX_SUCCESS) {
        printf("  auto: %s grid %dx%d G %d B %lld b %lld  time %.4g s\n", dmx_gemm_alg_name(a.alg),
               a.prow, a.pcol, a.groups, (long long)a.outer_panel, (long long)a.panel,
               a.predicted_seconds);
        r->auto_time = a.predicted_seconds;
        r->auto_comm = comm_time(a.alg, t, m, n, k, p, nd, &a);
    }
    return 0;
}

/* "RxC" (or "R,C"): the operands' grid for --data-grid. */
static int parse_grid(const char *v, void *dest)
{
    int *g = dest;
    char *end = NULL;
    long r = strtol(v, &end, 10);
    if (end == v || r < 1 || r > 1 << 30 || (*end != 'x' && *end != ','))
        return -1;
    const char *w = end + 1;
    long c = strtol(w, &end, 10);
    if (end == w || c < 1 || c > 1 << 30 || *end)
        return -1;
    g[0] = (int)r, g[1] = (int)c;
    return 0;
}

/* The operands as bench gemm lays them out: A (m x k), B (k x n), C (m x n) block-cyclic on the
 * grid g[0] x g[1] (row-major) in blocks of blk x blk, or (blk 0) in the blocks that fit SUMMA
 * there (one block per rank). */
static void data_descs(const int g[2], int64_t blk, int64_t m, int64_t n, int64_t k,
                       dmx_relabel_desc d[3])
{
    const int64_t dims[3][2] = {{m, k}, {k, n}, {m, n}};
    for (int i = 0; i < 3; i++) {
        memset(&d[i], 0, sizeof d[i]);
        d[i].kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        d[i].m = dims[i][0], d[i].n = dims[i][1];
        d[i].mb = blk > 0 ? blk : (dims[i][0] + g[0] - 1) / g[0];
        d[i].nb = blk > 0 ? blk : (dims[i][1] + g[1] - 1) / g[1];
        d[i].mb = d[i].mb > 0 ? d[i].mb : 1;
        d[i].nb = d[i].nb > 0 ? d[i].nb : 1;
        d[i].prow = g[0], d[i].pcol = g[1], d[i].order = 'R';
    }
}

int dmx_cmd_model_gemm(int argc, char **argv)
{
    int dgrid[2] = {0, 0};
    int64_t dblock = 0;
    int64_t m = 0, n = 0, k = 0, nodes = 0;
    plist ps = {{0}, 0};
    const char *svgf = NULL, *model = NULL;
    dmx_dtype t = DMX_DOUBLE;
    int explain = 0, json = 0;
    cli_opt opts[] = {
        CLI_FUNC_OPT("p", &ps, parse_plist, "a comma-separated list of up to 64 counts >= 1",
                     "P[,P...]", "rank counts to model (required); k/M/G suffixes allowed"),
        CLI_OPT("n", CLI_SIZE, &n, 1, 0, "N", "columns of C (required)"),
        CLI_OPT("m", CLI_SIZE, &m, 1, 0, "M", "rows of C; default N"),
        CLI_OPT("k", CLI_SIZE, &k, 1, 0, "K", "inner dimension; default N"),
        CLI_OPT("nodes", CLI_SIZE, &nodes, 1, 0, "N", "nodes; default one rank per node (N = P)"),
        CLI_FUNC_OPT("dtype", &t, dmx_model_parse_dtype, "d, s, c or z", "d|s|c|z",
                     "element type: double, float, complex float, complex\ndouble; default d"),
        CLI_STR_OPT("model", &model, "FILE",
                    "collectives' parameters (dmx calibrate's file); default\nDMX_MODEL's file "
                    "or the built-in values"),
        CLI_STR_OPT("svg", &svgf, "FILE",
                    "draw time and communication time against P (two P or\nmore), AUTO's "
                    "choice ringed; default none"),
        CLI_FLAG_OPT("explain", &explain,
                     "instead of the table: the plan's choice explained for\neach P "
                     "(dmx_gemm_explain)"),
        CLI_FLAG_REQ("json", &json, "with --explain: one JSON line per choice", "explain"),
        {.name = "data-grid",
         .kind = CLI_FUNC,
         .dest = dgrid,
         .parse = parse_grid,
         .what = "RxC, two counts >= 1",
         .meta = "RxC",
         .help = "with --explain: A, B and C block-cyclic on this grid (row-\nmajor) in the "
                 "blocks that fit SUMMA there, as bench gemm\nlays them out; the choice then "
                 "charges each grid the\nredistribution into it; default: operands not known",
         .requires = "explain"},
        CLI_OPT_REQ("data-block", CLI_SIZE, &dblock, 1, 0, "MB",
                    "with --data-grid: MB x MB blocks instead; default the\nfitting ones",
                    "data-grid"),
    };
    cli_spec spec = {"model gemm",
                     0,
                     "--p P[,P...] --n N [options]",
                     "The multiply's cost model at any scale: SUMMA's time, HSUMMA's for every G "
                     "that\nsplits the grid (best G: least time), Cannon's, AUTO's choice. Runs "
                     "nothing.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (ps.n == 0 || n == 0) {
        cli_error(&spec, "%s is required", ps.n == 0 ? "--p" : "--n");
        return 2;
    }
    if (svgf && ps.n < 2) {
        cli_error(&spec, "--svg draws against P: give two P or more");
        return 2;
    }
    if (model && dmx_coll_model_load(model) != DMX_SUCCESS) {
        fprintf(stderr, "dmx: model gemm: %s\n", dmx_last_error());
        return 1;
    }
    if (m <= 0)
        m = n;
    if (k <= 0)
        k = n;
    for (int pi = 0; pi < ps.n && explain; pi++) {
        dmx_choice c;
        dmx_relabel_desc d[3];
        dmx_gemm_operands ops = {DMX_OP_N, DMX_OP_N, &d[0], &d[1], &d[2]};
        if (dgrid[0] && (int64_t)dgrid[0] * dgrid[1] > ps.v[pi]) {
            fprintf(stderr, "dmx: model gemm: --data-grid %dx%d needs more than %lld ranks\n",
                    dgrid[0], dgrid[1], (long long)ps.v[pi]);
            return 2;
        }
        if (dgrid[0])
            data_descs(dgrid, dblock, m, n, k, d);
        dmx_status st = dmx_gemm_explain_operands(
            t, m, n, k, ps.v[pi], nodes > 0 ? nodes : ps.v[pi], NULL, dgrid[0] ? &ops : NULL, &c);
        int rc = dmx_model_print_choice("model gemm", st, &c, json);
        if (rc != 0)
            return rc;
    }
    if (explain)
        return 0;
    row rows[MAXP];
    for (int pi = 0; pi < ps.n; pi++)
        if (model_row(t, m, n, k, ps.v[pi], nodes > 0 ? nodes : ps.v[pi], &rows[pi]) != 0)
            return 1;
    if (svgf) {
        if (svg(svgf, rows, ps.n, m, n, k) != 0)
            return 1;
        printf("wrote %s\n", svgf);
    }
    return 0;
}
