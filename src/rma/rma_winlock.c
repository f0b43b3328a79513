/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-wide serialisation of window creation (a workaround for Open MPI 4.x).
 *
 * Problem: Open MPI 4.x's one-sided components name the shared-memory file that holds a
 *   window's state (osc rdma, every window flavour) or memory (osc sm) after the context id of
 *   the window's communicator and the node name only. Communicators split from one parent at
 *   the same time get the same context id, so two halves creating windows at the same moment
 *   open the same file: creation fails, or worse, both windows share state and memory (Open
 *   MPI issue 9492, fixed in 5.0). The file is unlinked before window creation returns, so
 *   creations that do not overlap in time are safe.
 * Algorithm: one rank per node of the communicator (rank 0 of its node communicator) tries
 *   to take an exclusive fcntl lock on a per-user file in /dev/shm (or /tmp) without blocking;
 *   an MPI_Allreduce (MIN) tells every rank whether all node leaders hold their lock. If so,
 *   the caller creates its windows and the leaders release the locks; if not, leaders that got
 *   a lock release it, everyone waits a random 0.2-2 ms and tries again. Trying without
 *   blocking and retrying collectively cannot deadlock when communicators overlap on several
 *   nodes in different orders; random waits end the competition.
 * Preconditions: every rank of comm calls it; node is comm split by shared memory.
 * Cost: one allreduce per attempt (alpha*log P), one lock/unlock per node leader.
 * Temporary memory: none. */
#define _POSIX_C_SOURCE 200809L

#include "rma.h"

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int lock_file(void)
{
    char path[128];
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/dmx-rma-windows-%ld.lock", dir, (long)getuid());
    return open(path, O_RDWR | O_CREAT, 0600);
}

static int try_lock(int fd)
{
    struct flock fl = {0};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    return fcntl(fd, F_SETLK, &fl) == 0;
}

void dmxi_rma_node_unlock(int *fd)
{
    if (*fd >= 0) {
        struct flock fl = {0};
        fl.l_type = F_UNLCK;
        fl.l_whence = SEEK_SET;
        fcntl(*fd, F_SETLK, &fl);
        close(*fd);
    }
    *fd = -1;
}

dmx_status dmxi_rma_node_lock(MPI_Comm comm, MPI_Comm node, int *fd)
{
    dmx_status st = DMX_SUCCESS;
    int nr = 0, rank = 0;
    unsigned seed = 0;
    *fd = -1;
    DMXI_MPI(MPI_Comm_rank(node, &nr));
    DMXI_MPI(MPI_Comm_rank(comm, &rank));
    seed = (unsigned)getpid() * 2654435761u + (unsigned)rank;
    for (int attempt = 0;; attempt++) {
        int got = 1;
        if (nr == 0) {
            *fd = lock_file();
            got = *fd < 0 ? 1 : try_lock(*fd); /* no lock file: proceed unserialised */
        }
        DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_INT, MPI_MIN, comm));
        if (got)
            break;
        dmxi_rma_node_unlock(fd);
        seed = seed * 1103515245u + 12345u;
        struct timespec ts = {0, 200000L + (long)((seed >> 8) % 1800000u)};
        nanosleep(&ts, NULL);
        DMXI_CHECK(attempt < 100000, DMX_ERR_INTERNAL, "could not serialise window creation");
    }
cleanup:
    if (st != DMX_SUCCESS)
        dmxi_rma_node_unlock(fd);
    return st;
}

dmx_status dmxi_rma_win_error(int rc, const char *call, const char *file, int line)
{
    int cls = MPI_ERR_OTHER;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || cls != MPI_ERR_WIN)
        return dmxi_mpi_error(rc, call, file, line);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        msg[0] = 0;
    return dmxi_error(DMX_ERR_UNSUPPORTED, file, line,
                      "%s failed (%s): this MPI library has no one-sided component for windows "
                      "over memory it did not allocate (Open MPI 4.1 with only the tcp btl has "
                      "none); dmx_rma_alloc on one node still works",
                      call, msg);
}
