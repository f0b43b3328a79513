/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/comm.h
 * @brief What dmx keeps with a communicator, for libraries built on dmx (the ScaLAPACK
 * drop-in). Included by dmx.h; compiles on its own.
 *
 * dmx keeps one record per communicator it works on, attached as an attribute: one inner
 * duplicate of the communicator, its node communicator, and each module's state; all of it is
 * freed when the communicator is freed, or at MPI_Finalize (docs/architecture.md, "What dmx
 * attaches to your communicator"). The calls below let one library on top of dmx keep one state
 * of its own there too, freed the same way.
 */
#ifndef DMX_COMM_H
#define DMX_COMM_H

#include "dmx/base.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Frees a state kept with dmx_comm_set_state(). Called inside MPI_Comm_free of the
 * communicator (so collectively: it may destroy dmx plans and layouts) or in MPI_Finalize. */
typedef void (*dmx_comm_state_free)(void *state);

/** dmx's inner duplicate of @p comm (MPI_ERRORS_RETURN), made on the first call: collective on
 * @p comm then, local afterwards. Borrowed: freed with @p comm, never by the caller. */
DMX_API dmx_status dmx_comm_inner(MPI_Comm comm, MPI_Comm *inner);

/** The state kept with @p comm by dmx_comm_set_state(), or NULL. Local. */
DMX_API dmx_status dmx_comm_state(MPI_Comm comm, void **state);

/** Keep @p state with @p comm (none kept yet; NULL clears it without calling @p fn); @p fn
 * frees it when @p comm is freed or at MPI_Finalize. Local. */
DMX_API dmx_status dmx_comm_set_state(MPI_Comm comm, void *state, dmx_comm_state_free fn);

#ifdef __cplusplus
}
#endif

#endif /* DMX_COMM_H */
