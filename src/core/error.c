/* SPDX-License-Identifier: BSD-3-Clause */
/* Error reporting: status names, thread-local last-error text, the handler for errors that
 * cannot be agreed, collective agreement (a nonblocking reduction waited for by
 * dmxi_wait_bounded, so ranks on different communicators end with a message, not a hang). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "dmxi.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LAST_ERROR_LEN 512
static _Thread_local char last_error[LAST_ERROR_LEN];

/* The default handler prints, then aborts the job. The pause between the two gives the launcher
 * time to forward the message: MPICH's Hydra kills the job on MPI_Abort without draining what the
 * aborting rank already wrote, and lost the line in about one run in twenty without it. */
static void default_handler(dmx_status st, const char *message)
{
    fprintf(stderr, "dmx: %s (%s)\n", message, dmx_status_string(st));
    fflush(stderr);
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static _Atomic(dmx_error_handler) handler = default_handler;

dmx_error_handler dmx_set_error_handler(dmx_error_handler fn)
{
    dmx_error_handler old = atomic_exchange(&handler, fn ? fn : default_handler);
    return old == default_handler ? NULL : old;
}

int dmxi_error_handler_is_default(void)
{
    return atomic_load(&handler) == default_handler;
}

const char *dmx_status_string(dmx_status st)
{
    switch (st) {
    case DMX_SUCCESS: return "DMX_SUCCESS";
    case DMX_ERR_ARG: return "DMX_ERR_ARG";
    case DMX_ERR_NULL: return "DMX_ERR_NULL";
    case DMX_ERR_ALLOC: return "DMX_ERR_ALLOC";
    case DMX_ERR_STATE: return "DMX_ERR_STATE";
    case DMX_ERR_LAYOUT: return "DMX_ERR_LAYOUT";
    case DMX_ERR_OVERFLOW: return "DMX_ERR_OVERFLOW";
    case DMX_ERR_MPI: return "DMX_ERR_MPI";
    case DMX_ERR_UNSUPPORTED: return "DMX_ERR_UNSUPPORTED";
    case DMX_ERR_INTERNAL: return "DMX_ERR_INTERNAL";
    }
    return "DMX_ERR_UNKNOWN";
}

const char *dmx_last_error(void)
{
    return last_error;
}

void dmxi_error_clear(void)
{
    last_error[0] = '\0';
}

/* Format "file:line: message" into a private buffer first, then copy: an argument may be
 * dmx_last_error() itself (its own buffer), which must not be overwritten while it is read. */
static void record(const char *file, int line, const char *fmt, va_list ap)
{
    char buf[LAST_ERROR_LEN];
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int k = snprintf(buf, sizeof buf, "%s:%d: ", base, line);
    if (k < 0 || (size_t)k >= sizeof buf)
        k = 0;
    vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
    memcpy(last_error, buf, sizeof buf);
}

dmx_status dmxi_error(dmx_status st, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(file, line, fmt, ap);
    va_end(ap);
    return st;
}

dmx_status dmxi_fatal(dmx_status st, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(file, line, fmt, ap);
    va_end(ap);
    dmx_error_handler h = atomic_load(&handler);
    h(st, last_error);
    return st;
}

dmx_status dmxi_mpi_error(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    return dmxi_error(DMX_ERR_MPI, file, line, "%s failed: %s", call, msg);
}

/* Reduce n <= DMXI_AGREE_MAX_VALUES + 1 eight-byte values (type, op) over comm, nonblocking,
 * waited for with dmxi_wait_bounded. The buffers are on the heap: after a timeout the reduction
 * stays pending and may still write into them, so they are then left allocated (at most 256
 * bytes) rather than freed or taken from the stack. */
static dmx_status reduce_bounded(MPI_Comm comm, const void *in, void *out, int n, MPI_Datatype type,
                                 MPI_Op op)
{
    dmx_status st = DMX_SUCCESS;
    uint64_t *buf = calloc((size_t)(2 * n), sizeof *buf);
    MPI_Request req = MPI_REQUEST_NULL;
    DMXI_CHECK(buf, DMX_ERR_ALLOC, "out of memory");
    memcpy(buf, in, (size_t)n * sizeof *buf);
#ifdef DMX_SIM_WAIT
    /* Simulation builds (see wait.c): SMPI's MPI_Iallreduce posts a message between every pair of
     * ranks (p^2 messages), which the simulator cannot afford at 1024 ranks; its blocking
     * MPI_Allreduce uses a logarithmic algorithm. No timeout there. */
    (void)req;
    DMXI_MPI(MPI_Allreduce(buf, buf + n, n, type, op, comm));
#else
    DMXI_MPI(MPI_Iallreduce(buf, buf + n, n, type, op, comm, &req));
    st = dmxi_wait_bounded(&req, "the agreement on the arguments");
#endif
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
