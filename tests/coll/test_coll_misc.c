/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: bad arguments on one rank only (same named status everywhere, no hang, and the
 * next collective still works), the model file (a good file changes predictions; a malformed
 * one gives DMX_ERR_ARG with the line in dmx_last_error() and keeps the parameters), the
 * DMX_COLL_<NAME> override, the pipeline's segment choice, and the dmx_grid row and column
 * collectives against MPI on the same row and column communicators.
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

static void quiet(dmx_status st, const char *msg)
{
    (void)st;
    (void)msg;
}

static void expect(dmxt_ctx *ctx, dmx_status got, dmx_status want, const char *what)
{
    char msg[300] = "";
    int64_t bad = dmxt_expect_status(ctx, got, want, what, msg, sizeof msg);
    dmxt_case_end(ctx, bad, msg, what);
}

/* Still in step: a correct allreduce after the errors. */
static void sane(dmxt_ctx *ctx, const char *after)
{
    int x = ctx->rank + 1, y = 0;
    dmx_status st = dmx_coll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, DMX_COLL_RING);
    dmxt_checker C = {ctx, 0, ""};
    if (st != DMX_SUCCESS || y != ctx->size * (ctx->size + 1) / 2)
        dmxt_fail(&C, "allreduce after %s: status %d, sum %d", after, (int)st, y);
    dmxt_case_end(ctx, C.bad, C.msg, after);
}

static void bad_arguments(dmxt_ctx *ctx)
{
    int p = ctx->size, r = ctx->rank, last = p - 1;
    int buf[64] = {0}, out[64 * 8] = {0};
    MPI_Comm w = MPI_COMM_WORLD;
    expect(ctx, dmx_coll_bcast(buf, r == last ? -1 : 4, MPI_INT, 0, w, DMX_COLL_BINOMIAL),
           DMX_ERR_ARG, "bcast negative count on the last rank");
    sane(ctx, "negative count");
    expect(ctx, dmx_coll_reduce(buf, out, 4, MPI_INT, MPI_SUM, r == last ? p : 0, w, DMX_COLL_AUTO),
           DMX_ERR_ARG, "reduce root out of range on the last rank");
    sane(ctx, "bad root");
    expect(ctx,
           dmx_coll_allgather(buf, out, 4, MPI_INT, w, r == 0 ? (dmx_coll_alg)99 : DMX_COLL_RING),
           DMX_ERR_ARG, "allgather unknown algorithm on rank 0");
    expect(ctx, dmx_coll_bcast(buf, 4, MPI_INT, 0, w, r == last ? DMX_COLL_BRUCK : DMX_COLL_RING),
           DMX_ERR_ARG, "bcast with an allgather algorithm on the last rank");
    expect(ctx, dmx_coll_scatter(buf, out, 4, MPI_INT, r == 0 ? -3 : 0, w, DMX_COLL_FLAT),
           DMX_ERR_ARG, "scatter negative root on rank 0");
    if (p > 1)
        expect(
            ctx,
            dmx_coll_allreduce(buf, out, r == last ? 5 : 4, MPI_INT, MPI_SUM, w, DMX_COLL_RECDBL),
            DMX_ERR_ARG, "allreduce with counts that differ between ranks");
    expect(ctx,
           dmx_coll_allreduce(buf, out, 4, MPI_INT, r == last ? MPI_OP_NULL : MPI_SUM, w,
                              DMX_COLL_RING),
           DMX_ERR_ARG, "allreduce MPI_OP_NULL on the last rank");
    /* derived datatypes are taken (test_coll_fuzz); one whose elements overlap is not */
    MPI_Datatype lap;
    MPI_Type_create_resized(MPI_INT, 0, 2, &lap);
    MPI_Type_commit(&lap);
    expect(ctx, dmx_coll_alltoall(buf, out, 1, r == 0 ? lap : MPI_LONG_LONG, w, DMX_COLL_PAIRWISE),
           DMX_ERR_UNSUPPORTED, "alltoall datatype with overlapping elements on rank 0");
    MPI_Type_free(&lap);
    expect(ctx, dmx_coll_allgather(buf, r == last ? NULL : out, 4, MPI_INT, w, DMX_COLL_BRUCK),
           DMX_ERR_NULL, "allgather NULL receive buffer on the last rank");
    /* MPI_COMM_NULL calls the handler even in agree mode (that rank cannot agree): a returning
     * one here, every rank passing it */
    dmx_error_handler old = dmx_set_error_handler(quiet);
    expect(ctx, dmx_coll_bcast(buf, 4, MPI_INT, 0, MPI_COMM_NULL, DMX_COLL_RING), DMX_ERR_ARG,
           "MPI_COMM_NULL");
    dmx_set_error_handler(old);
    sane(ctx, "all the bad calls");
}

static void model_file(dmxt_ctx *ctx)
{
    dmxt_checker C = {ctx, 0, ""};
    char good[64], badf[64];
    snprintf(good, sizeof good, "/tmp/dmx_coll_model_%d_%d.txt", (int)getpid(), ctx->rank);
    snprintf(badf, sizeof badf, "/tmp/dmx_coll_bad_%d_%d.txt", (int)getpid(), ctx->rank);
    double t0 = 0, t1 = 0, t2 = 0;
    dmx_coll_model_load(NULL);
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 4, 1 << 20, 1, &t0, NULL);
    FILE *f = fopen(good, "w");
    fprintf(f, "# test model\nnote = one node\nintra = 4096 1e-6 1e-9\nintra = 1e30 5e-6 2e-9\n"
               "gamma = 1e-9\nsegment_overhead = 1e-5\ncorr.bcast.ring = 2\nmpi.bcast = 1.5\n");
    fclose(f);
    dmx_status st = dmx_coll_model_load(good);
    if (st != DMX_SUCCESS)
        dmxt_fail(&C, "good file: %s", dmx_last_error());
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 4, 1 << 20, 1, &t1, NULL);
    double want = 2 * 3 * (5e-6 + 2e-9 * (1 << 20));
    if (t1 < want * 0.999 || t1 > want * 1.001)
        dmxt_fail(&C, "ring bcast predicted %g, want %g", t1, want);
    /* inter defaults to intra when absent */
    double ti = 0;
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 4, 1 << 20, 3, &ti, NULL);
    if (ti != t1)
        dmxt_fail(&C, "inter parameters did not default to intra (%g vs %g)", ti, t1);
    const char *bad_lines[4] = {"intra = 4096 1e-6\n", "gamma = -1\n", "bogus = 3\n",
                                "corr.bcast.nosuch = 2\n"};
    for (int i = 0; i < 4; i++) {
        f = fopen(badf, "w");
        fprintf(f, "intra = 1e30 1e-6 1e-9\n%s", bad_lines[i]);
        fclose(f);
        st = dmx_coll_model_load(badf);
        if (st != DMX_ERR_ARG || strstr(dmx_last_error(), ":2:") == NULL)
            dmxt_fail(&C, "malformed line \"%.20s\": status %d, message \"%s\"", bad_lines[i],
                      (int)st, dmx_last_error());
        dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 4, 1 << 20, 1, &t2, NULL);
        if (t2 != t1)
            dmxt_fail(&C, "malformed file changed the model (%g vs %g)", t2, t1);
    }
    if (dmx_coll_model_load("/nonexistent/dmx.model") != DMX_ERR_ARG)
        dmxt_fail(&C, "missing file not reported");
    dmx_coll_model_load(NULL);
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, 4, 1 << 20, 1, &t2, NULL);
    if (t2 != t0)
        dmxt_fail(&C, "reset to defaults failed (%g vs %g)", t2, t0);
    /* Segment count: the overhead must pull the model's choice below the textbook optimum. */
    int64_t seg0 = 0, seg1 = 0;
    double tb = 0;
    dmx_coll_pipeline_segments(4, 8 << 20, 1, &seg0, &tb);
    f = fopen(good, "w");
    fprintf(f, "intra = 1e30 3e-6 1.4e-10\nsegment_overhead = 2e-4\n");
    fclose(f);
    dmx_coll_model_load(good);
    dmx_coll_pipeline_segments(4, 8 << 20, 1, &seg1, NULL);
    if (!(seg0 > 4 && seg1 < seg0 && seg1 >= 1))
        dmxt_fail(&C, "segments: defaults %lld (textbook %.1f), with overhead %lld",
                  (long long)seg0, tb, (long long)seg1);
    dmx_coll_model_load(NULL);
    remove(good);
    remove(badf);
    dmxt_case_end(ctx, C.bad, C.msg, "model file");
}

static void override(dmxt_ctx *ctx)
{
    dmxt_checker C = {ctx, 0, ""};
    /* DMX_COLL_SHIFT=grid was set before the first collective (settings are read once). */
    if (dmxi_coll_choose(DMX_COLL_SHIFT, DMX_COLL_AUTO, ctx->size, 64, 1) != DMX_COLL_GRID)
        dmxt_fail(&C, "DMX_COLL_SHIFT=grid not applied");
    if (dmxi_coll_choose(DMX_COLL_SHIFT, DMX_COLL_RING, ctx->size, 64, 1) != DMX_COLL_RING)
        dmxt_fail(&C, "an explicit algorithm must win over the override");
    dmxt_case_end(ctx, C.bad, C.msg, "DMX_COLL_<NAME> override");
}

static void grid(dmxt_ctx *ctx)
{
    int p = ctx->size;
    for (int pr = 1; pr <= p; pr++) {
        int pc = p / pr;
        for (int oi = 0; oi < 2; oi++) {
            char order = oi ? 'C' : 'R', desc[100];
            snprintf(desc, sizeof desc, "grid %d x %d order %c", pr, pc, order);
            dmxt_checker C = {ctx, 0, ""};
            dmx_grid *g = NULL;
            dmx_status st = dmx_grid_create(MPI_COMM_WORLD, pr, pc, order, &g);
            if (st != DMX_SUCCESS) {
                dmxt_fail(&C, "create: %s", dmx_last_error());
                dmxt_case_end(ctx, C.bad, C.msg, desc);
                continue;
            }
            int myr = 0, myc = 0;
            dmx_grid_coords(g, NULL, NULL, &myr, &myc);
            for (int dir = 0; dir < 2 && myr >= 0; dir++) {
                MPI_Comm c;
                dmx_grid_comm(g, (dmx_grid_dir)dir, &c);
                int n = 0, me = 0;
                MPI_Comm_size(c, &n);
                MPI_Comm_rank(c, &me);
                if (me != (dir == DMX_GRID_ROW ? myc : myr))
                    dmxt_fail(&C, "rank in the %s communicator is not my coordinate",
                              dir ? "column" : "row");
                int v[5], ref[5], s[5], rs[5];
                for (int i = 0; i < 5; i++)
                    v[i] = ref[i] = (ctx->rank + 1) * 10 + i;
                int root = n - 1;
                dmx_grid_bcast(g, (dmx_grid_dir)dir, v, 5, MPI_INT, root, DMX_COLL_PIPELINE);
                MPI_Bcast(ref, 5, MPI_INT, root, c);
                if (memcmp(v, ref, sizeof v))
                    dmxt_fail(&C, "grid bcast dir %d", dir);
                dmx_grid_allreduce(g, (dmx_grid_dir)dir, ref, s, 5, MPI_INT, MPI_SUM,
                                   DMX_COLL_RING);
                MPI_Allreduce(ref, rs, 5, MPI_INT, MPI_SUM, c);
                if (memcmp(s, rs, sizeof s))
                    dmxt_fail(&C, "grid allreduce dir %d", dir);
                int ag[5 * 8], agr[5 * 8];
                dmx_grid_allgather(g, (dmx_grid_dir)dir, v, ag, 5, MPI_INT, DMX_COLL_BRUCK);
                MPI_Allgather(v, 5, MPI_INT, agr, 5, MPI_INT, c);
                if (memcmp(ag, agr, sizeof(int) * 5 * (size_t)n))
                    dmxt_fail(&C, "grid allgather dir %d", dir);
            }
            if (dmx_grid_destroy(&g) != DMX_SUCCESS || g != NULL)
                dmxt_fail(&C, "destroy");
            dmxt_case_end(ctx, C.bad, C.msg, desc);
        }
    }
    dmx_grid *g = NULL;
    expect(ctx, dmx_grid_create(MPI_COMM_WORLD, p + 1, 1, 'R', &g), DMX_ERR_ARG,
           "grid larger than the communicator");
    dmx_grid_destroy(&g);
}

/* A freed sub-communicator: the cache goes with it and a new one works. */
static void subcomm(dmxt_ctx *ctx)
{
    dmxt_checker C = {ctx, 0, ""};
    for (int rep = 0; rep < 3; rep++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, ctx->rank % 2, ctx->rank, &sub);
        int n = 0;
        MPI_Comm_size(sub, &n);
        int x = 1, y = 0;
        if (dmx_coll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, sub, DMX_COLL_GRID) != DMX_ERR_ARG)
            dmxt_fail(&C, "grid is not an allreduce algorithm but was accepted");
        dmx_status st = dmx_coll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, sub, DMX_COLL_AUTO);
        if (st != DMX_SUCCESS || y != n)
            dmxt_fail(&C, "allreduce on a split communicator: %d, %d", (int)st, y);
        MPI_Comm_free(&sub);
    }
    dmxt_case_end(ctx, C.bad, C.msg, "sub-communicators freed and remade");
}

/* Messages cut into pieces: the piece size lowered to 1000 bytes, so every message of more than
 * 1000 bytes goes as several MPI calls (the path of messages over 1 GiB), empty ones as one. */
static void pieces(dmxt_ctx *ctx)
{
    int p = ctx->size, r = ctx->rank;
    int64_t counts[3] = {0, 3001, 10007};
    dmxi_coll_chunk = 1000;
    for (int ci = 0; ci < 3; ci++) {
        int n = (int)counts[ci];
        dmxt_checker C = {ctx, 0, ""};
        int *in = malloc(sizeof(int) * ((size_t)n * p + 1));
        int *out = malloc(sizeof(int) * ((size_t)n * p + 1));
        int *ref = malloc(sizeof(int) * ((size_t)n * p + 1));
        for (int i = 0; i < n * p; i++)
            in[i] = r * 100003 + i;
        dmx_coll_alg bc[3] = {DMX_COLL_RING, DMX_COLL_BINOMIAL, DMX_COLL_SCATTER_AG};
        for (int a = 0; a < 3; a++) {
            memcpy(out, in, sizeof(int) * (size_t)n);
            memcpy(ref, in, sizeof(int) * (size_t)n);
            dmx_coll_bcast(out, n, MPI_INT, p - 1, MPI_COMM_WORLD, bc[a]);
            MPI_Bcast(ref, n, MPI_INT, p - 1, MPI_COMM_WORLD);
            if (memcmp(out, ref, sizeof(int) * (size_t)n))
                dmxt_fail(&C, "bcast %s in pieces", dmx_coll_alg_name(bc[a]));
        }
        dmx_coll_alg ag[3] = {DMX_COLL_RING, DMX_COLL_RECDBL, DMX_COLL_BRUCK};
        MPI_Allgather(in, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
        for (int a = 0; a < 3; a++) {
            dmx_coll_allgather(in, out, n, MPI_INT, MPI_COMM_WORLD, ag[a]);
            if (memcmp(out, ref, sizeof(int) * (size_t)n * p))
                dmxt_fail(&C, "allgather %s in pieces", dmx_coll_alg_name(ag[a]));
        }
        dmx_coll_alg aa[2] = {DMX_COLL_PAIRWISE, DMX_COLL_HYPERCUBE};
        MPI_Alltoall(in, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
        for (int a = 0; a < 2; a++) {
            dmx_coll_alltoall(in, out, n, MPI_INT, MPI_COMM_WORLD, aa[a]);
            if (memcmp(out, ref, sizeof(int) * (size_t)n * p))
                dmxt_fail(&C, "alltoall %s in pieces", dmx_coll_alg_name(aa[a]));
        }
        dmx_coll_alg ar[2] = {DMX_COLL_RING, DMX_COLL_RECDBL};
        MPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int a = 0; a < 2; a++) {
            dmx_coll_allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, ar[a]);
            if (memcmp(out, ref, sizeof(int) * (size_t)n))
                dmxt_fail(&C, "allreduce %s in pieces", dmx_coll_alg_name(ar[a]));
        }
        MPI_Reduce_scatter_block(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        dmx_coll_reduce_scatter(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, DMX_COLL_HALVING);
        if (memcmp(out, ref, sizeof(int) * (size_t)n))
            dmxt_fail(&C, "reduce_scatter halving in pieces");
        MPI_Sendrecv(in, n, MPI_INT, (r + 2) % p, 9, ref, n, MPI_INT, (r - 2 + 2 * p) % p, 9,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        dmx_coll_shift(in, out, n, MPI_INT, 2, MPI_COMM_WORLD, DMX_COLL_RING);
        if (memcmp(out, ref, sizeof(int) * (size_t)n))
            dmxt_fail(&C, "shift ring in pieces");
        char desc[64];
        snprintf(desc, sizeof desc, "messages in 1000-byte pieces, count %d", n);
        dmxt_case_end(ctx, C.bad, C.msg, desc);
        free(in);
        free(out);
        free(ref);
    }
    dmxi_coll_chunk = DMXI_COLL_CHUNK;
}

int main(int argc, char **argv)
{
    setenv("DMX_COLL_SHIFT", "grid", 1);
    setenv("DMX_COLL_CHECK", "agree", 1); /* the bad-argument cases expect agreed statuses */
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_misc");
    bad_arguments(&ctx);
    model_file(&ctx);
    override(&ctx);
    grid(&ctx);
    subcomm(&ctx);
    pieces(&ctx);
    return dmxt_finish(&ctx);
}
