/* SPDX-License-Identifier: BSD-3-Clause */
/* A randomized check of the one-sided module (issue 30, item 6), the same idea as fuzz.c.
 *
 * Every case is drawn from (seed, case number) alone, identically on every rank, so every rank
 * knows every operation of the case and keeps a serial model of every heap. A case:
 *  - heap: dmx_rma_alloc or dmx_rma_attach over malloc'ed memory (where MPI opens such windows),
 *    a dtype (float, double, complex float, complex double), H elements per rank, each element
 *    preset to a formula of (rank, index);
 *  - puts and accumulates (blocking or _nbi + dmx_rma_quiet), each from a random rank to a random
 *    target, blockelems and blockcount from 1 to large, destination stride >= blockelems, source
 *    stride anything (overlapping sources included); no put's destination overlaps another
 *    operation's (accumulates may overlap each other: they sum);
 *  - dmx_rma_barrier, then every rank checks its whole heap against the model, then random
 *    strided gets (blocking or _nbi) from random ranks checked against the model;
 *  - patches: a random harness layout (block-cyclic, mapped, custom, local-only) holding matrix
 *    id k, random submatrix gets (op N, T, C) checked against the formula, disjoint random puts
 *    and accumulates (any op), dmx_patch_barrier, every local element checked against the model.
 *
 * Usage: fuzz_rma [cases [seed [first]]]; DMX_FUZZ_CASES, DMX_FUZZ_SEED, DMX_FUZZ_FIRST
 * override. `fuzz_rma 1 <seed> <case>` reruns one case.
 */
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RZ_MAXOPS 16

typedef struct rop {
    int from, to, acc, nbi;
    int64_t dst, src_off, dst_stride, src_stride, be, bc;
} rop;

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n > 0 ? n : 1, sz);
    if (p == NULL) {
        fprintf(stderr, "fuzz_rma: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static double init_val(int rank, int64_t i)
{
    return (double)rank * 4096.0 + (double)i + 1.0;
}
static double src_val(int op, int64_t s)
{
    return (double)(op + 1) * 1000.0 + (double)s + 0.5;
}

/* Draw one operation; 0 if no free destination was found. occ: per target and element, 0 free,
 * 1 put, 2 accumulated. */
static int draw_op(dmxt_rng *g, int P, int64_t H, char *occ, rop *o)
{
    for (int tries = 0; tries < 20; tries++) {
        o->from = (int)dmxt_rng_int(g, 0, P - 1);
        o->to = (int)dmxt_rng_int(g, 0, P - 1);
        o->acc = dmxt_rng_chance(g, 40);
        o->nbi = dmxt_rng_chance(g, 50);
        int64_t k = dmxt_rng_int(g, 0, 3);
        o->be = k == 0 ? 1 : k == 1 ? dmxt_rng_int(g, 1, 4) : dmxt_rng_int(g, 1, H / 4 + 1);
        k = dmxt_rng_int(g, 0, 3);
        o->bc = k == 0 ? 1 : k == 1 ? dmxt_rng_int(g, 1, 4) : dmxt_rng_int(g, 1, H / 8 + 1);
        o->dst_stride = o->bc > 1 ? o->be + dmxt_rng_int(g, 0, 3) : 0;
        o->src_stride = o->bc > 1 ? dmxt_rng_int(g, 0, o->be + 2) : 0;
        int64_t span = (o->bc - 1) * o->dst_stride + o->be;
        if (span > H)
            continue;
        o->dst = dmxt_rng_int(g, 0, H - span);
        o->src_off = dmxt_rng_int(g, 0, 3);
        int ok = 1;
        char *t = occ + (int64_t)o->to * H;
        for (int64_t b = 0; b < o->bc && ok; b++)
            for (int64_t e = 0; e < o->be && ok; e++) {
                char c = t[o->dst + b * o->dst_stride + e];
                ok = c == 0 || (o->acc && c == 2);
            }
        if (!ok)
            continue;
        for (int64_t b = 0; b < o->bc; b++)
            for (int64_t e = 0; e < o->be; e++)
                t[o->dst + b * o->dst_stride + e] = (char)(o->acc ? 2 : 1);
        return 1;
    }
    return 0;
}

static int64_t src_elems(const rop *o)
{
    return o->src_off + (o->bc - 1) * o->src_stride + o->be;
}

static int64_t rma_case(dmxt_ctx *ctx, dmxt_rng *g, char *msg, size_t len, char *desc, size_t dlen)
{
    const int P = ctx->size, me = ctx->rank;
    dmx_dtype dt = (dmx_dtype)dmxt_rng_int(g, 0, 3);
    int cplx = dt == DMX_CFLOAT || dt == DMX_CDOUBLE;
    size_t esz = dmx_dtype_size(dt);
    int64_t H = dmxt_rng_chance(g, 20) ? dmxt_rng_int(g, 1, 8) : dmxt_rng_int(g, 16, 2048);
    int attach = dmxt_rng_chance(g, 30);
    int nops = (int)dmxt_rng_int(g, 0, RZ_MAXOPS);
    char *occ = xcalloc((size_t)(P * H), 1);
    rop ops[RZ_MAXOPS];
    int n = 0;
    for (int k = 0; k < nops; k++)
        n += draw_op(g, P, H, occ, &ops[n]);
    free(occ);
    dmxt_append(desc, dlen, " rma: %s H=%lld %s, %d ops", dmxt_dtype_name(dt), (long long)H,
                attach ? "attach" : "alloc", n);
    for (int k = 0; k < n; k++)
        dmxt_append(desc, dlen, " [%d->%d %s%s dst=%lld ds=%lld ss=%lld be=%lld bc=%lld]",
                    ops[k].from, ops[k].to, ops[k].acc ? "acc" : "put", ops[k].nbi ? "_nbi" : "",
                    (long long)ops[k].dst, (long long)ops[k].dst_stride,
                    (long long)ops[k].src_stride, (long long)ops[k].be, (long long)ops[k].bc);
    dmxt_set_current(desc);

    /* the model of every heap */
    double *mre = xcalloc((size_t)(P * H), sizeof(double)), *mim = xcalloc((size_t)(P * H), 8);
    for (int r = 0; r < P; r++)
        for (int64_t i = 0; i < H; i++) {
            mre[r * H + i] = init_val(r, i);
            mim[r * H + i] = cplx ? -init_val(r, i) - 0.25 : 0.0;
        }
    for (int k = 0; k < n; k++)
        for (int64_t b = 0; b < ops[k].bc; b++)
            for (int64_t e = 0; e < ops[k].be; e++) {
                int64_t d = ops[k].to * H + ops[k].dst + b * ops[k].dst_stride + e;
                double v = src_val(k, ops[k].src_off + b * ops[k].src_stride + e);
                double w = cplx ? -v : 0.0;
                mre[d] = ops[k].acc ? mre[d] + v : v;
                mim[d] = ops[k].acc ? mim[d] + w : w;
            }

    int64_t bad = 0;
    dmx_rma_heap *heap = NULL;
    void *mem = NULL;
    dmx_status st;
    if (attach && !dmxt_mpi_user_windows(ctx->comm))
        attach = 0;
    if (attach) {
        mem = xcalloc((size_t)H, esz);
        st = dmx_rma_attach(ctx->comm, mem, H * (int64_t)esz, &heap);
    } else
        st = dmx_rma_alloc(ctx->comm, H * (int64_t)esz, &heap);
    if (st != DMX_SUCCESS) {
        snprintf(msg, len, "heap: %s (%s)", dmx_status_string(st), dmx_last_error());
        free(mem);
        free(mre);
        free(mim);
        return 1;
    }
    char *base = dmxt_heap_base(heap);
    for (int64_t i = 0; i < H; i++)
        dmxt_set(dt, base, i, init_val(me, i), cplx ? -init_val(me, i) - 0.25 : 0.0);
    st = dmx_rma_barrier(heap);
    void *bufs[RZ_MAXOPS] = {NULL};
    for (int k = 0; k < n && st == DMX_SUCCESS; k++) {
        const rop *o = &ops[k];
        if (o->from != me)
            continue;
        int64_t ns = src_elems(o);
        bufs[k] = xcalloc((size_t)ns, esz);
        for (int64_t s = 0; s < ns; s++)
            dmxt_set(dt, bufs[k], s, src_val(k, s), cplx ? -src_val(k, s) : 0.0);
        void *dst = base + o->dst * (int64_t)esz;
        const void *src = (char *)bufs[k] + o->src_off * (int64_t)esz;
        if (o->acc)
            st = (o->nbi ? dmx_aacc_nbi : dmx_aacc)(heap, dt, dst, src, o->dst_stride,
                                                    o->src_stride, o->be, o->bc, o->to);
        else
            st = (o->nbi ? dmx_aput_nbi : dmx_aput)(heap, dt, dst, src, o->dst_stride,
                                                    o->src_stride, o->be, o->bc, o->to);
    }
    if (st == DMX_SUCCESS)
        st = dmx_rma_quiet(heap);
    for (int k = 0; k < n; k++)
        free(bufs[k]);
    dmx_status sb = dmx_rma_barrier(heap);
    if (st == DMX_SUCCESS)
        st = sb;
    if (st != DMX_SUCCESS) {
        bad++;
        snprintf(msg, len, "transfers: %s (%s)", dmx_status_string(st), dmx_last_error());
    }
    for (int64_t i = 0; i < H && st == DMX_SUCCESS; i++) {
        double re, im;
        dmxt_get(dt, base, i, &re, &im);
        if (!cplx)
            im = 0.0;
        if ((re != mre[me * H + i] || im != mim[me * H + i]) && bad++ == 0)
            snprintf(msg, len, "heap of rank %d element %lld = (%g,%g), model (%g,%g)", me,
                     (long long)i, re, im, mre[me * H + i], mim[me * H + i]);
    }
    /* random strided gets, each rank its own (drawn from the shared stream: identical on all) */
    for (int q = 0; q < 4; q++) { /* every draw on every rank, whatever st */
        int from = (int)dmxt_rng_int(g, 0, P - 1);
        int pe = (int)dmxt_rng_int(g, 0, P - 1);
        int nbi = dmxt_rng_chance(g, 50);
        int64_t be = dmxt_rng_int(g, 1, H), bc = 1, ss = 0;
        if (dmxt_rng_chance(g, 60)) {
            be = dmxt_rng_int(g, 1, (H + 3) / 4);
            ss = dmxt_rng_int(g, 0, be + 3);
            bc = ss == 0 ? dmxt_rng_int(g, 1, 4) : dmxt_rng_int(g, 1, (H - be) / ss + 1);
        }
        int64_t off = dmxt_rng_int(g, 0, H - ((bc - 1) * ss + be));
        int64_t ds = bc > 1 ? be + dmxt_rng_int(g, 0, 2) : 0;
        if (from != me || st != DMX_SUCCESS)
            continue;
        int64_t nd = (bc - 1) * ds + be;
        void *buf = xcalloc((size_t)nd, esz);
        st = (nbi ? dmx_aget_nbi : dmx_aget)(heap, dt, buf, base + off * (int64_t)esz, ds, ss, be,
                                             bc, pe);
        if (st == DMX_SUCCESS && nbi)
            st = dmx_rma_quiet(heap);
        for (int64_t b = 0; b < bc && st == DMX_SUCCESS; b++)
            for (int64_t e = 0; e < be; e++) {
                double re, im;
                int64_t m = pe * H + off + b * ss + e;
                dmxt_get(dt, buf, b * ds + e, &re, &im);
                if (!cplx)
                    im = 0.0;
                if ((re != mre[m] || im != mim[m]) && bad++ == 0)
                    snprintf(msg, len,
                             "get %d from %d off=%lld ss=%lld ds=%lld be=%lld bc=%lld: block %lld "
                             "elem %lld = (%g,%g), model (%g,%g)",
                             q, pe, (long long)off, (long long)ss, (long long)ds, (long long)be,
                             (long long)bc, (long long)b, (long long)e, re, im, mre[m], mim[m]);
            }
        if (st != DMX_SUCCESS && bad++ == 0)
            snprintf(msg, len, "get: %s (%s)", dmx_status_string(st), dmx_last_error());
        free(buf);
    }
    sb = dmx_rma_free(&heap);
    if (sb != DMX_SUCCESS && bad++ == 0)
        snprintf(msg, len, "dmx_rma_free: %s", dmx_status_string(sb));
    free(mem);
    free(mre);
    free(mim);
    return bad;
}

typedef struct rect {
    int from, kind; /* kind 0 put, 1 acc */
    dmx_op op;
    int64_t i0, j0, m, n;
} rect;

/* The patch part: gets, then disjoint puts and accumulates, then a check of every element. */
static int64_t patch_case(dmxt_ctx *ctx, dmxt_rng *g, uint64_t seed, int64_t ncase, char *msg,
                          size_t len, char *desc, size_t dlen)
{
    const int P = ctx->size, me = ctx->rank;
    dmx_dtype dt = (dmx_dtype)dmxt_rng_int(g, 0, 3);
    int cplx = dt == DMX_CFLOAT || dt == DMX_CDOUBLE;
    int64_t M = dmxt_rng_int(g, 1, 24), N = dmxt_rng_int(g, 1, 24);
    int kind = (int)dmxt_rng_int(g, 0, DMXT_NKINDS - 1);
    int id = (int)dmxt_rng_int(g, 0, 7), idp = (int)dmxt_rng_int(g, 0, 7);
    int ida = (int)dmxt_rng_int(g, 0, 7);
    rect r[8];
    int nr = 0;
    char *occ = xcalloc((size_t)(M * N), 1);
    for (int t = 0; t < 8; t++) {
        rect *x = &r[nr];
        x->from = (int)dmxt_rng_int(g, 0, P - 1);
        x->kind = (int)dmxt_rng_int(g, 0, 1);
        x->op = (dmx_op)dmxt_rng_int(g, 0, 2);
        x->m = dmxt_rng_int(g, 1, M);
        x->n = dmxt_rng_int(g, 1, N);
        x->i0 = dmxt_rng_int(g, 0, M - x->m);
        x->j0 = dmxt_rng_int(g, 0, N - x->n);
        int ok = 1;
        for (int64_t j = 0; j < x->n && ok; j++)
            for (int64_t i = 0; i < x->m && ok; i++)
                ok = occ[(x->i0 + i) + (x->j0 + j) * M] == 0;
        if (!ok)
            continue;
        for (int64_t j = 0; j < x->n; j++)
            for (int64_t i = 0; i < x->m; i++)
                occ[(x->i0 + i) + (x->j0 + j) * M] = (char)(1 + x->kind);
        nr++;
    }
    free(occ);
    dmxt_append(desc, dlen, " | patch: %s %lldx%lld kind=%d id=%d, %d writes", dmxt_dtype_name(dt),
                (long long)M, (long long)N, kind, id, nr);
    for (int t = 0; t < nr; t++)
        dmxt_append(desc, dlen, " [%d %s op=%s %lldx%lld@(%lld,%lld)]", r[t].from,
                    r[t].kind ? "acc" : "put", dmxt_op_name(r[t].op), (long long)r[t].m,
                    (long long)r[t].n, (long long)r[t].i0, (long long)r[t].j0);
    dmxt_set_current(desc);
    dmxt_rng gm;
    dmxt_rng_seed(&gm, seed ^ UINT64_C(0xA5A5A5A5), (uint64_t)ncase * 2 + 2);
    dmxt_matrix A;
    dmxt_matrix_random(&A, ctx->comm, dt, M, N, kind, &gm);
    int64_t bad = 0;
    dmx_patch *win = NULL;
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS) {
        dmxt_fill(&A, id);
        st = dmx_patch_open(A.layout, dt, &win);
    }
    /* gets */
    for (int q = 0; q < 3; q++) { /* every draw on every rank, whatever st */
        int from = (int)dmxt_rng_int(g, 0, P - 1);
        dmx_op op = (dmx_op)dmxt_rng_int(g, 0, 2);
        int64_t m = dmxt_rng_int(g, 1, M), n = dmxt_rng_int(g, 1, N);
        int64_t i0 = dmxt_rng_int(g, 0, M - m), j0 = dmxt_rng_int(g, 0, N - n);
        int64_t ld = (op == DMX_OP_N ? m : n) + dmxt_rng_int(g, 0, 3);
        if (from != me || st != DMX_SUCCESS)
            continue;
        void *buf = xcalloc((size_t)(ld * (op == DMX_OP_N ? n : m)), dmx_dtype_size(dt));
        st = dmx_patch_get(win, i0, j0, m, n, buf, ld, op);
        for (int64_t j = 0; j < n && st == DMX_SUCCESS; j++)
            for (int64_t i = 0; i < m; i++) {
                double re, im, wr, wi;
                dmxt_get(dt, buf, op == DMX_OP_N ? i + j * ld : j + i * ld, &re, &im);
                dmxt_formula(id, i0 + i, j0 + j, &wr, &wi);
                if ((re != wr || (cplx && im != wi)) && bad++ == 0)
                    snprintf(msg, len,
                             "patch get %lldx%lld@(%lld,%lld) op %s: (%lld,%lld) = "
                             "(%g,%g), expected (%g,%g)",
                             (long long)m, (long long)n, (long long)i0, (long long)j0,
                             dmxt_op_name(op), (long long)i, (long long)j, re, im, wr, wi);
            }
        free(buf);
    }
    if (st == DMX_SUCCESS)
        st = dmx_patch_barrier(win); /* the gets read the old values: all done before writes */
    for (int t = 0; t < nr && st == DMX_SUCCESS; t++) {
        const rect *x = &r[t];
        if (x->from != me)
            continue;
        int64_t ld = x->op == DMX_OP_N ? x->m : x->n;
        void *buf = xcalloc((size_t)(x->m * x->n), dmx_dtype_size(dt));
        for (int64_t j = 0; j < x->n; j++)
            for (int64_t i = 0; i < x->m; i++) {
                double re, im;
                dmxt_formula(x->kind ? ida : idp, x->i0 + i, x->j0 + j, &re, &im);
                dmxt_set(dt, buf, x->op == DMX_OP_N ? i + j * ld : j + i * ld, re, im);
            }
        st = (x->kind ? dmx_patch_acc : dmx_patch_put)(win, x->i0, x->j0, x->m, x->n, buf, ld,
                                                       x->op);
        free(buf);
    }
    if (win != NULL) {
        dmx_status sb = dmx_patch_barrier(win);
        if (st == DMX_SUCCESS)
            st = sb;
    }
    if (st != DMX_SUCCESS && bad++ == 0)
        snprintf(msg, len, "patch: %s (%s)", dmx_status_string(st), dmx_last_error());
    for (int64_t t = 0; t < A.nblk && st == DMX_SUCCESS; t++) {
        const dmxt_block *b = &A.blk[t];
        for (int64_t c = 0; c < b->cols; c++)
            for (int64_t rr = 0; rr < b->rows; rr++) {
                int64_t gi = b->row0 + rr, gj = b->col0 + c;
                double re, im, wr, wi, xr, xi;
                dmxt_get(dt, b->data, b->order == DMX_COL_MAJOR ? rr + c * b->ld : rr * b->ld + c,
                         &re, &im);
                dmxt_formula(id, gi, gj, &wr, &wi);
                for (int q = 0; q < nr; q++)
                    if (gi >= r[q].i0 && gi < r[q].i0 + r[q].m && gj >= r[q].j0 &&
                        gj < r[q].j0 + r[q].n) {
                        dmxt_formula(r[q].kind ? ida : idp, gi, gj, &xr, &xi);
                        wr = r[q].kind ? wr + xr : xr;
                        wi = r[q].kind ? wi + xi : xi;
                    }
                if (dt == DMX_FLOAT || dt == DMX_CFLOAT) {
                    wr = (double)(float)wr;
                    wi = (double)(float)wi;
                }
                if ((re != wr || (cplx && im != wi)) && bad++ == 0)
                    snprintf(msg, len, "patch: A(%lld,%lld) = (%.9g,%.9g), model (%.9g,%.9g)",
                             (long long)gi, (long long)gj, re, im, wr, wi);
            }
    }
    dmx_patch_close(&win);
    dmxt_matrix_free(&A);
    return bad;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "fuzz_rma");
    int64_t ncases = argc > 1 ? strtoll(argv[1], NULL, 0) : 100;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : ctx.seed;
    int64_t first = argc > 3 ? strtoll(argv[3], NULL, 0) : 0;
    ncases = dmxt_cases("DMX_FUZZ_CASES", ncases);
    seed = (uint64_t)dmxt_env_int("DMX_FUZZ_SEED", (int64_t)seed);
    first = dmxt_env_int("DMX_FUZZ_FIRST", first);
    ctx.seed = seed;
    int64_t timeout = dmxt_env_int("DMX_TEST_TIMEOUT", 300);
    if (ctx.rank == 0)
        printf("fuzz_rma: %lld cases from %lld, seed %llu, %d ranks\n", (long long)ncases,
               (long long)first, (unsigned long long)seed, ctx.size);
    char msg[600], desc[4096];
    for (int64_t c = first; c < first + ncases; c++) {
        if (timeout > 0)
            alarm((unsigned)timeout);
        msg[0] = desc[0] = '\0';
        dmxt_rng g;
        dmxt_rng_seed(&g, seed, (uint64_t)c * 2 + 1);
        dmxt_append(desc, sizeof desc, "case %lld:", (long long)c);
        int64_t bad = rma_case(&ctx, &g, msg, sizeof msg, desc, sizeof desc);
        /* collective: every rank runs it whatever its own result so far */
        if (bad == 0)
            bad = patch_case(&ctx, &g, seed, c, msg, sizeof msg, desc, sizeof desc);
        else
            (void)patch_case(&ctx, &g, seed, c, msg, sizeof msg, desc, sizeof desc);
        dmxt_case_end(&ctx, bad, msg, desc);
    }
    return dmxt_finish(&ctx);
}
