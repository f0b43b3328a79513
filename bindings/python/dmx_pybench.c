/* SPDX-License-Identifier: BSD-3-Clause */
/* The C side of `python3 -m dmx bench` (bindings/python/dmx/_bench.py): the same calls the
 * Python package makes, timed in a C loop, so the benchmark compares Python's call with C's on
 * the very same plan and layouts in one run. Not part of dmx's API; loaded by ctypes from the
 * package's folder. MPI failures here are reported as dmx's DMX_ERR_MPI status. */
#include "dmx.h"

#include <mpi.h>
#include <stdint.h>

/* Prototypes for -Wmissing-prototypes: these are called from Python only. */
dmx_status dmxpy_plan_execute_timed(dmx_plan *plan, MPI_Comm comm, double *seconds);
dmx_status dmxpy_transform_once_timed(int dtype, int op, dmx_scalar alpha, const dmx_layout *b,
                                      dmx_scalar beta, dmx_layout *a, MPI_Comm comm,
                                      double *seconds);
dmx_status dmxpy_transform_once_loop(int dtype, int op, dmx_scalar alpha, const dmx_layout *b,
                                     dmx_scalar beta, dmx_layout *a, int64_t count,
                                     double *seconds);
dmx_status dmxpy_plan_execute_loop(dmx_plan *plan, int64_t count, double *seconds);

/* Barrier, the timed call, then the largest time over the ranks: what the Python side does
 * around its own call. */
static dmx_status finish(double t0, dmx_status st, MPI_Comm comm, double *seconds)
{
    double t = MPI_Wtime() - t0;
    if (MPI_Allreduce(&t, seconds, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        return DMX_ERR_MPI;
    return st;
}

/** One dmx_plan_execute between a barrier and a maximum over the ranks. Collective. */
dmx_status dmxpy_plan_execute_timed(dmx_plan *plan, MPI_Comm comm, double *seconds)
{
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        return DMX_ERR_MPI;
    double t0 = MPI_Wtime();
    dmx_status st = dmx_plan_execute(plan);
    return finish(t0, st, comm, seconds);
}

/** One dmx_transform_once between a barrier and a maximum over the ranks. Collective. */
dmx_status dmxpy_transform_once_timed(int dtype, int op, dmx_scalar alpha, const dmx_layout *b,
                                      dmx_scalar beta, dmx_layout *a, MPI_Comm comm,
                                      double *seconds)
{
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        return DMX_ERR_MPI;
    double t0 = MPI_Wtime();
    dmx_status st = dmx_transform_once((dmx_dtype)dtype, (dmx_op)op, alpha, b, beta, a);
    return finish(t0, st, comm, seconds);
}

/** @p count calls of dmx_transform_once back to back; *seconds is this rank's total. For the
 * per-call cost of small calls, where a barrier per call would dominate. Collective. */
dmx_status dmxpy_transform_once_loop(int dtype, int op, dmx_scalar alpha, const dmx_layout *b,
                                     dmx_scalar beta, dmx_layout *a, int64_t count, double *seconds)
{
    dmx_status st = DMX_SUCCESS;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < count && st == DMX_SUCCESS; k++)
        st = dmx_transform_once((dmx_dtype)dtype, (dmx_op)op, alpha, b, beta, a);
    *seconds = MPI_Wtime() - t0;
    return st;
}

/** @p count calls of dmx_plan_execute back to back; *seconds is this rank's total. Collective. */
dmx_status dmxpy_plan_execute_loop(dmx_plan *plan, int64_t count, double *seconds)
{
    dmx_status st = DMX_SUCCESS;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < count && st == DMX_SUCCESS; k++)
        st = dmx_plan_execute(plan);
    *seconds = MPI_Wtime() - t0;
    return st;
}
