/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interface between the ScaLAPACK entry points (sp_entries.c) and the engine glue
 * (sp_engine.c). Not installed. */
#ifndef DMX_SP_INTERNAL_H
#define DMX_SP_INTERNAL_H

#include "dmx.h"
#include "dmx/expert.h"
#include "dmx_scalapack.h"

#include <mpi.h>

/* The BLACS of the ScaLAPACK library the program links (libscalapack-openmpi ships no header).
 * Debian's build uses 32-bit integers. */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int sysctxt);

/* The drop-in's functions shared between its files are named dmxsp_* and hidden: visible to
 * this library's own files only, never exported by libdmx_scalapack.so (whose exports are
 * ScaLAPACK's entry points and dmx_scalapack_*), so a program or a second copy of this code (the
 * test build, whose entry points are named dmxsp_test_*) cannot bind to them or clash with them
 * at run time. (The targets are built with -fvisibility=hidden too; the mark keeps it so for a
 * build that forgets.) */
#if defined(__GNUC__)
#define DMXSP_HIDDEN __attribute__((visibility("hidden")))
#else
#define DMXSP_HIDDEN
#endif

typedef enum sp_routine { SP_GEMR2D = 1, SP_TRMR2D = 2, SP_TRAN = 3 } sp_routine;

/* ScaLAPACK element types; integers travel as DMX_FLOAT (a bitwise copy in dmx). */
typedef enum sp_type { SP_I = 0, SP_S = 1, SP_D = 2, SP_C = 3, SP_Z = 4 } sp_type;

/* One call, already dereferenced. The target (B of p?gemr2d, C of p?tran) is m x n; the source
 * is m x n too, or n x m for p?tran. Indices are ScaLAPACK's, 1-based. */
typedef struct sp_call {
    const char *name; /* routine name for messages, e.g. "PDGEMR2D" */
    sp_routine routine;
    sp_type type;
    dmx_op op; /* DMX_OP_N, or T/C for p?tran */
    int m, n;
    char uplo; /* p?trmr2d as the user passed it; 0 otherwise */
    char diag;
    const void *src;
    int isrc, jsrc;
    const int *descsrc;
    void *dst;
    int idst, jdst;
    const int *descdst;
    int ictxt; /* p?gemr2d/p?trmr2d: the context argument; p?tran: C's context */
    dmx_scalar alpha, beta;
} sp_call;

/* A descriptor as read by dmxsp_desc_read (sp_desc.c): the PBLAS' 11 fields, whatever form it came
 * in. */
typedef struct sp_desc {
    int dtype, ctxt, m, n, imb, inb, mb, nb, rsrc, csrc, lld;
} sp_desc;

/* Read a descriptor by the REDIST rule (pblas = 0: always 9 integers, DTYPE ignored and stored as
 * 1) or the PBLAS' (pblas = 1: DTYPE 1 is 9 integers with IMB = MB, INB = NB; DTYPE 2 is 11
 * integers; any other DTYPE is kept, with CTXT, and the rest neutral: M = N = 0, blocks 1,
 * RSRC = CSRC = 0, LLD = 1). */
DMXSP_HIDDEN void dmxsp_desc_read(const int *desc, int pblas, sp_desc *d);
/* Entries of [0, n) that process p of np holds when the first block has `first` entries, the
 * others bs, block 0 on process src (-1: replicated, every process holds all n). */
DMXSP_HIDDEN int64_t dmxsp_numroc(int64_t n, int64_t first, int64_t bs, int p, int src, int np);
/* Local index of global index g on process me (same distribution as dmxsp_numroc), or -1 when
 * another process holds it. */
DMXSP_HIDDEN int64_t dmxsp_local_index(int64_t g, int64_t first, int64_t bs, int src, int np,
                                       int me);

/* One p?gemm call, dereferenced, its descriptors read by the PBLAS' rule. */
typedef struct sp_gemm_args {
    char ta, tb;
    int m, n, k, ia, ja, ib, jb, ic, jc;
    sp_desc a, b, c;
} sp_gemm_args;

/* The PBLAS' argument check of p?gemm on this process (sp_gemm_check.c); grid: NPROW, NPCOL,
 * MYROW, MYCOL of A's context, which this process is in. Returns 0, or the PBLAS' INFO (< 0) with
 * a message about the first illegal argument. Local. */
DMXSP_HIDDEN int dmxsp_gemm_check(const sp_gemm_args *g, const int *grid, char *msg, size_t len);
/* Count one p?gemm call that ran dmx's multiply or scaling in dmx_scalapack_get_stats
 * (sp_engine.c). */
DMXSP_HIDDEN void dmxsp_count_gemm(void);
/* Count one p?gemm call handed to ScaLAPACK's own routine (sp_gemm_real.c). */
DMXSP_HIDDEN void dmxsp_count_gemm_handed(void);

/* The PBLAS' error handler and warning of the ScaLAPACK library the program runs with: the
 * PBLAS report an illegal argument with them, and so does the drop-in's p?gemm. PB_Cabort
 * prints and ends the job, except in ScaLAPACK's own PBLAS testers, whose PB_Cabort records the
 * code and returns. PB_Cwarn formats into 100 bytes: keep its text shorter. */
void PB_Cwarn(int ctxt, int line, const char *rout, const char *form, ...);
void PB_Cabort(int ctxt, const char *rout, int info);

/* Run one call (aborts the program on an error, as ScaLAPACK does). */
DMXSP_HIDDEN void dmxsp_run(const sp_call *call);

/* ---- p?gemm_: the calls handed to the ScaLAPACK the program links (sp_gemm_real.c) ---- */
typedef void sp_gemm_fn(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const void *alpha, void *a, const int *ia, const int *ja, const int *desca,
                        void *b, const int *ib, const int *jb, const int *descb, const void *beta,
                        void *c, const int *ic, const int *jc, const int *descc);
/* The next p?gemm_ after this library's (NULL when there is none). */
DMXSP_HIDDEN sp_gemm_fn *dmxsp_gemm_next(sp_type t);
/* Whether this call goes to ScaLAPACK's own routine: the same answer on every process. */
DMXSP_HIDDEN int dmxsp_gemm_to_scalapack(sp_type t, const sp_gemm_args *g);
/* The same rule's answer from the sizes alone, for the calls it hands on whatever the
 * descriptors hold (the small ones): 1 when the call goes to ScaLAPACK, 0 when undecided. Reads
 * no descriptor, so the smallest calls pay as little as possible before ScaLAPACK's. */
DMXSP_HIDDEN int dmxsp_gemm_tiny(sp_type t, int m, int n, int k);

/* The drop-in multiply's settings, read at its first call (reading the environment per call would
 * scan every variable's string, on calls of a few microseconds): DMX_SCALAPACK_GEMM (mode: 0 auto,
 * 1 dmx, 2 scalapack), DMX_SCALAPACK_GEMM_INPLACE, DMX_SCALAPACK_GEMM_CACHE, DMX_PROFILE. */
typedef struct sp_gemm_set {
    int mode, inplace, capacity, profile;
} sp_gemm_set;
DMXSP_HIDDEN const sp_gemm_set *dmxsp_gemm_settings(void);

/* Counters behind dmx_scalapack_get_stats(). */
DMXSP_HIDDEN void dmxsp_stats(dmx_scalapack_stats *out);

/* ---- between sp_engine.c (cache, contexts, entries, errors) and sp_key.c (keys, their
 * validation, the pieces of a call) ---- */

/* ---- key --------------------------------------------------------------------------------------
 * Per side (source, target): whether this process is in the side's grid, its coordinates, the
 * descriptor and the 1-based submatrix origin. A process outside the grid leaves all zeros, so
 * whatever its descriptor holds besides CTXT = -1 does not matter (as in ScaLAPACK). */
enum side_field {
    F_IN,
    F_NPROW,
    F_NPCOL,
    F_MYROW,
    F_MYCOL,
    F_DTYPE,
    F_M,
    F_N,
    F_MB,
    F_NB,
    F_RSRC,
    F_CSRC,
    F_LLD,
    F_I,
    F_J,
    F_IMB, /* first row block size: MB unless an 11-integer descriptor (DTYPE 2) says otherwise */
    F_INB, /* first column block size */
    SIDE_LEN
};

enum key_field {
    K_ROUTINE,
    K_TYPE,
    K_OP,
    K_M,
    K_N,
    K_UPPER,        /* p?trmr2d: upper trapezoid */
    K_WITHDIAG,     /* p?trmr2d: the diagonal is copied */
    K_CTXTMISMATCH, /* p?tran: A and C name different contexts on this process */
    /* The local array's address (low and high 32 bits) where a side needs a custom layout (an
     * 11-integer descriptor with IMB != MB or INB != NB): such a layout cannot be rebound, so a
     * cached plan is reused only for the same arrays. Zero otherwise. */
    K_SRCPTR,
    K_DSTPTR = K_SRCPTR + 2,
    K_SRC = K_DSTPTR + 2,
    K_DST = K_SRC + SIDE_LEN,
    KEY_LEN = K_DST + SIDE_LEN
};

typedef struct sp_side {
    int nprow, npcol, m, n, mb, nb, rsrc, csrc;
    int imb, inb;   /* first block sizes (= mb, nb for a 9-integer descriptor) */
    int custom;     /* imb != mb or inb != nb: a dmx custom layout (sp_layout.c) */
    int i0, j0;     /* 0-based origin of the submatrix */
    int rows, cols; /* its size */
    int *grid_ranks;
} sp_side;

/* A rectangle of the target submatrix (and the matching one of the source) with a trapezoid mask
 * in its own coordinates. */
typedef struct sp_piece {
    int r0, c0, rows, cols;
    char uplo, diag;
} sp_piece;

/* End the job after a message was printed to stderr: a short pause, so that the launcher
 * forwards the message (MPICH's Hydra drops what an aborting process wrote just before), then
 * MPI_Abort on comm (MPI_COMM_WORLD if comm is MPI_COMM_NULL) (sp_abort.c). */
DMXSP_HIDDEN _Noreturn void dmxsp_abort(MPI_Comm comm);

/* Calls of at most this many elements may take the direct path (sp_direct.c). */
#define SP_DIRECT_MAX 1024
/* A tiny p?gemr2d/p?tran* call whose every element stays on its process, done in place with no
 * plan and no communication (sp_direct.c); grid: the context's NPROW, NPCOL, MYROW, MYCOL.
 * Returns 1 when done, 0 when the call is not one (nothing touched: every process of a correct
 * call decides alike), -1 with a message when this process's own LLD or array is wrong. */
DMXSP_HIDDEN int dmxsp_direct(const sp_call *c, const int *grid, char *msg, size_t len);

/* Is this process in grid ctxt? Its shape and coordinates (sp_key.c). */
DMXSP_HIDDEN int dmxsp_grid_member(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
/* This process's key of a call (KEY_LEN integers, sp_key.c); grid: the shape and this
 * process's coordinates in the grid of c->ictxt, which it is in (NPROW, NPCOL, MYROW, MYCOL). */
DMXSP_HIDDEN void dmxsp_build_key(const sp_call *c, const int *grid, int *key);
/* Decode one side of the gathered key; returns 0, or 1 with a message (sp_key.c). */
DMXSP_HIDDEN int dmxsp_decode_side(const int *gkey, int size, int off, const char *mat, int rows,
                                   int cols, sp_side *s, char *msg, size_t len);
/* The pieces of a call from its key; returns their number (sp_key.c). */
DMXSP_HIDDEN int dmxsp_make_pieces(const int *key, sp_piece *p);
/* The dmx layout of one side (sp_layout.c). Collective on comm. A block-cyclic side gives the
 * mapped block-cyclic layout of rows [0, i0 + rows) x [0, j0 + cols) and *oi, *oj = i0, j0 (where
 * the submatrix starts in it); a side with first-block sizes gives a custom layout of the
 * submatrix alone and *oi = *oj = 0. in: this process is in the side's grid, at (myrow, mycol);
 * local/lld: its array. alone: a block-cyclic side made with no communication
 * (dmx_layout_create_block_cyclic_unagreed, for the small path of sp_small.c). */
DMXSP_HIDDEN dmx_status dmxsp_side_layout(MPI_Comm comm, const sp_side *s, int in, int myrow,
                                          int mycol, const void *local, int lld, dmx_dtype dtype,
                                          int alone, dmx_layout **out, int64_t *oi, int64_t *oj);
/* Which path call c (this process's key; dtype its dmx type; size processes in the context)
 * takes, the same answer on every process of a correct call (sp_small.c): 1 no collective; 2 one
 * gather of the keys, then the same local run (a small p?gemr2d whose grids miss some process of
 * the context); 0 the cached, agreed path. Local. */
DMXSP_HIDDEN int dmxsp_small_eligible(const sp_call *c, const int *key, dmx_dtype dtype, int size);
/* For an eligible call: the gathered key made alone (gkey, size x KEY_LEN) and the context ranks
 * of both grids' processes (ranks, 2 x size: source grid then target grid, each indexed
 * prow * NPCOL + pcol); cgroup is the context's group. Returns 0, or 1 if a grid's processes are
 * not the context's (sp_small.c). Local. */
DMXSP_HIDDEN int dmxsp_small_gkey(const sp_call *c, const int *key, MPI_Group cgroup, int size,
                                  int *ranks, int *gkey);
/* calloc that aborts the program when memory runs out (sp_abort.c). */
DMXSP_HIDDEN void *dmxsp_xcalloc(size_t n, size_t sz, const char *name);

#endif /* DMX_SP_INTERNAL_H */
