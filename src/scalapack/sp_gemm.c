/* ScaLAPACK's p?gemm_ (Fortran convention) on dmx's multiply: sub(C) = alpha op(sub(A))
 * op(sub(B)) + beta sub(C) with sub(X) = X(IX:IX+rows-1, JX:JX+cols-1) of a block-cyclic
 * descriptor, as ScaLAPACK's PBLAS define them.
 *
 * Each call: the BLACS context's communicator (its grid processes, as for p?gemr2d), the grid's
 * process map gathered once per call, a block-cyclic layout per operand cut at the submatrix's
 * last row and column plus a view of the submatrix, then dmx_gemm (which plans, runs and frees;
 * no plan cache yet). Errors abort the program, as ScaLAPACK does. The prototypes are here, not
 * in dmx/scalapack.h, which belongs to the redistribution entry points. */
#include "sp_internal.h"

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>

enum { D_CTXT = 1, D_M = 2, D_N = 3, D_MB = 4, D_NB = 5, D_RSRC = 6, D_CSRC = 7, D_LLD = 8 };

static _Noreturn void die(MPI_Comm comm, const char *name, const char *what)
{
    fprintf(stderr, "%s: %s\n", name, what);
    fflush(stderr);
    sp_abort(comm);
}

static dmx_op op_of(char t)
{
    return (t == 'N' || t == 'n') ? DMX_OP_N : (t == 'T' || t == 't') ? DMX_OP_T : DMX_OP_C;
}

/* Layout of sub(X) (rows x cols at 1-based ix, jx) of descriptor desc; *full must be destroyed
 * after the view. */
static dmx_status sub_layout(MPI_Comm comm, const int *desc, const int *ranks, int nprow, int npcol,
                             void *data, int ix, int jx, int rows, int cols, dmx_layout **full,
                             dmx_layout **view)
{
    dmx_status st = dmx_layout_create_block_cyclic_mapped(
        comm, ix - 1 + rows, jx - 1 + cols, desc[D_MB], desc[D_NB], nprow, npcol, ranks,
        desc[D_RSRC], desc[D_CSRC], data, desc[D_LLD] > 0 ? desc[D_LLD] : 1, full);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(*full, ix - 1, jx - 1, rows, cols, view);
    return st;
}

static void gemm(const char *name, dmx_dtype t, char ta, char tb, int m, int n, int k,
                 dmx_scalar alpha, void *a, int ia, int ja, const int *desca, void *b, int ib,
                 int jb, const int *descb, dmx_scalar beta, void *c, int ic, int jc,
                 const int *descc)
{
    int nprow, npcol, myrow, mycol, handle = -1, size, rank;
    if (m == 0 || n == 0)
        return;
    Cblacs_gridinfo(descc[D_CTXT], &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0)
        return;                             /* not in the grid: nothing to do, as in ScaLAPACK */
    Cblacs_get(descc[D_CTXT], 10, &handle); /* 10: the grid's communicator */
    MPI_Comm comm = Cblacs2sys_handle(handle);
    if (comm == MPI_COMM_NULL)
        die(MPI_COMM_WORLD, name, "the BLACS context has no communicator");
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        die(comm, name, "MPI_Comm_size or MPI_Comm_rank failed on the grid's communicator");
    int me[2] = {myrow, mycol}, *all = malloc(sizeof(int) * 2 * (size_t)size);
    int *ranks = malloc(sizeof(int) * (size_t)nprow * (size_t)npcol);
    if (!all || !ranks)
        die(comm, name, "out of memory");
    if (MPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, comm) != MPI_SUCCESS)
        die(comm, name, "MPI_Allgather of the grid coordinates failed");
    for (int r = 0; r < size; r++)
        if (all[2 * r] >= 0 && all[2 * r] < nprow && all[2 * r + 1] >= 0 && all[2 * r + 1] < npcol)
            ranks[all[2 * r] * npcol + all[2 * r + 1]] = r;
    dmx_op oa = op_of(ta), ob = op_of(tb);
    if (t <= DMX_DOUBLE) { /* conj is transpose for real types */
        oa = oa == DMX_OP_C ? DMX_OP_T : oa;
        ob = ob == DMX_OP_C ? DMX_OP_T : ob;
    }
    int ar = oa == DMX_OP_N ? m : k, ac = oa == DMX_OP_N ? k : m;
    int br = ob == DMX_OP_N ? k : n, bc = ob == DMX_OP_N ? n : k;
    dmx_layout *fa = NULL, *fb = NULL, *fc = NULL, *va = NULL, *vb = NULL, *vc = NULL;
    dmx_status st = DMX_SUCCESS;
    if (k > 0) {
        st = sub_layout(comm, desca, ranks, nprow, npcol, a, ia, ja, ar, ac, &fa, &va);
        if (st == DMX_SUCCESS)
            st = sub_layout(comm, descb, ranks, nprow, npcol, b, ib, jb, br, bc, &fb, &vb);
    }
    if (st == DMX_SUCCESS)
        st = sub_layout(comm, descc, ranks, nprow, npcol, c, ic, jc, m, n, &fc, &vc);
    if (st == DMX_SUCCESS && k == 0) { /* C = beta C */
        st = dmx_transform_once(t, DMX_OP_N, (dmx_scalar){0, 0}, vc, beta, vc);
    } else if (st == DMX_SUCCESS) {
        st = dmx_gemm(comm, t, oa, ob, alpha, va, vb, beta, vc, NULL);
    }
    if (st != DMX_SUCCESS) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %s", dmx_status_string(st), dmx_last_error());
        die(comm, name, msg);
    }
    dmx_layout_destroy(&va);
    dmx_layout_destroy(&vb);
    dmx_layout_destroy(&vc);
    dmx_layout_destroy(&fa);
    dmx_layout_destroy(&fb);
    dmx_layout_destroy(&fc);
    free(all);
    free(ranks);
}

static dmx_scalar sc_s(const float *v)
{
    return (dmx_scalar){v[0], 0.0};
}
static dmx_scalar sc_d(const double *v)
{
    return (dmx_scalar){v[0], 0.0};
}
static dmx_scalar sc_c(const float *v)
{
    return (dmx_scalar){v[0], v[1]};
}
static dmx_scalar sc_z(const double *v)
{
    return (dmx_scalar){v[0], v[1]};
}

#define SP_DEFINE_GEMM(ch, R, DT, UP, SPT)                                                         \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##gemm_)(                                        \
        const char *ta, const char *tb, const int *m, const int *n, const int *k, const R *alpha,  \
        R *a, const int *ia, const int *ja, const int *desca, R *b, const int *ib, const int *jb,  \
        const int *descb, const R *beta, R *c, const int *ic, const int *jc, const int *descc);    \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##gemm_)(                                        \
        const char *ta, const char *tb, const int *m, const int *n, const int *k, const R *alpha,  \
        R *a, const int *ia, const int *ja, const int *desca, R *b, const int *ib, const int *jb,  \
        const int *descb, const R *beta, R *c, const int *ic, const int *jc, const int *descc)     \
    {                                                                                              \
        if (sp_gemm_to_scalapack(SPT, *ta, *m, *n, *k, desca)) {                                   \
            sp_gemm_next(SPT)(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, \
                              ic, jc, descc);                                                      \
            return;                                                                                \
        }                                                                                          \
        gemm("P" UP "GEMM", DT, *ta, *tb, *m, *n, *k, sc_##ch(alpha), a, *ia, *ja, desca, b, *ib,  \
             *jb, descb, sc_##ch(beta), c, *ic, *jc, descc);                                       \
    }

SP_DEFINE_GEMM(s, float, DMX_FLOAT, "S", SP_S)
SP_DEFINE_GEMM(d, double, DMX_DOUBLE, "D", SP_D)
SP_DEFINE_GEMM(c, float, DMX_CFLOAT, "C", SP_C)
SP_DEFINE_GEMM(z, double, DMX_CDOUBLE, "Z", SP_Z)
