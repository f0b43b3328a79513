/* dmx model coll: the collectives' cost model at any scale, without running anything.
 *
 *   dmx model coll --p P[,P...] --bytes B[,B...] [--coll LIST] [--nodes N] [--model FILE]
 *                  [--svg FILE]
 *
 * For each collective and P: every algorithm's predicted time at each size, the best marked
 * with '*', AUTO's choice (which may be the MPI library's call, per the model file), the
 * crossover points (found by bisection on the size between listed sizes where the best
 * algorithm changes), and for the broadcast the pipelined ring's segment count (the model's and
 * the textbook sqrt(m (p-2) beta / alpha)). --svg draws predicted time against size (8 B to
 * 1 GiB, log-log), one line per algorithm, for the first collective and P. The parameters are
 * the built-in defaults, DMX_MODEL's file, or --model FILE. */
#include "bench_coll.h"
#include "bench_util.h"
#include "dmx.h"
#include "dmx_tool.h"

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

/* Returns 0, or -1 (after a message) when the file cannot be written. */
static int svg(const char *path, dmx_coll_kind k, int64_t p, int64_t nodes)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmx model coll: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    const int W = 760, H = 480, L = 70, R = 150, T = 40, B = 50;
    double x0 = log10(8), x1 = log10(1073741824.0), y0 = INFINITY, y1 = -INFINITY;
    enum { N = 91 };
    double bx[N], ty[DMX_COLL_NALGS][N];
    for (int i = 0; i < N; i++) {
        bx[i] = pow(10, x0 + (x1 - x0) * i / (N - 1));
        for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS; a++) {
            if (!dmx_coll_alg_valid(k, (dmx_coll_alg)a))
                continue;
            dmx_coll_predict(k, (dmx_coll_alg)a, p, (int64_t)bx[i], nodes, &ty[a][i], NULL);
            double y = log10(ty[a][i] > 1e-9 ? ty[a][i] : 1e-9);
            y0 = fmin(y0, y);
            y1 = fmax(y1, y);
        }
    }
    y0 = floor(y0);
    y1 = ceil(y1);
    const char *col[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                         "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aa0000"};
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n<text x=\"%d\" y=\"22\" font-size=\"15\">dmx model: %s, P = %lld, "
            "%lld node(s) - predicted time vs message size</text>\n",
            W, H, L, dmx_coll_kind_name(k), (long long)p, (long long)nodes);
#define PX(x) (L + ((x)-x0) / (x1 - x0) * (W - L - R))
#define PY(y) (H - B - ((y)-y0) / (y1 - y0) * (H - T - B))
    for (int e = (int)ceil(x0); e <= (int)x1; e += 1) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", PX(e),
                T, PX(e), H - B);
        if (e % 3 == 0)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d B</text>\n", PX(e),
                    H - B + 18, e);
    }
    for (int e = (int)y0; e <= (int)y1; e++) {
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                PY(e), W - R, PY(e));
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d s</text>\n", L - 6,
                PY(e) + 4, e);
    }
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            L, T, W - L - R, H - T - B);
    int li = 0;
    for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS; a++) {
        if (!dmx_coll_alg_valid(k, (dmx_coll_alg)a))
            continue;
        fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"",
                col[li % 12]);
        for (int i = 0; i < N; i++)
            fprintf(f, "%.1f,%.1f ", PX(log10(bx[i])),
                    PY(log10(ty[a][i] > 1e-9 ? ty[a][i] : 1e-9)));
        fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R + 8,
                T + 16 + 18 * li, col[li % 12], dmx_coll_alg_name((dmx_coll_alg)a));
        li++;
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "dmx model coll: error writing %s\n", path);
        return -1;
    }
    return 0;
}

int dmx_cmd_model_coll(int argc, char **argv)
{
    int64_t ps[MAXL], bs[MAXL], nodes = 1;
    int np = 0, nb = 0, kinds[DMX_COLL_NKINDS];
    const char *svgf = NULL, *model = NULL;
    for (int i = 0; i < DMX_COLL_NKINDS; i++)
        kinds[i] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--p") == 0 && v)
            np = bench_parse_size_list(argv[++i], 1, ps, MAXL);
        else if (strcmp(a, "--bytes") == 0 && v)
            nb = bench_parse_size_list(argv[++i], 0, bs, MAXL);
        else if (strcmp(a, "--nodes") == 0 && v) {
            if (bench_parse_i64(argv[++i], 1, &nodes) != 0)
                nodes = 0; /* not a count >= 1: usage below */
        } else if (strcmp(a, "--svg") == 0 && v)
            svgf = argv[++i];
        else if (strcmp(a, "--model") == 0 && v)
            model = argv[++i];
        else if (strcmp(a, "--coll") == 0 && v) {
            if (bcoll_parse_names(argv[++i], kinds, DMX_COLL_NKINDS, 0) != 0)
                np = -1;
        } else
            np = -1;
    }
    if (np <= 0 || nb <= 0 || nodes < 1) {
        fprintf(stderr,
                "usage: dmx model coll --p P[,P...] --bytes B[,B...] [--coll LIST] [--nodes N]\n"
                "                      [--model FILE] [--svg FILE]\n"
                "  whole counts, with k/M/G suffixes (x 2^10, 2^20, 2^30); bytes per block for "
                "scatter, gather, allgather,\n"
                "  reduce_scatter, alltoall, the whole vector otherwise\n");
        return 2;
    }
    if (model && dmx_coll_model_load(model) != DMX_SUCCESS) {
        fprintf(stderr, "dmx model coll: %s\n", dmx_last_error());
        return 1;
    }
    for (int pi = 0; pi < np; pi++) {
        int64_t p = ps[pi];
        if (p < 1) {
            fprintf(stderr, "P must be >= 1\n");
            return 2;
        }
        for (int k = 0; k < DMX_COLL_NKINDS; k++) {
            if (!kinds[k])
                continue;
            printf("\n%s, P = %lld, %lld node(s): predicted us (* = best dmx algorithm)\n%12s",
                   dmx_coll_kind_name((dmx_coll_kind)k), (long long)p, (long long)nodes, "bytes");
            for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++)
                if (dmx_coll_alg_valid((dmx_coll_kind)k, (dmx_coll_alg)a))
                    printf(" %11s", dmx_coll_alg_name((dmx_coll_alg)a));
            printf("  %-10s%s\n", "auto", k == DMX_COLL_BCAST ? "  segments(model/textbook)" : "");
            dmx_coll_alg prev = DMX_COLL_AUTO;
            for (int bi = 0; bi < nb; bi++) {
                double tb = 0;
                dmx_coll_alg best = best_at((dmx_coll_kind)k, p, bs[bi], nodes, &tb), pick;
                double ta = 0;
                dmx_coll_predict((dmx_coll_kind)k, DMX_COLL_AUTO, p, bs[bi], nodes, &ta, &pick);
                printf("%12lld", (long long)bs[bi]);
                for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
                    if (!dmx_coll_alg_valid((dmx_coll_kind)k, (dmx_coll_alg)a))
                        continue;
                    double t = 0;
                    dmx_coll_predict((dmx_coll_kind)k, (dmx_coll_alg)a, p, bs[bi], nodes, &t, NULL);
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
                if (bi > 0) { /* every change of the best between the two sizes */
                    int64_t lo0 = bs[bi - 1];
                    dmx_coll_alg cur = prev;
                    for (double x = (double)lo0 * 1.05; lo0 < bs[bi]; x *= 1.05) {
                        int64_t hi = x < (double)bs[bi] ? (int64_t)x : bs[bi];
                        if (hi <= lo0)
                            hi = lo0 + 1;
                        dmx_coll_alg nb2 = best_at((dmx_coll_kind)k, p, hi, nodes, NULL);
                        if (nb2 != cur) {
                            int64_t lo = lo0, h = hi; /* bisect within [lo, h] */
                            while (h - lo > 1) {
                                int64_t mid = lo + (h - lo) / 2;
                                if (best_at((dmx_coll_kind)k, p, mid, nodes, NULL) == cur)
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
                prev = best;
            }
        }
    }
    if (svgf) {
        int k = 0;
        while (k < DMX_COLL_NKINDS && !kinds[k])
            k++;
        if (svg(svgf, (dmx_coll_kind)(k < DMX_COLL_NKINDS ? k : 0), ps[0], nodes) != 0)
            return 1;
        printf("\nwrote %s\n", svgf);
    }
    return 0;
}
