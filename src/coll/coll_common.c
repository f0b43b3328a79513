/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives, the parts every algorithm shares: the cached communicator duplicate (with the
 * internal 2D grid and the node count the model needs), block offsets and point-to-point calls
 * of any length.
 *
 * The duplicate: collectives run on the inner duplicate of the communicator's record
 * (core/comm.c: MPI_Comm_dup with MPI_ERRORS_RETURN, made by the first dmx call that needs
 * it), so dmx tags never meet the user's; the cache here is a slot of that record, detached
 * (grid communicators freed) when the user frees the communicator or at MPI_Finalize. */
#include "coll_internal.h"

#include "comm.h"

#include <string.h>

/* The last communicator looked up and its cache (dmxi_ccomm_fast). Cleared when that cache is
 * detached, before a new communicator can reuse the handle. */
MPI_Comm dmxi_ccomm_last_comm = MPI_COMM_NULL;
dmxi_ccomm *dmxi_ccomm_last = NULL;

static int free_comm(MPI_Comm *c)
{
    if (*c == MPI_COMM_NULL)
        return MPI_SUCCESS;
    return MPI_Comm_free(c);
}

/* Detach (core/comm.c): the user frees the communicator (collectively), or MPI_Finalize; the
 * frees here are collective. The duplicate is the record's inner one, freed by the registry. */
static int ccomm_detach(void *state)
{
    dmxi_ccomm *c = state;
    if (dmxi_ccomm_last == c) {
        dmxi_ccomm_last = NULL;
        dmxi_ccomm_last_comm = MPI_COMM_NULL;
    }
    int rc = free_comm(&c->grow);
    int r = free_comm(&c->gcol);
    if (rc == MPI_SUCCESS)
        rc = r;
    c->dup = MPI_COMM_NULL;
    return rc;
}

static void ccomm_release(void *state)
{
    dmxi_ccomm *c = state;
    free(c->tune); /* AUTO's tuning table (coll_tune.c): one block */
    free(c);
}

static const dmxi_slot_type ccomm_type = {ccomm_detach, ccomm_release};

dmx_status dmxi_ccomm_get(MPI_Comm comm, dmxi_ccomm **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_ccomm *c = NULL;
    dmxi_comm *rec = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    if ((c = dmxi_comm_slot(rec, DMXI_SLOT_COLL)) != NULL) {
        *out = c;
        dmxi_ccomm_last = c;
        dmxi_ccomm_last_comm = comm;
        c = NULL;
        goto cleanup;
    }
    c = calloc(1, sizeof *c);
    DMXI_CHECK(c != NULL, DMX_ERR_ALLOC, "out of memory (communicator cache)");
    c->dup = c->grow = c->gcol = MPI_COMM_NULL;
    DMXI_TRY(dmxi_comm_inner(rec, &c->dup));
    DMXI_MPI(MPI_Comm_rank(c->dup, &c->rank));
    DMXI_MPI(MPI_Comm_size(c->dup, &c->size));
    DMXI_TRY(dmxi_comm_nodes(rec, &c->nodes)); /* nodes spanned, kept by the registry */
    DMXI_TRY(dmxi_comm_set_slot(rec, DMXI_SLOT_COLL, &ccomm_type, c));
    *out = c;
    dmxi_ccomm_last = c;
    dmxi_ccomm_last_comm = comm;
    c = NULL;
cleanup:
    free(c);
    return st;
}

dmx_status dmxi_ccomm_grid(dmxi_ccomm *cc)
{
    dmx_status st = DMX_SUCCESS;
    if (cc->grow != MPI_COMM_NULL)
        goto cleanup;
    int p = 0, r = 0;
    DMXI_MPI(MPI_Comm_size(cc->dup, &p));
    DMXI_MPI(MPI_Comm_rank(cc->dup, &r));
    int gr = 1;
    for (int d = 1; (int64_t)d * d <= p; d++)
        if (p % d == 0)
            gr = d;
    cc->gr = gr;
    cc->gc = p / gr;
    /* Rank r is (r / gc, r % gc): a row holds consecutive ranks. */
    DMXI_MPI(MPI_Comm_split(cc->dup, r / cc->gc, r % cc->gc, &cc->grow));
    DMXI_MPI(MPI_Comm_split(cc->dup, r % cc->gc, r / cc->gc, &cc->gcol));
    DMXI_MPI(MPI_Comm_set_errhandler(cc->grow, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_set_errhandler(cc->gcol, MPI_ERRORS_RETURN));
cleanup:
    return st;
}

int64_t dmxi_blk_off(int64_t n, int p, int i)
{
    int64_t q = n / p, r = n % p;
    return q * i + (i < r ? i : r);
}

int dmxi_pow2_floor(int p)
{
    int q = 1;
    while (q <= p / 2)
        q *= 2;
    return q;
}

int dmxi_binomial_low(int v, int p)
{
    int low = 1;
    while (low < p && !(v & low))
        low <<= 1;
    return low;
}

void dmxi_rotate_blocks(void *dst, const void *src, int p, int shift, int64_t m)
{
    int64_t head = (int64_t)(p - shift) * m, tail = (int64_t)shift * m;
    if (m <= 0)
        return;
    memcpy(dst, (const char *)src + tail, (size_t)head);
    memcpy((char *)dst + head, src, (size_t)tail);
}

dmx_status dmxi_c_send(const void *buf, int64_t bytes, int dest, int tag, MPI_Comm comm)
{
    return dmxi_c_sendrecv(buf, bytes, dest, NULL, 0, MPI_PROC_NULL, tag, comm);
}

dmx_status dmxi_c_recv(void *buf, int64_t bytes, int src, int tag, MPI_Comm comm)
{
    return dmxi_c_sendrecv(NULL, 0, MPI_PROC_NULL, buf, bytes, src, tag, comm);
}

int64_t dmxi_coll_chunk = DMXI_COLL_CHUNK;

/* One MPI_Sendrecv per piece of at most dmxi_coll_chunk bytes. A side with fewer pieces (or an
 * empty message: one piece of 0 bytes) sits out the remaining rounds with MPI_PROC_NULL. The
 * partner cuts the same message into the same pieces (both know its length), so every piece
 * meets its match, in order. */
dmx_status dmxi_c_sendrecv(const void *sbuf, int64_t sbytes, int dest, void *rbuf, int64_t rbytes,
                           int src, int tag, MPI_Comm comm)
{
    dmx_status st = DMX_SUCCESS;
    int64_t ch = dmxi_coll_chunk > 0 ? dmxi_coll_chunk : DMXI_COLL_CHUNK;
    int64_t sp = sbytes > 0 ? (sbytes + ch - 1) / ch : 1,
            rp = rbytes > 0 ? (rbytes + ch - 1) / ch : 1;
    if (dest == MPI_PROC_NULL)
        sp = 0;
    if (src == MPI_PROC_NULL)
        rp = 0;
    int64_t n = sp > rp ? sp : rp;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = i * ch; /* piece i starts here on both sides */
        int sn = i < sp ? (int)(sbytes - off < ch ? sbytes - off : ch) : 0;
        int rn = i < rp ? (int)(rbytes - off < ch ? rbytes - off : ch) : 0;
        DMXI_MPI(MPI_Sendrecv(sbuf && i < sp ? (const char *)sbuf + off : NULL, sn, MPI_BYTE,
                              i < sp ? dest : MPI_PROC_NULL, tag,
                              rbuf && i < rp ? (char *)rbuf + off : NULL, rn, MPI_BYTE,
                              i < rp ? src : MPI_PROC_NULL, tag, comm, MPI_STATUS_IGNORE));
    }
cleanup:
    return st;
}
