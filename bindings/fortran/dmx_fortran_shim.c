/* SPDX-License-Identifier: BSD-3-Clause */
/* C side of the Fortran module dmx (bindings/fortran/dmx.F90): the calls whose C signatures
 * Fortran cannot bind directly. Communicators arrive as Fortran handles (MPI_Fint, the integer of
 * `use mpi` and the MPI_VAL of mpi_f08's type(MPI_Comm)) and are converted with MPI_Comm_f2c;
 * scalars arrive by reference instead of as a struct by value. Everything else of the module
 * binds the public C functions directly. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include "dmx.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* Prototypes for -Wmissing-prototypes: these are called from Fortran only. */
dmx_status dmxf_layout_create_block_cyclic(MPI_Fint comm, int64_t m, int64_t n, int64_t mb,
                                           int64_t nb, int prow, int pcol, int order, int rsrc,
                                           int csrc, void *local, int64_t lld, dmx_layout **out);
dmx_status dmxf_layout_create_custom(MPI_Fint comm, int64_t m, int64_t n, int64_t nrb,
                                     const int64_t *rowsplits, int64_t ncb,
                                     const int64_t *colsplits, const int *owners, int64_t nlocal,
                                     const dmx_block *blocks, dmx_layout **out);
dmx_status dmxf_transform_once(int dtype, int op, const dmx_scalar *alpha, const dmx_layout *b,
                               const dmx_scalar *beta, dmx_layout *a);
dmx_status dmxf_plan_set_scalars(dmx_plan *plan, int k, const dmx_scalar *alpha,
                                 const dmx_scalar *beta);
dmx_status dmxf_gemm(MPI_Fint comm, int dtype, int transa, int transb, const dmx_scalar *alpha,
                     const dmx_layout *a, const dmx_layout *b, const dmx_scalar *beta,
                     dmx_layout *c);
dmx_status dmxf_plan_create_relabeled(int n, const dmx_transform *t, int *sigma, MPI_Fint *newcomm,
                                      dmx_layout **relabeled, dmx_plan **plan);
dmx_status dmxf_gemm_plan_create(MPI_Fint comm, int dtype, int transa, int transb,
                                 const dmx_scalar *alpha, const dmx_layout *a, const dmx_layout *b,
                                 const dmx_scalar *beta, dmx_layout *c, dmx_gemm_plan **out);
void dmxf_errors_return(int on);
dmx_status dmxf_coll_bcast(void *buf, int64_t count, int dtype, int root, MPI_Fint comm, int alg);
dmx_status dmxf_coll_two(int kind, const void *sendbuf, void *recvbuf, int64_t count, int dtype,
                         MPI_Fint op, MPI_Fint comm, int alg);
int dmxf_errors_return_enabled(void);
void dmxf_abort(void);

dmx_status dmxf_layout_create_block_cyclic(MPI_Fint comm, int64_t m, int64_t n, int64_t mb,
                                           int64_t nb, int prow, int pcol, int order, int rsrc,
                                           int csrc, void *local, int64_t lld, dmx_layout **out)
{
    return dmx_layout_create_block_cyclic(MPI_Comm_f2c(comm), m, n, mb, nb, prow, pcol, (char)order,
                                          rsrc, csrc, local, lld, out);
}

dmx_status dmxf_layout_create_custom(MPI_Fint comm, int64_t m, int64_t n, int64_t nrb,
                                     const int64_t *rowsplits, int64_t ncb,
                                     const int64_t *colsplits, const int *owners, int64_t nlocal,
                                     const dmx_block *blocks, dmx_layout **out)
{
    return dmx_layout_create_custom(MPI_Comm_f2c(comm), m, n, nrb, rowsplits, ncb, colsplits,
                                    owners, nlocal, blocks, out);
}

dmx_status dmxf_transform_once(int dtype, int op, const dmx_scalar *alpha, const dmx_layout *b,
                               const dmx_scalar *beta, dmx_layout *a)
{
    return dmx_transform_once((dmx_dtype)dtype, (dmx_op)op, *alpha, b, *beta, a);
}

dmx_status dmxf_plan_set_scalars(dmx_plan *plan, int k, const dmx_scalar *alpha,
                                 const dmx_scalar *beta)
{
    return dmx_plan_set_scalars(plan, k, *alpha, *beta);
}

dmx_status dmxf_gemm(MPI_Fint comm, int dtype, int transa, int transb, const dmx_scalar *alpha,
                     const dmx_layout *a, const dmx_layout *b, const dmx_scalar *beta,
                     dmx_layout *c)
{
    return dmx_gemm(MPI_Comm_f2c(comm), (dmx_dtype)dtype, (dmx_op)transa, (dmx_op)transb, *alpha, a,
                    b, *beta, c, NULL);
}

dmx_status dmxf_plan_create_relabeled(int n, const dmx_transform *t, int *sigma, MPI_Fint *newcomm,
                                      dmx_layout **relabeled, dmx_plan **plan)
{
    MPI_Comm nc = MPI_COMM_NULL;
    dmx_status st = dmx_plan_create_relabeled(n, t, NULL, sigma, &nc, relabeled, plan, NULL);
    *newcomm = MPI_Comm_c2f(nc);
    return st;
}

dmx_status dmxf_gemm_plan_create(MPI_Fint comm, int dtype, int transa, int transb,
                                 const dmx_scalar *alpha, const dmx_layout *a, const dmx_layout *b,
                                 const dmx_scalar *beta, dmx_layout *c, dmx_gemm_plan **out)
{
    return dmx_gemm_plan_create(MPI_Comm_f2c(comm), (dmx_dtype)dtype, (dmx_op)transa,
                                (dmx_op)transb, *alpha, a, b, *beta, c, NULL, out);
}

/* A handler that returns: the failing call then returns its status (docs/errors.md). */
static void return_handler(dmx_status st, const char *message)
{
    (void)st;
    (void)message;
}

static int errors_return;

void dmxf_errors_return(int on)
{
    errors_return = on != 0;
    /* Returned errors: the collectives agree on every failure, so a bad argument on one rank
     * fails every rank instead of leaving the others waiting (DMX_COLL_CHECK is read at the
     * first collective call; an explicit setting wins). */
    if (on)
        setenv("DMX_COLL_CHECK", "agree", 0);
    dmx_set_error_handler(on ? return_handler : NULL);
}

int dmxf_errors_return_enabled(void)
{
    return errors_return;
}

/* End the job after the module printed a message of its own (a check dmx cannot make). */
void dmxf_abort(void)
{
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The MPI datatype of a dmx element type (MPI_DATATYPE_NULL for anything else: dmx names it). */
static MPI_Datatype mpi_type(int dtype)
{
    switch (dtype) {
    case DMX_FLOAT: return MPI_FLOAT;
    case DMX_DOUBLE: return MPI_DOUBLE;
    case DMX_CFLOAT: return MPI_C_FLOAT_COMPLEX;
    case DMX_CDOUBLE: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

dmx_status dmxf_coll_bcast(void *buf, int64_t count, int dtype, int root, MPI_Fint comm, int alg)
{
    return dmx_coll_bcast(buf, count, mpi_type(dtype), root, MPI_Comm_f2c(comm), (dmx_coll_alg)alg);
}

/* The collectives of a send and a receive buffer: kind 0 allreduce (op), 1 allgather,
 * 2 alltoall. */
dmx_status dmxf_coll_two(int kind, const void *sendbuf, void *recvbuf, int64_t count, int dtype,
                         MPI_Fint op, MPI_Fint comm, int alg)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    MPI_Datatype t = mpi_type(dtype);
    if (kind == 0)
        return dmx_coll_allreduce(sendbuf, recvbuf, count, t, MPI_Op_f2c(op), c, (dmx_coll_alg)alg);
    if (kind == 1)
        return dmx_coll_allgather(sendbuf, recvbuf, count, t, c, (dmx_coll_alg)alg);
    return dmx_coll_alltoall(sendbuf, recvbuf, count, t, c, (dmx_coll_alg)alg);
}
