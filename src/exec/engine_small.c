/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* sched_yield */
/* The engine for small plans (dmxi_exec_small): one plain MPI message per peer, no shared window.
 *
 * Algorithm (execute): post one receive per receive peer; pack each send peer's package (op(B)
 * of its pieces, transposed and conjugated by the sender, as the point-to-point engine does)
 * into one send buffer and send it, peers in rotated rank order; apply the rectangles local in
 * both layouts straight from B to A; transform each package into A as it arrives; wait for the
 * sends. Waits are MPI_Test loops that spin for SPIN_SECONDS, then yield the processor between
 * tests, and give up after DMX_TIMEOUT seconds without progress (the plan is then unusable, as
 * with dmxi_exec_p2p).
 *
 * Preconditions (the planner's, plan_small.c): every package fits one MPI message (at most
 * e->max_msg bytes) and the bytes a rank exchanges are few (DMX_SMALL_BYTES), so the copy that
 * MPI adds on a node costs less than the shared window the point-to-point engine would set up
 * (a node split, a window allocation and their agreements: ~0.3-1 ms on this project's 2-core
 * machine against tens of microseconds for the whole small exchange).
 *
 * Cost per execution: alpha = one latency per peer (sends and receives overlap), beta = the
 * bytes exchanged, copied three times (pack, MPI, transform); local rectangles once. Writes into
 * A are streamed past the caches when the plan writes more of A than they hold, as in the
 * point-to-point engine (dmxi_exec_decide_stream).
 * Setup is Local (unlike dmxi_exec_p2p): it lays out and allocates the buffers and the request
 * array; the planner folds its status into its own agreement. Memory: one send and one receive
 * buffer of the bytes exchanged (each package 16-byte aligned) and one request per peer,
 * reported in e->buffer_bytes. DMX_PROFILE=1 prints the phase times of every execution on
 * stderr, as the point-to-point engine does.
 */
#include "engine.h"
#include "kernels.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Bytes of the packages of pv, each rounded up to 16; sets each peer's offset. */
static dmx_status lay_out(dmxi_peer *pv, int np, int64_t *total)
{
    dmx_status st = DMX_SUCCESS;
    *total = 0;
    for (int i = 0; i < np; i++) {
        pv[i].off = *total;
        pv[i].nchunks = 1;
        pv[i].shm = 0;
        DMXI_TRY(dmxi_add64(*total, (pv[i].bytes + 15) & ~(int64_t)15, total));
    }
cleanup:
    return st;
}

static dmx_status small_setup(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    e->profile = dmxi_setting_int(DMXI_SET_PROFILE) != 0;
    e->timeout = (double)dmxi_setting_int(DMXI_SET_TIMEOUT);
    e->broken = 0;
    e->shm = 0;
    e->stream = dmxi_exec_decide_stream(e);
    DMXI_TRY(dmxi_exec_order_local(e));
    DMXI_TRY(lay_out(e->speer, e->nspeer, &e->sbytes));
    DMXI_TRY(lay_out(e->rpeer, e->nrpeer, &e->rbytes));
    for (int side = 0; side < 2; side++) {
        const dmxi_peer *pv = side ? e->rpeer : e->speer;
        for (int i = 0; i < (side ? e->nrpeer : e->nspeer); i++)
            DMXI_CHECK(pv[i].bytes <= e->max_msg, DMX_ERR_INTERNAL,
                       "small plan with a %lld-byte package (limit %lld)", (long long)pv[i].bytes,
                       (long long)e->max_msg);
    }
    e->nsreq = e->nspeer;
    e->nrreq = e->nrpeer;
    e->sbuf = dmxi_malloc(e->sbytes, 1);
    e->rbuf = dmxi_malloc(e->rbytes, 1);
    e->sreq = dmxi_malloc(e->nsreq, sizeof(MPI_Request));
    e->rreq = dmxi_malloc(e->nrreq, sizeof(MPI_Request));
    DMXI_CHECK(e->sbuf && e->rbuf && e->sreq && e->rreq, DMX_ERR_ALLOC,
               "out of memory for %lld + %lld buffer bytes", (long long)e->sbytes,
               (long long)e->rbytes);
    for (int i = 0; i < e->nsreq; i++)
        e->sreq[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < e->nrreq; i++)
        e->rreq[i] = MPI_REQUEST_NULL;
    e->buffer_bytes = e->sbytes + e->rbytes;
    e->npeers_shm = 0;
cleanup:
    return st;
}

/* How long a wait tests without yielding. A few-byte message arrives within microseconds when
 * its sender runs; yielding at once hands the core away for a scheduler slice (on this
 * project's 2-core machine with 4 ranks a 4 x 4 transpose's exchange took 18-25 us yielding
 * at once, 6-9 us spinning 20-100 us first; Open MPI's progress already yields when ranks
 * outnumber cores). After it, yield between tests, so a rank waiting for one that is not
 * scheduled does not keep the core from it (MPICH's progress never yields). */
#define SPIN_SECONDS 50e-6

/* No progress for e->timeout seconds since *since (set on the first idle turn): give up.
 * Yields the processor once the wait has lasted SPIN_SECONDS. */
static dmx_status idle(dmxi_exec *e, double *since, const char *what, int left)
{
    dmx_status st = DMX_SUCCESS;
    const double now = MPI_Wtime();
    if (*since < 0)
        *since = now;
    else if (e->timeout > 0 && now - *since > e->timeout) {
        e->broken = 1;
        DMXI_CHECK(0, DMX_ERR_MPI,
                   "rank %d: no progress for %.0f s (DMX_TIMEOUT) while waiting for %s (%d "
                   "left): a peer rank died or did not enter the execution; destroy the plan",
                   e->rank, now - *since, what, left);
    }
    if (now - *since > SPIN_SECONDS)
        sched_yield();
cleanup:
    return st;
}

/* DMX_PROFILE=1: CPU seconds of this thread per phase, as the point-to-point engine reports. */
typedef struct small_prof {
    int on;
    double t, pack, local, unpack, idle, wall0;
} small_prof;

static void small_tick(small_prof *f, double *phase)
{
    struct timespec ts;
    if (f->on && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
        *phase += now - f->t;
        f->t = now;
    }
}

static void small_report(const dmxi_exec *e, const small_prof *f)
{
    if (f->on)
        fprintf(stderr,
                "dmx profile rank %d (small plan): CPU ms pack %.3f, local %.3f, unpack %.3f, "
                "idle %.3f; messages out %d, in %d; wall %.3f ms\n",
                e->rank, 1e3 * f->pack, 1e3 * f->local, 1e3 * f->unpack, 1e3 * f->idle, e->nspeer,
                e->nrpeer, 1e3 * (MPI_Wtime() - f->wall0));
}

static dmx_status small_execute(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    small_prof f = {e->profile != 0, 0, 0, 0, 0, 0, MPI_Wtime()};
    double ignore = 0;
    small_tick(&f, &ignore);
    DMXI_CHECK(!e->broken, DMX_ERR_STATE,
               "an earlier execution of this plan gave up (DMX_TIMEOUT); destroy the plan");
    for (int i = 0; i < e->nrpeer; i++) {
        const dmxi_peer *q = &e->rpeer[i];
        int len = 0;
        DMXI_TRY(dmxi_to_int(q->bytes, &len, "package bytes"));
        DMXI_MPI(MPI_Irecv(e->rbuf + q->off, len, MPI_BYTE, q->rank, DMXI_TAG_DATA, e->comm,
                           &e->rreq[i]));
    }
    int start = 0; /* the first rank above this one first */
    while (start < e->nspeer && e->speer[start].rank < e->rank)
        start++;
    for (int k = 0; k < e->nspeer; k++) {
        const int i = (start + k) % e->nspeer;
        const dmxi_peer *q = &e->speer[i];
        int len = 0;
        DMXI_TRY(dmxi_to_int(q->bytes, &len, "package bytes"));
        dmxi_exec_pack_pieces(e, q->first, q->first + q->count, e->sbuf + q->off, 0);
        DMXI_MPI(MPI_Isend(e->sbuf + q->off, len, MPI_BYTE, q->rank, DMXI_TAG_DATA, e->comm,
                           &e->sreq[i]));
    }
    small_tick(&f, &f.pack);
    int64_t next_local = 0;
    dmxi_exec_apply_local(e, &next_local, INT64_MAX);
    small_tick(&f, &f.local);
    double since = -1.0;
    for (int left = e->nrreq; left > 0;) {
        int idx = MPI_UNDEFINED, flag = 0;
#ifdef DMX_SIM_WAIT /* simulation builds: one MPI_Wait at a time, as posted (engine.c) */
        (void)flag;
        idx = e->nrreq - left;
        DMXI_MPI(MPI_Wait(&e->rreq[idx], MPI_STATUS_IGNORE));
#else
        DMXI_MPI(MPI_Testany(e->nrreq, e->rreq, &idx, &flag, MPI_STATUS_IGNORE));
#endif
        if (idx != MPI_UNDEFINED) {
            const dmxi_peer *q = &e->rpeer[idx];
            small_tick(&f, &f.idle);
            dmxi_exec_unpack_pieces(e, q->first, q->first + q->count, e->rbuf + q->off, 0);
            small_tick(&f, &f.unpack);
            left--;
            since = -1.0;
        } else {
            DMXI_TRY(idle(e, &since, "messages", left));
        }
    }
    if (e->stream)
        dmxi_kernel_fence(); /* A's streamed stores are visible when execute returns */
    since = -1.0;
#ifdef DMX_SIM_WAIT
    DMXI_MPI(dmxi_waitall(e->nsreq, e->sreq));
#endif
    for (int sent = e->nsreq == 0; !sent;) {
        DMXI_MPI(dmxi_testall(e->nsreq, e->sreq, &sent));
        if (!sent)
            DMXI_TRY(idle(e, &since, "sends to complete", e->nsreq));
    }
    small_tick(&f, &f.idle);
    small_report(e, &f);
cleanup:
    if (st != DMX_SUCCESS)
        e->broken = 1; /* requests may be pending: the plan can only be destroyed */
    return st;
}

/* After a failed execution requests may still be pending: cancel the receives, free them all. */
static dmx_status small_free(dmxi_exec *e)
{
    dmx_status st = dmxi_exec_free_requests(e, 1);
    free(e->sbuf);
    free(e->rbuf);
    free(e->sreq);
    free(e->rreq);
    e->sbuf = e->rbuf = NULL;
    e->sreq = e->rreq = NULL;
    e->nsreq = e->nrreq = 0;
    return st;
}

const dmxi_exec_ops dmxi_exec_small = {"small", small_setup, small_execute, small_free};
