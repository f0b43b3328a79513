/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of DMX_* environment settings: name, default, meaning, and whether it is test-only.
 * Every DMX_* variable the library reads is read here and only here (dmxi_setting_int,
 * dmxi_setting_str); docs/settings.md documents the same table, by hand.
 *
 * Values are read at each use (a plan's creation, an exchange's begin), not cached at the first
 * one: the tests change DMX_EXCHANGE, DMX_SHM and DMX_MAX_MESSAGE_BYTES between calls in one
 * process, and a getenv per plan or exchange costs nothing next to either. Reading once would
 * take a reset call for those tests. Calls of a few hundred nanoseconds (a one-shot call that
 * takes its kept plan back) read dmxi_setting_snapshot instead: the same values, re-read when the
 * environment changed, which is told from the environment's array of pointers without reading
 * its strings (below).
 *
 * New modules add their rows here (and to dmxi_setting in settings.h and docs/settings.md). */
#include "dmxi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

extern char **environ; /* POSIX */

static const dmxi_setting_row table[DMXI_NSETTINGS] = {
    [DMXI_SET_EXCHANGE] = {"DMX_EXCHANGE", 0, "auto",
                           "sparse-exchange protocol: auto, nbx, pex, pcx or rsx; the same on "
                           "every rank",
                           0, 1},
    [DMXI_SET_SHM] = {"DMX_SHM", 1, "1",
                      "0: packages to ranks of the same node go through MPI messages instead of "
                      "rings in a shared window",
                      0},
    [DMXI_SET_STREAM] = {"DMX_STREAM", -1, "unset",
                         "0/1 force A's writes through the caches / past them with non-temporal "
                         "stores; unset: past them when a rank writes 8 MiB or more of A (and "
                         "direct one-sided puts from 1 MiB in blocks of 64 bytes or more)",
                         0},
    [DMXI_SET_PROFILE] = {"DMX_PROFILE", 0, "0",
                          "1: print the phase times of every plan execution to stderr", 0},
    [DMXI_SET_MAX_MESSAGE_BYTES] = {"DMX_MAX_MESSAGE_BYTES", (int64_t)1 << 30, "1073741824",
                                    "largest MPI message in bytes (1..INT_MAX; smallest over "
                                    "ranks); lower it to exercise messages split into chunks",
                                    1},
    [DMXI_SET_SHM_CHUNK_BYTES] = {"DMX_SHM_CHUNK_BYTES", (int64_t)128 * 1024, "131072",
                                  "bytes per shared-window ring chunk (64..2^30; smallest over "
                                  "ranks); lower it to exercise cut pieces and wrapping rings",
                                  1},
    [DMXI_SET_SCALAPACK_CACHE] = {"DMX_SCALAPACK_CACHE", 16, "16",
                                  "plans libdmx_scalapack keeps per process group (0: none); "
                                  "read by libdmx_scalapack itself, which uses public headers "
                                  "only",
                                  0},
    [DMXI_SET_TIMEOUT] = {"DMX_TIMEOUT", 600, "600",
                          "seconds without progress after which a waiting dmx call gives up (0: "
                          "wait forever)",
                          0},
    [DMXI_SET_RMA] = {"DMX_RMA", 0, "auto",
                      "one-sided transfer path: auto, shm, vector, blocks, pack or span (forcing "
                      "one is for tests and measurements)",
                      1, 1},
    [DMXI_SET_MODEL] = {"DMX_MODEL", 0, "unset",
                        "file of cost model parameters written by `dmx calibrate` (read at the "
                        "first collective); unset: built-in defaults",
                        0, 1},
    [DMXI_SET_COLL_SEGMENTS] = {"DMX_COLL_SEGMENTS", 0, "0",
                                "segments of the pipelined ring broadcast (0: the model's "
                                "choice)",
                                1},
    [DMXI_SET_COLL_CHECK] = {"DMX_COLL_CHECK", 0, "local",
                             "collectives' argument checks: local (a rank whose check fails "
                             "calls the error handler, which by default ends the job), agree "
                             "(or 1: one small allreduce per call, every rank returns the same "
                             "status) or off (or 0: the status returned on that rank only)",
                             0, 1},
    [DMXI_SET_GEMM] = {"DMX_GEMM", 0, "auto",
                       "multiply algorithm for DMX_GEMM_AUTO plans: auto, summa, hsumma or "
                       "cannon",
                       0, 1},
    [DMXI_SET_GEMM_MFLOPS] = {"DMX_GEMM_MFLOPS", 50000, "50000",
                              "one rank's wide-panel local multiply rate in MFLOP/s for the "
                              "multiply's model (the built-in curve falls below it for panels "
                              "under 256; ignored when DMX_GEMM_MODEL is loaded)",
                              0},
    [DMXI_SET_GEMM_MODEL] = {"DMX_GEMM_MODEL", 0, "unset",
                             "file of \"rate = width MFLOPS\" lines: the local multiply's rate "
                             "by panel width for the multiply's model (dmx calibrate gemm -o "
                             "writes it)",
                             0, 1},
    [DMXI_SET_COMM_CACHE] = {"DMX_COMM_CACHE", 4, "4",
                             "private duplicates of a communicator kept for the plans made on "
                             "it, with their node communicator and shared window (0: every plan "
                             "duplicates and frees its own)",
                             0},
    [DMXI_SET_SHM_CACHE_BYTES] = {"DMX_SHM_CACHE_BYTES", (int64_t)16 << 20, "16777216",
                                  "largest shared window (bytes per rank) a kept duplicate "
                                  "holds for the next plan; a plan whose rings need more gets "
                                  "its own window, freed with the plan",
                                  0},
    [DMXI_SET_SMALL_BYTES] = {"DMX_SMALL_BYTES", 262144, "262144",
                              "plans in which every rank exchanges at most this many bytes with "
                              "other ranks are made with one agreement and run by plain messages, "
                              "without a shared window; 0: never (the same on every rank)",
                              0},
    [DMXI_SET_PLAN_CHECK] =
        {"DMX_PLAN_CHECK", 0, "local",
         "one-shot calls' (dmx_transform_once) and block-cyclic layouts' "
         "argument checks: local (with the default error handler a one-shot "
         "between layouts known globally runs with no agreement, a "
         "block-cyclic layout takes a reserved id; a rank whose check fails "
         "calls the handler, which ends the job) or agree (one reduction, every "
         "rank returns the same status); the same on every rank",
         0, 1},
    [DMXI_SET_RUNS] = {"DMX_RUNS", -1, "unset",
                       "0/1: plan transforms between block-cyclic layouts as rectangles / as runs "
                       "whenever they can be; unset: as runs when the overlay rectangles average "
                       "under 1024 elements (the same on every rank)",
                       0},
    [DMXI_SET_RMA_PROBE] = {"DMX_RMA_PROBE", 1, "1",
                            "1: time the one-sided message-path methods when a heap or patch "
                            "window is made (under 1 ms) and pick by the result; 0: built-in "
                            "rules; 2: as 1 and print the times from rank 0",
                            0},
    [DMXI_SET_ONCE_BYTES] = {"DMX_ONCE_BYTES", (int64_t)16 << 20, "16777216",
                             "one-shot calls (DMX_PLAN_CHECK=local, default error handler) with "
                             "2 x A's bytes at most this many (and at least DMX_SMALL_BYTES) are "
                             "planned on each rank alone and run by plain messages, no "
                             "agreement and no shared window; the same on every rank",
                             0},
    [DMXI_SET_RMA_PIECES] = {"DMX_RMA_PIECES", -1, "unset",
                             "one-sided vector and pack operations: 0 one MPI call per transfer, "
                             "1 pieces of 32768 blocks; unset: as the heap's probe found faster",
                             1},
    [DMXI_SET_COLL_TUNE] = {"DMX_COLL_TUNE", 2, "2",
                            "rounds (0..5) in which the first AUTO collectives of each size "
                            "class on a communicator try the MPI library's call and the "
                            "algorithms the model predicts within 4x of its best (each twice "
                            "in a row, the second timed), then keep the fastest measured (one "
                            "small allreduce); cells predicted under 20 us are not tried; 0: "
                            "the model's choice only; the same on every rank",
                            0},
    [DMXI_SET_ONCE_KEEP] = {"DMX_ONCE_KEEP", 4, "4",
                            "one-shot plans (0..16) a communicator keeps for later calls with "
                            "the same key, most recently used first; all but the most recent "
                            "only while together they hold at most DMX_ONCE_BYTES; 0: none",
                            0},
    /* Not a row: DMX_COLL_<NAME>=<alg> (DMX_COLL_BCAST=ring, ...) forces AUTO's algorithm for
     * one collective; src/coll/coll_select.c reads that family by name. */
};

const dmxi_setting_row *dmxi_setting_info(dmxi_setting s)
{
    return &table[s];
}

const char *dmxi_setting_str(dmxi_setting s)
{
    const char *v = getenv(table[s].name);
    return v && *v ? v : NULL;
}

/* The value last reported as malformed, per setting (a hash of it; 0: none yet). */
static _Thread_local uint64_t reported[DMXI_NSETTINGS];

/* The integer value of setting s whose raw value is v (NULL: unset). */
static int64_t parse_int(dmxi_setting s, const char *v)
{
    if (!v)
        return table[s].dflt;
    errno = 0;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || x < 0) {
        /* Said once per value, so that a typo (DMX_TIMEOUT=10s) does not pass unnoticed; text
         * settings are parsed here too (the snapshot reads every row) and never reported. */
        const uint64_t h = dmxi_hash(DMXI_HASH_INIT, v, strlen(v)) | 1;
        if (!table[s].text && reported[s] != h) {
            reported[s] = h;
            fprintf(stderr, "dmx: %s=\"%s\" is not a nonnegative integer: using the default, %s\n",
                    table[s].name, v, table[s].dflt_s);
        }
        return table[s].dflt;
    }
    return (int64_t)x;
}

int64_t dmxi_setting_int(dmxi_setting s)
{
    return parse_int(s, dmxi_setting_str(s));
}

void dmxi_setting_scan(const dmxi_setting *which, int n, const char **raw, int64_t *ints)
{
    for (int k = 0; k < n; k++)
        raw[k] = NULL;
    int left = n;
    for (char **e = environ; e && *e && left > 0; e++) {
        const char *v = *e;
        if (v[0] != 'D' || v[1] != 'M' || v[2] != 'X' || v[3] != '_')
            continue;
        for (int k = 0; k < n; k++) {
            const char *name = table[which[k]].name;
            const size_t len = strlen(name);
            if (!raw[k] && strncmp(v, name, len) == 0 && v[len] == '=') {
                raw[k] = v + len + 1; /* the first match, as getenv */
                left--;
                break;
            }
        }
    }
    for (int k = 0; k < n; k++) {
        if (raw[k] && !*raw[k])
            raw[k] = NULL; /* empty: unset, as dmxi_setting_str */
        if (ints)
            ints[k] = parse_int(which[k], raw[k]);
    }
}

/* ---- the snapshot (dmxi_setting_snapshot) ------------------------------------------------------
 * What changes the environment: setenv, unsetenv and putenv (each puts a new pointer into the
 * array, moves the entries after a removed one, or appends one: the array's contents or its end
 * change), clearenv and a new array assigned to environ (its address changes), and a string
 * given to putenv and then written in place (no pointer changes). So the snapshot keeps the
 * array's address, a copy of its n pointers and of the DMX_ strings it took: it is current when
 * environ is the same address, its first n pointers are the same, the (n + 1)th is the end, and
 * each DMX_ string taken reads the same. Not seen: a string given to putenv as another variable
 * and rewritten in place into a DMX_ setting (docs/settings.md), and an entry freed and a new one
 * made at the same address in the same place, which glibc's setenv never does (it keeps every
 * string it made). One snapshot per thread (dmx calls on different objects may run in different
 * threads). Memory: one pointer per variable and the DMX_ strings per thread that reads it, kept
 * until exit. */
static _Thread_local struct {
    int taken;                  /* the fields below describe environ as of the last take */
    char **env;                 /* environ then */
    char **ptrs;                /* env[0 .. n) then */
    size_t n, cap;              /* variables then, capacity of ptrs */
    int nfound;                 /* DMX_ strings taken */
    size_t at[DMXI_NSETTINGS];  /* their places in env */
    char *copy[DMXI_NSETTINGS]; /* their "NAME=value" strings, copied */
    dmxi_setting_values values; /* what the snapshot says */
} snap;

static int snap_current(void)
{
    char **e = environ;
    if (!snap.taken || e != snap.env)
        return 0;
    if (e == NULL)
        return 1;
    if (snap.n > 0 && memcmp(e, snap.ptrs, snap.n * sizeof *e) != 0)
        return 0;
    if (e[snap.n] != NULL)
        return 0;
    for (int k = 0; k < snap.nfound; k++)
        if (strcmp(e[snap.at[k]], snap.copy[k]) != 0)
            return 0;
    return 1;
}

/* Read the environment again. On an allocation failure the values still hold (raw pointing into
 * the environment itself) and the next call reads it again. */
static void snap_take(void)
{
    char **e = environ;
    size_t n = 0;
    while (e && e[n])
        n++;
    for (int k = 0; k < snap.nfound; k++)
        free(snap.copy[k]);
    snap.nfound = 0;
    snap.taken = 0;
    int ok = 1;
    if (n > snap.cap) {
        char **p = realloc(snap.ptrs, n * sizeof *p);
        if (p) {
            snap.ptrs = p;
            snap.cap = n;
        } else {
            ok = 0;
        }
    }
    const char *raw[DMXI_NSETTINGS] = {0};
    for (size_t i = 0; i < n; i++) {
        const char *v = e[i];
        if (v[0] != 'D' || v[1] != 'M' || v[2] != 'X' || v[3] != '_')
            continue;
        for (int s = 0; s < DMXI_NSETTINGS; s++) {
            const size_t len = strlen(table[s].name);
            if (raw[s] || strncmp(v, table[s].name, len) != 0 || v[len] != '=')
                continue;
            raw[s] = v + len + 1; /* the first match, as getenv */
            const size_t vlen = strlen(v) + 1;
            char *c = ok ? malloc(vlen) : NULL;
            if (c)
                memcpy(c, v, vlen);
            if (c) {
                snap.at[snap.nfound] = i;
                snap.copy[snap.nfound++] = c;
                raw[s] = c + len + 1;
            } else {
                ok = 0;
            }
            break;
        }
    }
    for (int s = 0; s < DMXI_NSETTINGS; s++) {
        snap.values.raw[s] = raw[s] && *raw[s] ? raw[s] : NULL;
        snap.values.v[s] = parse_int((dmxi_setting)s, snap.values.raw[s]);
    }
    if (ok) {
        if (n > 0)
            memcpy(snap.ptrs, e, n * sizeof *e);
        snap.env = e;
        snap.n = n;
        snap.taken = 1;
    }
}

const dmxi_setting_values *dmxi_setting_snapshot(void)
{
    if (!snap_current())
        snap_take();
    return &snap.values;
}
