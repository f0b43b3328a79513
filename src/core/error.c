/* SPDX-License-Identifier: BSD-3-Clause */
/* Error reporting: status names, thread-local last-error text, the handler for errors that
 * cannot be agreed. The agreement on errors between ranks is agree.c. */
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

dmx_status dmxi_fatal_recorded(dmx_status st)
{
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
