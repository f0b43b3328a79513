/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout queries against an independent model: get_size, get_num_local_blocks,
 * get_local_block (every reported element must sit at the address the test computes with its
 * own ScaLAPACK numroc/indxg2p/indxg2l arithmetic or custom block table, no element twice, every
 * owned element once), owner_of (inside and outside the matrix), for block-cyclic, mapped and
 * custom layouts, views, views of views, the dtype argument of get_local_block, and rebind.
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_CASES (random layouts, default 300), DMX_TEST_CASE (only
 * this random case).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which allocation of M holds address p (for element size esz), -1 if none. */
static int find_alloc(const dmxt_matrix *M, const void *p, size_t esz)
{
    const unsigned char *q = p;
    for (int a = 0; a < M->nalloc; a++) {
        const unsigned char *b = M->allocs[a];
        if (b && q >= b && q < b + (size_t)M->alloc_elems[a] * esz)
            return a;
    }
    return -1;
}

/* Number of window indices [i0, i0+m) that process coordinate p owns, from numroc. */
static int64_t owned_in_window(int64_t i0, int64_t m, int64_t nb, int p, int src, int np)
{
    return dmxt_numroc(i0 + m, nb, p, src, np) - dmxt_numroc(i0, nb, p, src, np);
}

/* Check layout L, which shows the window (i0, j0, m, n) of test matrix M. */
static void check_layout(dmxt_checker *C, const dmx_layout *L, const dmxt_matrix *M, int64_t i0,
                         int64_t j0, int64_t m, int64_t n, const char *what)
{
    size_t esz = dmx_dtype_size(M->dtype);
    int64_t gm = -1, gn = -1;
    dmx_status st = dmx_layout_get_size(L, &gm, &gn);
    if (st != DMX_SUCCESS || gm != m || gn != n) {
        dmxt_fail(C, "%s: get_size -> %s %lldx%lld, expected %lldx%lld", what,
                  dmx_status_string(st), (long long)gm, (long long)gn, (long long)m, (long long)n);
        return;
    }
    int64_t nlocal = -1;
    st = dmx_layout_get_num_local_blocks(L, &nlocal);
    if (st != DMX_SUCCESS || nlocal < 0) {
        dmxt_fail(C, "%s: get_num_local_blocks -> %s, %lld", what, dmx_status_string(st),
                  (long long)nlocal);
        return;
    }
    unsigned char *seen = calloc((size_t)(m * n) + 1, 1);
    int64_t covered = 0;
    for (int64_t k = 0; k < nlocal; k++) {
        int64_t r0 = -1, c0 = -1, rows = -1, cols = -1, ld = -1;
        void *data = NULL;
        dmx_order order = (dmx_order)-1;
        st = dmx_layout_get_local_block(L, k, M->dtype, &r0, &c0, &rows, &cols, &data, &ld, &order);
        if (st != DMX_SUCCESS) {
            dmxt_fail(C, "%s: get_local_block(%lld) -> %s", what, (long long)k,
                      dmx_status_string(st));
            continue;
        }
        if (rows < 1 || cols < 1 || r0 < 0 || c0 < 0 || r0 + rows > m || c0 + cols > n ||
            (order != DMX_COL_MAJOR && order != DMX_ROW_MAJOR) ||
            ld < (order == DMX_COL_MAJOR ? rows : cols) || data == NULL) {
            dmxt_fail(C,
                      "%s: block %lld: origin (%lld,%lld) size %lldx%lld ld %lld order %d data %p "
                      "is not a nonempty block inside the %lldx%lld layout",
                      what, (long long)k, (long long)r0, (long long)c0, (long long)rows,
                      (long long)cols, (long long)ld, (int)order, data, (long long)m, (long long)n);
            continue;
        }
        int64_t blockbad = 0;
        for (int64_t c = 0; c < cols && !blockbad; c++) {
            for (int64_t r = 0; r < rows && !blockbad; r++) {
                int64_t pos = order == DMX_COL_MAJOR ? r + c * ld : r * ld + c;
                unsigned char *got = (unsigned char *)data + (size_t)pos * esz;
                void *want = dmxt_matrix_addr(M, i0 + r0 + r, j0 + c0 + c);
                if (got != want) {
                    dmxt_fail(C,
                              "%s: block %lld element (%lld,%lld) [parent (%lld,%lld)] at %p, "
                              "expected %p%s",
                              what, (long long)k, (long long)(r0 + r), (long long)(c0 + c),
                              (long long)(i0 + r0 + r), (long long)(j0 + c0 + c), (void *)got, want,
                              want ? "" : " (this rank does not own it)");
                    blockbad = 1;
                }
                unsigned char *s = &seen[(r0 + r) * n + (c0 + c)];
                if (*s && !blockbad) {
                    dmxt_fail(C, "%s: element (%lld,%lld) reported twice (block %lld)", what,
                              (long long)(r0 + r), (long long)(c0 + c), (long long)k);
                    blockbad = 1;
                }
                *s = 1;
                covered++;
            }
        }
        /* the dtype argument: the same block seen as another element type */
        for (int t = 0; t < 4 && !blockbad; t++) {
            dmx_dtype d2 = (dmx_dtype)t;
            size_t e2 = dmx_dtype_size(d2);
            void *data2 = NULL;
            int64_t r2 = -1, c2 = -1, rows2 = -1, cols2 = -1, ld2 = -1;
            dmx_order o2 = (dmx_order)-1;
            st = dmx_layout_get_local_block(L, k, d2, &r2, &c2, &rows2, &cols2, &data2, &ld2, &o2);
            int a = find_alloc(M, data, esz);
            unsigned char *want = NULL;
            if (a >= 0) {
                size_t off = (size_t)((unsigned char *)data - (unsigned char *)M->allocs[a]);
                want = (unsigned char *)M->allocs[a] + off / esz * e2;
            }
            if (st != DMX_SUCCESS || r2 != r0 || c2 != c0 || rows2 != rows || cols2 != cols ||
                ld2 != ld || o2 != order || data2 != (void *)want) {
                dmxt_fail(C,
                          "%s: get_local_block(%lld, %s) -> %s data %p, expected %p (as %s: %p); "
                          "origin/size/ld/order %s",
                          what, (long long)k, dmxt_dtype_name(d2), dmx_status_string(st), data2,
                          (void *)want, dmxt_dtype_name(M->dtype), data,
                          (r2 == r0 && c2 == c0 && rows2 == rows && cols2 == cols && ld2 == ld &&
                           o2 == order)
                              ? "same"
                              : "differ");
                blockbad = 1;
            }
        }
        /* every output is optional */
        st = dmx_layout_get_local_block(L, k, M->dtype, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (st != DMX_SUCCESS)
            dmxt_fail(C, "%s: get_local_block(%lld) with NULL outputs -> %s", what, (long long)k,
                      dmx_status_string(st));
    }
    int64_t want_cover = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            want_cover += dmxt_matrix_owner(M, i0 + i, j0 + j) == M->rank;
    if (M->kind == DMXT_BC || M->kind == DMXT_MAPPED) {
        /* the same count from numroc alone */
        int64_t nr = 0, nc = 0;
        if (M->myrow >= 0) {
            nr = owned_in_window(i0, m, M->mb, M->myrow, M->rsrc, M->prow);
            nc = owned_in_window(j0, n, M->nb, M->mycol, M->csrc, M->pcol);
        }
        if (nr * nc != want_cover)
            dmxt_fail(C, "%s: test model disagrees with numroc (%lld x %lld vs %lld)", what,
                      (long long)nr, (long long)nc, (long long)want_cover);
    }
    if (covered != want_cover)
        dmxt_fail(C, "%s: local blocks cover %lld elements, this rank owns %lld", what,
                  (long long)covered, (long long)want_cover);
    free(seen);

    /* out-of-range block index */
    st = dmx_layout_get_local_block(L, nlocal, M->dtype, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (st != DMX_ERR_ARG)
        dmxt_fail(C, "%s: get_local_block(nlocal = %lld) -> %s, expected DMX_ERR_ARG", what,
                  (long long)nlocal, dmx_status_string(st));
    st = dmx_layout_get_local_block(L, -1, M->dtype, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (st != DMX_ERR_ARG)
        dmxt_fail(C, "%s: get_local_block(-1) -> %s, expected DMX_ERR_ARG", what,
                  dmx_status_string(st));

    /* get_owner everywhere (sampled on large layouts) and outside */
    int64_t step = m * n > 4000 ? 7 : 1;
    for (int64_t i = 0; i < m; i += 1)
        for (int64_t j = (i * 3) % step; j < n; j += step) {
            int o = -2, w = dmxt_matrix_owner(M, i0 + i, j0 + j);
            dmx_status ost = dmx_layout_get_owner(L, i, j, &o);
            if (M->kind == DMXT_LOCAL && w != M->rank)
                w = -1; /* a layout known only locally knows only this rank's elements */
            if (ost != DMX_SUCCESS || o != w) {
                dmxt_fail(C, "%s: get_owner(%lld,%lld) = %d (%s), expected %d", what, (long long)i,
                          (long long)j, o, dmx_status_string(ost), w);
                i = m;
                break;
            }
        }
    int64_t outside[][2] = {{-1, 0},        {0, -1},       {m, 0},         {0, n},
                            {m, n},         {-1, -1},      {m + 5, n / 2}, {m / 2, n + 3},
                            {INT64_MAX, 0}, {0, INT64_MIN}};
    for (size_t q = 0; q < sizeof outside / sizeof outside[0]; q++) {
        int o = -2;
        dmx_status ost = dmx_layout_get_owner(L, outside[q][0], outside[q][1], &o);
        if (ost != DMX_ERR_ARG || o != -1) {
            dmxt_fail(C,
                      "%s: get_owner(%lld,%lld) outside the %lldx%lld layout = %d (%s), expected "
                      "-1 (DMX_ERR_ARG)",
                      what, (long long)outside[q][0], (long long)outside[q][1], (long long)m,
                      (long long)n, o, dmx_status_string(ost));
            break;
        }
    }
}

/* Check that my numroc and friends agree with brute force (the model must be right too). */
static int64_t selftest_index_math(char *msg, size_t len)
{
    for (int64_t n = 0; n < 40; n++)
        for (int64_t nb = 1; nb < 9; nb++)
            for (int np = 1; np < 5; np++)
                for (int src = 0; src < np; src++) {
                    int64_t count[4] = {0, 0, 0, 0};
                    for (int64_t g = 0; g < n; g++) {
                        int p = dmxt_indxg2p(g, nb, src, np);
                        int64_t l = dmxt_indxg2l(g, nb, np);
                        if (l != count[p] || dmxt_indxl2g(l, nb, p, src, np) != g) {
                            snprintf(msg, len, "index math wrong at n=%lld nb=%lld np=%d src=%d",
                                     (long long)n, (long long)nb, np, src);
                            return 1;
                        }
                        count[p]++;
                    }
                    for (int p = 0; p < np; p++)
                        if (dmxt_numroc(n, nb, p, src, np) != count[p]) {
                            snprintf(msg, len, "numroc wrong at n=%lld nb=%lld np=%d src=%d",
                                     (long long)n, (long long)nb, np, src);
                            return 1;
                        }
                }
    /* a value from the ScaLAPACK documentation: N=10, NB=3 over 2 processes from 0: 6 and 4 */
    if (dmxt_numroc(10, 3, 0, 0, 2) != 6 || dmxt_numroc(10, 3, 1, 0, 2) != 4) {
        snprintf(msg, len, "numroc(10,3,.,0,2) wrong");
        return 1;
    }
    return 0;
}

static void random_window(dmxt_rng *r, int64_t m, int64_t n, int64_t *i0, int64_t *j0, int64_t *vm,
                          int64_t *vn)
{
    int64_t x = dmxt_rng_int(r, 0, 9);
    if (x == 0) { /* whole */
        *i0 = 0, *j0 = 0, *vm = m, *vn = n;
        return;
    }
    *i0 = dmxt_rng_int(r, 0, m);
    *j0 = dmxt_rng_int(r, 0, n);
    *vm = x == 1 ? 0 : dmxt_rng_int(r, 0, m - *i0);
    *vn = dmxt_rng_int(r, 0, n - *j0);
    if (x == 2 && m > 0 && n > 0) { /* 1x1 at the far corner */
        *i0 = m - 1, *j0 = n - 1, *vm = 1, *vn = 1;
    }
}

static void run_case(dmxt_ctx *ctx, dmxt_checker *C, int64_t idx, char *desc, size_t dlen)
{
    dmxt_rng rr, *r = &rr;
    dmxt_rng_seed(r, ctx->seed, (uint64_t)idx + 7777);
    dmx_dtype dtype = (dmx_dtype)dmxt_rng_int(r, 0, 3);
    int64_t m, n;
    int64_t x = dmxt_rng_int(r, 0, 9);
    m = x == 0 ? 0 : dmxt_rng_int(r, 1, x < 3 ? ctx->size : 60);
    n = x == 1 ? 0 : dmxt_rng_int(r, 1, x < 4 ? ctx->size : 60);
    dmxt_matrix M;
    dmxt_matrix_random(&M, MPI_COMM_WORLD, dtype, m, n, dmxt_rng_chance(r, 20) ? DMXT_LOCAL : -1,
                       r);
    snprintf(desc, dlen, "layout case %lld: %s %s", (long long)idx, dmxt_dtype_name(dtype), M.desc);
    dmxt_set_current(desc);
    dmx_status st = dmxt_matrix_create(&M);
    char sm[400];
    if (dmxt_expect_status(ctx, st, DMX_SUCCESS, "create", sm, sizeof sm)) {
        dmxt_fail(C, "%s", sm);
        dmxt_matrix_free(&M);
        return;
    }
    check_layout(C, M.layout, &M, 0, 0, m, n, "layout");

    if (M.kind == DMXT_LOCAL) {
        /* views of layouts known only locally are not supported: a clean failure everywhere */
        dmx_layout *view = NULL;
        st = dmx_layout_create_view(M.layout, 0, 0, m, n, &view);
        int v[2] = {(int)st, -(int)st}, red[2];
        MPI_Allreduce(v, red, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (st == DMX_SUCCESS || red[0] != -red[1] || view != NULL)
            dmxt_fail(C, "view of a layout known only locally -> %s (statuses %d..%d), out %p",
                      dmx_status_string(st), -red[1], red[0], (void *)view);
        dmx_layout_destroy(&view);
    }
    /* views and views of views */
    for (int v = 0; v < (M.kind == DMXT_LOCAL ? 0 : 3); v++) {
        int64_t i0, j0, vm, vn;
        random_window(r, m, n, &i0, &j0, &vm, &vn);
        dmx_layout *view = NULL;
        st = dmx_layout_create_view(M.layout, i0, j0, vm, vn, &view);
        char what[160];
        snprintf(what, sizeof what, "view(%lld,%lld %lldx%lld)", (long long)i0, (long long)j0,
                 (long long)vm, (long long)vn);
        if (dmxt_expect_status(ctx, st, DMX_SUCCESS, what, sm, sizeof sm)) {
            dmxt_fail(C, "%s", sm);
            continue;
        }
        check_layout(C, view, &M, i0, j0, vm, vn, what);
        int64_t k0, l0, wm, wn;
        random_window(r, vm, vn, &k0, &l0, &wm, &wn);
        dmx_layout *inner = NULL;
        st = dmx_layout_create_view(view, k0, l0, wm, wn, &inner);
        char what2[320];
        snprintf(what2, sizeof what2, "%s then view(%lld,%lld %lldx%lld)", what, (long long)k0,
                 (long long)l0, (long long)wm, (long long)wn);
        if (dmxt_expect_status(ctx, st, DMX_SUCCESS, what2, sm, sizeof sm)) {
            dmxt_fail(C, "%s", sm);
        } else {
            /* the outer view may go first */
            dmx_layout_destroy(&view);
            check_layout(C, inner, &M, i0 + k0, j0 + l0, wm, wn, what2);
            if (M.kind == DMXT_BC || M.kind == DMXT_MAPPED) {
                /* rebind the inner view to a fresh parent-shaped array */
                void *fresh = dmxt_matrix_new_local(&M);
                void *old = dmxt_matrix_swap_local(&M, fresh);
                st = dmx_layout_rebind(inner, fresh);
                if (st != DMX_SUCCESS)
                    dmxt_fail(C, "%s: rebind -> %s", what2, dmx_status_string(st));
                else
                    check_layout(C, inner, &M, i0 + k0, j0 + l0, wm, wn, "rebound view");
                free(dmxt_matrix_swap_local(&M, old));
            }
            dmx_layout_destroy(&inner);
            if (inner != NULL)
                dmxt_fail(C, "%s: destroy did not set the handle to NULL", what2);
        }
        dmx_layout_destroy(&view);
    }

    /* rebind the layout itself */
    if (M.kind == DMXT_BC || M.kind == DMXT_MAPPED) {
        void *fresh = dmxt_matrix_new_local(&M);
        void *old = dmxt_matrix_swap_local(&M, fresh);
        st = dmx_layout_rebind(M.layout, fresh);
        if (st != DMX_SUCCESS)
            dmxt_fail(C, "rebind -> %s", dmx_status_string(st));
        else
            check_layout(C, M.layout, &M, 0, 0, m, n, "rebound layout");
        free(old);
    }
    dmx_layout *l = M.layout;
    st = dmx_layout_destroy(&M.layout);
    if (st != DMX_SUCCESS || M.layout != NULL)
        dmxt_fail(C, "destroy -> %s, handle %p (was %p)", dmx_status_string(st), (void *)M.layout,
                  (void *)l);
    dmxt_matrix_free(&M);
}

/* Layouts on a duplicated communicator: owner_of answers in that communicator's ranks. */
static void dup_comm_case(dmxt_ctx *ctx, dmxt_checker *C)
{
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, ctx->size - 1 - ctx->rank, &rev); /* reversed ranks */
    dmxt_matrix M;
    dmxt_matrix_bc(&M, rev, DMX_DOUBLE, 13, 11, 2, 3, 1, ctx->size, 'R', NULL, 0, 0, 1);
    char sm[400];
    if (dmxt_expect_status(ctx, dmxt_matrix_create(&M), DMX_SUCCESS, "create on reversed comm", sm,
                           sizeof sm))
        dmxt_fail(C, "%s", sm);
    else
        check_layout(C, M.layout, &M, 0, 0, 13, 11, "layout on a reversed-rank communicator");
    dmxt_matrix_free(&M);
    MPI_Comm_free(&rev);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_layout");
    int64_t ncases = dmxt_cases("DMX_TEST_CASES", 300);
    int64_t only = dmxt_env_int("DMX_TEST_CASE", -1);
    char desc[1024];

    if (only < 0) {
        dmxt_checker C = {.bad = 0};
        C.bad = selftest_index_math(C.msg, sizeof C.msg);
        dmxt_case_end(&ctx, C.bad, C.msg, "self-test of the test's numroc/indxg2p/indxg2l");

        dmxt_checker D = {.bad = 0};
        dmx_layout *nul = NULL;
        dmx_status st = dmx_layout_destroy(&nul);
        if (st != DMX_SUCCESS)
            dmxt_fail(&D, "dmx_layout_destroy(&NULL) -> %s", dmx_status_string(st));
        dmxt_case_end(&ctx, D.bad, D.msg, "destroy is NULL-safe");

        dmxt_checker E = {.bad = 0};
        dup_comm_case(&ctx, &E);
        dmxt_case_end(&ctx, E.bad, E.msg, "layout on a communicator with reversed ranks");
    }
    for (int64_t i = 0; i < ncases; i++) {
        if (only >= 0 && i != only)
            continue;
        dmxt_checker C = {.bad = 0};
        run_case(&ctx, &C, i, desc, sizeof desc);
        dmxt_case_end(&ctx, C.bad, C.msg, desc);
    }
    return dmxt_finish(&ctx);
}
