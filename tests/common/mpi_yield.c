/* SPDX-License-Identifier: BSD-3-Clause */
/* A test-harness aid, not part of dmx: preloaded under MPICH (by scripts/scalapack_testers.sh,
 * and by ctest when the build has DMX_TEST_YIELD=ON, as test.sh's MPICH pass does), it turns the
 * blocking MPI calls that ScaLAPACK's BLACS (and dmx's drop-in) make into their nonblocking forms
 * completed by a loop of MPI_Test and sched_yield. MPICH's blocking calls spin without giving up
 * the core, so with more ranks than cores (4 ranks on this project's 2-core machines) every
 * blocking call waits about a scheduler time slice for the peer it needs; yielding lets that peer
 * run. Only the speed changes: each replacement has the blocking call's meaning (MPI standard: a
 * blocking call equals its nonblocking start followed by MPI_Wait). Every call goes through PMPI,
 * so it composes with any other library that defines the MPI_ names it does not.
 *
 * Reductions with a user-defined operator are left blocking: with them replaced by MPI_Ireduce
 * and MPI_Iallreduce, xdlu's iterative refinement (pdgerfs) under MPICH 4.0.2 sent ranks down
 * different paths and hung (BLACS's combine operators keep state between the call and the
 * operator function). Reductions with a predefined operator yield too, except when built with
 * DMX_YIELD_BLOCKING_REDUCTIONS, as scripts/scalapack_testers.sh builds it: with them
 * nonblocking, xdlu's PDGETRS saw an illegal first argument and hung under MPICH 4.0.2, plain
 * and with dmx alike (cause not found; dmx's own tests, whose reductions are on contiguous
 * buffers, pass with them). Every rank of a reduction passes the same operator, so all of them
 * take the same form (a nonblocking collective matches only nonblocking ones). Measured (xdlu,
 * 2 x 2, 4 tests, load 15): 26 s plain, 6.3 s with this. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <string.h>

static int finish(MPI_Request *req, MPI_Status *status)
{
    int done = 0, rc;
    while ((rc = PMPI_Test(req, &done, status)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

static int finish_all(int n, MPI_Request *reqs, MPI_Status *statuses)
{
    int done = 0, rc;
    while ((rc = PMPI_Testall(n, reqs, &done, statuses)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    return finish(req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    return finish_all(n, reqs, statuses);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    int done = 0, rc;
    while ((rc = PMPI_Testany(n, reqs, index, &done, status)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, type, src, tag, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, status) : rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Isend(buf, count, type, dst, tag, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Irsend(buf, count, type, dst, tag, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dst, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int rc = PMPI_Irecv(rbuf, rcount, rtype, src, rtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Isend(sbuf, scount, stype, dst, stag, comm, &r[1]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = finish_all(2, r, st);
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = st[0];
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibarrier(comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Request r;
    int rc = PMPI_Comm_idup(comm, out, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

/* MPI's predefined reduction operators (MPI_REPLACE and MPI_NO_OP serve one-sided calls only) */
static int predefined(MPI_Op op)
{
#ifdef DMX_YIELD_BLOCKING_REDUCTIONS
    (void)op;
    return 0;
#endif
    return op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN || op == MPI_LAND ||
           op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
           op == MPI_MAXLOC || op == MPI_MINLOC;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    MPI_Request r;
    if (!predefined(op))
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    MPI_Request r;
    if (!predefined(op))
        return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    int rc = PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    MPI_Request r;
    int rc =
        PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    MPI_Request r;
    if (!predefined(op))
        return PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm);
    int rc = PMPI_Ireduce_scatter_block(sbuf, rbuf, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    if (!predefined(op))
        return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
    int rc = PMPI_Iscan(sbuf, rbuf, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    if (!predefined(op))
        return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
    int rc = PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? finish(&r, MPI_STATUS_IGNORE) : rc;
}

#ifdef DMX_YIELD_PROGRESS
/* Built with DMX_YIELD_PROGRESS (the ctest shim of DMX_TEST_YIELD, cmake/dmxTesting.cmake), the
 * shim also yields inside the calls it cannot replace: MPI_Comm_split, window creation, fences,
 * flushes, frees. Debian's MPICH (ch4:ucx) waits in every blocking call by polling its progress
 * engine, which asks UCX's worker for progress (ucp_worker_progress) whenever its shared-memory
 * queues had nothing; that call, defined here, runs UCX's own and yields the core when neither
 * had anything to do, so a waiting rank hands its time slice to the peer it waits for. A yield
 * changes only the scheduling: every MPI call keeps its meaning. */
typedef unsigned (*ucp_progress_fn)(void *worker);

static ucp_progress_fn next_progress;

/* looked up at load time, before any thread can poll */
__attribute__((constructor)) static void find_progress(void)
{
    void *sym = dlsym(RTLD_NEXT, "ucp_worker_progress");
    /* POSIX's way from dlsym's object pointer to a function pointer (ISO C has no cast) */
    memcpy(&next_progress, &sym, sizeof next_progress);
}

unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    if (!next_progress) /* UCX opened after this shim's constructor ran */
        find_progress();
    const unsigned events = next_progress(worker);
    if (events == 0)
        sched_yield();
    return events;
}
#endif
