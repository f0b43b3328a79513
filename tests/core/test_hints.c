/* SPDX-License-Identifier: BSD-3-Clause */
/* A failure to make the info object of a collective creation call, on one rank only, is reported
 * on every rank and hangs none.
 *
 * Three places hand hints to a collective call that makes a window: the redistribution engine's
 * shared window (src/exec/shm.c), the shared segment of a dmx_rma_alloc heap (rma_heap.c) and
 * RSX's counter window (exchange_common.c). Each used to return at once when MPI_Info_create
 * failed, leaving the other ranks of the node waiting in the collective call. This file defines
 * MPI_Info_create, which fails (MPI_ERR_OTHER, no object made) on the last rank while armed.
 * Every case runs on a fresh duplicate of MPI_COMM_WORLD (nothing kept from earlier calls):
 *  - armed: the call returns DMX_ERR_MPI on every rank, the last rank's message names
 *    MPI_Info_create; a hang ends the test through its watchdog;
 *  - then unarmed, on the same communicator: the call succeeds and its result is right (the
 *    redistribution is checked element by element, the exchange's payloads byte by byte).
 * A case whose call never reached MPI_Info_create on the last rank fails, except where nothing
 * is expected to make one: one rank (no node peer: no shared window, no heap segment) and RSX
 * under Open MPI before 5 (it takes its census without a window there).
 * Prints "N passed, N failed" from rank 0.
 */
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int armed;     /* fail MPI_Info_create on this rank while set */
static long n_failed; /* failures returned */

int MPI_Info_create(MPI_Info *info)
{
    if (armed) {
        n_failed++;
        return MPI_ERR_OTHER;
    }
    return PMPI_Info_create(info);
}

/* Whether RSX makes a window on this MPI (dmxi_xchg_rma_unsafe: not on Open MPI before 5). */
static int rsx_has_window(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0, major = 0;
    MPI_Get_library_version(v, &len);
    const char *p = strstr(v, "Open MPI v");
    return !(p && sscanf(p + strlen("Open MPI v"), "%d", &major) == 1 && major < 5);
}

/* Judge the armed call: DMX_ERR_MPI everywhere, the failure named on the last rank, and the
 * failure really injected there when expected (want_made). Returns the local problems. */
static int64_t judge_armed(dmxt_ctx *ctx, dmx_status st, int want_made, const char *what, char *msg,
                           size_t len)
{
    const int victim = ctx->rank == ctx->size - 1;
    armed = 0;
    int made = victim && n_failed > 0;
    MPI_Allreduce(MPI_IN_PLACE, &made, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (!made) {
        if (want_made) {
            snprintf(msg, len, "%s never called MPI_Info_create on the last rank", what);
            return 1;
        }
        return dmxt_expect_status(ctx, st, DMX_SUCCESS, what, msg, len);
    }
    int64_t bad = dmxt_expect_status(ctx, st, DMX_ERR_MPI, what, msg, len);
    if (bad == 0 && victim && !strstr(dmx_last_error(), "MPI_Info_create")) {
        snprintf(msg, len, "%s: the error does not name MPI_Info_create: %s", what,
                 dmx_last_error());
        bad++;
    }
    return bad;
}

static void arm(dmxt_ctx *ctx)
{
    n_failed = 0;
    armed = ctx->rank == ctx->size - 1;
}

/* A redistribution between two block-cyclic layouts of an m x m double matrix (1 x P to P x 1
 * grids), large enough for the engine with rings in a shared window. */
static void plan_case(dmxt_ctx *ctx)
{
    const char *desc = "dmx_plan_create with MPI_Info_create failing on the last rank";
    dmxt_set_current(desc);
    char msg[600] = "";
    int64_t bad = 0;
    const int64_t m = 512, nb = 8, p = ctx->size;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(ctx->comm, &comm);
    /* local sizes: B m x (<= ceil(m/nb/p)*nb columns), A (<= ceil(m/nb/p)*nb rows) x m */
    const int64_t lmax = ((m / nb + p - 1) / p) * nb;
    double *bm = calloc((size_t)(m * lmax), sizeof *bm),
           *am = calloc((size_t)(lmax * m), sizeof *am);
    dmx_layout *B = NULL, *A = NULL;
    dmx_plan *plan = NULL;
    dmx_status st = bm && am ? DMX_SUCCESS : DMX_ERR_ALLOC;
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic(comm, m, m, nb, nb, 1, (int)p, 'R', 0, 0, bm, m, &B);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic(comm, m, m, nb, nb, (int)p, 1, 'R', 0, 0, am, lmax, &A);
    if (st != DMX_SUCCESS) {
        snprintf(msg, sizeof msg, "setup: %s", dmx_last_error());
        dmxt_case_end(ctx, 1, msg, desc);
        goto done;
    }
    /* B(i, j) = i + m*j, held by rank (j/nb) % p at local (i, (j/nb/p)*nb + j%nb) */
    for (int64_t j = 0; j < m; j++)
        if ((j / nb) % p == ctx->rank)
            for (int64_t i = 0; i < m; i++)
                bm[i + ((j / nb / p) * nb + j % nb) * m] = (double)(i + m * j);
    const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    const dmx_transform t = {DMX_DOUBLE, DMX_OP_N, one, zero, B, A, 0, 0};
    arm(ctx);
    st = dmx_plan_create(1, &t, &plan);
    bad += judge_armed(ctx, st, ctx->size > 1, "dmx_plan_create, armed", msg, sizeof msg);
    if (plan)
        dmx_plan_destroy(&plan);
    st = dmx_plan_create(1, &t, &plan);
    if (st == DMX_SUCCESS)
        st = dmx_plan_execute(plan);
    if (st != DMX_SUCCESS) {
        if (!bad)
            snprintf(msg, sizeof msg, "unarmed: %s", dmx_last_error());
        bad++;
    } else {
        dmx_plan_info info;
        dmx_plan_get_info(plan, &info);
        if (ctx->size > 1 && info.npeers_shared_memory == 0 && !bad) {
            snprintf(msg, sizeof msg, "unarmed: no shared-memory peer");
            bad++;
        }
        /* A(i, j) held by rank (i/nb) % p at local ((i/nb/p)*nb + i%nb, j) */
        for (int64_t i = 0; i < m && !bad; i++)
            if ((i / nb) % p == ctx->rank)
                for (int64_t j = 0; j < m; j++) {
                    const double got = am[(i / nb / p) * nb + i % nb + j * lmax];
                    if (got != (double)(i + m * j)) {
                        snprintf(msg, sizeof msg, "A(%lld, %lld) = %g, want %g", (long long)i,
                                 (long long)j, got, (double)(i + m * j));
                        bad++;
                        break;
                    }
                }
    }
    dmx_plan_destroy(&plan);
    dmxt_case_end(ctx, bad, msg, desc);
done:
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&B);
    free(am);
    free(bm);
    MPI_Comm_free(&comm);
}

static void heap_case(dmxt_ctx *ctx)
{
    const char *desc = "dmx_rma_alloc with MPI_Info_create failing on the last rank";
    dmxt_set_current(desc);
    char msg[600] = "";
    int64_t bad = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(ctx->comm, &comm);
    dmx_rma_heap *h = NULL;
    arm(ctx);
    dmx_status st = dmx_rma_alloc(comm, 1 << 16, &h);
    bad += judge_armed(ctx, st, ctx->size > 1, "dmx_rma_alloc, armed", msg, sizeof msg);
    if (h)
        dmx_rma_free(&h);
    st = dmx_rma_alloc(comm, 1 << 16, &h);
    if (st == DMX_SUCCESS)
        st = dmx_rma_free(&h);
    if (st != DMX_SUCCESS) {
        if (!bad)
            snprintf(msg, sizeof msg, "unarmed: %s", dmx_last_error());
        bad++;
    }
    dmxt_case_end(ctx, bad, msg, desc);
    MPI_Comm_free(&comm);
}

/* RSX: every rank sends its rank number to every rank. */
static void rsx_case(dmxt_ctx *ctx)
{
    const char *desc = "dmx_exchange (RSX) with MPI_Info_create failing on the last rank";
    dmxt_set_current(desc);
    char msg[600] = "";
    int64_t bad = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(ctx->comm, &comm);
    int *payload = malloc((size_t)ctx->size * sizeof *payload);
    dmx_exchange_send *s = malloc((size_t)ctx->size * sizeof *s);
    if (!payload || !s) {
        dmxt_case_end(ctx, 1, "out of memory", desc);
        goto done;
    }
    for (int r = 0; r < ctx->size; r++) {
        payload[r] = 1000 * ctx->rank + r;
        s[r] = (dmx_exchange_send){r, &payload[r], (int64_t)sizeof payload[r]};
    }
    dmx_exchange_result *res = NULL;
    arm(ctx);
    dmx_status st = dmx_exchange(comm, DMX_EXCHANGE_RSX, ctx->size, s, &res);
    bad += judge_armed(ctx, st, rsx_has_window(), "dmx_exchange, armed", msg, sizeof msg);
    dmx_exchange_result_destroy(&res);
    st = dmx_exchange(comm, DMX_EXCHANGE_RSX, ctx->size, s, &res);
    int64_t n = -1;
    if (st == DMX_SUCCESS)
        st = dmx_exchange_result_get_count(res, &n);
    if (st != DMX_SUCCESS || n != ctx->size) {
        if (!bad)
            snprintf(msg, sizeof msg, "unarmed: %s, %lld entries", dmx_last_error(), (long long)n);
        bad++;
    }
    int seen = 0;
    for (int64_t i = 0; i < n && st == DMX_SUCCESS && !bad; i++) {
        int src = -1, v = -1;
        const void *data = NULL;
        int64_t bytes = 0;
        dmx_exchange_result_get(res, i, &src, &data, &bytes);
        if (bytes == (int64_t)sizeof v)
            memcpy(&v, data, sizeof v);
        if (src < 0 || src >= ctx->size || v != 1000 * src + ctx->rank || (seen >> src & 1)) {
            snprintf(msg, sizeof msg, "unarmed: entry %lld from %d holds %d (%lld bytes)",
                     (long long)i, src, v, (long long)bytes);
            bad++;
        }
        if (src >= 0 && src < 31)
            seen |= 1 << src;
    }
    dmx_exchange_result_destroy(&res);
    dmxt_case_end(ctx, bad, msg, desc);
done:
    free(s);
    free(payload);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_hints");
    plan_case(&ctx);
    heap_case(&ctx);
    rsx_case(&ctx);
    return dmxt_finish(&ctx);
}
