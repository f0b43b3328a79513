/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx_scalapack.h
 * @brief The ScaLAPACK drop-in's declarations under their first name; see dmx/scalapack.h.
 */
#ifndef DMX_SCALAPACK_COMPAT_H
#define DMX_SCALAPACK_COMPAT_H

#include "dmx/scalapack.h"

#endif /* DMX_SCALAPACK_COMPAT_H */
