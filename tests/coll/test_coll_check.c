/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives, DMX_COLL_CHECK: what a bad argument on one rank does in each mode.
 *
 * Usage: test_coll_check MODE, MODE one of
 *  local   DMX_COLL_CHECK unset (the default is local), a test handler that records and returns:
 *          on the last rank a call with a bad argument (negative count, root out of range, an
 *          algorithm of another collective, a NULL buffer, MPI_OP_NULL) calls the handler once
 *          with that call's message and returns the status; nothing was sent, so the same rank
 *          then makes the valid call and every rank gets MPI's result (compared with MPI_Bcast,
 *          MPI_Allreduce on the same input). The other ranks' handlers are never called.
 *          Cases 5-9 first make the valid call on every rank, with the MPI library's own call
 *          (named, or AUTO's remembered choice: the built-in model picks MPI's bcast for 16
 *          bytes at np 1-4): the bad call that follows must not take the front end's
 *          shortcut for repeats (coll_api.c, run) past its checks.
 *          Then (mode local only) aliased buffers: every collective with a send and a receive
 *          buffer, with AUTO and with each of its dmx algorithms, given the same pointer for
 *          both, or a receive buffer overlapping the send buffer's last element: the ranks on
 *          which both buffers count (the root of scatter, gather and reduce; every rank of the
 *          others) call the handler once with "buffers overlap" and DMX_ERR_ARG, the others go
 *          on; the failing ranks redo the call with separate buffers and every significant
 *          result equals the MPI library's own call on separate buffers (computed first). A
 *          receive buffer right after the send buffer (touching, no overlap) is valid and must
 *          give that result directly. (The ring exscan and shift returned wrong data for an
 *          aliased pair before the check.)
 *  off     DMX_COLL_CHECK=off: the same calls return the status, the handler is not called.
 *  agree   DMX_COLL_CHECK=agree: every rank returns the status, no handler, nothing to redo.
 *  abort   DMX_COLL_CHECK unset, dmx's own handler (np 2): the last rank passes a negative
 *          count to a broadcast that rank 0 roots. The handler prints the message and aborts
 *          the job: ctest passes on that message and fails on a hang (timeout) or on the line
 *          "check FAIL" printed if the bad call returns.
 *  nullcomm, nullcomm_agree   DMX_COLL_CHECK unset (local) or agree, dmx's own handler: the
 *          last rank passes MPI_COMM_NULL to an allreduce. It cannot take part in the agreement,
 *          so in both modes it calls the handler, which ends the job with the message; ctest
 *          passes on the message within its 20 s timeout (before, agree mode waited forever).
 * Prints "N passed, N failed" from rank 0 (modes local, off, agree). */
#define _POSIX_C_SOURCE 200809L
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls;          /* handler calls on this rank */
static dmx_status seen_st; /* the last one's status */
static char seen_msg[512]; /* and message */

static void record(dmx_status st, const char *message)
{
    calls++;
    seen_st = st;
    snprintf(seen_msg, sizeof seen_msg, "%s", message);
}

typedef struct bad_call {
    const char *what, *needle; /* description, a piece of the expected message */
    dmx_status want;
} bad_call;

static int is_allreduce(int i)
{
    return i == 1 || i == 2 || i == 8;
}

/* MPI's result of call i on input in (every rank, once per case). */
static void reference(int i, int p, const int *in, int *ref)
{
    memcpy(ref, in, 4 * sizeof *ref);
    if (is_allreduce(i))
        MPI_Allreduce(in, ref, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Bcast(ref, 4, MPI_INT, i == 0 ? p - 1 : 0, MPI_COMM_WORLD);
}

/* Call number i with a bad argument when bad is set, the valid call otherwise (result in out,
 * 4 ints, to compare with the reference). */
static dmx_status one(int i, int bad, int p, const int *in, int *out)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (!is_allreduce(i))
        memcpy(out, in, 4 * sizeof *out);
    switch (i) {
    case 0: return dmx_coll_bcast(out, bad ? -1 : 4, MPI_INT, p - 1, w, DMX_COLL_BINOMIAL);
    case 1:
        return dmx_coll_allreduce(in, out, 4, MPI_INT, MPI_SUM, w,
                                  bad ? DMX_COLL_BRUCK : DMX_COLL_RING);
    case 2:
        return dmx_coll_allreduce(in, out, 4, MPI_INT, bad ? MPI_OP_NULL : MPI_SUM, w,
                                  DMX_COLL_AUTO);
    case 3: return dmx_coll_bcast(bad ? NULL : out, 4, MPI_INT, 0, w, DMX_COLL_AUTO);
    case 4: return dmx_coll_bcast(out, 4, MPI_INT, bad ? p : 0, w, DMX_COLL_RING);
    case 5: return dmx_coll_bcast(out, bad ? -1 : 4, MPI_INT, 0, w, DMX_COLL_MPI);
    case 6: return dmx_coll_bcast(out, 4, MPI_INT, bad ? p : 0, w, DMX_COLL_MPI);
    case 7: return dmx_coll_bcast(bad ? NULL : out, 4, MPI_INT, 0, w, DMX_COLL_MPI);
    case 8:
        return dmx_coll_allreduce(in, out, 4, MPI_INT, bad ? MPI_OP_NULL : MPI_SUM, w,
                                  DMX_COLL_MPI);
    default: return dmx_coll_bcast(out, 4, bad ? MPI_DATATYPE_NULL : MPI_INT, 0, w, DMX_COLL_AUTO);
    }
}

enum { NCASES = 10, FIRST_REPEAT = 5 };
static const bad_call cases[NCASES] = {
    {"bcast negative count", "negative count -1", DMX_ERR_ARG},
    {"allreduce with an allgather algorithm", "is not one of allreduce's", DMX_ERR_ARG},
    {"allreduce MPI_OP_NULL", "op is MPI_OP_NULL", DMX_ERR_ARG},
    {"bcast NULL buffer", "receive buffer is NULL", DMX_ERR_NULL},
    {"bcast root out of range", "out of range", DMX_ERR_ARG},
    {"repeated mpi bcast, negative count", "negative count -1", DMX_ERR_ARG},
    {"repeated mpi bcast, root out of range", "out of range", DMX_ERR_ARG},
    {"repeated mpi bcast, NULL buffer", "receive buffer is NULL", DMX_ERR_NULL},
    {"repeated mpi allreduce, MPI_OP_NULL", "op is MPI_OP_NULL", DMX_ERR_ARG},
    {"repeated auto bcast, MPI_DATATYPE_NULL", "datatype is MPI_DATATYPE_NULL", DMX_ERR_ARG},
};

static void run_mode(dmxt_ctx *ctx, const char *mode)
{
    int p = ctx->size, r = ctx->rank, last = p - 1;
    int agree = strcmp(mode, "agree") == 0, local = strcmp(mode, "local") == 0;
    for (int i = 0; i < NCASES; i++) {
        dmxt_checker C = {ctx, 0, ""};
        int in[4], out[4] = {0}, ref[4];
        for (int j = 0; j < 4; j++)
            in[j] = 10 * r + j;
        reference(i, p, in, ref);
        if (i >= FIRST_REPEAT) { /* the same call, valid, on every rank first */
            dmx_status st0 = one(i, 0, p, in, out);
            /* AUTO's: until its choice is settled (its trials, coll_tune.c; a 16-byte call is
             * too short to be tuned, so the first call settles it today) */
            int settled = 0;
            dmx_coll_alg a = DMX_COLL_AUTO;
            for (int k = 0; i == NCASES - 1 && st0 == DMX_SUCCESS && k < 64; k++) {
                dmx_coll_auto_choice(MPI_COMM_WORLD, DMX_COLL_BCAST, 16, &a, &settled);
                if (settled)
                    break;
                st0 = one(i, 0, p, in, out);
            }
            if (i == NCASES - 1 && a != DMX_COLL_MPI)
                dmxt_fail(&C, "AUTO settled on %s, not MPI's bcast: the case needs another size",
                          dmx_coll_alg_name(a));
            if (st0 != DMX_SUCCESS)
                dmxt_fail(&C, "the valid call before the bad one: %s", dmx_status_string(st0));
        }
        int before = calls;
        int bad = r == last;
        dmx_status st = one(i, bad, p, in, out);
        dmx_status want = bad || agree ? cases[i].want : DMX_SUCCESS;
        if (st != want)
            dmxt_fail(&C, "status %s, expected %s", dmx_status_string(st), dmx_status_string(want));
        int want_calls = local && bad ? 1 : 0;
        if (calls - before != want_calls)
            dmxt_fail(&C, "handler called %d times, expected %d", calls - before, want_calls);
        if (want_calls && (seen_st != cases[i].want || !strstr(seen_msg, cases[i].needle) ||
                           strcmp(seen_msg, dmx_last_error()) != 0))
            dmxt_fail(&C, "handler got %s \"%s\" (dmx_last_error \"%s\")",
                      dmx_status_string(seen_st), seen_msg, dmx_last_error());
        if (bad && !agree) { /* nothing was sent: the valid call now completes the others' */
            st = one(i, 0, p, in, out);
            if (st != DMX_SUCCESS)
                dmxt_fail(&C, "the valid call after the bad one: %s", dmx_status_string(st));
        }
        if (!agree && memcmp(out, ref, sizeof ref) != 0)
            dmxt_fail(&C, "result differs from MPI's: %d %d %d %d vs %d %d %d %d", out[0], out[1],
                      out[2], out[3], ref[0], ref[1], ref[2], ref[3]);
        char desc[128];
        snprintf(desc, sizeof desc, "%s: %s on the last rank", mode, cases[i].what);
        dmxt_case_end(ctx, C.bad, C.msg, desc);
    }
}

/* ---- aliased buffers (mode local) ------------------------------------------------------- */

enum { AC = 3 }; /* elements per block */

static const dmx_coll_kind alias_kinds[] = {
    DMX_COLL_SCATTER,   DMX_COLL_GATHER,         DMX_COLL_ALLGATHER, DMX_COLL_REDUCE,
    DMX_COLL_ALLREDUCE, DMX_COLL_REDUCE_SCATTER, DMX_COLL_ALLTOALL,  DMX_COLL_SCAN,
    DMX_COLL_EXSCAN,    DMX_COLL_SHIFT};

static dmx_status call_kind(dmx_coll_kind k, const void *s, void *r, dmx_coll_alg alg)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (k) {
    case DMX_COLL_SCATTER: return dmx_coll_scatter(s, r, AC, MPI_INT, 0, w, alg);
    case DMX_COLL_GATHER: return dmx_coll_gather(s, r, AC, MPI_INT, 0, w, alg);
    case DMX_COLL_ALLGATHER: return dmx_coll_allgather(s, r, AC, MPI_INT, w, alg);
    case DMX_COLL_REDUCE: return dmx_coll_reduce(s, r, AC, MPI_INT, MPI_SUM, 0, w, alg);
    case DMX_COLL_ALLREDUCE: return dmx_coll_allreduce(s, r, AC, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_REDUCE_SCATTER:
        return dmx_coll_reduce_scatter(s, r, AC, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_ALLTOALL: return dmx_coll_alltoall(s, r, AC, MPI_INT, w, alg);
    case DMX_COLL_SCAN: return dmx_coll_scan(s, r, AC, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_EXSCAN: return dmx_coll_exscan(s, r, AC, MPI_INT, MPI_SUM, w, alg);
    default: return dmx_coll_shift(s, r, AC, MPI_INT, 1, w, alg);
    }
}

static void run_alias(dmxt_ctx *ctx)
{
    int p = ctx->size, r = ctx->rank;
    int *arena = calloc((size_t)(4 * p * AC + 8), sizeof(int));
    int *sv = malloc(sizeof(int) * (size_t)(p * AC)), *rv = malloc(sizeof(int) * (size_t)(p * AC));
    int *ref = malloc(sizeof(int) * (size_t)(p * AC));
    for (size_t ki = 0; ki < sizeof alias_kinds / sizeof *alias_kinds; ki++) {
        dmx_coll_kind k = alias_kinds[ki];
        int rooted = k == DMX_COLL_SCATTER || k == DMX_COLL_GATHER || k == DMX_COLL_REDUCE;
        int both = !rooted || r == 0; /* both buffers count on this rank */
        int sn = (k == DMX_COLL_SCATTER || k == DMX_COLL_REDUCE_SCATTER || k == DMX_COLL_ALLTOALL)
                     ? p * AC
                     : AC; /* send elements */
        int rn = (k == DMX_COLL_GATHER || k == DMX_COLL_ALLGATHER || k == DMX_COLL_ALLTOALL)
                     ? p * AC
                     : AC; /* receive elements */
        int check = !(k == DMX_COLL_EXSCAN && r == 0) && (both || !rooted || k == DMX_COLL_SCATTER);
        for (int j = 0; j < p * AC; j++)
            sv[j] = 100 * r + j + 1;
        memset(ref, 0, sizeof(int) * (size_t)(p * AC));
        call_kind(k, sv, ref, DMX_COLL_MPI); /* the library's own call, separate buffers */
        for (int a = DMX_COLL_FLAT; a <= DMX_COLL_NALGS; a++) {
            dmx_coll_alg alg = a == DMX_COLL_NALGS ? DMX_COLL_AUTO : (dmx_coll_alg)a;
            if (alg != DMX_COLL_AUTO && !dmx_coll_alg_valid(k, alg))
                continue;
            for (int variant = 0; variant < 3; variant++) { /* same, overlap by one, touching */
                dmxt_checker C = {ctx, 0, ""};
                int *s = arena + 2;
                int *rb = variant == 0 ? s : variant == 1 ? s + sn - 1 : s + sn;
                memcpy(s, sv, sizeof(int) * (size_t)sn);
                int fail = variant < 2 && both, before = calls;
                dmx_status st = call_kind(k, s, rb, alg);
                if (st != (fail ? DMX_ERR_ARG : DMX_SUCCESS))
                    dmxt_fail(&C, "status %s (%s)", dmx_status_string(st), dmx_last_error());
                if (calls - before != fail || (fail && !strstr(seen_msg, "buffers overlap")))
                    dmxt_fail(&C, "handler called %d times, last message \"%s\"", calls - before,
                              seen_msg);
                const int *out = rb;
                if (st != DMX_SUCCESS) { /* nothing was sent: the valid call completes it */
                    memset(rv, 0, sizeof(int) * (size_t)(p * AC));
                    if (call_kind(k, sv, rv, alg) != DMX_SUCCESS)
                        dmxt_fail(&C, "the valid call after the bad one: %s", dmx_last_error());
                    out = rv;
                }
                if (check && memcmp(out, ref, sizeof(int) * (size_t)rn) != 0)
                    dmxt_fail(&C, "result differs from MPI's (first %d, want %d)", out[0], ref[0]);
                char desc[160];
                snprintf(desc, sizeof desc, "aliased buffers: %s %s, %s", dmx_coll_kind_name(k),
                         dmx_coll_alg_name(alg),
                         variant == 0   ? "same pointer"
                         : variant == 1 ? "overlap by one"
                                        : "touching");
                dmxt_case_end(ctx, C.bad, C.msg, desc);
            }
        }
    }
    free(arena);
    free(sv);
    free(rv);
    free(ref);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[argc - 1] : "local";
    if (strcmp(mode, "off") == 0 || strcmp(mode, "agree") == 0 ||
        strcmp(mode, "nullcomm_agree") == 0)
        setenv("DMX_COLL_CHECK", strcmp(mode, "off") == 0 ? "off" : "agree", 1);
    else
        unsetenv("DMX_COLL_CHECK"); /* the default: local */
    if (strcmp(mode, "abort") == 0) {
        int rank = 0, p = 0, buf[4] = {1, 2, 3, 4};
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        /* rooted at the bad rank, so the others wait for it */
        dmx_status st = dmx_coll_bcast(buf, rank == p - 1 ? -1 : 4, MPI_INT, p - 1, MPI_COMM_WORLD,
                                       DMX_COLL_BINOMIAL);
        printf("check FAIL [abort]: rank %d returned %s instead of ending the job\n", rank,
               dmx_status_string(st));
        fflush(stdout);
        MPI_Finalize();
        return 1;
    }
    if (strncmp(mode, "nullcomm", 8) == 0) {
        int rank = 0, p = 0, x = 1, y = 0;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        dmx_status st =
            dmx_coll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM,
                               rank == p - 1 ? MPI_COMM_NULL : MPI_COMM_WORLD, DMX_COLL_AUTO);
        printf("check FAIL [%s]: rank %d returned %s instead of ending the job\n", mode, rank,
               dmx_status_string(st));
        fflush(stdout);
        MPI_Finalize();
        return 1;
    }
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_check");
    dmx_set_error_handler(record);
    run_mode(&ctx, mode);
    if (strcmp(mode, "local") == 0)
        run_alias(&ctx);
    dmx_set_error_handler(NULL);
    return dmxt_finish(&ctx);
}
