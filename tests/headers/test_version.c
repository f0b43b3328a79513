/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx_version() and the DMX_VERSION_* macros against the project version CMake was given. */
#include "dmx.h"
#include "dmxt_util.h"

#include <string.h>

int main(void)
{
    dmxt_count results = {0, 0};
    int major = -1, minor = -1, patch = -1;
    const char *s = dmx_version(&major, &minor, &patch);
    DMXT_EXPECT(&results, s != NULL && strcmp(s, DMX_EXPECTED_VERSION) == 0,
                "dmx_version() is \"%s\", expected \"%s\"", s ? s : "(null)", DMX_EXPECTED_VERSION);
    DMXT_EXPECT(&results,
                major == DMX_EXPECTED_MAJOR && minor == DMX_EXPECTED_MINOR &&
                    patch == DMX_EXPECTED_PATCH,
                "dmx_version() numbers %d.%d.%d", major, minor, patch);
    DMXT_EXPECT(
        &results,
        DMX_VERSION_MAJOR == DMX_EXPECTED_MAJOR && DMX_VERSION_MINOR == DMX_EXPECTED_MINOR &&
            DMX_VERSION_PATCH == DMX_EXPECTED_PATCH,
        "DMX_VERSION_* macros %d.%d.%d", DMX_VERSION_MAJOR, DMX_VERSION_MINOR, DMX_VERSION_PATCH);
    DMXT_EXPECT(&results, strcmp(DMX_VERSION_STRING, DMX_EXPECTED_VERSION) == 0,
                "DMX_VERSION_STRING is \"%s\"", DMX_VERSION_STRING);
    DMXT_EXPECT(&results, dmx_version(NULL, NULL, NULL) == s, "dmx_version(NULL, NULL, NULL)");
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
