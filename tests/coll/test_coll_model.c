/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: a model file with per-algorithm corrections (corr.<coll>.<alg>, mpi.<coll>, as
 * dmx calibrate writes them) is read and changes the predictions and AUTO's choice as the
 * formulas say, piecewise by size; AUTO keeps MPI's call when MPI is predicted at most 5 %
 * slower (the tie rule); and a broadcast under the loaded model gives MPI_Bcast's result.
 * Expected values are worked out here by hand from the file's numbers, not by the model.
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (tests/common). */
#define _POSIX_C_SOURCE 200809L
#include "dmx/coll.h"
#include "dmx/expert.h"
#include "dmxtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One node: alpha 1 us / 5 us below / above 4 KiB, beta 1 ns per byte. */
static const char *base = "intra = 4096 1e-6 1e-9\nintra = 1e30 5e-6 1e-9\n";

static int write_model(const char *path, const char *extra)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# test model\n%s%s", base, extra);
    return fclose(f);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void corrections(dmxt_ctx *ctx, const char *path)
{
    dmxt_checker C = {ctx, 0, ""};
    const int64_t big = 1 << 20, small = 64;
    double t = 0;
    dmx_coll_alg a = DMX_COLL_AUTO;
    /* Binomial bcast on 4 ranks: 2 rounds of one message. */
    double raw_big = 2 * (5e-6 + 1e-9 * (double)big), raw_small = 2 * (1e-6 + 1e-9 * small);

    if (write_model(path, "") != 0 || dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "plain model not loaded: %s", dmx_last_error());
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, 4, big, 1, &t, NULL);
    if (!near(t, raw_big))
        dmxt_fail(&C, "no correction: binomial %g s, want %g", t, raw_big);
    dmx_coll_choose(DMX_COLL_BCAST, 4, big, 1, &a);
    if (a != DMX_COLL_MPI) /* mpi factor 1: MPI ties with the best, and ties stay with MPI */
        dmxt_fail(&C, "no correction: AUTO picked %s, want mpi", dmx_coll_alg_name(a));

    /* Binomial 100x cheaper above 4 KiB, MPI's call twice the best above 4 KiB. */
    if (write_model(path, "corr.bcast.binomial = 4096 1\ncorr.bcast.binomial = 1e30 0.01\n"
                          "mpi.bcast = 4096 1\nmpi.bcast = 1e30 2\n") != 0 ||
        dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "corrected model not loaded: %s", dmx_last_error());
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, 4, big, 1, &t, NULL);
    if (!near(t, 0.01 * raw_big))
        dmxt_fail(&C, "corrected binomial %g s at 1 MiB, want %g", t, 0.01 * raw_big);
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, 4, small, 1, &t, NULL);
    if (!near(t, raw_small))
        dmxt_fail(&C, "binomial %g s at 64 B (factor 1 there), want %g", t, raw_small);
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_MPI, 4, big, 1, &t, NULL);
    if (!near(t, 2 * 0.01 * raw_big))
        dmxt_fail(&C, "MPI's call %g s at 1 MiB, want twice the best %g", t, 0.02 * raw_big);
    dmx_coll_choose(DMX_COLL_BCAST, 4, big, 1, &a);
    if (a != DMX_COLL_BINOMIAL)
        dmxt_fail(&C, "corrected: AUTO picked %s at 1 MiB, want binomial", dmx_coll_alg_name(a));
    dmx_coll_choose(DMX_COLL_BCAST, 4, small, 1, &a);
    if (a != DMX_COLL_MPI)
        dmxt_fail(&C, "corrected: AUTO picked %s at 64 B, want mpi", dmx_coll_alg_name(a));
    /* The correction holds at any P: the formula's P, times the factor of the size. */
    double raw_1k = 10 * (5e-6 + 1e-9 * (double)big);
    dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, 1024, big, 1, &t, NULL);
    if (!near(t, 0.01 * raw_1k))
        dmxt_fail(&C, "binomial at P = 1024: %g s, want %g", t, 0.01 * raw_1k);

    /* The tie rule: MPI predicted 4 % slower than the best stays MPI, 6 % leaves it. */
    const char *fac[2] = {"1.04", "1.06"};
    for (int i = 0; i < 2; i++) {
        char extra[160];
        snprintf(extra, sizeof extra, "corr.bcast.binomial = 0.01\nmpi.bcast = %s\n", fac[i]);
        if (write_model(path, extra) != 0 || dmx_coll_model_load(path) != DMX_SUCCESS)
            dmxt_fail(&C, "model with mpi.bcast = %s not loaded: %s", fac[i], dmx_last_error());
        dmx_coll_choose(DMX_COLL_BCAST, 4, big, 1, &a);
        dmx_coll_alg want = i == 0 ? DMX_COLL_MPI : DMX_COLL_BINOMIAL;
        if (a != want)
            dmxt_fail(&C, "mpi.bcast = %s: AUTO picked %s, want %s", fac[i], dmx_coll_alg_name(a),
                      dmx_coll_alg_name(want));
    }
    dmxt_case_end(ctx, C.bad, C.msg, "corrections change predictions and AUTO's choice");
}

/* Under a model whose corrections send AUTO to binomial at this size, AUTO's broadcast from the
 * last rank equals MPI_Bcast's. */
static void bcast_under_model(dmxt_ctx *ctx, const char *path)
{
    dmxt_checker C = {ctx, 0, ""};
    int p = ctx->size, root = p - 1;
    int64_t n = 40000; /* 160 kB of ints */
    int *buf = malloc((size_t)n * sizeof *buf), *ref = malloc((size_t)n * sizeof *ref);
    for (int64_t i = 0; i < n; i++)
        buf[i] = ref[i] = ctx->rank == root ? (int)(i * 7 + 3) : -1;
    if (write_model(path, "corr.bcast.binomial = 0.01\nmpi.bcast = 2\n") != 0 ||
        dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "model not loaded: %s", dmx_last_error());
    dmx_coll_alg a = DMX_COLL_AUTO;
    dmx_coll_choose(DMX_COLL_BCAST, p, n * 4, 1, &a);
    if (p > 1 && a != DMX_COLL_BINOMIAL)
        dmxt_fail(&C, "AUTO picked %s, want binomial", dmx_coll_alg_name(a));
    dmx_status st = dmx_coll_bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD, DMX_COLL_AUTO);
    MPI_Bcast(ref, (int)n, MPI_INT, root, MPI_COMM_WORLD);
    if (st != DMX_SUCCESS)
        dmxt_fail(&C, "bcast: %s", dmx_last_error());
    else if (memcmp(buf, ref, (size_t)n * sizeof *buf) != 0)
        dmxt_fail(&C, "bcast result differs from MPI_Bcast's");
    free(buf);
    free(ref);
    dmxt_case_end(ctx, C.bad, C.msg, "AUTO bcast under a corrected model");
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_model");
    char path[96];
    snprintf(path, sizeof path, "/tmp/dmx_coll_corr_%d_%d.txt", (int)getpid(), ctx.rank);
    corrections(&ctx, path);
    bcast_under_model(&ctx, path);
    dmx_coll_model_load(NULL);
    remove(path);
    return dmxt_finish(&ctx);
}
