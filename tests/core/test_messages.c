/* SPDX-License-Identifier: BSD-3-Clause */
/* The text of every error path the public calls can reach from bad arguments: after each failing
 * call, on every rank (the rank that made the mistake and the ranks told by the agreement),
 * dmx_last_error() must be non-empty, start with "file.c:LINE: ", carry a message after that
 * prefix, and contain no second such prefix (the "plan.c:512: plan.c:512: " bug, when the
 * library formatted its own last error into itself). The status must be the expected one and the
 * same on every rank, and no handle may be created. Calls that leave a rank no communicator go
 * through a test error handler that returns (the bad input is then on every rank); it must see
 * the same text as dmx_last_error().
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int handler_calls;
static char handler_msg[600];

static void returning_handler(dmx_status st, const char *message)
{
    (void)st;
    handler_calls++;
    snprintf(handler_msg, sizeof handler_msg, "%s", message);
}

/* Length of a "name.c:123: " prefix at s, 0 if there is none. */
static size_t prefix_len(const char *s)
{
    size_t i = 0;
    while (isalnum((unsigned char)s[i]) || s[i] == '_')
        i++;
    if (i == 0 || strncmp(s + i, ".c:", 3) != 0)
        return 0;
    i += 3;
    size_t d = i;
    while (isdigit((unsigned char)s[i]))
        i++;
    if (i == d || s[i] != ':' || s[i + 1] != ' ')
        return 0;
    return i + 2;
}

static void check_message(dmxt_checker *C, const char *what)
{
    const char *m = dmx_last_error();
    size_t k = prefix_len(m);
    if (m[0] == '\0')
        dmxt_fail(C, "%s: empty message", what);
    else if (k == 0)
        dmxt_fail(C, "%s: message does not start with file:line: \"%s\"", what, m);
    else if (m[k] == '\0')
        dmxt_fail(C, "%s: nothing after the prefix: \"%s\"", what, m);
    for (size_t i = 1; m[i] != '\0'; i++)
        if (!isalnum((unsigned char)m[i - 1]) && m[i - 1] != '_' && prefix_len(m + i) > 0) {
            dmxt_fail(C, "%s: doubled file:line prefix: \"%s\"", what, m);
            break;
        }
}

/* Expect status want on every rank, handles NULL, and a good message on every rank. */
static void expect(dmxt_ctx *ctx, dmxt_checker *C, dmx_status got, dmx_status want,
                   const void *handle, const char *what)
{
    char m[500];
    if (dmxt_expect_status(ctx, got, want, what, m, sizeof m))
        dmxt_fail(C, "%s", m);
    if (handle != NULL)
        dmxt_fail(C, "%s: a handle was created", what);
    check_message(C, what);
}

enum {
    BC_M_NEG,
    BC_MB_ZERO,
    BC_GRID,
    BC_RSRC,
    BC_ORDER,
    BC_LLD,
    BC_OUT_NULL,
    BC_DIFFERENT,
    BC_COMM_NULL,
    CU_COMM_NULL,
    MAP_NULL,
    MAP_REPEATED,
    CU_SPLITS,
    CU_OWNERS_NULL,
    CU_NLOCAL,
    LO_OUTSIDE,
    LO_NLOCAL_NEG,
    LO_COVER,
    V_OUTSIDE,
    V_OUT_NULL,
    V_DIFFERENT,
    V_PARENT_NULL,
    V_LOCAL_ONLY,
    P_DTYPE,
    P_DIFFERENT,
    P_SAME_DESCRIPTION,
    P_ZERO,
    P_TRANSFORMS_NULL,
    P_A_NULL,
    P_SIZE,
    P_OUT_NULL,
    P_OVERFLOW,
    P_NOMEM,
    P_EXECUTE_NULL,
    P_SECOND_ON_DUP,
    P_RELABELED_ZERO,
    ONCE_B_NULL,
    L_REBIND_NULL,
    L_REBIND_CUSTOM,
    L_SCALARS,
    L_INFO_NULL,
    L_SIZE_NULL,
    L_BLOCK_RANGE,
    NCASES
};

static const char *names[NCASES] = {"block-cyclic m < 0",
                                    "block-cyclic mb = 0",
                                    "block-cyclic grid too big",
                                    "block-cyclic rsrc outside",
                                    "block-cyclic order 'X'",
                                    "block-cyclic lld too small",
                                    "block-cyclic out = NULL",
                                    "block-cyclic descriptions differ",
                                    "mapped grid_ranks NULL",
                                    "mapped rank repeated",
                                    "custom splits not increasing",
                                    "custom owners NULL",
                                    "custom nlocal wrong",
                                    "local block outside",
                                    "local nlocal < 0",
                                    "local blocks miss area",
                                    "view outside",
                                    "view out = NULL",
                                    "view windows differ",
                                    "view of a NULL parent (every rank)",
                                    "view of a local-only layout",
                                    "plan dtype 9",
                                    "plan transforms differ (op N vs T)",
                                    "plan different layouts with one description",
                                    "plan of 0 transforms (every rank)",
                                    "plan transforms = NULL (every rank)",
                                    "plan transform.a = NULL",
                                    "plan op(B) size differs",
                                    "plan out = NULL",
                                    "plan 2^32 x 2^32",
                                    "plan A without memory",
                                    "execute a NULL plan (every rank)",
                                    "transform_once with B = NULL",
                                    "rebind to NULL (owner)",
                                    "rebind a custom layout",
                                    "set_scalars k out of range",
                                    "get_info NULL",
                                    "get_size NULL",
                                    "get_local_block k out of range"};

static void run(dmxt_ctx *ctx, int c, dmxt_checker *C)
{
    const int P = ctx->size, me = ctx->rank, bad = me == 0;
    MPI_Comm W = MPI_COMM_WORLD;
    dmxt_matrix A, B;
    dmxt_matrix_bc(&A, W, DMX_DOUBLE, 6, 6, 1, 2, P, 1, 'R', NULL, 0, 0, 0);
    int64_t rs[3] = {0, 4, 6}, cs[3] = {0, 3, 6};
    int owners[4] = {0, 1 % P, 2 % P, 3 % P};
    dmxt_matrix_custom(&B, W, DMX_DOUBLE, 6, 6, 2, rs, 2, cs, owners, NULL, NULL);
    if (dmxt_matrix_create(&A) != DMX_SUCCESS || dmxt_matrix_create(&B) != DMX_SUCCESS) {
        dmxt_fail(C, "creating the test layouts: %s", dmx_last_error());
        return;
    }
    dmx_layout *L = NULL, *L2 = NULL;
    dmx_plan *plan = NULL;
    dmx_status st = DMX_SUCCESS, want = DMX_ERR_ARG;
    int want_handler = 0;
    static double mem[64];
    int64_t spl[3] = {0, 4, 4}, one[2] = {0, 6};
    dmx_block blk = {me, 0, mem, 6, DMX_COL_MAJOR};
    dmx_local_block lb = {0, 0, 6, 6, mem, 6, DMX_COL_MAJOR};
    int grid[4] = {0, 0, 0, 0};
    dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
    handler_calls = 0;
    switch (c) {
    case BC_M_NEG:
        st = dmx_layout_create_block_cyclic(W, bad ? -1 : 6, 6, 2, 2, 1, 1, 'R', 0, 0, NULL, 1, &L);
        break;
    case BC_MB_ZERO:
        st = dmx_layout_create_block_cyclic(W, 6, 6, bad ? 0 : 2, 2, 1, 1, 'R', 0, 0, NULL, 1, &L);
        break;
    case BC_GRID:
        st = dmx_layout_create_block_cyclic(W, 6, 6, 2, 2, bad ? P + 1 : 1, 1, 'R', 0, 0, NULL, 1,
                                            &L);
        break;
    case BC_RSRC:
        st = dmx_layout_create_block_cyclic(W, 6, 6, 2, 2, 1, 1, 'R', bad ? 1 : 0, 0, NULL, 1, &L);
        break;
    case BC_ORDER:
        st =
            dmx_layout_create_block_cyclic(W, 6, 6, 2, 2, 1, 1, bad ? 'X' : 'R', 0, 0, NULL, 1, &L);
        break;
    case BC_LLD: /* rank 0 owns the 1 x 1 grid's 6 rows */
        st = dmx_layout_create_block_cyclic(W, 6, 6, 2, 2, 1, 1, 'R', 0, 0, mem, bad ? 3 : 6, &L);
        break;
    case BC_OUT_NULL:
        want = DMX_ERR_NULL;
        st = dmx_layout_create_block_cyclic(W, 6, 6, 2, 2, 1, 1, 'R', 0, 0, NULL, 1,
                                            bad ? NULL : &L);
        break;
    case BC_DIFFERENT:
        if (P < 2)
            goto done;
        want = DMX_ERR_LAYOUT;
        st = dmx_layout_create_block_cyclic(W, 6, bad ? 5 : 6, 2, 2, 1, 1, 'R', 0, 0, NULL, 1, &L);
        break;
    case BC_COMM_NULL:
        want_handler = 1;
        st =
            dmx_layout_create_block_cyclic(MPI_COMM_NULL, 6, 6, 2, 2, 1, 1, 'R', 0, 0, NULL, 1, &L);
        break;
    case CU_COMM_NULL:
        want_handler = 1;
        st = dmx_layout_create_custom(MPI_COMM_NULL, 6, 6, 1, one, 1, one, owners, 0, &blk, &L);
        break;
    case MAP_NULL:
        want = DMX_ERR_NULL;
        st = dmx_layout_create_block_cyclic_mapped(W, 6, 6, 2, 2, 1, 1, bad ? NULL : grid, 0, 0,
                                                   NULL, 1, &L);
        break;
    case MAP_REPEATED:
        if (P < 2)
            goto done;
        st = dmx_layout_create_block_cyclic_mapped(W, 6, 6, 2, 2, 1, 2, grid, 0, 0, NULL, 1, &L);
        break;
    case CU_SPLITS: /* rank 0 passes splits {0, 4, 4} */
        want = DMX_ERR_LAYOUT;
        st = dmx_layout_create_custom(W, 6, 6, 2, bad ? spl : rs, 1, one, owners, me < 2 ? 1 : 0,
                                      &blk, &L);
        break;
    case CU_OWNERS_NULL:
        want = DMX_ERR_NULL;
        st = dmx_layout_create_custom(W, 6, 6, 1, one, 1, one, bad ? NULL : owners, bad ? 1 : 0,
                                      &blk, &L);
        break;
    case CU_NLOCAL:
        want = DMX_ERR_LAYOUT;
        st = dmx_layout_create_custom(W, 6, 6, 1, one, 1, one, owners, 0, &blk, &L);
        break;
    case LO_OUTSIDE:
        want = DMX_ERR_LAYOUT;
        lb.row0 = bad ? 3 : 0;
        st = dmx_layout_create_local(W, 6, 6, bad ? 1 : 0, &lb, &L);
        break;
    case LO_NLOCAL_NEG: st = dmx_layout_create_local(W, 6, 6, bad ? -1 : 0, &lb, &L); break;
    case LO_COVER: /* rank 0 passes a 3 x 6 half: the blocks cover 18 of 36 elements */
        want = DMX_ERR_LAYOUT;
        lb.rows = 3;
        st = dmx_layout_create_local(W, 6, 6, bad ? 1 : 0, &lb, &L);
        break;
    case V_OUTSIDE: st = dmx_layout_create_view(A.layout, bad ? 5 : 0, 0, 2, 2, &L); break;
    case V_OUT_NULL:
        want = DMX_ERR_NULL;
        st = dmx_layout_create_view(A.layout, 0, 0, 2, 2, bad ? NULL : &L);
        break;
    case V_DIFFERENT:
        if (P < 2)
            goto done;
        want = DMX_ERR_LAYOUT;
        st = dmx_layout_create_view(A.layout, bad ? 1 : 0, 0, 2, 2, &L);
        break;
    case V_PARENT_NULL:
        want = DMX_ERR_NULL, want_handler = 1;
        st = dmx_layout_create_view(NULL, 0, 0, 2, 2, &L);
        break;
    case V_LOCAL_ONLY: {
        want = DMX_ERR_UNSUPPORTED;
        st = dmx_layout_create_local(W, 6, 6, me == 0 ? 1 : 0, &lb, &L2);
        if (st == DMX_SUCCESS)
            st = dmx_layout_create_view(L2, 0, 0, 2, 2, &L);
        break;
    }
    case P_DTYPE:
        t.dtype = bad ? (dmx_dtype)9 : DMX_DOUBLE;
        st = dmx_plan_create(1, &t, &plan);
        break;
    case P_DIFFERENT:
        if (P < 2)
            goto done;
        t.op = bad ? DMX_OP_T : DMX_OP_N;
        st = dmx_plan_create(1, &t, &plan);
        break;
    case P_SAME_DESCRIPTION: /* rank 0 passes a second layout of the same description as A */
        if (P < 2)
            goto done;
        st = dmx_layout_create_block_cyclic(W, 6, 6, 1, 2, P, 1, 'R', 0, 0, dmxt_matrix_local(&A),
                                            A.lld, &L2);
        if (st == DMX_SUCCESS) {
            t.a = bad ? L2 : A.layout;
            st = dmx_plan_create(1, &t, &plan);
        }
        break;
    case P_ZERO:
        want_handler = 1;
        st = dmx_plan_create(0, &t, &plan);
        break;
    case P_TRANSFORMS_NULL:
        want = DMX_ERR_NULL, want_handler = 1;
        st = dmx_plan_create(1, NULL, &plan);
        break;
    case P_A_NULL:
        want = DMX_ERR_NULL;
        t.a = bad ? NULL : A.layout;
        st = dmx_plan_create(1, &t, &plan);
        break;
    case P_SIZE:
        want = DMX_ERR_LAYOUT;
        st = dmx_layout_create_view(B.layout, 0, 0, 6, 5, &L2);
        t.b = bad ? L2 : B.layout;
        if (st == DMX_SUCCESS)
            st = dmx_plan_create(1, &t, &plan);
        break;
    case P_OUT_NULL:
        want = DMX_ERR_NULL;
        st = dmx_plan_create(1, &t, bad ? NULL : &plan);
        break;
    case P_OVERFLOW:
        want = DMX_ERR_OVERFLOW;
        st = dmx_layout_create_block_cyclic(W, (int64_t)1 << 32, (int64_t)1 << 32, (int64_t)1 << 30,
                                            (int64_t)1 << 30, 1, 1, 'R', 0, 0, NULL, 1, &L2);
        t.a = L2;
        t.b = L2;
        if (st == DMX_SUCCESS)
            st = dmx_plan_create(1, &t, &plan);
        break;
    case P_NOMEM: /* A's description without memory on rank 0, which owns rows */
        want = DMX_ERR_NULL;
        st = dmx_layout_create_block_cyclic(W, 6, 6, 1, 2, P, 1, 'R', 0, 0,
                                            bad ? NULL : dmxt_matrix_local(&A), A.lld, &L2);
        t.a = L2;
        if (st == DMX_SUCCESS)
            st = dmx_plan_create(1, &t, &plan);
        break;
    case P_EXECUTE_NULL:
        want = DMX_ERR_NULL, want_handler = 1;
        st = dmx_plan_execute(NULL);
        break;
    case P_SECOND_ON_DUP: { /* same description, same memory, but another layout on a dup */
        if (P < 2)
            goto done;
        MPI_Comm dupc = MPI_COMM_NULL;
        MPI_Comm_dup(W, &dupc);
        st = dmx_layout_create_block_cyclic(dupc, 6, 6, 1, 2, P, 1, 'R', 0, 0,
                                            dmxt_matrix_local(&A), A.lld, &L2);
        dmx_transform two[2] = {t, t};
        two[1].b = A.layout;
        if (bad)
            two[1].b = L2;
        if (st == DMX_SUCCESS)
            st = dmx_plan_create(2, two, &plan);
        MPI_Comm_free(&dupc); /* L2 and a plan, if one was made, do not need it to be freed */
        break;
    }
    case P_RELABELED_ZERO: {
        int sigma[64];
        MPI_Comm nc = MPI_COMM_NULL;
        dmx_layout *rl[1] = {NULL};
        want_handler = 1;
        st = dmx_plan_create_relabeled(0, &t, NULL, sigma, &nc, rl, &plan, NULL);
        if (nc != MPI_COMM_NULL || rl[0] != NULL)
            dmxt_fail(C, "relabeled plan of 0 transforms created a communicator or layout");
        break;
    }
    case ONCE_B_NULL:
        want = DMX_ERR_NULL;
        st = dmx_transform_once(DMX_DOUBLE, DMX_OP_N, t.alpha, bad ? NULL : B.layout, t.beta,
                                A.layout);
        break;
    case L_REBIND_NULL: /* every rank owns rows of A (P x 1 grid of 1-row blocks, 6 rows) */
        if (P > 6)
            goto done;
        want = DMX_ERR_NULL;
        st = dmx_layout_rebind(A.layout, NULL);
        break;
    case L_REBIND_CUSTOM:
        want = DMX_ERR_UNSUPPORTED;
        st = dmx_layout_rebind(B.layout, mem);
        break;
    case L_SCALARS: {
        dmx_plan *p = NULL;
        st = dmx_plan_create(1, &t, &p);
        if (st == DMX_SUCCESS)
            st = dmx_plan_set_scalars(p, 1, t.alpha, t.beta);
        dmx_plan_destroy(&p);
        break;
    }
    case L_INFO_NULL:
        want = DMX_ERR_NULL;
        st = dmx_plan_get_info(NULL, NULL);
        break;
    case L_SIZE_NULL:
        want = DMX_ERR_NULL;
        st = dmx_layout_get_size(NULL, NULL, NULL);
        break;
    case L_BLOCK_RANGE:
        st = dmx_layout_get_local_block(A.layout, 1000, DMX_DOUBLE, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL);
        break;
    }
    /* L is only ever the output of the failing call (helpers go to L2), so it and plan must be
     * NULL */
    expect(ctx, C, st, want, L ? (const void *)L : (const void *)plan, names[c]);
    if (handler_calls != want_handler)
        dmxt_fail(C, "%s: the error handler was called %d times, expected %d", names[c],
                  handler_calls, want_handler);
    else if (want_handler && strcmp(handler_msg, dmx_last_error()) != 0)
        dmxt_fail(C, "%s: the handler saw \"%s\", dmx_last_error() is \"%s\"", names[c],
                  handler_msg, dmx_last_error());
done:
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&L);
    dmx_layout_destroy(&L2);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_messages");
    dmx_set_error_handler(returning_handler);
    for (int c = 0; c < NCASES; c++) {
        dmxt_set_current(names[c]);
        dmxt_checker C = {.ctx = &ctx};
        run(&ctx, c, &C);
        if (ctx.rank == 0 && getenv("DMX_TEST_VERBOSE"))
            printf("  %-45s %s\n", names[c], dmx_last_error());
        dmxt_case_end(&ctx, C.bad, C.msg, names[c]);
    }
    return dmxt_finish(&ctx);
}
