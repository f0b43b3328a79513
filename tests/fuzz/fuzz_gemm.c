/* SPDX-License-Identifier: BSD-3-Clause */
/* A randomized check of the distributed multiply (issue 30, item 6): the same idea as fuzz.c,
 * for C = alpha*op(A)*op(B) + beta*C.
 *
 * Every case is drawn from (seed, case number) alone, identically on every rank. A case picks
 * the processes (all of MPI_COMM_WORLD or a random subset, in the world's order or a random
 * one), a dtype, the ops of A and B (N, T, C), m, n, k (0, 1, primes, random up to
 * DMX_FUZZ_MAXN), alpha and beta (0 included), random harness layouts for A, B and C
 * (block-cyclic, mapped, custom, local-only; views of larger parents), a forced algorithm and
 * grid options or none, and whether to run dmx_gemm or a plan executed twice with new data.
 * A, B, C hold matrix ids of the harness's closed-form formula; when alpha = 0 A and B may be
 * all NaN (docs/gemm.md: alpha = 0 means no multiply), when beta = 0 C may be all NaN. The
 * check, on every rank: every element of C's parent against a serial multiply of the formula
 * (long double accumulation; tolerance by k and type), elements of C outside the view
 * unchanged, A and B unchanged with their padding.
 *
 * Usage: fuzz_gemm [cases [seed [first]]]; DMX_FUZZ_CASES, DMX_FUZZ_SEED, DMX_FUZZ_FIRST,
 * DMX_FUZZ_MAXN (default 24) override. `fuzz_gemm 1 <seed> <case>` reruns one case.
 */
#include "dmxtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct gside {
    int kind, view;
    int64_t m, n, pm, pn, i0, j0; /* view size, parent size, origin */
    int id;
} gside;

typedef struct gcase {
    dmx_dtype dtype;
    dmx_op ta, tb;
    int64_t m, n, k;
    dmx_scalar alpha, beta;
    gside a, b, c;
    int use_plan; /* 0: dmx_gemm; 1: plan, executed twice with new data */
    int ida2, idb2, idc2;
    dmx_gemm_options opt;
    int forced;
} gcase;

static int64_t draw_dim(dmxt_rng *g, int64_t maxn)
{
    static const int64_t special[] = {0, 1, 1, 2, 3, 5, 7, 11, 13, 17};
    if (dmxt_rng_chance(g, 40))
        return special[dmxt_rng_int(g, 0, 9)];
    return dmxt_rng_int(g, 1, maxn);
}

static dmx_scalar draw_scalar(dmxt_rng *g, int cplx)
{
    dmx_scalar s = {0.0, 0.0};
    int64_t k = dmxt_rng_int(g, 0, 5);
    if (k == 0)
        return s;
    if (k == 1)
        s.re = 1.0;
    else if (k == 2)
        s.re = -1.0;
    else {
        s.re = (double)dmxt_rng_int(g, -8, 8) / 4.0 + 0.125;
        if (cplx && dmxt_rng_chance(g, 70))
            s.im = (double)dmxt_rng_int(g, -8, 8) / 4.0 - 0.375;
    }
    return s;
}

static void draw_side(dmxt_rng *g, int64_t m, int64_t n, gside *s)
{
    int64_t k = dmxt_rng_int(g, 0, 99);
    s->kind = k < 35 ? DMXT_BC : k < 55 ? DMXT_MAPPED : k < 85 ? DMXT_CUSTOM : DMXT_LOCAL;
    s->m = m;
    s->n = n;
    /* an empty side is always a view of a non-empty parent */
    s->view = (s->kind != DMXT_LOCAL && dmxt_rng_chance(g, 35)) || m == 0 || n == 0;
    if (s->view && s->kind == DMXT_LOCAL)
        s->kind = DMXT_BC;
    s->pm = m;
    s->pn = n;
    s->i0 = s->j0 = 0;
    if (s->view) {
        s->pm = m + dmxt_rng_int(g, m == 0 ? 1 : 0, 5);
        s->pn = n + dmxt_rng_int(g, n == 0 ? 1 : 0, 5);
        s->i0 = dmxt_rng_int(g, 0, s->pm - m);
        s->j0 = dmxt_rng_int(g, 0, s->pn - n);
    }
}

static int is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

static void draw_options(dmxt_rng *g, int nsub, gcase *c)
{
    dmx_gemm_options_init(&c->opt);
    c->forced = 0;
    if (dmxt_rng_chance(g, 30))
        return;
    c->forced = 1;
    c->opt.alg = (dmx_gemm_alg)dmxt_rng_int(g, 0, 3);
    c->opt.overlap = (int)dmxt_rng_int(g, 0, 1);
    if (c->opt.alg != DMX_GEMM_CANNON && dmxt_rng_chance(g, 50)) {
        c->opt.prow = (int)dmxt_rng_int(g, 1, nsub);
        c->opt.pcol = (int)dmxt_rng_int(g, 1, nsub / c->opt.prow);
    }
    if (dmxt_rng_chance(g, 50))
        c->opt.panel = dmxt_rng_int(g, 1, 5);
    if (c->opt.alg == DMX_GEMM_HSUMMA && dmxt_rng_chance(g, 50)) {
        int p = c->opt.prow > 0 ? c->opt.prow * c->opt.pcol : nsub;
        int gs = (int)dmxt_rng_int(g, 1, p);
        while (p % gs != 0)
            gs--;
        c->opt.groups = gs;
        if (c->opt.panel > 0)
            c->opt.outer_panel = c->opt.panel * dmxt_rng_int(g, 1, 3);
    }
}

static void draw_case(dmxt_rng *g, int64_t maxn, int nsub, gcase *c)
{
    memset(c, 0, sizeof *c);
    c->dtype = (dmx_dtype)dmxt_rng_int(g, 0, 3);
    c->ta = (dmx_op)dmxt_rng_int(g, 0, 2);
    c->tb = (dmx_op)dmxt_rng_int(g, 0, 2);
    int cplx = c->dtype == DMX_CFLOAT || c->dtype == DMX_CDOUBLE;
    c->m = draw_dim(g, maxn);
    c->n = draw_dim(g, maxn);
    c->k = draw_dim(g, maxn);
    c->alpha = draw_scalar(g, cplx);
    c->beta = draw_scalar(g, cplx);
    int a0 = is_zero(c->alpha), b0 = is_zero(c->beta);
    if (c->ta == DMX_OP_N)
        draw_side(g, c->m, c->k, &c->a);
    else
        draw_side(g, c->k, c->m, &c->a);
    if (c->tb == DMX_OP_N)
        draw_side(g, c->k, c->n, &c->b);
    else
        draw_side(g, c->n, c->k, &c->b);
    draw_side(g, c->m, c->n, &c->c);
    c->a.id = a0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, 7);
    c->b.id = a0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, 7);
    c->c.id = b0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, 7);
    c->use_plan = dmxt_rng_chance(g, 50);
    c->ida2 = (int)dmxt_rng_int(g, 0, 7);
    c->idb2 = (int)dmxt_rng_int(g, 0, 7);
    c->idc2 = b0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, 7);
    draw_options(g, nsub, c);
}

static void describe(char *buf, size_t len, int64_t ncase, int nsub, int reorder, const gcase *c)
{
    static const char *const kn[] = {"bc", "mapped", "custom", "local"};
    const gside *s[3] = {&c->a, &c->b, &c->c};
    buf[0] = '\0';
    dmxt_append(buf, len,
                "case %lld: %d ranks%s, %s %s%s m=%lld n=%lld k=%lld alpha=(%g,%g) beta=(%g,%g)"
                " %s alg=%s grid=%dx%d G=%d b=%lld B=%lld overlap=%d",
                (long long)ncase, nsub, reorder ? " reordered" : "", dmxt_dtype_name(c->dtype),
                dmxt_op_name(c->ta), dmxt_op_name(c->tb), (long long)c->m, (long long)c->n,
                (long long)c->k, c->alpha.re, c->alpha.im, c->beta.re, c->beta.im,
                c->use_plan ? "plan x2" : "dmx_gemm", c->forced ? "forced " : "auto", c->opt.prow,
                c->opt.pcol, c->opt.groups, (long long)c->opt.panel, (long long)c->opt.outer_panel,
                c->opt.overlap);
    if (c->forced)
        dmxt_append(buf, len, "(%s)", dmx_gemm_alg_name(c->opt.alg));
    for (int t = 0; t < 3; t++)
        dmxt_append(buf, len, " %c=%s id%d %lldx%lld@(%lld,%lld) in %lldx%lld", "ABC"[t],
                    kn[s[t]->kind], s[t] -> id, (long long)s[t] -> m, (long long)s[t] -> n,
                    (long long)s[t] -> i0, (long long)s[t] -> j0, (long long)s[t] -> pm,
                    (long long)s[t] -> pn);
}

/* op(X)(i, l) of the formula matrix id of side s. */
static void op_elem(const gside *s, dmx_op op, int cplx, int64_t i, int64_t l, long double *re,
                    long double *im)
{
    double r, m;
    if (op == DMX_OP_N)
        dmxt_formula(s->id, s->i0 + i, s->j0 + l, &r, &m);
    else
        dmxt_formula(s->id, s->i0 + l, s->j0 + i, &r, &m);
    if (!cplx)
        m = 0.0;
    if (op == DMX_OP_C)
        m = -m;
    *re = r;
    *im = m;
}

/* Check every element of C's parent. */
static int64_t check_c(const gcase *c, const dmxt_matrix *C, char *msg, size_t len)
{
    int cplx = c->dtype == DMX_CFLOAT || c->dtype == DMX_CDOUBLE;
    double eps = (c->dtype == DMX_FLOAT || c->dtype == DMX_CFLOAT) ? 6e-8 : 1.2e-16;
    int64_t bad = 0;
    for (int64_t t = 0; t < C->nblk; t++) {
        const dmxt_block *b = &C->blk[t];
        for (int64_t cc = 0; cc < b->cols; cc++)
            for (int64_t r = 0; r < b->rows; r++) {
                int64_t gi = b->row0 + r, gj = b->col0 + cc;
                int64_t i = gi - c->c.i0, j = gj - c->c.j0;
                int64_t pos = b->order == DMX_COL_MAJOR ? r + cc * b->ld : r * b->ld + cc;
                double gr, gm, c0r, c0m;
                dmxt_get(c->dtype, b->data, pos, &gr, &gm);
                dmxt_formula(c->c.id, gi, gj, &c0r, &c0m);
                if (!cplx)
                    c0m = gm = 0.0;
                int inside = i >= 0 && j >= 0 && i < c->m && j < c->n;
                long double wr = c0r, wm = c0m, scale = 0.0L;
                if (inside) {
                    long double sr = 0.0L, sm = 0.0L;
                    if (!is_zero(c->alpha))
                        for (int64_t l = 0; l < c->k; l++) {
                            long double ar, am, br, bm;
                            op_elem(&c->a, c->ta, cplx, i, l, &ar, &am);
                            op_elem(&c->b, c->tb, cplx, l, j, &br, &bm);
                            sr += ar * br - am * bm;
                            sm += ar * bm + am * br;
                            scale += (fabsl(ar) + fabsl(am)) * (fabsl(br) + fabsl(bm));
                        }
                    long double xr = c->alpha.re * sr - c->alpha.im * sm;
                    long double xm = c->alpha.re * sm + c->alpha.im * sr;
                    scale *= fabs(c->alpha.re) + fabs(c->alpha.im);
                    if (is_zero(c->beta)) {
                        wr = xr;
                        wm = xm;
                    } else {
                        wr = xr + c->beta.re * (long double)c0r - c->beta.im * (long double)c0m;
                        wm = xm + c->beta.re * (long double)c0m + c->beta.im * (long double)c0r;
                        scale += (fabs(c->beta.re) + fabs(c->beta.im)) *
                                 (fabsl((long double)c0r) + fabsl((long double)c0m));
                    }
                }
                double tol = (double)scale * eps * (double)(4 * c->k + 8);
                int ok;
                if (!inside || (is_zero(c->alpha) && c->beta.re == 1.0 && c->beta.im == 0.0))
                    ok = (isnan(c0r) ? isnan(gr) : gr == c0r) &&
                         (isnan(c0m) ? isnan(gm) : gm == c0m);
                else
                    ok = fabs(gr - (double)wr) <= tol && fabs(gm - (double)wm) <= tol;
                if (!ok && bad++ == 0)
                    snprintf(msg, len,
                             "C(%lld,%lld) [%s, view (%lld,%lld)] = (%.9g,%.9g), expected "
                             "(%.9g,%.9g) tol %.3g",
                             (long long)gi, (long long)gj, inside ? "updated" : "untouched",
                             (long long)i, (long long)j, gr, gm, (double)wr, (double)wm, tol);
            }
    }
    return bad;
}

static dmx_status make_side(MPI_Comm comm, dmx_dtype t, const gside *s, dmxt_rng *g, dmxt_matrix *M,
                            dmx_layout **view)
{
    dmxt_matrix_random(M, comm, t, s->pm, s->pn, s->kind, g);
    dmxt_matrix_alloc(M);
    dmxt_fill(M, s->id);
    dmx_status st = dmxt_matrix_create(M);
    if (st == DMX_SUCCESS && s->view)
        st = dmx_layout_create_view(M->layout, s->i0, s->j0, s->m, s->n, view);
    return st;
}

/* Check C, and A and B unchanged. */
static int64_t check_all(const gcase *c, dmxt_matrix *M, const char *when, char *msg, size_t len)
{
    char m2[500];
    int64_t bad = check_c(c, &M[2], m2, sizeof m2);
    if (bad > 0)
        snprintf(msg, len, "%s: %s", when, m2);
    for (int s = 0; s < 2; s++) {
        int64_t nb = dmxt_check_fill(&M[s], s == 0 ? c->a.id : c->b.id, m2, sizeof m2);
        if (nb > 0 && bad == 0)
            snprintf(msg, len, "%s: %c modified: %s", when, "AB"[s], m2);
        bad += nb;
    }
    return bad;
}

static int64_t run_multiply(gcase *c, dmxt_matrix *M, dmx_layout **v, MPI_Comm comm, char *msg,
                            size_t len)
{
    const dmx_layout *la = v[0] ? v[0] : M[0].layout, *lb = v[1] ? v[1] : M[1].layout;
    dmx_layout *lc = v[2] ? v[2] : M[2].layout;
    const dmx_gemm_options *o = c->forced ? &c->opt : NULL;
    dmx_status st;
    dmx_gemm_plan *plan = NULL;
    if (!c->use_plan)
        st = dmx_gemm(comm, c->dtype, c->ta, c->tb, c->alpha, la, lb, c->beta, lc, o);
    else {
        st = dmx_gemm_plan_create(comm, c->dtype, c->ta, c->tb, c->alpha, la, lb, c->beta, lc, o,
                                  &plan);
        if (st == DMX_SUCCESS)
            st = dmx_gemm_plan_execute(plan);
    }
    if (st == DMX_ERR_UNSUPPORTED && c->forced) {
        dmx_gemm_plan_destroy(&plan);
        return 0; /* a forced grid or G that does not fit: skipped (same on every rank) */
    }
    if (st != DMX_SUCCESS) {
        snprintf(msg, len, "multiply: %s (%s)", dmx_status_string(st), dmx_last_error());
        dmx_gemm_plan_destroy(&plan);
        return 1;
    }
    int64_t bad = check_all(c, M, "first execute", msg, len), any = 0;
    /* the second execute is collective: run it only if the first passed on every rank */
    MPI_Allreduce(&bad, &any, 1, MPI_INT64_T, MPI_SUM, comm);
    if (c->use_plan && any == 0) {
        c->a.id = c->ida2;
        c->b.id = c->idb2;
        c->c.id = c->idc2;
        dmxt_fill(&M[0], c->a.id);
        dmxt_fill(&M[1], c->b.id);
        dmxt_fill(&M[2], c->c.id);
        st = dmx_gemm_plan_execute(plan);
        if (st != DMX_SUCCESS) {
            snprintf(msg, len, "second execute: %s (%s)", dmx_status_string(st), dmx_last_error());
            bad++;
        } else
            bad += check_all(c, M, "second execute (new data)", msg, len);
    }
    dmx_status sd = dmx_gemm_plan_destroy(&plan);
    if (sd != DMX_SUCCESS && bad++ == 0)
        snprintf(msg, len, "dmx_gemm_plan_destroy: %s", dmx_status_string(sd));
    return bad;
}

static int64_t run_case(dmxt_ctx *ctx, uint64_t seed, int64_t ncase, int64_t maxn, char *msg,
                        size_t len, char *desc, size_t dlen)
{
    dmxt_rng g;
    dmxt_rng_seed(&g, seed, (uint64_t)ncase * 2 + 1);
    const int P = ctx->size;
    int perm[1024];
    for (int r = 0; r < P && r < 1024; r++)
        perm[r] = r;
    int nsub = dmxt_rng_chance(&g, 35) ? (int)dmxt_rng_int(&g, 1, P) : P;
    int reorder = dmxt_rng_chance(&g, 50);
    if (nsub < P || reorder)
        dmxt_rng_shuffle(&g, perm, P);
    else
        reorder = 0;
    gcase c;
    draw_case(&g, maxn, nsub, &c);
    describe(desc, dlen, ncase, nsub, reorder, &c);
    dmxt_set_current(desc);
    int at = 0;
    for (int k = 0; k < P; k++)
        if (perm[k] == ctx->rank)
            at = k;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(ctx->comm, at < nsub ? 0 : MPI_UNDEFINED, at, &comm);
    if (comm == MPI_COMM_NULL)
        return 0;
    dmxt_rng gm;
    dmxt_rng_seed(&gm, seed ^ UINT64_C(0x5DEECE66D), (uint64_t)ncase * 2 + 2);
    dmxt_matrix M[3];
    dmx_layout *v[3] = {NULL, NULL, NULL};
    const gside *s[3] = {&c.a, &c.b, &c.c};
    dmx_status st = DMX_SUCCESS;
    memset(M, 0, sizeof M);
    for (int t = 0; t < 3 && st == DMX_SUCCESS; t++)
        st = make_side(comm, c.dtype, s[t], &gm, &M[t], &v[t]);
    int64_t bad = 0;
    if (st != DMX_SUCCESS) {
        bad = 1;
        snprintf(msg, len, "layout creation: %s (%s)", dmx_status_string(st), dmx_last_error());
    } else
        bad = run_multiply(&c, M, v, comm, msg, len);
    for (int t = 0; t < 3; t++) {
        dmx_layout_destroy(&v[t]);
        dmxt_matrix_free(&M[t]);
    }
    MPI_Comm_free(&comm);
    return bad;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "fuzz_gemm");
    int64_t ncases = argc > 1 ? strtoll(argv[1], NULL, 0) : 100;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : ctx.seed;
    int64_t first = argc > 3 ? strtoll(argv[3], NULL, 0) : 0;
    ncases = dmxt_cases("DMX_FUZZ_CASES", ncases);
    seed = (uint64_t)dmxt_env_int("DMX_FUZZ_SEED", (int64_t)seed);
    first = dmxt_env_int("DMX_FUZZ_FIRST", first);
    int64_t maxn = dmxt_env_int("DMX_FUZZ_MAXN", 24);
    if (maxn < 1 || maxn > 200)
        maxn = 24;
    ctx.seed = seed;
    int64_t timeout = dmxt_env_int("DMX_TEST_TIMEOUT", 300);
    if (ctx.rank == 0)
        printf("fuzz_gemm: %lld cases from %lld, seed %llu, %d ranks, sides up to %lld\n",
               (long long)ncases, (long long)first, (unsigned long long)seed, ctx.size,
               (long long)maxn);
    char msg[600], desc[2048];
    for (int64_t k = first; k < first + ncases; k++) {
        if (timeout > 0)
            alarm((unsigned)timeout);
        msg[0] = '\0';
        int64_t bad = run_case(&ctx, seed, k, maxn, msg, sizeof msg, desc, sizeof desc);
        dmxt_case_end(&ctx, bad, msg, desc);
    }
    return dmxt_finish(&ctx);
}
