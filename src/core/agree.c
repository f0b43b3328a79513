/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective agreement: every rank's status (and a few values) reduced over the communicator
 * by a nonblocking reduction waited for with dmxi_wait_bounded (wait.c), so ranks that call on
 * different communicators end with a message, not a hang. A leaf of core: error.c reports,
 * wait.c waits, this file agrees on top of both. */
#include "dmxi.h"

#include <stdlib.h>
#include <string.h>

/* Reduce n <= DMXI_AGREE_MAX_VALUES + 1 eight-byte values (type, op) over comm, nonblocking,
 * waited for with dmxi_wait_bounded. The buffers are on the heap: after a timeout the reduction
 * stays pending and may still write into them, so they are then left allocated (at most 256
 * bytes) rather than freed or taken from the stack. */
int dmxi_iallreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Request *req)
{
#ifdef DMX_SIM_WAIT
    /* Simulation builds (see wait.c): SMPI's MPI_Iallreduce posts a message between every pair of
     * ranks (p^2 messages), which the simulator cannot afford at 1024 ranks (at 256 ranks the
     * plan setup's reductions were most of a redistribution's simulator time, docs/scale.md);
     * its blocking MPI_Allreduce uses a logarithmic algorithm. No timeout there. */
    *req = MPI_REQUEST_NULL;
    return MPI_Allreduce(in, out, n, type, op, comm);
#else
    return MPI_Iallreduce(in, out, n, type, op, comm, req);
#endif
}

static dmx_status reduce_bounded(MPI_Comm comm, const void *in, void *out, int n, MPI_Datatype type,
                                 MPI_Op op)
{
    dmx_status st = DMX_SUCCESS;
    uint64_t *buf = calloc((size_t)(2 * n), sizeof *buf);
    MPI_Request req = MPI_REQUEST_NULL;
    DMXI_CHECK(buf, DMX_ERR_ALLOC, "out of memory");
    memcpy(buf, in, (size_t)n * sizeof *buf);
    DMXI_MPI(dmxi_iallreduce(buf, buf + n, n, type, op, comm, &req));
    st = dmxi_wait_bounded(&req, "the agreement on the arguments");
    if (st != DMX_SUCCESS) {
        if (req != MPI_REQUEST_NULL)
            buf = NULL; /* still pending: MPI may write into it */
        goto cleanup;
    }
    memcpy(out, buf + n, (size_t)n * sizeof *buf);
cleanup:
    free(buf);
    return st;
}

dmx_status dmxi_agree(MPI_Comm comm, dmx_status local)
{
    int64_t mine = (int64_t)local, worst = 0;
    dmx_status st = reduce_bounded(comm, &mine, &worst, 1, MPI_INT64_T, MPI_MAX);
    if (st != DMX_SUCCESS)
        return st;
    if (worst != 0 && mine == 0)
        return dmxi_error((dmx_status)worst, __FILE__, __LINE__,
                          "another rank failed with %s (see its error message)",
                          dmx_status_string((dmx_status)worst));
    return (dmx_status)worst;
}

dmx_status dmxi_agree_max(MPI_Comm comm, dmx_status local, int64_t *value)
{
    int64_t mine[2] = {(int64_t)local, *value}, red[2] = {0, 0};
    dmx_status st = reduce_bounded(comm, mine, red, 2, MPI_INT64_T, MPI_MAX);
    if (st != DMX_SUCCESS)
        return st;
    *value = red[1];
    if (red[0] != 0 && local == DMX_SUCCESS)
        return dmxi_error((dmx_status)red[0], __FILE__, __LINE__,
                          "another rank failed with %s (see its error message)",
                          dmx_status_string((dmx_status)red[0]));
    return (dmx_status)red[0];
}

dmx_status dmxi_agree_min(MPI_Comm comm, dmx_status local, int64_t *v, int n)
{
    int64_t mine[DMXI_AGREE_MAX_VALUES + 1], red[DMXI_AGREE_MAX_VALUES + 1];
    if (n < 0 || n > DMXI_AGREE_MAX_VALUES)
        return dmxi_error(DMX_ERR_INTERNAL, __FILE__, __LINE__, "dmxi_agree_min: %d values", n);
    mine[0] = -(int64_t)local; /* the largest status is the smallest of these */
    memcpy(mine + 1, v, (size_t)n * sizeof *v);
    dmx_status st = reduce_bounded(comm, mine, red, n + 1, MPI_INT64_T, MPI_MIN);
    if (st != DMX_SUCCESS)
        return st;
    memcpy(v, red + 1, (size_t)n * sizeof *v);
    if (red[0] != 0 && local == DMX_SUCCESS)
        return dmxi_error((dmx_status)-red[0], __FILE__, __LINE__,
                          "another rank failed with %s (see its error message)",
                          dmx_status_string((dmx_status)-red[0]));
    return (dmx_status)-red[0];
}

dmx_status dmxi_agree_same(MPI_Comm comm, uint64_t value, const char *what)
{
    /* min and max of the value in one reduction: reduce (v, ~v) with MIN. */
    uint64_t pair[2] = {value, ~value}, red[2];
    dmx_status st = reduce_bounded(comm, pair, red, 2, MPI_UINT64_T, MPI_MIN);
    if (st != DMX_SUCCESS)
        return st;
    if (red[0] != value || ~red[1] != value)
        return dmxi_error(DMX_ERR_LAYOUT, __FILE__, __LINE__, "ranks passed different %s", what);
    return DMX_SUCCESS;
}
