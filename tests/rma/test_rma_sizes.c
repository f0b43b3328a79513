/* SPDX-License-Identifier: BSD-3-Clause */
/* Issue 30: heap sizes whose node total cannot exist fail cleanly. dmx_rma_alloc(comm,
 * INT64_MAX, &h) used to crash at 2 ranks (the MPI library's sum of the node's parts wrapped,
 * the shared window "allocated" a small segment and the zeroing wrote past it) and hang at 3.
 * Now every rank returns DMX_ERR_OVERFLOW when the node's total (parts on this node x size)
 * does not fit in 64 bits, DMX_ERR_ALLOC when it fits but exceeds the node's physical memory,
 * within 10 s, with no heap made and a message naming the reason; the communicator then still
 * serves a valid heap.
 *
 * Reference: the expected status comes from the test's own count of the node's ranks
 * (MPI_Comm_split_type) and the compiler's overflow check of count x size, for sizes chosen so
 * that any rounding of a part to a page boundary cannot change the verdict; physical memory from
 * sysconf. Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (dmxtest.h). */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The status the node's total of nnode parts of `bytes` calls for. */
static dmx_status expected(int64_t bytes, int nnode)
{
    int64_t total = 0;
    if (__builtin_mul_overflow(bytes, (int64_t)nnode, &total) || total > INT64_MAX - (1 << 30))
        return DMX_ERR_OVERFLOW;
    return DMX_ERR_ALLOC;
}

static void one_case(dmxt_ctx *ctx, int64_t bytes, int nnode, const char *what)
{
    dmxt_checker C = {ctx, 0, ""};
    dmx_status want = expected(bytes, nnode);
    dmx_rma_heap *h = NULL;
    char desc[160];
    snprintf(desc, sizeof desc, "dmx_rma_alloc of %lld bytes (%s), %d node ranks", (long long)bytes,
             what, nnode);
    dmxt_set_current(desc);
    double t0 = MPI_Wtime();
    dmx_status st = dmx_rma_alloc(ctx->comm, bytes, &h);
    double dt = MPI_Wtime() - t0;
    const char *words = want == DMX_ERR_OVERFLOW ? "does not fit in 64 bits" : "physical memory";
    char msg[600] = "";
    if (dmxt_expect_status(ctx, st, want, "dmx_rma_alloc", msg, sizeof msg) != 0)
        dmxt_fail(&C, "%s", msg);
    if (st == want && !strstr(dmx_last_error(), words) &&
        !strstr(dmx_last_error(), "another rank failed"))
        dmxt_fail(&C, "the message \"%s\" does not say \"%s\"", dmx_last_error(), words);
    if (h != NULL)
        dmxt_fail(&C, "a heap was returned");
    if (dt > 10.0)
        dmxt_fail(&C, "took %.1f s", dt);
    dmx_rma_free(&h);
    dmxt_case_end(ctx, C.bad, C.msg, desc);
}

/* A valid heap on the same communicator afterwards: each rank puts its rank into the next
 * rank's heap and reads its own after a barrier. */
static void still_works(dmxt_ctx *ctx)
{
    dmxt_checker C = {ctx, 0, ""};
    dmx_rma_heap *h = NULL;
    dmxt_set_current("a valid heap afterwards");
    dmx_status st = dmx_rma_alloc(ctx->comm, 4096, &h);
    if (st != DMX_SUCCESS) {
        dmxt_fail(&C, "dmx_rma_alloc(4096) failed: %s", dmx_last_error());
    } else {
        double mine = ctx->rank, *base = dmxt_heap_base(h);
        int next = (ctx->rank + 1) % ctx->size, prev = (ctx->rank + ctx->size - 1) % ctx->size;
        if (dmx_aput(h, DMX_DOUBLE, base, &mine, 1, 1, 1, 1, next) != DMX_SUCCESS ||
            dmx_rma_barrier(h) != DMX_SUCCESS)
            dmxt_fail(&C, "put or barrier failed: %s", dmx_last_error());
        else if (base[0] != prev)
            dmxt_fail(&C, "heap holds %g, want %d", base[0], prev);
    }
    dmx_rma_free(&h);
    dmxt_case_end(ctx, C.bad, C.msg, "a valid heap afterwards");
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_rma_sizes");
    MPI_Comm node;
    int nnode = 0;
    MPI_Comm_split_type(ctx.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nnode);
    MPI_Comm_free(&node);
    /* the node with the most ranks decides (every rank fails when any node does) */
    MPI_Allreduce(MPI_IN_PLACE, &nnode, 1, MPI_INT, MPI_MAX, ctx.comm);
    one_case(&ctx, INT64_MAX, nnode, "INT64_MAX");
    one_case(&ctx, (int64_t)1 << 62, nnode, "2^62");
    one_case(&ctx, (int64_t)1 << 61, nnode, "2^61");
    one_case(&ctx, INT64_MAX / 3 + 1, nnode, "INT64_MAX / 3 + 1");
    /* fits in 64 bits, but 4 times the node's memory */
    const long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
    long double mem = (long double)pages * pagesize;
    if (pages > 0 && pagesize > 0 && 4 * mem / nnode < 1e18) {
        int64_t big = (int64_t)(4 * mem / nnode);
        one_case(&ctx, big, nnode, "4 x physical memory in all");
    }
    still_works(&ctx);
    return dmxt_finish(&ctx);
}
