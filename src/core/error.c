/* Error reporting: status names, thread-local last-error text, collective agreement. */
#include "dmxi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];

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

dmx_status dmxi_error(dmx_status st, const char *file, int line, const char *fmt, ...)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int k = snprintf(last_error, sizeof last_error, "%s:%d: ", base, line);
    if (k < 0 || (size_t)k >= sizeof last_error)
        k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error + k, sizeof last_error - (size_t)k, fmt, ap);
    va_end(ap);
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

dmx_status dmxi_agree(MPI_Comm comm, dmx_status local)
{
    int mine = (int)local, worst = 0;
    int rc = MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return dmxi_mpi_error(rc, "MPI_Allreduce", __FILE__, __LINE__);
    if (worst != 0 && mine == 0)
        return dmxi_error((dmx_status)worst, __FILE__, __LINE__,
                          "another rank failed with %s (see its error message)",
                          dmx_status_string((dmx_status)worst));
    return (dmx_status)worst;
}

dmx_status dmxi_agree_same(MPI_Comm comm, uint64_t value, const char *what)
{
    /* min and max of the value in one reduction: reduce (v, ~v) with MIN. */
    uint64_t pair[2] = {value, ~value}, red[2];
    int rc = MPI_Allreduce(pair, red, 2, MPI_UINT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return dmxi_mpi_error(rc, "MPI_Allreduce", __FILE__, __LINE__);
    if (red[0] != value || ~red[1] != value)
        return dmxi_error(DMX_ERR_LAYOUT, __FILE__, __LINE__, "ranks passed different %s", what);
    return DMX_SUCCESS;
}
