/* The exchange engine: runs a plan.
 *
 * 1. Start the persistent receives: one message per peer on another node (chunks only above the
 *    message limit), and a "ready" / "done" pair per peer on this node.
 * 2. For each peer, in rotated rank order so ranks do not all hit the same peer first: pack its
 *    pieces (a plain copy of B's sub-blocks, in A-column order) into the send buffer and send,
 *    or, for a node peer, into this rank's part of the shared window and say "ready".
 * 3. Apply the rectangles that are local in both layouts straight from B to A while the others
 *    move.
 * 4. As each package becomes available (any order), transform its pieces into A:
 *    A = alpha*op(piece) + beta*A ("transform upon receipt"), reading a node peer's package
 *    straight from its window and then saying "done" so the peer may reuse the space.
 * 5. Wait for the sends and the "done"s.
 * Each element that changes rank is copied twice on one node (pack, transform) and three times
 * across nodes (pack, MPI, transform); local elements are read once and written once.
 * DMX_PROFILE=1 prints the time of each phase per rank and execution.
 */
#include "exec/kernels.h"
#include "plan/plan.h"

#include <stdio.h>

static int is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

static int64_t elem_off(dmx_order o, int64_t ld, int64_t i, int64_t j)
{
    return o == DMX_COL_MAJOR ? i + j * ld : i * ld + j;
}

int dmxi_mask_inside(const dmx_transform *t, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    int up = t->uplo == 'U' || t->uplo == 'u', lo = t->uplo == 'L' || t->uplo == 'l';
    int64_t unit = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
    return (!up && !lo) || (up && c0 - (r0 + rows - 1) >= unit) ||
           (lo && r0 - (c0 + cols - 1) >= unit);
}

/* Rectangles cut by the trapezoid's diagonal go column by column. */
void dmxi_apply(const dmxi_xform *x, const char *src, int64_t sld, dmx_order sord, char *dst,
                int64_t dld, dmx_order dord, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    const dmx_transform *t = &x->t;
    if (dmxi_mask_inside(t, r0, c0, rows, cols)) {
        dmxi_kernel_apply(t->dtype, t->op, t->alpha, t->beta, src, sld, sord, dst, dld, dord, rows,
                          cols);
        return;
    }
    int up = t->uplo == 'U' || t->uplo == 'u';
    int64_t unit = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
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

static void pack_peer(const dmx_plan *p, const dmxi_peer *q, char *dst)
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
                          dst + pc->boff, brows, DMX_COL_MAJOR, brows, bcols);
    }
}

static void unpack_peer(const dmx_plan *p, const dmxi_peer *q, const char *src)
{
    for (int64_t i = q->first; i < q->first + q->count; i++) {
        const dmxi_piece *pc = &p->recv[i];
        const dmxi_xform *x = &p->xf[pc->t];
        int64_t brows = x->t.op == DMX_OP_N ? pc->rows : pc->cols;
        char *dst = dmxi_layout_addr(x->t.a, &pc->mem, x->esize);
        dmxi_apply(x, src + pc->boff, brows, DMX_COL_MAJOR, dst, pc->mem.ld, pc->mem.order, pc->r0,
                   pc->c0, pc->rows, pc->cols);
    }
}

static void apply_local(const dmx_plan *p)
{
    for (int64_t i = 0; i < p->nlocal; i++) {
        const dmxi_local *lp = &p->local[i];
        const dmxi_xform *x = &p->xf[lp->t];
        const char *src = dmxi_layout_addr(x->t.b, &lp->bmem, x->esize);
        char *dst = dmxi_layout_addr(x->t.a, &lp->amem, x->esize);
        dmxi_apply(x, src, lp->bmem.ld, lp->bmem.order, dst, lp->amem.ld, lp->amem.order, lp->r0,
                   lp->c0, lp->rows, lp->cols);
    }
}

dmx_status dmxi_plan_run(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    double t0 = MPI_Wtime(), t_pack = 0, t_local = 0, t_unpack = 0, t_wait = 0;
    if (p->nrreq > 0)
        DMXI_MPI(MPI_Startall(p->nrreq, p->rreq));
    for (int i = 0; i < p->nrpeer; i++)
        p->rpeer[i].pending = p->rpeer[i].nchunks;

    /* Pack for every peer, starting with the first rank above this one so ranks do not all
     * serve the same peer first. Node peers find their package in the shared window. */
    int start = 0;
    while (start < p->nspeer && p->speer[start].rank < p->rank)
        start++;
    for (int i = 0; i < p->nspeer; i++) {
        const dmxi_peer *q = &p->speer[(start + i) % p->nspeer];
        if (q->shm) {
            pack_peer(p, q, p->shm_buf + q->off);
            DMXI_MPI(dmxi_shm_sync(p));
            DMXI_MPI(MPI_Start(&p->sreq[q->ctl_req]));
        } else {
            pack_peer(p, q, p->sbuf + q->off);
            DMXI_MPI(MPI_Startall(q->nchunks, p->sreq + q->req0));
        }
    }
    t_pack = MPI_Wtime();
    apply_local(p);
    t_local = MPI_Wtime();

    /* Transform each package as it becomes available, in whatever order that happens. */
    for (int done = 0; done < p->nrreq; done++) {
        int idx = MPI_UNDEFINED;
        DMXI_MPI(MPI_Waitany(p->nrreq, p->rreq, &idx, MPI_STATUS_IGNORE));
        DMXI_CHECK(idx != MPI_UNDEFINED, DMX_ERR_INTERNAL, "no active receive left");
        int kind = p->rreq_kind[idx], pi = p->rreq_peer[idx];
        double u0 = MPI_Wtime();
        if (kind == DMXI_REQ_DATA) {
            dmxi_peer *q = &p->rpeer[pi];
            if (--q->pending == 0)
                unpack_peer(p, q, p->rbuf + q->off);
        } else if (kind == DMXI_REQ_READY) {
            const dmxi_peer *q = &p->rpeer[pi];
            DMXI_MPI(dmxi_shm_sync(p));
            unpack_peer(p, q, q->shm_src);
            DMXI_MPI(dmxi_shm_sync(p));
            DMXI_MPI(MPI_Start(&p->sreq[q->done_req])); /* the sender may reuse the space */
        }
        t_unpack += MPI_Wtime() - u0;
    }
    t_wait = MPI_Wtime();
    if (p->nsreq > 0)
        DMXI_MPI(MPI_Waitall(p->nsreq, p->sreq, MPI_STATUSES_IGNORE));
    if (p->profile)
        fprintf(stderr,
                "dmx profile rank %d: pack+start %.2f ms, local %.2f ms, wait %.2f ms, "
                "unpack %.2f ms, send wait %.2f ms, total %.2f ms\n",
                p->rank, 1e3 * (t_pack - t0), 1e3 * (t_local - t_pack),
                1e3 * (t_wait - t_local - t_unpack), 1e3 * t_unpack, 1e3 * (MPI_Wtime() - t_wait),
                1e3 * (MPI_Wtime() - t0));
cleanup:
    return st;
}
