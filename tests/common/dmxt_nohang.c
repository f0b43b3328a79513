/* SPDX-License-Identifier: BSD-3-Clause */
/* The nohang harness (dmxt_nohang.h). */
#define _POSIX_C_SOURCE 200809L

#include "dmxt_nohang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXH = 4 };
static const char *mode = "";
static const char *words;
static int rank;
static double t0;
static void **handles[MAXH];
static int nhandles;
static MPI_Comm gather = MPI_COMM_NULL;

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void test_handler(dmx_status st, const char *message)
{
    char why[400] = "";
    const double dt = MPI_Wtime() - t0;
    for (int i = 0; i < nhandles; i++)
        if (*handles[i] != NULL)
            dmxt_append(why, sizeof why, " output handle %d is not NULL;", i);
    if (strcmp(message, dmx_last_error()) != 0)
        dmxt_append(why, sizeof why, " the message differs from dmx_last_error();");
    if (message[0] == '\0')
        dmxt_append(why, sizeof why, " empty message;");
    if (words && !strstr(message, words))
        dmxt_append(why, sizeof why, " the message does not say \"%s\";", words);
    if (dt > DMXT_NOHANG_SECONDS)
        dmxt_append(why, sizeof why, " after more than %.0f s;", DMXT_NOHANG_SECONDS);
    printf("nohang %s [%s] rank %d after %.2f s: %s: %s%s\n", why[0] ? "FAIL" : "OK", mode, rank,
           dt, dmx_status_string(st), message, why);
    if (rank == 0)
        printf("%d passed, %d failed\n", why[0] ? 0 : 1, why[0] ? 1 : 0);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Let the launcher forward what the ranks printed before the abort tears the job down (MPICH's
 * hydra may drop output still in flight when a rank aborts). */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    fflush(stdout);
    fflush(stderr);
    sleep_ms(1000);
    return PMPI_Abort(comm, errorcode);
}

const char *dmxt_nohang_init(dmxt_ctx *ctx, int *argc, char ***argv, const char *name)
{
    dmxt_init(ctx, argc, argv, name);
    rank = ctx->rank;
    mode = *argc > 1 ? (*argv)[1] : "";
    if (!(*argc > 2 && strcmp((*argv)[2], "default") == 0))
        dmx_set_error_handler(test_handler);
    unsetenv("DMX_TIMEOUT"); /* default settings: the bound must not come from a short timeout */
    MPI_Comm_dup(MPI_COMM_WORLD, &gather);
    return mode;
}

void dmxt_nohang_expect_words(const char *w)
{
    words = w;
}

void dmxt_nohang_watch_handle(void **h)
{
    if (nhandles < MAXH)
        handles[nhandles++] = h;
}

void dmxt_nohang_start(void)
{
    t0 = MPI_Wtime();
}

void dmxt_nohang_returned(dmx_status st)
{
    /* A valid call may return on the other ranks: wait there for rank 0's handler to end the
     * job (sleeping, not in an MPI call, which would spin under MPICH). */
    const double until = MPI_Wtime() + 30.0;
    while (rank != 0 && MPI_Wtime() < until)
        sleep_ms(100);
    printf("nohang FAIL [%s] rank %d: the call returned %s (%s) after %.2f s instead of ending "
           "the job\n",
           mode, rank, dmx_status_string(st), dmx_last_error(), MPI_Wtime() - t0);
    if (rank == 0)
        printf("0 passed, 1 failed\n");
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

int dmxt_nohang_agreed(dmx_status st, dmx_status want)
{
    const double dt = MPI_Wtime() - t0;
    int bad = st != want || dt > DMXT_NOHANG_SECONDS, anybad = 0, done = 0;
    if (bad)
        printf("nohang FAIL [%s] rank %d after %.2f s: %s (%s), want %s within %.0f s\n", mode,
               rank, dt, dmx_status_string(st), dmx_last_error(), dmx_status_string(want),
               DMXT_NOHANG_SECONDS);
    MPI_Request req;
    MPI_Iallreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, gather, &req);
    const double until = MPI_Wtime() + 20.0;
    while (!done && MPI_Wtime() < until) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            sleep_ms(1);
    }
    if (!done) {
        printf("nohang FAIL [%s] rank %d: returned %s after %.2f s, but another rank has not "
               "returned after 20 s more\n",
               mode, rank, dmx_status_string(st), dt);
        if (rank == 0)
            printf("0 passed, 1 failed\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    if (rank == 0) {
        if (!anybad)
            printf("nohang OK [%s]: every rank returned %s within %.2f s\n", mode,
                   dmx_status_string(want), dt);
        printf("%d passed, %d failed\n", anybad ? 0 : 1, anybad ? 1 : 0);
    }
    fflush(stdout);
    MPI_Comm_free(&gather);
    return anybad;
}
