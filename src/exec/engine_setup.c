/* SPDX-License-Identifier: BSD-3-Clause */
/* Setup and release of the point-to-point engine (dmxi_exec_p2p): which peers go through the
 * node's shared window (shm.c), the message chunks, buffers and persistent requests of the
 * others, and whether A's writes stream past the caches.
 *
 * Cost (collective, once per plan): the shared-window setup of shm.c (a few small allreduces
 * and one integer to each node peer; the node split and the window are kept on the plan's
 * communicator for the next plan, so only the first plans, and plans that outgrow the kept
 * window, make them) plus one agreement;
 * then one MPI_Send_init / MPI_Recv_init per message chunk, O(pieces + peers) local work.
 * Memory: a send and a receive buffer as large as what this rank exchanges with peers on other
 * nodes (each package 16-byte aligned), one request per message chunk, and the rings of shm.c;
 * the total is reported in e->buffer_bytes.
 */
#include "engine.h"

void dmxi_exec_init(dmxi_exec *e)
{
    *e = (dmxi_exec){0};
    e->comm = e->node = MPI_COMM_NULL;
    e->win = MPI_WIN_NULL;
}

dmx_status dmxi_exec_free(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    if (e->ops)
        st = e->ops->free(e);
    free(e->send);
    free(e->recv);
    free(e->local);
    free(e->rjoin);
    free(e->ljoin);
    e->rjoin = NULL;
    e->ljoin = NULL;
    free(e->seg);
    free(e->speer);
    free(e->rpeer);
    e->send = e->recv = NULL;
    e->local = NULL;
    e->seg = NULL;
    e->speer = e->rpeer = NULL;
    e->ops = NULL;
    return st;
}

/* Persistent requests for the chunks of peer q's message (peer index pi); *n counts the
 * requests of that direction. */
static dmx_status init_chunks(dmxi_exec *e, const dmxi_peer *q, int pi, int is_send, int64_t *n)
{
    dmx_status st = DMX_SUCCESS;
    for (int c = 0; c < q->nchunks; c++) {
        int64_t o = (int64_t)c * e->max_msg;
        int len;
        DMXI_TRY(dmxi_to_int(q->bytes - o < e->max_msg ? q->bytes - o : e->max_msg, &len,
                             "message chunk bytes"));
        if (is_send) {
            DMXI_MPI(MPI_Send_init(e->sbuf + q->off + o, len, MPI_BYTE, q->rank, DMXI_TAG_DATA,
                                   e->comm, &e->sreq[(*n)++]));
        } else {
            e->rreq_peer[*n] = pi;
            DMXI_MPI(MPI_Recv_init(e->rbuf + q->off + o, len, MPI_BYTE, q->rank, DMXI_TAG_DATA,
                                   e->comm, &e->rreq[(*n)++]));
        }
    }
cleanup:
    return st;
}

/* The number of MPI messages of each peer's package (at most max_msg bytes each). */
static dmx_status count_chunks(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    for (int side = 0; side < 2; side++) {
        dmxi_peer *pv = side ? e->rpeer : e->speer;
        const int np = side ? e->nrpeer : e->nspeer;
        for (int i = 0; i < np; i++) {
            const int64_t b = pv[i].bytes;
            int64_t nch = b == 0 ? 1 : (b - 1) / e->max_msg + 1;
            DMXI_TRY(dmxi_to_int(nch, &pv[i].nchunks, "message chunks"));
        }
    }
cleanup:
    return st;
}

/* Buffers and persistent requests for the peers reached by messages: their chunks on both
 * sides. Peers on this node use the rings of the shared window (placed by dmxi_shm_setup) and
 * need no request. */
static dmx_status setup_requests(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    int64_t ns = 0, nr = 0;
    DMXI_TRY(count_chunks(e));
    for (int i = 0; i < e->nspeer; i++) {
        dmxi_peer *q = &e->speer[i];
        if (q->shm)
            continue;
        q->off = e->sbytes;
        DMXI_TRY(dmxi_add64(e->sbytes, (q->bytes + 15) & ~(int64_t)15, &e->sbytes));
        ns += q->nchunks;
    }
    for (int i = 0; i < e->nrpeer; i++) {
        dmxi_peer *q = &e->rpeer[i];
        if (q->shm)
            continue;
        q->off = e->rbytes;
        DMXI_TRY(dmxi_add64(e->rbytes, (q->bytes + 15) & ~(int64_t)15, &e->rbytes));
        nr += q->nchunks;
    }
    DMXI_TRY(dmxi_to_int(ns, &e->nsreq, "number of requests"));
    DMXI_TRY(dmxi_to_int(nr, &e->nrreq, "number of requests"));
    e->sbuf = dmxi_malloc(e->sbytes, 1);
    e->rbuf = dmxi_malloc(e->rbytes, 1);
    e->sreq = dmxi_malloc(e->nsreq, sizeof(MPI_Request));
    e->rreq = dmxi_malloc(e->nrreq, sizeof(MPI_Request));
    e->rreq_peer = dmxi_malloc(e->nrreq, sizeof(int));
    DMXI_CHECK(e->sbuf && e->rbuf && e->sreq && e->rreq && e->rreq_peer, DMX_ERR_ALLOC,
               "out of memory for %lld + %lld buffer bytes", (long long)e->sbytes,
               (long long)e->rbytes);
    for (int i = 0; i < e->nsreq; i++)
        e->sreq[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < e->nrreq; i++)
        e->rreq[i] = MPI_REQUEST_NULL;
    ns = nr = 0;
    for (int i = 0; i < e->nspeer; i++) {
        dmxi_peer *q = &e->speer[i];
        q->req0 = ns;
        if (!q->shm)
            DMXI_TRY(init_chunks(e, q, i, 1, &ns));
    }
    for (int i = 0; i < e->nrpeer; i++) {
        dmxi_peer *q = &e->rpeer[i];
        q->req0 = nr;
        if (!q->shm)
            DMXI_TRY(init_chunks(e, q, i, 0, &nr));
    }
cleanup:
    return st;
}

/* A's bytes this rank writes per execution decide whether they are streamed past the caches:
 * above what the caches would keep anyway (DMX_STREAM=0/1 forces either way). */
int dmxi_exec_decide_stream(const dmxi_exec *e)
{
    int64_t abytes = 0;
    for (int64_t i = 0; i < e->nrecv; i++)
        abytes += e->recv[i].rows * e->recv[i].cols * (int64_t)e->xf[e->recv[i].t].esize;
    for (int64_t i = 0; i < e->nlocal; i++)
        abytes += e->local[i].rows * e->local[i].cols * (int64_t)e->xf[e->local[i].t].esize;
    const int64_t want = dmxi_setting_int(DMXI_SET_STREAM);
    return want >= 0 ? want != 0 : abytes >= DMXI_STREAM_MIN_BYTES;
}

dmx_status dmxi_p2p_setup(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    e->profile = dmxi_setting_int(DMXI_SET_PROFILE) != 0;
    e->timeout = (double)dmxi_setting_int(DMXI_SET_TIMEOUT);
    e->broken = 0;
    DMXI_TRY(dmxi_shm_setup(e));
    DMXI_TRY(dmxi_agree(e->comm, setup_requests(e)));
    e->stream = dmxi_exec_decide_stream(e);
    DMXI_TRY(dmxi_exec_order_local(e));
    DMXI_TRY(dmxi_exec_join_edges(e));
    e->buffer_bytes = e->sbytes + e->rbytes + e->shm_bytes;
    e->npeers_shm = 0;
    for (int i = 0; i < e->nrpeer; i++)
        e->npeers_shm += e->rpeer[i].shm;
cleanup:
    return st;
}

dmx_status dmxi_exec_free_requests(dmxi_exec *e, int cancel_recv)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; e->rreq && i < e->nrreq; i++)
        if (e->rreq[i] != MPI_REQUEST_NULL) {
            int r = cancel_recv ? MPI_Cancel(&e->rreq[i]) : MPI_SUCCESS;
            rc = rc == MPI_SUCCESS ? r : rc;
            r = MPI_Request_free(&e->rreq[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    for (int i = 0; e->sreq && i < e->nsreq; i++)
        if (e->sreq[i] != MPI_REQUEST_NULL) {
            int r = MPI_Request_free(&e->sreq[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    return rc == MPI_SUCCESS ? DMX_SUCCESS
                             : dmxi_mpi_error(rc, "MPI_Request_free", __FILE__, __LINE__);
}

dmx_status dmxi_p2p_free(dmxi_exec *e)
{
    /* Free everything even after a failure; report the first one. */
    dmx_status st = dmxi_exec_free_requests(e, 0);
    dmx_status st2 = dmxi_shm_free(e);
    st = st == DMX_SUCCESS ? st2 : st;
    free(e->sbuf);
    free(e->rbuf);
    free(e->sreq);
    free(e->rreq);
    free(e->rreq_peer);
    free(e->cfirst);
    e->sbuf = e->rbuf = NULL;
    e->sreq = e->rreq = NULL;
    e->rreq_peer = NULL;
    e->cfirst = NULL;
    e->nsreq = e->nrreq = 0;
    return st;
}

const dmxi_exec_ops dmxi_exec_p2p = {"p2p", dmxi_p2p_setup, dmxi_p2p_execute, dmxi_p2p_free};
