/* SPDX-License-Identifier: BSD-3-Clause */
/* A peer that never enters the execution (issue 14): the waiting ranks must give up.
 *
 * Every rank plans a transpose B -> A of a block-cyclic matrix dealt so that every rank sends
 * to and receives from every other. Then the last rank does not execute the plan: it waits at
 * a barrier of MPI_COMM_WORLD. The others execute with DMX_TIMEOUT (the test's environment sets
 * 2 s) and must return DMX_ERR_MPI, with a dmx_last_error() message that names DMX_TIMEOUT,
 * within a few seconds (checked against MPI_Wtime: no later than DMX_TIMEOUT + 10 s), instead
 * of waiting forever. A second execution of the same plan must fail at once with
 * DMX_ERR_STATE. The run covers rings in the shared window and MPI messages alike (the test is
 * registered with DMX_SHM=1 and DMX_SHM=0).
 *
 * The plan cannot be destroyed afterwards (destroying is collective and its receives from the
 * absent rank are still posted), so rank 0 prints the closing line "N passed, N failed" and
 * ends the job with MPI_Abort; the test passes on that line (PASS_REGULAR_EXPRESSION), not on
 * the launcher's exit code. A watchdog (alarm, 60 s) turns a hang into a failure line.
 *
 * With DMX_TEST_KILL=1 (run under Open MPI's `mpirun --enable-recovery`, which keeps the job
 * alive when a process dies) the last rank kills itself (SIGKILL) instead of waiting, and rank 0
 * reports its own checks only (a collective with a dead rank would not return). */
#define _POSIX_C_SOURCE 200809L

#include "dmx.h"
#include "dmxt_util.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dmxt_watchdog(60, 1, "FAIL: watchdog expired (a rank kept waiting)\n0 passed, 1 failed\n");
    const char *tv = getenv("DMX_TIMEOUT");
    const double limit = (tv ? atof(tv) : 600.0) + 10.0;
    const char *kv = getenv("DMX_TEST_KILL");
    const int kill_last = kv && atoi(kv) != 0;

    /* n x n doubles in 2 x 2 blocks on a 1 x size grid: each rank owns every size-th block
     * column; the transpose sends a piece of every column block to every rank. */
    const int64_t n = 8 * size, nb = 2;
    const int64_t lcols = (n / nb + size - 1) / size * nb;
    double *a = calloc((size_t)(n * lcols), sizeof *a),
           *b = malloc((size_t)(n * lcols) * sizeof *b);
    for (int64_t i = 0; i < n * lcols; i++)
        b[i] = (double)(rank * 100000 + i);
    dmx_layout *la = NULL, *lb = NULL;
    dmx_plan *plan = NULL;
    int fails = 0, checks = 0;
    dmx_status st =
        dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, nb, nb, 1, size, 'R', 0, 0, a, n, &la);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, nb, nb, 1, size, 'R', 0, 0, b, n,
                                            &lb);
    if (st == DMX_SUCCESS) {
        dmx_transform t;
        memset(&t, 0, sizeof t);
        t.dtype = DMX_DOUBLE;
        t.op = DMX_OP_T;
        t.alpha.re = 1.0;
        t.a = la;
        t.b = lb;
        st = dmx_plan_create(1, &t, &plan);
    }
    if (st != DMX_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: setup: %s (%s)\n", rank, dmx_status_string(st),
                dmx_last_error());
        fails++;
    } else if (rank == size - 1 && kill_last) {
        raise(SIGKILL);
    } else if (rank != size - 1) {
        const double t0 = MPI_Wtime();
        st = dmx_plan_execute(plan);
        const double dt = MPI_Wtime() - t0;
        const char *msg = dmx_last_error();
        checks += 3;
        if (st != DMX_ERR_MPI) {
            fprintf(stderr, "FAIL rank %d: execute returned %s, expected DMX_ERR_MPI\n", rank,
                    dmx_status_string(st));
            fails++;
        }
        if (!msg || !strstr(msg, "DMX_TIMEOUT")) {
            fprintf(stderr, "FAIL rank %d: message \"%s\" does not name DMX_TIMEOUT\n", rank,
                    msg ? msg : "(null)");
            fails++;
        }
        if (dt > limit) {
            fprintf(stderr, "FAIL rank %d: gave up after %.1f s, limit %.1f s\n", rank, dt, limit);
            fails++;
        }
        if (rank == 0)
            printf("rank 0 gave up after %.1f s: %s\n", dt, msg ? msg : "");
        checks++;
        st = dmx_plan_execute(plan);
        if (st != DMX_ERR_STATE) {
            fprintf(stderr,
                    "FAIL rank %d: second execution returned %s, expected "
                    "DMX_ERR_STATE\n",
                    rank, dmx_status_string(st));
            fails++;
        }
    }
    int tot[2] = {checks, fails}, mine[2] = {checks, fails};
    if (!kill_last)
        MPI_Allreduce(mine, tot, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d passed, %d failed\n", tot[0] - tot[1], tot[1]);
        fflush(stdout);
        sleep(1); /* let the launcher forward the line before the abort tears the job down */
        MPI_Abort(MPI_COMM_WORLD, tot[1] ? 1 : 0);
    }
    if (kill_last)
        sleep(30); /* rank 0 ends the job (the watchdog, if it does not) */
    else
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0 ends the job */
    MPI_Finalize();
    return 0;
}
