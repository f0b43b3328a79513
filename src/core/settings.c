/* SPDX-License-Identifier: BSD-3-Clause */
/* The reader of the DMX_* settings table (its rows: settings_table.c). Every DMX_* variable the
 * library, libdmx_scalapack included, reads is read here and only here (dmxi_setting_int,
 * dmxi_setting_str, dmxi_setting_family_str, and the public dmx_setting_int and
 * dmx_setting_str of dmx/expert.h); docs/settings.md is generated from the table.
 *
 * Values are read at each use (a plan's creation, an exchange's begin), not cached at the first
 * one: the tests change DMX_EXCHANGE, DMX_SHM and DMX_MAX_MESSAGE_BYTES between calls in one
 * process, and a getenv per plan or exchange costs nothing next to either. Reading once would
 * take a reset call for those tests. Calls of a few hundred nanoseconds (a one-shot call that
 * takes its kept plan back) read dmxi_setting_snapshot instead: the same values, re-read when the
 * environment changed, which is told from the environment's array of pointers without reading
 * its strings (below).
 *
 * New modules add their rows to settings_table.c and a name to dmxi_setting in settings.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "dmxi.h"

#include <errno.h>
#include <sched.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

extern char **environ; /* POSIX */

const char *dmxi_setting_str(dmxi_setting s)
{
    const char *v = getenv(dmxi_setting_rows[s].name);
    return v && *v ? v : NULL;
}

/* Length of family row s's name before "<NAME>" (DMX_COLL_), 0 when s is no family. */
static size_t family_prefix(dmxi_setting s)
{
    const char *at = strstr(dmxi_setting_rows[s].name, "<NAME>");
    return at ? (size_t)(at - dmxi_setting_rows[s].name) : 0;
}

const char *dmxi_setting_family_str(dmxi_setting s, const char *suffix)
{
    const size_t pre = family_prefix(s);
    char name[64];
    if (pre == 0 || !suffix ||
        snprintf(name, sizeof name, "%.*s%s", (int)pre, dmxi_setting_rows[s].name, suffix) >=
            (int)sizeof name)
        return NULL;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The value last reported as malformed, per setting (a hash of it; 0: none yet). */
static _Thread_local uint64_t reported[DMXI_NSETTINGS];

/* The integer value of setting s whose raw value is v (NULL: unset). */
static int64_t parse_int(dmxi_setting s, const char *v)
{
    if (!v)
        return dmxi_setting_rows[s].dflt;
    errno = 0;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || x < 0) {
        /* Said once per value, so that a typo (DMX_TIMEOUT=10s) does not pass unnoticed; text
         * settings are parsed here too (the snapshot reads every row) and never reported. */
        const uint64_t h = dmxi_hash(DMXI_HASH_INIT, v, strlen(v)) | 1;
        if (!dmxi_setting_rows[s].text && reported[s] != h) {
            reported[s] = h;
            fprintf(stderr, "dmx: %s=\"%s\" is not a nonnegative integer: using the default, %s\n",
                    dmxi_setting_rows[s].name, v, dmxi_setting_rows[s].dflt_s);
        }
        return dmxi_setting_rows[s].dflt;
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
            const char *name = dmxi_setting_rows[which[k]].name;
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
            const size_t len = strlen(dmxi_setting_rows[s].name);
            if (raw[s] || strncmp(v, dmxi_setting_rows[s].name, len) != 0 || v[len] != '=')
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

/* ---- the public reading of the table (dmx/expert.h) ------------------------------------------
 * For the dmx program and libdmx_scalapack, which see the public headers only. */
int dmx_setting_count(void)
{
    return DMXI_NSETTINGS;
}

dmx_status dmx_setting_describe(int i, dmx_setting_desc *out)
{
    if (!out)
        return DMX_ERR_NULL;
    if (i < 0 || i >= DMXI_NSETTINGS)
        return DMX_ERR_ARG;
    const dmxi_setting_row *r = &dmxi_setting_rows[i];
    out->name = r->name;
    out->tier = (dmx_setting_tier)r->tier;
    out->scope = (dmx_setting_scope)r->scope;
    out->dflt = r->dflt_s;
    out->meaning = r->meaning;
    out->doc = r->doc ? r->doc : r->meaning;
    out->text = r->text;
    return DMX_SUCCESS;
}

/* The row named name: exactly, else the family whose prefix it extends; -1: none. */
static int find_row(const char *name)
{
    if (!name)
        return -1;
    for (int s = 0; s < DMXI_NSETTINGS; s++)
        if (strcmp(dmxi_setting_rows[s].name, name) == 0)
            return s;
    for (int s = 0; s < DMXI_NSETTINGS; s++) {
        const size_t pre = family_prefix((dmxi_setting)s);
        if (pre > 0 && strncmp(dmxi_setting_rows[s].name, name, pre) == 0 && name[pre] != '\0')
            return s;
    }
    return -1;
}

const char *dmx_setting_str(const char *name)
{
    const int s = find_row(name);
    if (s < 0)
        return NULL;
    if (family_prefix((dmxi_setting)s) > 0)
        return dmxi_setting_family_str((dmxi_setting)s, name + family_prefix((dmxi_setting)s));
    return dmxi_setting_str((dmxi_setting)s);
}

int64_t dmx_setting_int(const char *name)
{
    const int s = find_row(name);
    if (s < 0 || dmxi_setting_rows[s].text)
        return -1;
    return dmxi_setting_int((dmxi_setting)s);
}

int dmxi_thread_cap(int want, int affinity, int online, int node_ranks)
{
    if (affinity > 0 && want > affinity)
        want = affinity;
    if (node_ranks > 1 && affinity > 0 && online > 0 &&
        (int64_t)affinity * node_ranks > (int64_t)online) {
        const int share = online / node_ranks > 0 ? online / node_ranks : 1;
        want = want > share ? share : want;
    }
    return want > 0 ? want : 1;
}

static atomic_int node_ranks_seen = 0;

void dmxi_threads_node_ranks(int n)
{
    int cur = node_ranks_seen;
    while (n > cur && !atomic_compare_exchange_weak(&node_ranks_seen, &cur, n)) {
    }
}

#ifdef _OPENMP /* only dmxi_threads' OpenMP path asks */
/* CPUs this process may run on (its affinity mask), and online on the node; 0 where unknown. */
static void cpu_counts(int *affinity, int *online)
{
    *affinity = *online = 0;
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        *affinity = CPU_COUNT(&set);
#endif
    /* OMP_PROC_BIND set: the runtime has pinned this thread to its first place already, so the
     * process's CPUs are those of all its places */
    if (omp_get_proc_bind() != omp_proc_bind_false) {
        int n = 0;
        for (int p = 0; p < omp_get_num_places(); p++)
            n += omp_get_place_num_procs(p);
        if (n > 0)
            *affinity = n;
    }
#ifdef _SC_NPROCESSORS_ONLN
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    *online = n > 0 && n < INT32_MAX ? (int)n : 0;
#endif
}
#endif

int dmxi_threads(void)
{
#ifdef _OPENMP
    static atomic_int asked = -1; /* OMP_NUM_THREADS set: 1, unset: 0 */
    static atomic_int aff = -1, onl = -1, given = 0;
    int a = asked;
    if (a < 0) {
        const int64_t g = dmxi_setting_int(DMXI_SET_THREADS);
        given = g >= 1 && g <= 4096 ? (int)g : 0;
        const char *v = getenv("OMP_NUM_THREADS");
        a = v && *v;
        int c1, c2;
        cpu_counts(&c1, &c2);
        aff = c1;
        onl = c2;
        asked = a;
    }
    if (omp_in_parallel())
        return 1;
    if (given > 0)
        return given;
    if (!a)
        return 1;
    return dmxi_thread_cap(omp_get_max_threads(), aff, onl, node_ranks_seen);
#else
    return 1;
#endif
}
