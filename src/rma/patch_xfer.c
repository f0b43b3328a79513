/* SPDX-License-Identifier: BSD-3-Clause */
/* Patch transfers: the piece of a patch inside one owner block, moved by one MPI operation
 * with derived datatypes (remote side contiguous along the block's storage order), or copied
 * directly when the block is this rank's. See patch.c for the algorithm and its cost. */
#include "patch.h"

#include <stdint.h>
#include <string.h>

/* Direct copy or sum of a piece of one of this rank's blocks. */
static void local_piece(const dmx_patch *w, dmxi_rma_kind kind, const dmxi_patch_piece *p)
{
    size_t es = w->esize;
    if (kind != DMXI_RMA_ACC && p->rs_r == 1 && p->ls_r == 1) { /* columns are runs */
        for (int64_t c = 0; c < p->cols; c++) {
            char *rem = p->raddr + (size_t)(c * p->rs_c) * es;
            char *loc = p->local + (size_t)(c * p->ls_c) * es;
            if (kind == DMXI_RMA_GET)
                memcpy(loc, rem, (size_t)p->rows * es);
            else
                memcpy(rem, loc, (size_t)p->rows * es);
        }
        return;
    }
    for (int64_t c = 0; c < p->cols; c++)
        for (int64_t r = 0; r < p->rows; r++) {
            char *rem = p->raddr + (size_t)(r * p->rs_r + c * p->rs_c) * es;
            char *loc = p->local + (size_t)(r * p->ls_r + c * p->ls_c) * es;
            if (kind == DMXI_RMA_GET) {
                memcpy(loc, rem, es);
            } else if (kind == DMXI_RMA_PUT) {
                memcpy(rem, loc, es);
            } else if (w->real_float) {
                for (int q = 0; q < w->ncomp; q++)
                    ((float *)(void *)rem)[q] += ((const float *)(const void *)loc)[q];
            } else {
                for (int q = 0; q < w->ncomp; q++)
                    ((double *)(void *)rem)[q] += ((const double *)(const void *)loc)[q];
            }
        }
}

/* A datatype of n_out groups (byte stride s_out) of n_in elements (element stride s_in). */
static dmx_status make_type(const dmx_patch *w, int n_in, int64_t s_in, int n_out, int64_t s_out,
                            MPI_Datatype *out)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_Aint es = (MPI_Aint)w->esize;
    if (s_in == 1) {
        DMXI_MPI(MPI_Type_create_hvector(n_out, n_in, (MPI_Aint)s_out * es, w->etype, out));
    } else {
        DMXI_MPI(MPI_Type_create_hvector(n_in, 1, (MPI_Aint)s_in * es, w->etype, &inner));
        DMXI_MPI(MPI_Type_create_hvector(n_out, 1, (MPI_Aint)s_out * es, inner, out));
    }
    DMXI_MPI(MPI_Type_commit(out));
cleanup:
    if (inner != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&inner));
    return st;
}

static dmx_status remote_piece(dmx_patch *w, dmxi_rma_kind kind, int owner,
                               const dmxi_patch_piece *p)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Datatype lt = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
    int rows_in = p->rs_r == 1; /* the remote side is contiguous along rows (column-major) */
    int n_in = 0, n_out = 0;
    DMXI_TRY(dmxi_to_int(rows_in ? p->rows : p->cols, &n_in, "patch piece extent"));
    DMXI_TRY(dmxi_to_int(rows_in ? p->cols : p->rows, &n_out, "patch piece extent"));
    DMXI_TRY(make_type(w, n_in, 1, n_out, rows_in ? p->rs_c : p->rs_r, &rt));
    DMXI_TRY(
        make_type(w, n_in, rows_in ? p->ls_r : p->ls_c, n_out, rows_in ? p->ls_c : p->ls_r, &lt));
    if (kind == DMXI_RMA_GET)
        DMXI_MPI(MPI_Get(p->local, 1, lt, owner, p->rdisp, 1, rt, w->win));
    else if (kind == DMXI_RMA_PUT)
        DMXI_MPI(MPI_Put(p->local, 1, lt, owner, p->rdisp, 1, rt, w->win));
    else
        DMXI_MPI(MPI_Accumulate(p->local, 1, lt, owner, p->rdisp, 1, rt, MPI_SUM, w->win));
cleanup:
    if (lt != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&lt)); /* pending operations keep what they need */
    if (rt != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&rt));
    return st;
}

/* The part of the patch [i0, i0+m) x [j0, j0+n) inside table entry e. */
static dmx_status do_entry(dmx_patch *w, dmxi_rma_kind kind, const pentry *e, int64_t i0,
                           int64_t j0, int64_t m, int64_t n, char *buf, int64_t bs_r, int64_t bs_c,
                           int *remote)
{
    int64_t ra = e->r0 > i0 ? e->r0 : i0, rb = e->r0 + e->rows < i0 + m ? e->r0 + e->rows : i0 + m;
    int64_t ca = e->c0 > j0 ? e->c0 : j0, cb = e->c0 + e->cols < j0 + n ? e->c0 + e->cols : j0 + n;
    if (ra >= rb || ca >= cb)
        return DMX_SUCCESS;
    dmxi_patch_piece p;
    int colmaj = e->order == DMX_COL_MAJOR;
    int64_t roff =
        colmaj ? (ra - e->r0) + (ca - e->c0) * e->ld : (ra - e->r0) * e->ld + (ca - e->c0);
    p.rows = rb - ra;
    p.cols = cb - ca;
    p.rs_r = colmaj ? 1 : e->ld;
    p.rs_c = colmaj ? e->ld : 1;
    p.ls_r = bs_r;
    p.ls_c = bs_c;
    p.local = buf + (size_t)((ra - i0) * bs_r + (ca - j0) * bs_c) * w->esize;
    p.rdisp = MPI_Aint_add((MPI_Aint)e->addr, (MPI_Aint)(roff * (int64_t)w->esize));
    p.raddr = (char *)p.rdisp; /* meaningful on the owner only */
    if (e->owner == w->rank && (kind != DMXI_RMA_ACC || w->win == MPI_WIN_NULL)) {
        local_piece(w, kind, &p);
        return DMX_SUCCESS;
    }
    if (e->direct && kind != DMXI_RMA_ACC) { /* a node peer's block in a shared heap */
        p.raddr = (char *)(intptr_t)e->direct + (size_t)roff * w->esize;
        local_piece(w, kind, &p);
        if (kind == DMXI_RMA_PUT)
            w->direct_pending = 1;
        return DMX_SUCCESS;
    }
    if (dmxi_patch_cma(w, kind, e->owner, &p))
        return DMX_SUCCESS;
    if (w->cma_only) /* checked at open; a later failure (the owner exited?) is an error */
        return dmxi_error(DMX_ERR_MPI, __FILE__, __LINE__,
                          "process_vm_readv/writev to rank %d failed (patch without an MPI "
                          "window)",
                          e->owner);
    *remote = 1;
    dmxi_rma_touch(&w->call, e->owner);
    if (kind != DMXI_RMA_GET)
        dmxi_rma_touch(&w->pending, e->owner);
    return remote_piece(w, kind, e->owner, &p);
}

dmx_status dmxi_patch_xfer(dmx_patch *w, dmxi_rma_kind kind, int64_t i0, int64_t j0, int64_t m,
                           int64_t n, char *buf, int64_t ld, dmx_op op)
{
    dmx_status st = DMX_SUCCESS;
    int remote = 0;
    DMXI_CHECK(w != NULL, DMX_ERR_NULL, "patch window is NULL");
    DMXI_CHECK(w->L->base == w->base, DMX_ERR_STATE,
               "the layout was rebound (dmx_layout_rebind) on this rank after dmx_patch_open: the "
               "window still exposes the memory it had then; close and reopen it");
    DMXI_CHECK(op == DMX_OP_N || op == DMX_OP_T || op == DMX_OP_C, DMX_ERR_ARG, "invalid op %d",
               (int)op);
    DMXI_CHECK(m >= 0 && n >= 0 && i0 >= 0 && j0 >= 0, DMX_ERR_ARG,
               "negative patch position or size (%lld, %lld, %lld x %lld)", (long long)i0,
               (long long)j0, (long long)m, (long long)n);
    DMXI_CHECK(i0 <= w->L->m - m && j0 <= w->L->n - n, DMX_ERR_ARG,
               "patch (%lld, %lld) of %lld x %lld lies outside the %lld x %lld matrix",
               (long long)i0, (long long)j0, (long long)m, (long long)n, (long long)w->L->m,
               (long long)w->L->n);
    int64_t need = op == DMX_OP_N ? m : n;
    DMXI_CHECK(ld >= (need > 1 ? need : 1), DMX_ERR_ARG, "ld %lld < %lld", (long long)ld,
               (long long)(need > 1 ? need : 1));
    DMXI_CHECK(kind != DMXI_RMA_ACC || !w->cma_only, DMX_ERR_UNSUPPORTED,
               "dmx_patch_acc needs an MPI window, and this MPI has none for user memory (the "
               "patch reaches node peers through process_vm_readv/writev, which is not atomic)");
    if (m == 0 || n == 0)
        goto cleanup;
    DMXI_CHECK(buf != NULL, DMX_ERR_NULL, "buf is NULL");
    int64_t bs_r = op == DMX_OP_N ? 1 : ld, bs_c = op == DMX_OP_N ? ld : 1;
    if (w->grid) {
        const dmx_layout *L = w->L;
        int64_t bi0 = dmxi_layout_row_block(L, i0), bi1 = dmxi_layout_row_block(L, i0 + m - 1);
        int64_t bj0 = dmxi_layout_col_block(L, j0), bj1 = dmxi_layout_col_block(L, j0 + n - 1);
        for (int64_t bj = bj0; bj <= bj1; bj++) {
            pentry cur = {0};
            for (int64_t bi = bi0; bi <= bi1; bi++) {
                int64_t k = w->grid[bi * L->ncb + bj];
                DMXI_CHECK(k >= 0, DMX_ERR_INTERNAL, "block (%lld, %lld) has no owner entry",
                           (long long)bi, (long long)bj);
                const pentry *e = &w->ent[k];
                /* blocks stacked in the owner's memory (one column-major local array with one
                 * process row) form one taller block: fewer, longer runs */
                if (bi > bi0 && e->owner == cur.owner && e->order == DMX_COL_MAJOR &&
                    (e->direct != 0) == (cur.direct != 0) && e->heap == cur.heap &&
                    cur.order == DMX_COL_MAJOR && e->ld == cur.ld && e->c0 == cur.c0 &&
                    e->cols == cur.cols && e->addr == cur.addr + cur.rows * (int64_t)w->esize) {
                    cur.rows += e->rows;
                    continue;
                }
                if (bi > bi0)
                    DMXI_TRY(do_entry(w, kind, &cur, i0, j0, m, n, buf, bs_r, bs_c, &remote));
                cur = *e;
            }
            DMXI_TRY(do_entry(w, kind, &cur, i0, j0, m, n, buf, bs_r, bs_c, &remote));
        }
    } else {
        for (int64_t k = 0; k < w->nent; k++)
            DMXI_TRY(do_entry(w, kind, &w->ent[k], i0, j0, m, n, buf, bs_r, bs_c, &remote));
    }
    if (remote) /* get: the data is here; put/acc: buf may be reused */
        DMXI_TRY(dmxi_rma_flush_touched(&w->call, w->win, kind != DMXI_RMA_GET));
cleanup:
    return st;
}
