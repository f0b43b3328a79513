/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse data exchange, the parts every protocol shares: public entry points and dispatch,
 * argument checks and the cached communicator duplicate (result objects and the send and
 * receive helpers: exchange_result.c). The protocols themselves are in exchange_{nbx,pex,pcx,rsx}.c
 * and AUTO's rule and the protocol names in exchange_select.c.
 *
 * Rounds and tags
 * ---------------
 * All payload messages of one exchange carry one tag, and the receivers of NBX, PCX and RSX
 * match MPI_ANY_SOURCE with that tag. A rank that has finished round r may start round r+1 and
 * send its payloads while a slower rank is still probing for round r; with a single tag the
 * slow rank would take a round r+1 message for one of its own. So round r uses the tag
 * DMXI_XCHG_TAG_BASE + (r mod 2), with r counted on the cached duplicate (every rank counts
 * the same rounds because exchanges are collective).
 *
 * Two tags suffice because no rank can get two rounds ahead of another. A rank completes round
 * r+1 only after a step that needs every rank to have started round r+1: the all-to-all (PEX),
 * the reduce-scatter (PCX), the closing fence (RSX: it must hear from every rank that could
 * have targeted it), the consensus (NBX), or AUTO's allreduce (with DMX_EXCHANGE set); and a rank
 * enters that step only in round r+1's begin, after its end of round r. So while any rank is still
 * in round r, no message of round r+2 exists, and those of round r+1 carry the other tag. Every
 * message of round r is received before round r ends on its receiver (PEX posts exact receives, PCX
 * and RSX count, NBX's consensus completes only once every synchronous send has been matched), so
 * none is left behind to be confused with round r+2, which reuses the tag.
 *
 * Errors
 * ------
 * A rank whose entries are invalid still takes part in the protocol, sending no payloads, and
 * marks its metadata: PEX sends -status as its message count to every rank, NBX's consensus is
 * an allreduce (MAX) of the status, PCX and RSX add DMXI_XCHG_POISON to every rank's count and
 * then agree on the status with one more allreduce, on that path only. Every rank drains what
 * was sent to it, so all ranks return the same status and no message is left behind. */
#define _POSIX_C_SOURCE 200809L /* sched_yield */

#include "exchange.h"

#include "comm.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* The cached duplicate                                                                         */
/* ------------------------------------------------------------------------------------------ */

struct dmxi_xcomm {
    MPI_Comm dup;         /* private duplicate, MPI_ERRORS_RETURN */
    unsigned long round;  /* exchanges started on it, for the tag parity */
    int busy;             /* an exchange is between begin and end */
    MPI_Win win;          /* RSX counter window, created by the first RSX */
    int64_t *win_counter; /* this rank's counter in win */
    int nodes;            /* nodes the communicator spans, for AUTO (dmxi_exchange_select) */
};

/* Detach (core/comm.c): the user frees the communicator (collectively), or MPI_Finalize; so
 * freeing the window and the duplicate here is collective too. The memory goes at release. */
static int xcomm_detach(void *state)
{
    dmxi_xcomm *c = state;
    int rc = MPI_SUCCESS;
    if (c->win != MPI_WIN_NULL) {
        int r = MPI_Win_free(&c->win);
        if (r != MPI_SUCCESS)
            rc = r;
    }
    if (c->dup != MPI_COMM_NULL) {
        int r = MPI_Comm_free(&c->dup);
        if (r != MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

static const dmxi_slot_type xcomm_type = {xcomm_detach, NULL};

/* The cache of @p comm, kept in its record (core/comm.c), created on the first exchange on it:
 * a duplicate of the record's inner one (collective), so that an exchange in flight (whose
 * nonblocking consensus may start at different times on different ranks) never shares a
 * context with the collectives dmx runs on the inner duplicate. */
static dmx_status xcomm_get(MPI_Comm comm, dmxi_xcomm **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_xcomm *c = NULL;
    dmxi_comm *rec = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    if ((*out = dmxi_comm_slot(rec, DMXI_SLOT_EXCHANGE)) != NULL)
        goto cleanup;
    c = calloc(1, sizeof *c);
    DMXI_CHECK(c != NULL, DMX_ERR_ALLOC, "out of memory (communicator cache)");
    c->dup = MPI_COMM_NULL;
    c->win = MPI_WIN_NULL;
    DMXI_TRY(dmxi_comm_dup(rec, &c->dup));
    DMXI_TRY(dmxi_comm_nodes(rec, &c->nodes)); /* collective here, as the duplicate; kept */
    DMXI_TRY(dmxi_comm_set_slot(rec, DMXI_SLOT_EXCHANGE, &xcomm_type, c));
    *out = c;
    c = NULL;
cleanup:
    if (c) {
        if (c->dup != MPI_COMM_NULL)
            DMXI_MPI_ALL(MPI_Comm_free(&c->dup));
        free(c);
    }
    return st;
}

/* A window holding one int64_t counter per rank, for RSX. Collective on comm.
 *
 * The window is 4096 bytes, not 8: MPICH 4.0.2 misdelivers accumulates into an 8-byte window
 * made by MPI_Win_allocate (two ranks' counters read (2,0) instead of (1,1)); a page-sized one is
 * correct. (MPI_Win_create instead fails on Open MPI 4.1 for one-rank communicators and has the
 * same split-communicator bug there as MPI_Win_allocate: see dmxi_xchg_rma_unsafe.) */
static dmx_status make_window(MPI_Comm comm, MPI_Win *win, int64_t **counter)
{
    static const char *const hints[] = {"no_locks", "true", "accumulate_ops", "same_op"};
    dmx_status st = DMX_SUCCESS;
    /* A failure to make the hints is kept in st: the window is still made, as on the other
     * ranks, and the caller reports the failure through the exchange (rsx_start). */
    MPI_Info info = dmxi_info_hints(&st, hints, 2);
    const dmx_status hint_st = st;
    st = DMX_SUCCESS;
    DMXI_MPI(MPI_Win_allocate((MPI_Aint)4096, (int)sizeof(int64_t), info, comm, counter, win));
    DMXI_MPI(MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN));
cleanup:
    if (info != MPI_INFO_NULL)
        DMXI_MPI_ALL(MPI_Info_free(&info));
    return st != DMX_SUCCESS ? st : hint_st;
}

int dmxi_xchg_rma_unsafe(void)
{
    static int known = -1;
    if (known < 0) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
        int len = 0, major = 0;
        known = 0;
        if (MPI_Get_library_version(v, &len) == MPI_SUCCESS) {
            const char *p = strstr(v, "Open MPI v");
            if (p && sscanf(p + strlen("Open MPI v"), "%d", &major) == 1 && major < 5)
                known = 1;
        }
    }
    return known;
}

dmx_status dmxi_xchg_cached_window(dmx_exchange_request *r, MPI_Win *win, int64_t **counter)
{
    dmx_status st = DMX_SUCCESS;
    if (r->cache) {
        if (r->cache->win == MPI_WIN_NULL)
            st = make_window(r->comm, &r->cache->win, &r->cache->win_counter);
        *win = r->cache->win;
        *counter = r->cache->win_counter;
    } else {
        st = make_window(r->comm, win, counter);
        r->own_win = 1;
    }
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Begin, test, end                                                                             */
/* ------------------------------------------------------------------------------------------ */

static const dmxi_xops *ops_of(dmx_exchange_protocol p)
{
    switch (p) {
    case DMX_EXCHANGE_NBX: return &dmxi_exchange_nbx;
    case DMX_EXCHANGE_PEX: return &dmxi_exchange_pex;
    case DMX_EXCHANGE_PCX: return &dmxi_exchange_pcx;
    case DMX_EXCHANGE_RSX: return &dmxi_exchange_rsx;
    case DMX_EXCHANGE_AUTO: break;
    }
    return NULL;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void request_free(dmx_exchange_request *r)
{
    if (!r)
        return;
    free(r->sends);
    free(r->sreq);
    free(r->dests);
    free(r->dcount);
    free(r->meta_out);
    free(r->meta_in);
    free(r->rreq);
    free(r->multi_src);
    free(r->multi_left);
    dmxi_xchg_result_free(r->res);
    free(r);
}

/* Check this rank's entries, copy those to other ranks (and their distinct destinations) into
 * the request and the payloads to self into the result. Returns the local verdict; on failure
 * nothing is left to send. */
static dmx_status take_entries(dmx_exchange_request *r, int64_t nsend,
                               const dmx_exchange_send *sends)
{
    dmx_status st = DMX_SUCCESS;
    int64_t nother = 0, nself = 0, self_bytes = 0;
    int n = 0;
    DMXI_CHECK(nsend >= 0, DMX_ERR_ARG, "nsend = %lld is negative", (long long)nsend);
    DMXI_CHECK(nsend == 0 || sends != NULL, DMX_ERR_NULL, "sends is NULL but nsend = %lld",
               (long long)nsend);
    for (int64_t i = 0; i < nsend; i++) {
        const dmx_exchange_send *s = &sends[i];
        DMXI_CHECK(s->dest >= 0 && s->dest < r->size, DMX_ERR_ARG,
                   "sends[%lld].dest = %d is not a rank of the communicator (size %d)",
                   (long long)i, s->dest, r->size);
        DMXI_CHECK(s->bytes >= 0, DMX_ERR_ARG, "sends[%lld].bytes = %lld is negative", (long long)i,
                   (long long)s->bytes);
        DMXI_CHECK(s->bytes <= INT_MAX, DMX_ERR_OVERFLOW,
                   "sends[%lld].bytes = %lld exceeds INT_MAX: one payload must fit an MPI count",
                   (long long)i, (long long)s->bytes);
        DMXI_CHECK(s->bytes == 0 || s->data != NULL, DMX_ERR_NULL,
                   "sends[%lld].data is NULL with %lld bytes", (long long)i, (long long)s->bytes);
        if (s->dest == r->rank) {
            nself++;
            self_bytes += s->bytes;
        } else {
            nother++;
        }
    }
    DMXI_TRY(dmxi_to_int(nother, &n, "number of payloads to other ranks"));
    r->sends = dmxi_malloc(n, sizeof *r->sends);
    r->sreq = dmxi_malloc(n, sizeof *r->sreq);
    r->dests = dmxi_malloc(n, sizeof *r->dests);
    r->dcount = dmxi_malloc(n, sizeof *r->dcount);
    DMXI_CHECK(r->sends && r->sreq && r->dests && r->dcount, DMX_ERR_ALLOC,
               "out of memory (%d send descriptors)", n);
    dmxi_xchg_temp(r, (int64_t)n * (int64_t)(sizeof *r->sends + sizeof *r->sreq + sizeof *r->dests +
                                             sizeof *r->dcount));
    int j = 0;
    for (int64_t i = 0; i < nsend; i++) {
        if (sends[i].dest == r->rank)
            continue;
        r->sends[j].dest = sends[i].dest;
        r->sends[j].bytes = (int)sends[i].bytes;
        r->sends[j].data = sends[i].data;
        r->sreq[j] = MPI_REQUEST_NULL;
        r->dests[j] = sends[i].dest;
        j++;
    }
    /* distinct destinations, ascending, with the number of entries to each */
    qsort(r->dests, (size_t)n, sizeof *r->dests, int_cmp);
    int nd = 0;
    for (int i = 0; i < n; i++) {
        if (nd > 0 && r->dests[nd - 1] == r->dests[i]) {
            r->dcount[nd - 1]++;
        } else {
            r->dests[nd] = r->dests[i];
            r->dcount[nd++] = 1;
        }
    }
    DMXI_TRY(dmxi_xchg_reserve(r, nself, self_bytes));
    for (int64_t i = 0; i < nsend; i++) {
        if (sends[i].dest != r->rank)
            continue;
        void *dst = dmxi_xchg_push(r, r->rank, sends[i].bytes);
        if (sends[i].bytes > 0)
            memcpy(dst, sends[i].data, (size_t)sends[i].bytes);
    }
    r->nsend = n;
    r->ndest = nd;
cleanup:
    if (st != DMX_SUCCESS) {
        r->nsend = 0;
        r->ndest = 0;
        r->res->n = 0;
        r->res->used = 0;
    }
    return st;
}

/* AUTO. With DMX_EXCHANGE unset the choice depends on the communicator's size alone, local and
 * free (a rank's invalid entries then travel with the chosen protocol's metadata). With it set,
 * one allreduce agrees on (worst local status, DMX_EXCHANGE, checked to be the same everywhere);
 * on an agreed failure the request is complete already. */
static dmx_status choose_auto(dmx_exchange_request *r, dmx_exchange_protocol *protocol)
{
    dmx_status st = DMX_SUCCESS;
    int env = dmxi_exchange_env_code();
    if (env == 0) {
        /* the planner's own exchanges (no cache) keep the one-node rule */
        *protocol = dmxi_exchange_select(r->size, r->cache ? r->cache->nodes : 1);
        goto cleanup;
    }
    int in[3] = {(int)r->local, env, -env}, out[3];
    MPI_Request ar = MPI_REQUEST_NULL;
#ifdef DMX_SIM_WAIT /* simulation builds (src/core/wait.c): SMPI's MPI_Iallreduce is p^2 sends */
    (void)ar;
    DMXI_MPI(MPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, r->comm));
#else
    DMXI_MPI(MPI_Iallreduce(in, out, 3, MPI_INT, MPI_MAX, r->comm, &ar));
    for (int flag = 0; !flag;) { /* test and yield: MPICH's blocking calls spin */
        DMXI_MPI(MPI_Test(&ar, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            sched_yield();
    }
#endif
    r->res->info.coll_messages += dmxi_xchg_log2(r->size);
    if (out[0] != DMX_SUCCESS) {
        r->agreed = (dmx_status)out[0];
        r->done = 1;
    } else if (out[1] != -out[2] || out[1] > DMX_EXCHANGE_RSX) {
        r->agreed = r->local = DMX_ERR_ARG;
        r->done = 1;
        dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__,
                   "DMX_EXCHANGE must be one of auto, nbx, pex, pcx, rsx and the same on every "
                   "rank (this rank has \"%s\")",
                   dmxi_setting_str(DMXI_SET_EXCHANGE) ? dmxi_setting_str(DMXI_SET_EXCHANGE) : "");
    } else {
        *protocol = (dmx_exchange_protocol)out[1];
    }
cleanup:
    return st;
}

/* Start an exchange on @p comm (a private duplicate) with @p tag. */
static dmx_status begin_on(MPI_Comm comm, int tag, dmxi_xcomm *cache,
                           dmx_exchange_protocol protocol, int64_t nsend,
                           const dmx_exchange_send *sends, dmx_exchange_request **request)
{
    dmx_status st = DMX_SUCCESS;
    dmx_exchange_request *r = calloc(1, sizeof *r);
    DMXI_CHECK(r != NULL, DMX_ERR_ALLOC, "out of memory (exchange request)");
    r->comm = comm;
    r->tag = tag;
    r->cache = cache;
    r->coll = MPI_REQUEST_NULL;
    r->win = MPI_WIN_NULL;
    r->res = calloc(1, sizeof *r->res);
    DMXI_CHECK(r->res != NULL, DMX_ERR_ALLOC, "out of memory (exchange result)");
    DMXI_MPI(MPI_Comm_rank(comm, &r->rank));
    DMXI_MPI(MPI_Comm_size(comm, &r->size));
    r->local = take_entries(r, nsend, sends);
    if (protocol == DMX_EXCHANGE_AUTO)
        DMXI_TRY(choose_auto(r, &protocol));
    r->res->info.protocol = protocol;
    if (!r->done) {
        r->ops = ops_of(protocol);
        DMXI_TRY(r->ops->start(r));
    }
    *request = r;
    r = NULL;
cleanup:
    request_free(r);
    return st;
}

static dmx_status check_comm(MPI_Comm comm)
{
    dmx_status st = DMX_SUCCESS;
    int init = 0, fin = 0, inter = 0;
    DMXI_MPI(MPI_Initialized(&init));
    DMXI_MPI(MPI_Finalized(&fin));
    DMXI_CHECK(init && !fin, DMX_ERR_STATE, "MPI is not initialized or already finalized");
    DMXI_CHECK(comm != MPI_COMM_NULL, DMX_ERR_ARG, "communicator is MPI_COMM_NULL");
    DMXI_MPI(MPI_Comm_test_inter(comm, &inter));
    DMXI_CHECK(!inter, DMX_ERR_UNSUPPORTED, "exchanges on inter-communicators are not supported");
cleanup:
    return st;
}

static int protocol_valid(dmx_exchange_protocol p)
{
    return (int)p >= DMX_EXCHANGE_AUTO && (int)p <= DMX_EXCHANGE_RSX;
}

dmx_status dmx_exchange_begin(MPI_Comm comm, dmx_exchange_protocol protocol, int64_t nsend,
                              const dmx_exchange_send *sends, dmx_exchange_request **request)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_xcomm *c = NULL;
    DMXI_CHECK(request != NULL, DMX_ERR_NULL, "request is NULL");
    *request = NULL;
    DMXI_CHECK(protocol_valid(protocol), DMX_ERR_ARG, "invalid exchange protocol %d",
               (int)protocol);
    DMXI_TRY(check_comm(comm));
    DMXI_TRY(xcomm_get(comm, &c));
    DMXI_CHECK(!c->busy, DMX_ERR_STATE,
               "an exchange on this communicator is in flight: call dmx_exchange_end() first");
    /* count the round before anything can fail, so the tag parity stays in step on all ranks */
    int tag = DMXI_XCHG_TAG_BASE + (int)(c->round & 1);
    c->round++;
    DMXI_TRY(begin_on(c->dup, tag, c, protocol, nsend, sends, request));
    c->busy = 1;
cleanup:
    return st;
}

dmx_status dmxi_exchange_begin(MPI_Comm comm, int tag, dmx_exchange_protocol protocol,
                               int64_t nsend, const dmx_exchange_send *sends,
                               dmx_exchange_request **request)
{
    dmx_status st = DMX_SUCCESS;
    void *ub = NULL;
    int flag = 0;
    DMXI_CHECK(request != NULL, DMX_ERR_NULL, "request is NULL");
    *request = NULL;
    DMXI_CHECK(protocol_valid(protocol), DMX_ERR_ARG, "invalid exchange protocol %d",
               (int)protocol);
    DMXI_TRY(check_comm(comm));
    DMXI_MPI(MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag));
    DMXI_CHECK(tag >= 0 && (!flag || tag <= *(int *)ub), DMX_ERR_ARG, "invalid tag %d", tag);
    DMXI_TRY(begin_on(comm, tag, NULL, protocol, nsend, sends, request));
cleanup:
    return st;
}

dmx_status dmx_exchange_test(dmx_exchange_request *request, int *done)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(request != NULL && done != NULL, DMX_ERR_NULL, "request or done is NULL");
    *done = 0;
    DMXI_CHECK(request->fatal == DMX_SUCCESS, DMX_ERR_STATE,
               "this exchange failed earlier (%s); call dmx_exchange_end()",
               dmx_status_string(request->fatal));
    if (!request->done) {
        int d = 0;
        st = request->ops->progress(request, &d);
        if (st != DMX_SUCCESS) {
            request->fatal = st;
            goto cleanup;
        }
        request->done = d;
    }
    *done = request->done;
cleanup:
    return st;
}

dmx_status dmx_exchange_end(dmx_exchange_request **request, dmx_exchange_result **result)
{
    dmx_status st = DMX_SUCCESS;
    dmx_exchange_request *r = NULL;
    DMXI_CHECK(request != NULL && *request != NULL, DMX_ERR_NULL, "request is NULL");
    r = *request;
    *request = NULL;
    if (result)
        *result = NULL;
    DMXI_CHECK(r->fatal == DMX_SUCCESS, r->fatal, "this exchange failed earlier (%s)",
               dmx_status_string(r->fatal));
    while (!r->done) {
        int d = 0;
        DMXI_TRY(r->ops->progress(r, &d));
        r->done = d;
        if (!d)
            sched_yield(); /* ranks may outnumber cores, and MPICH's progress does not yield */
    }
    if (r->agreed != DMX_SUCCESS) {
        st = r->agreed;
        if (r->local == DMX_SUCCESS)
            dmxi_error(st, __FILE__, __LINE__,
                       "another rank failed with %s (see its error message)",
                       dmx_status_string(st));
        goto cleanup;
    }
    if (r->poisoned) {
        st = dmxi_agree(r->comm, r->local);
        r->res->info.coll_messages += dmxi_xchg_log2(r->size);
        if (st == DMX_SUCCESS)
            st = dmxi_error(DMX_ERR_INTERNAL, __FILE__, __LINE__,
                            "exchange marked failed but no rank reported an error");
        goto cleanup;
    }
    DMXI_TRY(r->local);
    DMXI_CHECK(result != NULL, DMX_ERR_NULL, "result is NULL (the exchange completed)");
    dmx_exchange_result *res = r->res;
    int sorted = 1;
    for (int64_t i = 1; i < res->n && sorted; i++)
        sorted = dmxi_xchg_entry_cmp(&res->entries[i - 1], &res->entries[i]) < 0;
    if (!sorted)
        qsort(res->entries, (size_t)res->n, sizeof *res->entries, dmxi_xchg_entry_cmp);
    res->info.nrecv = res->n;
    res->info.recv_bytes = 0;
    for (int64_t i = 0; i < res->n; i++)
        res->info.recv_bytes += res->entries[i].bytes;
    *result = res;
    r->res = NULL;
cleanup:
    if (r) {
        if (r->own_win && r->win != MPI_WIN_NULL) {
            int rc = MPI_Win_free(&r->win);
            if (rc != MPI_SUCCESS && st == DMX_SUCCESS)
                st = dmxi_mpi_error(rc, "MPI_Win_free", __FILE__, __LINE__);
        }
        if (r->cache)
            r->cache->busy = 0;
        request_free(r);
    }
    if (st != DMX_SUCCESS && result && *result) {
        dmxi_xchg_result_free(*result);
        *result = NULL;
    }
    return st;
}

dmx_status dmx_exchange(MPI_Comm comm, dmx_exchange_protocol protocol, int64_t nsend,
                        const dmx_exchange_send *sends, dmx_exchange_result **result)
{
    dmx_status st = DMX_SUCCESS;
    dmx_exchange_request *r = NULL;
    DMXI_CHECK(result != NULL, DMX_ERR_NULL, "result is NULL");
    *result = NULL;
    DMXI_TRY(dmx_exchange_begin(comm, protocol, nsend, sends, &r));
    DMXI_TRY(dmx_exchange_end(&r, result));
cleanup:
    return st;
}

dmx_status dmxi_exchange(MPI_Comm comm, int tag, dmx_exchange_protocol protocol, int64_t nsend,
                         const dmx_exchange_send *sends, dmx_exchange_result **result)
{
    dmx_status st = DMX_SUCCESS;
    dmx_exchange_request *r = NULL;
    DMXI_CHECK(result != NULL, DMX_ERR_NULL, "result is NULL");
    *result = NULL;
    DMXI_TRY(dmxi_exchange_begin(comm, tag, protocol, nsend, sends, &r));
    DMXI_TRY(dmx_exchange_end(&r, result));
cleanup:
    return st;
}
