/* SPDX-License-Identifier: BSD-3-Clause */
/* Between the files of the drop-in's p?gemm_: the entry points and checks (sp_gemm.c), the grids
 * and plans kept in dmx's plan cache (sp_gemm_cache.c) and SUMMA on the caller's block-cyclic
 * arrays (sp_gemm_summa.c). Not installed. */
#ifndef DMX_SP_GEMM_INTERNAL_H
#define DMX_SP_GEMM_INTERNAL_H

#include "sp_internal.h"

#include <stdint.h>

/* One grid the multiply ran on: dmx's inner duplicate of the BLACS grid's communicator
 * (borrowed: dmx frees it with the grid's) and the row and column communicators SUMMA broadcasts
 * on (the rank in row is MYCOL, in col MYROW), split from it. */
typedef struct sp_ggrid {
    MPI_Comm comm, row, col;
    int nprow, npcol, myrow, mycol;
    void *work[4]; /* panel buffers (two of A, two of B), shared by the grid's plans */
    size_t work_size[4];
} sp_ggrid;

/* One piece of [0, k): w indices whose columns of sub(A) lie in one block (local column la on
 * process column ocol) and whose rows of sub(B) lie in one block (local row lb on process row
 * orow). */
typedef struct sp_gseg {
    int64_t w, la, lb;
} sp_gseg;

/* A panel: segments with the same owners, sent and multiplied together. */
typedef struct sp_gpanel {
    int ocol, orow, first, count;
    int64_t w;
} sp_gpanel;

/* SUMMA on the caller's arrays (sp_gemm_summa.c): what one process needs of a call whose
 * operands already sit where SUMMA wants them. */
typedef struct sp_gsumma {
    int64_t ml, nl;             /* this process's rows and columns of sub(C) */
    int64_t ar0, ac0, br0, bc0; /* local origins of sub(A) and sub(B) on this process */
    int64_t cr0, cc0;           /* of sub(C) */
    int64_t lar, lac, lbr, lbc; /* local rows and columns of sub(A) and sub(B) */
    int npanels;                /* panels, in the order they are run */
    sp_gpanel *panels;          /* npanels */
    sp_gseg *segs;              /* panel p's segments: segs[first .. first + count) */
    int64_t wmax;               /* widest panel */
} sp_gsumma;

/* Do call g's operands suit SUMMA on the caller's arrays (sp_gemm_summa.c's header)? The call's
 * arguments must be legal (dmxsp_gemm_check). Local; the same answer on every process. */
DMXSP_HIDDEN int dmxsp_gsumma_suits(const sp_gemm_args *g, const int *grid);
/* The plan of SUMMA on the caller's arrays for call g on grid (NPROW, NPCOL, MYROW, MYCOL), or
 * NULL when its operands do not suit it (the answer is the same on every process: it reads only
 * what ScaLAPACK requires to be equal everywhere). Local. */
DMXSP_HIDDEN sp_gsumma *dmxsp_gsumma_make(const sp_gemm_args *g, const int *grid);
DMXSP_HIDDEN void dmxsp_gsumma_free(sp_gsumma *s);
/* Run it: sub(C) = alpha sub(A) sub(B) + beta sub(C) in place. Collective on gr's row and column
 * communicators. Returns 0, or 1 with a message in msg. */
DMXSP_HIDDEN int dmxsp_gsumma_run(const sp_gsumma *s, sp_ggrid *gr, dmx_dtype t,
                                  const sp_gemm_args *g, dmx_scalar alpha, const void *a,
                                  const void *b, dmx_scalar beta, void *c, char *msg, size_t len);

/* The multiply of one legal call (step 5 of sp_gemm.c): SUMMA in place when the operands suit
 * it, else dmx_gemm on layouts of the operands, with plans kept in dmx's plan cache of the
 * grid's communicator (sp_gemm_cache.c). comm: the
 * grid's communicator; ranks: its rank of each grid process (prow * NPCOL + pcol). Collective on
 * comm. Ends the job with a message on an error. */
DMXSP_HIDDEN void dmxsp_gemm_cached(const char *name, MPI_Comm comm, dmx_dtype t,
                                    const sp_gemm_args *g, const int *grid, int *ranks,
                                    dmx_scalar alpha, void *a, void *b, dmx_scalar beta, void *c);

/* C = alpha op(A) op(B) + beta C on local column-major arrays with CBLAS (sp_gemm_summa.c); ta,
 * tb: p?gemm's TRANS letters (C on real types is T). Local. */
DMXSP_HIDDEN void dmxsp_gemm_local(dmx_dtype t, char ta, char tb, int64_t m, int64_t n, int64_t k,
                                   dmx_scalar alpha, const void *a, int64_t lda, const void *b,
                                   int64_t ldb, dmx_scalar beta, void *c, int64_t ldc);
/* Do the local rectangles [r0, r0 + rows) x [c0, c0 + cols) of arrays x and y (element size es)
 * share an element? Same array and leading dimension: the rectangles meet; otherwise their memory
 * spans meet (sp_gemm_summa.c). Local. */
DMXSP_HIDDEN int dmxsp_gemm_meet(const char *x, int64_t ldx, int64_t xr, int64_t xc, int64_t xrows,
                                 int64_t xcols, const char *y, int64_t ldy, int64_t yr, int64_t yc,
                                 int64_t yrows, int64_t ycols, size_t es);
/* Whether p?gemm_ may run a call whose operands sit on one process as one local multiply there
 * (sp_gemm.c): not under DMX_SCALAPACK_GEMM=scalapack (sp_gemm_real.c). Local. */
DMXSP_HIDDEN int dmxsp_gemm_one_process_allowed(void);

/* How many calls took each path since the start: [0] SUMMA in place, [1] dmx_gemm's plan,
 * [2] plans found in the cache (either kind), [3] plans made, [4] one local multiply, the
 * operands on one process (sp_gemm.c). For the tests. Local. */
DMXSP_HIDDEN void dmxsp_gemm_paths(int64_t out[5]);
/* Count a call of that one-process path in dmxsp_gemm_paths. */
DMXSP_HIDDEN void dmxsp_gemm_path_one_process(void);

#endif /* DMX_SP_GEMM_INTERNAL_H */
