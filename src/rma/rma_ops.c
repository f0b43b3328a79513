/* SPDX-License-Identifier: BSD-3-Clause */
/* The public strided operations (dmx_aput, dmx_aget, dmx_aacc and their _nbi forms): argument
 * checks, translation of a symmetric address into a remote displacement, dispatch to the path
 * rma_select.c picks. The helpers the paths share (MPI types, issuing, completion) are
 * rma_common.c.
 *
 * Validation is local and complete before anything moves: a call with invalid input returns
 * a named error and has written nothing anywhere. */
#include "rma.h"

#include <stdint.h>
#include <string.h>

static size_t elem_size(dmx_dtype t)
{
    return t == DMX_RMA_BYTE ? 1 : dmx_dtype_size(t);
}

/* Extent in elements of blockcount blocks of blockelems at stride (0 if nothing moves). */
static dmx_status extent(int64_t stride, int64_t blockelems, int64_t blockcount, int64_t *out)
{
    dmx_status st = DMX_SUCCESS;
    int64_t e = 0;
    if (blockelems > 0 && blockcount > 0) {
        DMXI_TRY(dmxi_mul64(blockcount - 1, stride, &e));
        DMXI_TRY(dmxi_add64(e, blockelems, &e));
    }
    *out = e;
cleanup:
    return st;
}

static dmx_status rma_op(dmx_rma_heap *h, dmxi_rma_kind kind, int nbi, dmx_dtype dtype, void *dst,
                         const void *src, int64_t dst_stride, int64_t src_stride,
                         int64_t blockelems, int64_t blockcount, int pe)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_rma_xfer x;
    const char *sym = NULL;
    int64_t ext = 0, bytes = 0, off = 0;
    DMXI_CHECK(h != NULL, DMX_ERR_NULL, "heap is NULL");
    DMXI_CHECK(dtype == DMX_RMA_BYTE || dmx_dtype_size(dtype) != 0, DMX_ERR_ARG, "invalid dtype %d",
               (int)dtype);
    DMXI_CHECK(kind != DMXI_RMA_ACC || dtype != DMX_RMA_BYTE, DMX_ERR_ARG,
               "dmx_aacc needs a numeric dtype, not DMX_RMA_BYTE");
    DMXI_CHECK(blockelems >= 0 && blockcount >= 0, DMX_ERR_ARG,
               "negative count (blockelems %lld, blockcount %lld)", (long long)blockelems,
               (long long)blockcount);
    DMXI_CHECK(pe >= 0 && pe < h->size, DMX_ERR_ARG, "target rank %d outside 0..%d", pe,
               h->size - 1);
    if (blockcount <= 1) {
        dst_stride = blockelems; /* strides mean nothing for one block */
        src_stride = blockelems;
    }
    DMXI_CHECK(dst_stride >= 0 && src_stride >= 0, DMX_ERR_ARG,
               "negative stride (dst %lld, src %lld)", (long long)dst_stride,
               (long long)src_stride);
    DMXI_CHECK(dst_stride >= blockelems, DMX_ERR_ARG,
               "destination blocks overlap: dst_stride %lld < blockelems %lld",
               (long long)dst_stride, (long long)blockelems);
    if (blockelems == 0 || blockcount == 0)
        goto cleanup;
    DMXI_CHECK(dst != NULL && src != NULL, DMX_ERR_NULL, "dst or src is NULL");
    x.kind = kind;
    x.nbi = nbi;
    x.esize = elem_size(dtype);
    x.mtype = dmxi_rma_mpi_type(dtype);
    if (dtype == DMX_CFLOAT || dtype == DMX_CDOUBLE) {
        DMXI_CHECK(blockelems <= INT64_MAX / 2 && dst_stride <= INT64_MAX / 2 &&
                       src_stride <= INT64_MAX / 2,
                   DMX_ERR_OVERFLOW, "complex counts or strides overflow 64 bits as reals");
        /* complex elements travel as pairs of reals: Open MPI 4.1's one-sided accumulate sums
         * MPI_C_*_COMPLEX wrongly, and a pair of real sums is the same arithmetic (atomic per
         * component) */
        x.esize /= 2;
        x.mtype = dtype == DMX_CFLOAT ? MPI_FLOAT : MPI_DOUBLE;
        blockelems *= 2;
        dst_stride *= 2;
        src_stride *= 2;
    }
    x.blockelems = blockelems;
    x.blockcount = blockcount;
    x.pe = pe;
    if (kind == DMXI_RMA_GET) {
        sym = src;
        x.local = dst;
        x.lstride = dst_stride;
        x.rstride = src_stride;
    } else {
        sym = dst;
        x.local = (char *)src;
        x.lstride = src_stride;
        x.rstride = dst_stride;
    }
    /* the remote range must lie in the target's heap */
    {
        uintptr_t a = (uintptr_t)sym, b0 = (uintptr_t)h->base;
        DMXI_CHECK(h->base != NULL && a >= b0 && a - b0 < (uint64_t)h->bytes, DMX_ERR_ARG,
                   "remote address %p is not inside this rank's heap [%p, +%lld)",
                   (const void *)sym, (void *)h->base, (long long)h->bytes);
        off = (int64_t)(a - b0);
    }
    DMXI_TRY(extent(x.rstride, blockelems, blockcount, &ext));
    DMXI_TRY(dmxi_mul64(ext, (int64_t)x.esize, &bytes));
    DMXI_CHECK(bytes <= h->sizes[pe] - off, DMX_ERR_ARG,
               "transfer of %lld bytes at offset %lld passes the end of rank %d's heap (%lld "
               "bytes)",
               (long long)bytes, (long long)off, pe, (long long)h->sizes[pe]);
    x.rdisp = (MPI_Aint)off;
    h->last_path = dmxi_rma_select(h, &x);
    switch (h->last_path) {
    case DMXI_RMA_SHM: DMXI_TRY(dmxi_rma_shm(h, &x)); break;
    case DMXI_RMA_BLOCKS: DMXI_TRY(dmxi_rma_blocks(h, &x)); break;
    case DMXI_RMA_PACK: DMXI_TRY(dmxi_rma_pack(h, &x)); break;
    case DMXI_RMA_SPAN: DMXI_TRY(dmxi_rma_span(h, &x)); break;
    default: DMXI_TRY(dmxi_rma_vector(h, &x)); break;
    }
cleanup:
    return st;
}

dmx_status dmx_aput(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                    int64_t dst_stride, int64_t src_stride, int64_t blockelems, int64_t blockcount,
                    int pe)
{
    return rma_op(heap, DMXI_RMA_PUT, 0, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}

dmx_status dmx_aput_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                        int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                        int64_t blockcount, int pe)
{
    return rma_op(heap, DMXI_RMA_PUT, 1, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}

dmx_status dmx_aget(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                    int64_t dst_stride, int64_t src_stride, int64_t blockelems, int64_t blockcount,
                    int pe)
{
    return rma_op(heap, DMXI_RMA_GET, 0, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}

dmx_status dmx_aget_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                        int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                        int64_t blockcount, int pe)
{
    return rma_op(heap, DMXI_RMA_GET, 1, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}

dmx_status dmx_aacc(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                    int64_t dst_stride, int64_t src_stride, int64_t blockelems, int64_t blockcount,
                    int pe)
{
    return rma_op(heap, DMXI_RMA_ACC, 0, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}

dmx_status dmx_aacc_nbi(dmx_rma_heap *heap, dmx_dtype dtype, void *dst, const void *src,
                        int64_t dst_stride, int64_t src_stride, int64_t blockelems,
                        int64_t blockcount, int pe)
{
    return rma_op(heap, DMXI_RMA_ACC, 1, dtype, dst, src, dst_stride, src_stride, blockelems,
                  blockcount, pe);
}
