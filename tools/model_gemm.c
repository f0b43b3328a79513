/* dmx model gemm: the multiply's cost model at any scale, without running anything.
 *
 *   dmx model gemm --p P[,P...] --n N [--m M --k K] [--nodes N] [--dtype d|s|c|z]
 *                  [--model FILE] [--svg FILE]
 *
 * For each P (one rank per node unless --nodes): SUMMA's best panel and time; HSUMMA's time and
 * communication time for every G that splits the grid (best B and b for each), the best G; Cannon;
 * and AUTO's choice. "comm" is the time without look-ahead minus the local multiply, i.e. the
 * communication the seed's analysis compares (HSUMMA against SUMMA over P). --svg draws SUMMA's
 * and the best HSUMMA's communication time against P (log-log). The parameters: built-in
 * defaults, DMX_MODEL's file or --model FILE; the local rate: DMX_GEMM_MODEL or the
 * built-in curve scaled to DMX_GEMM_MFLOPS (docs/gemm.md). */
#include "bench_util.h"
#include "dmx.h"
#include "dmx_tool.h"

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

typedef struct row {
    int64_t p;
    double summa_comm, hsumma_comm;
    int best_g;
} row;

/* Returns 0, or -1 (after a message) when the file cannot be written. */
static int svg(const char *path, const row *r, int nr, int64_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmx model gemm: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    const double W = 640, H = 420, L = 70, B = 50;
    double x0 = log10((double)r[0].p), x1 = log10((double)r[nr - 1].p), y0 = 1e300, y1 = -1e300;
    for (int i = 0; i < nr; i++) {
        double a = log10(r[i].summa_comm), b = log10(r[i].hsumma_comm);
        y0 = fmin(y0, fmin(a, b));
        y1 = fmax(y1, fmax(a, b));
    }
    if (x1 <= x0)
        x1 = x0 + 1;
    if (y1 <= y0)
        y1 = y0 + 1;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g'>\n", W, H);
    fprintf(f, "<text x='%g' y='20' font-size='14'>model: communication time, n = %lld</text>\n", L,
            (long long)n);
    fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='black'/>\n", L, H - B, W - 10, H - B);
    fprintf(f, "<line x1='%g' y1='30' x2='%g' y2='%g' stroke='black'/>\n", L, L, H - B);
    const char *col[2] = {"blue", "red"}, *name[2] = {"SUMMA", "HSUMMA best G"};
    for (int s = 0; s < 2; s++) {
        fprintf(f, "<polyline fill='none' stroke='%s' points='", col[s]);
        for (int i = 0; i < nr; i++) {
            double y = log10(s ? r[i].hsumma_comm : r[i].summa_comm);
            fprintf(f, "%g,%g ", L + (log10((double)r[i].p) - x0) / (x1 - x0) * (W - L - 20),
                    H - B - (y - y0) / (y1 - y0) * (H - B - 40));
        }
        fprintf(f, "'/>\n<text x='%g' y='%g' fill='%s' font-size='12'>%s</text>\n", W - 160,
                40.0 + 16 * s, col[s], name[s]);
    }
    for (int i = 0; i < nr; i++)
        fprintf(f, "<text x='%g' y='%g' font-size='10'>%lld</text>\n",
                L + (log10((double)r[i].p) - x0) / (x1 - x0) * (W - L - 20) - 10, H - B + 15,
                (long long)r[i].p);
    fprintf(f, "<text x='5' y='%g' font-size='10'>%.3g s</text>\n", H - B, pow(10, y0));
    fprintf(f, "<text x='5' y='40' font-size='10'>%.3g s</text>\n", pow(10, y1));
    fprintf(f, "<text x='%g' y='%g' font-size='12'>P (log)</text>\n</svg>\n", W / 2, H - 10);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "dmx model gemm: error writing %s\n", path);
        return -1;
    }
    return 0;
}

int dmx_cmd_model_gemm(int argc, char **argv)
{
    int64_t ps[MAXP], m = 0, n = 0, k = 0, nodes = 0;
    int np = 0;
    const char *svgf = NULL;
    dmx_dtype t = DMX_DOUBLE;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i];
        int v = i + 1 < argc;
        if (strcmp(a, "--p") == 0 && v)
            bad = (np = bench_parse_size_list(argv[++i], 1, ps, MAXP)) < 0;
        else if (strcmp(a, "--n") == 0 && v)
            bad = bench_parse_size(argv[++i], 1, &n) != 0;
        else if (strcmp(a, "--m") == 0 && v)
            bad = bench_parse_size(argv[++i], 1, &m) != 0;
        else if (strcmp(a, "--k") == 0 && v)
            bad = bench_parse_size(argv[++i], 1, &k) != 0;
        else if (strcmp(a, "--nodes") == 0 && v)
            bad = bench_parse_size(argv[++i], 1, &nodes) != 0;
        else if (strcmp(a, "--svg") == 0 && v)
            svgf = argv[++i];
        else if (strcmp(a, "--model") == 0 && v) {
            if (dmx_coll_model_load(argv[++i]) != DMX_SUCCESS) {
                fprintf(stderr, "%s\n", dmx_last_error());
                return 1;
            }
        } else if (strcmp(a, "--dtype") == 0 && v) {
            const char *d = argv[++i];
            bad = strlen(d) != 1 || !strchr("dscz", d[0]);
            t = d[0] == 's'   ? DMX_FLOAT
                : d[0] == 'c' ? DMX_CFLOAT
                : d[0] == 'z' ? DMX_CDOUBLE
                              : DMX_DOUBLE;
        } else {
            bad = 1;
        }
    }
    if (bad || np <= 0 || n <= 0 || (svgf && np < 2)) {
        fprintf(stderr,
                "usage: dmx model gemm --p P[,P...] --n N [--m M --k K] [--nodes N] "
                "[--dtype d|s|c|z] [--model FILE] [--svg FILE]\n"
                "  counts >= 1, with k/M/G suffixes; --svg draws against P: two P or more\n");
        return 2;
    }
    if (m <= 0)
        m = n;
    if (k <= 0)
        k = n;
    row rows[MAXP];
    for (int pi = 0; pi < np; pi++) {
        int64_t p = ps[pi], nd = nodes > 0 ? nodes : p;
        dmx_gemm_info s, h, c, a;
        if (dmx_gemm_predict(DMX_GEMM_SUMMA, t, m, n, k, p, nd, NULL, &s) != DMX_SUCCESS) {
            fprintf(stderr, "%s\n", dmx_last_error());
            return 1;
        }
        double sc = comm_time(DMX_GEMM_SUMMA, t, m, n, k, p, nd, &s);
        printf("P %lld  m %lld n %lld k %lld  nodes %lld\n", (long long)p, (long long)m,
               (long long)n, (long long)k, (long long)nd);
        printf("  summa   grid %dx%d b %-5lld  time %.4g s  comm %.4g s  (multiply %.4g s)\n",
               s.prow, s.pcol, (long long)s.panel, s.predicted_seconds, sc, s.compute_seconds);
        rows[pi].p = p;
        rows[pi].summa_comm = sc;
        rows[pi].hsumma_comm = sc;
        rows[pi].best_g = 1;
        double bestc = INFINITY;
        for (int64_t G = 1; G <= p; G++) {
            dmx_gemm_options o;
            if (p % G)
                continue;
            dmx_gemm_options_init(&o);
            o.prow = s.prow;
            o.pcol = s.pcol;
            o.groups = (int)G;
            if (dmx_gemm_predict(DMX_GEMM_HSUMMA, t, m, n, k, p, nd, &o, &h) != DMX_SUCCESS)
                continue;
            double hc = comm_time(DMX_GEMM_HSUMMA, t, m, n, k, p, nd, &h);
            if (p <= 64 || (G & (G - 1)) == 0 || G == p)
                printf("  hsumma  G %-7lld (%dx%d) B %-5lld b %-5lld time %.4g s  comm %.4g s\n",
                       (long long)G, h.group_rows, h.group_cols, (long long)h.outer_panel,
                       (long long)h.panel, h.predicted_seconds, hc);
            if (hc < bestc) {
                bestc = hc;
                rows[pi].best_g = (int)G;
                rows[pi].hsumma_comm = hc;
            }
        }
        dmx_gemm_predict(DMX_GEMM_CANNON, t, m, n, k, p, nd, NULL, &c);
        dmx_gemm_predict(DMX_GEMM_AUTO, t, m, n, k, p, nd, NULL, &a);
        printf("  cannon  q %d  time %.4g s\n", c.prow, c.predicted_seconds);
        printf("  best G %d: HSUMMA comm %.4g s vs SUMMA %.4g s (ratio %.3f, sqrt(P) = %.0f)\n",
               rows[pi].best_g, rows[pi].hsumma_comm, sc, rows[pi].hsumma_comm / sc,
               sqrt((double)p));
        printf("  auto: %s grid %dx%d G %d B %lld b %lld  time %.4g s\n", dmx_gemm_alg_name(a.alg),
               a.prow, a.pcol, a.groups, (long long)a.outer_panel, (long long)a.panel,
               a.predicted_seconds);
    }
    if (svgf && svg(svgf, rows, np, n) != 0)
        return 1;
    return 0;
}
