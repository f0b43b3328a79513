/* SPDX-License-Identifier: BSD-3-Clause */
/* One-shot calls with no agreement (src/plan/plan_small.c's one-shot path, dmx_transform_once).
 *
 * Usage: test_once MODE, MODE one of
 *  cases   every dtype x op N/T/C x sizes 1 .. 64 x grids 1x1, 1x2, 2x1, 2x2 and 1xP (fitted
 *          into the ranks, leaving ranks empty) for B and A, scalars (2, -1), through
 *          dmx_transform_once, or dmx_transform_once_ex with a trapezoid (uplo 'U'/'L',
 *          diagonal in or out: a case's first two calls have the same, the third another),
 *          each rank checking its memory of A (outside the trapezoid untouched) against the
 *          serial reference (tests/common); the calls must make no reduction and no
 *          duplicate after the first (counted through MPI's profiling interface: this file
 *          defines MPI_Iallreduce, MPI_Allreduce and MPI_Comm_dup, which count and call
 *          PMPI_*). Then consecutive one-shots of different shapes interleaved with two
 *          persistent plans' executions on
 *          the same communicator, each result checked; and DMX_PLAN_CHECK=agree (and a returning
 *          handler) take the agreement again (reductions counted > 0, results still right);
 *          so do DMX_PLAN_CHECK=agree and DMX_SMALL_BYTES=0 set between two calls of one
 *          transform (setenv, putenv, a putenv string written in place), the second of which
 *          would otherwise take the kept plan back. Several kept plans (DMX_ONCE_KEEP): 60
 *          calls cycling over 6 transforms under 5 limits (4, 2, 0, 16, 1), the kept plans (read
 * through plan/plan.h) against a model list after every call, and the byte limit. mid     one-shots
 * above DMX_SMALL_BYTES within DMX_ONCE_BYTES (doubles, complex doubles, ops N/T/C, 200 .. 301
 * rows, the grids as above): no reduction, results right; with DMX_ONCE_BYTES one byte under 2 x
 * A's bytes the call agrees (reductions > 0). First, block-cyclic layouts made with no reduction
 * (ids of a reserved range) after layouts on halves of the ranks, accepted by an agreed plan (which
 * compares ids), and agreed again under DMX_PLAN_CHECK=agree. handler a returning error handler:
 * one rank's bad op, one rank's NULL B: every rank returns the same status (the agreement is kept),
 * the handler is not called on the others. abort   dmx's default handler (np 2): the last rank
 * passes an invalid op to a one-shot the others pass correctly; the handler prints the message and
 * ends the job: ctest passes on that message and fails on a hang (timeout) or on "check FAIL" if
 * the call returns. budget  24 distinct one-shots twice over under a DMX_CACHE_BYTES of three
 * plans: the plan cache's count of bytes matches its plans and stays within the budget, results
 * right; then a pinned entry of the plan cache passed by in make_room until it is unpinned.
 * Prints "N passed, N failed" from rank 0 (modes cases, handler, budget).
 */
#define _XOPEN_SOURCE 700 /* setenv, putenv */
#include "dmxtest.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counting collectives through the profiling interface ------------------------------ */
static long n_reduce, n_dup;

int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                   MPI_Request *req)
{
    n_reduce++;
    return PMPI_Iallreduce(s, r, c, t, o, comm, req);
}

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    n_reduce++;
    return PMPI_Allreduce(s, r, c, t, o, comm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    n_dup++;
    return PMPI_Comm_dup(comm, out);
}

static const dmx_dtype dtypes[4] = {DMX_FLOAT, DMX_DOUBLE, DMX_CFLOAT, DMX_CDOUBLE};
static const dmx_op ops[3] = {DMX_OP_N, DMX_OP_T, DMX_OP_C};
static const int grids[5][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 0}}; /* 0: all ranks */

static void fit(const int g[2], int P, int *r, int *c)
{
    *r = g[0] > P ? P : g[0];
    *c = g[1] == 0 ? P / *r : (g[1] > P / *r ? P / *r : g[1]);
}

/* B and A of one case: A is m x n; B is op^-1's shape; block sizes from the size. */
typedef struct mats {
    dmxt_matrix A, B;
    dmxt_expect e;
} mats;

static dmx_status make(mats *x, dmx_dtype dt, dmx_op op, int64_t m, int64_t n, int gb, int ga,
                       int P, int kb, int ka)
{
    int bpr, bpc, apr, apc;
    fit(grids[gb], P, &bpr, &bpc);
    fit(grids[ga], P, &apr, &apc);
    const int64_t bm = op == DMX_OP_N ? m : n, bn = op == DMX_OP_N ? n : m;
    const int64_t fb = (bm + 3) / 4, tb = (m + 1) / 2;
    dmxt_matrix_bc(&x->B, MPI_COMM_WORLD, dt, bm, bn, fb, (bn + 2) / 3, bpr, bpc, 'R', NULL, 0, 0,
                   1);
    dmxt_matrix_bc(&x->A, MPI_COMM_WORLD, dt, m, n, tb, (n + 1) / 2, apr, apc, 'C', NULL, 0, 0, 2);
    dmx_status st = dmxt_matrix_create(&x->B);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&x->A);
    dmxt_fill(&x->B, kb);
    dmxt_fill(&x->A, ka);
    dmxt_expect e = {.dtype = dt,
                     .op = op,
                     .alpha = {2.0, 0.0},
                     .beta = {-1.0, 0.0},
                     .ka = ka,
                     .kb = kb,
                     .am = m,
                     .an = n};
    x->e = e;
    return st;
}

static void unmake(mats *x)
{
    dmxt_matrix_free(&x->A);
    dmxt_matrix_free(&x->B);
}

/* One one-shot of x (A refilled first); returns the local number of problems. A trapezoid
 * (x->e.uplo set) goes through dmx_transform_once_ex, the rest through dmx_transform_once. */
static int64_t once(mats *x, char *msg, size_t len)
{
    dmxt_fill(&x->A, x->e.ka);
    dmx_status st;
    if (x->e.uplo) {
        const dmx_transform t = {x->e.dtype,  x->e.op,     x->e.alpha, x->e.beta,
                                 x->B.layout, x->A.layout, x->e.uplo,  x->e.diag};
        st = dmx_transform_once_ex(&t);
    } else {
        st = dmx_transform_once(x->e.dtype, x->e.op, x->e.alpha, x->B.layout, x->e.beta,
                                x->A.layout);
    }
    if (st != DMX_SUCCESS) {
        snprintf(msg, len, "dmx_transform_once%s: %s", x->e.uplo ? "_ex" : "", dmx_last_error());
        return 1;
    }
    return dmxt_check_result(&x->A, &x->e, msg, len);
}

static void run_cases(dmxt_ctx *ctx)
{
    static const int64_t sizes[][2] = {{1, 1}, {2, 2},   {1, 5},   {5, 1},  {3, 4},
                                       {8, 8}, {16, 13}, {33, 17}, {64, 64}};
    const int P = ctx->size;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int d = 0; d < 4; d++)
            for (int o = 0; o < 3; o++)
                for (int g = 0; g < 5; g++) {
                    /* B's grid g, A's grid the next one (every pair of neighbours) */
                    const int gb = g, ga = (g + 1 + (int)s) % 5;
                    char desc[200], msg[600] = "";
                    snprintf(desc, sizeof desc, "%s op %s %lldx%lld B grid %d A grid %d",
                             dmxt_dtype_name(dtypes[d]), dmxt_op_name(ops[o]),
                             (long long)sizes[s][0], (long long)sizes[s][1], gb, ga);
                    dmxt_set_current(desc);
                    mats x;
                    int64_t bad = 0;
                    if (make(&x, dtypes[d], ops[o], sizes[s][0], sizes[s][1], gb, ga, P, 5, 3) !=
                        DMX_SUCCESS) {
                        bad++;
                        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
                    }
                    /* three calls: a trapezoid (none, 'U' or 'L'; diagonal in or out), the
                     * same again (it takes the kept plan back), then another one (it must not) */
                    static const char up[3] = {0, 'U', 'L'};
                    const long r0 = n_reduce, d0 = n_dup;
                    for (int rep = 0; rep < 3 && bad == 0; rep++) {
                        const size_t k = rep < 2 ? 0 : 1;
                        x.e.uplo = up[(s + (size_t)g + k) % 3];
                        x.e.diag = (o + k) % 2 ? 'U' : 'N';
                        bad += once(&x, msg, sizeof msg);
                    }
                    /* the one-shot duplicate is made by the very first call only */
                    const long dups = n_dup - d0, reds = n_reduce - r0;
                    if (bad == 0 &&
                        (reds != 0 || (dups != 0 && !(s == 0 && d == 0 && o == 0 && g == 0)))) {
                        bad++;
                        snprintf(msg, sizeof msg,
                                 "%ld reductions and %ld MPI_Comm_dup in three "
                                 "one-shot calls (want none)",
                                 reds, dups);
                    }
                    unmake(&x);
                    dmxt_case_end(ctx, bad, msg, desc);
                }
}

/* Mid-size one-shots (above DMX_SMALL_BYTES, 2 x A's bytes within DMX_ONCE_BYTES): planned
 * alone like small ones (no reduction), and with DMX_ONCE_BYTES at the bound and one byte
 * below it: alone at the bound, agreed below, right either way. */
static void run_mid(dmxt_ctx *ctx)
{
    static const int64_t sizes[][2] = {{200, 180}, {257, 129}, {301, 300}};
    const int P = ctx->size;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int d = 1; d < 4; d += 2) /* double, complex double: above 262144 bytes */
            for (int o = 0; o < 3; o++)
                for (int g = 0; g < 5; g++) {
                    const int gb = g, ga = (g + 2 + (int)s) % 5;
                    char desc[200], msg[600] = "", lim[32];
                    const int64_t two_a =
                        2 * sizes[s][0] * sizes[s][1] * (int64_t)dmx_dtype_size(dtypes[d]);
                    const int below = (o + g) % 2; /* the limit one byte under the bound */
                    snprintf(desc, sizeof desc, "mid %s op %s %lldx%lld B grid %d A grid %d%s",
                             dmxt_dtype_name(dtypes[d]), dmxt_op_name(ops[o]),
                             (long long)sizes[s][0], (long long)sizes[s][1], gb, ga,
                             below ? " (DMX_ONCE_BYTES below)" : "");
                    dmxt_set_current(desc);
                    snprintf(lim, sizeof lim, "%lld", (long long)(two_a - below));
                    setenv("DMX_ONCE_BYTES", lim, 1);
                    mats x;
                    int64_t bad = 0;
                    if (make(&x, dtypes[d], ops[o], sizes[s][0], sizes[s][1], gb, ga, P, 5, 3) !=
                        DMX_SUCCESS) {
                        bad++;
                        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
                    }
                    const long r0 = n_reduce;
                    for (int rep = 0; rep < 2 && bad == 0; rep++)
                        bad += once(&x, msg, sizeof msg);
                    const long reds = n_reduce - r0;
                    if (bad == 0 && (below ? reds == 0 : reds != 0)) {
                        bad++;
                        snprintf(msg, sizeof msg, "%ld reductions in two one-shot calls (want %s)",
                                 reds, below ? "some" : "none");
                    }
                    unmake(&x);
                    unsetenv("DMX_ONCE_BYTES");
                    dmxt_case_end(ctx, bad, msg, desc);
                }
}

/* Block-cyclic layouts under local checks take ids with no reduction (layout.c's reserved
 * ranges): after layouts made on halves of the ranks (so the processes' id counters differ), the
 * world's layouts make no reduction after the first, and a plan made with the agreement (which
 * compares the layouts' ids on every rank) between them is accepted and right. With
 * DMX_PLAN_CHECK=agree layout creation agrees again. */
static void run_ids(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("layout ids");
    mats first, x;
    bad += make(&first, DMX_DOUBLE, DMX_OP_N, 7, 9, 3, 4, P, 5, 3) != DMX_SUCCESS;
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, ctx->rank % 2, ctx->rank, &half);
    dmx_layout *h[3] = {NULL, NULL, NULL};
    for (int k = 0; k < (ctx->rank % 2 ? 1 : 3) && bad == 0; k++)
        bad += dmx_layout_create_block_cyclic(half, 10, 10, 2, 3, 1, 1, 'R', 0, 0, NULL, 1,
                                              &h[k]) != DMX_SUCCESS;
    const long r0 = n_reduce;
    if (bad == 0)
        bad += make(&x, DMX_CDOUBLE, DMX_OP_T, 37, 23, 3, 4, P, 5, 3) != DMX_SUCCESS;
    if (bad == 0 && n_reduce != r0) {
        bad++;
        snprintf(msg, sizeof msg, "%ld reductions making two layouts (want none)", n_reduce - r0);
    }
    dmx_plan *plan = NULL;
    if (bad == 0) {
        dmx_transform t = {DMX_CDOUBLE, DMX_OP_T,   x.e.alpha, x.e.beta,
                           x.B.layout,  x.A.layout, 0,         0};
        if (dmx_plan_create(1, &t, &plan) != DMX_SUCCESS || dmx_plan_execute(plan) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "plan: %s", dmx_last_error());
        }
    }
    if (bad == 0)
        bad += dmxt_check_result(&x.A, &x.e, msg, sizeof msg);
    dmx_plan_destroy(&plan);
    if (bad == 0) {
        unmake(&x);
        setenv("DMX_PLAN_CHECK", "agree", 1);
        const long r1 = n_reduce;
        bad += make(&x, DMX_DOUBLE, DMX_OP_N, 5, 6, 1, 2, P, 5, 3) != DMX_SUCCESS;
        if (bad == 0 && n_reduce - r1 < 2) {
            bad++;
            snprintf(msg, sizeof msg,
                     "%ld reductions making two layouts under "
                     "DMX_PLAN_CHECK=agree (want 2)",
                     n_reduce - r1);
        }
        if (bad == 0)
            bad += once(&x, msg, sizeof msg);
        unsetenv("DMX_PLAN_CHECK");
    }
    unmake(&x);
    unmake(&first);
    for (int k = 0; k < 3; k++)
        dmx_layout_destroy(&h[k]);
    MPI_Comm_free(&half);
    dmxt_case_end(ctx, bad, msg, "layout ids with no reduction");
}

/* One-shots of changing shapes between executions of two persistent plans on the same
 * communicator (the plans' kept duplicates and the one-shot duplicate side by side). */
static void run_interleaved(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("interleaved");
    mats p1, p2, s[3];
    bad += make(&p1, DMX_DOUBLE, DMX_OP_T, 16, 12, 3, 4, P, 7, 8) != DMX_SUCCESS;
    bad += make(&p2, DMX_CFLOAT, DMX_OP_C, 9, 31, 4, 3, P, 9, 10) != DMX_SUCCESS;
    bad += make(&s[0], DMX_DOUBLE, DMX_OP_N, 5, 7, 3, 1, P, 11, 12) != DMX_SUCCESS;
    bad += make(&s[1], DMX_FLOAT, DMX_OP_T, 64, 3, 4, 3, P, 13, 14) != DMX_SUCCESS;
    bad += make(&s[2], DMX_CDOUBLE, DMX_OP_C, 1, 1, 0, 3, P, 15, 16) != DMX_SUCCESS;
    dmx_plan *plan1 = NULL, *plan2 = NULL;
    if (bad == 0) {
        dmx_transform t1 = {DMX_DOUBLE,  DMX_OP_T,    p1.e.alpha, p1.e.beta,
                            p1.B.layout, p1.A.layout, 0,          0};
        dmx_transform t2 = {DMX_CFLOAT,  DMX_OP_C,    p2.e.alpha, p2.e.beta,
                            p2.B.layout, p2.A.layout, 0,          0};
        if (dmx_plan_create(1, &t1, &plan1) != DMX_SUCCESS ||
            dmx_plan_create(1, &t2, &plan2) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "plans: %s", dmx_last_error());
        }
    } else {
        snprintf(msg, sizeof msg, "layouts: %s", dmx_last_error());
    }
    for (int round = 0; round < 20 && bad == 0; round++) {
        dmxt_fill(&p1.A, p1.e.ka);
        bad += once(&s[round % 3], msg, sizeof msg);
        if (bad == 0 && dmx_plan_execute(plan1) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "execute 1: %s", dmx_last_error());
        }
        if (bad == 0)
            bad += dmxt_check_result(&p1.A, &p1.e, msg, sizeof msg);
        if (bad == 0)
            bad += once(&s[(round + 1) % 3], msg, sizeof msg);
        if (bad == 0)
            bad += once(&s[(round * 7) % 3], msg, sizeof msg);
        dmxt_fill(&p2.A, p2.e.ka);
        if (bad == 0 && dmx_plan_execute(plan2) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "execute 2: %s", dmx_last_error());
        }
        if (bad == 0)
            bad += dmxt_check_result(&p2.A, &p2.e, msg, sizeof msg);
    }
    dmx_plan_destroy(&plan1);
    dmx_plan_destroy(&plan2);
    unmake(&p1);
    unmake(&p2);
    for (int k = 0; k < 3; k++)
        unmake(&s[k]);
    dmxt_case_end(ctx, bad, msg, "one-shots of changing shapes between two plans' executions");
}

/* The plan a one-shot call keeps for the next one with the same transform: taken back with other
 * scalars, after A and B were rebound to new arrays, and not taken for a new layout of the same
 * description (destroyed and made again between calls). */
static void run_kept(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("kept plan");
    mats x;
    bad += make(&x, DMX_CDOUBLE, DMX_OP_C, 13, 6, 3, 4, P, 5, 3) != DMX_SUCCESS;
    static const double sc[3][2] = {{2.0, -1.0}, {1.0, 0.0}, {-0.5, 3.0}};
    for (int k = 0; k < 6 && bad == 0; k++) {
        x.e.alpha.re = sc[k % 3][0];
        x.e.beta.re = sc[k % 3][1];
        if (k == 3) { /* new arrays under the same layouts */
            void *na = dmxt_matrix_new_local(&x.A), *nb = dmxt_matrix_new_local(&x.B);
            free(dmxt_matrix_swap_local(&x.A, na));
            free(dmxt_matrix_swap_local(&x.B, nb));
            if (dmx_layout_rebind(x.A.layout, na) != DMX_SUCCESS ||
                dmx_layout_rebind(x.B.layout, nb) != DMX_SUCCESS) {
                bad++;
                snprintf(msg, sizeof msg, "rebind: %s", dmx_last_error());
                break;
            }
            dmxt_fill(&x.B, x.e.kb);
        }
        bad += once(&x, msg, sizeof msg);
        bad += dmxt_check_fill(&x.B, x.e.kb, msg, sizeof msg);
    }
    for (int k = 0; k < 3 && bad == 0; k++) { /* the same description, new layouts each time */
        unmake(&x);
        bad +=
            make(&x, DMX_CDOUBLE, DMX_OP_C, 13, 6, k == 1 ? 4 : 3, 4, P, 5 + k, 3) != DMX_SUCCESS;
        if (bad == 0)
            bad += once(&x, msg, sizeof msg);
    }
    unmake(&x);
    dmxt_case_end(ctx, bad, msg,
                  "a kept one-shot plan: other scalars, rebound arrays, new layouts");
}

/* ---- several kept plans (DMX_ONCE_KEEP) ------------------------------------------------- */
static int64_t kept_mem(const dmx_plan *p)
{
    return p->ex.buffer_bytes + p->info.plan_bytes;
}

/* The one-shot plans MPI_COMM_WORLD's plan cache keeps, most recently used first (up to max
 * in v); returns how many. */
static int kept_list(dmx_plan **v, int max)
{
    dmxi_cache *c = NULL;
    if (dmxi_cache_get(MPI_COMM_WORLD, 0, &c) != DMX_SUCCESS || !c)
        return 0;
    return dmxi_cache_list(c, DMXI_CACHE_ONCE, (void **)v, max);
}

/* The kept plans of MPI_COMM_WORLD against a model: the transforms this rank takes part in, in
 * call order, through a list of at most DMX_ONCE_KEEP, most recently used first (a kept
 * transform is taken back and put first, a new one planned and put first, the last dropped
 * beyond the limit). Plans made, plans taken back and the list itself (by A's layout) must
 * match; together the kept plans hold at most the byte limit, unless there is one. *hits and
 * *made count the model's. Returns the local number of problems. */
typedef struct keep_model {
    int list[DMXI_ONCE_KEEP_MAX + 1], n;
    int64_t made, hits, made0, hits0;
} keep_model;

static int64_t keep_step(keep_model *km, mats *xs, int t, int keep, int64_t cap, char *msg,
                         size_t len)
{
    mats *x = &xs[t];
    int64_t na = 0, nb = 0, bad = 0;
    dmx_layout_get_num_local_blocks(x->A.layout, &na);
    dmx_layout_get_num_local_blocks(x->B.layout, &nb);
    if (na + nb > 0) { /* no block of A or B: no plan on this rank */
        int at = -1;
        for (int i = 0; i < km->n; i++)
            at = km->list[i] == t ? i : at;
        if (at >= 0) {
            km->hits++;
            memmove(km->list + at, km->list + at + 1, (size_t)(km->n - 1 - at) * sizeof(int));
            km->n--;
        } else {
            km->made++;
        }
        const int others = keep > 0 ? keep - 1 : 0; /* the plans kept beside this one */
        km->n = km->n > others ? others : km->n;
        if (keep > 0) {
            memmove(km->list + 1, km->list, (size_t)km->n * sizeof(int));
            km->list[0] = t;
            km->n++;
        }
    }
    char m1[600] = "";
    bad += once(x, m1, sizeof m1);
    if (bad && !*msg)
        snprintf(msg, len, "%s", m1);
    const dmxi_once_state *os = dmxi_plan_comm_once_peek(MPI_COMM_WORLD);
    if (bad || !os)
        return bad + !os;
    int64_t sum = 0;
    dmx_plan *kv[DMXI_ONCE_KEEP_MAX + 1];
    const int nk = kept_list(kv, DMXI_ONCE_KEEP_MAX + 1);
    int order = nk == km->n;
    for (int i = 0; i < nk && i <= DMXI_ONCE_KEEP_MAX; i++) {
        sum += kept_mem(kv[i]);
        const dmx_layout *a = kv[i]->xf[0].t.a;
        if (i >= km->n)
            order = 0;
        else if (km->list[i] >= 0) /* one of this mode's transforms (not a plan left by the
                                    * earlier modes, whose freed layouts' addresses may be
                                    * this mode's) */
            order &= a == xs[km->list[i]].A.layout;
    }
    if (!order || os->made - km->made0 != km->made || os->hits - km->hits0 != km->hits ||
        (nk > 1 && sum > cap)) {
        if (!*msg)
            snprintf(msg, len,
                     "after transform %d (DMX_ONCE_KEEP %d): %d kept (want %d, order %s), %lld "
                     "made, %lld taken back (want %lld, %lld), %lld bytes kept (limit %lld)",
                     t, keep, nk, km->n, order ? "right" : "wrong",
                     (long long)(os->made - km->made0), (long long)(os->hits - km->hits0),
                     (long long)km->made, (long long)km->hits, (long long)sum, (long long)cap);
        bad++;
    }
    return bad;
}

/* Calls cycling among a few transforms take their plans back (up to DMX_ONCE_KEEP, default 4,
 * most recently used first): a fixed pseudo-random sequence of 60 calls over 6 transforms
 * (sizes, ops and dtypes differ) under DMX_ONCE_KEEP unset, 2, 0, 16 and 1, each result checked
 * and the kept plans checked against keep_step's model after every call. Then, on 2 ranks or
 * more, the byte limit: with DMX_SMALL_BYTES and DMX_ONCE_BYTES set to the least bound that keeps
 * two transforms on the one-shot path, a second transform's plan must push the first out on a
 * rank where the two together hold more (on at least one rank). */
static void run_keep(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("several kept one-shot plans");
    mats xs[6];
    static const int shape[6][4] = {{9, 7, DMX_OP_N, 1},  {7, 9, DMX_OP_T, 1},
                                    {12, 5, DMX_OP_C, 3}, {5, 5, DMX_OP_N, 0},
                                    {16, 3, DMX_OP_T, 2}, {3, 16, DMX_OP_N, 1}};
    int made = 0;
    for (int t = 0; t < 6; t++, made++)
        if (make(&xs[t], dtypes[shape[t][3]], (dmx_op)shape[t][2], shape[t][0], shape[t][1],
                 t % 2 ? 4 : 3, t % 2 ? 3 : 4, P, 5 + t, 3) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "layouts %d: %s", t, dmx_last_error());
            break;
        }
    keep_model km = {0};
    const dmxi_once_state *os = dmxi_plan_comm_once_peek(MPI_COMM_WORLD);
    if (os) { /* the earlier modes left plans: start from what is kept */
        km.made0 = os->made, km.hits0 = os->hits;
        dmx_plan *kv[DMXI_ONCE_KEEP_MAX + 1];
        const int nk = kept_list(kv, DMXI_ONCE_KEEP_MAX + 1);
        for (int i = 0; i < nk; i++)
            km.list[km.n++] = -1 - i; /* none of this mode's transforms */
    }
    static const char *keeps[5] = {NULL, "2", "0", "16", "1"};
    static const int keepn[5] = {4, 2, 0, 16, 1};
    unsigned seed = 12345;
    for (int k = 0; k < 5 && made == 6; k++) { /* every call made on every rank: no hang */
        if (keeps[k])
            setenv("DMX_ONCE_KEEP", keeps[k], 1);
        for (int c = 0; c < 60; c++) {
            seed = seed * 1103515245u + 12345u;
            const int t = (int)((seed >> 16) % (c % 20 < 10 ? 3u : 6u)); /* spells of 3 and 6 */
            bad += keep_step(&km, xs, t, keepn[k], (int64_t)16 << 20, msg, sizeof msg);
        }
    }
    unsetenv("DMX_ONCE_KEEP");
    if (P > 1 && made == 6) {
        /* the least one-shot bound for transforms 0 and 1: 2 x A's bytes of the larger */
        int64_t cap = 0;
        for (int t = 0; t < 2; t++) {
            const int64_t two_a =
                2 * xs[t].e.am * xs[t].e.an * (int64_t)dmx_dtype_size(xs[t].e.dtype);
            cap = two_a > cap ? two_a : cap;
        }
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)cap);
        setenv("DMX_SMALL_BYTES", v, 1);
        setenv("DMX_ONCE_BYTES", v, 1);
        setenv("DMX_CACHE_BYTES", v, 1); /* the kept plans' budget */
        int pushed = 0;
        for (int c = 0; c < 4; c++) {
            char m1[600] = "";
            bad += once(&xs[c % 2], m1, sizeof m1);
            if (bad && !*msg)
                snprintf(msg, sizeof msg, "%s", m1);
            int64_t na = 0, nb = 0, sum = 0;
            dmx_layout_get_num_local_blocks(xs[c % 2].A.layout, &na);
            dmx_layout_get_num_local_blocks(xs[c % 2].B.layout, &nb);
            /* the limit holds when a plan is kept: on a rank with a part in this call */
            dmx_plan *kv[DMXI_ONCE_KEEP_MAX + 1];
            const int nk = na + nb > 0 ? kept_list(kv, DMXI_ONCE_KEEP_MAX + 1) : 0;
            for (int i = 0; i < nk; i++)
                sum += kept_mem(kv[i]);
            if (nk > 1 && sum > cap && !*msg) {
                bad++;
                snprintf(msg, sizeof msg, "%d plans kept with %lld bytes, over the limit %lld", nk,
                         (long long)sum, (long long)cap);
            }
            /* the two plans alternate: one kept means the limit pushed the other out */
            pushed |= c > 0 && na + nb > 0 && nk == 1;
        }
        int any = 0;
        if (MPI_Allreduce(&pushed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
            any = -1;
        if (any != 1 && !*msg) {
            bad++;
            snprintf(msg, sizeof msg, "the byte limit %lld pushed no plan out on any rank",
                     (long long)cap);
        }
        unsetenv("DMX_SMALL_BYTES");
        unsetenv("DMX_ONCE_BYTES");
        unsetenv("DMX_CACHE_BYTES");
    }
    for (int t = 0; t < made; t++)
        unmake(&xs[t]);
    dmxt_case_end(ctx, bad, msg, "several kept one-shot plans");
}

/* ---- the plan cache's budget (DMX_CACHE_BYTES) ------------------------------------------ */
/* 24 distinct one-shot transforms (sizes 6 .. 52, every dtype and op), called twice over (the
 * second pass in reverse order), with DMX_ONCE_KEEP=16 (so the count does not bind) and
 * DMX_CACHE_BYTES set to what the three largest plans of this rank hold (one Allreduce of the
 * first pass's largest plan bytes sets it alike on every rank): after every call the cache's
 * count of bytes equals the sum over the plans it keeps, that sum is within the budget unless
 * one plan is kept alone, and every result is right (serial reference). Some rank must have
 * let plans go for the budget: it never kept 16 plans though it took part in more than 16
 * distinct calls (the count limit alone would keep 16). */
static void run_budget(dmxt_ctx *ctx)
{
    enum { NT = 24 };
    const int P = ctx->size;
    char msg[600] = "";
    int64_t bad = 0;
    dmxt_set_current("the plan cache's byte budget");
    mats xs[NT];
    int made = 0;
    for (int t = 0; t < NT; t++, made++)
        if (make(&xs[t], dtypes[t % 4], ops[t % 3], 6 + 2 * t, 52 - 2 * t + t % 5, t % 5,
                 (t + 2) % 5, P, 3 + t, 7) != DMX_SUCCESS) {
            bad++;
            snprintf(msg, sizeof msg, "layouts %d: %s", t, dmx_last_error());
            break;
        }
    setenv("DMX_ONCE_KEEP", "16", 1);
    /* first, unbounded, to learn the plans' sizes: the budget is three of the largest */
    int64_t largest = 0;
    for (int t = 0; t < made && !bad; t++) {
        bad += once(&xs[t], msg, sizeof msg);
        dmx_plan *kv[DMXI_ONCE_KEEP_MAX + 1];
        const int nk = kept_list(kv, DMXI_ONCE_KEEP_MAX + 1);
        for (int i = 0; i < nk && i <= DMXI_ONCE_KEEP_MAX; i++)
            largest = kept_mem(kv[i]) > largest ? kept_mem(kv[i]) : largest;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        bad++;
    const int64_t budget = 3 * largest;
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)budget);
    setenv("DMX_CACHE_BYTES", v, 1);
    int64_t parts = 0, most = 0;
    int seen = 0;
    for (int pass = 0; pass < 2 && made == NT; pass++)
        for (int k = 0; k < NT; k++) {
            mats *x = &xs[pass ? NT - 1 - k : k];
            char m1[600] = "";
            bad += once(x, m1, sizeof m1);
            if (bad && !*msg)
                snprintf(msg, sizeof msg, "%s", m1);
            int64_t na = 0, nb = 0, sum = 0;
            dmx_layout_get_num_local_blocks(x->A.layout, &na);
            dmx_layout_get_num_local_blocks(x->B.layout, &nb);
            parts += pass == 0 && na + nb > 0; /* distinct transforms */
            /* a call keeps its plan within the budget on a rank with a part in it; until this
             * rank's first such call the plans of the unbounded round stay as they were */
            seen |= na + nb > 0;
            dmx_plan *kv[DMXI_ONCE_KEEP_MAX + 1];
            const int nk = kept_list(kv, DMXI_ONCE_KEEP_MAX + 1);
            for (int i = 0; i < nk && i <= DMXI_ONCE_KEEP_MAX; i++)
                sum += kept_mem(kv[i]);
            dmxi_cache *c = NULL;
            dmxi_cache_info info = {0};
            if (dmxi_cache_get(MPI_COMM_WORLD, 0, &c) == DMX_SUCCESS)
                dmxi_cache_stats(c, &info);
            most = seen && nk > most ? nk : most;
            if ((info.bytes != sum || (seen && nk > 1 && sum > budget) || nk > 16) && !*msg) {
                bad++;
                snprintf(msg, sizeof msg,
                         "pass %d call %d: %d plans kept holding %lld bytes, the cache counts "
                         "%lld, budget %lld",
                         pass, k, nk, (long long)sum, (long long)info.bytes, (long long)budget);
            }
        }
    /* the budget let plans go somewhere (the count limit alone would keep 16) */
    int64_t any = most < 16 && parts > 16;
    if (MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        (any != 1 && !*msg)) {
        bad++;
        snprintf(msg, sizeof msg, "the budget %lld let no plan go on any rank", (long long)budget);
    }
    unsetenv("DMX_CACHE_BYTES");
    unsetenv("DMX_ONCE_KEEP");
    for (int t = 0; t < made; t++)
        unmake(&xs[t]);
    dmxt_case_end(ctx, bad, msg, "the plan cache's byte budget (DMX_CACHE_BYTES)");
}

/* ---- a pinned entry of the plan cache (dmxi_cache_pin) ---------------------------------- */
static int pin_freed[4]; /* how often each test object was freed */

static int pin_free(void *obj)
{
    pin_freed[*(int *)obj]++;
    return 0;
}

/* Four local entries (objects 0..3, key = the object's number) on a duplicate of the world; 0
 * is pinned. A make_room for more than the budget (DMX_CACHE_BYTES) must let 1..3 go and keep 0,
 * found at the front; a count limit of 1 must not let 0 go either; after the unpin the same
 * make_room lets 0 go. Freeing the communicator frees what is left (nothing then). Local. */
static void run_pin(dmxt_ctx *ctx)
{
    static int objs[4] = {0, 1, 2, 3};
    const int kind = DMXI_CACHE_DROPIN_ALONE;
    const int64_t over = (int64_t)1 << 50; /* above any budget */
    char msg[300] = "";
    int64_t bad = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    dmxi_cache *c = NULL;
    dmxt_set_current("a pinned plan-cache entry");
    memset(pin_freed, 0, sizeof pin_freed);
    if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS ||
        dmxi_cache_get(dup, 1, &c) != DMX_SUCCESS || !c) {
        dmxt_case_end(ctx, 1, "no cache on a duplicate of the world", "a pinned entry");
        return;
    }
    for (int i = 0; i < 4; i++)
        bad += dmxi_cache_add(c, kind, 0, &objs[i], sizeof(int), &objs[i], 100, pin_free) !=
               DMX_SUCCESS;
    bad += dmxi_cache_pin(c, kind, &objs[0], sizeof(int)) != &objs[0];
    bad += dmxi_cache_pin(c, kind, &objs[3], sizeof(int) - 1) != NULL; /* no such key */
    bad += dmxi_cache_make_room(c, kind, 0, 100, over, NULL, NULL) != DMX_SUCCESS;
    if (!bad && (!dmxi_cache_has(c, kind, &objs[0], sizeof(int)) || pin_freed[0] != 0 ||
                 dmxi_cache_front(c, kind) != &objs[0]))
        snprintf(msg, sizeof msg, "the pinned entry went (or left the front) in a make_room");
    for (int i = 1; i < 4 && !bad && !*msg; i++)
        if (pin_freed[i] != 1 || dmxi_cache_has(c, kind, &objs[i], sizeof(int)))
            snprintf(msg, sizeof msg, "entry %d was not let go (freed %d times)", i, pin_freed[i]);
    bad +=
        dmxi_cache_add(c, kind, 0, &objs[1], sizeof(int), &objs[1], 100, pin_free) != DMX_SUCCESS;
    bad += dmxi_cache_make_room(c, kind, 0, 1, 0, NULL, NULL) != DMX_SUCCESS;
    if (!bad && !*msg && (pin_freed[0] != 0 || pin_freed[1] != 2))
        snprintf(msg, sizeof msg, "a count limit of 1: freed %d and %d times (want 0, 2)",
                 pin_freed[0], pin_freed[1]);
    dmxi_cache_unpin(c, &objs[0]);
    bad += dmxi_cache_make_room(c, kind, 0, 100, over, NULL, NULL) != DMX_SUCCESS;
    if (!bad && !*msg && (pin_freed[0] != 1 || dmxi_cache_has(c, kind, &objs[0], sizeof(int))))
        snprintf(msg, sizeof msg, "the unpinned entry stayed (freed %d times)", pin_freed[0]);
    if (MPI_Comm_free(&dup) != MPI_SUCCESS)
        bad++;
    for (int i = 0; i < 4 && !bad && !*msg; i++)
        if (pin_freed[i] != (i == 1 ? 2 : 1))
            snprintf(msg, sizeof msg, "object %d freed %d times in all", i, pin_freed[i]);
    if (bad && !*msg)
        snprintf(msg, sizeof msg, "a cache call failed: %s", dmx_last_error());
    dmxt_case_end(ctx, bad + (*msg != 0), msg, "a pinned entry survives make_room until unpinned");
}

/* Settings changed between two calls of one transform, the second taking the kept plan back
 * (src/core/settings.c keeps a snapshot of the environment for that path): by setenv, unsetenv,
 * putenv and by writing a string given to putenv in place, each change is seen by the next call
 * (DMX_PLAN_CHECK=agree or DMX_SMALL_BYTES=0: the call agrees, reductions counted). */
static void run_env(dmxt_ctx *ctx)
{
    static char entry[] = "DMX_PLAN_CHECK=local"; /* putenv keeps the string itself */
    const size_t at = strlen("DMX_PLAN_CHECK=");
    char msg[600] = "";
    dmxt_set_current("settings changed between calls of a kept plan");
    mats x;
    int64_t bad = make(&x, DMX_DOUBLE, DMX_OP_T, 9, 7, 3, 4, ctx->size, 5, 3) != DMX_SUCCESS;
    for (int k = 0; k < 9 && bad == 0; k++) {
        int agree = 0; /* the call must agree */
        switch (k) {
        case 2: agree = setenv("DMX_PLAN_CHECK", "agree", 1) == 0; break;
        case 3: unsetenv("DMX_PLAN_CHECK"); break;
        case 4: putenv(entry); break;
        case 5: memcpy(entry + at, "agree", 6), agree = 1; break;
        case 6: memcpy(entry + at, "local", 6); break;
        case 7: agree = setenv("DMX_SMALL_BYTES", "0", 1) == 0; break;
        case 8: unsetenv("DMX_SMALL_BYTES"); break;
        default: break; /* 0: planned, 1: the kept plan */
        }
        const long r0 = n_reduce;
        bad += once(&x, msg, sizeof msg);
        const long reds = n_reduce - r0;
        if (bad == 0 && (agree ? reds == 0 : reds != 0)) {
            bad++;
            snprintf(msg, sizeof msg, "step %d: %ld reductions (want %s)", k, reds,
                     agree ? "some" : "none");
        }
    }
    unsetenv("DMX_SMALL_BYTES");
    unsetenv("DMX_PLAN_CHECK");
    unmake(&x);
    dmxt_case_end(ctx, bad, msg, "settings changed between calls of a kept plan");
}

static int calls;
static dmx_status seen_st;
static void record(dmx_status st, const char *message)
{
    (void)message;
    calls++;
    seen_st = st;
}

/* The agreement comes back with DMX_PLAN_CHECK=agree or a handler that returns. */
static void run_agreed(dmxt_ctx *ctx, int how)
{
    const int P = ctx->size;
    char msg[600] = "", desc[100];
    snprintf(desc, sizeof desc, "agreement kept (%s)",
             how ? "returning handler" : "DMX_PLAN_CHECK=agree");
    dmxt_set_current(desc);
    if (how)
        dmx_set_error_handler(record);
    else
        setenv("DMX_PLAN_CHECK", "agree", 1);
    mats x;
    int64_t bad = make(&x, DMX_DOUBLE, DMX_OP_T, 8, 8, 3, 4, P, 5, 3) != DMX_SUCCESS;
    const long r0 = n_reduce;
    if (bad == 0)
        bad += once(&x, msg, sizeof msg);
    if (bad == 0 && n_reduce == r0) {
        bad++;
        snprintf(msg, sizeof msg, "no reduction: the one-shot did not agree");
    }
    unmake(&x);
    dmx_set_error_handler(NULL);
    unsetenv("DMX_PLAN_CHECK");
    dmxt_case_end(ctx, bad, msg, desc);
}

/* A returning handler: one rank's bad argument gives every rank the same status. */
static void run_handler(dmxt_ctx *ctx, int bad_rank)
{
    const int P = ctx->size, me = ctx->rank == bad_rank;
    dmx_set_error_handler(record);
    for (int k = 0; k < 2; k++) {
        char msg[600] = "", desc[100];
        snprintf(desc, sizeof desc, "returning handler, bad rank %d, %s", bad_rank,
                 k ? "B NULL" : "op 7");
        dmxt_set_current(desc);
        mats x;
        int64_t bad = make(&x, DMX_DOUBLE, DMX_OP_N, 6, 5, 3, 1, P, 5, 3) != DMX_SUCCESS;
        calls = 0;
        if (bad == 0) {
            dmx_op op = k == 0 && me ? (dmx_op)7 : DMX_OP_N;
            const dmx_layout *b = k == 1 && me ? NULL : x.B.layout;
            dmx_status st = dmx_transform_once(DMX_DOUBLE, op, x.e.alpha, b, x.e.beta, x.A.layout);
            bad += dmxt_expect_status(ctx, st, k ? DMX_ERR_NULL : DMX_ERR_ARG, "dmx_transform_once",
                                      msg, sizeof msg);
            if (calls != 0) {
                bad++;
                snprintf(msg, sizeof msg, "handler called %d times (status %s)", calls,
                         dmx_status_string(seen_st));
            }
            bad += dmxt_check_fill(&x.A, 3, msg, sizeof msg); /* A unchanged */
        }
        unmake(&x);
        dmxt_case_end(ctx, bad, msg, desc);
    }
    dmx_set_error_handler(NULL);
}

/* Default handler: the last rank's bad op ends the job with its message. */
static int run_abort(dmxt_ctx *ctx)
{
    const int P = ctx->size;
    mats x;
    if (make(&x, DMX_DOUBLE, DMX_OP_N, 6, 5, 3, 1, P, 5, 3) != DMX_SUCCESS)
        return 1;
    dmx_op op = ctx->rank == P - 1 ? (dmx_op)7 : DMX_OP_N;
    dmx_status st = dmx_transform_once(DMX_DOUBLE, op, x.e.alpha, x.B.layout, x.e.beta, x.A.layout);
    /* the good ranks may return (their part needs nothing from the bad rank) or wait for it:
     * either way the job must end in the handler's abort, before anyone prints this */
    if (ctx->rank == P - 1)
        printf("check FAIL: the bad call returned %s\n", dmx_status_string(st));
    MPI_Barrier(MPI_COMM_WORLD);
    printf("check FAIL: rank %d got past the call\n", ctx->rank);
    fflush(stdout);
    unmake(&x);
    return 1;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    const char *mode = argc > 1 ? argv[1] : "cases";
    dmxt_init(&ctx, &argc, &argv, "test_once");
    if (strcmp(mode, "abort") == 0)
        return run_abort(&ctx);
    if (strcmp(mode, "handler") == 0) {
        run_handler(&ctx, 0);
        if (ctx.size > 1)
            run_handler(&ctx, ctx.size - 1);
    } else if (strcmp(mode, "budget") == 0) {
        run_budget(&ctx);
        run_pin(&ctx);
    } else if (strcmp(mode, "mid") == 0) {
        run_ids(&ctx);
        run_mid(&ctx);
    } else {
        run_cases(&ctx);
        run_interleaved(&ctx);
        run_kept(&ctx);
        run_keep(&ctx);
        run_env(&ctx);
        run_agreed(&ctx, 0);
        run_agreed(&ctx, 1);
    }
    return dmxt_finish(&ctx);
}
