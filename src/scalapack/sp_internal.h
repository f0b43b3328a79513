/* Internal interface between the ScaLAPACK entry points (sp_entries.c) and the engine glue
 * (sp_engine.c). Not installed. */
#ifndef DMX_SP_INTERNAL_H
#define DMX_SP_INTERNAL_H

#include "dmx.h"
#include "dmx_scalapack.h"

#include <mpi.h>

/* The BLACS of the ScaLAPACK library the program links (libscalapack-openmpi ships no header).
 * Debian's build uses 32-bit integers. */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int sysctxt);

/* Internal names get the same prefix as the exported ones, so the test build of this code can
 * be linked next to a second copy without clashing. */
#define DMXSP_INTERNAL(name) DMX_SCALAPACK_SYM(dmxsp_##name)

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

/* Run one call (aborts the program on an error, as ScaLAPACK does). */
void DMXSP_INTERNAL(run)(const sp_call *call);

/* Counters behind dmx_scalapack_get_stats(). */
void DMXSP_INTERNAL(stats)(dmx_scalapack_stats *out);

#endif /* DMX_SP_INTERNAL_H */
