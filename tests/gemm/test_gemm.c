/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply: C = alpha op(A) op(B) + beta C for SUMMA, HSUMMA (several G), Cannon and AUTO,
 * every dtype and op pair, odd sizes (k much larger and much smaller than m, n), operands in
 * random layouts (block-cyclic, mapped, custom) and in layouts that fit the algorithm as they are;
 * checked element by element against a serial triple loop over the closed-form inputs. Also:
 * HSUMMA with G = 1 and G = p gives SUMMA's result and broadcast counts; invalid input gives the
 * same named error on every rank; more plans on one communicator split no node communicator
 * (MPI_Comm_split_type counted through MPI's profiling interface: the registry keeps the count).
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (tests/common). */
#include "dmx/expert.h"
#include "dmxtest.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IDA = 1, IDB = 2, IDC = 3 };

/* Node splits, counted through MPI's profiling interface. */
static long n_split_type;

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    n_split_type++;
    return PMPI_Comm_split_type(comm, type, key, info, out);
}

/* op(X)(i, j) from the closed form of matrix id. */
static double complex opval(int id, dmx_op op, dmx_dtype t, int64_t i, int64_t j)
{
    double re, im;
    if (op == DMX_OP_N)
        dmxt_formula(id, i, j, &re, &im);
    else
        dmxt_formula(id, j, i, &re, &im);
    if (t == DMX_FLOAT || t == DMX_DOUBLE)
        im = 0.0;
    if (op == DMX_OP_C)
        im = -im;
    return re + im * I;
}

/* Check every element of C this rank owns against the serial product. */
static void check_c(const dmxt_matrix *C, dmx_dtype t, dmx_op ta, dmx_op tb, dmx_scalar al,
                    dmx_scalar be, int64_t k, dmxt_checker *ck)
{
    int cplx = t == DMX_CFLOAT || t == DMX_CDOUBLE;
    double tol = (t == DMX_FLOAT || t == DMX_CFLOAT) ? 1e-5 : 1e-12;
    double complex alpha = al.re + (cplx ? al.im : 0.0) * I;
    double complex beta = be.re + (cplx ? be.im : 0.0) * I;
    for (int64_t i = 0; i < C->m; i++)
        for (int64_t j = 0; j < C->n; j++) {
            void *p = dmxt_matrix_addr(C, i, j);
            if (p == NULL)
                continue;
            double complex s = 0.0;
            double scale = 0.0;
            for (int64_t l = 0; l < k; l++) {
                double complex x = opval(IDA, ta, t, i, l) * opval(IDB, tb, t, l, j);
                s += x;
                scale += cabs(opval(IDA, ta, t, i, l)) * cabs(opval(IDB, tb, t, l, j));
            }
            double complex c0 = opval(IDC, DMX_OP_N, t, i, j);
            double complex want = alpha * s + beta * c0;
            scale = cabs(alpha) * scale + cabs(beta) * cabs(c0) + 1.0;
            double re, im;
            dmxt_get(t, p, 0, &re, &im);
            double complex got = re + (cplx ? im : 0.0) * I;
            if (cabs(got - want) > tol * scale * 4)
                dmxt_fail(ck, "C(%lld,%lld) = %g%+gi, want %g%+gi", (long long)i, (long long)j,
                          creal(got), cimag(got), creal(want), cimag(want));
        }
}

/* Near-square grid pr x pc = p with pr <= pc. */
static void grid_of(int p, int *pr, int *pc)
{
    *pr = 1;
    for (int r = 1; r * r <= p; r++)
        if (p % r == 0)
            *pr = r;
    *pc = p / *pr;
}

typedef struct gcase {
    dmx_dtype t;
    dmx_op ta, tb;
    int64_t m, n, k;
    dmx_gemm_options opt;
    int fit; /* operands in the algorithm's own block layout */
    dmx_scalar alpha, beta;
} gcase;

/* Run one case; returns this rank's info through *info (may be NULL) and the C values through
 * the checker. */
static int run_case(dmxt_ctx *ctx, const gcase *c, dmxt_rng *rng, dmx_gemm_info *info_out,
                    double *csum)
{
    dmxt_matrix A, B, C;
    dmxt_checker ck = {ctx, 0, ""};
    char desc[300];
    int p = ctx->size, pr = c->opt.prow, pc = c->opt.pcol;
    int64_t am = c->ta == DMX_OP_N ? c->m : c->k, an = c->ta == DMX_OP_N ? c->k : c->m;
    int64_t bm = c->tb == DMX_OP_N ? c->k : c->n, bn = c->tb == DMX_OP_N ? c->n : c->k;
    snprintf(desc, sizeof desc, "%s %s%s %lldx%lldx%lld alg %s grid %dx%d G %d b %lld B %lld %s",
             dmxt_dtype_name(c->t), dmxt_op_name(c->ta), dmxt_op_name(c->tb), (long long)c->m,
             (long long)c->n, (long long)c->k, dmx_gemm_alg_name(c->opt.alg), pr, pc, c->opt.groups,
             (long long)c->opt.panel, (long long)c->opt.outer_panel,
             c->fit ? "fitting" : "random layouts");
    dmxt_set_current(desc);
#define CEIL(a, b) ((b) > 0 ? ((a) + (b)-1) / (b) : 1)
    if (c->fit) {
        int q = pr; /* Cannon: only C can fit (A and B are skewed) */
        dmxt_matrix_bc(&A, ctx->comm, c->t, am, an, CEIL(am, pr) ? CEIL(am, pr) : 1,
                       CEIL(an, pc) ? CEIL(an, pc) : 1, pr, pc, 'R', NULL, 0, 0, 0);
        dmxt_matrix_bc(&B, ctx->comm, c->t, bm, bn, CEIL(bm, pr) ? CEIL(bm, pr) : 1,
                       CEIL(bn, pc) ? CEIL(bn, pc) : 1, pr, pc, 'R', NULL, 0, 0, 0);
        dmxt_matrix_bc(&C, ctx->comm, c->t, c->m, c->n, CEIL(c->m, q) ? CEIL(c->m, q) : 1,
                       CEIL(c->n, pc) ? CEIL(c->n, pc) : 1, pr, pc, 'R', NULL, 0, 0, 3);
    } else {
        dmxt_matrix_random(&A, ctx->comm, c->t, am, an, -1, rng);
        dmxt_matrix_random(&B, ctx->comm, c->t, bm, bn, -1, rng);
        dmxt_matrix_random(&C, ctx->comm, c->t, c->m, c->n, -1, rng);
    }
    (void)p;
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&B);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&C);
    dmx_gemm_plan *g = NULL;
    dmx_gemm_info info;
    memset(&info, 0, sizeof info);
    if (st != DMX_SUCCESS) {
        dmxt_fail(&ck, "layout creation: %s", dmx_last_error());
        goto done;
    }
    dmxt_fill(&A, IDA);
    dmxt_fill(&B, IDB);
    dmxt_fill(&C, IDC);
    st = dmx_gemm_plan_create(ctx->comm, c->t, c->ta, c->tb, c->alpha, A.layout, B.layout, c->beta,
                              C.layout, &c->opt, &g);
    if (st == DMX_SUCCESS)
        st = dmx_gemm_plan_execute(g);
    if (st != DMX_SUCCESS) {
        dmxt_fail(&ck, "gemm: %s: %s", dmx_status_string(st), dmx_last_error());
        goto done;
    }
    dmx_gemm_plan_get_info(g, &info);
    check_c(&C, c->t, c->ta, c->tb, c->alpha, c->beta, c->k, &ck);
    if (c->fit && c->opt.alg != DMX_GEMM_CANNON && c->ta == DMX_OP_N && c->tb == DMX_OP_N &&
        !(info.a_in_place && info.b_in_place && info.c_in_place))
        dmxt_fail(&ck, "fitting operands were redistributed (in place: A %d B %d C %d)",
                  info.a_in_place, info.b_in_place, info.c_in_place);
    if (c->fit && c->opt.alg == DMX_GEMM_CANNON && !info.c_in_place)
        dmxt_fail(&ck, "a fitting C was redistributed");
    if (c->fit && (c->ta != DMX_OP_N && info.a_in_place))
        dmxt_fail(&ck, "op(A) = A^T used in place");
    if (csum) { /* a fingerprint of this rank's C for comparisons between algorithms */
        *csum = 0.0;
        for (int64_t i = 0; i < C.m; i++)
            for (int64_t j = 0; j < C.n; j++) {
                void *a = dmxt_matrix_addr(&C, i, j);
                double re, im;
                if (a) {
                    dmxt_get(c->t, a, 0, &re, &im);
                    *csum += re * (double)(i + 1) + im * (double)(j + 2);
                }
            }
    }
done:
    if (info_out)
        *info_out = info;
    dmx_gemm_plan_destroy(&g);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    dmxt_matrix_free(&C);
    return dmxt_case_end(ctx, ck.bad, ck.msg, desc);
}

static const int64_t sizes[][3] = {{7, 5, 9},  {13, 11, 3}, {3, 4, 37}, {1, 1, 1}, {9, 10, 1},
                                   {6, 1, 17}, {11, 7, 8},  {5, 4, 0},  {0, 3, 4}, {3, 0, 2}};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void cross_product(dmxt_ctx *ctx, dmxt_rng *rng)
{
    int p = ctx->size, pr, pc, ci = 0;
    grid_of(p, &pr, &pc);
    int nG = 0, Gs[8];
    for (int G = 1; G <= p && nG < 8; G++) {
        int ok = 0;
        for (int r = 1; r <= pr; r++)
            if (pr % r == 0 && G % r == 0 && pc % (G / r) == 0)
                ok = 1;
        if (ok)
            Gs[nG++] = G;
    }
    for (int variant = 0; variant < 5; variant++)
        for (int t = 0; t < 4; t++)
            for (int ta = 0; ta < 3; ta++)
                for (int tb = 0; tb < 3; tb++, ci++) {
                    gcase c;
                    memset(&c, 0, sizeof c);
                    dmx_gemm_options_init(&c.opt);
                    c.t = (dmx_dtype)t;
                    c.ta = (dmx_op)ta;
                    c.tb = (dmx_op)tb;
                    c.m = sizes[ci % NSIZES][0];
                    c.n = sizes[ci % NSIZES][1];
                    c.k = sizes[ci % NSIZES][2];
                    c.fit = ci % 3 == 0 || (ta == 0 && tb == 0);
                    c.alpha = (dmx_scalar){ci % 5 == 4 ? 0.0 : 1.5, t >= 2 ? -0.5 : 0.0};
                    c.beta = (dmx_scalar){ci % 4 == 1 ? 0.0 : -0.75, t >= 2 ? 0.25 : 0.0};
                    c.opt.prow = pr;
                    c.opt.pcol = pc;
                    c.opt.panel = 1 + ci % 4;
                    c.opt.overlap = ci % 7 != 3;
                    switch (variant) {
                    case 0: c.opt.alg = DMX_GEMM_SUMMA; break;
                    case 1:
                    case 2:
                        c.opt.alg = DMX_GEMM_HSUMMA;
                        c.opt.groups = Gs[(ci + variant) % nG];
                        c.opt.outer_panel = c.opt.panel * (1 + ci % 3);
                        break;
                    case 3: {
                        int q = 1;
                        while ((q + 1) * (q + 1) <= p)
                            q++;
                        c.opt.alg = DMX_GEMM_CANNON;
                        c.opt.prow = c.opt.pcol = q;
                        c.opt.panel = 0;
                        break;
                    }
                    default:
                        c.opt.alg = DMX_GEMM_AUTO;
                        c.opt.panel = 0;
                        if (!c.fit)
                            c.opt.prow = c.opt.pcol = 0;
                        break;
                    }
                    if (c.opt.alg == DMX_GEMM_AUTO && c.fit) {
                        /* fit only makes sense with a known grid: SUMMA's on it */
                        c.opt.alg = DMX_GEMM_SUMMA;
                        c.opt.panel = 0;
                    }
                    run_case(ctx, &c, rng, NULL, NULL);
                }
}

/* HSUMMA with G = 1 and G = p: SUMMA's result and broadcast counts, on every rank. */
static void hsumma_vs_summa(dmxt_ctx *ctx, dmxt_rng *rng)
{
    int p = ctx->size, pr, pc;
    grid_of(p, &pr, &pc);
    for (int s = 0; s < 3; s++) {
        gcase c;
        memset(&c, 0, sizeof c);
        dmx_gemm_options_init(&c.opt);
        c.t = DMX_DOUBLE;
        c.m = 17 + s;
        c.n = 13;
        c.k = 23 + 5 * s;
        c.alpha = (dmx_scalar){1.25, 0};
        c.beta = (dmx_scalar){0.5, 0};
        c.fit = s == 0;
        c.opt.prow = pr;
        c.opt.pcol = pc;
        c.opt.panel = 3;
        c.opt.overlap = s != 2;
        dmx_gemm_info is, i1, ip;
        double cs = 0, c1 = 0, cp = 0;
        c.opt.alg = DMX_GEMM_SUMMA;
        dmxt_rng r0 = *rng;
        run_case(ctx, &c, &r0, &is, &cs);
        c.opt.alg = DMX_GEMM_HSUMMA;
        c.opt.groups = 1;
        c.opt.outer_panel = 6;
        r0 = *rng;
        run_case(ctx, &c, &r0, &i1, &c1);
        c.opt.groups = p;
        c.opt.outer_panel = 3;
        r0 = *rng;
        run_case(ctx, &c, &r0, &ip, &cp);
        *rng = r0;
        dmxt_checker ck = {ctx, 0, ""};
        if (is.bcasts != i1.bcasts || is.bcast_bytes != i1.bcast_bytes || is.bcasts != ip.bcasts ||
            is.bcast_bytes != ip.bcast_bytes)
            dmxt_fail(&ck,
                      "broadcasts: SUMMA %lld (%lld B), HSUMMA G=1 %lld (%lld B), G=p %lld "
                      "(%lld B)",
                      (long long)is.bcasts, (long long)is.bcast_bytes, (long long)i1.bcasts,
                      (long long)i1.bcast_bytes, (long long)ip.bcasts, (long long)ip.bcast_bytes);
        if (p > 1 && is.bcasts == 0)
            dmxt_fail(&ck, "SUMMA counted no broadcasts on %d ranks", p);
        if (cs != c1 || cs != cp)
            dmxt_fail(&ck, "C differs: SUMMA %.17g, G=1 %.17g, G=p %.17g", cs, c1, cp);
        char desc[120];
        snprintf(desc, sizeof desc, "HSUMMA G=1 and G=%d equal SUMMA (counts, result), case %d", p,
                 s);
        dmxt_case_end(ctx, ck.bad, ck.msg, desc);
    }
}

static void expect(dmxt_ctx *ctx, dmx_status got, dmx_status want, const char *what)
{
    char msg[300] = "";
    int64_t bad = dmxt_expect_status(ctx, got, want, what, msg, sizeof msg);
    dmxt_case_end(ctx, bad, msg, what);
}

static void invalid(dmxt_ctx *ctx)
{
    dmxt_matrix X, S, C;
    dmx_scalar one = {1, 0}, zero = {0, 0};
    int p = ctx->size;
    dmxt_matrix_bc(&X, ctx->comm, DMX_DOUBLE, 6, 5, 2, 2, 1, p, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&S, ctx->comm, DMX_DOUBLE, 6, 6, 3, 2, 1, p, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&C, ctx->comm, DMX_DOUBLE, 6, 6, 3, 3, 1, p, 'R', NULL, 0, 0, 0);
    dmxt_matrix_create(&X);
    dmxt_matrix_create(&S);
    dmxt_matrix_create(&C);
    expect(ctx,
           dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, X.layout, S.layout, zero,
                    C.layout, NULL),
           DMX_ERR_LAYOUT, "inner dimensions 5 and 6 do not match");
    expect(ctx,
           dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, C.layout, C.layout, zero,
                    C.layout, NULL),
           DMX_ERR_ARG, "C the same layout as A and B");
    dmx_layout *v = NULL; /* a view of C: another layout on the same memory */
    dmx_layout_create_view(C.layout, 0, 0, 6, 6, &v);
    expect(
        ctx,
        dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_T, DMX_OP_N, one, v, S.layout, zero, C.layout, NULL),
        DMX_ERR_ARG, "A a view of C's memory");
    dmx_layout_destroy(&v);
    dmx_gemm_options o;
    dmx_gemm_options_init(&o);
    if (ctx->rank == p - 1)
        o.panel = -1;
    expect(ctx,
           dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, S.layout, S.layout, zero,
                    C.layout, &o),
           DMX_ERR_ARG, "negative panel width on the last rank");
    dmx_gemm_options_init(&o);
    o.prow = p + 1;
    o.pcol = 1;
    expect(ctx,
           dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, S.layout, S.layout, zero,
                    C.layout, &o),
           DMX_ERR_UNSUPPORTED, "grid larger than the communicator");
    expect(ctx,
           dmx_gemm(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, S.layout,
                    ctx->rank == 0 ? NULL : S.layout, zero, C.layout, NULL),
           DMX_ERR_NULL, "B NULL on rank 0");
    dmxt_matrix_free(&X);
    dmxt_matrix_free(&S);
    dmxt_matrix_free(&C);
}

/* The model's panel choice: with the built-in rate curve (narrow panels run slower) AUTO picks
 * b >= 256 for n = 4096 at 2 and 4 ranks, predicted faster than SUMMA with b = 32; and a plan
 * clamps a forced panel to the widest piece of k (its buffers never exceed the local part). */
static void model_choice(dmxt_ctx *ctx)
{
    char msg[300] = "";
    int64_t bad = 0;
    for (int p = 2; p <= 4 && !getenv("DMX_GEMM_MODEL"); p += 2) {
        dmx_gemm_info a, s32;
        dmx_gemm_options o;
        dmx_gemm_options_init(&o);
        o.alg = DMX_GEMM_SUMMA;
        o.panel = 32;
        if (dmx_gemm_predict(DMX_GEMM_AUTO, DMX_DOUBLE, 4096, 4096, 4096, p, 1, NULL, &a) !=
                DMX_SUCCESS ||
            dmx_gemm_predict(DMX_GEMM_SUMMA, DMX_DOUBLE, 4096, 4096, 4096, p, 1, &o, &s32) !=
                DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "dmx_gemm_predict failed at p = %d: %s", p, dmx_last_error());
        } else if (a.panel < 256 || !(a.predicted_seconds < s32.predicted_seconds)) {
            bad++;
            snprintf(msg, sizeof msg, "p = %d: AUTO chose b = %lld (%.4f s), SUMMA b = 32 %.4f s",
                     p, (long long)a.panel, a.predicted_seconds, s32.predicted_seconds);
        }
    }
    dmxt_matrix S, C;
    dmx_scalar one = {1, 0}, zero = {0, 0};
    int np = ctx->size;
    dmxt_matrix_bc(&S, ctx->comm, DMX_DOUBLE, 6, 6, 3, 2, 1, np, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&C, ctx->comm, DMX_DOUBLE, 6, 6, 3, 3, 1, np, 'R', NULL, 0, 0, 0);
    dmxt_matrix_create(&S);
    dmxt_matrix_create(&C);
    dmx_gemm_options o;
    dmx_gemm_options_init(&o);
    o.alg = DMX_GEMM_SUMMA;
    o.panel = 1000;
    dmx_gemm_plan *g = NULL;
    dmx_gemm_info info;
    if (dmx_gemm_plan_create(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, S.layout, S.layout,
                             zero, C.layout, &o, &g) != DMX_SUCCESS ||
        dmx_gemm_plan_get_info(g, &info) != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "plan with panel 1000: %s", dmx_last_error());
    } else {
        int64_t piece = (6 + info.pcol - 1) / info.pcol, pr = (6 + info.prow - 1) / info.prow;
        piece = piece < pr ? piece : pr;
        if (info.panel != piece) {
            bad++;
            snprintf(msg, sizeof msg,
                     "panel 1000 on a %dx%d grid, k = 6: info.panel %lld, want %lld", info.prow,
                     info.pcol, (long long)info.panel, (long long)piece);
        }
    }
    dmx_gemm_plan_destroy(&g);
    dmxt_matrix_free(&S);
    dmxt_matrix_free(&C);
    dmxt_case_end(ctx, bad, msg, "model: AUTO's panel >= 256 at n = 4096 (np 2, 4); panel clamped");
}

/* The plan's model needs the nodes the communicator spans: the registry counts them once per
 * communicator (core/comm.c), so after a first plan on a communicator, more plans there split
 * no node communicator (MPI_Comm_split_type counted: none in three plans whose operands fit
 * SUMMA as they are, so no redistribution plan is made either). Results checked. */
static void node_count_kept(dmxt_ctx *ctx)
{
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_matrix A, B, C;
    dmx_scalar one = {1, 0}, zero = {0, 0};
    const int np = ctx->size;
    dmxt_set_current("the node count kept by the registry");
    /* 1 x np: A's and C's rows and B's columns where SUMMA wants them */
    dmxt_matrix_bc(&A, ctx->comm, DMX_DOUBLE, 6, 5, 6, (5 + np - 1) / np, 1, np, 'R', NULL, 0, 0,
                   0);
    dmxt_matrix_bc(&B, ctx->comm, DMX_DOUBLE, 5, 6, 5, (6 + np - 1) / np, 1, np, 'R', NULL, 0, 0,
                   0);
    dmxt_matrix_bc(&C, ctx->comm, DMX_DOUBLE, 6, 6, 6, (6 + np - 1) / np, 1, np, 'R', NULL, 0, 0,
                   0);
    if (dmxt_matrix_create(&A) != DMX_SUCCESS || dmxt_matrix_create(&B) != DMX_SUCCESS ||
        dmxt_matrix_create(&C) != DMX_SUCCESS) {
        bad++;
        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
    } else {
        dmxt_fill(&A, IDA);
        dmxt_fill(&B, IDB);
        dmxt_fill(&C, IDC);
    }
    long before = 0;
    for (int i = 0; i < 4 && !bad; i++) {
        if (i == 1)
            before = n_split_type; /* the first plan may count the nodes */
        dmx_gemm_plan *g = NULL;
        if (dmx_gemm_plan_create(ctx->comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A.layout, B.layout,
                                 zero, C.layout, NULL, &g) != DMX_SUCCESS ||
            dmx_gemm_plan_execute(g) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "plan %d: %s", i, dmx_last_error());
        }
        dmx_gemm_plan_destroy(&g);
    }
    if (!bad) {
        dmxt_checker ck = {0};
        check_c(&C, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, zero, 5, &ck);
        bad += ck.bad;
        if (ck.bad)
            snprintf(msg, sizeof msg, "%s", ck.msg);
    }
    if (!bad && n_split_type != before) {
        bad++;
        snprintf(msg, sizeof msg, "three more plans split %ld node communicators",
                 n_split_type - before);
    }
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    dmxt_matrix_free(&C);
    dmxt_case_end(ctx, bad, msg, "plans on one communicator count its nodes once");
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_rng rng;
    dmxt_init(&ctx, &argc, &argv, "test_gemm");
    dmxt_rng_seed(&rng, ctx.seed, 12);
    hsumma_vs_summa(&ctx, &rng);
    invalid(&ctx);
    model_choice(&ctx);
    cross_product(&ctx, &rng);
    node_count_kept(&ctx);
    return dmxt_finish(&ctx);
}
