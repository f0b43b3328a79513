/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse data exchange: the result object (entries in an aligned arena, the public getters)
 * and the send, census and receive helpers every protocol shares. The entry points that use
 * them are in exchange_common.c.
 * Memory: a result holds its entries (32 bytes each) and one arena with every payload, each
 * padded to DMXI_XCHG_ALIGN; both grow geometrically (dmxi_xchg_reserve). */
#include "exchange.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Results                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static int64_t align_up(int64_t x)
{
    return (x + DMXI_XCHG_ALIGN - 1) / DMXI_XCHG_ALIGN * DMXI_XCHG_ALIGN;
}

dmx_status dmxi_xchg_reserve(dmx_exchange_request *r, int64_t nentries, int64_t bytes)
{
    dmx_status st = DMX_SUCCESS;
    dmx_exchange_result *res = r->res;
    int64_t need_e = 0, pad = 0, need_b = 0;
    if (nentries == 0)
        goto cleanup;
    DMXI_TRY(dmxi_add64(res->n, nentries, &need_e));
    DMXI_TRY(dmxi_mul64(nentries, DMXI_XCHG_ALIGN, &pad));
    DMXI_TRY(dmxi_add64(res->used, pad, &need_b));
    DMXI_TRY(dmxi_add64(need_b, bytes, &need_b));
    DMXI_TRY(dmxi_reserve((void **)&res->entries, &res->cap, need_e, sizeof *res->entries));
    DMXI_TRY(dmxi_reserve((void **)&res->arena, &res->arena_cap, need_b, 1));
cleanup:
    return st;
}

void *dmxi_xchg_push(dmx_exchange_request *r, int source, int64_t bytes)
{
    dmx_exchange_result *res = r->res;
    int64_t off = align_up(res->used);
    dmxi_xentry *e = &res->entries[res->n++];
    e->source = source;
    e->seq = r->seq++;
    e->offset = off;
    e->bytes = bytes;
    res->used = off + bytes;
    return res->arena + off;
}

int dmxi_xchg_entry_cmp(const void *a, const void *b)
{
    const dmxi_xentry *x = a, *y = b;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

dmx_status dmx_exchange_result_get_count(const dmx_exchange_result *result, int64_t *count)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(result != NULL && count != NULL, DMX_ERR_NULL, "result or count is NULL");
    *count = result->n;
cleanup:
    return st;
}

dmx_status dmx_exchange_result_get(const dmx_exchange_result *result, int64_t i, int *source,
                                   const void **data, int64_t *bytes)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(result != NULL, DMX_ERR_NULL, "result is NULL");
    DMXI_CHECK(i >= 0 && i < result->n, DMX_ERR_ARG, "entry %lld out of range [0, %lld)",
               (long long)i, (long long)result->n);
    const dmxi_xentry *e = &result->entries[i];
    if (source)
        *source = e->source;
    if (data)
        *data = result->arena + e->offset;
    if (bytes)
        *bytes = e->bytes;
cleanup:
    return st;
}

dmx_status dmx_exchange_result_get_info(const dmx_exchange_result *result, dmx_exchange_info *info)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(result != NULL && info != NULL, DMX_ERR_NULL, "result or info is NULL");
    *info = result->info;
cleanup:
    return st;
}

void dmxi_xchg_result_free(dmx_exchange_result *res)
{
    if (!res)
        return;
    free(res->entries);
    free(res->arena);
    free(res);
}

dmx_status dmx_exchange_result_destroy(dmx_exchange_result **result)
{
    if (result) {
        dmxi_xchg_result_free(*result);
        *result = NULL;
    }
    return DMX_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Helpers for the protocols                                                                    */
/* ------------------------------------------------------------------------------------------ */

int dmxi_xchg_log2(int n)
{
    int k = 0;
    while (k < 31 && (1 << k) < n)
        k++;
    return k;
}

void dmxi_xchg_temp(dmx_exchange_request *r, int64_t bytes)
{
    r->res->info.temp_bytes += bytes;
}

dmx_status dmxi_xchg_post_sends(dmx_exchange_request *r, int synchronous)
{
    dmx_status st = DMX_SUCCESS;
    for (int i = 0; i < r->nsend; i++) {
        const dmxi_xsend *s = &r->sends[i];
        if (synchronous)
            DMXI_MPI(
                MPI_Issend(s->data, s->bytes, MPI_BYTE, s->dest, r->tag, r->comm, &r->sreq[i]));
        else
            DMXI_MPI(MPI_Isend(s->data, s->bytes, MPI_BYTE, s->dest, r->tag, r->comm, &r->sreq[i]));
        r->res->info.p2p_messages++;
    }
cleanup:
    return st;
}

dmx_status dmxi_xchg_test_sends(dmx_exchange_request *r, int *flag)
{
    dmx_status st = DMX_SUCCESS;
    *flag = 0;
    DMXI_MPI(dmxi_testall(r->nsend, r->sreq, flag));
cleanup:
    return st;
}

void dmxi_xchg_set_census(dmx_exchange_request *r, int64_t census)
{
    r->poisoned = census >= DMXI_XCHG_POISON;
    r->expected = census % DMXI_XCHG_POISON;
}

dmx_status dmxi_xchg_census_done(dmx_exchange_request *r, int *done)
{
    dmx_status st = DMX_SUCCESS;
    *done = 0;
    if (r->received < r->expected)
        goto cleanup;
    DMXI_CHECK(r->received == r->expected, DMX_ERR_INTERNAL,
               "received %lld messages, %lld announced", (long long)r->received,
               (long long)r->expected);
    DMXI_TRY(dmxi_xchg_test_sends(r, done));
cleanup:
    return st;
}

/* A probed message and its receive. Simulation builds (DMX_SIM_WAIT): SMPI 3.32 has no matched
 * probes (MPI_Improbe and MPI_Mrecv abort), so there a probe is MPI_Iprobe and the receive
 * names the probed source and tag, which takes the probed message: messages of one source and
 * tag are not overtaken, and nothing else receives on this communicator meanwhile. */
#ifdef DMX_SIM_WAIT
typedef struct xmsg {
    int source, tag;
    MPI_Comm comm;
} xmsg;

static int xprobe(int source, int tag, MPI_Comm comm, int *flag, xmsg *m, MPI_Status *status)
{
    int rc = MPI_Iprobe(source, tag, comm, flag, status);
    if (rc == MPI_SUCCESS && *flag)
        *m = (xmsg){status->MPI_SOURCE, tag, comm};
    return rc;
}

static int xrecv(void *buf, int count, xmsg *m)
{
    return MPI_Recv(buf, count, MPI_BYTE, m->source, m->tag, m->comm, MPI_STATUS_IGNORE);
}
#else
typedef MPI_Message xmsg;

static int xprobe(int source, int tag, MPI_Comm comm, int *flag, xmsg *m, MPI_Status *status)
{
    return MPI_Improbe(source, tag, comm, flag, m, status);
}

static int xrecv(void *buf, int count, xmsg *m)
{
    return MPI_Mrecv(buf, count, MPI_BYTE, m, MPI_STATUS_IGNORE);
}
#endif

/* Receive a matched message without keeping it, into a scratch buffer of its size. Only when
 * even that cannot be had, a zero-count receive consumes the message and reports truncation,
 * expected here; but MPICH 4.0 raises that error on MPI_COMM_WORLD's handler (aborting the job
 * by default) rather than returning it, so that is the last resort. */
static dmx_status drain(xmsg *msg, int count)
{
    dmx_status st = DMX_SUCCESS;
    unsigned char one[1];
    void *scratch = count > 0 ? malloc((size_t)count) : NULL;
    int rc = xrecv(scratch ? scratch : one, scratch ? count : 0, msg);
    if (rc != MPI_SUCCESS && count > 0 && !scratch) {
        int cls = 0;
        DMXI_MPI(MPI_Error_class(rc, &cls));
        if (cls == MPI_ERR_TRUNCATE)
            rc = MPI_SUCCESS;
    }
    DMXI_MPI(rc);
cleanup:
    free(scratch);
    return st;
}

dmx_status dmxi_xchg_probe_recv(dmx_exchange_request *r, int source, int *got)
{
    dmx_status st = DMX_SUCCESS;
    int flag = 0, count = 0;
    xmsg msg;
    MPI_Status status;
    void *buf = NULL;
    *got = 0;
    memset(&msg, 0, sizeof msg);
    DMXI_MPI(xprobe(source, r->tag, r->comm, &flag, &msg, &status));
    if (!flag)
        goto cleanup;
    DMXI_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    DMXI_CHECK(count != MPI_UNDEFINED && count >= 0, DMX_ERR_INTERNAL,
               "message of unexpected size from rank %d", status.MPI_SOURCE);
    if (r->local == DMX_SUCCESS) {
        if (dmxi_xchg_reserve(r, 1, count) == DMX_SUCCESS)
            buf = dmxi_xchg_push(r, status.MPI_SOURCE, count);
        else
            r->local = DMX_ERR_ALLOC;
    }
    if (buf)
        DMXI_MPI(xrecv(buf, count, &msg));
    else
        DMXI_TRY(drain(&msg, count));
    r->received++;
    *got = 1;
cleanup:
    return st;
}
