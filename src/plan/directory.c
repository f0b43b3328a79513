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

#include <math.h>
#include <string.h>

/* ---- the directory's partition of A's index space ------------------------------------------ */

static void geom_init(dir_geom *g, int64_t m, int64_t n, int size)
{
    memset(g, 0, sizeof *g);
    g->m = m, g->n = n, g->size = size;
    if (m == 0 || n == 0)
        return;
    int64_t pr = (int64_t)llround(sqrt((double)size * (double)m / (double)n));
    int64_t maxr = m < size ? m : size;
    pr = pr < 1 ? 1 : pr > maxr ? maxr : pr;
    int64_t pc = size / pr;
    pc = pc < 1 ? 1 : pc > n ? n : pc;
    pr = size / pc < m ? size / pc : m;
    g->pr = pr, g->pc = pc, g->nreg = pr * pc;
    g->rbase = m / pr, g->rrem = m % pr;
    g->cbase = n / pc, g->crem = n % pc;
}

/* Start of part i of an extent cut into parts of base (+1 for the first rem) elements. */
static int64_t part_start(int64_t base, int64_t rem, int64_t i)
{
    return i * base + (i < rem ? i : rem);
}

/* Part containing index x. */
static int64_t part_of(int64_t base, int64_t rem, int64_t x)
{
    int64_t big = rem * (base + 1);
    return x < big ? x / (base + 1) : rem + (x - big) / base;
}

static int geom_owner(const dir_geom *g, int64_t k)
{
    return (int)(k * g->size / g->nreg);
}

/* The region this rank keeps, or -1 (floor(k*P/D) is strictly increasing since D <= P). */
int64_t dmxi_dir_region_of(const dir_geom *g, int rank)
{
    if (g->nreg == 0)
        return -1;
    int64_t k = ((int64_t)rank * g->nreg + g->size - 1) / g->size;
    return k < g->nreg && geom_owner(g, k) == rank ? k : -1;
}

void dmxi_dir_region(const dir_geom *g, int64_t k, int64_t *r0, int64_t *c0, int64_t *r1,
                     int64_t *c1)
{
    int64_t i = k / g->pc, j = k % g->pc;
    *r0 = part_start(g->rbase, g->rrem, i);
    *r1 = part_start(g->rbase, g->rrem, i + 1);
    *c0 = part_start(g->cbase, g->crem, j);
    *c1 = part_start(g->cbase, g->crem, j + 1);
}

dmx_status dmxi_dir_outbox_add(outbox *ob, int64_t dest, const void *rec)
{
    dmx_status st = DMX_SUCCESS;
    int64_t w = ob->words + 1, need;
    DMXI_TRY(dmxi_mul64(ob->n + 1, w, &need));
    DMXI_TRY(dmxi_reserve((void **)&ob->v, &ob->cap, need, sizeof(int64_t)));
    ob->v[ob->n * w] = dest;
    memcpy(&ob->v[ob->n * w + 1], rec, (size_t)ob->words * sizeof(int64_t));
    ob->n++;
cleanup:
    return st;
}

static int cmp_dest(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Sort by destination, compact the records in place (dropping the destinations) and describe
 * one exchange entry per destination (more only if a payload would exceed INT_MAX bytes). */
dmx_status dmxi_dir_outbox_pack(outbox *ob)
{
    dmx_status st = DMX_SUCCESS;
    int64_t w = ob->words + 1, rbytes = ob->words * (int64_t)sizeof(int64_t);
    int64_t per = INT_MAX / rbytes; /* records per payload */
    int64_t nsend = 0;
    if (ob->n > 1)
        qsort(ob->v, (size_t)ob->n, (size_t)w * sizeof(int64_t), cmp_dest);
    for (int64_t i = 0, run = 0; i < ob->n; i++) {
        run = (i > 0 && ob->v[i * w] == ob->v[(i - 1) * w]) ? run + 1 : 0;
        nsend += run % per == 0;
    }
    ob->sends = dmxi_malloc(nsend, sizeof *ob->sends);
    DMXI_CHECK(ob->sends, DMX_ERR_ALLOC, "out of memory for %lld directory messages",
               (long long)nsend);
    /* Entries first (they read the destinations), recording record offsets in .data. */
    nsend = 0;
    for (int64_t i = 0, run = 0; i < ob->n; i++) {
        run = (i > 0 && ob->v[i * w] == ob->v[(i - 1) * w]) ? run + 1 : 0;
        if (run % per == 0) {
            DMXI_TRY(dmxi_to_int(ob->v[i * w], &ob->sends[nsend].dest, "directory rank"));
            ob->sends[nsend].data = NULL;
            ob->sends[nsend].bytes = (int64_t)i; /* first record, turned into bytes below */
            nsend++;
        }
    }
    for (int64_t i = 0; i < ob->n; i++) /* destination i*w+1 >= record i*words: moves left */
        memmove(&ob->v[i * ob->words], &ob->v[i * w + 1], (size_t)rbytes);
    for (int64_t s = 0; s < nsend; s++) {
        int64_t first = ob->sends[s].bytes;
        int64_t last = s + 1 < nsend ? ob->sends[s + 1].bytes : ob->n;
        ob->sends[s].data = &ob->v[first * ob->words];
        ob->sends[s].bytes = (last - first) * rbytes;
    }
    ob->nsend = nsend;
cleanup:
    return st;
}

static void outbox_free(outbox *ob)
{
    free(ob->v);
    free(ob->sends);
    ob->v = NULL, ob->sends = NULL;
    ob->n = ob->cap = ob->nsend = 0;
}

/* Records of one exchange result, checked for whole records. */
dmx_status dmxi_dir_records(const dmx_exchange_result *res, int64_t i, size_t rsize, int *source,
                            const unsigned char **data, int64_t *count)
{
    dmx_status st = DMX_SUCCESS;
    const void *d = NULL;
    int64_t bytes = 0;
    DMXI_TRY(dmx_exchange_result_get(res, i, source, &d, &bytes));
    DMXI_CHECK(bytes % (int64_t)rsize == 0, DMX_ERR_INTERNAL,
               "directory message of %lld bytes from rank %d is not whole records",
               (long long)bytes, *source);
    *data = d;
    *count = bytes / (int64_t)rsize;
cleanup:
    return st;
}

/* ---- step 1: registration ------------------------------------------------------------------- */

/* Send the parts of rectangle (r0, c0, rows, cols) of side `side`, local block k, to the regions
 * it meets. */
static dmx_status register_rect(const dir_geom *g, outbox *ob, int64_t side, int64_t k, int64_t r0,
                                int64_t c0, int64_t rows, int64_t cols)
{
    dmx_status st = DMX_SUCCESS;
    int64_t i0 = part_of(g->rbase, g->rrem, r0), i1 = part_of(g->rbase, g->rrem, r0 + rows - 1);
    int64_t j0 = part_of(g->cbase, g->crem, c0), j1 = part_of(g->cbase, g->crem, c0 + cols - 1);
    for (int64_t i = i0; i <= i1; i++) {
        for (int64_t j = j0; j <= j1; j++) {
            int64_t k2 = i * g->pc + j, gr0, gc0, gr1, gc1;
            dmxi_dir_region(g, k2, &gr0, &gc0, &gr1, &gc1);
            int64_t a0 = r0 > gr0 ? r0 : gr0, a1 = r0 + rows < gr1 ? r0 + rows : gr1;
            int64_t b0 = c0 > gc0 ? c0 : gc0, b1 = c0 + cols < gc1 ? c0 + cols : gc1;
            dir_reg rec = {a0, b0, a1 - a0, b1 - b0, k, side};
            DMXI_TRY(dmxi_dir_outbox_add(ob, geom_owner(g, k2), &rec));
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
    geom_init(&g, x->t.a->m, x->t.a->n, p->size);
    if (g.nreg == 0)
        return DMX_SUCCESS;

    local = make_registrations(&g, x, &regs);
    DMXI_TRY(dmxi_agree(p->comm, local));
    local = dmxi_exchange(p->comm, DMXI_DIR_TAG, DMX_EXCHANGE_AUTO, regs.nsend, regs.sends, &res);
    outbox_free(&regs);
    if (local == DMX_SUCCESS)
        local = dmxi_dir_match_region(&g, p, x, res, &notes);
    dmx_exchange_result_destroy(&res);
    DMXI_TRY(dmxi_agree(p->comm, local));
    local =
        dmxi_exchange(p->comm, DMXI_DIR_TAG + 1, DMX_EXCHANGE_AUTO, notes.nsend, notes.sends, &res);
    outbox_free(&notes);
    if (local == DMX_SUCCESS)
        local = make_pieces(p, t, res, recv, loc, send);
    DMXI_TRY(dmxi_agree(p->comm, local));
cleanup:
    outbox_free(&regs);
    outbox_free(&notes);
    dmx_exchange_result_destroy(&res);
    return st;
}
