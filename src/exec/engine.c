/* The exchange engine: runs a plan.
 *
 * 1. Start the persistent receives (one message per peer; chunks only above the message limit).
 * 2. For each peer, in rotated rank order so ranks do not all hit the same peer first: pack its
 *    pieces (a plain copy of B's sub-blocks) into the send buffer and start the sends.
 * 3. Apply the rectangles that are local in both layouts straight from B to A while messages fly.
 * 4. As each peer's message completes (any order), transform its pieces into A:
 *    A = alpha*op(piece) + beta*A ("transform upon receipt", overlapping the other transfers).
 * 5. Wait for the sends.
 * Each element crosses memory at most: read B + write buffer (pack), the MPI transfer, read
 * buffer + (read A) + write A (unpack). Local elements are read once and written once.
 */
#include "exec/kernels.h"
#include "plan/plan.h"

static int is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

static int64_t elem_off(dmx_order o, int64_t ld, int64_t i, int64_t j)
{
    return o == DMX_COL_MAJOR ? i + j * ld : i * ld + j;
}

/* D = alpha*op(S) + beta*D on a rows x cols rectangle of transform t whose origin in A is
 * (r0, c0), limited to t's trapezoid: rectangles cut by the diagonal go column by column. */
static void apply(const dmxi_xform *x, const char *src, int64_t sld, dmx_order sord, char *dst,
                  int64_t dld, dmx_order dord, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    const dmx_transform *t = &x->t;
    int up = t->uplo == 'U' || t->uplo == 'u', lo = t->uplo == 'L' || t->uplo == 'l';
    int64_t unit = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
    int inside = (!up && !lo) || (up && c0 - (r0 + rows - 1) >= unit) ||
                 (lo && r0 - (c0 + cols - 1) >= unit);
    if (inside) {
        dmxi_kernel_apply(t->dtype, t->op, t->alpha, t->beta, src, sld, sord, dst, dld, dord, rows,
                          cols);
        return;
    }
    for (int64_t jj = 0; jj < cols; jj++) {
        int64_t j = c0 + jj, i0 = 0, i1 = rows; /* allowed rows [i0, i1) of this column */
        if (up) {
            int64_t last = j - unit - r0; /* i <= j - unit */
            i1 = last + 1 < rows ? last + 1 : rows;
        } else {
            int64_t first = j + unit - r0; /* i >= j + unit */
            i0 = first > 0 ? first : 0;
        }
        if (i0 >= i1)
            continue;
        int64_t so = t->op == DMX_OP_N ? elem_off(sord, sld, i0, jj) : elem_off(sord, sld, jj, i0);
        dmxi_kernel_apply(t->dtype, t->op, t->alpha, t->beta, src + (size_t)so * x->esize, sld,
                          sord, dst + (size_t)elem_off(dord, dld, i0, jj) * x->esize, dld, dord,
                          i1 - i0, 1);
    }
}

static void pack_peer(const dmx_plan *p, const dmxi_peer *q)
{
    static const dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    for (int64_t i = q->first; i < q->first + q->count; i++) {
        const dmxi_piece *pc = &p->send[i];
        const dmxi_xform *x = &p->xf[pc->t];
        if (is_zero(x->t.alpha))
            continue; /* alpha = 0 never reads B; the receiver ignores the bytes */
        int64_t brows = x->t.op == DMX_OP_N ? pc->rows : pc->cols;
        int64_t bcols = x->t.op == DMX_OP_N ? pc->cols : pc->rows;
        const char *src = dmxi_layout_addr(x->t.b, &pc->mem, x->esize);
        dmxi_kernel_apply(x->t.dtype, DMX_OP_N, one, zero, src, pc->mem.ld, pc->mem.order,
                          p->sbuf + q->off + pc->boff, brows, DMX_COL_MAJOR, brows, bcols);
    }
}

static void unpack_peer(const dmx_plan *p, const dmxi_peer *q)
{
    for (int64_t i = q->first; i < q->first + q->count; i++) {
        const dmxi_piece *pc = &p->recv[i];
        const dmxi_xform *x = &p->xf[pc->t];
        int64_t brows = x->t.op == DMX_OP_N ? pc->rows : pc->cols;
        char *dst = dmxi_layout_addr(x->t.a, &pc->mem, x->esize);
        apply(x, p->rbuf + q->off + pc->boff, brows, DMX_COL_MAJOR, dst, pc->mem.ld, pc->mem.order,
              pc->r0, pc->c0, pc->rows, pc->cols);
    }
}

static void apply_local(const dmx_plan *p)
{
    for (int64_t i = 0; i < p->nlocal; i++) {
        const dmxi_local *lp = &p->local[i];
        const dmxi_xform *x = &p->xf[lp->t];
        const char *src = dmxi_layout_addr(x->t.b, &lp->bmem, x->esize);
        char *dst = dmxi_layout_addr(x->t.a, &lp->amem, x->esize);
        apply(x, src, lp->bmem.ld, lp->bmem.order, dst, lp->amem.ld, lp->amem.order, lp->r0, lp->c0,
              lp->rows, lp->cols);
    }
}

dmx_status dmxi_plan_run(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    if (p->nrreq > 0)
        DMXI_MPI(MPI_Startall(p->nrreq, p->rreq));
    for (int i = 0; i < p->nrpeer; i++)
        p->rpeer[i].pending = p->rpeer[i].nchunks;

    /* Peers are sorted by rank: start with the first one above this rank. */
    int start = 0;
    while (start < p->nspeer && p->speer[start].rank < p->rank)
        start++;
    for (int i = 0; i < p->nspeer; i++) {
        const dmxi_peer *q = &p->speer[(start + i) % p->nspeer];
        pack_peer(p, q);
        DMXI_MPI(MPI_Startall(q->nchunks, p->sreq + q->req0));
    }

    apply_local(p);

    for (int done = 0; done < p->nrreq; done++) {
        int idx = MPI_UNDEFINED;
        DMXI_MPI(MPI_Waitany(p->nrreq, p->rreq, &idx, MPI_STATUS_IGNORE));
        DMXI_CHECK(idx != MPI_UNDEFINED, DMX_ERR_INTERNAL, "no active receive left");
        dmxi_peer *q = &p->rpeer[p->rreq_peer[idx]];
        if (--q->pending == 0)
            unpack_peer(p, q);
    }
    if (p->nsreq > 0)
        DMXI_MPI(MPI_Waitall(p->nsreq, p->sreq, MPI_STATUSES_IGNORE));
cleanup:
    return st;
}
