/* SPDX-License-Identifier: BSD-3-Clause */
/* Waiting for one MPI request without spinning inside MPI: dmxi_wait_bounded gives up after
 * DMX_TIMEOUT seconds, dmxi_wait_yield (the engine's setup) waits as long as it takes.
 *
 * Algorithm of dmxi_wait_bounded: test the request; while it is not complete, first test again
 * at once (a few times: most agreements complete within microseconds), then yield the processor
 * between tests (sched_yield), and after a millisecond sleep between tests, doubling the sleep
 * from 16 us up to 1 ms (dmxi_wait_yield only tests and yields). Yielding matters on
 * oversubscribed nodes, where a spinning rank would take the core from the rank it waits for;
 * the tests themselves drive MPI's progress, so this works with MPIs that progress only inside
 * MPI calls. When DMX_TIMEOUT seconds (read once per wait; 0 = forever) pass
 * without completion, the wait calls the error handler (dmxi_fatal) with DMX_ERR_MPI and a
 * message naming what was waited for and the likely cause.
 *
 * Preconditions: *req is an active request (or MPI_REQUEST_NULL, which completes at once).
 * Cost: no messages of its own; after completion at most about 1 ms of added latency (the last
 * sleep), none when the request completes while spinning. Memory: none.
 *
 * Simulation builds (DMX_SIM_WAIT, set by scripts/simulate.sh for SimGrid's SMPI): in
 * dmxi_wait_bounded, one blocking MPI_Wait instead, with no timeout (DMX_TIMEOUT is ignored: a
 * mismatched call hangs the simulation). In SMPI every MPI_Test is a simulated call with its own
 * cost and a scheduling round over all simulated ranks, and the sleeps between tests are simulated
 * sleeps, so a polled wait costs simulator time in proportion to how long it waits; a blocking wait
 * costs one call.
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxi.h"

#include <sched.h>
#include <time.h>

dmx_status dmxi_wait_bounded(MPI_Request *req, const char *what)
{
    dmx_status st = DMX_SUCCESS;
#ifdef DMX_SIM_WAIT
    (void)what;
    DMXI_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
#else
    const int64_t timeout = dmxi_setting_int(DMXI_SET_TIMEOUT);
    const double t0 = MPI_Wtime();
    long sleep_ns = 16000;
    for (int64_t iter = 0;; iter++) {
        int done = 0;
        DMXI_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (done)
            break;
        const double waited = MPI_Wtime() - t0;
        if (timeout > 0 && waited > (double)timeout) {
            st = dmxi_fatal(DMX_ERR_MPI, __FILE__, __LINE__,
                            "%s did not complete within DMX_TIMEOUT = %lld s: ranks called a "
                            "collective dmx function on different communicators, or one rank "
                            "never called it",
                            what, (long long)timeout);
            goto cleanup;
        }
        if (iter < 16)
            continue;
        if (waited < 1e-3) {
            sched_yield();
        } else {
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 1000000)
                sleep_ns *= 2;
        }
    }
#endif
cleanup:
    return st;
}

int dmxi_wait_yield(MPI_Request *req)
{
#ifdef DMX_SIM_WAIT
    /* one blocking wait, as above (and SMPI 3.32's MPI_Test never sets the flag for
     * MPI_REQUEST_NULL without a status, which dmxi_iallreduce hands out in these builds) */
    return MPI_Wait(req, MPI_STATUS_IGNORE);
#endif
    for (;;) {
        int flag = 0, rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        sched_yield();
    }
}
