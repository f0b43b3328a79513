/* dmx_version() and the DMX_VERSION_* macros against the project version CMake was given. */
#include "dmx.h"

#include <stdio.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL: %s\n", what);
    }
}

int main(void)
{
    int major = -1, minor = -1, patch = -1;
    const char *s = dmx_version(&major, &minor, &patch);
    check(s != NULL && strcmp(s, DMX_EXPECTED_VERSION) == 0, "dmx_version() string");
    check(major == DMX_EXPECTED_MAJOR && minor == DMX_EXPECTED_MINOR && patch == DMX_EXPECTED_PATCH,
          "dmx_version() numbers");
    check(DMX_VERSION_MAJOR == DMX_EXPECTED_MAJOR && DMX_VERSION_MINOR == DMX_EXPECTED_MINOR &&
              DMX_VERSION_PATCH == DMX_EXPECTED_PATCH,
          "DMX_VERSION_* macros");
    check(strcmp(DMX_VERSION_STRING, DMX_EXPECTED_VERSION) == 0, "DMX_VERSION_STRING");
    check(dmx_version(NULL, NULL, NULL) == s, "dmx_version(NULL, NULL, NULL)");
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
