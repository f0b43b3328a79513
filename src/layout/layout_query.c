/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout queries: block starts and lookups in window coordinates, owners, local blocks and
 * element memory (used by the planner), and the public getters. Local. */
#include "layout_impl.h"

int64_t dmxi_layout_row_start(const dmx_layout *L, int64_t k)
{
    if (k >= L->nrb)
        return L->m;
    int64_t s = L->d->rsplit[L->bi0 + k] - L->i0;
    return s < 0 ? 0 : s;
}

int64_t dmxi_layout_col_start(const dmx_layout *L, int64_t k)
{
    if (k >= L->ncb)
        return L->n;
    int64_t s = L->d->csplit[L->bj0 + k] - L->j0;
    return s < 0 ? 0 : s;
}

int64_t dmxi_layout_row_block(const dmx_layout *L, int64_t r)
{
    const dmxi_desc *d = L->d;
    int64_t I =
        d->cyclic ? (r + L->i0) / d->mb : dmxi_desc_find_split(d->rsplit, d->nrb, r + L->i0);
    return I - L->bi0;
}

int64_t dmxi_layout_col_block(const dmx_layout *L, int64_t c)
{
    const dmxi_desc *d = L->d;
    int64_t J =
        d->cyclic ? (c + L->j0) / d->nb : dmxi_desc_find_split(d->csplit, d->ncb, c + L->j0);
    return J - L->bj0;
}

int dmxi_layout_block_owner(const dmx_layout *L, int64_t bi, int64_t bj)
{
    return dmxi_desc_owner(L->d, bi + L->bi0, bj + L->bj0);
}

void dmxi_layout_local_block(const dmx_layout *L, int64_t k, int64_t *bi, int64_t *bj)
{
    if (L->d->cyclic) {
        *bi = L->first_br + (k % L->nlr) * L->d->prow;
        *bj = L->first_bc + (k / L->nlr) * L->d->pcol;
    } else {
        const dmxi_lblock *b = &L->d->blocks[L->lidx[k]];
        *bi = b->brow - L->bi0;
        *bj = b->bcol - L->bj0;
    }
}

void dmxi_layout_local_rect(const dmx_layout *L, int64_t k, int64_t *r0, int64_t *c0, int64_t *rows,
                            int64_t *cols)
{
    if (L->d->local_only) {
        const dmxi_lblock *b = &L->d->blocks[k];
        *r0 = b->brow, *c0 = b->bcol, *rows = b->rows, *cols = b->cols;
        return;
    }
    int64_t bi, bj;
    dmxi_layout_local_block(L, k, &bi, &bj);
    *r0 = dmxi_layout_row_start(L, bi);
    *c0 = dmxi_layout_col_start(L, bj);
    *rows = dmxi_layout_row_start(L, bi + 1) - *r0;
    *cols = dmxi_layout_col_start(L, bj + 1) - *c0;
}

dmx_status dmxi_layout_mem_in_block(const dmx_layout *L, int64_t k, int64_t r, int64_t c,
                                    dmxi_mem *mem)
{
    dmx_status st = DMX_SUCCESS;
    if (!L->d->local_only)
        return dmxi_layout_mem(L, r, c, mem);
    DMXI_CHECK(k >= 0 && k < L->d->nlocal, DMX_ERR_INTERNAL, "local block %lld out of range",
               (long long)k);
    const dmxi_lblock *b = &L->d->blocks[k];
    int64_t dr = r - b->brow, dc = c - b->bcol;
    DMXI_CHECK(dr >= 0 && dr < b->rows && dc >= 0 && dc < b->cols, DMX_ERR_INTERNAL,
               "element (%lld,%lld) not in local block %lld", (long long)r, (long long)c,
               (long long)k);
    mem->lbk = k;
    mem->ld = b->ld;
    mem->order = b->order;
    mem->off = dmxi_elem_off(b->order, b->ld, dr, dc);
cleanup:
    return st;
}

dmx_status dmxi_layout_mem(const dmx_layout *L, int64_t r, int64_t c, dmxi_mem *mem)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_desc *d = L->d;
    int64_t gr = r + L->i0, gc = c + L->j0;
    int64_t I = dmxi_layout_row_block(L, r) + L->bi0, J = dmxi_layout_col_block(L, c) + L->bj0;
    int64_t dr = gr - d->rsplit[I], dc = gc - d->csplit[J];
    if (d->cyclic) {
        DMXI_CHECK(dmxi_desc_owner(d, I, J) == d->rank, DMX_ERR_INTERNAL, "element not local");
        mem->lbk = -1;
        mem->ld = d->lld;
        mem->order = DMX_COL_MAJOR;
        mem->off = (I / d->prow) * d->mb + dr + ((J / d->pcol) * d->nb + dc) * d->lld;
    } else {
        int64_t k = dmxi_desc_find_lblock(d, I, J);
        DMXI_CHECK(k >= 0, DMX_ERR_INTERNAL, "element not local");
        const dmxi_lblock *b = &d->blocks[k];
        mem->lbk = k;
        mem->ld = b->ld;
        mem->order = b->order;
        mem->off = dmxi_elem_off(b->order, b->ld, dr, dc);
    }
cleanup:
    return st;
}

dmx_status dmx_layout_get_size(const dmx_layout *layout, int64_t *m, int64_t *n)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    if (m)
        *m = layout->m;
    if (n)
        *n = layout->n;
cleanup:
    return st;
}

dmx_status dmx_layout_get_num_local_blocks(const dmx_layout *layout, int64_t *nlocal)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout && nlocal, DMX_ERR_NULL, "layout or nlocal is NULL");
    *nlocal = layout->nlocal;
cleanup:
    return st;
}

dmx_status dmx_layout_get_local_block(const dmx_layout *layout, int64_t k, dmx_dtype dtype,
                                      int64_t *row0, int64_t *col0, int64_t *rows, int64_t *cols,
                                      void **data, int64_t *ld, dmx_order *order)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    DMXI_CHECK(k >= 0 && k < layout->nlocal, DMX_ERR_ARG, "local block %lld out of range",
               (long long)k);
    size_t es = dmx_dtype_size(dtype);
    DMXI_CHECK(es > 0, DMX_ERR_ARG, "invalid dtype %d", (int)dtype);
    int64_t r0, c0, nr, nc;
    dmxi_layout_local_rect(layout, k, &r0, &c0, &nr, &nc);
    dmxi_mem mem;
    DMXI_TRY(dmxi_layout_mem_in_block(layout, k, r0, c0, &mem));
    if (row0)
        *row0 = r0;
    if (col0)
        *col0 = c0;
    if (rows)
        *rows = nr;
    if (cols)
        *cols = nc;
    if (data)
        *data = dmxi_layout_addr(layout, &mem, es);
    if (ld)
        *ld = mem.ld;
    if (order)
        *order = mem.order;
cleanup:
    return st;
}

dmx_status dmx_layout_rebind(dmx_layout *layout, void *local)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    DMXI_CHECK(layout->d->cyclic, DMX_ERR_UNSUPPORTED,
               "only block-cyclic layouts (and their views) can be rebound");
    DMXI_CHECK(local || layout->nlocal == 0 || layout->m == 0 || layout->n == 0, DMX_ERR_NULL,
               "local is NULL but this rank owns %lld blocks of the layout",
               (long long)layout->nlocal);
    layout->base = local;
cleanup:
    return st;
}

dmx_status dmx_layout_get_owner(const dmx_layout *layout, int64_t i, int64_t j, int *owner)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(owner, DMX_ERR_NULL, "owner is NULL");
    *owner = -1;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    DMXI_CHECK(i >= 0 && j >= 0 && i < layout->m && j < layout->n, DMX_ERR_ARG,
               "element (%lld, %lld) is outside the %lld x %lld matrix", (long long)i, (long long)j,
               (long long)layout->m, (long long)layout->n);
    if (layout->d->local_only) { /* only this rank's own blocks are known */
        for (int64_t k = 0; k < layout->d->nlocal; k++) {
            const dmxi_lblock *b = &layout->d->blocks[k];
            if (i >= b->brow && i < b->brow + b->rows && j >= b->bcol && j < b->bcol + b->cols) {
                *owner = layout->d->rank;
                goto cleanup;
            }
        }
        goto cleanup;
    }
    *owner = dmxi_layout_block_owner(layout, dmxi_layout_row_block(layout, i),
                                     dmxi_layout_col_block(layout, j));
cleanup:
    return st;
}
