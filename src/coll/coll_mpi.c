/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI library's own collectives for dmx's front end (coll_api.c): one call on the
 * communicator's duplicate, or, for a count above what MPI's int counts take
 * (dmxi_coll_mpi_count_max), several calls of at most dmxi_coll_mpi_chunk_bytes per block. */
#include "coll_internal.h"

#include <limits.h>

int64_t dmxi_coll_mpi_count_max = INT_MAX, dmxi_coll_mpi_chunk_bytes = (int64_t)1 << 30;

/* ptr advanced by off bytes, unless it is MPI_IN_PLACE (or NULL: a root's buffer elsewhere). */
static const void *at(const void *ptr, int64_t off)
{
    return ptr == MPI_IN_PLACE || ptr == NULL ? ptr : (const char *)ptr + off;
}

/* The MPI library's own call for count > INT_MAX elements (dmxi_coll_mpi_count_max), which MPI's
 * int counts cannot take in one call. In chunks of at most 1 GiB (dmxi_coll_mpi_chunk_bytes) per
 * rank and block:
 *  - bcast, reduce, allreduce, scan, exscan, shift act element by element: the same call on
 *    each chunk, at the same offset in every buffer;
 *  - scatter, gather, allgather, alltoall move one block of count elements per rank: chunk j
 *    of every block at once, through a datatype of the chunk's elements whose extent is a whole
 *    block (so the blocks stay count elements apart);
 *  - reduce-scatter: p reduces, block r to rank r in turn (in ascending r, so that in place,
 *    rank r's result overwrites its first block only after that block went into rank 0's).
 * No temporary memory; MPI_IN_PLACE keeps its meaning in every chunk. */
static dmx_status run_mpi_large(const dmxi_ccall *c, const dmxi_ccomm *cc)
{
    dmx_status st = DMX_SUCCESS;
    const int p = cc->size;
    MPI_Aint lb = 0, ext = 0;
    MPI_Datatype chunk_type = MPI_DATATYPE_NULL, block_type = MPI_DATATYPE_NULL;
    DMXI_MPI(MPI_Type_get_extent(c->type, &lb, &ext));
    const int64_t esize = ext; /* elements are an extent apart (MPI_DOUBLE_INT: 16 bytes) */
    int64_t per = dmxi_coll_mpi_chunk_bytes / esize; /* elements per chunk: 1 to the count limit */
    per = per < 1 ? 1 : per > dmxi_coll_mpi_count_max ? dmxi_coll_mpi_count_max : per;
    if (c->kind == DMX_COLL_REDUCE_SCATTER) {
        const int in_place = c->sbuf == MPI_IN_PLACE;
        const void *in = in_place ? c->rbuf : c->sbuf;
        for (int r = 0; r < p; r++) {
            dmxi_ccall red = *c;
            red.kind = DMX_COLL_REDUCE;
            red.root = r;
            red.sbuf = at(in, (int64_t)r * c->count * esize);
            red.rbuf = cc->rank == r ? c->rbuf : NULL;
            if (in_place && r == 0 && cc->rank == 0)
                red.sbuf = MPI_IN_PLACE; /* block 0 is reduced where it is */
            DMXI_TRY(dmxi_coll_run_mpi(&red, cc));
        }
        goto cleanup;
    }
    const int blocks = c->kind == DMX_COLL_SCATTER || c->kind == DMX_COLL_GATHER ||
                       c->kind == DMX_COLL_ALLGATHER || c->kind == DMX_COLL_ALLTOALL;
    for (int64_t o = 0; o < c->count; o += per) {
        const int64_t len = c->count - o < per ? c->count - o : per;
        dmxi_ccall part = *c;
        part.count = len;
        part.sbuf = at(c->sbuf, o * esize);
        part.rbuf = (void *)at(c->rbuf, o * esize);
        if (!blocks) {
            DMXI_TRY(dmxi_coll_run_mpi(&part, cc));
            continue;
        }
        /* len elements, extent one block: element o of every block, for count 1 per rank */
        DMXI_MPI(MPI_Type_contiguous((int)len, c->type, &chunk_type));
        DMXI_MPI(MPI_Type_create_resized(chunk_type, 0, (MPI_Aint)(c->count * esize), &block_type));
        DMXI_MPI(MPI_Type_commit(&block_type));
        void *r = part.rbuf;
        const void *sb = part.sbuf;
        MPI_Comm comm = cc->dup;
        switch (c->kind) {
        case DMX_COLL_SCATTER:
            DMXI_MPI(MPI_Scatter(sb, 1, block_type, r, (int)len, c->type, c->root, comm));
            break;
        case DMX_COLL_GATHER:
            DMXI_MPI(MPI_Gather(sb, (int)len, c->type, r, 1, block_type, c->root, comm));
            break;
        case DMX_COLL_ALLGATHER:
            DMXI_MPI(MPI_Allgather(sb, (int)len, c->type, r, 1, block_type, comm));
            break;
        default: DMXI_MPI(MPI_Alltoall(sb, 1, block_type, r, 1, block_type, comm)); break;
        }
        DMXI_MPI(MPI_Type_free(&block_type));
        DMXI_MPI(MPI_Type_free(&chunk_type));
    }
cleanup:
    if (block_type != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&block_type));
    if (chunk_type != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&chunk_type));
    return st;
}

dmx_status dmxi_coll_run_mpi(const dmxi_ccall *c, const dmxi_ccomm *cc)
{
    const int p = cc->size;
    dmx_status st = DMX_SUCCESS;
    MPI_Comm comm = cc->dup;
    if (c->count > dmxi_coll_mpi_count_max)
        return run_mpi_large(c, cc);
    const int n = (int)c->count;
    const void *s = c->sbuf;
    void *r = c->rbuf;
    switch (c->kind) {
    case DMX_COLL_BCAST: DMXI_MPI(MPI_Bcast(r, n, c->type, c->root, comm)); break;
    case DMX_COLL_SCATTER:
        DMXI_MPI(MPI_Scatter(s, n, c->type, r, n, c->type, c->root, comm));
        break;
    case DMX_COLL_GATHER: DMXI_MPI(MPI_Gather(s, n, c->type, r, n, c->type, c->root, comm)); break;
    case DMX_COLL_ALLGATHER: DMXI_MPI(MPI_Allgather(s, n, c->type, r, n, c->type, comm)); break;
    case DMX_COLL_REDUCE: DMXI_MPI(MPI_Reduce(s, r, n, c->type, c->op, c->root, comm)); break;
    case DMX_COLL_ALLREDUCE: DMXI_MPI(MPI_Allreduce(s, r, n, c->type, c->op, comm)); break;
    case DMX_COLL_REDUCE_SCATTER:
        DMXI_MPI(MPI_Reduce_scatter_block(s, r, n, c->type, c->op, comm));
        break;
    case DMX_COLL_ALLTOALL: DMXI_MPI(MPI_Alltoall(s, n, c->type, r, n, c->type, comm)); break;
    case DMX_COLL_SCAN: DMXI_MPI(MPI_Scan(s, r, n, c->type, c->op, comm)); break;
    case DMX_COLL_EXSCAN: DMXI_MPI(MPI_Exscan(s, r, n, c->type, c->op, comm)); break;
    case DMX_COLL_SHIFT: {
        int rank = cc->rank;
        int kk = dmxi_mod(c->k, p);
        int to = (rank + kk) % p, from = dmxi_mod((int64_t)rank - kk, p);
        if (s == MPI_IN_PLACE)
            DMXI_MPI(MPI_Sendrecv_replace(r, n, c->type, to, DMXI_COLL_TAG, from, DMXI_COLL_TAG,
                                          comm, MPI_STATUS_IGNORE));
        else
            DMXI_MPI(MPI_Sendrecv(s, n, c->type, to, DMXI_COLL_TAG, r, n, c->type, from,
                                  DMXI_COLL_TAG, comm, MPI_STATUS_IGNORE));
        break;
    }
    default: DMXI_FAIL(DMX_ERR_INTERNAL, "unknown collective %d", (int)c->kind);
    }
cleanup:
    return st;
}
