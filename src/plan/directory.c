/* SPDX-License-Identifier: BSD-3-Clause */
/* Partner discovery for layouts known only locally: an assumed-partition directory.
 *
 * No rank knows who owns the rest of A or of B, so the ranks meet in a directory that every rank
 * can locate on its own. A's index space (m x n, A's window coordinates) is cut into D <= P
 * regions, a pr x pc grid of near-square rectangles whose shape follows m / n; region
 * (i, j) = k = i*pc + j is kept by plan rank floor(k*P/D), which spreads the directory ranks over
 * the whole communicator when D < P. Then:
 *
 *  1. Registration (sparse exchange, tag DMXI_DIR_TAG): every rank sends each region the parts of
 *     its A blocks and of its op(B) blocks (its B blocks mapped into A's coordinates: transposed
 *     for op T/C) that fall inside the region, tagged with its local block index. A layout
 *     described globally is registered the same way, from this rank's own blocks only. The
 *     registering rank is the sender on the plan's communicator, so owners come out as plan ranks
 *     whatever the order of the layouts' communicators.
 *  2. Matching (local to each directory rank; directory_match.c): a sweep over the region's rows
 * with, per side, an ordered set of the active column intervals (a bit tree over the distinct
 * column starts). Inserting a rectangle checks it against its neighbours on its own side (two
 * rectangles of one layout overlapping: DMX_ERR_LAYOUT) and reports every active rectangle of the
 * other side that it meets; the sum of areas per side must then equal the region's area (else a
 *     gap: DMX_ERR_LAYOUT). Intersections that miss the uplo/diag trapezoid are dropped (the
 *     trapezoid rule of layout/window.h).
 *  3. Notification (sparse exchange, tag DMXI_DIR_TAG + 1): one record per intersection to the A
 *     owner ("receive this rectangle from rank s into your block k") and one to the B owner
 *     ("send it to rank r from your block k'"), or a single record when one rank owns both.
 *  4. Every rank turns its records into receive, local and send pieces exactly as the global
 *     planner does; rectangles may be cut further at region boundaries, identically on both
 *     sides, so both sides order a package the same way.
 * Every step's status is agreed on the plan's communicator before the next collective step, so
 * all ranks return the same code and none is left waiting in an exchange.
 *
 * Cost per rank. Let b be the number of its own blocks of A and B, g the number of (block,
 * region) incidences among them (at most b*D; at most 4b when blocks are smaller than a region),
 * N the number of rectangles registered in the region it keeps, K the intersections found there
 * and q the pieces it takes part in.
 *  - Time: O(g log g) to build and sort the registrations, O((N + K) log N) for the sweep,
 *    O(K log K) to sort the notifications, O(q) to build the pieces.
 *  - Communication: two sparse exchanges (this rank sends to the directory ranks of the regions
 *    its blocks meet and to the owners it notifies; the protocol adds what src/exchange says)
 *    and three agreements (one-integer allreduces).
 *  - Memory: 56 bytes per registration and 72 per notification it sends (destination and
 *    record; sorted by destination and compacted in place), the records it receives (48 bytes
 *    per registration, 64 per notification), about 90 bytes per rectangle of its region during
 *    the sweep, plus the scratch the C library's qsort may allocate.
 * Nothing is sized by the number of ranks and no loop runs over ranks or pairs of ranks (error
 * messages alone look a rank up in the layout's rank map).
 */
#include "directory.h"

#include <string.h>

/* ---- step 1: registration ------------------------------------------------------------------- */

/* Send the parts of rectangle (r0, c0, rows, cols) of side `side`, local block k, to the regions
 * it meets. */
static dmx_status register_rect(const dir_geom *g, outbox *ob, int64_t side, int64_t k, int64_t r0,
                                int64_t c0, int64_t rows, int64_t cols)
{
    dmx_status st = DMX_SUCCESS;
    int64_t i0 = dmxi_dir_part_of(g->rbase, g->rrem, r0),
            i1 = dmxi_dir_part_of(g->rbase, g->rrem, r0 + rows - 1);
    int64_t j0 = dmxi_dir_part_of(g->cbase, g->crem, c0),
            j1 = dmxi_dir_part_of(g->cbase, g->crem, c0 + cols - 1);
    for (int64_t i = i0; i <= i1; i++) {
        for (int64_t j = j0; j <= j1; j++) {
            int64_t k2 = i * g->pc + j, gr0, gc0, gr1, gc1;
            dmxi_dir_region(g, k2, &gr0, &gc0, &gr1, &gc1);
            int64_t a0 = r0 > gr0 ? r0 : gr0, a1 = r0 + rows < gr1 ? r0 + rows : gr1;
            int64_t b0 = c0 > gc0 ? c0 : gc0, b1 = c0 + cols < gc1 ? c0 + cols : gc1;
            dir_reg rec = {a0, b0, a1 - a0, b1 - b0, k, side};
            DMXI_TRY(dmxi_dir_outbox_add(ob, dmxi_dir_owner(g, k2), &rec));
        }
    }
cleanup:
    return st;
}

static dmx_status make_registrations(const dir_geom *g, const dmxi_xform *x, outbox *ob)
{
    dmx_status st = DMX_SUCCESS;
    for (int64_t side = SIDE_A; side <= SIDE_B; side++) {
        const dmx_layout *L = side == SIDE_A ? x->t.a : x->t.b;
        const dmx_op op = side == SIDE_B ? x->t.op : DMX_OP_N; /* B as op(B) */
        for (int64_t k = 0; k < L->nlocal; k++) {
            int64_t r0, c0, rows, cols;
            dmxi_opb_local_rect(L, op, k, &r0, &c0, &rows, &cols);
            if (rows <= 0 || cols <= 0)
                continue;
            DMXI_TRY(register_rect(g, ob, side, k, r0, c0, rows, cols));
        }
    }
    DMXI_TRY(dmxi_dir_outbox_pack(ob));
cleanup:
    return st;
}

/* ---- step 4: pieces ------------------------------------------------------------------------- */

static dmx_status make_pieces(const dmx_plan *p, int t, const dmx_exchange_result *res,
                              dmxi_piece_list *recv, dmxi_local_list *loc, dmxi_piece_list *send)
{
    dmx_status st = DMX_SUCCESS;
    const dmx_transform *tr = &p->xf[t].t;
    const dmx_layout *A = tr->a, *B = tr->b;
    int64_t nent = 0;
    DMXI_TRY(dmx_exchange_result_get_count(res, &nent));
    for (int64_t e = 0; e < nent; e++) {
        int src = -1;
        const unsigned char *d = NULL;
        int64_t cnt = 0;
        DMXI_TRY(dmxi_dir_records(res, e, sizeof(dir_note), &src, &d, &cnt));
        for (int64_t i = 0; i < cnt; i++) {
            dir_note n;
            memcpy(&n, d + (size_t)i * sizeof n, sizeof n);
            int remote = n.kind == NOTE_RECV || n.kind == NOTE_SEND;
            DMXI_CHECK((remote || n.kind == NOTE_LOCAL) && n.rows >= 1 && n.cols >= 1 &&
                           n.peer >= 0 && n.peer < p->size && (n.peer == p->rank) != remote,
                       DMX_ERR_INTERNAL, "invalid directory notification from rank %d", src);
            if (n.kind == NOTE_LOCAL) {
                dmxi_local lp = {.r0 = n.r0, .c0 = n.c0, .rows = n.rows, .cols = n.cols, .t = t};
                DMXI_TRY(dmxi_layout_mem_in_block(A, n.ka, n.r0, n.c0, &lp.amem));
                DMXI_TRY(dmxi_opb_mem_in_block(B, tr->op, n.kb, n.r0, n.c0, &lp.bmem));
                DMXI_TRY(dmxi_local_push(loc, &lp));
            } else {
                dmxi_piece pc = {.r0 = n.r0,
                                 .c0 = n.c0,
                                 .rows = n.rows,
                                 .cols = n.cols,
                                 .peer = (int)n.peer,
                                 .t = t};
                if (n.kind == NOTE_RECV) {
                    DMXI_TRY(dmxi_layout_mem_in_block(A, n.ka, n.r0, n.c0, &pc.mem));
                    DMXI_TRY(dmxi_piece_push(recv, &pc));
                } else {
                    DMXI_TRY(dmxi_opb_mem_in_block(B, tr->op, n.kb, n.r0, n.c0, &pc.mem));
                    DMXI_TRY(dmxi_piece_push(send, &pc));
                }
            }
        }
    }
cleanup:
    return st;
}

/* ---- the collective driver ------------------------------------------------------------------ */

dmx_status dmxi_plan_directory(const dmx_plan *p, int t, dmxi_piece_list *recv,
                               dmxi_local_list *loc, dmxi_piece_list *send)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    const dmxi_xform *x = &p->xf[t];
    dir_geom g;
    outbox regs = {NULL, 0, 0, sizeof(dir_reg) / sizeof(int64_t), NULL, 0};
    outbox notes = {NULL, 0, 0, sizeof(dir_note) / sizeof(int64_t), NULL, 0};
    dmx_exchange_result *res = NULL;
    /* Every rank sees the same (validated) sizes, so all return here together. */
    dmxi_dir_geom_init(&g, x->t.a->m, x->t.a->n, p->size);
    if (g.nreg == 0)
        return DMX_SUCCESS;

    local = make_registrations(&g, x, &regs);
    DMXI_TRY(dmxi_agree(p->comm, local));
    local = dmxi_exchange(p->comm, DMXI_DIR_TAG, DMX_EXCHANGE_AUTO, regs.nsend, regs.sends, &res);
    dmxi_dir_outbox_free(&regs);
    if (local == DMX_SUCCESS)
        local = dmxi_dir_match_region(&g, p, x, res, &notes);
    dmx_exchange_result_destroy(&res);
    DMXI_TRY(dmxi_agree(p->comm, local));
    local =
        dmxi_exchange(p->comm, DMXI_DIR_TAG + 1, DMX_EXCHANGE_AUTO, notes.nsend, notes.sends, &res);
    dmxi_dir_outbox_free(&notes);
    if (local == DMX_SUCCESS)
        local = make_pieces(p, t, res, recv, loc, send);
    DMXI_TRY(dmxi_agree(p->comm, local));
cleanup:
    dmxi_dir_outbox_free(&regs);
    dmxi_dir_outbox_free(&notes);
    dmx_exchange_result_destroy(&res);
    return st;
}
