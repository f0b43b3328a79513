/* SPDX-License-Identifier: BSD-3-Clause */
/* Layouts known only locally (dmx_layout_create_local) and the directory planner behind them.
 *
 * Each case builds a random tiling of a matrix into rectangles with random owners (a grid of
 * random splits, or a recursive random bisection that is no grid at all, with a few or with
 * hundreds of pieces), gives every rank only its own rectangles as dmx_local_block, and plans
 * A = alpha*op(B) + beta*A with the local layout on the A side, the B side or both, the other side
 * a random global layout (block-cyclic, mapped, custom). Every rank checks every element of its
 * A memory against the closed formula (including the trapezoid, padding and NaN operands that
 * must not be read) and that B was not written. The same transform is then described globally:
 * each local layout gets a twin custom layout over the refinement of its tiling into a grid,
 * sharing the very same memory; the twin plan must produce the same result and, without a
 * trapezoid, the same statistics (peers, volumes, buffer bytes) on every rank.
 * Error cases: blocks of different ranks that overlap while the areas still add up (a shifted
 * strip, a block claimed twice) must fail with DMX_ERR_LAYOUT on every rank at dmx_plan_create.
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_CASES (random cases, default 120), DMX_TEST_CASE (run only
 * this case), DMX_TEST_VERBOSE=1 (print each case).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------------------------- */

static void *xalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "test_local: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- tilings (identical on every rank: drawn from the shared RNG) ---------------------------- */

typedef struct trect {
    int64_t r0, c0, rows, cols;
    int owner;
} trect;

typedef struct tiling {
    int64_t m, n, nr, cap;
    trect *v;
    char what[96];
} tiling;

static void tiling_push(tiling *T, int64_t r0, int64_t c0, int64_t rows, int64_t cols, int owner)
{
    if (T->nr == T->cap) {
        T->cap = T->cap ? 2 * T->cap : 16;
        trect *v = realloc(T->v, sizeof *v * (size_t)T->cap);
        if (!v) {
            fprintf(stderr, "test_local: out of memory\n");
            dmxt_flush_before_abort();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        T->v = v;
    }
    T->v[T->nr++] = (trect){r0, c0, rows, cols, owner};
}

static void tiling_free(tiling *T)
{
    free(T->v);
    memset(T, 0, sizeof *T);
}

/* Owners: every rank, a random subset (some ranks own nothing) or a single rank. */
typedef struct owners {
    int *perm;
    int nsub;
} owners;

static void owners_init(owners *o, dmxt_rng *rng, int P)
{
    o->perm = xalloc((size_t)P, sizeof(int));
    for (int i = 0; i < P; i++)
        o->perm[i] = i;
    dmxt_rng_shuffle(rng, o->perm, P);
    int64_t mode = dmxt_rng_int(rng, 0, 9);
    o->nsub = mode < 5 ? P : mode < 8 ? (int)dmxt_rng_int(rng, 1, P) : 1;
}

static int owners_pick(const owners *o, dmxt_rng *rng)
{
    return o->perm[dmxt_rng_int(rng, 0, o->nsub - 1)];
}

/* nparts parts of [0, extent): cuts[0] = 0 < ... < cuts[nparts] = extent. */
static int64_t random_cuts(dmxt_rng *rng, int64_t extent, int64_t maxparts, int64_t *cuts)
{
    int64_t np = dmxt_rng_int(rng, 1, imin(extent, maxparts));
    int64_t have = 1;
    cuts[0] = 0;
    while (have < np) {
        int64_t c = dmxt_rng_int(rng, 1, extent - 1), dup = 0;
        for (int64_t t = 1; t < have; t++)
            dup |= cuts[t] == c;
        if (!dup)
            cuts[have++] = c;
    }
    qsort(cuts, (size_t)np, sizeof *cuts, cmp_i64);
    cuts[np] = extent;
    return np;
}

/* A grid of random splits with random owners. */
static void gen_grid(tiling *T, dmxt_rng *rng, int64_t m, int64_t n, int P)
{
    T->m = m, T->n = n;
    snprintf(T->what, sizeof T->what, "grid");
    if (m == 0 || n == 0)
        return;
    int64_t rc[10], cc[10];
    int64_t nr = random_cuts(rng, m, 8, rc), nc = random_cuts(rng, n, 8, cc);
    owners o;
    owners_init(&o, rng, P);
    for (int64_t i = 0; i < nr; i++)
        for (int64_t j = 0; j < nc; j++)
            tiling_push(T, rc[i], cc[j], rc[i + 1] - rc[i], cc[j + 1] - cc[j],
                        owners_pick(&o, rng));
    snprintf(T->what, sizeof T->what, "grid %lldx%lld owners %d", (long long)nr, (long long)nc,
             o.nsub);
    free(o.perm);
}

/* Recursive random bisection into about `leaves` rectangles (no grid): a random rectangle, or
 * often the newest (deep, uneven nesting), is cut at a random place. */
static void gen_bisect(tiling *T, dmxt_rng *rng, int64_t m, int64_t n, int P, int64_t leaves)
{
    T->m = m, T->n = n;
    snprintf(T->what, sizeof T->what, "bisect");
    if (m == 0 || n == 0)
        return;
    owners o;
    owners_init(&o, rng, P);
    tiling_push(T, 0, 0, m, n, 0);
    for (int64_t tries = 0; T->nr < leaves && tries < 8 * leaves; tries++) {
        int64_t i = dmxt_rng_chance(rng, 50) ? T->nr - 1 : dmxt_rng_int(rng, 0, T->nr - 1);
        trect x = T->v[i];
        int rows_ok = x.rows >= 2, cols_ok = x.cols >= 2;
        if (!rows_ok && !cols_ok)
            continue;
        int by_rows = rows_ok && (!cols_ok || dmxt_rng_chance(rng, 50));
        if (by_rows) {
            int64_t cut = dmxt_rng_int(rng, 1, x.rows - 1);
            T->v[i].rows = cut;
            tiling_push(T, x.r0 + cut, x.c0, x.rows - cut, x.cols, 0);
        } else {
            int64_t cut = dmxt_rng_int(rng, 1, x.cols - 1);
            T->v[i].cols = cut;
            tiling_push(T, x.r0, x.c0 + cut, x.rows, x.cols - cut, 0);
        }
    }
    for (int64_t i = 0; i < T->nr; i++)
        T->v[i].owner = owners_pick(&o, rng);
    snprintf(T->what, sizeof T->what, "bisect %lld owners %d", (long long)T->nr, o.nsub);
    free(o.perm);
}

static void tiling_transpose(tiling *T)
{
    int64_t t = T->m;
    T->m = T->n, T->n = t;
    for (int64_t i = 0; i < T->nr; i++) {
        trect *x = &T->v[i];
        t = x->r0, x->r0 = x->c0, x->c0 = t;
        t = x->rows, x->rows = x->cols, x->cols = t;
    }
}

/* Broken (P >= 2, m >= 2): row strips cut into column pieces, neighbouring strips on different
 * ranks; one strip moves by one row into its neighbour. Areas still add up: one row overlaps,
 * another is left uncovered. Transposed at random. */
static void gen_shifted(tiling *T, dmxt_rng *rng, int64_t m, int64_t n, int P)
{
    int tr = dmxt_rng_chance(rng, 50);
    if (tr) {
        int64_t t = m;
        m = n, n = t;
    }
    T->m = m, T->n = n;
    int64_t rc[8], cc[8];
    int64_t ns = random_cuts(rng, m, 6, rc);
    if (ns < 2) { /* need two strips */
        ns = 2, rc[1] = dmxt_rng_int(rng, 1, m - 1), rc[2] = m;
    }
    int base = (int)dmxt_rng_int(rng, 0, P - 1);
    int64_t k = dmxt_rng_int(rng, 0, ns - 2), down = dmxt_rng_chance(rng, 50);
    for (int64_t i = 0; i < ns; i++) {
        int64_t r0 = rc[i], rows = rc[i + 1] - rc[i];
        if (down && i == k)
            r0 += 1; /* into strip k+1 */
        if (!down && i == k + 1)
            r0 -= 1; /* into strip k */
        int64_t nc = random_cuts(rng, n, 4, cc);
        for (int64_t j = 0; j < nc; j++)
            tiling_push(T, r0, cc[j], rows, cc[j + 1] - cc[j], (int)((base + i) % P));
    }
    if (tr)
        tiling_transpose(T);
    snprintf(T->what, sizeof T->what, "BROKEN shifted strip %lld of %lld %s%s", (long long)k,
             (long long)ns, down ? "down" : "up", tr ? " (columns)" : "");
}

/* Broken (P >= 2): equal-height strips sharing column cuts, one piece claimed by a second rank
 * and a congruent piece by none. The caller's m is rounded to a multiple of the strip height. */
static void gen_claimed_twice(tiling *T, dmxt_rng *rng, int64_t *m, int64_t n, int P)
{
    int64_t ns = dmxt_rng_int(rng, 2, 5), h = dmxt_rng_int(rng, 1, 8);
    *m = ns * h;
    T->m = *m, T->n = n;
    int64_t cc[8];
    int64_t nc = random_cuts(rng, n, 5, cc);
    owners o;
    owners_init(&o, rng, P);
    int64_t xi = dmxt_rng_int(rng, 0, ns - 1), yi = dmxt_rng_int(rng, 0, ns - 2);
    int64_t j = dmxt_rng_int(rng, 0, nc - 1);
    yi += yi >= xi; /* another strip */
    int xowner = -1;
    for (int64_t i = 0; i < ns; i++)
        for (int64_t c = 0; c < nc; c++) {
            int ow = owners_pick(&o, rng);
            if (i == yi && c == j)
                continue; /* nobody claims it */
            if (i == xi && c == j)
                xowner = ow;
            tiling_push(T, i * h, cc[c], h, cc[c + 1] - cc[c], ow);
        }
    int second = (int)((xowner + dmxt_rng_int(rng, 1, P - 1)) % P);
    tiling_push(T, xi * h, cc[j], h, cc[j + 1] - cc[j], second);
    snprintf(T->what, sizeof T->what, "BROKEN piece (%lld,%lld) on ranks %d and %d", (long long)xi,
             (long long)j, xowner, second);
    free(o.perm);
}

/* ---- matrices over a tiling ----------------------------------------------------------------- */

/* This rank's rectangles of T as a dmxt_matrix (kind custom, so the shared fill and check
 * helpers work on its blocks), with random storage order and padding, and the local layout. */
static dmx_status local_matrix(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, const tiling *T,
                               dmxt_rng *rng)
{
    memset(M, 0, sizeof *M);
    M->kind = DMXT_CUSTOM;
    M->dtype = dtype;
    M->comm = comm;
    MPI_Comm_rank(comm, &M->rank);
    MPI_Comm_size(comm, &M->size);
    M->m = T->m, M->n = T->n;
    M->myrow = M->mycol = -1;
    size_t esz = dmx_dtype_size(dtype);
    int rowmajor_pct = (int)dmxt_rng_int(rng, 0, 2) * 50;
    int64_t mine = 0;
    for (int64_t i = 0; i < T->nr; i++)
        mine += T->v[i].owner == M->rank;
    M->allocs = xalloc((size_t)mine, sizeof(void *));
    M->alloc_elems = xalloc((size_t)mine, sizeof(int64_t));
    M->blk = xalloc((size_t)mine, sizeof(dmxt_block));
    for (int64_t i = 0; i < T->nr; i++) {
        const trect *x = &T->v[i];
        dmx_order ord = dmxt_rng_chance(rng, rowmajor_pct) ? DMX_ROW_MAJOR : DMX_COL_MAJOR;
        int64_t pad = dmxt_rng_chance(rng, 50) ? 0 : dmxt_rng_int(rng, 1, 3);
        if (x->owner != M->rank)
            continue;
        dmxt_block b;
        b.row0 = x->r0, b.col0 = x->c0, b.rows = x->rows, b.cols = x->cols;
        b.order = ord;
        b.ld = (ord == DMX_COL_MAJOR ? x->rows : x->cols) + pad;
        b.alloc = M->nalloc;
        int64_t elems = b.ld * (ord == DMX_COL_MAJOR ? x->cols : x->rows);
        M->alloc_elems[M->nalloc] = elems;
        M->allocs[M->nalloc] = xalloc((size_t)elems, esz);
        b.data = M->allocs[M->nalloc];
        M->nalloc++;
        M->blk[M->nblk++] = b;
    }
    snprintf(M->desc, sizeof M->desc, "local %lldx%lld %s", (long long)T->m, (long long)T->n,
             T->what);
    /* hand the blocks to dmx in a shuffled order */
    dmx_local_block *lb = xalloc((size_t)M->nblk, sizeof *lb);
    int *perm = xalloc((size_t)M->nblk, sizeof(int));
    for (int64_t i = 0; i < M->nblk; i++)
        perm[i] = (int)i;
    dmxt_rng lr;
    dmxt_rng_seed(&lr, (uint64_t)M->rank + 77, (uint64_t)M->nblk);
    if (M->nblk > 1)
        dmxt_rng_shuffle(&lr, perm, (int)M->nblk);
    for (int64_t i = 0; i < M->nblk; i++) {
        const dmxt_block *b = &M->blk[perm[i]];
        lb[i] = (dmx_local_block){b->row0, b->col0, b->rows, b->cols, b->data, b->ld, b->order};
    }
    dmx_status st = dmx_layout_create_local(comm, T->m, T->n, M->nblk, lb, &M->layout);
    free(lb);
    free(perm);
    return st;
}

static int64_t find_cut(const int64_t *s, int64_t ns, int64_t x)
{
    int64_t lo = 0, hi = ns; /* s[lo] == x */
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (s[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The same matrix described globally: a custom layout over the refinement of T into a grid,
 * whose blocks point into M's memory. */
static dmx_status twin_layout(const dmxt_matrix *M, const tiling *T, dmx_layout **out)
{
    int64_t *rs = xalloc((size_t)(2 * T->nr + 2), sizeof(int64_t));
    int64_t *cs = xalloc((size_t)(2 * T->nr + 2), sizeof(int64_t));
    int64_t nrs = 0, ncs = 0;
    rs[nrs++] = 0, rs[nrs++] = T->m, cs[ncs++] = 0, cs[ncs++] = T->n;
    for (int64_t i = 0; i < T->nr; i++) {
        rs[nrs++] = T->v[i].r0, rs[nrs++] = T->v[i].r0 + T->v[i].rows;
        cs[ncs++] = T->v[i].c0, cs[ncs++] = T->v[i].c0 + T->v[i].cols;
    }
    qsort(rs, (size_t)nrs, sizeof *rs, cmp_i64);
    qsort(cs, (size_t)ncs, sizeof *cs, cmp_i64);
    int64_t a = 0, b = 0;
    for (int64_t i = 0; i < nrs; i++)
        if (a == 0 || rs[a - 1] != rs[i])
            rs[a++] = rs[i];
    for (int64_t i = 0; i < ncs; i++)
        if (b == 0 || cs[b - 1] != cs[i])
            cs[b++] = cs[i];
    int64_t nrb = a - 1, ncb = b - 1;
    int *own = xalloc((size_t)(nrb * ncb), sizeof(int));
    for (int64_t i = 0; i < T->nr; i++) {
        const trect *x = &T->v[i];
        for (int64_t bi = find_cut(rs, a, x->r0); rs[bi] < x->r0 + x->rows; bi++)
            for (int64_t bj = find_cut(cs, b, x->c0); cs[bj] < x->c0 + x->cols; bj++)
                own[bi * ncb + bj] = x->owner;
    }
    int64_t nblocks = 0;
    size_t esz = dmx_dtype_size(M->dtype);
    for (int64_t t = 0; t < M->nblk; t++) {
        const dmxt_block *k = &M->blk[t];
        nblocks += (find_cut(rs, a, k->row0 + k->rows) - find_cut(rs, a, k->row0)) *
                   (find_cut(cs, b, k->col0 + k->cols) - find_cut(cs, b, k->col0));
    }
    dmx_block *ub = xalloc((size_t)nblocks, sizeof *ub);
    int64_t nb = 0;
    for (int64_t t = 0; t < M->nblk; t++) {
        const dmxt_block *k = &M->blk[t];
        for (int64_t bi = find_cut(rs, a, k->row0); rs[bi] < k->row0 + k->rows; bi++)
            for (int64_t bj = find_cut(cs, b, k->col0); cs[bj] < k->col0 + k->cols; bj++) {
                int64_t dr = rs[bi] - k->row0, dc = cs[bj] - k->col0;
                int64_t pos = k->order == DMX_COL_MAJOR ? dr + dc * k->ld : dr * k->ld + dc;
                ub[nb++] =
                    (dmx_block){bi, bj, (char *)k->data + (size_t)pos * esz, k->ld, k->order};
            }
    }
    dmx_status st =
        dmx_layout_create_custom(M->comm, T->m, T->n, nrb, rs, ncb, cs, own, nb, ub, out);
    free(rs);
    free(cs);
    free(own);
    free(ub);
    return st;
}

/* ---- cases ---------------------------------------------------------------------------------- */

enum { T_GRID = 0, T_BISECT = 1, T_MANY = 2, T_SHIFTED = 3, T_TWICE = 4, T_NKINDS = 3 };

typedef struct case_cfg {
    int64_t m, n; /* A's size */
    dmx_dtype dtype;
    dmx_op op;
    int local_a, local_b; /* which sides are local-only */
    int kind_a, kind_b;   /* tiling kinds of local sides */
    int64_t leaves;       /* rectangles for T_MANY */
    int perm;             /* local layouts live on a reordered communicator */
    char uplo, diag;
    dmx_scalar alpha, beta;
    int a_nan; /* A prefilled with NaN (beta = 0) */
    int twin;  /* also run the globally described twin */
} case_cfg;

typedef struct world {
    dmxt_ctx ctx;
    MPI_Comm perm_comm; /* the same processes in a shuffled order */
    int verbose;
} world;

static int is_broken(int kind)
{
    return kind == T_SHIFTED || kind == T_TWICE;
}

static void make_tiling(tiling *T, dmxt_rng *rng, int kind, int64_t *m, int64_t n, int P,
                        int64_t leaves)
{
    memset(T, 0, sizeof *T);
    switch (kind) {
    case T_GRID: gen_grid(T, rng, *m, n, P); break;
    case T_BISECT: gen_bisect(T, rng, *m, n, P, dmxt_rng_int(rng, 1, 12)); break;
    case T_MANY: gen_bisect(T, rng, *m, n, P, leaves); break;
    case T_SHIFTED: gen_shifted(T, rng, *m, n, P); break;
    default: gen_claimed_twice(T, rng, m, n, P); break;
    }
}

/* Whether any rank found a problem (collective), so every rank takes the same path. */
static int any_bad(dmxt_ctx *ctx, int64_t bad)
{
    int64_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    return total > 0;
}

static const char *uplo_name(char c)
{
    switch (c) {
    case 0: return "0";
    case 'U': return "U";
    case 'u': return "u";
    case 'L': return "L";
    case 'l': return "l";
    case 'G': return "G";
    default: return "?";
    }
}

/* One case. Returns after dmxt_case_end. */
static void run_case(world *w, int64_t idx, case_cfg *cf, dmxt_rng *rng)
{
    dmxt_ctx *ctx = &w->ctx;
    int P = ctx->size;
    char desc[2048], msg[512] = "";
    int64_t bad = 0;
    dmxt_matrix A, B;
    tiling TA, TB;
    dmx_layout *twa = NULL, *twb = NULL;
    dmx_plan *plan = NULL, *plan2 = NULL;
    memset(&TA, 0, sizeof TA);
    memset(&TB, 0, sizeof TB);
    int broken = (cf->local_a && is_broken(cf->kind_a)) || (cf->local_b && is_broken(cf->kind_b));
    int ka = (int)(idx % 7), kb = 8 + (int)(idx % 7);

    /* sizes: a claimed-twice A tiling fixes m; a claimed-twice B tiling fixes B's rows */
    if (cf->local_a)
        make_tiling(&TA, rng, cf->kind_a, &cf->m, cf->n, P, cf->leaves);
    int64_t bm = cf->op == DMX_OP_N ? cf->m : cf->n, bn = cf->op == DMX_OP_N ? cf->n : cf->m;
    if (cf->local_b) {
        int64_t bm0 = bm;
        make_tiling(&TB, rng, cf->kind_b, &bm, bn, P, cf->leaves);
        if (bm !=
            bm0) { /* B's rows changed: A follows (A's tiling, if any, is not claimed-twice) */
            if (cf->op == DMX_OP_N)
                cf->m = bm;
            else
                cf->n = bm;
            if (cf->local_a) {
                tiling_free(&TA);
                make_tiling(&TA, rng, cf->kind_a, &cf->m, cf->n, P, cf->leaves);
            }
        }
    }
    MPI_Comm lcomm = cf->perm ? w->perm_comm : ctx->comm;
    dmx_status sa, sb;
    if (cf->local_a)
        sa = local_matrix(&A, lcomm, cf->dtype, &TA, rng);
    else {
        dmxt_matrix_random(&A, ctx->comm, cf->dtype, cf->m, cf->n, -1, rng);
        sa = dmxt_matrix_create(&A);
    }
    if (cf->local_b)
        sb = local_matrix(&B, lcomm, cf->dtype, &TB, rng);
    else {
        dmxt_matrix_random(&B, ctx->comm, cf->dtype, bm, bn, -1, rng);
        sb = dmxt_matrix_create(&B);
    }
    snprintf(desc, sizeof desc,
             "case %lld: %s op=%s uplo=%s diag=%s alpha=(%g,%g) beta=(%g,%g)%s%s | A: %s | B: %s",
             (long long)idx, dmxt_dtype_name(cf->dtype), dmxt_op_name(cf->op), uplo_name(cf->uplo),
             cf->diag ? (cf->diag == 'U' ? "U" : "N") : "0", cf->alpha.re, cf->alpha.im,
             cf->beta.re, cf->beta.im, cf->a_nan ? " A=NaN" : "",
             cf->perm ? " (local layouts on a reordered communicator)" : "", A.desc, B.desc);
    dmxt_set_current(desc);
    if (w->verbose && ctx->rank == 0) {
        printf("%s\n", desc);
        fflush(stdout);
    }
    bad += dmxt_expect_status(ctx, sa, DMX_SUCCESS, "creating A", msg, sizeof msg);
    bad += dmxt_expect_status(ctx, sb, DMX_SUCCESS, "creating B", msg, sizeof msg);
    if (any_bad(ctx, bad))
        goto done;

    dmx_transform t = {cf->dtype, cf->op,   cf->alpha, cf->beta,
                       B.layout,  A.layout, cf->uplo,  cf->diag};
    dmxt_expect e = {
        cf->dtype, cf->op, cf->alpha, cf->beta, cf->uplo, cf->diag, cf->a_nan ? DMXT_NAN : ka,
        kb,        0,      0,         cf->m,    cf->n,    0,        0};
    dmxt_fill(&A, e.ka);
    dmxt_fill(&B, kb);
    dmx_status st = dmx_plan_create(1, &t, &plan);
    if (broken) {
        bad += dmxt_expect_status(ctx, st, DMX_ERR_LAYOUT, "dmx_plan_create", msg, sizeof msg);
        if (w->verbose && ctx->rank == 0)
            printf("    rank 0: %s\n", dmx_last_error());
        if (plan)
            bad++, snprintf(msg, sizeof msg, "a plan was returned on failure");
        goto done;
    }
    bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_plan_create", msg, sizeof msg);
    if (any_bad(ctx, bad))
        goto done;
    st = dmx_plan_execute(plan);
    bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_plan_execute", msg, sizeof msg);
    if (any_bad(ctx, bad))
        goto done;
    bad += dmxt_check_result(&A, &e, msg, sizeof msg);
    if (!bad)
        bad += dmxt_check_fill(&B, kb, msg, sizeof msg);
    if (any_bad(ctx, bad) || !cf->twin || cf->m == 0 || cf->n == 0)
        goto done;

    /* The same transform described globally, on the same memory. */
    dmx_status s1 = cf->local_a ? twin_layout(&A, &TA, &twa) : DMX_SUCCESS;
    dmx_status s2 = cf->local_b ? twin_layout(&B, &TB, &twb) : DMX_SUCCESS;
    bad += dmxt_expect_status(ctx, s1, DMX_SUCCESS, "twin of A", msg, sizeof msg);
    bad += dmxt_expect_status(ctx, s2, DMX_SUCCESS, "twin of B", msg, sizeof msg);
    if (any_bad(ctx, bad))
        goto done;
    dmx_transform t2 = t;
    if (twa)
        t2.a = twa;
    if (twb)
        t2.b = twb;
    st = dmx_plan_create(1, &t2, &plan2);
    bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_plan_create (twin)", msg, sizeof msg);
    if (any_bad(ctx, bad))
        goto done;
    dmxt_fill(&A, e.ka);
    st = dmx_plan_execute(plan2);
    bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_plan_execute (twin)", msg, sizeof msg);
    if (!bad)
        bad += dmxt_check_result(&A, &e, msg, sizeof msg);
    if (!bad && (cf->uplo == 0 || cf->uplo == 'G')) {
        dmx_plan_info i1, i2;
        dmx_plan_get_info(plan, &i1);
        dmx_plan_get_info(plan2, &i2);
        if (i1.npeers_send != i2.npeers_send || i1.npeers_recv != i2.npeers_recv ||
            i1.send_elems != i2.send_elems || i1.recv_elems != i2.recv_elems ||
            i1.local_elems != i2.local_elems || i1.buffer_bytes != i2.buffer_bytes) {
            bad++;
            snprintf(msg, sizeof msg,
                     "plan statistics differ from the global twin: peers %d/%d vs %d/%d, elems "
                     "%lld/%lld/%lld vs %lld/%lld/%lld, buffer %lld vs %lld",
                     i1.npeers_send, i1.npeers_recv, i2.npeers_send, i2.npeers_recv,
                     (long long)i1.send_elems, (long long)i1.recv_elems, (long long)i1.local_elems,
                     (long long)i2.send_elems, (long long)i2.recv_elems, (long long)i2.local_elems,
                     (long long)i1.buffer_bytes, (long long)i2.buffer_bytes);
        }
    }
done:
    dmxt_case_end(ctx, bad, msg, desc);
    dmx_plan_destroy(&plan);
    dmx_plan_destroy(&plan2);
    dmx_layout_destroy(&twa);
    dmx_layout_destroy(&twb);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    tiling_free(&TA);
    tiling_free(&TB);
}

static void random_scalars(case_cfg *cf, dmxt_rng *rng)
{
    int64_t s = dmxt_rng_int(rng, 0, 5);
    cf->a_nan = 0;
    switch (s) {
    case 0: cf->alpha = (dmx_scalar){1, 0}, cf->beta = (dmx_scalar){0, 0}; break;
    case 1: cf->alpha = (dmx_scalar){2, 0}, cf->beta = (dmx_scalar){-1, 0}; break;
    case 2: cf->alpha = (dmx_scalar){0.5, -1.5}, cf->beta = (dmx_scalar){0.25, 2}; break;
    case 3: cf->alpha = (dmx_scalar){-3, 0.5}, cf->beta = (dmx_scalar){0, 0}, cf->a_nan = 1; break;
    case 4: cf->alpha = (dmx_scalar){1, 0}, cf->beta = (dmx_scalar){0, 0}, cf->a_nan = 1; break;
    default: cf->alpha = (dmx_scalar){0, 0}, cf->beta = (dmx_scalar){1.5, 0}; break;
    }
}

static void random_shape(dmxt_rng *rng, int P, int64_t *m, int64_t *n)
{
    for (int d = 0; d < 2; d++) {
        int64_t x = dmxt_rng_int(rng, 0, 99), v;
        if (x < 4)
            v = 0;
        else if (x < 20)
            v = dmxt_rng_int(rng, 1, P > 1 ? P - 1 : 1); /* smaller than P */
        else if (x < 85)
            v = dmxt_rng_int(rng, 1, 40);
        else
            v = dmxt_rng_int(rng, 41, 130);
        *(d ? n : m) = v;
    }
}

static void random_case(case_cfg *cf, dmxt_rng *rng, int P, int allow_broken)
{
    memset(cf, 0, sizeof *cf);
    random_shape(rng, P, &cf->m, &cf->n);
    cf->dtype = (dmx_dtype)dmxt_rng_int(rng, 0, 3);
    cf->op = (dmx_op)dmxt_rng_int(rng, 0, 2);
    int64_t where = dmxt_rng_int(rng, 0, 2);
    cf->local_a = where != 1;
    cf->local_b = where != 0;
    cf->kind_a = (int)dmxt_rng_int(rng, 0, T_NKINDS - 1);
    cf->kind_b = (int)dmxt_rng_int(rng, 0, T_NKINDS - 1);
    cf->leaves = dmxt_rng_int(rng, 20, 200);
    cf->perm = dmxt_rng_chance(rng, 25);
    static const char uplos[] = {0, 0, 'G', 'U', 'L', 'u', 'l'};
    cf->uplo = uplos[dmxt_rng_int(rng, 0, 6)];
    static const char diags[] = {0, 'N', 'U'};
    cf->diag = diags[dmxt_rng_int(rng, 0, 2)];
    random_scalars(cf, rng);
    cf->twin = dmxt_rng_chance(rng, 40);
    if (allow_broken && P >= 2 && dmxt_rng_chance(rng, 15)) {
        int kind = dmxt_rng_chance(rng, 50) ? T_SHIFTED : T_TWICE;
        if (cf->m < 2)
            cf->m = dmxt_rng_int(rng, 2, 30);
        if (cf->n < 2)
            cf->n = dmxt_rng_int(rng, 2, 30);
        if (cf->local_a && (!cf->local_b || dmxt_rng_chance(rng, 50)))
            cf->kind_a = kind;
        else
            cf->kind_b = kind;
    }
}

static int want_case(int64_t only, int64_t idx)
{
    return only < 0 || only == idx;
}

int main(int argc, char **argv)
{
    world w;
    memset(&w, 0, sizeof w);
    dmxt_init(&w.ctx, &argc, &argv, "test_local");
    dmxt_ctx *ctx = &w.ctx;
    int P = ctx->size;
    w.verbose = (int)dmxt_env_int("DMX_TEST_VERBOSE", 0);
    int64_t ncases = dmxt_cases("DMX_TEST_CASES", 120);
    int64_t only = dmxt_env_int("DMX_TEST_CASE", -1);
    {
        /* the same processes in a shuffled order */
        dmxt_rng r;
        dmxt_rng_seed(&r, ctx->seed, 991);
        int *perm = xalloc((size_t)P, sizeof(int));
        for (int i = 0; i < P; i++)
            perm[i] = i;
        dmxt_rng_shuffle(&r, perm, P);
        if (P > 1 && perm[0] == 0) { /* make sure the order differs */
            perm[0] = perm[1];
            perm[1] = 0;
        }
        MPI_Comm_split(ctx->comm, 0, perm[ctx->rank], &w.perm_comm);
        free(perm);
    }

    int64_t idx = 0;
    /* Fixed cases first: every side, every op, empty and thin matrices, all on one rank,
     * a large fragmented tiling on both sides. */
    for (int where = 0; where < 3; where++) {
        for (int op = 0; op < 3; op++) {
            static const int64_t shapes[][2] = {{0, 0}, {0, 7}, {5, 0}, {1, 1}, {1, 37}, {29, 1}};
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, idx++) {
                dmxt_rng rng;
                dmxt_rng_seed(&rng, ctx->seed, (uint64_t)idx);
                if (!want_case(only, idx))
                    continue;
                case_cfg cf;
                random_case(&cf, &rng, P, 0);
                cf.m = shapes[s][0], cf.n = shapes[s][1];
                cf.op = (dmx_op)op;
                cf.local_a = where != 1, cf.local_b = where != 0;
                cf.twin = 1;
                run_case(&w, idx, &cf, &rng);
            }
        }
    }
    for (int dt = 0; dt < 4; dt++) {
        for (int op = 0; op < 3; op++, idx++) {
            dmxt_rng rng;
            dmxt_rng_seed(&rng, ctx->seed, (uint64_t)idx);
            if (!want_case(only, idx))
                continue;
            case_cfg cf;
            random_case(&cf, &rng, P, 0);
            cf.dtype = (dmx_dtype)dt;
            cf.op = (dmx_op)op;
            cf.m = 17 + dt, cf.n = 23 - op;
            cf.local_a = cf.local_b = 1;
            cf.kind_a = T_BISECT, cf.kind_b = T_GRID;
            cf.uplo = 0;
            cf.twin = 1;
            run_case(&w, idx, &cf, &rng);
        }
    }
    for (int k = 0; k < 2; k++, idx++) { /* large, fragmented, both sides local */
        dmxt_rng rng;
        dmxt_rng_seed(&rng, ctx->seed, (uint64_t)idx);
        if (!want_case(only, idx))
            continue;
        case_cfg cf;
        random_case(&cf, &rng, P, 0);
        cf.m = 300 + 50 * k, cf.n = 280;
        cf.dtype = DMX_DOUBLE;
        cf.op = k ? DMX_OP_T : DMX_OP_N;
        cf.local_a = cf.local_b = 1;
        cf.kind_a = cf.kind_b = T_MANY;
        cf.leaves = 1500;
        cf.uplo = k ? 'L' : 0;
        cf.twin = 1;
        run_case(&w, idx, &cf, &rng);
    }
    if (P >= 2) { /* every broken tiling on every side */
        for (int kind = T_SHIFTED; kind <= T_TWICE; kind++) {
            for (int where = 0; where < 3; where++) {
                for (int rep = 0; rep < 3; rep++, idx++) {
                    dmxt_rng rng;
                    dmxt_rng_seed(&rng, ctx->seed, (uint64_t)idx);
                    if (!want_case(only, idx))
                        continue;
                    case_cfg cf;
                    random_case(&cf, &rng, P, 0);
                    cf.m = dmxt_rng_int(&rng, 2, 40), cf.n = dmxt_rng_int(&rng, 2, 40);
                    cf.local_a = where != 1, cf.local_b = where != 0;
                    if (where == 1 || (where == 2 && rep == 1))
                        cf.kind_b = kind;
                    else
                        cf.kind_a = kind;
                    run_case(&w, idx, &cf, &rng);
                }
            }
        }
    }
    idx = 1000;
    for (int64_t c = 0; c < ncases; c++, idx++) {
        dmxt_rng rng;
        dmxt_rng_seed(&rng, ctx->seed, (uint64_t)idx);
        if (!want_case(only, idx))
            continue;
        case_cfg cf;
        random_case(&cf, &rng, P, 1);
        run_case(&w, idx, &cf, &rng);
    }
    MPI_Comm_free(&w.perm_comm);
    return dmxt_finish(ctx);
}
