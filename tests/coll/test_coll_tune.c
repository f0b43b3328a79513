/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: AUTO's tuning by measurement (src/coll/coll_tune.c).
 *
 * For every collective, at a block of 256 KiB (long enough for the model to let it be tuned):
 *  1. the MPI library's call made slow (rank 0 sleeps 50 ms in each call of it, the test hook
 *     dmxi_coll_test_slow_alg): AUTO is called until dmx_coll_auto_choice says settled; it must
 *     settle within 2 x 7 candidates x 2 rounds calls, on the same algorithm on every rank, not
 *     on the slow one, after exactly one tuning allreduce (counted through PMPI: MPI_MAX of
 *     doubles), with MPI's call among the trials, and every call's result (trials included)
 *     must equal MPI's;
 *  2. the model's first candidate made slow instead, at a block of 512 KiB: the trials must
 *     overrule the model and settle elsewhere;
 *  3. the settled choice stays: three more calls, correct, and the query unchanged;
 *  7. in every case above the trials ran exactly MPI's call and every algorithm the model
 *     predicts within 4x of its best (a cap of six left out the 2D grid broadcast, predicted
 *     last at np 4 and measured best there from 2 MiB on);
 *  4. a duplicate of MPI_COMM_WORLD starts untuned (tuning is per communicator) and its table
 *     is freed with it (the sanitizer build's leak check);
 *  6. under a model that predicts MPI's allreduce 10x slower than the best (beyond the 4x span)
 *     MPI's call is still among the trials;
 *  5. with tuning off (dmxi_coll_tune_rounds = 0, what DMX_COLL_TUNE=0 sets) the query is
 *     settled at once on the model's choice (dmx_coll_choose); one rank: never tuned.
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (tests/common). */
#define _POSIX_C_SOURCE 200809L
#include "coll/coll_internal.h"
#include "dmx/expert.h"
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tuning allreduces: MPI_MAX over doubles (the test's own data is int). */
static int tune_allreduces = 0;
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    if (t == MPI_DOUBLE && op == MPI_MAX)
        tune_allreduces++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

typedef struct buffers {
    dmx_coll_kind kind;
    int64_t count; /* ints per block (or per vector) */
    int *in, *out, *ref;
    int64_t in_n, out_n, cmp_n; /* ints */
} buffers;

static void setup(buffers *b, dmx_coll_kind kind, int64_t bytes, int rank, int p)
{
    b->kind = kind;
    b->count = bytes / 4;
    int64_t blk = b->count;
    b->in_n =
        kind == DMX_COLL_SCATTER || kind == DMX_COLL_REDUCE_SCATTER || kind == DMX_COLL_ALLTOALL
            ? blk * p
            : blk;
    b->out_n = kind == DMX_COLL_GATHER || kind == DMX_COLL_ALLGATHER || kind == DMX_COLL_ALLTOALL
                   ? blk * p
                   : blk;
    b->cmp_n = b->out_n;
    if ((kind == DMX_COLL_GATHER || kind == DMX_COLL_REDUCE) && rank != 0)
        b->cmp_n = 0;
    if (kind == DMX_COLL_EXSCAN && rank == 0)
        b->cmp_n = 0;
    b->in = malloc((size_t)b->in_n * sizeof(int));
    b->out = calloc((size_t)b->out_n, sizeof(int));
    b->ref = calloc((size_t)b->out_n, sizeof(int));
    for (int64_t i = 0; i < b->in_n; i++)
        b->in[i] = (int)((rank * 7919 + i * 31) % 1000) - 500;
    MPI_Comm w = MPI_COMM_WORLD;
    int n = (int)b->count;
    switch (kind) {
    case DMX_COLL_BCAST:
        if (rank == 0)
            memcpy(b->ref, b->in, (size_t)n * sizeof(int));
        MPI_Bcast(b->ref, n, MPI_INT, 0, w);
        break;
    case DMX_COLL_SCATTER: MPI_Scatter(b->in, n, MPI_INT, b->ref, n, MPI_INT, 0, w); break;
    case DMX_COLL_GATHER: MPI_Gather(b->in, n, MPI_INT, b->ref, n, MPI_INT, 0, w); break;
    case DMX_COLL_ALLGATHER: MPI_Allgather(b->in, n, MPI_INT, b->ref, n, MPI_INT, w); break;
    case DMX_COLL_REDUCE: MPI_Reduce(b->in, b->ref, n, MPI_INT, MPI_SUM, 0, w); break;
    case DMX_COLL_ALLREDUCE: MPI_Allreduce(b->in, b->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(b->in, b->ref, n, MPI_INT, MPI_SUM, w);
        break;
    case DMX_COLL_ALLTOALL: MPI_Alltoall(b->in, n, MPI_INT, b->ref, n, MPI_INT, w); break;
    case DMX_COLL_SCAN: MPI_Scan(b->in, b->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_EXSCAN: MPI_Exscan(b->in, b->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_SHIFT:
        MPI_Sendrecv(b->in, n, MPI_INT, (rank + 1) % p, 1, b->ref, n, MPI_INT, (rank - 1 + p) % p,
                     1, w, MPI_STATUS_IGNORE);
        break;
    default: break;
    }
}

static void release(buffers *b)
{
    free(b->in);
    free(b->out);
    free(b->ref);
}

/* One AUTO call on comm; 1 when its status and result are right. */
static int auto_call(buffers *b, MPI_Comm comm, int rank)
{
    int64_t n = b->count;
    dmx_status st = DMX_ERR_INTERNAL;
    memset(b->out, 0, (size_t)b->out_n * sizeof(int));
    if (b->kind == DMX_COLL_BCAST && rank == 0)
        memcpy(b->out, b->in, (size_t)n * sizeof(int));
    const dmx_coll_alg A = DMX_COLL_AUTO;
    switch (b->kind) {
    case DMX_COLL_BCAST: st = dmx_coll_bcast(b->out, n, MPI_INT, 0, comm, A); break;
    case DMX_COLL_SCATTER: st = dmx_coll_scatter(b->in, b->out, n, MPI_INT, 0, comm, A); break;
    case DMX_COLL_GATHER: st = dmx_coll_gather(b->in, b->out, n, MPI_INT, 0, comm, A); break;
    case DMX_COLL_ALLGATHER: st = dmx_coll_allgather(b->in, b->out, n, MPI_INT, comm, A); break;
    case DMX_COLL_REDUCE:
        st = dmx_coll_reduce(b->in, b->out, n, MPI_INT, MPI_SUM, 0, comm, A);
        break;
    case DMX_COLL_ALLREDUCE:
        st = dmx_coll_allreduce(b->in, b->out, n, MPI_INT, MPI_SUM, comm, A);
        break;
    case DMX_COLL_REDUCE_SCATTER:
        st = dmx_coll_reduce_scatter(b->in, b->out, n, MPI_INT, MPI_SUM, comm, A);
        break;
    case DMX_COLL_ALLTOALL: st = dmx_coll_alltoall(b->in, b->out, n, MPI_INT, comm, A); break;
    case DMX_COLL_SCAN: st = dmx_coll_scan(b->in, b->out, n, MPI_INT, MPI_SUM, comm, A); break;
    case DMX_COLL_EXSCAN: st = dmx_coll_exscan(b->in, b->out, n, MPI_INT, MPI_SUM, comm, A); break;
    case DMX_COLL_SHIFT: st = dmx_coll_shift(b->in, b->out, n, MPI_INT, 1, comm, A); break;
    default: break;
    }
    return st == DMX_SUCCESS && memcmp(b->out, b->ref, (size_t)b->cmp_n * sizeof(int)) == 0;
}

/* The same value on every rank of comm? */
static int same_everywhere(int v, MPI_Comm comm)
{
    int lo = 0, hi = 0;
    PMPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, comm);
    PMPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, comm);
    return lo == hi;
}

/* The trials' algorithms as docs/coll.md states them: MPI's call and every algorithm of the
 * collective predicted within 4x of the cheapest prediction (MPI's included). */
static unsigned expected_trials(dmx_coll_kind kind, int p, int64_t bytes)
{
    double t[DMX_COLL_NALGS], best = 1e300;
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
        t[a] = 1e300;
        if (dmx_coll_alg_valid(kind, (dmx_coll_alg)a) &&
            dmx_coll_predict(kind, (dmx_coll_alg)a, p, bytes, 1, &t[a], NULL) != DMX_SUCCESS)
            t[a] = 1e300;
        best = t[a] < best ? t[a] : best;
    }
    unsigned m = 1u << DMX_COLL_MPI;
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++)
        if (t[a] <= 4.0 * best)
            m |= 1u << a;
    return m;
}

/* AUTO on comm until settled. slow: the algorithm made slow (-1: none), or -2 for the first
 * candidate. Returns the settled choice (-1 on failure, reported to C). */
static int tune_one(dmxt_checker *C, dmxt_ctx *ctx, buffers *b, MPI_Comm comm, int slow)
{
    int p = ctx->size, settled = 1, wrong = 0, n = 0;
    dmx_coll_alg a = DMX_COLL_AUTO;
    int64_t bytes = b->count * 4;
    if (dmx_coll_auto_choice(comm, b->kind, bytes, &a, &settled) != DMX_SUCCESS) {
        dmxt_fail(C, "dmx_coll_auto_choice: %s", dmx_last_error());
        return -1;
    }
    if (p > 1 && settled) {
        dmxt_fail(C, "settled before any call (not tuned at %lld bytes)", (long long)bytes);
        return -1;
    }
    dmxi_coll_test_slow_alg = slow == -2 ? (int)a : slow;
    int slowed = dmxi_coll_test_slow_alg;
    int before = tune_allreduces;
    unsigned tried = 0; /* the algorithms of the trials, as the query announced them */
    for (; !settled && n < 40; n++) {
        tried |= 1u << a;
        wrong += !auto_call(b, comm, ctx->rank);
        dmx_coll_auto_choice(comm, b->kind, bytes, &a, &settled);
    }
    dmxi_coll_test_slow_alg = -1;
    if (!settled)
        dmxt_fail(C, "not settled after %d calls", n);
    if (wrong)
        dmxt_fail(C, "%d of %d calls gave a wrong result or status", wrong, n);
    if (!same_everywhere((int)a, MPI_COMM_WORLD))
        dmxt_fail(C, "ranks settled on different algorithms (here %s)", dmx_coll_alg_name(a));
    if (!dmx_coll_alg_valid(b->kind, a) || a == DMX_COLL_AUTO)
        dmxt_fail(C, "settled on %d, not an algorithm of the collective", (int)a);
    if (p > 1 && (int)a == slowed)
        dmxt_fail(C, "settled on %s, made 50 ms slower", dmx_coll_alg_name(a));
    if (p > 1 && !((tried >> DMX_COLL_MPI) & 1u))
        dmxt_fail(C, "MPI's own call was not among the trials");
    if (tried & ~dmxi_coll_valid_mask[b->kind])
        dmxt_fail(C, "a trial ran an algorithm of another collective (mask %#x)", tried);
    unsigned want = expected_trials(b->kind, p, bytes);
    if (p > 1 && tried != want)
        dmxt_fail(C,
                  "the trials ran algorithms %#x, not %#x (MPI's call and every one the model "
                  "predicts within 4x of its best)",
                  tried, want);
    if (p > 1 && tune_allreduces - before != 1)
        dmxt_fail(C, "%d tuning allreduces, expected 1", tune_allreduces - before);
    /* 3: it stays */
    for (int k = 0; k < 3; k++)
        if (!auto_call(b, comm, ctx->rank))
            dmxt_fail(C, "call %d after settling: wrong result or status", k);
    dmx_coll_alg again = DMX_COLL_AUTO;
    int s2 = 0;
    dmx_coll_auto_choice(comm, b->kind, bytes, &again, &s2);
    if (!s2 || again != a)
        dmxt_fail(C, "after settling the query says %s (settled %d), was %s",
                  dmx_coll_alg_name(again), s2, dmx_coll_alg_name(a));
    return (int)a;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_tune");
    int p = ctx.size;
    dmxi_coll_test_slow_s = 0.05;
    for (int k = 0; k < DMX_COLL_NKINDS; k++) {
        for (int variant = 0; variant < 2; variant++) {
            dmxt_checker C = {&ctx, 0, ""};
            buffers b;
            setup(&b, (dmx_coll_kind)k, variant == 0 ? 256 << 10 : 512 << 10, ctx.rank, p);
            tune_one(&C, &ctx, &b, MPI_COMM_WORLD, variant == 0 ? DMX_COLL_MPI : -2);
            release(&b);
            char desc[160];
            snprintf(desc, sizeof desc, "%s, %s made slow: settles elsewhere, results right",
                     dmx_coll_kind_name((dmx_coll_kind)k),
                     variant == 0 ? "MPI's call" : "the model's first candidate");
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
    }
    { /* 4: per communicator */
        dmxt_checker C = {&ctx, 0, ""};
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        buffers b;
        setup(&b, DMX_COLL_ALLREDUCE, 256 << 10, ctx.rank, p);
        tune_one(&C, &ctx, &b, dup, DMX_COLL_MPI);
        release(&b);
        MPI_Comm_free(&dup);
        dmxt_case_end(&ctx, C.bad, C.msg, "a duplicate communicator tunes on its own");
    }
    { /* 6: MPI's call is tried even when the model predicts it 10x slower than the best */
        dmxt_checker C = {&ctx, 0, ""};
        char path[96];
        snprintf(path, sizeof path, "/tmp/dmx_coll_tune_%d_%d.txt", (int)getpid(), ctx.rank);
        FILE *f = fopen(path, "w");
        int ok = f && fputs("intra = 4096 1e-6 1e-9\nintra = 1e30 5e-6 1e-9\nmpi.allreduce = 10\n",
                            f) >= 0;
        if (f)
            ok &= fclose(f) == 0;
        if (!ok || dmx_coll_model_load(path) != DMX_SUCCESS)
            dmxt_fail(&C, "model not loaded: %s", dmx_last_error());
        buffers b;
        setup(&b, DMX_COLL_ALLREDUCE, 384 << 10, ctx.rank, p);
        tune_one(&C, &ctx, &b, MPI_COMM_WORLD, -1);
        release(&b);
        dmx_coll_model_load(NULL);
        remove(path);
        dmxt_case_end(&ctx, C.bad, C.msg, "MPI's call among the trials under a model against it");
    }
    { /* 5: tuning off */
        dmxt_checker C = {&ctx, 0, ""};
        int saved = dmxi_coll_tune_rounds;
        dmxi_coll_tune_rounds = 0;
        for (int k = 0; k < DMX_COLL_NKINDS; k++) {
            dmx_coll_alg a = DMX_COLL_AUTO, m = DMX_COLL_AUTO;
            int settled = 0;
            dmx_coll_auto_choice(MPI_COMM_WORLD, (dmx_coll_kind)k, 3 << 20, &a, &settled);
            dmx_coll_choose((dmx_coll_kind)k, p, 3 << 20, 1, &m);
            if (!settled || a != m)
                dmxt_fail(&C, "%s: tuning off, query %s (settled %d), model %s",
                          dmx_coll_kind_name((dmx_coll_kind)k), dmx_coll_alg_name(a), settled,
                          dmx_coll_alg_name(m));
        }
        dmxi_coll_tune_rounds = saved;
        dmxt_case_end(&ctx, C.bad, C.msg, "DMX_COLL_TUNE=0: the model's choice, settled");
    }
    return dmxt_finish(&ctx);
}
