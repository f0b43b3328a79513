/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist --sweep and --sequence: one-shot and small calls against ScaLAPACK.
 *
 * bench_sweep.c: square sizes 1 .. 4096, each call a one-shot (dmx_transform_once: plan create +
 * execute + destroy) next to a plan made once (execute only) and ScaLAPACK (pdgemr2d / pdtran).
 * bench_sequence.c: a sequence of calls in the style of ScaLAPACK's REDIST tester (GEMR2D.dat):
 * a new shape, block size and pair of grids on every call, timed as a whole.
 *
 * Both are compiled into the dmx program (public API only) and into bench_sp_gemr2d with
 * BENCH_SWEEP_DROPIN defined, which adds dmx's ScaLAPACK drop-in (its test build, symbols
 * prefixed dmxsp_test_) as one more implementation. Not part of the library. */
#ifndef DMX_BENCH_SWEEP_H
#define DMX_BENCH_SWEEP_H

#include "alltoallv_redist.h"
#include "dmx.h"

#include <stdint.h>

typedef struct sweep_opts {
    int reps;  /* timed rounds (the sweep multiplies them by 5 up to 64 x 64) */
    int align; /* byte alignment of the local arrays (0: malloc) */
    int op_n, op_t;
    int json;                 /* JSON lines instead of the table */
    int64_t max_n;            /* largest sweep size (default 4096) */
    int count;                /* calls in the sequence (default 90, as GEMR2D.dat) */
    int64_t seq_min, seq_max; /* sizes of the sequence's matrices (default 200 .. 1000) */
} sweep_opts;

/* Defaults for the fields above. */
void sweep_opts_default(sweep_opts *so);

/* Collective on MPI_COMM_WORLD (MPI initialized). Return 0, 1 if some result was wrong, 3 if an
 * implementation failed. */
int bench_sweep_run(const sweep_opts *so);
int bench_sequence_run(const sweep_opts *so);

/* ---- shared by the two files ----------------------------------------------------------------- */

/* One matrix on a block-cyclic grid: description, this rank's part and its array. */
typedef struct sw_mat {
    bench_bc bc;
    int pr, pc; /* this rank's grid coordinates, -1 outside */
    int64_t mloc, nloc, ld;
    double *data; /* borrowed (the caller's buffer) */
    int desc[9];  /* ScaLAPACK descriptor (context -1 outside the grid) */
} sw_mat;

/* Describe x on bc for this rank over buffer data, with BLACS context ctxt (of bc's grid). */
void sw_mat_init(sw_mat *x, const bench_bc *bc, int rank, int ctxt, double *data);
/* Elements this rank holds of bc (ld * local columns, at least 1). */
int64_t sw_local_elems(const bench_bc *bc, int rank);
/* Fill with the source formula of B (global bm x bn), or with NaN. */
void sw_fill(const sw_mat *x, int64_t bn);
void sw_fill_nan(const sw_mat *x);
/* Wrong elements of A = op(B) on this rank (B's formula with its column count bn). */
int64_t sw_count_wrong(const sw_mat *a, int trans, int64_t bn);
/* A BLACS grid pr x pc in row-major order (-1 without ScaLAPACK). */
int sw_blacs_grid(int pr, int pc);
void sw_blacs_free(int ctxt);
/* A block-cyclic dmx layout of x on MPI_COMM_WORLD. */
dmx_status sw_layout(const sw_mat *x, dmx_layout **out);

#endif
