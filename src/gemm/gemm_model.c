/* The multiply's cost model and choice: each algorithm's time from the collectives model
 * (dmx_coll_predict for the broadcasts and shifts) and the local multiply rate, and the search
 * over algorithm, grid, G, B and b that AUTO runs. The DMX_GEMM and DMX_GEMM_MFLOPS settings are
 * read here and nowhere else.
 *
 * Times (ml = ceil(m/pr), nl = ceil(n/pc), e bytes per element, f = 2 flops per multiply-add for
 * real types and 8 for complex, gamma = 1 / rate, Tb(q, bytes) the model's broadcast over q ranks,
 * 0 for q = 1, with look-ahead, i.e. communication hidden under the multiply where shorter):
 *   SUMMA   c = Tb(pc, ml b e) + Tb(pr, b nl e), w = f ml nl b gamma:
 *           T = c + ceil(k/b) max(c, w)
 *   HSUMMA  co = Tb(gc, ml B e) + Tb(gr, B nl e), ci = Tb(pc/gc, ml b e) + Tb(pr/gr, b nl e):
 *           T = co + ci + ceil(k/B) max(co, B/b max(ci, w))
 *   Cannon  s = 2 Tshift(q, ml ceil(k/q) e), w = f ml nl ceil(k/q) gamma: T = s + q max(s, w)
 *   Without look-ahead, sums instead of maxima. */
#include "dmx/gemm.h"
#include "gemm_internal.h"

#include <math.h>
#include <string.h>

typedef struct mctx {
    dmx_dtype t;
    int64_t m, n, k, nodes;
    double gamma;
    int overlap;
} mctx;

static double tb(const mctx *c, int64_t q, int64_t bytes)
{
    double s = 0.0;
    if (q < 2)
        return 0.0;
    if (dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_AUTO, q, bytes, c->nodes < q ? c->nodes : q, &s,
                         NULL) != DMX_SUCCESS)
        return 1e30;
    return s;
}

static double comb(const mctx *c, double comm, double work)
{
    return c->overlap ? (comm > work ? comm : work) : comm + work;
}

static double predict_one(const mctx *c, dmx_gemm_alg alg, int pr, int pc, int gr, int gc,
                          int64_t b, int64_t B)
{
    double e = (double)dmx_dtype_size(c->t), f = c->t >= DMX_CFLOAT ? 8.0 : 2.0;
    double ml = (double)((c->m + pr - 1) / pr), nl = (double)((c->n + pc - 1) / pc);
    if (alg == DMX_GEMM_CANNON) {
        int64_t kq = (c->k + pr - 1) / pr;
        double s = 0.0;
        if (pr > 1 &&
            dmx_coll_predict(DMX_COLL_SHIFT, DMX_COLL_AUTO, pr, (int64_t)(ml * (double)kq * e),
                             c->nodes < pr ? c->nodes : pr, &s, NULL) != DMX_SUCCESS)
            s = 1e30;
        s *= 2.0;
        double w = f * ml * nl * (double)kq * c->gamma;
        return s + (double)pr * comb(c, s, w) - (c->overlap ? 0.0 : s);
    }
    double cb = tb(c, pc / gc, (int64_t)(ml * (double)b * e)) +
                tb(c, pr / gr, (int64_t)((double)b * nl * e));
    double w = f * ml * nl * (double)b * c->gamma;
    if (alg == DMX_GEMM_SUMMA)
        return cb + (double)((c->k + b - 1) / b) * comb(c, cb, w);
    double co = tb(c, gc, (int64_t)(ml * (double)B * e)) + tb(c, gr, (int64_t)((double)B * nl * e));
    return co + cb + (double)((c->k + B - 1) / B) * comb(c, co, (double)(B / b) * comb(c, cb, w));
}

int dmxi_gemm_group_grid(int pr, int pc, int G, int *gr, int *gc)
{
    int best = 0;
    for (int r = 1; r <= pr && r <= G; r++) {
        if (pr % r || G % r || pc % (G / r) || (int64_t)r * pc < G)
            continue;
        if (!best || abs(r - G / r) < abs(*gr - *gc)) {
            *gr = r;
            *gc = G / r;
            best = 1;
        }
    }
    return best;
}

/* The algorithm DMX_GEMM forces, or AUTO. */
static dmx_status env_alg(dmx_gemm_alg *alg)
{
    dmx_status st = DMX_SUCCESS;
    const char *v = dmxi_setting_str(DMXI_SET_GEMM);
    *alg = DMX_GEMM_AUTO;
    if (v == NULL)
        goto cleanup;
    for (int a = DMX_GEMM_AUTO; a <= DMX_GEMM_CANNON; a++)
        if (strcmp(v, dmx_gemm_alg_name((dmx_gemm_alg)a)) == 0) {
            *alg = (dmx_gemm_alg)a;
            goto cleanup;
        }
    DMXI_FAIL(DMX_ERR_ARG, "DMX_GEMM=%s: expected auto, summa, hsumma or cannon", v);
cleanup:
    return st;
}

static void consider(const mctx *c, dmx_gemm_alg alg, int pr, int pc, int gr, int gc, int64_t b,
                     int64_t B, dmx_gemm_info *best, int *have)
{
    double t = predict_one(c, alg, pr, pc, gr, gc, b, B);
    if (*have && !(t < best->predicted_seconds))
        return;
    *have = 1;
    best->alg = alg;
    best->prow = pr, best->pcol = pc;
    best->group_rows = gr, best->group_cols = gc, best->groups = gr * gc;
    best->panel = b, best->outer_panel = B;
    best->predicted_seconds = t;
    best->compute_seconds = (c->t >= DMX_CFLOAT ? 8.0 : 2.0) * (double)((c->m + pr - 1) / pr) *
                            (double)((c->n + pc - 1) / pc) * (double)c->k * c->gamma;
}

static dmx_status search(const mctx *c, int64_t p, const dmx_gemm_options *o, dmx_gemm_alg alg,
                         dmx_gemm_info *out)
{
    dmx_status st = DMX_SUCCESS;
    static const int64_t widths[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
    int have = 0;
    int64_t kk = c->k > 0 ? c->k : 1;
    DMXI_CHECK(p >= 1 && p <= INT_MAX, DMX_ERR_ARG, "p = %lld", (long long)p);
    DMXI_CHECK((int64_t)o->prow * o->pcol <= p, DMX_ERR_UNSUPPORTED,
               "grid %d x %d needs more than %lld ranks", o->prow, o->pcol, (long long)p);
    DMXI_CHECK((o->prow == 0) == (o->pcol == 0), DMX_ERR_ARG, "give both prow and pcol or neither");
    for (int a = DMX_GEMM_SUMMA; a <= DMX_GEMM_CANNON; a++) {
        if (alg != DMX_GEMM_AUTO && a != (int)alg)
            continue;
        if (a == DMX_GEMM_CANNON) {
            int q = (int)floor(sqrt((double)p) + 1e-9);
            while ((int64_t)(q + 1) * (q + 1) <= p)
                q++;
            while ((int64_t)q * q > p)
                q--;
            if (o->prow) {
                if (o->prow != o->pcol)
                    continue;
                q = o->prow;
            }
            consider(c, DMX_GEMM_CANNON, q, q, 1, 1, (kk + q - 1) / q, (kk + q - 1) / q, out,
                     &have);
            continue;
        }
        int sq = 1; /* the most square grid, the only one searched above 4096 ranks */
        for (int r = 1; (int64_t)r * r <= p; r++)
            if (p % r == 0)
                sq = r;
        for (int pr = 1; pr <= p; pr++) {
            if (p % pr && !o->prow)
                continue;
            if (p > 4096 && !o->prow && pr != sq)
                continue;
            int pc = (int)(p / pr);
            if (o->prow) {
                if (pr != o->prow)
                    continue;
                pc = o->pcol;
            }
            for (int wi = 0; wi < 8; wi++) {
                int64_t b = o->panel ? o->panel : (widths[wi] < kk ? widths[wi] : kk);
                if (o->panel && wi > 0)
                    break;
                if (a == DMX_GEMM_SUMMA) {
                    consider(c, DMX_GEMM_SUMMA, pr, pc, 1, 1, b, b, out, &have);
                    continue;
                }
                for (int G = 1; G <= pr * pc; G++) {
                    int gr = 0, gc = 0;
                    if ((o->groups && G != o->groups) || (pr * pc) % G)
                        continue;
                    if (!dmxi_gemm_group_grid(pr, pc, G, &gr, &gc))
                        continue;
                    if (o->outer_panel) {
                        if (o->outer_panel % b == 0)
                            consider(c, DMX_GEMM_HSUMMA, pr, pc, gr, gc, b, o->outer_panel, out,
                                     &have);
                        continue;
                    }
                    for (int64_t B = b; B <= 16 * b; B *= 2)
                        consider(c, DMX_GEMM_HSUMMA, pr, pc, gr, gc, b, B, out, &have);
                }
            }
        }
    }
    DMXI_CHECK(have, DMX_ERR_UNSUPPORTED,
               "no %s configuration fits the options (grid %d x %d, G %d, b %lld, B %lld) on %lld "
               "ranks",
               dmx_gemm_alg_name(alg), o->prow, o->pcol, o->groups, (long long)o->panel,
               (long long)o->outer_panel, (long long)p);
cleanup:
    return st;
}

dmx_status dmxi_gemm_choose(dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p,
                            const dmx_gemm_options *opt, dmx_gemm_info *out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_alg alg = opt->alg;
    mctx c = {t, m, n, k, 1, 0.0, opt->overlap};
    int64_t mf = dmxi_setting_int(DMXI_SET_GEMM_MFLOPS);
    c.gamma = 1.0 / (1e6 * (double)(mf > 0 ? mf : 10000));
    if (alg == DMX_GEMM_AUTO)
        DMXI_TRY(env_alg(&alg));
    memset(out, 0, sizeof *out);
    DMXI_TRY(search(&c, p, opt, alg, out));
cleanup:
    return st;
}

dmx_status dmx_gemm_predict(dmx_gemm_alg alg, dmx_dtype dtype, int64_t m, int64_t n, int64_t k,
                            int64_t p, int64_t nodes, const dmx_gemm_options *options,
                            dmx_gemm_info *chosen)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_options o;
    dmx_gemm_info info;
    DMXI_CHECK(chosen != NULL, DMX_ERR_NULL, "chosen is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0 && m >= 0 && n >= 0 && k >= 0 && nodes >= 1, DMX_ERR_ARG,
               "invalid dtype, size or node count");
    DMXI_CHECK(alg >= DMX_GEMM_AUTO && alg <= DMX_GEMM_CANNON, DMX_ERR_ARG, "invalid algorithm");
    dmx_gemm_options_init(&o);
    if (options)
        o = *options;
    mctx c = {dtype, m, n, k, nodes, 0.0, o.overlap};
    int64_t mf = dmxi_setting_int(DMXI_SET_GEMM_MFLOPS);
    c.gamma = 1.0 / (1e6 * (double)(mf > 0 ? mf : 10000));
    memset(&info, 0, sizeof info);
    DMXI_TRY(search(&c, p, &o, alg, &info));
    info.m = m, info.n = n, info.k = k;
    *chosen = info;
cleanup:
    return st;
}
