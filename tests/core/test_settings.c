/* SPDX-License-Identifier: BSD-3-Clause */
/* The DMX_* settings table (src/core/settings.c), one process, no MPI:
 *  - integer settings: unset or empty give the default, a nonnegative decimal its value, anything
 *    else (trailing characters, a sign, a value beyond int64_t) the default and one line on stderr
 *    naming the variable and the value, said once per value (stderr goes to a temporary file);
 *  - text settings (DMX_EXCHANGE, DMX_PLAN_CHECK) are never reported, although the snapshot
 *    parses every row;
 *  - the snapshot (dmxi_setting_snapshot) follows setenv, unsetenv, putenv and a string given to
 *    putenv and then written in place, as settings.c promises;
 *  - the rows: every tier and scope valid, a meaning and a default each, unique names, at most
 *    eight of the user tier; the public reading (dmx/expert.h, used by libdmx_scalapack and
 *    `dmx settings`) gives what the environment holds, family members (DMX_COLL_BCAST) through
 *    their family's row, and nothing for names that are no row.
 * Prints "N passed, N failed"; exit 1 on a failure. */
#define _XOPEN_SOURCE 700 /* setenv, unsetenv, putenv, mkstemp, dup */

#include "dmx/expert.h"
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

static void check_rows(void)
{
    int user = 0, ok = 1, unique = 1;
    expect(dmx_setting_count() == DMXI_NSETTINGS, "dmx_setting_count is the table's size");
    for (int i = 0; i < dmx_setting_count(); i++) {
        dmx_setting_desc d;
        if (dmx_setting_describe(i, &d) != DMX_SUCCESS || !d.name || strncmp(d.name, "DMX_", 4) ||
            (unsigned)d.tier > DMX_SETTING_TEST || (unsigned)d.scope > DMX_SETTING_AGREED ||
            !d.dflt || !*d.dflt || !d.meaning || !*d.meaning || !d.doc || !*d.doc) {
            printf("row %d (%s) is incomplete\n", i, d.name ? d.name : "?");
            ok = 0;
            continue;
        }
        user += d.tier == DMX_SETTING_USER;
        for (int j = 0; j < i; j++)
            unique &= strcmp(dmxi_setting_info((dmxi_setting)j)->name, d.name) != 0;
    }
    expect(ok, "every row has a name, tier, scope, default, meaning and text");
    expect(unique, "no name twice");
    expect(user >= 1 && user <= 8, "one to eight user-tier settings");
    dmx_setting_desc d;
    expect(dmx_setting_describe(-1, &d) == DMX_ERR_ARG &&
               dmx_setting_describe(DMXI_NSETTINGS, &d) == DMX_ERR_ARG &&
               dmx_setting_describe(0, NULL) == DMX_ERR_NULL,
           "describe rejects a row out of range and a NULL output");

    setenv("DMX_TIMEOUT", "17", 1);
    setenv("DMX_SCALAPACK_GEMM", "dmx", 1);
    setenv("DMX_COLL_BCAST", "ring", 1);
    setenv("DMX_NO_SUCH_SETTING", "1", 1);
    expect(dmx_setting_int("DMX_TIMEOUT") == 17 &&
               strcmp(dmx_setting_str("DMX_TIMEOUT"), "17") == 0,
           "public reading of an integer setting");
    expect(dmx_setting_str("DMX_SCALAPACK_GEMM") &&
               !strcmp(dmx_setting_str("DMX_SCALAPACK_GEMM"), "dmx") &&
               dmx_setting_int("DMX_SCALAPACK_GEMM") == -1,
           "public reading of a text setting; no integer value");
    expect(dmx_setting_str("DMX_COLL_BCAST") &&
               !strcmp(dmx_setting_str("DMX_COLL_BCAST"), "ring") &&
               dmxi_setting_family_str(DMXI_SET_COLL_ALG, "BCAST") &&
               !strcmp(dmxi_setting_family_str(DMXI_SET_COLL_ALG, "BCAST"), "ring") &&
               dmxi_setting_family_str(DMXI_SET_COLL_ALG, "GATHER") == NULL &&
               dmxi_setting_family_str(DMXI_SET_TIMEOUT, "X") == NULL,
           "a family member is read through its family's row");
    expect(dmx_setting_str("DMX_NO_SUCH_SETTING") == NULL &&
               dmx_setting_int("DMX_NO_SUCH_SETTING") == -1 && dmx_setting_str(NULL) == NULL &&
               dmx_setting_str("DMX_COLL_") == NULL,
           "a name that is no row reads as nothing");
    unsetenv("DMX_TIMEOUT");
    unsetenv("DMX_SCALAPACK_GEMM");
    unsetenv("DMX_COLL_BCAST");
    unsetenv("DMX_NO_SUCH_SETTING");
    expect(dmx_setting_int("DMX_TIMEOUT") == dmxi_setting_info(DMXI_SET_TIMEOUT)->dflt &&
               dmx_setting_str("DMX_TIMEOUT") == NULL,
           "unset: the default, no string");
}

/* The thread cap: what a rank of a node asks for against the CPUs it and its node peers have. */
static void check_thread_cap(void)
{
    expect(dmxi_thread_cap(2, 2, 2, 1) == 2, "one rank on 2 CPUs keeps 2 threads");
    expect(dmxi_thread_cap(2, 2, 2, 2) == 1, "two unbound ranks on 2 CPUs: 1 thread each");
    expect(dmxi_thread_cap(4, 1, 8, 4) == 1, "a rank bound to one CPU: 1 thread");
    expect(dmxi_thread_cap(4, 4, 16, 4) == 4, "4 ranks on 4 CPUs each of 16 keep 4");
    expect(dmxi_thread_cap(8, 8, 16, 4) == 4, "4 ranks on two 8-CPU sockets: 4 each");
    expect(dmxi_thread_cap(16, 16, 16, 3) == 5, "3 unbound ranks on 16 CPUs: 5 each");
    expect(dmxi_thread_cap(4, 2, 2, 3) == 1, "more ranks than CPUs: 1 thread");
    expect(dmxi_thread_cap(4, 0, 0, 0) == 4, "nothing known: as asked");
    expect(dmxi_thread_cap(0, 4, 4, 1) == 1, "at least 1");
}

int main(void)
{
    check_rows();
    check_thread_cap();
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
