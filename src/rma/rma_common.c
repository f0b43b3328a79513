/* SPDX-License-Identifier: BSD-3-Clause */
/* The helpers the strided paths share (rma_vector.c, rma_blocks.c, rma_pack.c, rma_span.c,
 * rma_shm.c): element MPI types, the set of touched targets and its flush, issuing one MPI
 * operation and completing it, vector types, local strided copies. A leaf under the paths and
 * under the entry points (rma_ops.c) that dispatch to them. */
#include "rma.h"
#include "shortcopy.h"

#include <stdint.h>
#include <string.h>

MPI_Datatype dmxi_rma_mpi_type(dmx_dtype t)
{
    switch (t) {
    case DMX_FLOAT: return MPI_FLOAT;
    case DMX_DOUBLE: return MPI_DOUBLE;
    case DMX_CFLOAT: return MPI_C_FLOAT_COMPLEX;
    case DMX_CDOUBLE: return MPI_C_DOUBLE_COMPLEX;
    default: break;
    }
    return MPI_BYTE;
}

dmx_status dmxi_rma_touched_init(dmxi_rma_touched *t, int size)
{
    t->n = 0;
    t->flag = dmxi_calloc(size, 1);
    t->list = dmxi_malloc(size, sizeof(int));
    if (!t->flag || !t->list)
        return dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory (%d ranks)", size);
    return DMX_SUCCESS;
}

void dmxi_rma_touched_free(dmxi_rma_touched *t)
{
    free(t->flag);
    free(t->list);
    t->flag = NULL;
    t->list = NULL;
    t->n = 0;
}

dmx_status dmxi_rma_flush_touched(dmxi_rma_touched *t, MPI_Win win, int local_only)
{
    dmx_status st = DMX_SUCCESS;
    while (t->n > 0) {
        int pe = t->list[t->n - 1];
        if (local_only)
            DMXI_MPI(MPI_Win_flush_local(pe, win));
        else
            DMXI_MPI(MPI_Win_flush(pe, win));
        t->flag[pe] = 0;
        t->n--;
    }
cleanup:
    return st;
}

dmx_status dmxi_rma_issue(dmx_rma_heap *h, dmxi_rma_kind kind, void *local, int lcount,
                          MPI_Datatype ltype, int pe, MPI_Aint rdisp, int rcount,
                          MPI_Datatype rtype)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_rma_touch(&h->pending, pe);
    if (kind == DMXI_RMA_PUT)
        DMXI_MPI(MPI_Put(local, lcount, ltype, pe, rdisp, rcount, rtype, h->win));
    else if (kind == DMXI_RMA_GET)
        DMXI_MPI(MPI_Get(local, lcount, ltype, pe, rdisp, rcount, rtype, h->win));
    else
        DMXI_MPI(MPI_Accumulate(local, lcount, ltype, pe, rdisp, rcount, rtype, MPI_SUM, h->win));
cleanup:
    return st;
}

dmx_status dmxi_rma_complete(dmx_rma_heap *h, const dmxi_rma_xfer *x)
{
    dmx_status st = DMX_SUCCESS;
    if (x->nbi)
        goto cleanup;
    if (x->kind == DMXI_RMA_GET)
        DMXI_MPI(MPI_Win_flush(x->pe, h->win));
    else
        DMXI_MPI(MPI_Win_flush_local(x->pe, h->win));
cleanup:
    return st;
}

dmx_status dmxi_rma_vector_type(dmx_rma_heap *h, MPI_Datatype base, int count, int blocklen,
                                MPI_Aint stride, MPI_Datatype *out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_rma_type_entry *e = NULL, *victim = &h->cache[0];
    MPI_Datatype t = MPI_DATATYPE_NULL;
    h->clock++;
    for (int i = 0; i < DMXI_RMA_TYPE_CACHE; i++) {
        dmxi_rma_type_entry *c = &h->cache[i];
        if (c->type != MPI_DATATYPE_NULL && c->base == base && c->count == count &&
            c->blocklen == blocklen && c->stride == stride) {
            e = c;
            break;
        }
        if (c->used < victim->used)
            victim = c;
    }
    if (!e) {
        DMXI_MPI(MPI_Type_create_hvector(count, blocklen, stride, base, &t));
        DMXI_MPI(MPI_Type_commit(&t));
        if (victim->type != MPI_DATATYPE_NULL)
            DMXI_MPI(MPI_Type_free(&victim->type)); /* pending operations keep their copy */
        e = victim;
        e->base = base;
        e->count = count;
        e->blocklen = blocklen;
        e->stride = stride;
        e->type = t;
        t = MPI_DATATYPE_NULL;
    }
    e->used = h->clock;
    *out = e->type;
cleanup:
    if (t != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&t));
    return st;
}

/* Blocks up to DMXI_SHORT_RUN bytes go through core/shortcopy.h (a memcpy call per block costs
 * about as much as the copy itself at these sizes); larger ones take memcpy (faster than a
 * 16-byte SIMD loop here). */
void dmxi_rma_copy(char *dst, const char *src, int64_t dst_stride, int64_t src_stride,
                   int64_t blockelems, int64_t blockcount, size_t esize)
{
    size_t ds = (size_t)dst_stride * esize, ss = (size_t)src_stride * esize;
    size_t len = (size_t)blockelems * esize;
    if (len == 0)
        return;
    if (len <= DMXI_SHORT_RUN) {
        dmxi_copy_short_runs(dst, (int64_t)ds, src, (int64_t)ss, len, blockcount, 0);
        return;
    }
    for (int64_t b = 0; b < blockcount; b++, dst += ds, src += ss)
        memcpy(dst, src, len);
}
