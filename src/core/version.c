/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's version, as the headers it was built with state it (dmx/base.h). */
#include "dmxi.h"

const char *dmx_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = DMX_VERSION_MAJOR;
    if (minor)
        *minor = DMX_VERSION_MINOR;
    if (patch)
        *patch = DMX_VERSION_PATCH;
    return DMX_VERSION_STRING;
}
