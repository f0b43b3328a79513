/* SPDX-License-Identifier: BSD-3-Clause */
/* Transforms whose B shares memory with an A of the same batch (in place, overlapping views):
 *
 *  1. Views of one block-cyclic matrix (views of one layout, or of a second layout made over
 *     the same array with the same description, as the drop-in does for two descriptors of one
 *     array): random batches of one or two transforms, random windows, ops and trapezoids, many
 *     near each other (the same window, the transposed window, a shift of one). The reference
 *     verdict is brute force over global elements: a conflict when an element read for one
 *     position of one transform is written for another position (or by the other transform).
 *     Conflict: DMX_ERR_ARG on every rank and the matrix unchanged. No conflict: success and
 *     every element equal to the formula computed serially from the original values.
 *  2. Custom layouts whose blocks live in one arena per rank: A's blocks, then B's blocks at
 *     random offsets (row- and column-major, padded ld). The reference verdict is a byte map of
 *     the arena: a conflict when some element of B's blocks is an element of A's blocks on some
 *     rank (padding does not count). Conflict: DMX_ERR_ARG everywhere, A unchanged; else a
 *     right result.
 *  3. A plan made over two arrays, then B's layout rebound onto A's array (an in-place
 *     transpose), executed: the execution's own check calls the error handler (here one that
 *     returns) and returns DMX_ERR_ARG with A unchanged; rebound back, the plan runs right.
 *  4. A batch over one 8 x 8 array on rank 0 that reads it as floats in one transform and writes
 *     it as doubles in the other: the windows are disjoint in matrix coordinates, but float
 *     (4, 4) is the first half of double (2, 2), which the other transform writes: DMX_ERR_ARG.
 *     The same batch with both transforms of doubles is disjoint and runs.
 * Parts 1 and 2 go through dmx_transform_once_ex (agreed path: the test's handler returns) and
 * dmx_plan_create. Prints "N passed, N failed"; exit 1 on a failure. */
#include "dmxtest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int handled; /* calls of the error handler */

static void handler(dmx_status st, const char *msg)
{
    (void)st;
    (void)msg;
    handled++;
}

static double val(int64_t i, int64_t j)
{
    return (double)(i * 1000 + j) + 0.25;
}

typedef struct spec {
    dmx_op op;
    char uplo, diag;
    int64_t m, n;   /* A's size */
    int64_t ai, aj; /* A's window */
    int64_t bi, bj; /* B's window (B is m x n, or n x m under a transpose) */
    double alpha, beta;
} spec;

static int in_trapezoid(const spec *s, int64_t i, int64_t j)
{
    int64_t u = s->diag == 'U';
    if (s->uplo == 'U')
        return j - i >= u;
    if (s->uplo == 'L')
        return i - j >= u;
    return 1;
}

static void read_pos(const spec *s, int64_t i, int64_t j, int64_t *r, int64_t *c)
{
    if (s->op == DMX_OP_N)
        *r = s->bi + i, *c = s->bj + j;
    else
        *r = s->bi + j, *c = s->bj + i;
}

/* Brute force on an N x N map: 1 = conflict, 0 = none, -1 = two transforms write one element
 * (undefined: the case is drawn again). */
static int verdict(const spec *s, int nt, int64_t N, int64_t *writer)
{
    for (int64_t e = 0; e < N * N; e++)
        writer[e] = 0;
    for (int k = 0; k < nt; k++)
        for (int64_t i = 0; i < s[k].m; i++)
            for (int64_t j = 0; j < s[k].n; j++)
                if (in_trapezoid(&s[k], i, j)) {
                    int64_t *w = &writer[(s[k].ai + i) * N + s[k].aj + j];
                    if (*w)
                        return -1;
                    *w = (int64_t)k * N * N + i * s[k].n + j + 1;
                }
    for (int k = 0; k < nt; k++)
        for (int64_t i = 0; i < s[k].m; i++)
            for (int64_t j = 0; j < s[k].n; j++) {
                if (!in_trapezoid(&s[k], i, j))
                    continue;
                int64_t r, c;
                read_pos(&s[k], i, j, &r, &c);
                int64_t w = writer[r * N + c];
                if (w && w != (int64_t)k * N * N + i * s[k].n + j + 1)
                    return 1;
            }
    return 0;
}

static void draw(dmxt_rng *g, int64_t N, spec *s)
{
    static const char uplos[3] = {0, 'U', 'L'};
    s->op = dmxt_rng_chance(g, 50) ? DMX_OP_T : DMX_OP_N;
    s->uplo = uplos[dmxt_rng_int(g, 0, 2)];
    s->diag = dmxt_rng_chance(g, 30) ? 'U' : 0;
    s->m = dmxt_rng_int(g, 1, N);
    s->n = dmxt_rng_int(g, 1, N);
    if (s->op == DMX_OP_T && dmxt_rng_chance(g, 50))
        s->n = s->m; /* square: in-place transposes and symmetrizations */
    int64_t bm = s->op == DMX_OP_N ? s->m : s->n, bn = s->op == DMX_OP_N ? s->n : s->m;
    s->ai = dmxt_rng_int(g, 0, N - s->m);
    s->aj = dmxt_rng_int(g, 0, N - s->n);
    int near = (int)dmxt_rng_int(g, 0, 3);
    if (near == 0 && bm == s->m && bn == s->n) { /* the same window */
        s->bi = s->ai, s->bj = s->aj;
    } else if (near == 1 && bm <= N - s->aj && bn <= N - s->ai) { /* the mirrored window */
        s->bi = s->aj, s->bj = s->ai;
    } else {
        s->bi = dmxt_rng_int(g, 0, N - bm);
        s->bj = dmxt_rng_int(g, 0, N - bn);
        if (near == 2) { /* a shift of one from A's window where it fits */
            int64_t bi = s->ai + dmxt_rng_int(g, -1, 1), bj = s->aj + dmxt_rng_int(g, -1, 1);
            if (bi >= 0 && bi <= N - bm && bj >= 0 && bj <= N - bn)
                s->bi = bi, s->bj = bj;
        }
    }
    s->alpha = dmxt_rng_chance(g, 80) ? 2.0 : 0.0;
    s->beta = dmxt_rng_chance(g, 50) ? 1.0 : 0.0;
}

typedef struct bcm {
    int64_t N, nb;
    int prow, pcol, myr, myc;
    int64_t lr, lc, lld;
    double *x;
} bcm;

static void fill(bcm *a)
{
    for (int64_t li = 0; li < a->lr; li++)
        for (int64_t lj = 0; lj < a->lc; lj++)
            a->x[li + lj * a->lld] = val(dmxt_indxl2g(li, a->nb, a->myr, 0, a->prow),
                                         dmxt_indxl2g(lj, a->nb, a->myc, 0, a->pcol));
}

/* Part 1: one case. */
static void part1_case(dmxt_ctx *ctx, bcm *a, dmx_layout *P, dmx_layout *twin, const spec *s,
                       int nt, int expect_conflict, int use_plan, int64_t *writer)
{
    dmx_layout *va[2] = {NULL, NULL}, *vb[2] = {NULL, NULL};
    dmx_transform t[2];
    fill(a);
    for (int k = 0; k < nt; k++) {
        int64_t bm = s[k].op == DMX_OP_N ? s[k].m : s[k].n;
        int64_t bn = s[k].op == DMX_OP_N ? s[k].n : s[k].m;
        dmx_layout_create_view(P, s[k].ai, s[k].aj, s[k].m, s[k].n, &va[k]);
        dmx_layout_create_view(twin ? twin : P, s[k].bi, s[k].bj, bm, bn, &vb[k]);
        t[k] = (dmx_transform){DMX_DOUBLE, s[k].op, {s[k].alpha, 0}, {s[k].beta, 0},
                               vb[k],      va[k],   s[k].uplo,       s[k].diag};
    }
    dmx_status st;
    if (use_plan) {
        dmx_plan *p = NULL;
        st = dmx_plan_create(nt, t, &p);
        if (st == DMX_SUCCESS)
            st = dmx_plan_execute(p);
        dmx_plan_destroy(&p);
    } else {
        st = dmx_transform_once_ex(&t[0]);
    }
    char msg[512] = "", desc[256];
    int64_t bad = dmxt_expect_status(ctx, st, expect_conflict ? DMX_ERR_ARG : DMX_SUCCESS,
                                     "transform", msg, sizeof msg);
    if (!bad && expect_conflict && !strstr(dmx_last_error(), "memory on this rank")) {
        snprintf(msg, sizeof msg, "message does not name the shared memory: %s", dmx_last_error());
        bad = 1;
    }
    /* The expected matrix: writer[] says which position of which transform writes an element. */
    int64_t N = a->N, wrong = 0;
    for (int64_t li = 0; li < a->lr; li++)
        for (int64_t lj = 0; lj < a->lc; lj++) {
            int64_t gi = dmxt_indxl2g(li, a->nb, a->myr, 0, a->prow);
            int64_t gj = dmxt_indxl2g(lj, a->nb, a->myc, 0, a->pcol);
            double want = val(gi, gj);
            int64_t w = writer[gi * N + gj];
            if (w && !expect_conflict) {
                int k = (int)((w - 1) / (N * N));
                int64_t pos = (w - 1) % (N * N), i = pos / s[k].n, j = pos % s[k].n, r, c;
                read_pos(&s[k], i, j, &r, &c);
                want = s[k].alpha * val(r, c) + s[k].beta * val(gi, gj);
            }
            wrong += a->x[li + lj * a->lld] != want;
        }
    if (wrong && !bad)
        snprintf(msg, sizeof msg, "%lld elements wrong", (long long)wrong);
    bad += wrong;
    int o = snprintf(desc, sizeof desc,
                     "part 1, %s, %d transform(s), conflict %d:", use_plan ? "plan" : "once", nt,
                     expect_conflict);
    for (int k = 0; k < nt && o > 0 && o < (int)sizeof desc; k++)
        o += snprintf(desc + o, sizeof desc - (size_t)o,
                      " [op %c uplo %c diag %c A %lldx%lld at (%lld,%lld) B at (%lld,%lld) "
                      "alpha %g beta %g%s]",
                      s[k].op == DMX_OP_N ? 'N' : 'T', s[k].uplo ? s[k].uplo : '0',
                      s[k].diag ? s[k].diag : '0', (long long)s[k].m, (long long)s[k].n,
                      (long long)s[k].ai, (long long)s[k].aj, (long long)s[k].bi,
                      (long long)s[k].bj, s[k].alpha, s[k].beta, twin ? " twin" : "");
    dmxt_case_end(ctx, bad, msg, desc);
    for (int k = 0; k < nt; k++) {
        dmx_layout_destroy(&va[k]);
        dmx_layout_destroy(&vb[k]);
    }
}

static void part1(dmxt_ctx *ctx, dmxt_rng *g, int cases)
{
    MPI_Comm comm = ctx->comm;
    int rank = ctx->rank, size = ctx->size;
    bcm a;
    a.N = 13 + dmxt_rng_int(g, 0, 12);
    a.nb = dmxt_rng_int(g, 1, 5);
    a.prow = size >= 4 ? 2 : 1;
    a.pcol = size / a.prow;
    a.myr = rank < a.prow * a.pcol ? rank / a.pcol : -1;
    a.myc = rank < a.prow * a.pcol ? rank % a.pcol : -1;
    a.lr = a.myr < 0 ? 0 : dmxt_numroc(a.N, a.nb, a.myr, 0, a.prow);
    a.lc = a.myc < 0 ? 0 : dmxt_numroc(a.N, a.nb, a.myc, 0, a.pcol);
    a.lld = a.lr > 0 ? a.lr : 1;
    a.x = malloc(sizeof(double) * (size_t)(a.lld * (a.lc > 0 ? a.lc : 1)));
    int64_t *writer = malloc(sizeof(int64_t) * (size_t)(a.N * a.N));
    dmx_layout *P = NULL, *twin = NULL;
    dmx_layout_create_block_cyclic(comm, a.N, a.N, a.nb, a.nb, a.prow, a.pcol, 'R', 0, 0, a.x,
                                   a.lld, &P);
    dmx_layout_create_block_cyclic(comm, a.N, a.N, a.nb, a.nb, a.prow, a.pcol, 'R', 0, 0, a.x,
                                   a.lld, &twin);
    int conflicts = 0, clean = 0;
    for (int c = 0; c < cases; c++) {
        spec s[2];
        int nt = dmxt_rng_chance(g, 25) ? 2 : 1, v;
        do {
            for (int k = 0; k < nt; k++)
                draw(g, a.N, &s[k]);
            v = verdict(s, nt, a.N, writer);
        } while (v < 0);
        int use_plan = nt == 2 || dmxt_rng_chance(g, 50);
        part1_case(ctx, &a, P, dmxt_rng_chance(g, 30) ? twin : NULL, s, nt, v, use_plan, writer);
        conflicts += v, clean += !v;
    }
    /* both outcomes must have been drawn often, or the test proves little */
    char msg[128];
    snprintf(msg, sizeof msg, "%d conflicts and %d clean cases of %d", conflicts, clean, cases);
    dmxt_case_end(ctx, conflicts < cases / 8 || clean < cases / 8, msg,
                  "part 1: both outcomes drawn");
    if (rank == 0)
        printf("part 1: N %lld nb %lld, %d cases, %d with a conflict\n", (long long)a.N,
               (long long)a.nb, cases, conflicts);
    dmx_layout_destroy(&P);
    dmx_layout_destroy(&twin);
    free(writer);
    free(a.x);
}

/* Part 2: custom layouts of nr x nr blocks of bs x bs, block (I, J) on rank (I + J) % size;
 * A's blocks at the start of an arena, B's at random element offsets in it. */
static void part2(dmxt_ctx *ctx, dmxt_rng *g, int cases)
{
    MPI_Comm comm = ctx->comm;
    int rank = ctx->rank, size = ctx->size;
    enum { NR = 3, BS = 4, N = NR * BS, PAD = 2 };
    int64_t splits[NR + 1];
    int owners[NR * NR];
    for (int i = 0; i <= NR; i++)
        splits[i] = (int64_t)i * BS;
    for (int i = 0; i < NR * NR; i++)
        owners[i] = (i / NR + i % NR) % size;
    int mine = 0;
    for (int i = 0; i < NR * NR; i++)
        mine += owners[i] == rank;
    /* arena: A's blocks, then B's sequential slots one block further on (beyond every block
     * drawn anywhere in A's part) */
    int64_t bsz = BS * (BS + PAD), arena_n = 2 * (int64_t)NR * NR * bsz + bsz + 8;
    double *arena = calloc((size_t)arena_n, sizeof(double));
    unsigned char *used = malloc((size_t)arena_n);
    int conflicts = 0, clean = 0;
    for (int c = 0; c < cases; c++) {
        dmx_block ab[NR * NR], bb[NR * NR];
        int nb = 0;
        memset(used, 0, (size_t)arena_n);
        int64_t off_a = 0;
        for (int i = 0; i < NR * NR; i++) {
            if (owners[i] != rank)
                continue;
            dmx_order o = dmxt_rng_chance(g, 50) ? DMX_COL_MAJOR : DMX_ROW_MAJOR;
            ab[nb] = (dmx_block){i / NR, i % NR, arena + off_a, BS + PAD, o};
            for (int64_t x = 0; x < BS; x++)
                for (int64_t y = 0; y < BS; y++)
                    used[off_a + x * (BS + PAD) + y] = 1;
            off_a += bsz;
            nb++;
        }
        /* B's blocks: mostly beyond A's, some drawn anywhere in the arena (on one rank) */
        int wild = rank == (int)(c % size) && dmxt_rng_chance(g, 60);
        int64_t off_b = off_a + bsz, hit = 0;
        for (int k = 0; k < nb; k++) {
            int64_t at = off_b;
            if (wild && dmxt_rng_chance(g, 40)) { /* anywhere over A's part, not over B's */
                at = dmxt_rng_int(g, 0, off_a);
                for (int64_t x = 0; x < BS; x++)
                    for (int64_t y = 0; y < BS; y++)
                        if (used[at + x * (BS + PAD) + y] == 2)
                            at = off_b;
            }
            dmx_order o = dmxt_rng_chance(g, 50) ? DMX_COL_MAJOR : DMX_ROW_MAJOR;
            bb[k] = (dmx_block){ab[k].brow, ab[k].bcol, arena + at, BS + PAD, o};
            for (int64_t x = 0; x < BS; x++)
                for (int64_t y = 0; y < BS; y++)
                    hit |= used[at + x * (BS + PAD) + y] == 1;
            for (int64_t x = 0; x < BS; x++) /* B's elements, for B's overlapping each other */
                for (int64_t y = 0; y < BS; y++)
                    if (used[at + x * (BS + PAD) + y] == 0)
                        used[at + x * (BS + PAD) + y] = 2;
            off_b = at == off_b ? off_b + bsz : off_b;
        }
        int any = 0;
        MPI_Allreduce(&hit, &any, 1, MPI_INT, MPI_MAX, comm);
        /* values: B's blocks get the formula, then A's (A wins where they share memory) */
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < nb; k++) {
                const dmx_block *b = pass ? &ab[k] : &bb[k];
                for (int64_t x = 0; x < BS; x++)
                    for (int64_t y = 0; y < BS; y++) {
                        int64_t gi = b->brow * BS + x, gj = b->bcol * BS + y;
                        int64_t at = b->order == DMX_COL_MAJOR ? x + y * b->ld : x * b->ld + y;
                        ((double *)b->data)[at] = pass ? -val(gi, gj) : val(gi, gj);
                    }
            }
        dmx_layout *A = NULL, *B = NULL;
        dmx_layout_create_custom(comm, N, N, NR, splits, NR, splits, owners, nb, ab, &A);
        dmx_layout_create_custom(comm, N, N, NR, splits, NR, splits, owners, nb, bb, &B);
        dmx_transform t = {DMX_DOUBLE, DMX_OP_T, {1, 0}, {0, 0}, B, A, 0, 0};
        dmx_status st;
        if (c % 2) {
            dmx_plan *p = NULL;
            st = dmx_plan_create(1, &t, &p);
            if (st == DMX_SUCCESS)
                st = dmx_plan_execute(p);
            dmx_plan_destroy(&p);
        } else {
            st = dmx_transform_once_ex(&t);
        }
        char msg[512] = "", desc[96];
        int64_t bad = dmxt_expect_status(ctx, st, any ? DMX_ERR_ARG : DMX_SUCCESS, "transform", msg,
                                         sizeof msg),
                wrong = 0;
        for (int k = 0; k < nb; k++)
            for (int64_t x = 0; x < BS; x++)
                for (int64_t y = 0; y < BS; y++) {
                    int64_t gi = ab[k].brow * BS + x, gj = ab[k].bcol * BS + y;
                    int64_t at = ab[k].order == DMX_COL_MAJOR ? x + y * ab[k].ld : x * ab[k].ld + y;
                    double want = any ? -val(gi, gj) : val(gj, gi);
                    wrong += ((double *)ab[k].data)[at] != want;
                }
        if (wrong && !bad)
            snprintf(msg, sizeof msg, "%lld elements of A wrong", (long long)wrong);
        snprintf(desc, sizeof desc, "part 2 case %d (%s), conflict %d", c, c % 2 ? "plan" : "once",
                 any);
        dmxt_case_end(ctx, bad + wrong, msg, desc);
        conflicts += any, clean += !any;
        dmx_layout_destroy(&A);
        dmx_layout_destroy(&B);
    }
    char msg[128];
    snprintf(msg, sizeof msg, "%d conflicts and %d clean cases of %d", conflicts, clean, cases);
    dmxt_case_end(ctx, conflicts < cases / 8 || clean < cases / 8, msg,
                  "part 2: both outcomes drawn");
    if (rank == 0)
        printf("part 2: %d cases, %d with a conflict\n", cases, conflicts);
    free(arena);
    free(used);
}

static void part3(dmxt_ctx *ctx)
{
    bcm a;
    a.N = 11, a.nb = 2;
    a.prow = ctx->size >= 4 ? 2 : 1;
    a.pcol = ctx->size / a.prow;
    a.myr = ctx->rank < a.prow * a.pcol ? ctx->rank / a.pcol : -1;
    a.myc = ctx->rank < a.prow * a.pcol ? ctx->rank % a.pcol : -1;
    a.lr = a.myr < 0 ? 0 : dmxt_numroc(a.N, a.nb, a.myr, 0, a.prow);
    a.lc = a.myc < 0 ? 0 : dmxt_numroc(a.N, a.nb, a.myc, 0, a.pcol);
    a.lld = a.lr > 0 ? a.lr : 1;
    size_t bytes = sizeof(double) * (size_t)(a.lld * (a.lc > 0 ? a.lc : 1));
    double *x = malloc(bytes), *y = malloc(bytes);
    dmx_layout *A = NULL, *B = NULL;
    dmx_layout_create_block_cyclic(ctx->comm, a.N, a.N, a.nb, a.nb, a.prow, a.pcol, 'R', 0, 0, x,
                                   a.lld, &A);
    dmx_layout_create_block_cyclic(ctx->comm, a.N, a.N, a.nb, a.nb, a.prow, a.pcol, 'R', 0, 0, y,
                                   a.lld, &B);
    dmx_transform t = {DMX_DOUBLE, DMX_OP_T, {1, 0}, {0, 0}, B, A, 0, 0};
    dmx_plan *p = NULL;
    char msg[512] = "";
    int64_t bad =
        dmxt_expect_status(ctx, dmx_plan_create(1, &t, &p), DMX_SUCCESS, "create", msg, sizeof msg);
    for (int round = 0; round < 3 && !bad; round++) {
        /* round 1: B on A's array; rounds 0 and 2: B on its own */
        a.x = y;
        fill(&a); /* B = the formula */
        a.x = x;
        fill(&a); /* A = the formula too (unchanged if refused) */
        dmx_layout_rebind(B, round == 1 ? x : y);
        int before = handled;
        dmx_status st = dmx_plan_execute(p);
        bad += dmxt_expect_status(ctx, st, round == 1 ? DMX_ERR_ARG : DMX_SUCCESS, "execute", msg,
                                  sizeof msg);
        if (!bad && round == 1 && (handled != before + 1 || !strstr(dmx_last_error(), "rebound"))) {
            snprintf(msg, sizeof msg, "handler calls %d, message %s", handled - before,
                     dmx_last_error());
            bad++;
        }
        int64_t wrong = 0;
        for (int64_t li = 0; li < a.lr; li++)
            for (int64_t lj = 0; lj < a.lc; lj++) {
                int64_t gi = dmxt_indxl2g(li, a.nb, a.myr, 0, a.prow);
                int64_t gj = dmxt_indxl2g(lj, a.nb, a.myc, 0, a.pcol);
                wrong += x[li + lj * a.lld] != (round == 1 ? val(gi, gj) : val(gj, gi));
            }
        if (wrong && !bad)
            snprintf(msg, sizeof msg, "round %d: %lld elements of A wrong", round,
                     (long long)wrong);
        bad += wrong;
    }
    dmxt_case_end(ctx, bad, msg, "part 3: a plan whose B is rebound onto A's array");
    dmx_plan_destroy(&p);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&B);
    free(x);
    free(y);
}

static void part4(dmxt_ctx *ctx)
{
    double x[64];
    dmx_layout *P = NULL, *a0 = NULL, *b0 = NULL, *a1 = NULL, *b1 = NULL;
    double *mem = ctx->rank == 0 ? x : NULL;
    dmx_layout_create_block_cyclic(ctx->comm, 8, 8, 8, 8, 1, 1, 'R', 0, 0, mem, 8, &P);
    dmx_layout_create_view(P, 0, 2, 4, 2, &a0); /* doubles: bytes [128, 224) */
    dmx_layout_create_view(P, 4, 0, 4, 2, &b0);
    dmx_layout_create_view(P, 4, 4, 4, 4, &b1); /* as floats: bytes [144, 256) */
    dmx_layout_create_view(P, 4, 4, 4, 4, &a1);
    char msg[512] = "";
    int64_t bad = 0;
    for (int same = 0; same < 2; same++) {
        for (int k = 0; k < 64; k++)
            x[k] = k;
        /* transform 1 copies its window onto itself (A = B, one position each) */
        dmx_transform t[2] = {
            {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, b0, a0, 0, 0},
            {same ? DMX_DOUBLE : DMX_FLOAT, DMX_OP_N, {1, 0}, {0, 0}, b1, a1, 0, 0}};
        dmx_plan *p = NULL;
        dmx_status st = dmx_plan_create(2, t, &p);
        if (st == DMX_SUCCESS)
            st = dmx_plan_execute(p);
        dmx_plan_destroy(&p);
        bad += dmxt_expect_status(ctx, st, same ? DMX_SUCCESS : DMX_ERR_ARG,
                                  same ? "doubles" : "floats over doubles", msg, sizeof msg);
        int64_t wrong = 0; /* doubles: A0 (rows 0..3, columns 2..3) = B0 (rows 4..7, 0..1) */
        for (int k = 0; k < 64 && ctx->rank == 0; k++) {
            int r = k % 8, c = k / 8;
            double want = k;
            if (same && r < 4 && c >= 2 && c < 4)
                want = (r + 4) + (c - 2) * 8;
            wrong += x[k] != want;
        }
        if (wrong && !bad)
            snprintf(msg, sizeof msg, "%lld elements wrong (same %d)", (long long)wrong, same);
        bad += wrong;
    }
    dmxt_case_end(ctx, bad, msg, "part 4: floats and doubles over one array");
    dmx_layout_destroy(&a0);
    dmx_layout_destroy(&b0);
    dmx_layout_destroy(&a1);
    dmx_layout_destroy(&b1);
    dmx_layout_destroy(&P);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_overlap");
    dmx_set_error_handler(handler);
    dmxt_rng g;
    dmxt_rng_seed(&g, ctx.seed, 7);
    part1(&ctx, &g, (int)dmxt_cases("DMX_OVERLAP_CASES", 160));
    part2(&ctx, &g, 60);
    part3(&ctx);
    part4(&ctx);
    return dmxt_finish(&ctx);
}
