/* SPDX-License-Identifier: BSD-3-Clause */
/* Randomized, seeded cross product of A = alpha*op(B) + beta*A:
 * dtype x op x layout kind of A and of B (block-cyclic, mapped block-cyclic on a subset of
 * ranks, custom irregular splits with row-/col-major padded blocks, layouts known only locally
 * with a random non-grid tiling) x shapes (incl. empty,
 * 1 x n, m x 1, m, n < P) x scalars (incl. NaN in the operand that must not be read) x views x
 * uplo/diag trapezoids x batches of 2-4 transforms x repeated execution with set_scalars and
 * rebind x DMX_MAX_MESSAGE_BYTES x DMX_SHM=0 x DMX_SHM_CHUNK_BYTES x DMX_STREAM. Each rank checks
 * its own memory against the formula, including elements outside the view/trapezoid and the ld
 * padding, and that B was not written.
 *
 * Settings: DMX_TEST_SEED (seed), DMX_TEST_CASES (number of random cases, default 1200, 500
 * above 4 ranks), DMX_TEST_CASE (run
 * only the case with this index; large cases are numbered from 100000), DMX_TEST_VERBOSE=1
 * (print every case description).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 4
#define MAXSIDES (2 * MAXT)
#define LARGE_BASE 100000
#define SUB_BASE 200000

enum { MODE_PLAN = 0, MODE_ONCE = 1, MODE_REPEAT = 2 };
enum {
    SC_COPY = 0,      /* (1, 0) */
    SC_KEEP = 1,      /* (0, 1) */
    SC_TWO = 2,       /* (2, -1) */
    SC_RANDOM = 3,    /* random complex alpha and beta */
    SC_BETA0NAN = 4,  /* random alpha, beta = 0, A prefilled with NaN */
    SC_ALPHA0NAN = 5, /* alpha = 0, random beta, B prefilled with NaN */
    SC_COPYNAN = 6,   /* (1, 0), A prefilled with NaN */
    SC_ZERO = 7,      /* (0, 0): A = 0 with A and B prefilled with NaN */
    SC_IMAGALPHA = 8, /* alpha = (0, x): zero for real types, which then get B = NaN */
    SC_IMAGBETA = 9,  /* beta = (0, x): zero for real types, which then get A = NaN */
    SC_COUNT = 10
};

typedef struct side {
    dmxt_matrix M;        /* the parent matrix (test-side description, memory, layout) */
    int use_view;         /* the transform uses a view of the parent */
    int64_t i0, j0, m, n; /* the window (the whole parent without a view) */
    int nested;           /* the view is a view of a larger view */
    int destroy_parent;   /* destroy the parent layout once the view exists */
    dmx_layout *view;     /* the view layout */
    void *spare;          /* the other local array while rebound */
    int k;                /* matrix id currently in memory (or DMXT_NAN) */
    struct side *self;    /* B of a self copy: a view of this other side's parent (no M) */
    char desc[700];
} side;

typedef struct xf {
    dmx_dtype dtype;
    dmx_op op;
    char uplo, diag;
    side *A, *B;
    int ka, kb; /* base ids */
    int scen;
    dmx_scalar alpha, beta;
} xf;

typedef struct tcase {
    int64_t idx;
    int nt;
    xf t[MAXT];
    side sides[MAXSIDES];
    int nsides;
    int mode;
    int64_t maxmsg;
    int shm_off;   /* DMX_SHM=0: node peers go through MPI messages too */
    int64_t chunk; /* DMX_SHM_CHUNK_BYTES: small ring chunks (cut pieces, rings that wrap) */
    int stream;    /* DMX_STREAM=1: A written with non-temporal stores even in small plans */
    int selfcopy;  /* A and B are disjoint views of one matrix */
    uint64_t seed;
    char desc[8192];
} tcase;

/* The communicator the current case runs on, and a duplicate of it (congruent). */
static MPI_Comm case_comm = MPI_COMM_NULL, case_dup = MPI_COMM_NULL;

static dmx_layout *side_layout(side *s)
{
    return s->use_view ? s->view : s->M.layout;
}

static void random_shape(dmxt_rng *r, int P, int64_t *m, int64_t *n)
{
    int64_t x = dmxt_rng_int(r, 0, 99);
    if (x < 5) {
        *m = 0;
        *n = dmxt_rng_int(r, 0, 20);
    } else if (x < 10) {
        *m = dmxt_rng_int(r, 0, 20);
        *n = 0;
    } else if (x < 18) {
        *m = 1;
        *n = dmxt_rng_int(r, 1, 70);
    } else if (x < 26) {
        *m = dmxt_rng_int(r, 1, 70);
        *n = 1;
    } else if (x < 38) {
        *m = dmxt_rng_int(r, 1, P);
        *n = dmxt_rng_int(r, 1, P);
    } else {
        *m = dmxt_rng_int(r, 1, 70);
        *n = dmxt_rng_int(r, 1, 70);
    }
}

static double random_scalar(dmxt_rng *r)
{
    return (double)dmxt_rng_int(r, -160, 160) / 64.0;
}

static void set_scenario(xf *x, int scen, dmxt_rng *r)
{
    dmx_scalar zero = {0.0, 0.0}, one = {1.0, 0.0};
    x->scen = scen;
    switch (scen) {
    case SC_COPY:
    case SC_COPYNAN:
        x->alpha = one;
        x->beta = zero;
        break;
    case SC_KEEP:
        x->alpha = zero;
        x->beta = one;
        break;
    case SC_ZERO:
        x->alpha = zero;
        x->beta = zero;
        break;
    case SC_TWO:
        x->alpha.re = 2.0;
        x->alpha.im = 0.0;
        x->beta.re = -1.0;
        x->beta.im = 0.0;
        break;
    default:
        x->alpha.re = random_scalar(r);
        x->alpha.im = random_scalar(r);
        x->beta.re = random_scalar(r);
        x->beta.im = random_scalar(r);
        if (x->alpha.re == 0.0)
            x->alpha.re = 0.75;
        if (x->beta.re == 0.0)
            x->beta.re = -0.5;
        if (scen == SC_BETA0NAN)
            x->beta = zero;
        if (scen == SC_ALPHA0NAN)
            x->alpha = zero;
        if (scen == SC_IMAGALPHA)
            x->alpha.re = 0.0;
        if (scen == SC_IMAGBETA)
            x->beta.re = 0.0;
        break;
    }
}

static int is_real(dmx_dtype t)
{
    return t == DMX_FLOAT || t == DMX_DOUBLE;
}

/* Is A prefilled with NaN (beta is zero for the dtype, so A must not be read)? */
static int a_nan(const xf *x)
{
    return x->scen == SC_BETA0NAN || x->scen == SC_COPYNAN || x->scen == SC_ZERO ||
           (x->scen == SC_IMAGBETA && is_real(x->dtype));
}

/* Is B prefilled with NaN (alpha is zero for the dtype, so B must not be read)? */
static int b_nan(const xf *x)
{
    return x->scen == SC_ALPHA0NAN || x->scen == SC_ZERO ||
           (x->scen == SC_IMAGALPHA && is_real(x->dtype));
}

static MPI_Comm random_comm(dmxt_rng *r)
{
    return dmxt_rng_chance(r, 15) ? case_dup : case_comm;
}

/* Describe a side: a parent of kind (random if < 0) holding an m x n window. */
static void gen_side(side *s, dmx_dtype dtype, int64_t m, int64_t n, int kind, int64_t min_block,
                     int view_pct, dmxt_rng *r)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->n = n;
    int64_t pm = m, pn = n;
    s->use_view = dmxt_rng_chance(r, view_pct);
    if (s->use_view) {
        int64_t ex = dmxt_rng_int(r, 0, 6), ey = dmxt_rng_int(r, 0, 6);
        pm += ex;
        pn += ey;
        s->i0 = dmxt_rng_int(r, 0, ex);
        s->j0 = dmxt_rng_int(r, 0, ey);
        s->nested = dmxt_rng_chance(r, 30);
        s->destroy_parent = dmxt_rng_chance(r, 30);
    }
    MPI_Comm comm = random_comm(r);
    if (kind < 0 && !s->use_view && dmxt_rng_chance(r, 18))
        kind = DMXT_LOCAL; /* no views of layouts known only locally */
    dmxt_matrix_random_ex(&s->M, comm, dtype, pm, pn, kind, min_block, r);
    snprintf(s->desc, sizeof s->desc, "%s%s", s->M.desc, comm == case_comm ? "" : " comm=dup");
    if (s->use_view)
        dmxt_append(s->desc, sizeof s->desc, " view(%lld,%lld %lldx%lld)%s%s", (long long)s->i0,
                    (long long)s->j0, (long long)m, (long long)n, s->nested ? " nested" : "",
                    s->destroy_parent ? " parent-destroyed" : "");
}

static void describe(tcase *c)
{
    static const char *modes[] = {"plan", "once", "repeat"};
    snprintf(c->desc, sizeof c->desc,
             "case %lld (rerun: DMX_TEST_SEED=%llu DMX_TEST_CASE=%lld): "
             "mode=%s nt=%d",
             (long long)c->idx, (unsigned long long)c->seed, (long long)c->idx, modes[c->mode],
             c->nt);
    if (c->maxmsg)
        dmxt_append(c->desc, sizeof c->desc, " DMX_MAX_MESSAGE_BYTES=%lld", (long long)c->maxmsg);
    if (c->shm_off)
        dmxt_append(c->desc, sizeof c->desc, " DMX_SHM=0");
    if (c->chunk)
        dmxt_append(c->desc, sizeof c->desc, " DMX_SHM_CHUNK_BYTES=%lld", (long long)c->chunk);
    if (c->stream)
        dmxt_append(c->desc, sizeof c->desc, " DMX_STREAM=1");
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        dmxt_append(c->desc, sizeof c->desc,
                    "\n    t%d: %s op=%s alpha=(%g,%g) beta=(%g,%g) uplo=%c diag=%c%s%s", t,
                    dmxt_dtype_name(x->dtype), dmxt_op_name(x->op), x->alpha.re, x->alpha.im,
                    x->beta.re, x->beta.im, x->uplo ? x->uplo : '0', x->diag ? x->diag : '0',
                    a_nan(x) ? " A=NaN" : "", b_nan(x) ? " B=NaN" : "");
        dmxt_append(c->desc, sizeof c->desc, "\n       A: %s\n       B: %s%s", x->A->desc,
                    x->B->desc, (t > 0 && x->B == c->t[t - 1].B) ? " (shared with previous)" : "");
    }
}

static void gen_mode(tcase *c, dmxt_rng *r, int large)
{
    int64_t roll = dmxt_rng_int(r, 0, 99);
    c->mode = roll < 20 ? MODE_REPEAT : MODE_PLAN;
    if (c->mode == MODE_PLAN && c->nt == 1 && !c->t[0].uplo && roll < 40)
        c->mode = MODE_ONCE;
    if (dmxt_rng_chance(r, large ? 50 : 15)) {
        static const int64_t caps[] = {17, 64, 100, 1000, 4099};
        c->maxmsg = caps[dmxt_rng_int(r, large ? 3 : 0, 4)];
    }
    /* on one node the shared window carries every package: without DMX_SHM=0 neither the MPI
     * path nor the message split would run */
    c->shm_off = dmxt_rng_chance(r, c->maxmsg ? 75 : 30);
    /* the default chunk (128 KiB) is larger than most packages here: small ones make packages
     * of many chunks, pieces cut into sub-rectangles, and rings that wrap within and across
     * executions */
    c->chunk = 0;
    if (!c->shm_off && dmxt_rng_chance(r, 50)) {
        static const int64_t chunks[] = {64, 100, 256, 1000, 4096};
        c->chunk = chunks[dmxt_rng_int(r, 0, 4)];
    }
    c->stream = dmxt_rng_chance(r, 30);
}

static void gen_uplo(xf *x, dmxt_rng *r)
{
    x->uplo = 0;
    x->diag = 0;
    if (dmxt_rng_chance(r, 25)) {
        static const char uplos[] = {'U', 'L', 'U', 'L', 'G'};
        static const char diags[] = {0, 'N', 'U', 'U'};
        x->uplo = uplos[dmxt_rng_int(r, 0, 4)];
        x->diag = diags[dmxt_rng_int(r, 0, 3)];
    }
}

/* A self copy: A and B are disjoint windows of one matrix (like p?gemr2d within one array). */
static void gen_selfcopy(tcase *c, dmxt_rng *r)
{
    c->selfcopy = 1;
    c->nt = 1;
    xf *x = &c->t[0];
    x->dtype = (dmx_dtype)dmxt_rng_int(r, 0, 3);
    x->op = (dmx_op)dmxt_rng_int(r, 0, 2);
    int64_t am = dmxt_rng_int(r, 1, 30), an = dmxt_rng_int(r, 1, 30);
    int64_t bm = x->op == DMX_OP_N ? am : an, bn = x->op == DMX_OP_N ? an : am;
    int64_t gap = dmxt_rng_int(r, 0, 3), ex = dmxt_rng_int(r, 0, 3);
    int vertical = dmxt_rng_chance(r, 50), a_first = dmxt_rng_chance(r, 50);
    int64_t pm, pn, ai0, aj0, bi0, bj0;
    if (vertical) {
        pm = am + gap + bm + ex;
        pn = (an > bn ? an : bn) + ex;
        ai0 = a_first ? 0 : bm + gap;
        bi0 = a_first ? am + gap : 0;
        aj0 = dmxt_rng_int(r, 0, pn - an);
        bj0 = dmxt_rng_int(r, 0, pn - bn);
    } else {
        pn = an + gap + bn + ex;
        pm = (am > bm ? am : bm) + ex;
        aj0 = a_first ? 0 : bn + gap;
        bj0 = a_first ? an + gap : 0;
        ai0 = dmxt_rng_int(r, 0, pm - am);
        bi0 = dmxt_rng_int(r, 0, pm - bm);
    }
    side *A = &c->sides[0], *B = &c->sides[1];
    c->nsides = 2;
    memset(A, 0, sizeof *A);
    memset(B, 0, sizeof *B);
    MPI_Comm comm = random_comm(r);
    dmxt_matrix_random_ex(&A->M, comm, x->dtype, pm, pn, -1, 1, r);
    A->use_view = 1;
    A->i0 = ai0, A->j0 = aj0, A->m = am, A->n = an;
    snprintf(A->desc, sizeof A->desc, "%s%s view(%lld,%lld %lldx%lld)", A->M.desc,
             comm == case_comm ? "" : " comm=dup", (long long)ai0, (long long)aj0, (long long)am,
             (long long)an);
    B->self = A;
    B->use_view = 1;
    B->i0 = bi0, B->j0 = bj0, B->m = bm, B->n = bn;
    snprintf(B->desc, sizeof B->desc, "view(%lld,%lld %lldx%lld) of A's parent (self copy)",
             (long long)bi0, (long long)bj0, (long long)bm, (long long)bn);
    x->A = A;
    x->B = B;
    x->ka = x->kb = 1;
    gen_uplo(x, r);
    set_scenario(x, (int)dmxt_rng_int(r, 0, SC_RANDOM), r);
}

static void gen_case(tcase *c, int64_t idx, int P, uint64_t seed)
{
    dmxt_rng rr, *r = &rr;
    dmxt_rng_seed(r, seed, (uint64_t)idx);
    memset(c, 0, sizeof *c);
    c->idx = idx;
    c->seed = seed;
    int large = idx >= LARGE_BASE;
    if (!large && dmxt_rng_chance(r, 6)) {
        gen_selfcopy(c, r);
        gen_mode(c, r, 0);
        describe(c);
        return;
    }
    c->nt = (!large && dmxt_rng_chance(r, 20)) ? (int)dmxt_rng_int(r, 2, MAXT) : 1;
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        int share = t > 0 && dmxt_rng_chance(r, 25);
        x->op = (dmx_op)dmxt_rng_int(r, 0, 2);
        int64_t am, an;
        if (share) {
            x->dtype = c->t[t - 1].dtype;
            x->B = c->t[t - 1].B;
            am = x->op == DMX_OP_N ? x->B->m : x->B->n;
            an = x->op == DMX_OP_N ? x->B->n : x->B->m;
        } else {
            x->dtype = (dmx_dtype)dmxt_rng_int(r, 0, 3);
            if (large) {
                am = dmxt_rng_int(r, 250, 300);
                an = dmxt_rng_int(r, 250, 300);
            } else {
                random_shape(r, P, &am, &an);
            }
        }
        int64_t minb = large ? 8 : 1;
        int vp = large ? 10 : 25;
        x->A = &c->sides[c->nsides++];
        gen_side(x->A, x->dtype, am, an, -1, minb, vp, r);
        if (!share) {
            x->B = &c->sides[c->nsides++];
            if (x->op == DMX_OP_N)
                gen_side(x->B, x->dtype, am, an, -1, minb, vp, r);
            else
                gen_side(x->B, x->dtype, an, am, -1, minb, vp, r);
        }
        x->kb = 2 * t;
        x->ka = 2 * t + 1;
        gen_uplo(x, r);
        set_scenario(x, (int)dmxt_rng_int(r, 0, SC_COUNT - 1), r);
    }
    /* a shared B must not be NaN in one transform and read by another */
    for (int t = 1; t < c->nt; t++) {
        if (c->t[t].B == c->t[t - 1].B && (b_nan(&c->t[t - 1]) || b_nan(&c->t[t]))) {
            set_scenario(&c->t[t - 1], SC_TWO, r);
            set_scenario(&c->t[t], SC_RANDOM, r);
        }
    }
    gen_mode(c, r, large);
    describe(c);
}

/* ---------------------------------------------------------------------------------------- */

typedef struct runner {
    dmxt_ctx *ctx;
    int64_t bad;
    char msg[600];
} runner;

static void note(runner *R, int64_t nbad, const char *prefix, const char *m)
{
    if (nbad > 0 && R->bad == 0)
        snprintf(R->msg, sizeof R->msg, "%s: %s", prefix, m);
    R->bad += nbad;
}

/* Collective: did every rank get DMX_SUCCESS? Records a problem otherwise. */
static int all_ok(runner *R, dmx_status st, const char *what)
{
    char m[400];
    int64_t b = dmxt_expect_status(R->ctx, st, DMX_SUCCESS, what, m, sizeof m);
    note(R, b, what, m);
    int64_t any = b, tot = 0;
    MPI_Allreduce(&any, &tot, 1, MPI_INT64_T, MPI_SUM, R->ctx->comm);
    return tot == 0;
}

static void fill_case(tcase *c, int base_shift)
{
    /* A fills first, then B fills (a B id is never NaN when another transform reads it) */
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        x->A->k = a_nan(x) ? DMXT_NAN : x->ka + base_shift;
        dmxt_fill(&x->A->M, x->A->k);
    }
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        if (x->B->self) { /* the same memory as A */
            x->B->k = x->B->self->k;
            continue;
        }
        x->B->k = b_nan(x) ? DMXT_NAN : x->kb + base_shift;
        dmxt_fill(&x->B->M, x->B->k);
    }
}

static void check_case(runner *R, tcase *c, const char *run)
{
    char m[500], pre[64];
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        dmxt_expect e;
        e.dtype = x->dtype;
        e.op = x->op;
        e.alpha = x->alpha;
        e.beta = x->beta;
        e.uplo = x->uplo;
        e.diag = x->diag;
        e.ka = x->A->k;
        e.kb = x->B->k;
        e.ai0 = x->A->i0;
        e.aj0 = x->A->j0;
        e.am = x->A->m;
        e.an = x->A->n;
        e.bi0 = x->B->i0;
        e.bj0 = x->B->j0;
        m[0] = '\0';
        snprintf(pre, sizeof pre, "%s t%d A", run, t);
        note(R, dmxt_check_result(&x->A->M, &e, m, sizeof m), pre, m);
        m[0] = '\0';
        snprintf(pre, sizeof pre, "%s t%d B (must not be written)", run, t);
        note(R, dmxt_check_fill(&x->B->M, x->B->k, m, sizeof m), pre, m);
    }
}

static void check_info(runner *R, dmx_plan *plan, int shm_off)
{
    dmx_plan_info info;
    memset(&info, 0, sizeof info);
    dmx_status st = dmx_plan_get_info(plan, &info);
    int64_t v[4] = {info.send_elems, info.recv_elems, info.npeers_send, info.npeers_recv}, s[4];
    MPI_Allreduce(v, s, 4, MPI_INT64_T, MPI_SUM, R->ctx->comm);
    char m[300];
    if (st != DMX_SUCCESS) {
        snprintf(m, sizeof m, "returned %s", dmx_status_string(st));
        note(R, 1, "dmx_plan_get_info", m);
    } else if (info.send_elems < 0 || info.recv_elems < 0 || info.local_elems < 0 ||
               info.buffer_bytes < 0 || info.npeers_send < 0 || info.npeers_recv < 0 ||
               info.npeers_send >= R->ctx->size || info.npeers_recv >= R->ctx->size ||
               info.npeers_shared_memory < 0 || info.npeers_shared_memory > info.npeers_recv ||
               (shm_off && info.npeers_shared_memory != 0)) {
        snprintf(m, sizeof m,
                 "out of range: send %lld recv %lld local %lld buf %lld peers %d/%d shm %d%s",
                 (long long)info.send_elems, (long long)info.recv_elems,
                 (long long)info.local_elems, (long long)info.buffer_bytes, info.npeers_send,
                 info.npeers_recv, info.npeers_shared_memory, shm_off ? " (DMX_SHM=0)" : "");
        note(R, 1, "dmx_plan_get_info", m);
    } else if (s[0] != s[1] || s[2] != s[3]) {
        snprintf(m, sizeof m,
                 "sum over ranks: sent %lld elements to %lld peers, received %lld from %lld",
                 (long long)s[0], (long long)s[2], (long long)s[1], (long long)s[3]);
        note(R, 1, "dmx_plan_get_info", m);
    }
}

static void setenv_i64(const char *name, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    setenv(name, b, 1);
}

/* The test-only settings that plan creation reads; unset_env() after the plan exists. */
static void set_env(const tcase *c)
{
    if (c->maxmsg > 0)
        setenv_i64("DMX_MAX_MESSAGE_BYTES", c->maxmsg);
    if (c->shm_off)
        setenv("DMX_SHM", "0", 1);
    if (c->chunk > 0)
        setenv_i64("DMX_SHM_CHUNK_BYTES", c->chunk);
    if (c->stream)
        setenv("DMX_STREAM", "1", 1);
}

static void unset_env(void)
{
    unsetenv("DMX_MAX_MESSAGE_BYTES");
    unsetenv("DMX_SHM");
    unsetenv("DMX_SHM_CHUNK_BYTES");
    unsetenv("DMX_STREAM");
}

/* Rebind one side to a fresh local array holding id k (block-cyclic kinds only). */
static void rebind_side(runner *R, side *s, int k)
{
    if ((s->M.kind != DMXT_BC && s->M.kind != DMXT_MAPPED) || s->spare)
        return;
    void *fresh = dmxt_matrix_new_local(&s->M);
    s->spare = dmxt_matrix_swap_local(&s->M, fresh);
    s->k = k;
    dmxt_fill(&s->M, k);
    dmx_status st = dmx_layout_rebind(side_layout(s), fresh);
    if (st != DMX_SUCCESS) {
        char m[300];
        snprintf(m, sizeof m, "returned %s (%s)", dmx_status_string(st), dmx_last_error());
        note(R, 1, "dmx_layout_rebind", m);
    }
}

static int64_t run_case(dmxt_ctx *ctx, tcase *c, char *msg, size_t len)
{
    runner R = {ctx, 0, ""};
    dmx_plan *plan = NULL, *plan2 = NULL;
    int plan_ok = 0, plan2_ok = 0;
    /* layouts and views, in the same order on every rank */
    for (int s = 0; s < c->nsides; s++) {
        side *sd = &c->sides[s];
        if (sd->self) {
            dmx_status st =
                dmx_layout_create_view(sd->self->M.layout, sd->i0, sd->j0, sd->m, sd->n, &sd->view);
            if (!all_ok(&R, st, "create the B view of A's parent"))
                goto cleanup;
            continue;
        }
        if (!all_ok(&R, dmxt_matrix_create(&sd->M), "create layout"))
            goto cleanup;
        if (sd->use_view) {
            dmx_status st;
            if (sd->nested) {
                dmx_layout *outer = NULL;
                int64_t oi = sd->i0 / 2, oj = sd->j0 / 2;
                st = dmx_layout_create_view(sd->M.layout, oi, oj, sd->M.m - oi, sd->M.n - oj,
                                            &outer);
                if (!all_ok(&R, st, "create outer view"))
                    goto cleanup;
                st = dmx_layout_create_view(outer, sd->i0 - oi, sd->j0 - oj, sd->m, sd->n,
                                            &sd->view);
                dmx_layout_destroy(&outer);
            } else {
                st = dmx_layout_create_view(sd->M.layout, sd->i0, sd->j0, sd->m, sd->n, &sd->view);
            }
            if (!all_ok(&R, st, "create view"))
                goto cleanup;
            if (sd->destroy_parent)
                dmx_layout_destroy(&sd->M.layout);
        }
    }
    fill_case(c, 0);

    dmx_transform tr[MAXT];
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        memset(&tr[t], 0, sizeof tr[t]);
        tr[t].dtype = x->dtype;
        tr[t].op = x->op;
        tr[t].alpha = x->alpha;
        tr[t].beta = x->beta;
        tr[t].b = side_layout(x->B);
        tr[t].a = side_layout(x->A);
        tr[t].uplo = x->uplo;
        tr[t].diag = x->diag;
    }
    set_env(c);
    if (c->mode == MODE_ONCE) {
        dmx_status st =
            dmx_transform_once(tr[0].dtype, tr[0].op, tr[0].alpha, tr[0].b, tr[0].beta, tr[0].a);
        unset_env();
        if (!all_ok(&R, st, "dmx_transform_once"))
            goto cleanup;
        check_case(&R, c, "once");
        goto cleanup;
    }
    dmx_status st = dmx_plan_create(c->nt, tr, &plan);
    unset_env();
    if (!all_ok(&R, st, "dmx_plan_create"))
        goto cleanup;
    plan_ok = 1;
    check_info(&R, plan, c->shm_off || dmxt_env_int("DMX_SHM", 1) == 0);
    if (!all_ok(&R, dmx_plan_execute(plan), "dmx_plan_execute (run 1)"))
        goto cleanup;
    check_case(&R, c, "run 1");
    if (c->mode != MODE_REPEAT)
        goto cleanup;

    /* run 1b: a second plan for the same transforms, alive at the same time, destroyed last */
    set_env(c);
    st = dmx_plan_create(c->nt, tr, &plan2);
    unset_env();
    if (!all_ok(&R, st, "dmx_plan_create (second plan)"))
        goto cleanup;
    plan2_ok = 1;
    fill_case(c, 0);
    if (!all_ok(&R, dmx_plan_execute(plan2), "dmx_plan_execute (second plan)"))
        goto cleanup;
    check_case(&R, c, "run 1b (second plan)");

    /* run 2: new scalars, refilled operands */
    dmxt_rng rr;
    dmxt_rng_seed(&rr, ctx->seed ^ UINT64_C(0x5555), (uint64_t)c->idx);
    for (int t = 0; t < c->nt; t++) {
        xf *x = &c->t[t];
        int scen;
        int shared = (t > 0 && x->B == c->t[t - 1].B) || (t + 1 < c->nt && x->B == c->t[t + 1].B);
        do
            scen = (int)dmxt_rng_int(&rr, 0, SC_COUNT - 1);
        while (shared && (scen == SC_ALPHA0NAN || scen == SC_ZERO || scen == SC_IMAGALPHA));
        while (x->B->self && scen > SC_RANDOM)
            scen = (int)dmxt_rng_int(&rr, 0, SC_RANDOM);
        set_scenario(x, scen, &rr);
        dmxt_append(c->desc, sizeof c->desc, "\n    run 2/3: t%d alpha=(%g,%g) beta=(%g,%g)%s%s", t,
                    x->alpha.re, x->alpha.im, x->beta.re, x->beta.im, a_nan(x) ? " A=NaN" : "",
                    b_nan(x) ? " B=NaN" : "");
        st = dmx_plan_set_scalars(plan, t, x->alpha, x->beta);
        if (st != DMX_SUCCESS) {
            char m[300];
            snprintf(m, sizeof m, "t%d returned %s", t, dmx_status_string(st));
            note(&R, 1, "dmx_plan_set_scalars", m);
        }
    }
    fill_case(c, 0);
    if (!all_ok(&R, dmx_plan_execute(plan), "dmx_plan_execute (run 2, new scalars)"))
        goto cleanup;
    check_case(&R, c, "run 2 (set_scalars)");

    /* run 3: refill the old arrays, rebind every block-cyclic side to fresh arrays */
    fill_case(c, 0);
    for (int s = 0; s < c->nsides && !c->selfcopy; s++) {
        side *sd = &c->sides[s];
        int k = sd->k == DMXT_NAN ? DMXT_NAN : sd->k + 8;
        sd->spare = NULL;
        rebind_side(&R, sd, k);
    }
    if (!all_ok(&R, dmx_plan_execute(plan), "dmx_plan_execute (run 3, rebound)"))
        goto cleanup;
    check_case(&R, c, "run 3 (rebind)");
    for (int s = 0; s < c->nsides; s++) {
        side *sd = &c->sides[s];
        if (!sd->spare)
            continue;
        /* the arrays the layouts pointed to before the rebind must be untouched */
        void *fresh = dmxt_matrix_swap_local(&sd->M, sd->spare);
        char m[500] = "";
        int k = sd->k == DMXT_NAN ? DMXT_NAN : sd->k - 8;
        note(&R, dmxt_check_fill(&sd->M, k, m, sizeof m),
             "run 3 (rebind): array used before the rebind was written", m);
        sd->spare = dmxt_matrix_swap_local(&sd->M, fresh);
    }

cleanup:
    if (plan_ok)
        dmx_plan_destroy(&plan);
    if (plan2_ok)
        dmx_plan_destroy(&plan2);
    for (int s = 0; s < c->nsides; s++) {
        side *sd = &c->sides[s];
        dmx_layout_destroy(&sd->view);
        free(sd->spare);
        sd->spare = NULL;
        dmxt_matrix_free(&sd->M);
    }
    snprintf(msg, len, "%s", R.msg);
    return R.bad;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_transform");
    case_comm = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &case_dup);
    /* about 15 s at 4 ranks oversubscribed on 2 cores */
    int64_t ncases = dmxt_cases("DMX_TEST_CASES", ctx.size <= 4 ? 1200 : 500);
    int64_t only = dmxt_env_int("DMX_TEST_CASE", -1);
    int64_t nlarge = dmxt_env_int("DMX_TEST_LARGE_CASES", 3);
    int64_t nsub = ctx.size >= 2 ? dmxt_cases("DMX_TEST_SUB_CASES", 60) : 0;
    int verbose = (int)dmxt_env_int("DMX_TEST_VERBOSE", 0);
    static tcase c;
    char msg[600];
    double t0 = MPI_Wtime();
    for (int64_t i = 0; i < ncases + nlarge; i++) {
        int64_t idx = i < ncases ? i : LARGE_BASE + (i - ncases);
        if (only >= 0 && idx != only)
            continue;
        gen_case(&c, idx, ctx.size, ctx.seed);
        dmxt_set_current(c.desc);
        if (verbose && ctx.rank == 0) {
            printf("%s\n", c.desc);
            fflush(stdout);
        }
        msg[0] = '\0';
        int64_t bad = run_case(&ctx, &c, msg, sizeof msg);
        dmxt_case_end(&ctx, bad, msg, c.desc);
    }
    MPI_Comm_free(&case_dup);

    /* Cases on communicators other than MPI_COMM_WORLD: the ranks split into two halves that
     * run different cases at the same time (case SUB_BASE + 2i on the lower half, + 2i + 1 on
     * the upper); results are still reduced over all ranks. */
    if (nsub > 0) {
        int color = ctx.rank < ctx.size / 2 ? 0 : 1;
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, color, ctx.rank, &half);
        MPI_Comm_dup(half, &case_dup);
        case_comm = half;
        dmxt_ctx sub = ctx;
        sub.comm = half;
        MPI_Comm_rank(half, &sub.rank);
        MPI_Comm_size(half, &sub.size);
        for (int64_t i = 0; i < nsub; i++) {
            int64_t idx = SUB_BASE + 2 * i + color;
            if (only >= 0 && only != SUB_BASE + 2 * i && only != SUB_BASE + 2 * i + 1)
                continue;
            gen_case(&c, idx, sub.size, ctx.seed);
            dmxt_append(c.desc, sizeof c.desc, "\n    on the %s half of MPI_COMM_WORLD (%d ranks)",
                        color ? "upper" : "lower", sub.size);
            dmxt_set_current(c.desc);
            msg[0] = '\0';
            int64_t bad = run_case(&sub, &c, msg, sizeof msg);
            dmxt_case_end(&ctx, bad, msg, c.desc);
        }
        MPI_Comm_free(&case_dup);
        MPI_Comm_free(&half);
    }
    double t1 = MPI_Wtime();
    if (ctx.rank == 0)
        printf("test_transform: %.2f s\n", t1 - t0);
    return dmxt_finish(&ctx);
}
