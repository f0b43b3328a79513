/* SPDX-License-Identifier: BSD-3-Clause */
/* Issue 30: a multiply whose sizes dmx_gemm cannot take fails at once with the real reason.
 * dmx_gemm takes m, n and k up to INT_MAX (its local multiplies call CBLAS with int sizes);
 * beyond that every rank must return DMX_ERR_OVERFLOW within 10 s, with a message naming the
 * sizes and CBLAS's int, and no plan made.
 *
 * Usage: test_gemm_sizes CASE
 *   k:      A 4 x 2^31 and B 2^31 x 4 without memory, C 4 x 4 with memory. Before, the model's
 *           search for the grid and panels ran for minutes over k before the size was checked.
 *   square: the three memoryless 2^31 x 2^31 layouts (2^28 x 2^28 blocks on a 1 x P
 *           grid, lld 2^31, NULL data). Before, their blocks' addresses (NULL plus offsets)
 *           counted as memory shared by C and A, and the user read "C overlaps A or B". This
 *           case passes only once the aliasing check of gemm_plan.c no longer counts layouts
 *           without memory as overlapping (the other half of issue 30's work on that check).
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (dmxtest.h). */
#include "dmxtest.h"

#include "dmx/gemm.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_gemm_sizes");
    const char *which = argc > 1 ? argv[1] : "k";
    const int P = ctx.size;
    const int64_t big = (int64_t)1 << 31, blk = (int64_t)1 << 28;
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    dmx_layout *A = NULL, *B = NULL, *C = NULL;
    double c[16] = {0};
    dmx_status s[3];
    char want_words[64];
    if (strcmp(which, "square") == 0) {
        for (int i = 0; i < 3; i++)
            s[i] = dmx_layout_create_block_cyclic(ctx.comm, big, big, blk, blk, 1, P, 'R', 0, 0,
                                                  NULL, big,
                                                  i == 0   ? &A
                                                  : i == 1 ? &B
                                                           : &C);
        snprintf(want_words, sizeof want_words, "is %lld x %lld with k = %lld", (long long)big,
                 (long long)big, (long long)big);
    } else {
        /* C: one 4 x 4 block on rank 0 (lld 4), nothing elsewhere */
        s[0] =
            dmx_layout_create_block_cyclic(ctx.comm, 4, big, 4, blk, 1, P, 'R', 0, 0, NULL, 4, &A);
        s[1] = dmx_layout_create_block_cyclic(ctx.comm, big, 4, blk, 4, P, 1, 'R', 0, 0, NULL, blk,
                                              &B);
        s[2] = dmx_layout_create_block_cyclic(ctx.comm, 4, 4, 4, 4, 1, 1, 'R', 0, 0, c, 4, &C);
        snprintf(want_words, sizeof want_words, "is 4 x 4 with k = %lld", (long long)big);
    }
    dmxt_checker K = {&ctx, 0, ""};
    char desc[96];
    snprintf(desc, sizeof desc, "dmx_gemm beyond CBLAS's int (%s)", which);
    dmxt_set_current(desc);
    if (s[0] != DMX_SUCCESS || s[1] != DMX_SUCCESS || s[2] != DMX_SUCCESS) {
        dmxt_fail(&K, "creating the layouts: %s", dmx_last_error());
    } else {
        dmx_gemm_plan *g = NULL;
        double t0 = MPI_Wtime();
        dmx_status st = dmx_gemm_plan_create(ctx.comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A, B,
                                             zero, C, NULL, &g);
        double dt = MPI_Wtime() - t0;
        char msg[600] = "";
        const char *last = dmx_last_error();
        if (dmxt_expect_status(&ctx, st, DMX_ERR_OVERFLOW, "dmx_gemm_plan_create", msg,
                               sizeof msg) != 0)
            dmxt_fail(&K, "%s", msg);
        else if (!strstr(last, want_words) || !strstr(last, "CBLAS"))
            dmxt_fail(&K, "the message \"%s\" does not name the sizes (\"%s\") and CBLAS", last,
                      want_words);
        if (g != NULL)
            dmxt_fail(&K, "a plan was made");
        if (dt > 10.0)
            dmxt_fail(&K, "took %.1f s", dt);
        dmx_gemm_plan_destroy(&g);
        /* the one-shot call: the same reason */
        st = dmx_gemm(ctx.comm, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, A, B, zero, C, NULL);
        msg[0] = '\0';
        if (dmxt_expect_status(&ctx, st, DMX_ERR_OVERFLOW, "dmx_gemm", msg, sizeof msg) != 0)
            dmxt_fail(&K, "%s", msg);
    }
    dmxt_case_end(&ctx, K.bad, K.msg, desc);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&B);
    dmx_layout_destroy(&C);
    return dmxt_finish(&ctx);
}
