/* SPDX-License-Identifier: BSD-3-Clause */
/* The DMX_* environment settings: one table (settings.c), one reader, one document
 * (docs/settings.md, generated from the table by `dmx settings --markdown`). Included by
 * dmxi.h. */
#ifndef DMXI_SETTINGS_H
#define DMXI_SETTINGS_H

#include <stdint.h>

/* One row per setting, in the order of the table in settings.c. */
typedef enum dmxi_setting {
    DMXI_SET_EXCHANGE,          /* string: auto, nbx, pex, pcx, rsx */
    DMXI_SET_SHM,               /* 0: node peers go through MPI messages */
    DMXI_SET_STREAM,            /* -1 (unset): decide by size; 0/1 force */
    DMXI_SET_PROFILE,           /* 1: phase times of every execution to stderr */
    DMXI_SET_MAX_MESSAGE_BYTES, /* test-only: bytes per MPI message */
    DMXI_SET_SHM_CHUNK_BYTES,   /* test-only: bytes per ring chunk */
    DMXI_SET_SCALAPACK_CACHE,   /* plans per context in libdmx_scalapack (read there) */
    DMXI_SET_TIMEOUT,           /* seconds without progress before a wait gives up; 0: never */
    DMXI_SET_RMA,               /* string: auto, shm, vector, blocks, pack */
    DMXI_SET_MODEL,             /* string: collectives' model file */
    DMXI_SET_COLL_SEGMENTS,     /* 0: the model picks the pipeline's segment count */
    DMXI_SET_COLL_CHECK,        /* string: local, agree (1), off (0) */
    DMXI_SET_GEMM,              /* string: auto, summa, hsumma, cannon */
    DMXI_SET_GEMM_MFLOPS,       /* local multiply rate per rank for the model */
    DMXI_SET_GEMM_MODEL,        /* string: file with the local multiply's rate by panel width */
    DMXI_SET_COMM_CACHE,        /* duplicates of a communicator kept for its plans */
    DMXI_SET_SHM_CACHE_BYTES,   /* bytes of shared window a kept duplicate may hold */
    DMXI_SET_SMALL_BYTES,       /* plans exchanging at most this per rank: one reduction */
    DMXI_SET_PLAN_CHECK,        /* string: local, agree (one-shot calls' argument checks) */
    DMXI_SET_RUNS,              /* -1 (unset): runs for small overlay rectangles; 0/1 force */
    DMXI_SET_RMA_PROBE,         /* 1: time the message path at heap creation; 0 off; 2 print */
    DMXI_SET_ONCE_BYTES,        /* one-shot calls planned alone up to this bound (2 x A's bytes) */
    DMXI_SET_RMA_PIECES,        /* test-only: -1 (unset) probe decides; 0 whole, 1 pieces */
    DMXI_SET_COLL_TUNE,         /* AUTO's rounds of measured trials per size class; 0 off */
    DMXI_SET_ONCE_KEEP,         /* one-shot plans kept per communicator for the next calls */
    DMXI_SET_SCALAPACK_DIRECT,  /* 0: no in-place path for tiny drop-in calls (read there) */
    DMXI_SET_SCALAPACK_GEMM,    /* string: auto, dmx, scalapack (the drop-in's p?gemm_) */
    DMXI_SET_SCALAPACK_GEMM_CACHE,   /* multiplies the drop-in keeps planned per grid */
    DMXI_SET_SCALAPACK_GEMM_INPLACE, /* 0: no SUMMA on the caller's arrays in the drop-in */
    DMXI_SET_CACHE_BYTES,            /* bytes of plans kept per communicator (plan_cache.c) */
    DMXI_SET_THREADS,                /* -1 (unset): OMP_NUM_THREADS, capped; n: n threads */
    DMXI_SET_SIM_PANELS,             /* simulation builds: the multiply's first n panels only */
    DMXI_SET_COLL_ALG, /* family DMX_COLL_<NAME>: AUTO's algorithm for one collective */
    DMXI_NSETTINGS
} dmxi_setting;

/* Who a setting is for, and whether ranks may differ in it: the public dmx_setting_tier and
 * dmx_setting_scope (include/dmx/expert.h), whose values these are. */
typedef struct dmxi_setting_row {
    const char *name;    /* the environment variable; a family's is PREFIX<NAME> */
    int64_t dflt;        /* integer settings: value when unset or not a nonnegative integer */
    const char *dflt_s;  /* the default as documented */
    const char *meaning; /* one line (dmx settings) */
    const char *doc;     /* markdown for docs/settings.md; NULL: meaning */
    int tier;            /* dmx_setting_tier: user, tuning or test */
    int scope;           /* dmx_setting_scope: local, must-match or agreed */
    int text;            /* 1: a word or a path (dmxi_setting_str), not an integer */
} dmxi_setting_row;

/* The table (settings_table.c); a family's name ends in <NAME> (DMX_COLL_<NAME>). */
extern const dmxi_setting_row dmxi_setting_rows[DMXI_NSETTINGS];

/* The table's row of setting s. Local. */
const dmxi_setting_row *dmxi_setting_info(dmxi_setting s);

/* Integer setting s: its nonnegative decimal value, else the row's default. Local. */
int64_t dmxi_setting_int(dmxi_setting s);

/* String setting s: the raw value, or NULL when unset or empty. Local. */
const char *dmxi_setting_str(dmxi_setting s);

/* Family setting s (DMX_COLL_<NAME>): the raw value of the variable whose name is the family's
 * prefix followed by suffix (DMX_COLL_ + BCAST), or NULL when unset, empty or s is no family.
 * Local. */
const char *dmxi_setting_family_str(dmxi_setting s, const char *suffix);

/* OpenMP threads dmx's own loops may use: omp_get_max_threads() when the program asked for
 * threads through the environment (OMP_NUM_THREADS set, as hybrid MPI+OpenMP runs do), else 1.
 * An MPI-only program (one rank per core, OMP_NUM_THREADS unset) must not start one thread per
 * core of the node in every rank, which is OpenMP's default count. Capped by dmxi_thread_cap
 * with the CPUs this process may run on (its affinity mask, or with OMP_PROC_BIND the CPUs of
 * its OpenMP places; read once) and the most ranks of one node dmx has seen
 * (dmxi_threads_node_ranks). DMX_THREADS, when set, is the count as given. Local. */
int dmxi_threads(void);
/* The threads to use of want asked for, by a rank that may run on affinity CPUs of a node with
 * online CPUs shared by node_ranks ranks (0 where unknown): at most affinity; and where the
 * ranks' CPU sets must overlap (affinity x node_ranks above online), at most the rank's share,
 * online / node_ranks, at least 1. Oversubscribed threads cost far more than they give: every
 * parallel region ends in a barrier that waits for a thread the system has put aside (2 ranks x
 * 2 threads on 2 cores ran the all-local transpose 70x slower, docs/exec.md). Pure. */
int dmxi_thread_cap(int want, int affinity, int online, int node_ranks);
/* Record that a node of this job has n of its ranks (the node split, core/ranks.c). Local. */
void dmxi_threads_node_ranks(int n);

/* Several settings in one pass over the environment (each getenv scans all of it: a call that
 * reads four settings and takes a microsecond in all notices): raw[k] as dmxi_setting_str of
 * which[k] and, when ints is not NULL, ints[k] as dmxi_setting_int. Local. */
void dmxi_setting_scan(const dmxi_setting *which, int n, const char **raw, int64_t *ints);

/* Every setting at once, for calls whose whole cost is a few hundred nanoseconds (a one-shot
 * call's kept plan, dmx_transform_once_is_local): raw[s] as dmxi_setting_str(s) and v[s] as
 * dmxi_setting_int(s), from a snapshot of the environment that is taken again whenever the
 * environment changed since (settings.c says how that is seen: a compare of the environment's
 * pointer array, ~10 ns for 100 variables, instead of a scan of its strings, ~50 ns). The values
 * are copies: valid until the next call. Local; not thread-safe (as the rest of dmx). */
typedef struct dmxi_setting_values {
    const char *raw[DMXI_NSETTINGS];
    int64_t v[DMXI_NSETTINGS];
} dmxi_setting_values;
const dmxi_setting_values *dmxi_setting_snapshot(void);

#endif
