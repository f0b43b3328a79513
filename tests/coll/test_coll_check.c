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
 *  off     DMX_COLL_CHECK=off: the same calls return the status, the handler is not called.
 *  agree   DMX_COLL_CHECK=agree: every rank returns the status, no handler, nothing to redo.
 *  abort   DMX_COLL_CHECK unset, dmx's own handler (np 2): the last rank passes a negative
 *          count to a broadcast that rank 0 roots. The handler prints the message and aborts
 *          the job: ctest passes on that message and fails on a hang (timeout) or on the line
 *          "check FAIL" printed if the bad call returns.
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

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[argc - 1] : "local";
    if (strcmp(mode, "off") == 0 || strcmp(mode, "agree") == 0)
        setenv("DMX_COLL_CHECK", mode, 1);
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
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_check");
    dmx_set_error_handler(record);
    run_mode(&ctx, mode);
    dmx_set_error_handler(NULL);
    return dmxt_finish(&ctx);
}
