/* SPDX-License-Identifier: BSD-3-Clause */
/* The point-to-point engine (dmxi_exec_p2p): runs a plan.
 *
 * 1. Start the persistent receives of the peers reached by messages (one message per peer on
 *    another node, split only above the message limit); pack and send their packages, in
 *    rotated rank order so ranks do not all hit the same peer first.
 * 2. Then loop until everything is done, doing whatever can be done now:
 *    - for each node peer, pack the next chunk of its package into a free slot of its ring in
 *      this rank's part of the shared window and publish it (shm.c);
 *    - transform every published chunk from node peers into A straight from their slots
 *      (A = alpha*op(piece) + beta*A, "transform upon receipt") and free the slot;
 *    - transform each message package that has arrived, in whatever order;
 *    - when nothing else is ready, apply the next slice of the rectangles that are local in
 *      both layouts, straight from B to A;
 *    - when not even that, an idle turn: one MPI call that lets MPI progress and report errors
 *      (MPI_Testany on the receives, else MPI_Iprobe), then yield the processor (the ranks of a
 *      node may outnumber its cores).
 * 3. Wait for the sends (MPI_Testall and idle turns).
 * No wait blocks inside MPI: MPICH progresses only inside MPI calls and its blocking waits spin
 * without yielding, which starved the oversubscribed ranks that had work to do (np 3-4 on 2
 * cores ran 55x slower than under Open MPI); and a rank that only polls its rings still
 * advances its own outgoing messages. DMX_TIMEOUT seconds of idle turns in a row (no chunk,
 * message or local work done: a peer died or never entered the execution) end the execution
 * with DMX_ERR_MPI; the plan is then unusable (its rings are out of step) and can only be
 * destroyed.
 * Each element that changes rank is copied twice on one node (pack, which also transposes and
 * conjugates; transform, a plain column walk; the chunk is still in the shared cache for it) and
 * three times across nodes (pack, MPI, transform); local elements are read once and written once.
 * No step waits for a particular peer while other work is ready, and every rank keeps consuming its
 * peers' chunks, so a full ring never blocks its sender for longer than its receiver takes to run.
 * DMX_PROFILE=1 prints the time of each phase per rank and execution.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sched_yield */

#include "kernels.h"
#include "engine.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

/* Rectangles cut by the trapezoid's diagonal go column by column. */
void dmxi_apply(const dmxi_xform *x, dmx_op op, const char *src, int64_t sld, dmx_order sord,
                char *dst, int64_t dld, dmx_order dord, int64_t r0, int64_t c0, int64_t rows,
                int64_t cols, unsigned flags)
{
    const dmx_transform *t = &x->t;
    if (dmxi_trapezoid_inside(t, r0, c0, rows, cols)) {
        dmxi_kernel_apply_flags(t->dtype, op, t->alpha, t->beta, src, sld, sord, dst, dld, dord,
                                rows, cols, flags);
        return;
    }
    for (int64_t jj = 0; jj < cols; jj++) {
        int64_t i0, i1; /* allowed rows [i0, i1) of this column */
        dmxi_trapezoid_column(t, r0, rows, c0 + jj, &i0, &i1);
        if (i0 >= i1)
            continue;
        int64_t si, sj; /* the source element of A's (i0, jj) */
        dmxi_opb_coords(op, i0, jj, &si, &sj);
        int64_t so = dmxi_elem_off(sord, sld, si, sj);
        dmxi_kernel_apply_flags(t->dtype, op, t->alpha, t->beta, src + (size_t)so * x->esize, sld,
                                sord, dst + (size_t)dmxi_elem_off(dord, dld, i0, jj) * x->esize,
                                dld, dord, i1 - i0, 1, flags);
    }
}

/* Kernel flags for writes into A: stream them when the plan writes more of A than caches
 * hold (engine_setup.c decides). */
static unsigned a_flags(const dmxi_exec *e)
{
    return e->stream ? DMXI_KERNEL_STREAM : 0u;
}

/* ---- items split over OpenMP threads ---------------------------------------------------- */

/* A range of pieces or local rectangles with at least this many bytes (and two items or more) is
 * split over the OpenMP threads, whole items to each; smaller ones run on the calling thread.
 * One fork and join costs a few microseconds; 64 KiB take 5-10 us to copy on this project's VMs.
 * A single item above the kernel's own threshold is split inside the kernel instead. */
#define PAR_MIN_BYTES ((int64_t)64 * 1024)

/* Threads to use for n items of bytes bytes in all: 1, or omp_get_max_threads() when that is
 * above 1, the range is large enough and no parallel region is active. */
static int par_threads(int64_t n, int64_t bytes)
{
#ifdef _OPENMP
    if (n >= 2 && bytes >= PAR_MIN_BYTES)
        return dmxi_threads();
#endif
    (void)n, (void)bytes;
    return 1;
}

/* Bytes of A (and of op(B)) an item of rows x cols elements of transform t covers. */
static int64_t item_bytes(const dmxi_exec *e, int t, int64_t rows, int64_t cols)
{
    return rows * cols * (int64_t)e->xf[t].esize;
}

/* The end of the run of items from i0 (below i1) that belong to one transform: items of
 * different transforms may write the same A (A = B1 + A, A = B2 + A in one batch), so only
 * items of one transform, which write disjoint parts of A, run side by side. */
static int64_t same_transform_end(const dmxi_piece *v, int64_t i0, int64_t i1)
{
    int64_t k = i0 + 1;
    while (k < i1 && v[k].t == v[i0].t)
        k++;
    return k;
}

/* Pack one piece (see dmxi_exec_pack_pieces). */
static void pack_one(const dmxi_exec *e, const dmxi_piece *pc, char *dst, int64_t base)
{
    static const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    const dmxi_xform *x = &e->xf[pc->t];
    if (is_zero(x->t.alpha))
        return; /* alpha = 0 never reads B; the receiver ignores the bytes */
    if (x->runs) {
        dmxi_exec_pack_run(e, pc, dst + (pc->boff - base));
        return;
    }
    const char *src = dmxi_layout_addr(x->t.b, &pc->mem, x->esize);
    dmxi_kernel_apply(x->t.dtype, x->t.op, one, zero, src, pc->mem.ld, pc->mem.order,
                      dst + (pc->boff - base), pc->rows, DMX_COL_MAJOR, pc->rows, pc->cols);
}

/* Pack pieces [i0, i1) of the send list into dst, where offset base of the package is:
 * op(B) of each piece, transposed and conjugated here, column-major in A's orientation. Pieces
 * go to disjoint places of dst and only read B, so any of them may run side by side. */
void dmxi_exec_pack_pieces(const dmxi_exec *e, int64_t i0, int64_t i1, char *dst, int64_t base)
{
    int64_t bytes = 0;
    for (int64_t i = i0; i < i1 && bytes < PAR_MIN_BYTES; i++)
        bytes += item_bytes(e, e->send[i].t, e->send[i].rows, e->send[i].cols);
    const int nt = par_threads(i1 - i0, bytes);
    if (nt <= 1) {
        for (int64_t i = i0; i < i1; i++)
            pack_one(e, &e->send[i], dst, base);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int64_t i = i0; i < i1; i++)
        pack_one(e, &e->send[i], dst, base);
#endif
}

/* Transform one received piece from src (package offset base) into A. */
static void unpack_one(const dmxi_exec *e, const dmxi_piece *pc, const char *src, int64_t base)
{
    const dmxi_xform *x = &e->xf[pc->t];
    if (x->runs) {
        dmxi_exec_unpack_run(e, pc, src + (pc->boff - base), a_flags(e));
        return;
    }
    const char *s = src + (pc->boff - base);
    char *dst = dmxi_layout_addr(x->t.a, &pc->mem, x->esize);
    int64_t head = 0, tail = 0; /* rows written with the lines shared with local rectangles */
    if (e->join_on) {
        dmxi_exec_join_piece(e, pc, s, &head, &tail);
        s += (size_t)head * x->esize;
        dst += (size_t)head * x->esize; /* A is column-major where lines are joined */
    }
    dmxi_apply(x, DMX_OP_N, s, pc->rows, DMX_COL_MAJOR, dst, pc->mem.ld, pc->mem.order,
               pc->r0 + head, pc->c0, pc->rows - head - tail, pc->cols, a_flags(e));
}

/* Transform pieces [i0, i1) of the receive list from src (package offset base) into A; runs of
 * pieces of one transform large enough go over the threads. */
void dmxi_exec_unpack_pieces(const dmxi_exec *e, int64_t i0, int64_t i1, const char *src,
                             int64_t base)
{
    while (i0 < i1) {
        const int64_t k1 = same_transform_end(e->recv, i0, i1);
        int64_t bytes = 0;
        for (int64_t i = i0; i < k1 && bytes < PAR_MIN_BYTES; i++)
            bytes += item_bytes(e, e->recv[i].t, e->recv[i].rows, e->recv[i].cols);
        const int nt = par_threads(k1 - i0, bytes);
        if (nt <= 1) {
            for (int64_t i = i0; i < k1; i++)
                unpack_one(e, &e->recv[i], src, base);
        } else {
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
            {
#pragma omp for schedule(dynamic, 1)
                for (int64_t i = i0; i < k1; i++)
                    unpack_one(e, &e->recv[i], src, base);
                if (e->stream) /* each thread orders its own non-temporal stores */
                    dmxi_kernel_fence();
            }
#endif
        }
        i0 = k1;
    }
}

static void local_one(const dmxi_exec *e, const dmxi_local *lp)
{
    const dmxi_xform *x = &e->xf[lp->t];
    if (x->runs) {
        dmxi_exec_local_run(e, lp, a_flags(e));
        return;
    }
    const char *src = dmxi_layout_addr(x->t.b, &lp->bmem, x->esize);
    char *dst = dmxi_layout_addr(x->t.a, &lp->amem, x->esize);
    int64_t top = 0, bot = 0; /* rows the neighbouring pieces write (edge_join.c) */
    if (e->join_on && e->ljoin[lp - e->local]) {
        dmxi_exec_join_cuts(e, lp, &top, &bot);
        int64_t si, sj;
        dmxi_opb_coords(x->t.op, top, 0, &si, &sj);
        src += (size_t)dmxi_elem_off(lp->bmem.order, lp->bmem.ld, si, sj) * x->esize;
        dst += (size_t)top * x->esize; /* A is column-major where rows are cut */
    }
    dmxi_apply(x, x->t.op, src, lp->bmem.ld, lp->bmem.order, dst, lp->amem.ld, lp->amem.order,
               lp->r0 + top, lp->c0, lp->rows - top - bot, lp->cols, a_flags(e));
}

/* Apply local rectangles from *next on until about max_bytes have been written (at least
 * one rectangle); with more than one thread about max_bytes per thread, the rectangles of one
 * transform split over them in groups of a few. */
void dmxi_exec_apply_local(const dmxi_exec *e, int64_t *next, int64_t max_bytes)
{
    int nt = 1;
#ifdef _OPENMP
    nt = dmxi_threads();
#endif
    if (nt > 1 && max_bytes < INT64_MAX / nt)
        max_bytes *= nt;
    int64_t bytes = 0;
    while (*next < e->nlocal && bytes < max_bytes) {
        const int64_t i0 = *next, t = e->local[i0].t;
        int64_t i1 = i0, run = 0;
        for (; i1 < e->nlocal && e->local[i1].t == t && bytes + run < max_bytes; i1++)
            run += item_bytes(e, (int)t, e->local[i1].rows, e->local[i1].cols);
        const int use = par_threads(i1 - i0, run);
        if (use <= 1) {
            for (int64_t i = i0; i < i1; i++)
                local_one(e, &e->local[i]);
        } else {
#ifdef _OPENMP
            /* contiguous groups keep neighbouring rectangles (neighbouring lines of A) on one
             * thread; several groups per thread balance a thread that the system delays */
            const int64_t grp = (i1 - i0) / (8 * (int64_t)use) + 1;
#pragma omp parallel num_threads(use)
            {
#pragma omp for schedule(dynamic, 1)
                for (int64_t g = i0; g < i1; g += grp)
                    for (int64_t i = g; i < i1 && i < g + grp; i++)
                        local_one(e, &e->local[i]);
                if (e->stream)
                    dmxi_kernel_fence();
            }
#endif
        }
        bytes += run;
        *next = i1;
    }
}

/* Package offset where chunk c of ring peer q starts in its slot. */
static int64_t chunk_base(const dmxi_piece *v, const dmxi_peer *q, int64_t c)
{
    return v[q->cfirst[c]].boff & ~(int64_t)15;
}

/* The state of the idle turns: when the current run of them began (< 0: none running). */
typedef struct idler {
    double since;
    int64_t yields;
} idler;

/* One idle turn (nothing was ready): poke MPI so it progresses and reports a failed peer, yield
 * the processor, and give up after e->timeout seconds of idle turns in a row. @p what names the
 * wait for the message. */
static dmx_status idle_turn(dmxi_exec *e, idler *w, int poke, const char *what, int64_t left)
{
    dmx_status st = DMX_SUCCESS;
    if (poke) {
        int flag = 0;
        DMXI_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, e->comm, &flag, MPI_STATUS_IGNORE));
    }
    const double now = MPI_Wtime();
    if (w->since < 0)
        w->since = now;
    else if (e->timeout > 0 && now - w->since > e->timeout) {
        e->broken = 1;
        DMXI_CHECK(0, DMX_ERR_MPI,
                   "rank %d: no progress for %.0f s (DMX_TIMEOUT) while waiting for %s (%lld "
                   "left): a peer rank died or did not enter the execution; destroy the plan",
                   e->rank, now - w->since, what, (long long)left);
    }
    sched_yield();
    w->yields++;
cleanup:
    return st;
}

/* CPU time of this thread (under oversubscription wall time would count other ranks' turns). */
static double thread_cpu(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? ts.tv_sec + 1e-9 * ts.tv_nsec : 0.0;
}

/* Phase times of one execution (DMX_PROFILE), in CPU seconds of this thread. */
typedef struct prof {
    int on;
    double pack, local, unpack, idle, t;
    int64_t yields, posts, takes;
} prof;

static void prof_tick(prof *f, double *phase)
{
    if (f->on) {
        double now = thread_cpu();
        *phase += now - f->t;
        f->t = now;
    }
}

/* Before an execution: every peer's progress back to its start; returns the rings to run. */
static int64_t reset_peers(dmxi_exec *e)
{
    int64_t rings = 0;
    for (int i = 0; i < e->nrpeer; i++) {
        dmxi_peer *q = &e->rpeer[i];
        q->pending = q->nchunks;
        q->next = 0;
        rings += q->shm;
    }
    for (int i = 0; i < e->nspeer; i++) {
        e->speer[i].next = 0;
        rings += e->speer[i].shm;
    }
    return rings;
}

/* After an execution: the rings' sequence numbers move past the chunks it used. */
static void advance_rings(dmxi_exec *e)
{
    for (int i = 0; i < e->nspeer; i++)
        e->speer[i].seq += e->speer[i].shm ? e->speer[i].nring : 0;
    for (int i = 0; i < e->nrpeer; i++)
        e->rpeer[i].seq += e->rpeer[i].shm ? e->rpeer[i].nring : 0;
}

#ifdef DMX_SIM_WAIT
#define SIM_NO_POLL 1
/* Simulation builds (-DDMX_SIM_WAIT, scripts/simulate.sh): the receives are completed one by
 * one in the order they were started, each by a blocking MPI_Wait once nothing else is left,
 * never by MPI_Testany or MPI_Waitany. SimGrid 3.32 makes both of those cost the simulator
 * time in proportion to the list they are given: MPI_Waitany tests every request of it before
 * blocking (its observer), so waiting for n receives one MPI_Waitany at a time took n^2 / 2
 * tests per rank, and every test of a finished transfer walks lists of the simulator that grow
 * with the transfers in flight (docs/scale.md, "The simulator's cost"). All receives are
 * started before the first wait and the unpacking takes no simulated time
 * (smpi/simulate-computation:no), so the order of the waits does not change when the last
 * receive ends; only the polls' own simulated cost (smpi/test per MPI_Testany) is gone. The
 * @p left receives still to complete are requests nrreq - left ... nrreq - 1. */
static dmx_status sim_next_recv(dmxi_exec *e, int left, int *idx)
{
    dmx_status st = DMX_SUCCESS;
    *idx = e->nrreq - left;
    DMXI_MPI(MPI_Wait(&e->rreq[*idx], MPI_STATUS_IGNORE));
cleanup:
    return st;
}
#else
#define SIM_NO_POLL 0
#endif

dmx_status dmxi_p2p_execute(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    prof f = {e->profile != 0, 0, 0, 0, 0, 0, 0, 0, 0};
    idler w = {-1.0, 0};
    const double t0 = MPI_Wtime();
    DMXI_CHECK(!e->broken, DMX_ERR_STATE,
               "an earlier execution of this plan gave up (DMX_TIMEOUT); destroy the plan");
    if (f.on)
        f.t = thread_cpu();
    if (e->nrreq > 0)
        DMXI_MPI(MPI_Startall(e->nrreq, e->rreq));
    dmxi_exec_join_begin(e);
    int64_t rings_left = reset_peers(e), next_local = 0;
    int recv_left = e->nrreq;

    /* Messages first, so they fly while everything else happens; start with the first rank
     * above this one. */
    int start = 0;
    while (start < e->nspeer && e->speer[start].rank < e->rank)
        start++;
    for (int i = 0; i < e->nspeer; i++) {
        const dmxi_peer *q = &e->speer[(start + i) % e->nspeer];
        if (q->shm)
            continue;
        dmxi_exec_pack_pieces(e, q->first, q->first + q->count, e->sbuf + q->off, 0);
        DMXI_MPI(MPI_Startall(q->nchunks, e->sreq + q->req0));
    }
    prof_tick(&f, &f.pack);

    while (rings_left > 0 || recv_left > 0 || next_local < e->nlocal) {
        int busy = 0;
        /* One chunk for each node peer whose ring has a free slot. */
        for (int i = 0; i < e->nspeer; i++) {
            dmxi_peer *q = &e->speer[(start + i) % e->nspeer];
            if (!q->shm || q->next == q->nring || !dmxi_ring_can_post(q, q->seq + q->next))
                continue;
            const int64_t c = q->next, g = q->seq + c;
            dmxi_exec_pack_pieces(e, q->cfirst[c], q->cfirst[c + 1], dmxi_ring_slot(q, g),
                                  chunk_base(e->send, q, c));
            dmxi_ring_post(q, g);
            rings_left -= ++q->next == q->nring;
            busy = 1;
            f.posts++;
        }
        prof_tick(&f, &f.pack);
        /* Every chunk node peers have published. */
        for (int i = 0; i < e->nrpeer; i++) {
            dmxi_peer *q = &e->rpeer[i];
            while (q->shm && q->next < q->nring && dmxi_ring_can_take(q, q->seq + q->next)) {
                const int64_t c = q->next, g = q->seq + c;
                dmxi_exec_unpack_pieces(e, q->cfirst[c], q->cfirst[c + 1], dmxi_ring_slot(q, g),
                                        chunk_base(e->recv, q, c));
                dmxi_ring_release(q, g);
                f.takes++;
                rings_left -= ++q->next == q->nring;
                busy = 1;
            }
        }
        /* A message package that has arrived, in whatever order. */
        if (recv_left > 0) {
            int idx = MPI_UNDEFINED, flag = 0;
#ifdef DMX_SIM_WAIT /* simulation builds: no polls, one MPI_Wait at a time (sim_next_recv) */
            (void)flag;
            if (rings_left == 0 && next_local >= e->nlocal)
                DMXI_TRY(sim_next_recv(e, recv_left, &idx));
#else
            DMXI_MPI(MPI_Testany(e->nrreq, e->rreq, &idx, &flag, MPI_STATUS_IGNORE));
#endif
            if (idx != MPI_UNDEFINED) {
                dmxi_peer *q = &e->rpeer[e->rreq_peer[idx]];
                recv_left--;
                if (--q->pending == 0)
                    dmxi_exec_unpack_pieces(e, q->first, q->first + q->count, e->rbuf + q->off, 0);
                busy = 1;
            }
        }
        prof_tick(&f, &f.unpack);
        if (!busy && next_local < e->nlocal) {
            /* a slice between looks at the peers; all that is left when none is expected
             * (simulation builds look at them only when nothing else is left: no polls) */
            dmxi_exec_apply_local(e, &next_local,
                                  rings_left > 0 || recv_left > 0 ? e->chunk_bytes : INT64_MAX);
            busy = 1;
            prof_tick(&f, &f.local);
        }
        if (busy) {
            w.since = -1.0;
        } else {
            /* the Testany above already called MPI when receives are left */
            DMXI_TRY(idle_turn(e, &w, recv_left == 0 || SIM_NO_POLL,
                               recv_left > 0 ? "messages" : "ring chunks",
                               recv_left > 0 ? recv_left : rings_left));
            prof_tick(&f, &f.idle);
        }
    }
    advance_rings(e);
    if (e->stream)
        dmxi_kernel_fence();
    w.since = -1.0;
#ifdef DMX_SIM_WAIT
    DMXI_MPI(dmxi_waitall(e->nsreq, e->sreq));
#endif
    for (int sent = e->nsreq == 0; !sent;) {
        DMXI_MPI(dmxi_testall(e->nsreq, e->sreq, &sent));
        if (!sent)
            DMXI_TRY(idle_turn(e, &w, 0, "sends to complete", e->nsreq));
    }
    f.yields = w.yields;
    if (f.on)
        fprintf(stderr,
                "dmx profile rank %d: CPU ms pack %.2f, local %.2f, unpack %.2f, idle %.2f (%lld "
                "yields); ring chunks out %lld, in %lld; wall %.2f ms\n",
                e->rank, 1e3 * f.pack, 1e3 * f.local, 1e3 * f.unpack, 1e3 * f.idle,
                (long long)f.yields, (long long)f.posts, (long long)f.takes,
                1e3 * (MPI_Wtime() - t0));
cleanup:
    return st;
}
