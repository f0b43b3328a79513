/* SPDX-License-Identifier: BSD-3-Clause */
/* Ending the job after an error message: a short pause, then MPI_Abort.
 *
 * Why the pause: MPICH's Hydra kills the job on MPI_Abort without forwarding what the aborting
 * process has just written to stderr, so without it the message that says why the job ended was
 * lost in about one run in twenty here. 0.3 s lets the launcher read and forward it. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "sp_internal.h"

#include <stdlib.h>
#include <time.h>

_Noreturn void sp_abort(MPI_Comm comm)
{
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
    abort(); /* MPI_Abort does not return; keep the compiler and the promise honest */
}
