/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx model coll: the collectives' cost model at any scale, without running anything.
 *
 *   dmx model coll --p P[,P...] --bytes B[,B...] [options]     (--help lists them)
 *
 * For each collective and P: every algorithm's predicted time at each size, the best marked
 * with '*', AUTO's choice (which may be the MPI library's call, per the model file), the
 * crossover points (found by bisection on the size between listed sizes where the best
 * algorithm changes), and for the broadcast the pipelined ring's segment count (the model's and
 * the textbook sqrt(m (p-2) beta / alpha)). --svg draws predicted time against size (8 B to
 * 1 GiB, log-log), one line per algorithm, one panel per collective asked for, at the first P. The
 * parameters are the built-in defaults, DMX_MODEL's file, or --model FILE. */
#include "bench_coll.h"
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

enum { MAXL = 64 };

static dmx_coll_alg best_at(dmx_coll_kind k, int64_t p, int64_t b, int64_t nodes, double *t)
{
    double bt = INFINITY;
    dmx_coll_alg ba = DMX_COLL_FLAT;
    for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS; a++) {
        double x = 0;
        if (!dmx_coll_alg_valid(k, (dmx_coll_alg)a))
            continue;
        dmx_coll_predict(k, (dmx_coll_alg)a, p, b, nodes, &x, NULL);
        if (x < bt) {
            bt = x;
            ba = (dmx_coll_alg)a;
        }
    }
    if (t)
        *t = bt;
    return ba;
}

/* Every change of the best algorithm between sizes lo0 and b1 (bisection), from cur. */
static void crossovers(dmx_coll_kind k, int64_t p, int64_t lo0, int64_t b1, int64_t nodes,
                       dmx_coll_alg cur)
{
    for (double x = (double)lo0 * 1.05; lo0 < b1; x *= 1.05) {
        int64_t hi = x < (double)b1 ? (int64_t)x : b1;
        if (hi <= lo0)
            hi = lo0 + 1;
        dmx_coll_alg nb2 = best_at(k, p, hi, nodes, NULL);
        if (nb2 != cur) {
            int64_t lo = lo0, h = hi; /* bisect within [lo, h] */
            while (h - lo > 1) {
                int64_t mid = lo + (h - lo) / 2;
                if (best_at(k, p, mid, nodes, NULL) == cur)
                    lo = mid;
                else
                    h = mid;
            }
            printf("%12s crossover at %lld bytes: %s -> %s\n", "", (long long)h,
                   dmx_coll_alg_name(cur), dmx_coll_alg_name(nb2));
            cur = nb2;
        }
        lo0 = hi;
    }
}

enum { NPTS = 91 };

/* One panel per collective asked for: predicted time against size (8 B to 1 GiB, log-log), one
 * line per dmx algorithm, at P = p. Returns 0, or -1 after a message. */
static int svg(const char *path, const int *kinds, int64_t p, int64_t nodes)
{
    static double bx[NPTS], ty[DMX_COLL_NKINDS][DMX_COLL_NALGS][NPTS];
    static svgp_panel pan[DMX_COLL_NKINDS];
    int npan = 0;
    for (int i = 0; i < NPTS; i++)
        bx[i] = round(pow(2, 3 + 27.0 * i / (NPTS - 1)));
    for (int k = 0; k < DMX_COLL_NKINDS; k++) {
        if (!kinds[k])
            continue;
        svgp_panel *q = &pan[npan++];
        memset(q, 0, sizeof *q);
        q->title = dmx_coll_kind_name((dmx_coll_kind)k);
        q->xlabel = "message size";
        q->ylabel = "predicted time";
        q->xlog = q->ylog = 1;
        q->xunit = SVGP_BYTES;
        q->yunit = SVGP_SECONDS;
        for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS && q->nseries < SVGP_MAX_SERIES; a++) {
            if (!dmx_coll_alg_valid((dmx_coll_kind)k, (dmx_coll_alg)a))
                continue;
            for (int i = 0; i < NPTS; i++)
                dmx_coll_predict((dmx_coll_kind)k, (dmx_coll_alg)a, p, (int64_t)bx[i], nodes,
                                 &ty[k][a][i], NULL);
            q->s[q->nseries++] =
                (svgp_series){dmx_coll_alg_name((dmx_coll_alg)a), NPTS, bx, ty[k][a], -1, NULL, 0};
        }
    }
    char sub[128];
    snprintf(sub, sizeof sub, "P = %lld ranks on %lld node(s); the model's parameters",
             (long long)p, (long long)nodes);
    return svgp_write(path, "model coll", "dmx model coll: predicted time against message size",
                      sub, pan, npan, npan > 1 ? 2 : 1);
}

/* The table of collective k at P = p over the sizes bs[0..nb), crossovers between them. */
static void table(dmx_coll_kind k, int64_t p, const int64_t *bs, int nb, int64_t nodes)
{
    int64_t np = 0; /* the model file's section for this P, if it has sections */
    char sec[64] = "";
    if (dmx_coll_model_section(p, &np) == DMX_SUCCESS && np > 0)
        snprintf(sec, sizeof sec, ", model section np = %lld", (long long)np);
    printf("\n%s, P = %lld, %lld node(s)%s: predicted us (* = best dmx algorithm)\n%12s",
           dmx_coll_kind_name(k), (long long)p, (long long)nodes, sec, "bytes");
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++)
        if (dmx_coll_alg_valid(k, (dmx_coll_alg)a))
            printf(" %11s", dmx_coll_alg_name((dmx_coll_alg)a));
    printf("  %-10s%s\n", "auto", k == DMX_COLL_BCAST ? "  segments(model/textbook)" : "");
    dmx_coll_alg prev = DMX_COLL_AUTO;
    for (int bi = 0; bi < nb; bi++) {
        double tb = 0, ta = 0;
        dmx_coll_alg best = best_at(k, p, bs[bi], nodes, &tb), pick;
        dmx_coll_predict(k, DMX_COLL_AUTO, p, bs[bi], nodes, &ta, &pick);
        printf("%12lld", (long long)bs[bi]);
        for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
            if (!dmx_coll_alg_valid(k, (dmx_coll_alg)a))
                continue;
            double t = 0;
            dmx_coll_predict(k, (dmx_coll_alg)a, p, bs[bi], nodes, &t, NULL);
            printf(" %10.4g%s", t * 1e6, a == (int)best ? "*" : " ");
        }
        printf("  %-10s", dmx_coll_alg_name(pick));
        if (k == DMX_COLL_BCAST) {
            int64_t seg = 0;
            double text = 0;
            dmx_coll_pipeline_segments(p, bs[bi], nodes, &seg, &text);
            printf("  %lld / %.1f", (long long)seg, text);
        }
        printf("\n");
        if (bi > 0)
            crossovers(k, p, bs[bi - 1], bs[bi], nodes, prev);
        prev = best;
    }
}

typedef struct slist {
    int64_t v[MAXL];
    int n;
    int64_t lo;
} slist;

static int parse_slist(const char *s, void *dest)
{
    slist *l = dest;
    l->n = bench_parse_size_list(s, l->lo, l->v, MAXL);
    return l->n > 0 ? 0 : -1;
}

static int parse_kinds(const char *s, void *dest)
{
    return bcoll_parse_names(s, dest, DMX_COLL_NKINDS, 0);
}

int dmx_cmd_model_coll(int argc, char **argv)
{
    slist ps = {{0}, 0, 1}, bs = {{0}, 0, 0};
    int64_t nodes = 1;
    int kinds[DMX_COLL_NKINDS];
    const char *svgf = NULL, *model = NULL;
    int explain = 0, json = 0;
    for (int i = 0; i < DMX_COLL_NKINDS; i++)
        kinds[i] = 1;
    cli_opt opts[] = {
        CLI_FUNC_OPT("p", &ps, parse_slist, "a comma-separated list of up to 64 counts >= 1",
                     "P[,P...]", "rank counts (required)"),
        CLI_FUNC_OPT("bytes", &bs, parse_slist, "a comma-separated list of up to 64 sizes >= 0",
                     "B[,B...]",
                     "message sizes (required): bytes per block for scatter,\ngather, allgather, "
                     "reduce_scatter, alltoall, the whole\nvector otherwise"),
        CLI_FUNC_OPT("coll", kinds, parse_kinds, "collective names, comma-separated (bcast, ...)",
                     "LIST", "collectives to model; default all"),
        CLI_OPT("nodes", CLI_I64, &nodes, 1, 0, "N", "nodes the ranks are spread over; default 1"),
        CLI_STR_OPT("model", &model, "FILE",
                    "parameters (dmx calibrate's file); default DMX_MODEL's\nfile or the "
                    "built-in values"),
        CLI_STR_OPT("svg", &svgf, "FILE",
                    "draw time against size (8 B to 1 GiB), one panel per\ncollective, at the "
                    "first P; default none"),
        CLI_FLAG_OPT("explain", &explain,
                     "instead of the tables: AUTO's choice explained for each\ncollective, P and "
                     "size (dmx_coll_explain)"),
        CLI_FLAG_REQ("json", &json, "with --explain: one JSON line per choice", "explain"),
    };
    cli_spec spec = {"model coll",
                     0,
                     "--p P[,P...] --bytes B[,B...] [options]",
                     "The collectives' cost model at any scale: every algorithm's predicted time, "
                     "the best\n(*), AUTO's choice, the crossovers between listed sizes and the "
                     "broadcast's\npipeline segments. Counts take k/M/G suffixes (x 2^10, 2^20, "
                     "2^30). Runs nothing.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (ps.n == 0 || bs.n == 0) {
        cli_error(&spec, "%s is required", ps.n == 0 ? "--p" : "--bytes");
        return 2;
    }
    if (model && dmx_coll_model_load(model) != DMX_SUCCESS) {
        fprintf(stderr, "dmx: model coll: %s\n", dmx_last_error());
        return 1;
    }
    for (int pi = 0; pi < ps.n && explain; pi++)
        for (int k = 0; k < DMX_COLL_NKINDS; k++)
            for (int bi = 0; bi < bs.n && kinds[k]; bi++) {
                dmx_choice c;
                dmx_status st = dmx_coll_explain((dmx_coll_kind)k, ps.v[pi], bs.v[bi], nodes, &c);
                int rc = dmx_model_print_choice("model coll", st, &c, json);
                if (rc != 0)
                    return rc;
            }
    for (int pi = 0; pi < ps.n && !explain; pi++)
        for (int k = 0; k < DMX_COLL_NKINDS; k++)
            if (kinds[k])
                table((dmx_coll_kind)k, ps.v[pi], bs.v, bs.n, nodes);
    if (svgf) {
        if (svg(svgf, kinds, ps.v[0], nodes) != 0)
            return 1;
        printf("\nwrote %s\n", svgf);
    }
    return 0;
}
