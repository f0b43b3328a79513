/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared helpers for dmx tests that check themselves (the README's "Source tree and tests"):
 *  - everything in dmxt_util.h (the RNG, ScaLAPACK index arithmetic, the pass/fail counter),
 *    with the seed from DMX_TEST_SEED or a fixed default, identical on every rank;
 *  - a closed formula for global element (i, j) of matrix id k that every rank can evaluate;
 *  - test matrices: a test-side description of a block-cyclic, mapped or custom layout, the
 *    memory this rank owns (with padding filled with a sentinel), and the dmx layout over it;
 *  - a serial reference for A = alpha*op(B) + beta*A and checkers for a rank's own blocks;
 *  - result reduction: failures are summed over ranks so every rank exits alike, and rank 0
 *    prints the closing line "N passed, N failed".
 * Everything here uses only the public API, so any test program may reuse it.
 */
#ifndef DMXTEST_H
#define DMXTEST_H

#include "dmx.h"
#include "dmxt_util.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------- */
/* The formula.                                                                             */
/* ---------------------------------------------------------------------------------------- */

/* Matrix ids are 0..DMXT_MAX_ID; DMXT_NAN instead of an id means "every element is NaN". */
#define DMXT_MAX_ID 15
#define DMXT_NAN (-1)
/* Indices must stay below this for the formula to be distinct at every position. */
#define DMXT_MAX_INDEX 512

/* Value of global element (i, j) of matrix k: re = k*2^18 + i*512 + j + 1,
 * im = -(k*2^18 + j*512 + i + 0.5). Both are exact in float, distinct at every position and for
 * every k, and re and im never coincide in magnitude, so a transposition, a missed or doubled
 * conjugation, a swap of real and imaginary parts or a wrong matrix all show. Real dtypes use re
 * only. k == DMXT_NAN gives NaN in both parts. */
void dmxt_formula(int k, int64_t i, int64_t j, double *re, double *im);

/* Element access in a block of @p dtype: read/write (re, im) of element at data[pos]. */
void dmxt_get(dmx_dtype dtype, const void *data, int64_t pos, double *re, double *im);
void dmxt_set(dmx_dtype dtype, void *data, int64_t pos, double re, double im);

const char *dmxt_dtype_name(dmx_dtype t);
const char *dmxt_op_name(dmx_op op);

/* ---------------------------------------------------------------------------------------- */
/* Test matrices.                                                                           */
/* ---------------------------------------------------------------------------------------- */

/* BC: dmx_layout_create_block_cyclic; MAPPED: ..._block_cyclic_mapped; CUSTOM:
 * dmx_layout_create_custom (grid of irregular splits); LOCAL: dmx_layout_create_local (a random
 * guillotine tiling, no grid, each rank knows only its own rectangles). */
enum { DMXT_BC = 0, DMXT_MAPPED = 1, DMXT_CUSTOM = 2, DMXT_LOCAL = 3, DMXT_NKINDS = 4 };

/* One block of this rank's memory, in the matrix's global coordinates. */
typedef struct dmxt_block {
    int64_t row0, col0, rows, cols;
    void *data;
    int64_t ld;
    dmx_order order;
    int alloc; /* index into dmxt_matrix.allocs */
} dmxt_block;

typedef struct dmxt_matrix {
    int kind;
    dmx_dtype dtype;
    MPI_Comm comm;
    int rank, size;
    int64_t m, n;
    /* block-cyclic and mapped */
    int64_t mb, nb;
    int prow, pcol, rsrc, csrc;
    char grid_order;  /* 'R'/'C' (any case) for DMXT_BC */
    int *grid_ranks;  /* prow*pcol entries: rank of grid position (pr, pc) at pr*pcol + pc */
    int myrow, mycol; /* -1 if this rank is not in the grid */
    int64_t lrows, lcols, lld, lld_pad;
    /* custom */
    int64_t nrb, ncb;
    int64_t *rsplits, *csplits;
    int *owners;       /* nrb*ncb */
    dmx_order *orders; /* nrb*ncb, storage order of each block */
    int64_t *ld_pads;  /* nrb*ncb */
    int shuffle;       /* pass blocks to dmx in a shuffled order */
    /* local (DMXT_LOCAL): nrect rectangles row0, col0, rows, cols (4 per rectangle); owners,
     * orders and ld_pads then have one entry per rectangle */
    int64_t nrect;
    int64_t *rects;
    /* this rank's memory (owned by the matrix) */
    int nalloc;
    void **allocs;
    int64_t *alloc_elems;
    int64_t nblk;
    dmxt_block *blk;
    /* the layout (NULL until created) */
    dmx_layout *layout;
    char desc[512];
} dmxt_matrix;

/* Describe a block-cyclic matrix (grid_ranks NULL: plain, rank from grid_order; otherwise
 * mapped, grid_ranks copied). Nothing is allocated in dmx yet. */
void dmxt_matrix_bc(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                    int64_t mb, int64_t nb, int prow, int pcol, char grid_order,
                    const int *grid_ranks, int rsrc, int csrc, int64_t lld_pad);
/* Describe a custom matrix; orders and ld_pads may be NULL (col-major, no padding). */
void dmxt_matrix_custom(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                        int64_t nrb, const int64_t *rsplits, int64_t ncb, const int64_t *csplits,
                        const int *owners, const dmx_order *orders, const int64_t *ld_pads);
/* Describe a layout known only locally: nrect rectangles (4 numbers each) tiling m x n, their
 * owners, orders and ld paddings (orders and ld_pads may be NULL). */
void dmxt_matrix_local_tiles(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                             int64_t nrect, const int64_t *rects, const int *owners,
                             const dmx_order *orders, const int64_t *ld_pads);
/* Describe a random matrix of kind (or a random block-cyclic, mapped or custom kind if kind < 0;
 * DMXT_LOCAL only on request); every rank must pass an RNG in the same state. */
void dmxt_matrix_random(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                        int kind, dmxt_rng *rng);
/* The same with block-cyclic block sizes of at least min_block (for large matrices). */
void dmxt_matrix_random_ex(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                           int kind, int64_t min_block, dmxt_rng *rng);
/* Allocate this rank's memory (sentinel everywhere) without creating a layout. */
void dmxt_matrix_alloc(dmxt_matrix *M);
/* The dmx_block array describing this rank's blocks of a custom matrix (malloc'ed; the caller
 * frees it); returns the count. */
int64_t dmxt_matrix_user_blocks(const dmxt_matrix *M, dmx_block **out);
/* The same for a layout known only locally. */
int64_t dmxt_matrix_local_blocks(const dmxt_matrix *M, dmx_local_block **out);
/* Allocate this rank's memory (if not yet done) and create the dmx layout. */
dmx_status dmxt_matrix_create(dmxt_matrix *M);
/* Destroy the layout (if any) and free everything. */
void dmxt_matrix_free(dmxt_matrix *M);

/* Local address of global element (i, j), or NULL if this rank does not own it. */
void *dmxt_matrix_addr(const dmxt_matrix *M, int64_t i, int64_t j);
/* Owner rank of global element (i, j) from the test-side description, -1 if out of range. */
int dmxt_matrix_owner(const dmxt_matrix *M, int64_t i, int64_t j);

/* For block-cyclic and mapped matrices: a fresh local array of the same shape and lld (filled
 * with the sentinel), and swapping the matrix's memory to another array; returns the old one.
 * The caller frees arrays it got back with free(). */
void *dmxt_matrix_new_local(const dmxt_matrix *M);
void *dmxt_matrix_swap_local(dmxt_matrix *M, void *local);
void *dmxt_matrix_local(const dmxt_matrix *M);

/* Fill every element this rank owns with matrix id k (or NaN) and every padding element with the
 * sentinel. */
void dmxt_fill(const dmxt_matrix *M, int k);

/* ---------------------------------------------------------------------------------------- */
/* Serial reference and checks.                                                             */
/* ---------------------------------------------------------------------------------------- */

/* What one transform should have done to the parent matrix of A. */
typedef struct dmxt_expect {
    dmx_dtype dtype;
    dmx_op op;
    dmx_scalar alpha, beta;
    char uplo, diag;
    int ka, kb;               /* ids of A0 and B (or DMXT_NAN) */
    int64_t ai0, aj0, am, an; /* the window of A's parent that the transform targets */
    int64_t bi0, bj0;         /* origin of B's window in B's parent */
} dmxt_expect;

/* Is element (i, j) of the A window inside the uplo/diag trapezoid? */
int dmxt_in_trapezoid(char uplo, char diag, int64_t i, int64_t j);

/* Expected value of element (i, j) (A-window coordinates, inside the trapezoid) in double
 * precision; *exact says whether the result must match bit for bit (alpha = 1, beta = 0 or
 * alpha = 0, beta = 1) and *scale is the magnitude the tolerance is relative to. */
void dmxt_reference(const dmxt_expect *e, int64_t i, int64_t j, double *re, double *im, int *exact,
                    double *scale);

/* Relative tolerance for a dtype: 1e-5 for float types, 1e-12 for double types. */
double dmxt_tolerance(dmx_dtype t);

/* Check every element and padding of this rank's memory of A (the parent) after the transform.
 * Returns the number of wrong elements on this rank; the first is described in msg. */
int64_t dmxt_check_result(const dmxt_matrix *A, const dmxt_expect *e, char *msg, size_t len);
/* Check this rank's memory still holds matrix id k (or NaN) and untouched padding. */
int64_t dmxt_check_fill(const dmxt_matrix *M, int k, char *msg, size_t len);

/* ---------------------------------------------------------------------------------------- */
/* Test driver: seed, watchdog, result reduction.                                           */
/* ---------------------------------------------------------------------------------------- */

typedef struct dmxt_ctx {
    MPI_Comm comm; /* MPI_COMM_WORLD */
    int rank, size;
    uint64_t seed;
    dmxt_count count; /* cases, summed over ranks (each case counts once) */
    const char *name;
} dmxt_ctx;

/* MPI_Init, seed (DMX_TEST_SEED, default fixed, same on every rank), watchdog (DMX_TEST_TIMEOUT
 * seconds, default 300: a hang prints the current case and aborts). Prints the seed on rank 0. */
void dmxt_init(dmxt_ctx *ctx, int *argc, char ***argv, const char *name);
/* The same with MPI_Init_thread asking for @p required; returns the thread level provided. */
int dmxt_init_thread(dmxt_ctx *ctx, int *argc, char ***argv, const char *name, int required);
/* Read an integer setting from the environment (all ranks must see the same value). */
int64_t dmxt_env_int(const char *name, int64_t dflt);
/* Number of random cases for a test: the setting `name` if set, else dflt, times the harness's
 * DMX_TEST_SCALE (a fraction, default 1; test.sh's MPICH and sanitizer passes run a quarter of
 * the random cases, since each case costs several times more there), rounded, at least 1. */
int64_t dmxt_cases(const char *name, int64_t dflt);
/* Record the description of the case being run (printed by the watchdog). */
void dmxt_set_current(const char *desc);
/* End one case: sums local_bad over ranks; on failure rank 0 prints "FAIL <desc>" and the first
 * problem of every rank that found one. Returns 1 if the case passed. Collective. */
int dmxt_case_end(dmxt_ctx *ctx, int64_t local_bad, const char *local_msg, const char *desc);
/* Compare a status with the expected one; also requires the same status on every rank.
 * Collective. Returns the local number of problems (0 or 1) and describes it in msg. */
int64_t dmxt_expect_status(dmxt_ctx *ctx, dmx_status got, dmx_status want, const char *what,
                           char *msg, size_t len);
/* 1 if this MPI opens windows over memory it did not allocate (MPI_Win_create over malloc'ed
 * bytes and MPI_Win_create_dynamic both succeed on every rank of comm), else 0: Open MPI 4.1 with
 * only the tcp btl has no one-sided component for them. Independent of dmx, so a test may skip
 * dmx's DMX_ERR_UNSUPPORTED for such windows only where MPI itself cannot. Collective. */
int dmxt_mpi_user_windows(MPI_Comm comm);
/* Print "N passed, N failed" on rank 0, finalize MPI, return the exit code (0 iff no failures). */
int dmxt_finish(dmxt_ctx *ctx);

/* A case's problems on this rank: how many, and the first one's description. */
typedef struct dmxt_checker {
    dmxt_ctx *ctx; /* may be NULL when unused */
    int64_t bad;
    char msg[600];
} dmxt_checker;

/* Count a problem; keep the message of the first. */
void dmxt_fail(dmxt_checker *C, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* snprintf appending to buf (which holds a string) without overflowing. */
void dmxt_append(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The heap's base on this rank (dmx_rma_get_base), or NULL when that call fails. */
void *dmxt_heap_base(const dmx_rma_heap *heap);

#endif /* DMXTEST_H */
