/* SPDX-License-Identifier: BSD-3-Clause */
/* A randomized check of dmx transforms that anyone can run longer (issue 14, item 7).
 *
 * Every case is drawn from (seed, case number) alone, identically on every rank, so any case can
 * be rerun by itself. A case:
 *  - picks the processes: all of MPI_COMM_WORLD or a random subset, in the world's order or a
 *    random one (MPI_Comm_split with a random key); the sources may live on a second
 *    communicator over the same processes in yet another order; the ranks outside either sit
 *    the case out or, in half of those cases, run a second batch of their own at the same time;
 *  - builds a batch of 1 to 4 transforms A = alpha*op(B) + beta*A, each with its own dtype, op,
 *    scalars (0, 1, -1 and random ones, complex for complex types), optional uplo/diag trapezoid,
 *    and its own A and B: block-cyclic (random grid, rsrc/csrc, 'R'/'C' order, ranks beyond the
 *    grid own nothing), mapped block-cyclic, custom (irregular splits, row- and column-major
 *    blocks, padded ld, ranks owning nothing) or local-only (random tiling); A and B may be views
 *    (windows of larger parents; not of local-only layouts);
 *  - fills A with matrix id ka and B with id kb of the harness's closed-form formula (NaN in A
 *    when beta = 0, in B when alpha = 0, which must then never be read), surrounds every local
 *    allocation with canaries (FZ_CANARY elements before and after), plans, executes (twice when
 *    the batch is idempotent, all beta = 0), and checks every element of every A against the
 *    harness's serial reference (dmxt_reference: a formula per element, no use of the library's
 *    planner), every element of every B unchanged, all padding and every canary untouched.
 *
 * Usage: fuzz [cases [seed [first]]]; DMX_FUZZ_CASES, DMX_FUZZ_SEED, DMX_FUZZ_FIRST override. A
 * failing case is printed with its seed and number: `fuzz 1 <seed> <case>` reruns it alone.
 * DMX_FUZZ_MAXN (default 40) bounds the matrix sides. The harness's watchdog
 * (DMX_TEST_TIMEOUT seconds, default 300) is rearmed at every case, so it bounds one case, not
 * the run. See docs/fuzz.md.
 */
#include "dmxtest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FZ_MAXTR 4
#define FZ_CANARY 8 /* elements before and after each allocation */
static const unsigned char CANARY_BYTE = 0x5C;

/* ---- canaries ---------------------------------------------------------------------------------
 * The harness allocates each local array with malloc; we move every one into a larger allocation
 * with FZ_CANARY elements of CANARY_BYTE on each side and repoint the matrix's blocks. Before the
 * harness frees the matrix the true allocations are handed back. */
typedef struct guard {
    int n;
    char **base; /* the true allocation of each array */
    size_t *bytes;
    size_t pad; /* canary bytes on each side */
} guard;

static void guard_add(dmxt_matrix *M, guard *g)
{
    size_t esz = dmx_dtype_size(M->dtype);
    g->n = M->nalloc;
    g->pad = FZ_CANARY * esz;
    g->base = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof *g->base);
    g->bytes = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof *g->bytes);
    if (g->base == NULL || g->bytes == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int a = 0; a < g->n; a++) {
        char *old = M->allocs[a];
        if (old == NULL)
            continue;
        size_t bytes = (size_t)M->alloc_elems[a] * esz;
        char *b = malloc(bytes + 2 * g->pad);
        if (b == NULL) {
            fprintf(stderr, "fuzz: out of memory\n");
            dmxt_flush_before_abort();
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        memset(b, CANARY_BYTE, g->pad);
        memcpy(b + g->pad, old, bytes);
        memset(b + g->pad + bytes, CANARY_BYTE, g->pad);
        for (int64_t k = 0; k < M->nblk; k++) {
            char *d = M->blk[k].data;
            if (d != NULL && d >= old && d < old + bytes)
                M->blk[k].data = b + g->pad + (d - old);
        }
        M->allocs[a] = b + g->pad;
        free(old);
        g->base[a] = b;
        g->bytes[a] = bytes;
    }
}

/* Number of touched canary bytes; the first is described in msg. */
static int64_t guard_check(const guard *g, const char *what, char *msg, size_t len, int64_t bad)
{
    int64_t here = 0;
    for (int a = 0; a < g->n; a++) {
        if (g->base[a] == NULL)
            continue;
        const unsigned char *b = (const unsigned char *)g->base[a];
        for (size_t q = 0; q < 2 * g->pad; q++) {
            size_t at = q < g->pad ? q : g->pad + g->bytes[a] + (q - g->pad);
            if (b[at] != CANARY_BYTE && bad + here++ == 0)
                snprintf(msg, len, "%s: canary %s allocation %d (byte %zd) overwritten", what,
                         q < g->pad ? "before" : "after", a,
                         q < g->pad ? (ssize_t)q - (ssize_t)g->pad : (ssize_t)(q - g->pad));
        }
    }
    return here;
}

static void guard_release(dmxt_matrix *M, guard *g)
{
    for (int a = 0; a < g->n; a++)
        if (g->base[a] != NULL)
            M->allocs[a] = g->base[a];
    free(g->base);
    free(g->bytes);
    memset(g, 0, sizeof *g);
}

/* ---- a case ---------------------------------------------------------------------------------- */
typedef struct side {
    int kind;               /* DMXT_BC, DMXT_MAPPED, DMXT_CUSTOM, DMXT_LOCAL */
    int64_t pm, pn, i0, j0; /* parent size, window origin */
    int view;
} side;

typedef struct fz_tr {
    dmxt_expect e;
    side a, b;
    dmxt_matrix A, B;
    guard ga, gb;
    dmx_layout *av, *bv; /* views (NULL: the parent's layout is used) */
} fz_tr;

static const char *kind_name(int k)
{
    static const char *const n[] = {"bc", "mapped", "custom", "local"};
    return n[k];
}

static dmx_scalar draw_scalar(dmxt_rng *g, int cplx, int allow_zero)
{
    dmx_scalar s = {0.0, 0.0};
    int64_t k = dmxt_rng_int(g, 0, 6);
    if (k == 0 && allow_zero)
        return s;
    if (k <= 1)
        s.re = 1.0;
    else if (k == 2)
        s.re = -1.0;
    else if (k == 3)
        s.re = 0.5;
    else {
        s.re = (double)dmxt_rng_int(g, -8, 8) / 4.0 + 0.125;
        if (cplx && dmxt_rng_chance(g, 70))
            s.im = (double)dmxt_rng_int(g, -8, 8) / 4.0 - 0.375;
    }
    return s;
}

static void draw_side(dmxt_rng *g, int64_t m, int64_t n, side *s)
{
    int64_t k = dmxt_rng_int(g, 0, 99);
    s->kind = k < 35 ? DMXT_BC : k < 55 ? DMXT_MAPPED : k < 85 ? DMXT_CUSTOM : DMXT_LOCAL;
    s->view = s->kind != DMXT_LOCAL && dmxt_rng_chance(g, 40);
    s->pm = m;
    s->pn = n;
    s->i0 = s->j0 = 0;
    if (s->view) {
        s->pm = m + dmxt_rng_int(g, 0, 6);
        s->pn = n + dmxt_rng_int(g, 0, 6);
        s->i0 = dmxt_rng_int(g, 0, s->pm - m);
        s->j0 = dmxt_rng_int(g, 0, s->pn - n);
    }
}

/* Draw the transforms of case number ncase (identical on every rank). */
static int draw_case(dmxt_rng *g, int64_t maxn, fz_tr *tr)
{
    int ntr = dmxt_rng_chance(g, 60) ? 1 : (int)dmxt_rng_int(g, 2, FZ_MAXTR);
    for (int t = 0; t < ntr; t++) {
        fz_tr *x = &tr[t];
        memset(x, 0, sizeof *x);
        dmxt_expect *e = &x->e;
        e->dtype = (dmx_dtype)dmxt_rng_int(g, 0, 3);
        e->op = (dmx_op)dmxt_rng_int(g, 0, 2);
        int cplx = e->dtype == DMX_CFLOAT || e->dtype == DMX_CDOUBLE;
        int64_t cap = dmxt_rng_chance(g, 15) ? maxn : (maxn < 12 ? maxn : 12);
        e->am = dmxt_rng_int(g, 1, cap);
        e->an = dmxt_rng_chance(g, 20) ? e->am : dmxt_rng_int(g, 1, cap);
        e->alpha = draw_scalar(g, cplx, 1);
        e->beta = draw_scalar(g, cplx, 1);
        if (dmxt_rng_chance(g, 30)) {
            static const char up[] = {'U', 'L'};
            static const char dg[] = {0, 'N', 'U'};
            e->uplo = up[dmxt_rng_int(g, 0, 1)];
            e->diag = dg[dmxt_rng_int(g, 0, 2)];
        }
        int a0 = e->beta.re == 0.0 && e->beta.im == 0.0;
        int b0 = e->alpha.re == 0.0 && e->alpha.im == 0.0;
        e->ka = a0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, DMXT_MAX_ID);
        e->kb = b0 && dmxt_rng_chance(g, 50) ? DMXT_NAN : (int)dmxt_rng_int(g, 0, DMXT_MAX_ID);
        draw_side(g, e->am, e->an, &x->a);
        if (e->op == DMX_OP_N)
            draw_side(g, e->am, e->an, &x->b);
        else
            draw_side(g, e->an, e->am, &x->b);
        e->ai0 = x->a.i0;
        e->aj0 = x->a.j0;
        e->bi0 = x->b.i0;
        e->bj0 = x->b.j0;
    }
    return ntr;
}

static void describe(char *buf, size_t len, int64_t ncase, int nsub, int reorder, int bcomm,
                     int ntr, const fz_tr *tr)
{
    buf[0] = '\0';
    dmxt_append(buf, len, "case %lld: %d ranks%s%s, %d transform(s):", (long long)ncase, nsub,
                reorder ? " reordered" : "", bcomm ? ", B on another order" : "", ntr);
    for (int t = 0; t < ntr; t++) {
        const dmxt_expect *e = &tr[t].e;
        const side *a = &tr[t].a, *b = &tr[t].b;
        dmxt_append(buf, len,
                    " [%s op=%s %lldx%lld alpha=(%g,%g) beta=(%g,%g) uplo=%c diag=%c ka=%d kb=%d"
                    " A=%s %lldx%lld@(%lld,%lld) B=%s %lldx%lld@(%lld,%lld)]",
                    dmxt_dtype_name(e->dtype), dmxt_op_name(e->op), (long long)e->am,
                    (long long)e->an, e->alpha.re, e->alpha.im, e->beta.re, e->beta.im,
                    e->uplo ? e->uplo : '-', e->diag ? e->diag : '-', e->ka, e->kb,
                    kind_name(a->kind), (long long)a->pm, (long long)a->pn, (long long)a->i0,
                    (long long)a->j0, kind_name(b->kind), (long long)b->pm, (long long)b->pn,
                    (long long)b->i0, (long long)b->j0);
    }
}

/* Create one side's matrix: its memory with canaries, the fill, the layout. Collective on comm. */
static dmx_status make_side(MPI_Comm comm, dmx_dtype dtype, const side *s, int id, dmxt_rng *g,
                            dmxt_matrix *M, guard *gd)
{
    dmxt_matrix_random(M, comm, dtype, s->pm, s->pn, s->kind, g);
    dmxt_matrix_alloc(M);
    guard_add(M, gd);
    dmxt_fill(M, id);
    return dmxt_matrix_create(M);
}

static int64_t run_case(dmxt_ctx *ctx, uint64_t seed, int64_t ncase, int64_t maxn, char *msg,
                        size_t len, char *desc, size_t dlen)
{
    dmxt_rng g;
    dmxt_rng_seed(&g, seed, (uint64_t)ncase * 2 + 1);
    const int P = ctx->size;

    /* processes: a subset in some order; B maybe on the same processes in another order */
    int *perm = malloc(sizeof(int) * (size_t)P), *perm2 = malloc(sizeof(int) * (size_t)P);
    if (perm == NULL || perm2 == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int r = 0; r < P; r++)
        perm[r] = perm2[r] = r;
    int nsub = dmxt_rng_chance(&g, 35) ? (int)dmxt_rng_int(&g, 1, P) : P;
    int reorder = dmxt_rng_chance(&g, 50);
    if (nsub < P || reorder)
        dmxt_rng_shuffle(&g, perm, P); /* perm[0..nsub) are the members, in this order */
    else
        reorder = 0;
    int bcomm = dmxt_rng_chance(&g, 20);
    dmxt_rng_shuffle(&g, perm2, P);
    /* the other ranks may run a second, independent batch at the same time (two groups of the
     * world exchanging concurrently) */
    int conc = nsub < P && dmxt_rng_chance(&g, 50);
    fz_tr tr2[2][FZ_MAXTR];
    int ntr2[2] = {0, 0};
    ntr2[0] = draw_case(&g, maxn, tr2[0]);
    describe(desc, dlen, ncase, nsub, reorder, bcomm, ntr2[0], tr2[0]);
    if (conc) {
        ntr2[1] = draw_case(&g, maxn, tr2[1]);
        char more[2048];
        describe(more, sizeof more, ncase, P - nsub, 0, bcomm, ntr2[1], tr2[1]);
        dmxt_append(desc, dlen, " || at the same time on the other ranks: %s", more);
    }
    dmxt_set_current(desc);

    int at = 0, pos2 = 0;
    for (int k = 0; k < P; k++) {
        if (perm[k] == ctx->rank)
            at = k;
        if (perm2[k] == ctx->rank)
            pos2 = k; /* B's order: the group sorted by perm2 */
    }
    const int grp = at < nsub ? 0 : conc ? 1 : -1;
    const int pos = grp == 0 ? at : at - nsub;
    MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
    MPI_Comm_split(ctx->comm, grp >= 0 ? grp : MPI_UNDEFINED, pos, &ca);
    if (bcomm)
        MPI_Comm_split(ctx->comm, grp >= 0 ? grp : MPI_UNDEFINED, pos2, &cb);
    free(perm);
    free(perm2);
    if (grp < 0)
        return 0;
    if (!bcomm)
        cb = ca;
    fz_tr *tr = tr2[grp];
    const int ntr = ntr2[grp];

    int64_t bad = 0;
    dmx_status st = DMX_SUCCESS;
    dmx_transform t[FZ_MAXTR];
    dmxt_rng gm; /* the layouts' own draws (members only) */
    dmxt_rng_seed(&gm, seed + (uint64_t)grp * UINT64_C(0x9E3779B97F4A7C15),
                  (uint64_t)ncase * 2 + 2);
    for (int k = 0; k < ntr && st == DMX_SUCCESS; k++) {
        fz_tr *x = &tr[k];
        st = make_side(ca, x->e.dtype, &x->a, x->e.ka, &gm, &x->A, &x->ga);
        if (st == DMX_SUCCESS)
            st = make_side(cb, x->e.dtype, &x->b, x->e.kb, &gm, &x->B, &x->gb);
        if (st == DMX_SUCCESS && x->a.view)
            st = dmx_layout_create_view(x->A.layout, x->a.i0, x->a.j0, x->e.am, x->e.an, &x->av);
        if (st == DMX_SUCCESS && x->b.view) {
            int64_t bm = x->e.op == DMX_OP_N ? x->e.am : x->e.an;
            int64_t bn = x->e.op == DMX_OP_N ? x->e.an : x->e.am;
            st = dmx_layout_create_view(x->B.layout, x->b.i0, x->b.j0, bm, bn, &x->bv);
        }
        memset(&t[k], 0, sizeof t[k]);
        t[k].dtype = x->e.dtype;
        t[k].op = x->e.op;
        t[k].alpha = x->e.alpha;
        t[k].beta = x->e.beta;
        t[k].a = x->av != NULL ? x->av : x->A.layout;
        t[k].b = x->bv != NULL ? x->bv : x->B.layout;
        t[k].uplo = x->e.uplo;
        t[k].diag = x->e.diag;
    }
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, len, "layout creation: %s (%s)", dmx_status_string(st), dmx_last_error());
    }

    if (st == DMX_SUCCESS) {
        dmx_plan *plan = NULL;
        st = dmx_plan_create(ntr, t, &plan);
        int idem = 1;
        for (int k = 0; k < ntr; k++)
            idem &= tr[k].e.beta.re == 0.0 && tr[k].e.beta.im == 0.0;
        for (int rep = 0; rep < (idem ? 2 : 1) && st == DMX_SUCCESS; rep++)
            st = dmx_plan_execute(plan);
        if (st != DMX_SUCCESS) {
            bad++;
            snprintf(msg, len, "plan: %s (%s)", dmx_status_string(st), dmx_last_error());
        }
        dmx_status sd = dmx_plan_destroy(&plan);
        if (sd != DMX_SUCCESS && bad++ == 0)
            snprintf(msg, len, "dmx_plan_destroy: %s", dmx_status_string(sd));
        for (int k = 0; k < ntr && st == DMX_SUCCESS; k++) {
            fz_tr *x = &tr[k];
            char m2[400];
            int64_t nb = dmxt_check_result(&x->A, &x->e, m2, sizeof m2);
            if (nb > 0 && bad == 0)
                snprintf(msg, len, "transform %d: %s", k, m2);
            bad += nb;
            nb = dmxt_check_fill(&x->B, x->e.kb, m2, sizeof m2);
            if (nb > 0 && bad == 0)
                snprintf(msg, len, "transform %d: B modified: %s", k, m2);
            bad += nb;
            bad += guard_check(&x->ga, "A", msg, len, bad);
            bad += guard_check(&x->gb, "B", msg, len, bad);
        }
    }
    for (int k = 0; k < ntr; k++) {
        fz_tr *x = &tr[k];
        dmx_layout_destroy(&x->av);
        dmx_layout_destroy(&x->bv);
        if (x->ga.base != NULL)
            guard_release(&x->A, &x->ga);
        if (x->gb.base != NULL)
            guard_release(&x->B, &x->gb);
        dmxt_matrix_free(&x->A);
        dmxt_matrix_free(&x->B);
    }
    MPI_Comm_free(&ca);
    if (bcomm)
        MPI_Comm_free(&cb);
    return bad;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "fuzz");
    /* argv gives the counts a test was registered with; the environment overrides them, so
     * that a whole ctest run can be made longer or shorter (test.sh's MPICH pass) */
    int64_t ncases = argc > 1 ? strtoll(argv[1], NULL, 0) : 200;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : ctx.seed;
    int64_t first = argc > 3 ? strtoll(argv[3], NULL, 0) : 0;
    ncases = dmxt_cases("DMX_FUZZ_CASES", ncases);
    seed = (uint64_t)dmxt_env_int("DMX_FUZZ_SEED", (int64_t)seed);
    first = dmxt_env_int("DMX_FUZZ_FIRST", first);
    int64_t maxn = dmxt_env_int("DMX_FUZZ_MAXN", 40);
    if (maxn < 1 || maxn > 200)
        maxn = 40;
    ctx.seed = seed;
    int64_t timeout = dmxt_env_int("DMX_TEST_TIMEOUT", 300);
    if (ctx.rank == 0)
        printf("fuzz: %lld cases from %lld, seed %llu, %d ranks, sides up to %lld\n",
               (long long)ncases, (long long)first, (unsigned long long)seed, ctx.size,
               (long long)maxn);
    char msg[600], desc[4096];
    for (int64_t c = first; c < first + ncases; c++) {
        if (timeout > 0)
            alarm((unsigned)timeout); /* the watchdog bounds each case */
        msg[0] = '\0';
        int64_t bad = run_case(&ctx, seed, c, maxn, msg, sizeof msg, desc, sizeof desc);
        dmxt_case_end(&ctx, bad, msg, desc);
    }
    return dmxt_finish(&ctx);
}
