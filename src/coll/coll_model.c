/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: the cost model. Every algorithm's predicted time from p, the message size and
 * the machine parameters; AUTO takes the smallest.
 *
 * Point to point: a message of n bytes costs t(n) = alpha(n) + n * beta(n), where (alpha, beta)
 * are piecewise by size range (one pair does not fit both sides of the eager limit), one table
 * for ranks on one node (intra) and one for ranks on different nodes (inter; used for every
 * message when the communicator spans more than one node). gamma is the time per byte of a
 * local reduction. A pipelined segment also pays segment_overhead per hop (what the textbook
 * formula omits: on an oversubscribed node each hop waits to be scheduled). corr.<coll>.<alg>
 * multiplies one algorithm's prediction (measured corrections, piecewise by message size like
 * the point-to-point parameters). The MPI library's own call is
 * predicted as mpi.<coll> times the best dmx prediction (default 1: AUTO uses MPI unless a
 * dmx algorithm is predicted faster by more than AUTO_MARGIN, after calibration says by how
 * much).
 *
 * Formulas (m = message bytes: the whole vector for bcast, reduce, allreduce, scan, exscan; one
 * rank's block for the others; l = ceil(log2 p); q = largest power of two <= p; grid gr x gc):
 *   bcast      flat (p-1) t(m); ring (p-1) t(m); pipeline (p+r-2)(t(m/r)+o); binomial l t(m);
 *              scatter_ag l a + m b (p-1)/p + (p-1) t(m/p); grid (gr+gc-2) t(m)
 *   scatter, gather: flat (p-1) t(m); pipeline (p-1) t(m); binomial sum_k t(2^k m) over l levels
 *   allgather  ring (p-1) t(m); recdbl sum_k t(2^k m) (+2 t(.) folds if p != q); bruck same
 *              as recdbl without folds; grid (gc-1) t(m) + (gr-1) t(gc m)
 *   reduce     binomial l (t(m) + g m); rs_gather (p-1)(t(m/p) + g m/p) + (p-1) t(m/p)
 *   allreduce  binomial 2 l t(m) + l g m; recdbl l (t(m) + g m) (+2 t(m) if p != q);
 *              ring 2 (p-1) t(m/p) + (p-1) g m / p
 *   reduce_scatter ring (p-1)(t(m) + g m); halving sum_k (t(2^k m) + g 2^k m) (+ folds)
 *   alltoall   pairwise (p-1) t(m); hypercube l t(p m / 2); bruck l t(p m / 2);
 *              grid (gc-1) t(gr m) + (gr-1) t(gc m)
 *   scan, exscan: hypercube l (t(m) + 2 g m); ring (p-1)(t(m) + g m)
 *   shift      ring min(k, p-k) t(m) (k = 1 here); grid 2 t(m)
 * (a, b: alpha and beta of the size in question.)
 *
 * Sections by P: a model file may hold parameters measured at several communicator sizes, each
 * after a line `np = N`; a prediction for p uses the section whose N is nearest to p in log2
 * (ties to the smaller N), with the lines before the first section (the base) filling in what
 * the section does not set. A file without sections is the base alone.
 *
 * The file also carries one choice of another module, measured on the same machine: `exchange
 * = nbx|pex|pcx` is the sparse exchange's protocol for AUTO on one node (dmx calibrate measures
 * it; exchange_select.c). */
#include "coll_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXR = 12, MAXSEC = 32 };

typedef struct range {
    double max_bytes, alpha, beta;
} range;

/* A factor by message size: f[i] applies up to max[i] bytes; the last also beyond. n = 0: 1. */
typedef struct piecewise {
    int n;
    double max[MAXR], f[MAXR];
} piecewise;

typedef struct params {
    range intra[MAXR], inter[MAXR];
    int nintra, ninter;
    double gamma, seg_overhead;
    piecewise corr[DMX_COLL_NKINDS][DMX_COLL_NALGS];
    piecewise mpi[DMX_COLL_NKINDS];
    int exchange; /* the sparse exchange's protocol on one node (0: AUTO's built-in rule) */
} params;

static double factor(const piecewise *w, double m)
{
    if (w->n == 0)
        return 1.0;
    int i = 0;
    while (i < w->n - 1 && m > w->max[i])
        i++;
    return w->f[i];
}

static params P; /* the base: built-in defaults, or a file's lines before any np line */
static int P_ready = 0;
static params *S = NULL; /* the loaded file's sections, each already filled in from the base */
static int64_t S_np[MAXSEC];
static int S_n = 0;

/* The parameter set for a communicator of p ranks: the section whose np is nearest to p in
 * log2, ties to the smaller np; the base when the file has no sections. */
static const params *for_p(int64_t p)
{
    if (S_n == 0)
        return &P;
    int best = 0;
    double bn = 0, bd = 0; /* the best ratio max(p, np) / min(p, np) as a fraction bn / bd */
    for (int i = 0; i < S_n; i++) {
        double n = (double)(p > S_np[i] ? p : S_np[i]), d = (double)(p > S_np[i] ? S_np[i] : p);
        /* n / d < bn / bd, or equal with the smaller np */
        if (i == 0 || n * bd < bn * d || (n * bd == bn * d && S_np[i] < S_np[best])) {
            best = i;
            bn = n;
            bd = d;
        }
    }
    return &S[best];
}

static void defaults(params *q)
{
    memset(q, 0, sizeof *q);
    /* Open MPI 4.1 on one node (MPI-NOTES.md): eager up to 4 KiB at ~0.2 us, ~7 GB/s; ~3 us
     * start above it. */
    q->intra[0] = (range){4096, 0.3e-6, 1.0 / 7e9};
    q->intra[1] = (range){1e300, 3e-6, 1.0 / 7e9};
    q->nintra = 2;
    q->inter[0] = (range){4096, 5e-6, 1.0 / 1e9};
    q->inter[1] = (range){1e300, 20e-6, 1.0 / 1e9};
    q->ninter = 2;
    q->gamma = 1.0 / 2e9;
    q->seg_overhead = 2e-6; /* a few us of software per segment and hop */
}

unsigned dmxi_coll_model_epoch = 1;

/* DMX_MODEL, once: a model file named there is loaded before the model is first used (and
 * before the first collective, dmxi_coll_settings_read), so an explicit dmx_coll_model_load
 * is the last word. */
void dmxi_coll_model_env(void)
{
    static int done = 0;
    if (done)
        return;
    done = 1; /* first: dmx_coll_model_load below comes back here */
    const char *f = dmxi_setting_str(DMXI_SET_MODEL);
    if (f && *f && dmx_coll_model_load(f) != DMX_SUCCESS)
        fprintf(stderr, "dmx: DMX_MODEL=%s not loaded, using the built-in model: %s\n", f,
                dmx_last_error());
}

static const params *get(int64_t p)
{
    dmxi_coll_model_env(); /* DMX_MODEL, once */
    if (!P_ready) {
        defaults(&P);
        P_ready = 1;
    }
    return for_p(p);
}

dmx_status dmx_coll_model_section(int64_t p, int64_t *np)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(np != NULL, DMX_ERR_NULL, "np is NULL");
    DMXI_CHECK(p >= 1, DMX_ERR_ARG, "need p >= 1");
    const params *q = get(p);
    *np = q == &P ? 0 : S_np[q - S];
cleanup:
    return st;
}

dmx_status dmx_model_exchange(int64_t p, dmx_exchange_protocol *protocol)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(protocol != NULL, DMX_ERR_NULL, "protocol is NULL");
    DMXI_CHECK(p >= 1, DMX_ERR_ARG, "need p >= 1");
    *protocol = (dmx_exchange_protocol)get(p)->exchange;
cleanup:
    return st;
}

/* ---- the model file ----------------------------------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Parse exactly n nonnegative finite numbers from s. */
static int numbers(const char *s, double *v, int n)
{
    char *end = NULL;
    for (int i = 0; i < n; i++) {
        errno = 0;
        v[i] = strtod(s, &end);
        if (end == s || errno != 0 || !isfinite(v[i]) || v[i] < 0)
            return 0;
        s = end;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

static int find_name(const char *s, size_t len, int n, const char *(*name)(int))
{
    for (int i = 0; i < n; i++) {
        const char *c = name(i);
        if (c && strlen(c) == len && strncmp(c, s, len) == 0)
            return i;
    }
    return -1;
}

/* "f" (every size) or "max_bytes f" (one more range, ascending). */
static dmx_status parse_factor(piecewise *w, const char *val, const char *key, const char *path,
                               int line)
{
    dmx_status st = DMX_SUCCESS;
    double v[2];
    if (numbers(val, v, 1)) {
        DMXI_CHECK(v[0] > 0, DMX_ERR_ARG, "%s:%d: %s must be positive", path, line, key);
        w->n = 1;
        w->max[0] = 1e300;
        w->f[0] = v[0];
        goto cleanup;
    }
    DMXI_CHECK(numbers(val, v, 2) && v[1] > 0, DMX_ERR_ARG,
               "%s:%d: %s needs a positive factor, or max_bytes and a positive factor", path, line,
               key);
    DMXI_CHECK(w->n < MAXR, DMX_ERR_ARG, "%s:%d: more than %d ranges for %s", path, line, MAXR,
               key);
    DMXI_CHECK(w->n == 0 || v[0] > w->max[w->n - 1], DMX_ERR_ARG, "%s:%d: %s ranges must grow",
               path, line, key);
    w->max[w->n] = v[0];
    w->f[w->n++] = v[1];
cleanup:
    return st;
}

static const char *kname(int i)
{
    return dmx_coll_kind_name((dmx_coll_kind)i);
}
static const char *aname(int i)
{
    return dmx_coll_alg_name((dmx_coll_alg)i);
}

static dmx_status parse_line(params *q, char *key, char *val, const char *path, int line)
{
    dmx_status st = DMX_SUCCESS;
    double v[3];
    if (strcmp(key, "intra") == 0 || strcmp(key, "inter") == 0) {
        int intra = key[2] == 't' && key[3] == 'r';
        range *r = intra ? q->intra : q->inter;
        int *n = intra ? &q->nintra : &q->ninter;
        DMXI_CHECK(numbers(val, v, 3), DMX_ERR_ARG,
                   "%s:%d: %s needs three numbers: max_bytes alpha beta", path, line, key);
        DMXI_CHECK(*n < MAXR, DMX_ERR_ARG, "%s:%d: more than %d %s ranges", path, line, MAXR, key);
        DMXI_CHECK(*n == 0 || v[0] > r[*n - 1].max_bytes, DMX_ERR_ARG, "%s:%d: %s ranges must grow",
                   path, line, key);
        r[(*n)++] = (range){v[0], v[1], v[2]};
    } else if (strcmp(key, "gamma") == 0 || strcmp(key, "segment_overhead") == 0) {
        DMXI_CHECK(numbers(val, v, 1), DMX_ERR_ARG, "%s:%d: %s needs one number", path, line, key);
        *(key[0] == 'g' ? &q->gamma : &q->seg_overhead) = v[0];
    } else if (strncmp(key, "mpi.", 4) == 0) {
        int k = find_name(key + 4, strlen(key + 4), DMX_COLL_NKINDS, kname);
        DMXI_CHECK(k >= 0, DMX_ERR_ARG, "%s:%d: unknown collective in \"%s\"", path, line, key);
        DMXI_TRY(parse_factor(&q->mpi[k], val, key, path, line));
    } else if (strncmp(key, "corr.", 5) == 0) {
        const char *c = key + 5, *dot = strchr(c, '.');
        int k = dot ? find_name(c, (size_t)(dot - c), DMX_COLL_NKINDS, kname) : -1;
        int a = dot ? find_name(dot + 1, strlen(dot + 1), DMX_COLL_NALGS, aname) : -1;
        DMXI_CHECK(k >= 0 && a >= 2, DMX_ERR_ARG,
                   "%s:%d: \"%s\" is not corr.<collective>.<algorithm>", path, line, key);
        DMXI_TRY(parse_factor(&q->corr[k][a], val, key, path, line));
    } else if (strcmp(key, "exchange") == 0) {
        dmx_exchange_protocol x = DMX_EXCHANGE_AUTO; /* RSX is never AUTO's */
        DMXI_CHECK(dmx_exchange_protocol_from_name(val, &x) == DMX_SUCCESS && x != DMX_EXCHANGE_RSX,
                   DMX_ERR_ARG, "%s:%d: exchange needs nbx, pex, pcx or auto (the rule)", path,
                   line);
        q->exchange = (int)x;
    } else if (strcmp(key, "note") == 0) {
        /* free text */
    } else {
        DMXI_FAIL(DMX_ERR_ARG, "%s:%d: unknown key \"%s\"", path, line, key);
    }
cleanup:
    return st;
}

/* A file being read: the base, the sections opened so far, the one lines go to now. */
typedef struct reading {
    params base, *sec;
    int64_t np[MAXSEC];
    int nsec, base_inter; /* base_inter: the base has inter lines of its own */
} reading;

/* A section starts empty: nothing set (gamma and segment_overhead NAN), so that what it does
 * not set can be taken from the base when the file is read. */
static dmx_status open_section(reading *r, const char *val, const char *path, int line)
{
    dmx_status st = DMX_SUCCESS;
    double v;
    DMXI_CHECK(numbers(val, &v, 1) && v >= 1 && v <= 1e15 && v == floor(v), DMX_ERR_ARG,
               "%s:%d: np needs a whole number of ranks >= 1", path, line);
    for (int i = 0; i < r->nsec; i++)
        DMXI_CHECK(r->np[i] != (int64_t)v, DMX_ERR_ARG, "%s:%d: a second section np = %.0f", path,
                   line, v);
    DMXI_CHECK(r->nsec < MAXSEC, DMX_ERR_ARG, "%s:%d: more than %d np sections", path, line,
               MAXSEC);
    params *g = realloc(r->sec, (size_t)(r->nsec + 1) * sizeof *g);
    DMXI_CHECK(g != NULL, DMX_ERR_ALLOC, "%s:%d: out of memory for np sections", path, line);
    r->sec = g;
    memset(&g[r->nsec], 0, sizeof *g);
    g[r->nsec].gamma = g[r->nsec].seg_overhead = NAN;
    r->np[r->nsec++] = (int64_t)v;
cleanup:
    return st;
}

/* What a section does not set, from the base (an empty inter table follows the section's own
 * intra when the base had no inter lines either: all ranks on one node). */
static void fill_in(params *s, const params *b, int base_inter)
{
    if (s->ninter == 0 && (base_inter || s->nintra == 0)) {
        memcpy(s->inter, b->inter, sizeof s->inter);
        s->ninter = b->ninter;
    }
    if (s->nintra == 0) {
        memcpy(s->intra, b->intra, sizeof s->intra);
        s->nintra = b->nintra;
    }
    if (s->ninter == 0) {
        memcpy(s->inter, s->intra, sizeof s->intra);
        s->ninter = s->nintra;
    }
    if (isnan(s->gamma))
        s->gamma = b->gamma;
    if (isnan(s->seg_overhead))
        s->seg_overhead = b->seg_overhead;
    if (s->exchange == DMX_EXCHANGE_AUTO)
        s->exchange = b->exchange;
    for (int k = 0; k < DMX_COLL_NKINDS; k++) {
        if (s->mpi[k].n == 0)
            s->mpi[k] = b->mpi[k];
        for (int a = 0; a < DMX_COLL_NALGS; a++)
            if (s->corr[k][a].n == 0)
                s->corr[k][a] = b->corr[k][a];
    }
}

/* Reads the file's lines into r. */
static dmx_status read_lines(reading *r, FILE *f, const char *path)
{
    dmx_status st = DMX_SUCCESS;
    char buf[512];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        DMXI_CHECK(strchr(buf, '\n') || feof(f), DMX_ERR_ARG, "%s:%d: line too long", path, line);
        char *h = strchr(buf, '#');
        if (h)
            *h = '\0';
        char *s = trim(buf);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        DMXI_CHECK(eq != NULL, DMX_ERR_ARG, "%s:%d: expected key = value", path, line);
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (strcmp(key, "np") == 0) {
            DMXI_TRY(open_section(r, val, path, line));
            continue;
        }
        if (r->nsec == 0 && strcmp(key, "inter") == 0)
            r->base_inter = 1;
        DMXI_TRY(parse_line(r->nsec ? &r->sec[r->nsec - 1] : &r->base, key, val, path, line));
    }
cleanup:
    return st;
}

dmx_status dmx_coll_model_load(const char *path)
{
    dmx_status st = DMX_SUCCESS;
    FILE *f = NULL;
    reading r = {.sec = NULL, .nsec = 0, .base_inter = 0};
    dmxi_coll_model_env(); /* DMX_MODEL first, so that this explicit load is the last word */
    if (path == NULL) {
        defaults(&P);
        free(S);
        S = NULL;
        S_n = 0;
        P_ready = 1;
        dmxi_coll_model_epoch++;
        goto cleanup;
    }
    defaults(&r.base);
    r.base.nintra = r.base.ninter = 0;
    f = fopen(path, "r");
    DMXI_CHECK(f != NULL, DMX_ERR_ARG, "cannot open model file %s", path);
    DMXI_TRY(read_lines(&r, f, path));
    int every = r.nsec > 0; /* every section has intra lines of its own */
    for (int i = 0; i < r.nsec; i++)
        every = every && r.sec[i].nintra > 0;
    DMXI_CHECK(r.base.nintra > 0 || every, DMX_ERR_ARG,
               "%s: no intra = max_bytes alpha beta line%s", path,
               r.nsec ? " before the first np line, nor in every np section" : "");
    if (r.base.ninter == 0) { /* one node: inter-node parameters default to the intra ones */
        memcpy(r.base.inter, r.base.intra, sizeof r.base.intra);
        r.base.ninter = r.base.nintra;
    }
    for (int i = 0; i < r.nsec; i++)
        fill_in(&r.sec[i], &r.base, r.base_inter);
    P = r.base;
    free(S);
    S = r.sec;
    r.sec = NULL;
    S_n = r.nsec;
    memcpy(S_np, r.np, sizeof S_np);
    P_ready = 1;
    dmxi_coll_model_epoch++;
cleanup:
    free(r.sec);
    if (f)
        fclose(f);
    return st;
}

/* ---- predictions -------------------------------------------------------------------------- */

static double t_msg(const params *q, int nodes, double n)
{
    const range *r = nodes > 1 ? q->inter : q->intra;
    int m = nodes > 1 ? q->ninter : q->nintra;
    int i = 0;
    while (i < m - 1 && n > r[i].max_bytes)
        i++;
    return r[i].alpha + n * r[i].beta;
}

static double log2c(int64_t p)
{
    int l = 0;
    while (((int64_t)1 << l) < p)
        l++;
    return l;
}

/* Largest divisor of p not above sqrt(p). */
static int64_t grid_rows(int64_t p)
{
    int64_t gr = 1;
    for (int64_t d = 1; d * d <= p; d++)
        if (p % d == 0)
            gr = d;
    return gr;
}

static double pipeline_time(const params *q, int64_t p, double m, int nodes, int64_t r)
{
    if (p <= 1)
        return 0;
    double seg = ceil(m / (double)r);
    return (double)(p + r - 2) * (t_msg(q, nodes, seg) + q->seg_overhead);
}

/* AUTO leaves MPI's call for a dmx algorithm only when the model predicts MPI's call slower by
 * more than this factor. Calibration measures MPI/best to a few percent at best on a shared
 * node (its medians of 5-7 runs move by 5 % between runs at large sizes), so a smaller predicted
 * gain is as likely noise as real; staying with MPI then costs at most this factor. */
#define AUTO_MARGIN 1.05

static int64_t best_segments(const params *q, int64_t p, int64_t bytes, int nodes)
{
    int64_t best = 1;
    double tb = pipeline_time(q, p, (double)bytes, nodes, 1);
    for (double x = 2; x <= 65536 && x <= (double)bytes; x = ceil(x * 1.1)) {
        int64_t r = (int64_t)x;
        double t = pipeline_time(q, p, (double)bytes, nodes, r);
        if (t < tb) {
            tb = t;
            best = r;
        }
    }
    return best;
}

/* Sum over the l levels of a doubling scheme of t(2^k m) (each level's share capped by what
 * remains of p-1 blocks). */
static double doubling(const params *q, int64_t p, double m, int nodes, double g)
{
    double t = 0, have = 1;
    while (have < (double)p) {
        double n = fmin(have, (double)p - have) * m;
        t += t_msg(q, nodes, n) + g * n;
        have *= 2;
    }
    return t;
}

static double raw(const params *q, dmx_coll_kind kind, dmx_coll_alg alg, int64_t p, double m,
                  int nodes)
{
    if (p <= 1)
        return 0;
    double l = log2c(p), g = q->gamma, pm1 = (double)(p - 1);
    int64_t gr = grid_rows(p), gc = p / gr;
    int64_t p2 = 1;
    while (p2 * 2 <= p)
        p2 *= 2;
    double fold = p2 != p ? 2 * t_msg(q, nodes, m) : 0;
    switch (kind) {
    case DMX_COLL_BCAST:
        switch (alg) {
        case DMX_COLL_FLAT:
        case DMX_COLL_RING: return pm1 * t_msg(q, nodes, m);
        case DMX_COLL_PIPELINE:
            return pipeline_time(q, p, m, nodes, best_segments(q, p, (int64_t)m, nodes));
        case DMX_COLL_BINOMIAL: return l * t_msg(q, nodes, m);
        case DMX_COLL_SCATTER_AG:
            return doubling(q, p, m / (double)p, nodes, 0) + pm1 * t_msg(q, nodes, m / (double)p);
        case DMX_COLL_GRID: return (double)(gr + gc - 2) * t_msg(q, nodes, m);
        default: break;
        }
        break;
    case DMX_COLL_SCATTER:
    case DMX_COLL_GATHER:
        if (alg == DMX_COLL_BINOMIAL)
            return doubling(q, p, m, nodes, 0);
        return pm1 * t_msg(q, nodes, m);
    case DMX_COLL_ALLGATHER:
        switch (alg) {
        case DMX_COLL_RING: return pm1 * t_msg(q, nodes, m);
        case DMX_COLL_RECDBL:
            return doubling(q, p2, m * (double)p / (double)p2, nodes, 0) +
                   (p2 != p ? t_msg(q, nodes, m) + t_msg(q, nodes, m * (double)p) : 0);
        case DMX_COLL_BRUCK: return doubling(q, p, m, nodes, 0) + m * (double)p * 1e-10;
        case DMX_COLL_GRID:
            return (double)(gc - 1) * t_msg(q, nodes, m) +
                   (double)(gr - 1) * t_msg(q, nodes, m * (double)gc);
        default: break;
        }
        break;
    case DMX_COLL_REDUCE:
        if (alg == DMX_COLL_BINOMIAL)
            return l * (t_msg(q, nodes, m) + g * m);
        return pm1 * (t_msg(q, nodes, m / (double)p) + g * m / (double)p) +
               pm1 * t_msg(q, nodes, m / (double)p);
    case DMX_COLL_ALLREDUCE:
        switch (alg) {
        case DMX_COLL_BINOMIAL: return 2 * l * t_msg(q, nodes, m) + l * g * m;
        case DMX_COLL_RECDBL: return log2c(p2) * (t_msg(q, nodes, m) + g * m) + fold;
        case DMX_COLL_RING:
            return 2 * pm1 * t_msg(q, nodes, m / (double)p) + pm1 * g * m / (double)p;
        default: break;
        }
        break;
    case DMX_COLL_REDUCE_SCATTER:
        if (alg == DMX_COLL_RING)
            return pm1 * (t_msg(q, nodes, m) + g * m);
        return doubling(q, p2, m * (double)p / (double)p2, nodes, g) +
               (p2 != p ? 2 * t_msg(q, nodes, m * (double)p) : 0);
    case DMX_COLL_ALLTOALL:
        switch (alg) {
        case DMX_COLL_PAIRWISE: return pm1 * t_msg(q, nodes, m);
        case DMX_COLL_HYPERCUBE:
        case DMX_COLL_BRUCK:
            return l * t_msg(q, nodes, m * (double)((p + 1) / 2)) +
                   (alg == DMX_COLL_HYPERCUBE && p2 != p ? pm1 * t_msg(q, nodes, m) : 0);
        case DMX_COLL_GRID:
            return (double)(gc - 1) * t_msg(q, nodes, m * (double)gr) +
                   (double)(gr - 1) * t_msg(q, nodes, m * (double)gc);
        default: break;
        }
        break;
    case DMX_COLL_SCAN:
    case DMX_COLL_EXSCAN:
        if (alg == DMX_COLL_HYPERCUBE)
            return l * (t_msg(q, nodes, m) + 2 * g * m);
        return pm1 * (t_msg(q, nodes, m) + g * m);
    case DMX_COLL_SHIFT:
        if (alg == DMX_COLL_RING)
            return t_msg(q, nodes, m);
        return 2 * t_msg(q, nodes, m);
    default: break;
    }
    return -1;
}

dmx_status dmx_coll_predict(dmx_coll_kind kind, dmx_coll_alg alg, int64_t p, int64_t bytes,
                            int64_t nodes, double *seconds, dmx_coll_alg *chosen)
{
    dmx_status st = DMX_SUCCESS;
    const params *q = get(p);
    DMXI_CHECK(seconds != NULL, DMX_ERR_NULL, "seconds is NULL");
    DMXI_CHECK(kind >= 0 && kind < DMX_COLL_NKINDS, DMX_ERR_ARG, "unknown collective %d",
               (int)kind);
    DMXI_CHECK(dmx_coll_alg_valid(kind, alg), DMX_ERR_ARG, "algorithm %d is not one of %s's",
               (int)alg, dmx_coll_kind_name(kind));
    DMXI_CHECK(p >= 1 && bytes >= 0 && nodes >= 1, DMX_ERR_ARG,
               "need p >= 1, bytes >= 0, nodes >= 1");
    int nd = nodes > 1 ? 2 : 1;
    double m = (double)bytes;
    double best = INFINITY;
    dmx_coll_alg besta = DMX_COLL_MPI;
    for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS; a++) {
        if (!dmx_coll_alg_valid(kind, (dmx_coll_alg)a))
            continue;
        double t = raw(q, kind, (dmx_coll_alg)a, p, m, nd) * factor(&q->corr[kind][a], m);
        if (a == (int)alg) {
            *seconds = t;
            goto done;
        }
        if (t < best) {
            best = t;
            besta = (dmx_coll_alg)a;
        }
    }
    double tmpi = best * factor(&q->mpi[kind], m);
    if (alg == DMX_COLL_MPI) {
        *seconds = tmpi;
    } else { /* AUTO: a dmx algorithm only if faster than MPI's call by more than the margin */
        int use_mpi = tmpi <= best * AUTO_MARGIN;
        if (use_mpi)
            besta = DMX_COLL_MPI;
        *seconds = use_mpi ? tmpi : best;
    }
    if (chosen)
        *chosen = besta;
    goto cleanup;
done:
    if (chosen)
        *chosen = alg;
cleanup:
    return st;
}

dmx_status dmx_coll_pipeline_segments(int64_t p, int64_t bytes, int64_t nodes, int64_t *model_best,
                                      double *textbook)
{
    dmx_status st = DMX_SUCCESS;
    const params *q = get(p);
    DMXI_CHECK(p >= 1 && bytes >= 0 && nodes >= 1, DMX_ERR_ARG,
               "need p >= 1, bytes >= 0, nodes >= 1");
    int nd = nodes > 1 ? 2 : 1;
    if (model_best)
        *model_best = best_segments(q, p, bytes, nd);
    if (textbook) {
        const range *r = nd > 1 ? q->inter : q->intra;
        int n = nd > 1 ? q->ninter : q->nintra;
        /* The textbook's alpha and beta: the large-message beta, and the largest start-up
         * (a fit may put the large range's alpha at 0). */
        double alpha = 0, beta = r[n - 1].beta;
        for (int i = 0; i < n; i++)
            alpha = r[i].alpha > alpha ? r[i].alpha : alpha;
        *textbook = p > 2 && alpha > 0 ? sqrt((double)bytes * (double)(p - 2) * beta / alpha) : 1.0;
    }
cleanup:
    return st;
}
