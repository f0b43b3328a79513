/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine the multiply's model prices: DMX_GEMM_MODEL's file (rate lines of the local
 * multiply, the ibcast line, the backbone, the torus), read once, or the built-in rate curve
 * scaled by DMX_GEMM_MFLOPS. The file's format is in docs/gemm.md; the costs built on it are in
 * gemm_model.c. */
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dmxi_gemm_curve CURVE;
static int curve_ready = 0;

static void default_curve(dmxi_gemm_curve *cv)
{
    static const double w[] = {32, 64, 128, 256, 512, 1024, 2048};
    static const double eff[] = {0.72, 0.83, 0.91, 0.97, 0.98, 0.99, 1.0};
    int64_t mf = dmxi_setting_int(DMXI_SET_GEMM_MFLOPS);
    double peak = 1e6 * (double)(mf > 0 ? mf : 50000);
    cv->n = 7;
    cv->ibcast = DMX_COLL_MPI;
    cv->concurrent = 0;
    cv->backbone = 0.0;
    cv->ndims = 0;
    for (int i = 0; i < 7; i++)
        cv->w[i] = w[i], cv->rate[i] = eff[i] * peak;
}

/* Nothing but white space left on a line. */
static int blank(const char *s)
{
    return strspn(s, " \t\r\n") == strlen(s);
}

/* "X,Y,..." into cv's torus sizes; 0 on success. */
static int parse_dims(const char *v, dmxi_gemm_curve *cv)
{
    cv->ndims = 0;
    while (*v) {
        char *end = NULL;
        long x = strtol(v, &end, 10);
        if (end == v || x < 2 || x > 1 << 20 || cv->ndims == DMXI_GEMM_MAXDIMS ||
            (*end && *end != ','))
            return cv->ndims = 0, 1;
        cv->dims[cv->ndims++] = x;
        v = *end ? end + 1 : end;
    }
    return cv->ndims == 0;
}

/* "rate = w mflops" lines (w ascending) and optionally "ibcast = ALG": the dmx broadcast
 * algorithm whose formula the MPI library's MPI_Ibcast follows (default mpi, the collectives
 * model's prediction of the library's broadcast), or "concurrent": the root posts its q-1 sends
 * at once and they share its link, alpha + (q-1) m beta (SimGrid 3.32's); and "backbone = B":
 * the network's total capacity in bytes/s (a switch all messages share; unset: unlimited);
 * "torus = X,Y,...": the nodes form that torus (node i at x = i mod X, y = i / X mod Y, ...)
 * with one link per direction, and messages take SimGrid's dimension-order routes (used where
 * ranks share nodes, node_loads; unset: one link per node);
 * '#' comments. Anything else on a line, trailing words included, is an error. 0 on success. */
static int load_curve(const char *path, dmxi_gemm_curve *cv, char *why, size_t nwhy)
{
    FILE *f = fopen(path, "r");
    char buf[256], name[64];
    int line = 0;
    cv->n = 0;
    cv->ibcast = DMX_COLL_MPI;
    cv->concurrent = 0;
    cv->backbone = 0.0;
    cv->ndims = 0;
    if (f == NULL) {
        snprintf(why, nwhy, "cannot open %s", path);
        return 1;
    }
    while (fgets(buf, sizeof buf, f)) {
        double w, r;
        int end = 0; /* characters read by a format; the rest of the line must be blank */
        char *h = strchr(buf, '#');
        line++;
        if (h)
            *h = '\0';
        if (strspn(buf, " \t\r\n") == strlen(buf))
            continue;
        if (sscanf(buf, " backbone = %lf%n", &w, &end) == 1) {
            if (!(w > 0) || !isfinite(w) || !blank(buf + end)) {
                snprintf(why, nwhy, "%s:%d: backbone must be positive bytes/s", path, line);
                fclose(f);
                return 1;
            }
            cv->backbone = w;
            continue;
        }
        if (sscanf(buf, " torus = %63s%n", name, &end) == 1) {
            if (!blank(buf + end) || parse_dims(name, cv) != 0) {
                snprintf(why, nwhy, "%s:%d: torus = X,Y,... expected (at most %d sizes >= 2)", path,
                         line, DMXI_GEMM_MAXDIMS);
                fclose(f);
                return 1;
            }
            continue;
        }
        if (sscanf(buf, " ibcast = %63s%n", name, &end) == 1 && !blank(buf + end)) {
            snprintf(why, nwhy, "%s:%d: one broadcast algorithm expected after ibcast =", path,
                     line);
            fclose(f);
            return 1;
        }
        if (sscanf(buf, " ibcast = %63s", name) == 1 && strcmp(name, "concurrent") == 0) {
            cv->concurrent = 1;
            continue;
        }
        if (sscanf(buf, " ibcast = %63s", name) == 1) {
            int a = DMX_COLL_MPI;
            while (a < DMX_COLL_NALGS && strcmp(name, dmx_coll_alg_name((dmx_coll_alg)a)) != 0)
                a++;
            if (a == DMX_COLL_NALGS) {
                snprintf(why, nwhy, "%s:%d: unknown broadcast algorithm %s", path, line, name);
                fclose(f);
                return 1;
            }
            cv->ibcast = (dmx_coll_alg)a;
            continue;
        }
        end = 0;
        if (sscanf(buf, " rate = %lf %lf%n", &w, &r, &end) != 2 || !blank(buf + end) || !(w >= 1) ||
            !isfinite(w) || !(r > 0) || !isfinite(r) || cv->n >= DMXI_GEMM_MAXPTS ||
            (cv->n > 0 && w <= cv->w[cv->n - 1])) {
            snprintf(why, nwhy,
                     "%s:%d: expected \"rate = width MFLOPS\", widths ascending, "
                     "at most %d lines",
                     path, line, DMXI_GEMM_MAXPTS);
            fclose(f);
            return 1;
        }
        cv->w[cv->n] = w;
        cv->rate[cv->n++] = r * 1e6;
    }
    fclose(f);
    if (cv->n == 0)
        snprintf(why, nwhy, "%s: no rate lines", path);
    return cv->n == 0;
}

const dmxi_gemm_curve *dmxi_gemm_machine(void)
{
    if (!curve_ready) {
        const char *path = dmxi_setting_str(DMXI_SET_GEMM_MODEL);
        char why[512];
        if (path == NULL || load_curve(path, &CURVE, why, sizeof why) != 0) {
            if (path != NULL)
                fprintf(stderr, "dmx: DMX_GEMM_MODEL not loaded, using the built-in curve: %s\n",
                        why);
            default_curve(&CURVE);
        }
        curve_ready = 1;
    }
    return &CURVE;
}

double dmxi_gemm_rate(double w)
{
    const dmxi_gemm_curve *cv = dmxi_gemm_machine();
    if (w >= cv->w[cv->n - 1])
        return cv->rate[cv->n - 1];
    if (w <= cv->w[0])
        return cv->rate[0] * sqrt(w / cv->w[0]);
    int i = 0;
    while (w > cv->w[i + 1])
        i++;
    double x = log2(w / cv->w[i]) / log2(cv->w[i + 1] / cv->w[i]);
    return cv->rate[i] + x * (cv->rate[i + 1] - cv->rate[i]);
}

/* SimGrid's dimension-order route on the torus, one hop (gemm_internal.h): x first, in each
 * dimension the way the source's coordinates make shorter, wrapping round. */
int64_t dmxi_gemm_torus_hop(const dmxi_gemm_curve *cv, int64_t s, int64_t d, int64_t cur,
                            int64_t *link)
{
    int64_t dp = 1;
    for (int j = 0; j < cv->ndims; j++) {
        int64_t n = cv->dims[j], my = (s / dp) % n, to = (d / dp) % n, at = (cur / dp) % n;
        if (at != to) {
            int right = (to > my && to <= my + n / 2) || (my > n / 2 && (my + n / 2) % n >= to);
            int64_t next = right ? (at == n - 1 ? cur + dp - dp * n : cur + dp)
                                 : (at == 0 ? cur - dp + dp * n : cur - dp);
            *link = ((right ? cur : next) * cv->ndims + j) * 2 + !right;
            return next;
        }
        dp *= n;
    }
    return d;
}
