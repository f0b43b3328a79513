/* SPDX-License-Identifier: BSD-3-Clause */
/* Self-checking tests of one-sided patch access (dmx_patch_* in include/dmx/rma.h).
 *
 * Every rank fills its blocks of a random distributed matrix with the closed formula of
 * dmxtest.h (matrix id 1), so every rank knows every element. Cases, for every layout kind
 * (block-cyclic, mapped block-cyclic, custom grid, layout known only locally) x every dtype:
 *  - get of random patches (many owners, patches at the matrix edge, single elements, whole
 *    matrix), op N and T, into buffers with padding that must stay untouched;
 *  - put: each rank writes a patch inside its own stripe of rows (matrix id 2) from op N or T
 *    buffers; every rank checks all elements it owns, then the patches are restored and the
 *    whole memory (padding included) must hold matrix id 1 again;
 *  - accumulate: every rank adds matrix id 0 into one common patch (exact integer sums);
 *  - a patch outside the matrix or a bad ld: DMX_ERR_ARG, nothing moved anywhere;
 * each with DMX_SHM=1 (node peers' blocks copied directly) and DMX_SHM=0 (MPI only);
 * views of block-cyclic and custom matrices (patch coordinates relative to the view); a
 * block-cyclic matrix whose memory is a dmx_rma_alloc heap (node peers' blocks by plain loads
 * and stores with DMX_SHM=1).
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT. */
#define _POSIX_C_SOURCE 200809L

#include "dmx.h"
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set in main: whether this MPI opens windows over user memory (dmxt_mpi_user_windows), and
 * how many cases were skipped because it cannot. */
static int user_windows = 1;
static long skipped;

static const dmx_dtype types[4] = {DMX_FLOAT, DMX_DOUBLE, DMX_CFLOAT, DMX_CDOUBLE};

typedef struct patch {
    int64_t i0, j0, m, n;
    dmx_op op;
} patch;

static patch random_patch(dmxt_rng *g, int64_t M, int64_t N)
{
    patch p;
    int pick = (int)dmxt_rng_int(g, 0, 7);
    p.m = pick == 0 ? 1 : pick == 1 ? M : dmxt_rng_int(g, 1, M);
    p.n = pick == 0 ? 1 : pick == 1 ? N : dmxt_rng_int(g, 1, N);
    p.i0 = pick == 2 ? M - p.m : dmxt_rng_int(g, 0, M - p.m); /* 2: at the bottom edge */
    p.j0 = pick == 3 ? N - p.n : dmxt_rng_int(g, 0, N - p.n); /* 3: at the right edge */
    p.op = dmxt_rng_chance(g, 50) ? DMX_OP_N : DMX_OP_T;
    return p;
}

/* Buffer position of patch element (r, c). */
static int64_t bpos(const patch *p, int64_t ld, int64_t r, int64_t c)
{
    return p->op == DMX_OP_N ? r + c * ld : c + r * ld;
}

static int64_t buf_ld(const patch *p, dmxt_rng *g)
{
    return (p->op == DMX_OP_N ? p->m : p->n) + dmxt_rng_int(g, 0, 2);
}

static int64_t buf_elems(const patch *p, int64_t ld)
{
    return ld * (p->op == DMX_OP_N ? p->n : p->m);
}

static int same(dmx_dtype t, double re, double im, double wre, double wim)
{
    int cplx = t == DMX_CFLOAT || t == DMX_CDOUBLE;
    return re == wre && (!cplx || im == wim);
}

static void get_cases(dmxt_ctx *ctx, dmxt_matrix *A, dmx_patch *w, dmxt_rng *g, dmxt_checker *C)
{
    (void)ctx;
    for (int c = 0; c < 12; c++) {
        patch p = random_patch(g, A->m, A->n);
        int64_t ld = buf_ld(&p, g), ne = buf_elems(&p, ld);
        void *buf = malloc((size_t)ne * dmx_dtype_size(A->dtype));
        for (int64_t k = 0; k < ne; k++)
            dmxt_set(A->dtype, buf, k, -7.0, -7.0);
        dmx_status st = dmx_patch_get(w, p.i0, p.j0, p.m, p.n, buf, ld, p.op);
        if (st != DMX_SUCCESS)
            dmxt_fail(C, "dmx_patch_get: %s (%s)", dmx_status_string(st), dmx_last_error());
        char *mark = calloc((size_t)ne, 1);
        for (int64_t cc = 0; cc < p.n; cc++)
            for (int64_t r = 0; r < p.m; r++) {
                double re, im, wre, wim;
                int64_t q = bpos(&p, ld, r, cc);
                mark[q] = 1;
                dmxt_get(A->dtype, buf, q, &re, &im);
                dmxt_formula(1, p.i0 + r, p.j0 + cc, &wre, &wim);
                if (!same(A->dtype, re, im, wre, wim)) {
                    dmxt_fail(C,
                              "get (%lld,%lld) %lldx%lld op %s: element (%lld,%lld) is %g, "
                              "want %g",
                              (long long)p.i0, (long long)p.j0, (long long)p.m, (long long)p.n,
                              dmxt_op_name(p.op), (long long)r, (long long)cc, re, wre);
                    cc = p.n;
                    break;
                }
            }
        for (int64_t k = 0; k < ne; k++) {
            double re, im;
            dmxt_get(A->dtype, buf, k, &re, &im);
            if (!mark[k] && re != -7.0) {
                dmxt_fail(C, "get wrote padding element %lld of the buffer", (long long)k);
                break;
            }
        }
        free(mark);
        free(buf);
    }
}

/* Fill a buffer for patch p with matrix id k (op-aware). */
static void *patch_buffer(const dmxt_matrix *A, const patch *p, int64_t ld, int k)
{
    int64_t ne = buf_elems(p, ld);
    void *buf = calloc((size_t)ne, dmx_dtype_size(A->dtype));
    for (int64_t c = 0; c < p->n; c++)
        for (int64_t r = 0; r < p->m; r++) {
            double re, im;
            dmxt_formula(k, p->i0 + r, p->j0 + c, &re, &im);
            dmxt_set(A->dtype, buf, bpos(p, ld, r, c), re, im);
        }
    return buf;
}

static int inside(const patch *p, int64_t i, int64_t j)
{
    return i >= p->i0 && i < p->i0 + p->m && j >= p->j0 && j < p->j0 + p->n;
}

/* acc_ok 0: the patch has no MPI window (this MPI has none for user memory; node peers through
 * CMA): dmx_patch_acc must fail with DMX_ERR_UNSUPPORTED and change nothing. */
static void put_acc_cases(dmxt_ctx *ctx, dmxt_matrix *A, dmx_patch *w, dmxt_rng *g, dmxt_checker *C,
                          int acc_ok)
{
    int P = ctx->size;
    patch *pp = malloc((size_t)P * sizeof *pp);
    int64_t *lds = malloc((size_t)P * sizeof *lds);
    /* rank r's patch lies in rows [r*M/P, (r+1)*M/P) (empty for some ranks if M < P) */
    for (int r = 0; r < P; r++) {
        int64_t lo = r * A->m / P, hi = (r + 1) * A->m / P;
        patch q = random_patch(g, A->m, A->n);
        if (hi > lo) {
            q.m = dmxt_rng_int(g, 1, hi - lo);
            q.i0 = dmxt_rng_int(g, lo, hi - q.m);
        } else {
            q.m = 0;
            q.i0 = lo;
        }
        pp[r] = q;
        lds[r] = buf_ld(&q, g) + 1;
    }
    patch *mine = &pp[ctx->rank];
    void *buf = patch_buffer(A, mine, lds[ctx->rank], 2);
    dmx_status st =
        dmx_patch_put(w, mine->i0, mine->j0, mine->m, mine->n, buf, lds[ctx->rank], mine->op);
    if (st != DMX_SUCCESS)
        dmxt_fail(C, "dmx_patch_put: %s (%s)", dmx_status_string(st), dmx_last_error());
    free(buf);
    dmx_patch_barrier(w);
    for (int64_t i = 0; i < A->m; i++)
        for (int64_t j = 0; j < A->n; j++) {
            void *a = dmxt_matrix_addr(A, i, j);
            if (!a)
                continue;
            int k = 1;
            for (int r = 0; r < P; r++)
                if (inside(&pp[r], i, j))
                    k = 2;
            double re, im, wre, wim;
            dmxt_get(A->dtype, a, 0, &re, &im);
            dmxt_formula(k, i, j, &wre, &wim);
            if (!same(A->dtype, re, im, wre, wim)) {
                dmxt_fail(C, "after puts: (%lld,%lld) is %g, want %g (id %d)", (long long)i,
                          (long long)j, re, wre, k);
                i = A->m;
                break;
            }
        }
    dmx_patch_barrier(w);
    /* restore with op-N/T puts of id 1; padding and every element must be as filled */
    buf = patch_buffer(A, mine, lds[ctx->rank], 1);
    st = dmx_patch_put(w, mine->i0, mine->j0, mine->m, mine->n, buf, lds[ctx->rank], mine->op);
    free(buf);
    if (st != DMX_SUCCESS)
        dmxt_fail(C, "dmx_patch_put (restore): %s", dmx_status_string(st));
    dmx_patch_barrier(w);
    char msg[300];
    if (dmxt_check_fill(A, 1, msg, sizeof msg) != 0)
        dmxt_fail(C, "after restoring puts: %s", msg);
    dmx_patch_barrier(w); /* everyone has checked before anyone accumulates */
    /* accumulate: every rank adds id 0 into one common patch */
    patch q = random_patch(g, A->m, A->n);
    int64_t ld = buf_ld(&q, g);
    buf = patch_buffer(A, &q, ld, 0);
    st = dmx_patch_acc(w, q.i0, q.j0, q.m, q.n, buf, ld, q.op);
    if (acc_ok && st != DMX_SUCCESS)
        dmxt_fail(C, "dmx_patch_acc: %s (%s)", dmx_status_string(st), dmx_last_error());
    if (!acc_ok && st != DMX_ERR_UNSUPPORTED)
        dmxt_fail(C, "dmx_patch_acc without an MPI window: %s, want DMX_ERR_UNSUPPORTED",
                  dmx_status_string(st));
    free(buf);
    dmx_patch_barrier(w);
    for (int64_t i = 0; i < A->m; i++)
        for (int64_t j = 0; j < A->n; j++) {
            void *a = dmxt_matrix_addr(A, i, j);
            if (!a)
                continue;
            double re, im, wre, wim, are, aim;
            dmxt_get(A->dtype, a, 0, &re, &im);
            dmxt_formula(1, i, j, &wre, &wim);
            if (acc_ok && inside(&q, i, j)) {
                dmxt_formula(0, i, j, &are, &aim);
                wre += P * are;
                wim += P * aim;
            }
            if (!same(A->dtype, re, im, wre, wim)) {
                dmxt_fail(C,
                          "after accumulates into (%lld,%lld) %lldx%lld: (%lld,%lld) is %g, "
                          "want %g",
                          (long long)q.i0, (long long)q.j0, (long long)q.m, (long long)q.n,
                          (long long)i, (long long)j, re, wre);
                i = A->m;
                break;
            }
        }
    dmx_patch_barrier(w);
    free(pp);
    free(lds);
}

/* Invalid patches: a named error on the calling rank and nothing moved; the same for patch calls
 * made after this rank's layout was rebound. */
static void invalid_cases(dmxt_ctx *ctx, dmxt_matrix *A, dmx_patch *w, dmxt_checker *C)
{
    double buf[64];
    for (int k = 0; k < 64; k++)
        buf[k] = -3.0;
    struct {
        int64_t i0, j0, m, n, ld;
    } c[] = {
        {A->m - 1, 0, 2, 1, 2}, {0, A->n, 1, 1, 1}, {-1, 0, 1, 1, 1},
        {0, 0, -1, 1, 1},       {0, 0, 2, 1, 1},    {0, A->n - 2 < 0 ? 0 : A->n - 2, 1, 3, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (ctx->rank != ctx->size - 1)
            continue; /* one rank only: must not hang the others */
        dmx_status st = dmx_patch_get(w, c[i].i0, c[i].j0, c[i].m, c[i].n, buf, c[i].ld, DMX_OP_N);
        dmx_status st2 = dmx_patch_put(w, c[i].i0, c[i].j0, c[i].m, c[i].n, buf, c[i].ld, DMX_OP_N);
        if (st != DMX_ERR_ARG || st2 != DMX_ERR_ARG)
            dmxt_fail(C, "invalid patch %zu: get %s, put %s, want DMX_ERR_ARG", i,
                      dmx_status_string(st), dmx_status_string(st2));
    }
    /* this rank's layout rebound after the open: its window still exposes the old array, so
     * its patch calls must refuse (DMX_ERR_STATE) until the layout is bound back */
    if ((A->kind == DMXT_BC || A->kind == DMXT_MAPPED) && A->nalloc > 0 &&
        ctx->rank == ctx->size - 1) {
        size_t bytes = (size_t)A->alloc_elems[0] * dmx_dtype_size(A->dtype);
        void *other = calloc(bytes ? bytes : 1, 1);
        if (dmx_layout_rebind(A->layout, other) == DMX_SUCCESS) {
            dmx_status st = dmx_patch_get(w, 0, 0, 1, 1, buf, 1, DMX_OP_N);
            dmx_status st2 = dmx_patch_put(w, 0, 0, 1, 1, buf, 1, DMX_OP_N);
            if (st != DMX_ERR_STATE || st2 != DMX_ERR_STATE || !strstr(dmx_last_error(), "rebound"))
                dmxt_fail(C, "patch calls after a rebind: get %s, put %s, want DMX_ERR_STATE",
                          dmx_status_string(st), dmx_status_string(st2));
            dmx_layout_rebind(A->layout, A->allocs[0]);
        }
        free(other);
    }
    for (int k = 0; k < 64; k++)
        if (buf[k] != -3.0)
            dmxt_fail(C, "invalid get wrote the buffer");
    dmx_patch_barrier(w);
    char msg[300];
    if (dmxt_check_fill(A, 1, msg, sizeof msg) != 0)
        dmxt_fail(C, "invalid puts changed the matrix: %s", msg);
}

/* A view (dmx_layout_create_view) of a block-cyclic or custom matrix: patches are in the view's
 * coordinates and must read the parent's elements shifted by the view's origin. */
static void view_case(dmxt_ctx *ctx, dmxt_rng *g, int kind)
{
    dmxt_checker C = {ctx, 0, ""};
    dmxt_matrix A;
    int64_t m = dmxt_rng_int(g, 2, 40), n = dmxt_rng_int(g, 2, 40);
    dmxt_matrix_random(&A, ctx->comm, DMX_DOUBLE, m, n, kind, g);
    int64_t vi = dmxt_rng_int(g, 0, m - 1), vj = dmxt_rng_int(g, 0, n - 1);
    int64_t vm = dmxt_rng_int(g, 1, m - vi), vn = dmxt_rng_int(g, 1, n - vj);
    char desc[700];
    snprintf(desc, sizeof desc, "view (%lld,%lld) %lldx%lld of %s", (long long)vi, (long long)vj,
             (long long)vm, (long long)vn, A.desc);
    dmxt_set_current(desc);
    dmx_layout *V = NULL;
    dmx_patch *w = NULL;
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(A.layout, vi, vj, vm, vn, &V);
    if (st == DMX_SUCCESS)
        st = dmx_patch_open(V, DMX_DOUBLE, &w);
    if (!user_windows && st == DMX_ERR_UNSUPPORTED) {
        skipped++; /* MPI itself cannot (checked in main): dmx says so */
    } else if (st != DMX_SUCCESS) {
        dmxt_fail(&C, "setup: %s (%s)", dmx_status_string(st), dmx_last_error());
    } else {
        dmxt_fill(&A, 1);
        dmx_patch_barrier(w);
        for (int c = 0; c < 8; c++) {
            patch p = random_patch(g, vm, vn);
            int64_t ld = buf_ld(&p, g);
            double *buf = calloc((size_t)buf_elems(&p, ld), sizeof(double));
            st = dmx_patch_get(w, p.i0, p.j0, p.m, p.n, buf, ld, p.op);
            if (st != DMX_SUCCESS)
                dmxt_fail(&C, "dmx_patch_get: %s (%s)", dmx_status_string(st), dmx_last_error());
            for (int64_t cc = 0; cc < p.n; cc++)
                for (int64_t r = 0; r < p.m; r++) {
                    double wre, wim;
                    dmxt_formula(1, vi + p.i0 + r, vj + p.j0 + cc, &wre, &wim);
                    if (buf[bpos(&p, ld, r, cc)] != wre) {
                        dmxt_fail(&C, "view get (%lld,%lld): element (%lld,%lld) is %g, want %g",
                                  (long long)p.i0, (long long)p.j0, (long long)r, (long long)cc,
                                  buf[bpos(&p, ld, r, cc)], wre);
                        cc = p.n;
                        break;
                    }
                }
            free(buf);
        }
        /* a patch of the view that would fit the parent but not the view */
        double one = 0;
        if (ctx->rank == 0 && dmx_patch_get(w, vm, 0, 1, 1, &one, 1, DMX_OP_N) != DMX_ERR_ARG)
            dmxt_fail(&C, "a patch outside the view was accepted");
    }
    st = dmx_patch_close(&w);
    if (st != DMX_SUCCESS)
        dmxt_fail(&C, "dmx_patch_close: %s", dmx_status_string(st));
    dmx_layout_destroy(&V);
    dmxt_matrix_free(&A);
    dmxt_case_end(ctx, C.bad, C.msg, desc);
}

/* A block-cyclic matrix of doubles whose local arrays live in a dmx_rma_alloc heap: node peers'
 * blocks are then read and written with plain loads and stores (src/rma/rma_registry.c) when
 * shm is set, through MPI when not. Random gets (op N and T, padded buffers) against the formula
 * a(i,j) = i*N + j + 1; then every rank puts -a into a patch of its own stripe of rows and every
 * owner checks each element it holds against the list of all patches. */
static void st_ok(dmxt_checker *C, dmx_status st, const char *what)
{
    if (st != DMX_SUCCESS)
        dmxt_fail(C, "%s: %s (%s)", what, dmx_status_string(st), dmx_last_error());
}

static double hval(int64_t i, int64_t j, int64_t N)
{
    return (double)(i * N + j + 1);
}

static void heap_case(dmxt_ctx *ctx, dmxt_rng *g, int shm)
{
    dmxt_checker C = {ctx, 0, ""};
    int P = ctx->size, me = ctx->rank, pr = 1;
    for (int d = 1; d * d <= P; d++)
        if (P % d == 0)
            pr = d;
    /* cppcheck-suppress zerodiv ; pr divides P and P >= 1, so pc >= 1 */
    int pc = P / pr, myr = me / pc, myc = me % pc;
    int64_t M = dmxt_rng_int(g, 1, 50), N = dmxt_rng_int(g, 1, 50);
    int64_t mb = dmxt_rng_int(g, 1, 8), nb = dmxt_rng_int(g, 1, 8);
    int64_t lr = dmxt_numroc(M, mb, myr, 0, pr), lc = dmxt_numroc(N, nb, myc, 0, pc);
    int64_t lld = (lr > 1 ? lr : 1) + dmxt_rng_int(g, 0, 2);
    int64_t bytes = lld * (lc > 0 ? lc : 1) * 8;
    char desc[200];
    snprintf(desc, sizeof desc, "matrix in a dmx_rma heap, DMX_SHM=%d, %lldx%lld blocks %lldx%lld",
             shm, (long long)M, (long long)N, (long long)mb, (long long)nb);
    dmxt_set_current(desc);
    setenv("DMX_SHM", shm ? "1" : "0", 1);
    MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_MAX, ctx->comm);
    dmx_rma_heap *h = NULL;
    dmx_layout *L = NULL;
    dmx_patch *w = NULL;
    st_ok(&C, dmx_rma_alloc(ctx->comm, bytes, &h), "dmx_rma_alloc");
    double *a = h ? dmxt_heap_base(h) : NULL;
    for (int64_t jl = 0; a && jl < lc; jl++)
        for (int64_t il = 0; il < lr; il++)
            a[il + jl * lld] =
                hval((il / mb * pr + myr) * mb + il % mb, (jl / nb * pc + myc) * nb + jl % nb, N);
    if (h)
        st_ok(
            &C,
            dmx_layout_create_block_cyclic(ctx->comm, M, N, mb, nb, pr, pc, 'R', 0, 0, a, lld, &L),
            "layout");
    dmx_status st = L ? dmx_patch_open(L, DMX_DOUBLE, &w) : DMX_ERR_NULL;
    if (!user_windows && !shm && st == DMX_ERR_UNSUPPORTED) {
        skipped++; /* MPI itself cannot (checked in main): dmx says so */
    } else if (st != DMX_SUCCESS) {
        dmxt_fail(&C, "setup: %s (%s)", dmx_status_string(st), dmx_last_error());
    } else {
        dmx_patch_barrier(w);
        for (int c = 0; c < 8; c++) {
            patch q = random_patch(g, M, N);
            int64_t ld = buf_ld(&q, g), ne = buf_elems(&q, ld);
            double *buf = malloc((size_t)ne * sizeof(double));
            for (int64_t k = 0; k < ne; k++)
                buf[k] = -7.0;
            st = dmx_patch_get(w, q.i0, q.j0, q.m, q.n, buf, ld, q.op);
            if (st != DMX_SUCCESS)
                dmxt_fail(&C, "dmx_patch_get: %s", dmx_status_string(st));
            for (int64_t k = 0; k < ne && st == DMX_SUCCESS; k++) {
                int64_t in = k % ld, out = k / ld; /* position along and across buf's runs */
                int64_t r = q.op == DMX_OP_N ? in : out, cc = q.op == DMX_OP_N ? out : in;
                int inside = r < q.m && cc < q.n;
                double want = inside ? hval(q.i0 + r, q.j0 + cc, N) : -7.0;
                if (buf[k] != want) {
                    dmxt_fail(&C, "get (%lld,%lld) %lldx%lld op %c: buf[%lld] = %g, want %g",
                              (long long)q.i0, (long long)q.j0, (long long)q.m, (long long)q.n,
                              q.op == DMX_OP_N ? 'N' : 'T', (long long)k, buf[k], want);
                    break;
                }
            }
            free(buf);
        }
        dmx_patch_barrier(w); /* every get done before anyone puts */
        patch *pp = malloc((size_t)P * sizeof *pp);
        for (int r = 0; r < P; r++) { /* rank r's patch: rows [r*M/P, (r+1)*M/P) */
            int64_t lo = r * M / P, hi = (r + 1) * M / P;
            pp[r] = random_patch(g, M, N);
            pp[r].m = hi > lo ? dmxt_rng_int(g, 1, hi - lo) : 0;
            pp[r].i0 = hi > lo ? dmxt_rng_int(g, lo, hi - pp[r].m) : lo;
        }
        patch *q = &pp[me];
        int64_t ld = q->op == DMX_OP_N ? (q->m > 1 ? q->m : 1) : q->n;
        double *buf = malloc((size_t)(ld * (q->op == DMX_OP_N ? q->n : q->m) + 1) * sizeof(double));
        for (int64_t r = 0; r < q->m; r++)
            for (int64_t cc = 0; cc < q->n; cc++)
                buf[bpos(q, ld, r, cc)] = -hval(q->i0 + r, q->j0 + cc, N);
        st = dmx_patch_put(w, q->i0, q->j0, q->m, q->n, buf, ld, q->op);
        if (st != DMX_SUCCESS)
            dmxt_fail(&C, "dmx_patch_put: %s", dmx_status_string(st));
        free(buf);
        dmx_patch_barrier(w);
        for (int64_t jl = 0; jl < lc; jl++)
            for (int64_t il = 0; il < lr; il++) {
                int64_t i = (il / mb * pr + myr) * mb + il % mb,
                        j = (jl / nb * pc + myc) * nb + jl % nb;
                double want = hval(i, j, N);
                for (int r = 0; r < P; r++)
                    if (inside(&pp[r], i, j))
                        want = -want;
                if (a[il + jl * lld] != want) {
                    dmxt_fail(&C, "after puts (%lld,%lld) = %g, want %g", (long long)i,
                              (long long)j, a[il + jl * lld], want);
                    jl = lc;
                    break;
                }
            }
        free(pp);
    }
    if (dmx_patch_close(&w) != DMX_SUCCESS)
        dmxt_fail(&C, "dmx_patch_close");
    dmx_layout_destroy(&L);
    st_ok(&C, dmx_rma_free(&h), "dmx_rma_free");
    dmxt_case_end(ctx, C.bad, C.msg, desc);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_patch");
    dmxt_rng g;
    dmxt_rng_seed(&g, ctx.seed, 23);
    user_windows = ctx.size == 1 || dmxt_mpi_user_windows(ctx.comm);
    const char *kinds[] = {"block-cyclic", "mapped", "custom", "local"};
    /* DMX_SHM=1: node peers' blocks are read and written directly (patch_cma.c); DMX_SHM=0:
     * everything goes through MPI */
    for (int shm = 1; shm >= 0; shm--)
        for (int kind = 0; kind < DMXT_NKINDS; kind++)
            for (int ti = 0; ti < 4; ti++)
                for (int rep = 0; rep < 2; rep++) {
                    setenv("DMX_SHM", shm ? "1" : "0", 1);
                    dmxt_checker C = {&ctx, 0, ""};
                    dmxt_matrix A;
                    int64_t m = dmxt_rng_int(&g, 1, 40), n = dmxt_rng_int(&g, 1, 40);
                    dmxt_matrix_random(&A, ctx.comm, types[ti], m, n, kind, &g);
                    char desc[700];
                    snprintf(desc, sizeof desc, "DMX_SHM=%d %s %s %s", shm, kinds[kind],
                             dmxt_dtype_name(types[ti]), A.desc);
                    dmxt_set_current(desc);
                    dmx_patch *w = NULL;
                    dmx_status st = dmxt_matrix_create(&A);
                    if (st == DMX_SUCCESS)
                        st = dmx_patch_open(A.layout, types[ti], &w);
                    /* without MPI windows for user memory, one node and DMX_SHM=1 must still
                     * work (CMA, no accumulates); DMX_SHM=0 must say it cannot */
                    if (!user_windows && !shm && st == DMX_ERR_UNSUPPORTED) {
                        skipped++; /* MPI itself cannot (checked above): dmx says so */
                    } else if (st != DMX_SUCCESS) {
                        dmxt_fail(&C, "setup: %s (%s)", dmx_status_string(st), dmx_last_error());
                    } else {
                        dmxt_fill(&A, 1);
                        dmx_patch_barrier(w);
                        get_cases(&ctx, &A, w, &g, &C);
                        dmx_patch_barrier(w); /* all gets done before anyone puts */
                        put_acc_cases(&ctx, &A, w, &g, &C, user_windows || !shm);
                        dmxt_fill(&A, 1);
                        dmx_patch_barrier(w);
                        invalid_cases(&ctx, &A, w, &C);
                    }
                    st = dmx_patch_close(&w);
                    if (st != DMX_SUCCESS || w)
                        dmxt_fail(&C, "dmx_patch_close: %s", dmx_status_string(st));
                    dmxt_matrix_free(&A);
                    dmxt_case_end(&ctx, C.bad, C.msg, desc);
                }
    for (int rep = 0; rep < 6; rep++)
        view_case(&ctx, &g, rep % 2 ? DMXT_CUSTOM : DMXT_BC);
    for (int rep = 0; rep < 6; rep++)
        heap_case(&ctx, &g, rep < 4);
    if (skipped && ctx.rank == 0)
        printf("note: %ld cases skipped: this MPI cannot open windows over user memory "
               "(dmx_patch_open with DMX_SHM=0 returned DMX_ERR_UNSUPPORTED, as it should); "
               "with DMX_SHM=1 patches ran through CMA without accumulates\n",
               skipped);
    return dmxt_finish(&ctx);
}
