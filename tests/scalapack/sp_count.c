/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sp_small's PMPI interposition: the collectives (and communicator duplications) a process
 * makes while spt_counting is set, in spt_ncoll (SPT_TRACE=1 names them on stderr). The test
 * build of libdmx_scalapack is linked statically, so its MPI calls come here first. */
#include "sp_test.h"

int spt_counting;
long spt_ncoll;

static void count(const char *what)
{
    if (!spt_counting)
        return;
    spt_ncoll++;
    if (getenv("SPT_TRACE"))
        fprintf(stderr, "collective: %s\n", what);
}

#define SPT_COUNT(decl, call)                                                                      \
    decl                                                                                           \
    {                                                                                              \
        count(__func__);                                                                           \
        return call;                                                                               \
    }
SPT_COUNT(int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m),
          PMPI_Allreduce(s, r, c, t, o, m))
SPT_COUNT(int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m,
                             MPI_Request *q),
          PMPI_Iallreduce(s, r, c, t, o, m, q))
SPT_COUNT(int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                            MPI_Datatype rt, MPI_Comm m),
          PMPI_Allgather(s, sc, st, r, rc, rt, m))
SPT_COUNT(int MPI_Barrier(MPI_Comm m), PMPI_Barrier(m))
SPT_COUNT(int MPI_Ibarrier(MPI_Comm m, MPI_Request *q), PMPI_Ibarrier(m, q))
SPT_COUNT(int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm m),
          PMPI_Bcast(b, c, t, root, m))
SPT_COUNT(int MPI_Comm_dup(MPI_Comm m, MPI_Comm *out), PMPI_Comm_dup(m, out))
SPT_COUNT(int MPI_Comm_split(MPI_Comm m, int color, int key, MPI_Comm *out),
          PMPI_Comm_split(m, color, key, out))
SPT_COUNT(int MPI_Win_allocate_shared(MPI_Aint sz, int du, MPI_Info i, MPI_Comm m, void *b,
                                      MPI_Win *w),
          PMPI_Win_allocate_shared(sz, du, i, m, b, w))
