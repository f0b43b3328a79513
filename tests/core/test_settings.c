/* SPDX-License-Identifier: BSD-3-Clause */
/* The DMX_* settings table (src/core/settings.c), one process, no MPI:
 *  - integer settings: unset or empty give the default, a nonnegative decimal its value, anything
 *    else (trailing characters, a sign, a value beyond int64_t) the default and one line on stderr
 *    naming the variable and the value, said once per value (stderr goes to a temporary file);
 *  - text settings (DMX_EXCHANGE, DMX_PLAN_CHECK) are never reported, although the snapshot
 *    parses every row;
 *  - the snapshot (dmxi_setting_snapshot) follows setenv, unsetenv, putenv and a string given to
 *    putenv and then written in place, as settings.c promises.
 * Prints "N passed, N failed"; exit 1 on a failure. */
#define _XOPEN_SOURCE 700 /* setenv, unsetenv, putenv, mkstemp, dup */

#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void expect(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

/* stderr into a temporary file while capturing; the number of lines holding `needle` since. */
static int saved_fd = -1;
static FILE *cap;

static void capture_start(void)
{
    char path[] = "/tmp/dmx_test_settings_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(2);
    }
    unlink(path);
    cap = fdopen(fd, "w+");
    fflush(stderr);
    saved_fd = dup(2);
    dup2(fd, 2);
}

static int capture_count(const char *needle)
{
    char line[512];
    int n = 0;
    fflush(stderr);
    rewind(cap);
    while (fgets(line, sizeof line, cap))
        n += strstr(line, needle) != NULL;
    return n;
}

static void capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    fclose(cap);
}

int main(void)
{
    const int64_t dflt = dmxi_setting_info(DMXI_SET_TIMEOUT)->dflt;
    capture_start();

    unsetenv("DMX_TIMEOUT");
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "unset gives the default");
    setenv("DMX_TIMEOUT", "", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "empty gives the default");
    setenv("DMX_TIMEOUT", "25", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == 25, "25 gives 25");
    setenv("DMX_TIMEOUT", "0", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == 0, "0 gives 0");
    expect(capture_count("DMX_TIMEOUT") == 0, "valid values are not reported");

    setenv("DMX_TIMEOUT", "10s", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "10s gives the default");
    expect(capture_count("DMX_TIMEOUT=\"10s\"") == 1, "10s is reported");
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "10s again gives the default");
    expect(capture_count("DMX_TIMEOUT") == 1, "10s is reported once");
    setenv("DMX_TIMEOUT", "-3", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "-3 gives the default");
    expect(capture_count("DMX_TIMEOUT=\"-3\"") == 1, "-3 is reported");
    setenv("DMX_TIMEOUT", "99999999999999999999", 1);
    expect(dmxi_setting_int(DMXI_SET_TIMEOUT) == dflt, "a value beyond int64_t gives the default");
    expect(capture_count("DMX_TIMEOUT=\"99999999999999999999\"") == 1,
           "a value beyond int64_t is reported");
    unsetenv("DMX_TIMEOUT");

    /* text settings through the snapshot, which parses every row as an integer too */
    setenv("DMX_EXCHANGE", "pex", 1);
    setenv("DMX_PLAN_CHECK", "agree", 1);
    const dmxi_setting_values *sv = dmxi_setting_snapshot();
    expect(sv->raw[DMXI_SET_EXCHANGE] && strcmp(sv->raw[DMXI_SET_EXCHANGE], "pex") == 0,
           "the snapshot holds DMX_EXCHANGE's text");
    expect(capture_count("DMX_EXCHANGE") == 0 && capture_count("DMX_PLAN_CHECK") == 0,
           "text settings are not reported");
    unsetenv("DMX_EXCHANGE");
    unsetenv("DMX_PLAN_CHECK");

    /* the snapshot follows every way of changing the environment */
    const int64_t keep = dmxi_setting_info(DMXI_SET_ONCE_KEEP)->dflt;
    setenv("DMX_ONCE_KEEP", "3", 1);
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == 3, "snapshot after setenv");
    setenv("DMX_ONCE_KEEP", "7", 1);
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == 7, "snapshot after a second setenv");
    unsetenv("DMX_ONCE_KEEP");
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == keep, "snapshot after unsetenv");
    static char var[] = "DMX_ONCE_KEEP=5";
    putenv(var);
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == 5, "snapshot after putenv");
    var[sizeof var - 2] = '6'; /* the string putenv holds, written in place */
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == 6,
           "snapshot after the putenv string changed in place");
    var[sizeof var - 2] = 'x';
    expect(dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP] == keep &&
               capture_count("DMX_ONCE_KEEP=\"x\"") == 1,
           "a malformed value through the snapshot gives the default and is reported");
    unsetenv("DMX_ONCE_KEEP");

    capture_end();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
