/* SPDX-License-Identifier: BSD-3-Clause */
/* Grid overlay (the paper's Algorithm 2 restricted to one rank): the rectangles where A's block
 * grid and op(B)'s block grid (seen in A's coordinates) meet, found from this rank's own blocks
 * only. On the receive side each of this rank's A blocks is cut by op(B)'s grid; on the send
 * side each of its B blocks, mapped into A's coordinates, is cut by A's grid. Rectangles that
 * miss the uplo/diag trapezoid are dropped; those whose both owners are this rank become local
 * rectangles (planned once, on the receive side).
 *
 * Preconditions: both layouts are known globally (local-only layouts go through directory.c);
 * the transforms were validated (op(B) has A's shape).
 * Cost per rank: proportional to the number of overlay rectangles that touch its own blocks
 * (the block searches are O(log) per block); no table over all ranks and no loop over all pairs
 * of ranks; no communication. Memory: the appended piece lists (about 64 bytes per rectangle).
 */
#include "plan.h"

typedef dmxi_piece_list piece_list;
typedef dmxi_local_list local_list;

/* Owners as ranks of the plan (through the maps when a layout's communicator orders the
 * processes differently). */
static int opb_owner(const dmxi_xform *x, int64_t p, int64_t q)
{
    int o = dmxi_opb_block_owner(x->t.b, x->t.op, p, q);
    return x->bmap ? x->bmap[o] : o;
}
static int a_owner(const dmxi_xform *x, int64_t p, int64_t q)
{
    int o = dmxi_layout_block_owner(x->t.a, p, q);
    return x->amap ? x->amap[o] : o;
}

/* Receive side of transform t: walk this rank's blocks of A, cut them by op(B)'s grid. */
static dmx_status enum_recv(const dmx_plan *p, int t, piece_list *recv, local_list *loc)
{
    dmx_status st = DMX_SUCCESS;
    const dmx_transform *tr = &p->xf[t].t;
    const dmx_layout *A = tr->a, *B = tr->b;
    for (int64_t k = 0; k < A->nlocal; k++) {
        int64_t bi, bj;
        dmxi_layout_local_block(A, k, &bi, &bj);
        int64_t ar0 = dmxi_layout_row_start(A, bi), ar1 = dmxi_layout_row_start(A, bi + 1);
        int64_t ac0 = dmxi_layout_col_start(A, bj), ac1 = dmxi_layout_col_start(A, bj + 1);
        if (ar0 >= ar1 || ac0 >= ac1)
            continue;
        for (int64_t pb = dmxi_opb_row_block(B, tr->op, ar0);; pb++) {
            int64_t r0 = dmxi_opb_row_start(B, tr->op, pb),
                    r1 = dmxi_opb_row_start(B, tr->op, pb + 1);
            if (r0 >= ar1)
                break;
            r0 = r0 > ar0 ? r0 : ar0;
            r1 = r1 < ar1 ? r1 : ar1;
            for (int64_t qb = dmxi_opb_col_block(B, tr->op, ac0);; qb++) {
                int64_t c0 = dmxi_opb_col_start(B, tr->op, qb),
                        c1 = dmxi_opb_col_start(B, tr->op, qb + 1);
                if (c0 >= ac1)
                    break;
                c0 = c0 > ac0 ? c0 : ac0;
                c1 = c1 < ac1 ? c1 : ac1;
                if (!dmxi_trapezoid_meets(tr, r0, c0, r1 - r0, c1 - c0))
                    continue;
                int owner = opb_owner(&p->xf[t], pb, qb);
                if (owner == p->rank) {
                    dmxi_local lp = {r0, c0, r1 - r0, c1 - c0, {0, 0, 0, 0}, {0, 0, 0, 0}, t};
                    DMXI_TRY(dmxi_layout_mem(A, r0, c0, &lp.amem));
                    DMXI_TRY(dmxi_opb_mem(B, tr->op, r0, c0, &lp.bmem));
                    DMXI_TRY(dmxi_local_push(loc, &lp));
                } else {
                    dmxi_piece pc = {.r0 = r0,
                                     .c0 = c0,
                                     .rows = r1 - r0,
                                     .cols = c1 - c0,
                                     .peer = owner,
                                     .t = t};
                    DMXI_TRY(dmxi_layout_mem(A, r0, c0, &pc.mem));
                    DMXI_TRY(dmxi_piece_push(recv, &pc));
                }
            }
        }
    }
cleanup:
    return st;
}

/* Walk this rank's blocks of B (as op(B) rectangles) cut by A's grid, calling visit(ctx,
 * owner, r0, c0, rows, cols) for each rectangle that meets the trapezoid; owner is the A owner
 * as a rank of the plan (through x->amap when set). */
dmx_status dmxi_walk_source(const dmxi_xform *x,
                            dmx_status (*visit)(void *ctx, int owner, int64_t r0, int64_t c0,
                                                int64_t rows, int64_t cols),
                            void *ctx)
{
    dmx_status st = DMX_SUCCESS;
    const dmx_transform *tr = &x->t;
    const dmx_layout *A = tr->a, *B = tr->b;
    if (A->m == 0 || A->n == 0)
        goto cleanup;
    for (int64_t k = 0; k < B->nlocal; k++) {
        int64_t bi, bj;
        dmxi_layout_local_block(B, k, &bi, &bj);
        int64_t br0 = dmxi_layout_row_start(B, bi), br1 = dmxi_layout_row_start(B, bi + 1);
        int64_t bc0 = dmxi_layout_col_start(B, bj), bc1 = dmxi_layout_col_start(B, bj + 1);
        int64_t ar0, ar1, ac0, ac1; /* the block as a rectangle of op(B) */
        dmxi_opb_coords(tr->op, br0, bc0, &ar0, &ac0);
        dmxi_opb_coords(tr->op, br1, bc1, &ar1, &ac1);
        if (ar0 >= ar1 || ac0 >= ac1)
            continue;
        for (int64_t pb = dmxi_layout_row_block(A, ar0);; pb++) {
            int64_t r0 = dmxi_layout_row_start(A, pb), r1 = dmxi_layout_row_start(A, pb + 1);
            if (r0 >= ar1)
                break;
            r0 = r0 > ar0 ? r0 : ar0;
            r1 = r1 < ar1 ? r1 : ar1;
            for (int64_t qb = dmxi_layout_col_block(A, ac0);; qb++) {
                int64_t c0 = dmxi_layout_col_start(A, qb), c1 = dmxi_layout_col_start(A, qb + 1);
                if (c0 >= ac1)
                    break;
                c0 = c0 > ac0 ? c0 : ac0;
                c1 = c1 < ac1 ? c1 : ac1;
                if (dmxi_trapezoid_meets(tr, r0, c0, r1 - r0, c1 - c0))
                    DMXI_TRY(visit(ctx, a_owner(x, pb, qb), r0, c0, r1 - r0, c1 - c0));
            }
        }
    }
cleanup:
    return st;
}

typedef struct send_ctx {
    const dmx_plan *p;
    int t;
    piece_list *send;
} send_ctx;

static dmx_status add_send(void *ctx, int owner, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    dmx_status st = DMX_SUCCESS;
    send_ctx *c = ctx;
    const dmx_transform *tr = &c->p->xf[c->t].t;
    if (owner == c->p->rank)
        return DMX_SUCCESS; /* planned on the receive side */
    dmxi_piece pc = {.r0 = r0, .c0 = c0, .rows = rows, .cols = cols, .peer = owner, .t = c->t};
    DMXI_TRY(dmxi_opb_mem(tr->b, tr->op, r0, c0, &pc.mem));
    DMXI_TRY(dmxi_piece_push(c->send, &pc));
cleanup:
    return st;
}

/* Send side of transform t; rectangles whose A owner is this rank were planned on the receive
 * side. */
static dmx_status enum_send(const dmx_plan *p, int t, piece_list *send)
{
    send_ctx c = {p, t, send};
    return dmxi_walk_source(&p->xf[t], add_send, &c);
}

dmx_status dmxi_overlay_transform(const dmx_plan *p, int t, dmxi_piece_list *recv,
                                  dmxi_local_list *loc, dmxi_piece_list *send, dmxi_seg_list *segs)
{
    int done = 0;
    dmx_status st = dmxi_overlay_runs(p, t, recv, loc, send, segs, &done);
    if (st != DMX_SUCCESS || done)
        return st;
    st = enum_recv(p, t, recv, loc);
    if (st == DMX_SUCCESS)
        st = enum_send(p, t, send);
    return st;
}
