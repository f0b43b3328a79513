/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: a model file with per-algorithm corrections (corr.<coll>.<alg>, mpi.<coll>, as
 * dmx calibrate writes them) is read and changes the predictions and AUTO's choice as the
 * formulas say, piecewise by size; AUTO keeps MPI's call when MPI is predicted at most 5 %
 * slower (the tie rule); sections `np = N` give the factors of the nearest N; and a broadcast under
 * the loaded model gives MPI_Bcast's result. Expected values are worked out here by hand from the
 * file's numbers, not by the model.
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

/* Writes text (no base lines added) to path; 0 on success. */
static int write_raw(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Sections by P: a file with the base's point-to-point lines and ring correction, a section
 * np = 4 whose factors send AUTO's large broadcast to binomial (and correct the ring by 5), and
 * a section np = 64 with its own intra line and no factors (MPI's call; the ring's correction
 * from the base). Queries at 4-5 ranks take the np = 4 factors, at 32-64 and beyond the np = 64
 * ones, at 16 (2 octaves from each) the smaller np. Then the file's errors, named by line. */
static void sections(dmxt_ctx *ctx, const char *path)
{
    dmxt_checker C = {ctx, 0, ""};
    const int64_t big = 1 << 20;
    double t = 0;
    dmx_coll_alg a = DMX_COLL_AUTO;
    if (write_raw(path, "intra = 4096 1e-6 1e-9\nintra = 1e30 5e-6 1e-9\ncorr.bcast.ring = 3\n"
                        "np = 64\nintra = 1e30 2e-6 1e-9\n"
                        "np = 4\ncorr.bcast.binomial = 0.01\nmpi.bcast = 2\n"
                        "corr.bcast.ring = 5\n") != 0 ||
        dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "model with sections not loaded: %s", dmx_last_error());
    const int64_t ps[7] = {4, 5, 16, 32, 64, 100, 4096};
    const int64_t want_np[7] = {4, 4, 4, 64, 64, 64, 64};
    for (int i = 0; i < 7; i++) {
        int64_t p = ps[i], np = -1;
        int small = want_np[i] == 4;
        dmx_coll_model_section(p, &np);
        if (np != want_np[i])
            dmxt_fail(&C, "p = %lld: section np = %lld, want %lld", (long long)p, (long long)np,
                      (long long)want_np[i]);
        dmx_coll_choose(DMX_COLL_BCAST, p, big, 1, &a);
        dmx_coll_alg want = small ? DMX_COLL_BINOMIAL : DMX_COLL_MPI;
        if (a != want)
            dmxt_fail(&C, "p = %lld: AUTO picked %s, want %s", (long long)p, dmx_coll_alg_name(a),
                      dmx_coll_alg_name(want));
        /* binomial: ceil(log2 p) messages; alpha 5 us (base) or 2 us (np = 64's intra) */
        double l = ceil(log2((double)p)), alpha = small ? 5e-6 : 2e-6;
        double raw = l * (alpha + 1e-9 * (double)big);
        dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, p, big, 1, &t, NULL);
        if (!near(t, (small ? 0.01 : 1) * raw))
            dmxt_fail(&C, "p = %lld: binomial %g s, want %g", (long long)p, t,
                      (small ? 0.01 : 1) * raw);
        /* ring: p - 1 messages, the section's factor 5 or the base's 3; two nodes: the same
         * (no inter lines anywhere, so inter = the section's intra) */
        double ring = (double)(p - 1) * (alpha + 1e-9 * (double)big) * (small ? 5 : 3);
        dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_RING, p, big, 2, &t, NULL);
        if (!near(t, ring))
            dmxt_fail(&C, "p = %lld: ring %g s on 2 nodes, want %g", (long long)p, t, ring);
    }
    /* Errors name the file and line; the model in force stays. */
    const char *bad[5] = {"intra = 1e30 1e-6 1e-9\nnp = 4\nnp = 8\nnp = 4\n",
                          "intra = 1e30 1e-6 1e-9\nnp = 0\n", "intra = 1e30 1e-6 1e-9\nnp = 2.5\n",
                          "np = 4\nintra = 1e30 1e-6 1e-9\nnp = 8\nmpi.bcast = 2\n",
                          "intra = 1e30 1e-6 1e-9\nnp = 4\nmpi.bcast = 4096 1\nmpi.bcast = 8 2\n"};
    const char *what[5] = {":4: a second section np = 4", ":2: np needs", ":2: np needs",
                           "nor in every np section", ":4: mpi.bcast ranges must grow"};
    for (int i = 0; i < 5; i++) {
        if (write_raw(path, bad[i]) != 0 || dmx_coll_model_load(path) != DMX_ERR_ARG)
            dmxt_fail(&C, "bad file %d loaded", i);
        else if (!strstr(dmx_last_error(), what[i]))
            dmxt_fail(&C, "bad file %d: \"%s\", want \"%s\"", i, dmx_last_error(), what[i]);
    }
    int64_t np = -1;
    dmx_coll_model_section(5, &np);
    if (np != 4)
        dmxt_fail(&C, "after the bad files: section %lld at p = 5, want the np = 4 kept",
                  (long long)np);
    /* Sections only, each with its own intra: accepted; no sections: np 0. */
    if (write_raw(path, "np = 8\nintra = 1e30 1e-6 1e-9\n") != 0 ||
        dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "a file of sections only not loaded: %s", dmx_last_error());
    if (write_model(path, "") != 0 || dmx_coll_model_load(path) != DMX_SUCCESS)
        dmxt_fail(&C, "plain model not loaded: %s", dmx_last_error());
    dmx_coll_model_section(5, &np);
    if (np != 0)
        dmxt_fail(&C, "a file without sections: section %lld, want 0", (long long)np);
    dmxt_case_end(ctx, C.bad, C.msg, "np sections: the nearest P's factors");
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
    sections(&ctx, path);
    bcast_under_model(&ctx, path);
    dmx_coll_model_load(NULL);
    remove(path);
    return dmxt_finish(&ctx);
}
