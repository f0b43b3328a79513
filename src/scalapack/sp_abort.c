/* SPDX-License-Identifier: BSD-3-Clause */
/* Ending the job after an error message: a short pause, then MPI_Abort; and calloc that ends the
 * job when memory runs out (used by the key, cache and multiply files alike).
 *
 * Why the pause: MPICH's Hydra kills the job on MPI_Abort without forwarding what the aborting
 * process has just written to stderr, so without it the message that says why the job ended was
 * lost in about one run in twenty here. 0.3 s lets the launcher read and forward it. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "sp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

_Noreturn void dmxsp_abort(MPI_Comm comm)
{
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
    abort(); /* MPI_Abort does not return; keep the compiler and the promise honest */
}

void *dmxsp_xcalloc(size_t n, size_t sz, const char *name)
{
    void *p = calloc(n > 0 ? n : 1, sz > 0 ? sz : 1);
    if (p != NULL)
        return p;
    fprintf(stderr, "dmx_scalapack: %s: out of memory (%zu x %zu bytes)\n", name, n, sz);
    fflush(stderr);
    dmxsp_abort(MPI_COMM_WORLD);
}
