/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist, shared by its three files: bench_redist.c (cases, reports, entry point),
 * bench_redist_options.c (command line) and bench_redist_run.c (layouts, fill and verification,
 * setup and one timed run of each implementation). Not part of the library. */
#ifndef DMX_BENCH_REDIST_H
#define DMX_BENCH_REDIST_H

#include "alltoallv_redist.h"
#include "dmx.h"

#include <stdint.h>
#include <stdio.h>

typedef struct grid {
    int pr, pc; /* 0 = not given */
} grid;

typedef struct options {
    int64_t m, n;
    int64_t from_mb, from_nb, to_mb, to_nb;
    grid from_grid, to_grid;
    int reps, warmup, batch;
    int align; /* byte alignment of every matrix (0: plain malloc; -1: both 0 and 64) */
    int op_n, op_t;
    int case_redist, case_same;
    int use[3];        /* dmx, scalapack, alltoallv */
    int relabel;       /* also time dmx with relabeling (dmx_plan_create_relabeled) */
    double node_ratio; /* its cost: across-node / within-node bytes (DMX_COST_NODE); 0: volume */
    int json;
    int sweep, sequence;      /* the one-shot modes (bench_sweep.h) */
    int64_t max_n;            /* --sweep: largest size */
    int count;                /* --sequence: tests */
    int64_t seq_min, seq_max; /* --sequence: matrix sizes */
} options;

/* Returns 0 to run, 1 for --help (printed if loud), 2 for an error (message on stderr if
 * loud). */
int redist_parse_options(int argc, char **argv, options *o, int loud);

/* One matrix side of a benchmark: layout, this rank's part and its array. */
typedef struct side {
    bench_bc bc;
    int pr, pc;
    int64_t mloc, nloc, ld;
    int64_t *gi, *gj; /* global row / column of each local row / column */
} side;

enum {
    IMPL_DMX,
    IMPL_SCALAPACK,
    IMPL_A2A,
    IMPL_DMX_BATCH,
    IMPL_DMX_RELABEL,    /* dmx_plan_create_relabeled, exact sigma */
    IMPL_DMX_RELABEL_ID, /* the same call with sigma = identity: the path's own cost */
    NIMPL
};

/* One relabeled target: the relabeled communicator, A's layout on it (dmx's memory, this rank's
 * role: side), its plan, and what the relabeling predicted. */
typedef struct relabeled {
    MPI_Comm comm;
    dmx_layout *layout;
    dmx_plan *plan;
    side side;
    double *a;
    dmx_relabel_result res;
    int moved; /* roles whose rank sigma changed */
} relabeled;

typedef struct result {
    int active;      /* still being run */
    int attempted;   /* was set up (printed even if it failed) */
    char status[32]; /* "ok", "skipped", "failed" or a dmx status name */
    char note[200];  /* why skipped / failed */
    double *t;       /* per-repetition times (max over ranks), per matrix */
    double *cpu;     /* per-repetition CPU time summed over ranks, per matrix */
    int nt;
    int64_t wrong; /* largest wrong count of any verified run (summed over ranks) */
    double t_plan; /* dmx: plan creation time, max over ranks; < 0 if none */
    double t_med, t_min, t_max;
    double cpu_med;
} result;

typedef struct bench_case {
    const char *name;
    int64_t from_mb, from_nb, to_mb, to_nb;
    grid from_grid, to_grid;
} bench_case;

typedef struct group {
    const options *o;
    const bench_case *c;
    int trans;
    int rank, np;
    side sb, sa; /* B's and A's layouts */
    double **b;  /* batch source arrays (b[0] is the one every implementation uses) */
    double **a;  /* batch target arrays */
    int nmat;    /* arrays allocated: batch if batched dmx runs, else 1 */
    result r[NIMPL];
    /* dmx, on comm: a duplicate of MPI_COMM_WORLD (SimGrid's SMPI shares one MPI_COMM_WORLD
     * object, and with it dmx's per-communicator state, among all simulated ranks) */
    MPI_Comm comm;
    dmx_layout **lb, **la;
    dmx_plan *plan, *plan_batch;
    /* dmx with relabeling: [0] exact, [1] identity (IMPL_DMX_RELABEL + i) */
    relabeled rl[2];
    /* alltoallv */
    bench_a2a_work work;
#ifdef DMX_HAVE_SCALAPACK
    int ctxt_b, ctxt_a, ctxt_all;
    int desc_b[9], desc_a[9];
#endif
} group;

int redist_side_init(side *s, const bench_bc *bc, int rank);
void redist_side_free(side *s);
/* A local array, aligned to align bytes (0: whatever malloc gives). Every implementation
 * works on the same arrays. */
double *redist_side_alloc(const side *s, int align);
/* B_k's elements by the closed formula of the global indices. */
void redist_fill_source(const side *s, double *b, int64_t k);
void redist_fill_nan(const side *s, double *a);

/* 1 if ok is nonzero on every rank of MPI_COMM_WORLD. Collective. */
int redist_all_ranks(int ok);

/* Set up or tear down each implementation for a group (collective; failures are recorded in
 * g->r[impl] on every rank alike). */
void redist_setup_dmx(group *g);
void redist_teardown_dmx(group *g);
/* dmx_plan_create_relabeled for B -> A's layout (after redist_setup_dmx), for impl
 * IMPL_DMX_RELABEL or IMPL_DMX_RELABEL_ID. */
void redist_setup_relabel(group *g, int impl);
void redist_setup_a2a(group *g);
void redist_setup_scalapack(group *g);
void redist_teardown_scalapack(group *g);
/* Leave the BLACS at the end of the program (nothing without ScaLAPACK). */
void redist_blacs_exit(void);

/* Run implementation impl once on every rank; returns the time (max over ranks, per matrix) or
 * a negative value if it failed, and in *cpu the CPU time of all ranks (per matrix); adds wrong
 * elements to r->wrong. */
double redist_run_once(group *g, int impl, double *cpu);

#endif /* DMX_BENCH_REDIST_H */
