/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: datatypes whose elements are not contiguous bytes, through the dmx algorithms.
 *
 * The algorithms move bytes: element i at i * esize, a block of n elements n * esize bytes.
 * That is right for a datatype whose size equals its extent and that has no gaps. The padded
 * pair types (MPI_DOUBLE_INT, MPI_LONG_INT: 12 bytes of data, extent 16; MPI_SHORT_INT 6 of 8;
 * MPI_LONG_DOUBLE_INT 20 of 32) and derived datatypes with gaps (vectors) are staged here:
 *  - the collectives that only move data run on packed bytes (MPI_Pack / MPI_Unpack), so
 *    nothing but the datatype's bytes travels and the receive buffer's gaps stay untouched;
 *  - reductions run on temporaries that hold elements one extent apart (MPI_Unpack lays them
 *    out), which MPI_Reduce_local takes with the datatype itself; the result goes back through
 *    MPI_Pack / MPI_Unpack, so again only the datatype's bytes are written.
 * Cost: one pack of the input and one unpack of the output per call (two copies each for
 * reductions), and temporaries of the input and output (plus a packed copy for reductions).
 * The MPI library's own call (DMX_COLL_MPI) takes the datatype as it is. */
#include "coll_internal.h"

#include <string.h>

/* Elements per MPI_Pack call: pieces of at most 1 GiB (MPI_Pack's int sizes). */
static int64_t piece(int64_t size)
{
    int64_t k = ((int64_t)1 << 30) / size;
    return k < 1 ? 1 : k;
}

/* n elements at src (an extent apart) to packed bytes at dst. */
static dmx_status pack(const dmxi_cstage *s, MPI_Comm comm, const void *src, int64_t n, void *dst)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t k = piece(s->size);
    for (int64_t o = 0; o < n; o += k) {
        const int64_t m = n - o < k ? n - o : k;
        int pos = 0;
        DMXI_MPI(MPI_Pack((const char *)src + o * s->ext, (int)m, s->type,
                          (char *)dst + o * s->size, (int)(m * s->size), &pos, comm));
        DMXI_CHECK(pos == m * s->size, DMX_ERR_INTERNAL,
                   "MPI_Pack wrote %d bytes for %lld elements of %lld bytes", pos, (long long)m,
                   (long long)s->size);
    }
cleanup:
    return st;
}

/* n packed elements at src into elements an extent apart at dst (only the datatype's bytes). */
static dmx_status unpack(const dmxi_cstage *s, MPI_Comm comm, const void *src, int64_t n, void *dst)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t k = piece(s->size);
    for (int64_t o = 0; o < n; o += k) {
        const int64_t m = n - o < k ? n - o : k;
        int pos = 0;
        DMXI_MPI(MPI_Unpack((const char *)src + o * s->size, (int)(m * s->size), &pos,
                            (char *)dst + o * s->ext, (int)m, s->type, comm));
    }
cleanup:
    return st;
}

/* The caller's n elements at user into the temporary t (packed, or an extent apart). */
static dmx_status stage_in(const dmxi_cstage *s, MPI_Comm comm, const void *user, int64_t n,
                           void *t)
{
    dmx_status st = DMX_SUCCESS;
    if (n <= 0)
        goto cleanup;
    if (!s->self) {
        DMXI_TRY(pack(s, comm, user, n, t));
    } else {
        DMXI_TRY(pack(s, comm, user, n, s->pack));
        DMXI_TRY(unpack(s, comm, s->pack, n, t));
    }
cleanup:
    return st;
}

/* Bytes for n elements of the temporaries (calloc: an extent's gaps are sent too). */
static void *talloc(const dmxi_cstage *s, int64_t n)
{
    const int64_t b = n * (s->self ? s->ext : s->size);
    return calloc((size_t)(b > 0 ? b : 1), 1);
}

/* What the collective reads and writes on this rank, in elements: nin from the send buffer,
 * nout written into the temporary receive buffer, npre of which hold the input first (in
 * place; read from the caller's receive buffer), nback copied back to the caller's. */
static void extents(const dmxi_ccall *c, int rank, int p, int64_t *nin, int64_t *nout,
                    int64_t *npre, int64_t *nback)
{
    const int64_t n = c->count, all = n * p;
    const int ip = c->sbuf == MPI_IN_PLACE, root = rank == c->root;
    *nin = *nout = *npre = 0;
    switch (c->kind) {
    case DMX_COLL_BCAST:
        *nout = n;
        *npre = root ? n : 0;
        *nback = root ? 0 : n;
        return;
    case DMX_COLL_SCATTER:
        *nin = root ? all : 0;
        *nout = c->rbuf == MPI_IN_PLACE ? 0 : n;
        break;
    case DMX_COLL_GATHER:
        *nin = ip ? 0 : n;
        *nout = root ? all : 0;
        break;
    case DMX_COLL_REDUCE:
        *nin = ip ? 0 : n;
        *nout = root ? n : 0;
        break;
    case DMX_COLL_ALLGATHER:
        *nin = ip ? 0 : n;
        *nout = all;
        break;
    case DMX_COLL_ALLTOALL:
    case DMX_COLL_REDUCE_SCATTER:
        *nin = ip ? 0 : all;
        *nout = c->kind == DMX_COLL_ALLTOALL || ip ? all : n;
        break;
    default: /* allreduce, scan, exscan, shift */
        *nin = ip ? 0 : n;
        *nout = n;
        break;
    }
    *npre = ip ? *nout : 0;
    *nback = c->kind == DMX_COLL_REDUCE_SCATTER        ? n
             : c->kind == DMX_COLL_EXSCAN && rank == 0 ? 0 /* MPI leaves it undefined */
                                                       : *nout;
}

dmx_status dmxi_coll_stage(const dmxi_ccall *c, const dmxi_ccomm *cc, int self, dmxi_cstage *s,
                           dmxi_ccall *inner, int64_t *esize)
{
    dmx_status st = DMX_SUCCESS;
    int sz = 0;
    MPI_Aint lb = 0, ext = 0;
    int64_t nin = 0, nout = 0, npre = 0;
    memset(s, 0, sizeof *s);
    DMXI_MPI(MPI_Type_size(c->type, &sz));
    DMXI_MPI(MPI_Type_get_extent(c->type, &lb, &ext));
    s->self = self;
    s->type = c->type;
    s->size = sz;
    s->ext = ext;
    extents(c, cc->rank, cc->size, &nin, &nout, &npre, &s->nback);
    s->user_out = c->rbuf;
    if (self) {
        int64_t big = nin > nout ? nin : nout;
        s->pack = malloc((size_t)(big * s->size > 0 ? big * s->size : 1));
        DMXI_CHECK(s->pack != NULL, DMX_ERR_ALLOC, "out of memory (packed copy)");
    }
    *inner = *c;
    inner->type = self ? c->type : MPI_BYTE;
    inner->count = self ? c->count : c->count * s->size;
    *esize = self ? s->ext : 1;
    if (nin > 0) {
        s->tin = talloc(s, nin);
        DMXI_CHECK(s->tin != NULL, DMX_ERR_ALLOC, "out of memory (staged input)");
        DMXI_TRY(stage_in(s, cc->dup, c->sbuf, nin, s->tin));
        inner->sbuf = s->tin;
    }
    if (nout > 0) {
        s->tout = talloc(s, nout);
        DMXI_CHECK(s->tout != NULL, DMX_ERR_ALLOC, "out of memory (staged output)");
        DMXI_TRY(stage_in(s, cc->dup, c->rbuf, npre, s->tout));
        inner->rbuf = s->tout;
    }
cleanup:
    if (st != DMX_SUCCESS)
        dmxi_coll_unstage(s, cc, 0);
    return st;
}

dmx_status dmxi_coll_unstage(dmxi_cstage *s, const dmxi_ccomm *cc, int write)
{
    dmx_status st = DMX_SUCCESS;
    if (write && s->nback > 0) {
        if (!s->self) {
            DMXI_TRY(unpack(s, cc->dup, s->tout, s->nback, s->user_out));
        } else {
            DMXI_TRY(pack(s, cc->dup, s->tout, s->nback, s->pack));
            DMXI_TRY(unpack(s, cc->dup, s->pack, s->nback, s->user_out));
        }
    }
cleanup:
    free(s->tin);
    free(s->tout);
    free(s->pack);
    s->tin = s->tout = s->pack = NULL;
    return st;
}
