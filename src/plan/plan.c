/* Planning: overlay the grids of A and op(B) on this rank's own blocks (the paper's Algorithm 2
 * restricted to one rank), group the rectangles by peer into packages, and set up buffers and
 * persistent requests.
 *
 * Cost per rank: proportional to the number of overlay rectangles that touch its own blocks
 * (plus a sort of them); no table over all ranks and no loop over all pairs of ranks.
 * Memory held by a plan: the piece lists (about 64 bytes per rectangle; pieces are cut to at
 * most a ring chunk), a send and a receive buffer as large as what this rank exchanges with
 * other nodes, and a ring of at most 4 chunks per peer on this node (shm.c); the total is
 * dmx_plan_info.buffer_bytes. Local rectangles use no buffer.
 */
#include "plan/plan.h"

#include <string.h>

typedef dmxi_piece_list piece_list;
typedef dmxi_local_list local_list;

/* ---- the op(B) grid seen in A's coordinates ---------------------------------------------- */

static int64_t opb_row_start(const dmx_layout *B, dmx_op op, int64_t k)
{
    return op == DMX_OP_N ? dmxi_layout_row_start(B, k) : dmxi_layout_col_start(B, k);
}
static int64_t opb_col_start(const dmx_layout *B, dmx_op op, int64_t k)
{
    return op == DMX_OP_N ? dmxi_layout_col_start(B, k) : dmxi_layout_row_start(B, k);
}
static int64_t opb_row_block(const dmx_layout *B, dmx_op op, int64_t r)
{
    return op == DMX_OP_N ? dmxi_layout_row_block(B, r) : dmxi_layout_col_block(B, r);
}
static int64_t opb_col_block(const dmx_layout *B, dmx_op op, int64_t c)
{
    return op == DMX_OP_N ? dmxi_layout_col_block(B, c) : dmxi_layout_row_block(B, c);
}
static int opb_owner(const dmxi_xform *x, int64_t p, int64_t q)
{
    const dmx_layout *B = x->t.b;
    int o =
        x->t.op == DMX_OP_N ? dmxi_layout_block_owner(B, p, q) : dmxi_layout_block_owner(B, q, p);
    return x->bmap ? x->bmap[o] : o;
}
static int a_owner(const dmxi_xform *x, int64_t p, int64_t q)
{
    int o = dmxi_layout_block_owner(x->t.a, p, q);
    return x->amap ? x->amap[o] : o;
}
/* B's memory for the op(B) element at A coordinates (r, c). */
static dmx_status opb_mem(const dmx_layout *B, dmx_op op, int64_t r, int64_t c, dmxi_mem *mem)
{
    return op == DMX_OP_N ? dmxi_layout_mem(B, r, c, mem) : dmxi_layout_mem(B, c, r, mem);
}

/* Does the trapezoid of transform t meet the rectangle at all? */
static int mask_meets(const dmx_transform *t, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    int64_t unit = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
    if (t->uplo == 'U' || t->uplo == 'u')
        return (c0 + cols - 1) - r0 >= unit; /* max (j - i) */
    if (t->uplo == 'L' || t->uplo == 'l')
        return (r0 + rows - 1) - c0 >= unit; /* max (i - j) */
    return 1;
}

/* ---- enumeration ---------------------------------------------------------------------------- */

dmx_status dmxi_piece_push(dmxi_piece_list *l, const dmxi_piece *pc)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v));
    l->v[l->n++] = *pc;
cleanup:
    return st;
}

dmx_status dmxi_local_push(dmxi_local_list *l, const dmxi_local *lp)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v));
    l->v[l->n++] = *lp;
cleanup:
    return st;
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
        for (int64_t pb = opb_row_block(B, tr->op, ar0);; pb++) {
            int64_t r0 = opb_row_start(B, tr->op, pb), r1 = opb_row_start(B, tr->op, pb + 1);
            if (r0 >= ar1)
                break;
            r0 = r0 > ar0 ? r0 : ar0;
            r1 = r1 < ar1 ? r1 : ar1;
            for (int64_t qb = opb_col_block(B, tr->op, ac0);; qb++) {
                int64_t c0 = opb_col_start(B, tr->op, qb), c1 = opb_col_start(B, tr->op, qb + 1);
                if (c0 >= ac1)
                    break;
                c0 = c0 > ac0 ? c0 : ac0;
                c1 = c1 < ac1 ? c1 : ac1;
                if (!mask_meets(tr, r0, c0, r1 - r0, c1 - c0))
                    continue;
                int owner = opb_owner(&p->xf[t], pb, qb);
                if (owner == p->rank) {
                    dmxi_local lp = {r0, c0, r1 - r0, c1 - c0, {0, 0, 0, 0}, {0, 0, 0, 0}, t};
                    DMXI_TRY(dmxi_layout_mem(A, r0, c0, &lp.amem));
                    DMXI_TRY(opb_mem(B, tr->op, r0, c0, &lp.bmem));
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
        int64_t ar0 = br0, ar1 = br1, ac0 = bc0, ac1 = bc1;
        if (tr->op != DMX_OP_N)
            ar0 = bc0, ar1 = bc1, ac0 = br0, ac1 = br1;
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
                if (mask_meets(tr, r0, c0, r1 - r0, c1 - c0))
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
    DMXI_TRY(opb_mem(tr->b, tr->op, r0, c0, &pc.mem));
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

/* Both sides order a package the same way: by transform, then A column, then A row. Going
 * down columns keeps consecutive pieces on the same memory pages on both sides (a block
 * column's next piece continues the same columns), which matters more than anything else for
 * the small tiles block-cyclic layouts produce. */
static int cmp_piece(const void *x, const void *y)
{
    const dmxi_piece *a = x, *b = y;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->c0 != b->c0)
        return a->c0 < b->c0 ? -1 : 1;
    if (a->r0 != b->r0)
        return a->r0 < b->r0 ? -1 : 1;
    return 0;
}

static int cmp_local(const void *x, const void *y)
{
    const dmxi_local *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->c0 != b->c0)
        return a->c0 < b->c0 ? -1 : 1;
    return a->r0 < b->r0 ? -1 : a->r0 > b->r0;
}

/* Memory offset of the element di rows and dj columns further inside the same block. */
static void mem_shift(dmxi_mem *m, int64_t di, int64_t dj)
{
    m->off += m->order == DMX_COL_MAJOR ? di + dj * m->ld : di * m->ld + dj;
}

/* Cut every piece whose wire image (rows x cols, column-major) is larger than max_bytes into
 * sub-rectangles of at most max_bytes: runs of whole columns, or, when one column is already
 * too large, runs of one column's rows. The cut depends only on the piece, so sender and
 * receiver cut alike and the package order (cmp_piece) stays the same on both sides. is_send:
 * mem is B's memory (else A's). Replaces l->v. */
static dmx_status split_pieces(const dmx_plan *p, piece_list *l, int is_send, int64_t max_bytes)
{
    dmx_status st = DMX_SUCCESS;
    int64_t n = 0;
    dmxi_piece *v = NULL;
    for (int pass = 0; pass < 2; pass++) {
        int64_t k = 0;
        for (int64_t i = 0; i < l->n; i++) {
            const dmxi_piece *pc = &l->v[i];
            const int tr = p->xf[pc->t].t.op != DMX_OP_N;
            const int64_t es = (int64_t)p->xf[pc->t].esize;
            const int64_t rows = pc->rows, cols = pc->cols;
            if (rows == 0 || cols == 0 || rows <= max_bytes / es / cols) {
                if (pass == 1)
                    v[k] = *pc;
                k++;
                continue;
            }
            /* columns per sub-piece, and rows (fewer than all only if one column is too big) */
            int64_t cols_per = 1, rows_per = rows;
            if (rows <= max_bytes / es)
                cols_per = max_bytes / es / rows;
            else
                rows_per = max_bytes / es;
            for (int64_t j0 = 0; j0 < cols; j0 += cols_per)
                for (int64_t i0 = 0; i0 < rows; i0 += rows_per, k++) {
                    if (pass == 0)
                        continue;
                    dmxi_piece s = *pc;
                    s.r0 += i0, s.c0 += j0;
                    s.rows = rows - i0 < rows_per ? rows - i0 : rows_per;
                    s.cols = cols - j0 < cols_per ? cols - j0 : cols_per;
                    /* A element (r0 + i0, c0 + j0) is B element (c0 + j0, r0 + i0) if transposed */
                    if (is_send && tr)
                        mem_shift(&s.mem, j0, i0);
                    else
                        mem_shift(&s.mem, i0, j0);
                    v[k] = s;
                }
        }
        if (pass == 0) {
            if (k == l->n)
                return DMX_SUCCESS; /* nothing to cut */
            n = k;
            v = dmxi_malloc(n, sizeof *v);
            DMXI_CHECK(v, DMX_ERR_ALLOC, "out of memory for %lld pieces", (long long)n);
        }
    }
    free(l->v);
    l->v = v, l->n = l->cap = n;
cleanup:
    return st;
}

/* Group sorted pieces into peers and lay out each peer's message: byte offsets of its pieces
 * (each transform's part starts 16-byte aligned so every element type stays aligned). */
static dmx_status make_peers(dmx_plan *p, dmxi_piece *v, int64_t n, dmxi_peer **peers, int *npeer)
{
    dmx_status st = DMX_SUCCESS;
    int np = 0;
    dmxi_peer *pv = NULL;
    if (n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_piece);
    for (int64_t i = 0; i < n; i++)
        np += (i == 0 || v[i].peer != v[i - 1].peer);
    pv = dmxi_calloc(np, sizeof *pv);
    DMXI_CHECK(pv, DMX_ERR_ALLOC, "out of memory for %d peers", np);
    np = 0;
    for (int64_t i = 0; i < n;) {
        dmxi_peer *q = &pv[np++];
        q->rank = v[i].peer;
        q->first = i;
        int64_t b = 0;
        int lastt = -1;
        for (; i < n && v[i].peer == q->rank; i++) {
            if (v[i].t != lastt) {
                b = (b + 15) & ~(int64_t)15;
                lastt = v[i].t;
            }
            int64_t sz;
            DMXI_TRY(dmxi_mul64(v[i].rows, v[i].cols, &sz));
            DMXI_TRY(dmxi_mul64(sz, (int64_t)p->xf[v[i].t].esize, &sz));
            v[i].boff = b;
            DMXI_TRY(dmxi_add64(b, sz, &b));
        }
        q->count = i - q->first;
        q->bytes = b;
        int64_t nch = b == 0 ? 1 : (b - 1) / p->max_msg + 1;
        DMXI_TRY(dmxi_to_int(nch, &q->nchunks, "message chunks"));
    }
    *peers = pv;
    *npeer = np;
    pv = NULL;
cleanup:
    free(pv);
    return st;
}

/* Persistent requests for the chunks of peer q's message (peer index pi); *n counts the
 * requests of that direction. */
static dmx_status init_chunks(dmx_plan *p, const dmxi_peer *q, int pi, int is_send, int64_t *n)
{
    dmx_status st = DMX_SUCCESS;
    for (int c = 0; c < q->nchunks; c++) {
        int64_t o = (int64_t)c * p->max_msg;
        int len;
        DMXI_TRY(dmxi_to_int(q->bytes - o < p->max_msg ? q->bytes - o : p->max_msg, &len,
                             "message chunk bytes"));
        if (is_send) {
            DMXI_MPI(MPI_Send_init(p->sbuf + q->off + o, len, MPI_BYTE, q->rank, DMXI_TAG_DATA,
                                   p->comm, &p->sreq[(*n)++]));
        } else {
            p->rreq_peer[*n] = pi;
            DMXI_MPI(MPI_Recv_init(p->rbuf + q->off + o, len, MPI_BYTE, q->rank, DMXI_TAG_DATA,
                                   p->comm, &p->rreq[(*n)++]));
        }
    }
cleanup:
    return st;
}

/* Buffers and persistent requests for the peers reached by messages: their chunks on both
 * sides. Peers on this node use the rings of the shared window (placed by dmxi_shm_setup) and
 * need no request. */
static dmx_status setup_requests(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    int64_t ns = 0, nr = 0;
    for (int i = 0; i < p->nspeer; i++) {
        dmxi_peer *q = &p->speer[i];
        if (q->shm)
            continue;
        q->off = p->sbytes;
        DMXI_TRY(dmxi_add64(p->sbytes, (q->bytes + 15) & ~(int64_t)15, &p->sbytes));
        ns += q->nchunks;
    }
    for (int i = 0; i < p->nrpeer; i++) {
        dmxi_peer *q = &p->rpeer[i];
        if (q->shm)
            continue;
        q->off = p->rbytes;
        DMXI_TRY(dmxi_add64(p->rbytes, (q->bytes + 15) & ~(int64_t)15, &p->rbytes));
        nr += q->nchunks;
    }
    DMXI_TRY(dmxi_to_int(ns, &p->nsreq, "number of requests"));
    DMXI_TRY(dmxi_to_int(nr, &p->nrreq, "number of requests"));
    p->sbuf = dmxi_malloc(p->sbytes, 1);
    p->rbuf = dmxi_malloc(p->rbytes, 1);
    p->sreq = dmxi_malloc(p->nsreq, sizeof(MPI_Request));
    p->rreq = dmxi_malloc(p->nrreq, sizeof(MPI_Request));
    p->rreq_peer = dmxi_malloc(p->nrreq, sizeof(int));
    DMXI_CHECK(p->sbuf && p->rbuf && p->sreq && p->rreq && p->rreq_peer, DMX_ERR_ALLOC,
               "out of memory for %lld + %lld buffer bytes", (long long)p->sbytes,
               (long long)p->rbytes);
    for (int i = 0; i < p->nsreq; i++)
        p->sreq[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < p->nrreq; i++)
        p->rreq[i] = MPI_REQUEST_NULL;
    ns = nr = 0;
    for (int i = 0; i < p->nspeer; i++) {
        dmxi_peer *q = &p->speer[i];
        q->req0 = ns;
        if (!q->shm)
            DMXI_TRY(init_chunks(p, q, i, 1, &ns));
    }
    for (int i = 0; i < p->nrpeer; i++) {
        dmxi_peer *q = &p->rpeer[i];
        q->req0 = nr;
        if (!q->shm)
            DMXI_TRY(init_chunks(p, q, i, 0, &nr));
    }
cleanup:
    return st;
}

static dmx_status check_transform(const dmx_transform *t, int k, MPI_Comm comm0, int need_a_mem)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(t->a && t->b, DMX_ERR_NULL, "transform %d: layout a or b is NULL", k);
    DMXI_CHECK(dmx_dtype_size(t->dtype) > 0, DMX_ERR_ARG, "transform %d: invalid dtype %d", k,
               (int)t->dtype);
    DMXI_CHECK(t->op == DMX_OP_N || t->op == DMX_OP_T || t->op == DMX_OP_C, DMX_ERR_ARG,
               "transform %d: invalid op %d", k, (int)t->op);
    DMXI_CHECK(t->uplo == 0 || strchr("GgUuLl", t->uplo), DMX_ERR_ARG,
               "transform %d: uplo '%c' is not 0, 'G', 'U' or 'L'", k, t->uplo);
    DMXI_CHECK(t->diag == 0 || strchr("NnUu", t->diag), DMX_ERR_ARG,
               "transform %d: diag '%c' is not 0, 'N' or 'U'", k, t->diag);
    int64_t bm = t->op == DMX_OP_N ? t->b->m : t->b->n, bn = t->op == DMX_OP_N ? t->b->n : t->b->m;
    DMXI_CHECK(bm == t->a->m && bn == t->a->n, DMX_ERR_LAYOUT,
               "transform %d: op(B) is %lld x %lld but A is %lld x %lld", k, (long long)bm,
               (long long)bn, (long long)t->a->m, (long long)t->a->n);
    int cmp1 = MPI_UNEQUAL, cmp2 = MPI_UNEQUAL;
    DMXI_MPI(MPI_Comm_compare(comm0, t->a->d->comm, &cmp1));
    DMXI_MPI(MPI_Comm_compare(comm0, t->b->d->comm, &cmp2));
    DMXI_CHECK(cmp1 != MPI_UNEQUAL && cmp2 != MPI_UNEQUAL, DMX_ERR_LAYOUT,
               "transform %d: layouts live on communicators of different processes", k);
    for (int s = need_a_mem ? 0 : 1; s < 2; s++) {
        const dmx_layout *L = s ? t->b : t->a;
        DMXI_CHECK(!L->d->cyclic || L->nlocal == 0 || L->m == 0 || L->n == 0 || L->base,
                   DMX_ERR_NULL, "transform %d: the local array of %s is NULL", k, s ? "B" : "A");
    }
cleanup:
    return st;
}

/* If comm orders the plan's processes differently, *map[r] = plan rank of comm's rank r. */
static dmx_status rank_map(const dmx_plan *p, MPI_Comm comm, int **map)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Group g1 = MPI_GROUP_NULL, g2 = MPI_GROUP_NULL;
    int *ranks = NULL, cmp = MPI_UNEQUAL;
    *map = NULL;
    DMXI_MPI(MPI_Comm_compare(p->comm, comm, &cmp));
    if (cmp != MPI_SIMILAR)
        goto cleanup;
    ranks = dmxi_malloc(p->size, sizeof(int));
    *map = dmxi_malloc(p->size, sizeof(int));
    DMXI_CHECK(ranks && *map, DMX_ERR_ALLOC, "out of memory");
    for (int r = 0; r < p->size; r++)
        ranks[r] = r;
    DMXI_MPI(MPI_Comm_group(comm, &g1));
    DMXI_MPI(MPI_Comm_group(p->comm, &g2));
    DMXI_MPI(MPI_Group_translate_ranks(g1, p->size, ranks, g2, *map));
cleanup:
    if (g1 != MPI_GROUP_NULL)
        MPI_Group_free(&g1);
    if (g2 != MPI_GROUP_NULL)
        MPI_Group_free(&g2);
    free(ranks);
    return st;
}

static uint64_t hash_transform(uint64_t h, const dmx_transform *t)
{
    int64_t v[16] = {t->dtype, t->op,    t->uplo, t->diag, (int64_t)t->a->d->hash,
                     t->a->i0, t->a->j0, t->a->m, t->a->n, (int64_t)t->b->d->hash,
                     t->b->i0, t->b->j0, t->b->m, t->b->n, 0,
                     0};
    h = dmxi_hash(h, v, sizeof v);
    double s[4] = {t->alpha.re, t->alpha.im, t->beta.re, t->beta.im};
    return dmxi_hash(h, s, sizeof s);
}

dmx_status dmxi_transforms_validate(int ntransforms, const dmx_transform *transforms,
                                    int need_a_memory)
{
    dmx_status st = DMX_SUCCESS;
    /* The communicator to agree on comes from the first layout given; a rank that passes no
     * layout at all cannot take part and fails alone (documented). */
    DMXI_CHECK(transforms, DMX_ERR_NULL, "transforms is NULL");
    DMXI_CHECK(ntransforms >= 1, DMX_ERR_ARG, "need at least one transform");
    const dmx_layout *first = NULL;
    for (int k = 0; k < ntransforms && !first; k++)
        first = transforms[k].a ? transforms[k].a : transforms[k].b;
    DMXI_CHECK(first, DMX_ERR_NULL, "every layout is NULL");
    MPI_Comm comm0 = first->d->comm;
    dmx_status local = DMX_SUCCESS;
    uint64_t h = dmxi_hash(DMXI_HASH_INIT, &ntransforms, sizeof ntransforms);
    for (int k = 0; k < ntransforms && local == DMX_SUCCESS; k++) {
        local = check_transform(&transforms[k], k, comm0, need_a_memory);
        if (local == DMX_SUCCESS)
            h = hash_transform(h, &transforms[k]);
    }
    DMXI_TRY(dmxi_agree(comm0, local));
    st = dmxi_agree_same(comm0, h, "transforms (dtype, op, scalars, layouts or windows)");
    DMXI_CHECK(st == DMX_SUCCESS, DMX_ERR_ARG, "%s", dmx_last_error());
cleanup:
    return st;
}

dmx_status dmx_plan_create(int ntransforms, const dmx_transform *transforms, dmx_plan **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_plan *p = NULL;
    piece_list send = {0}, recv = {0};
    local_list loc = {0};
    dmxi_error_clear();
    if (out)
        *out = NULL;
    DMXI_TRY(dmxi_transforms_validate(ntransforms, transforms, 1));
    MPI_Comm comm0 = transforms[0].a->d->comm; /* validated: every layout is set */
    DMXI_TRY(dmxi_agree(comm0, out ? DMX_SUCCESS
                                   : dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL")));

    p = calloc(1, sizeof *p);
    DMXI_CHECK(p, DMX_ERR_ALLOC, "out of memory");
    p->comm = p->node = MPI_COMM_NULL;
    p->win = MPI_WIN_NULL;
    DMXI_MPI(MPI_Comm_dup(comm0, &p->comm));
    DMXI_MPI(MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_rank(p->comm, &p->rank));
    DMXI_MPI(MPI_Comm_size(p->comm, &p->size));
    p->nt = ntransforms;
    p->xf = calloc((size_t)ntransforms, sizeof *p->xf);
    DMXI_CHECK(p->xf, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < ntransforms; k++) {
        p->xf[k].t = transforms[k];
        p->xf[k].esize = dmx_dtype_size(transforms[k].dtype);
        DMXI_TRY(dmxi_agree(p->comm, rank_map(p, transforms[k].a->d->comm, &p->xf[k].amap)));
        DMXI_TRY(dmxi_agree(p->comm, rank_map(p, transforms[k].b->d->comm, &p->xf[k].bmap)));
    }
    p->profile = dmxi_env_int64("DMX_PROFILE", 0) != 0;
    /* Test-only: a smaller per-message limit exercises the path that > 2^31 counts take, and
     * small ring chunks exercise cut pieces and rings that wrap around. */
    {
        int64_t mine[2] = {dmxi_env_int64("DMX_MAX_MESSAGE_BYTES", (int64_t)1 << 30),
                           dmxi_env_int64("DMX_SHM_CHUNK_BYTES", DMXI_CHUNK_BYTES)},
                agreed[2];
        if (mine[0] < 1 || mine[0] > INT_MAX)
            mine[0] = (int64_t)1 << 30;
        if (mine[1] < 64 || mine[1] > ((int64_t)1 << 30))
            mine[1] = DMXI_CHUNK_BYTES;
        /* sender and receiver must cut alike: the smallest settings win */
        DMXI_MPI(MPI_Allreduce(mine, agreed, 2, MPI_INT64_T, MPI_MIN, p->comm));
        p->max_msg = agreed[0];
        p->chunk_bytes = agreed[1];
    }

    /* Planning is local: every rank knows both layouts. Failures (memory) are agreed below. */
    {
        dmx_status local = DMX_SUCCESS;
        for (int t = 0; t < ntransforms && local == DMX_SUCCESS; t++) {
            if (transforms[t].a->d->local_only || transforms[t].b->d->local_only)
                continue; /* planned collectively below */
            local = enum_recv(p, t, &recv, &loc);
            if (local == DMX_SUCCESS)
                local = enum_send(p, t, &send);
        }
        /* Layouts known only locally: partners come from the directory, a collective step,
         * so every rank takes it for the same transforms after agreeing so far. */
        for (int t = 0; t < ntransforms; t++) {
            if (!transforms[t].a->d->local_only && !transforms[t].b->d->local_only)
                continue;
            DMXI_TRY(dmxi_agree(p->comm, local));
            local = dmxi_plan_directory(p, t, &recv, &loc, &send);
        }
        if (local == DMX_SUCCESS)
            local = split_pieces(p, &send, 1, p->chunk_bytes);
        if (local == DMX_SUCCESS)
            local = split_pieces(p, &recv, 0, p->chunk_bytes);
        if (local == DMX_SUCCESS)
            local = make_peers(p, send.v, send.n, &p->speer, &p->nspeer);
        if (local == DMX_SUCCESS)
            local = make_peers(p, recv.v, recv.n, &p->rpeer, &p->nrpeer);
        DMXI_TRY(dmxi_agree(p->comm, local));
    }
    p->send = send.v, p->nsend = send.n, send.v = NULL;
    p->recv = recv.v, p->nrecv = recv.n, recv.v = NULL;
    p->local = loc.v, p->nlocal = loc.n, loc.v = NULL;
    if (p->nlocal > 0)
        qsort(p->local, (size_t)p->nlocal, sizeof *p->local, cmp_local);
    DMXI_TRY(dmxi_shm_setup(p));
    DMXI_TRY(dmxi_agree(p->comm, setup_requests(p)));

    p->info.npeers_send = p->nspeer;
    p->info.npeers_recv = p->nrpeer;
    for (int64_t i = 0; i < p->nsend; i++)
        p->info.send_elems += p->send[i].rows * p->send[i].cols;
    /* A's bytes this rank writes per execution decide whether they are streamed past the
     * caches: above what the caches would keep anyway (DMX_STREAM=0/1 forces either way). */
    int64_t abytes = 0;
    for (int64_t i = 0; i < p->nrecv; i++) {
        p->info.recv_elems += p->recv[i].rows * p->recv[i].cols;
        abytes += p->recv[i].rows * p->recv[i].cols * (int64_t)p->xf[p->recv[i].t].esize;
    }
    for (int64_t i = 0; i < p->nlocal; i++) {
        p->info.local_elems += p->local[i].rows * p->local[i].cols;
        abytes += p->local[i].rows * p->local[i].cols * (int64_t)p->xf[p->local[i].t].esize;
    }
    const int64_t want = dmxi_env_int64("DMX_STREAM", -1);
    p->stream = want >= 0 ? want != 0 : abytes >= DMXI_STREAM_MIN_BYTES;
    p->info.buffer_bytes = p->sbytes + p->rbytes;
    for (int i = 0; i < p->nrpeer; i++)
        p->info.npeers_shared_memory += p->rpeer[i].shm;
    p->info.buffer_bytes += p->shm_bytes;
    *out = p;
    p = NULL;
cleanup:
    free(send.v);
    free(recv.v);
    free(loc.v);
    if (p)
        dmx_plan_destroy(&p);
    return st;
}

dmx_status dmx_plan_execute(dmx_plan *plan)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_CHECK(plan, DMX_ERR_NULL, "plan is NULL");
    DMXI_TRY(dmxi_plan_run(plan));
cleanup:
    return st;
}

dmx_status dmx_plan_set_scalars(dmx_plan *plan, int k, dmx_scalar alpha, dmx_scalar beta)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(plan, DMX_ERR_NULL, "plan is NULL");
    DMXI_CHECK(k >= 0 && k < plan->nt, DMX_ERR_ARG, "transform %d out of range [0,%d)", k,
               plan->nt);
    plan->xf[k].t.alpha = alpha;
    plan->xf[k].t.beta = beta;
cleanup:
    return st;
}

dmx_status dmx_plan_get_info(const dmx_plan *plan, dmx_plan_info *info)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(plan && info, DMX_ERR_NULL, "plan or info is NULL");
    *info = plan->info;
cleanup:
    return st;
}

dmx_status dmx_plan_destroy(dmx_plan **plan)
{
    dmx_status st = DMX_SUCCESS;
    if (!plan || !*plan)
        return DMX_SUCCESS;
    dmx_plan *p = *plan;
    /* Free everything even after a failure; report the first one. */
    int rc = MPI_SUCCESS;
    for (int i = 0; p->sreq && i < p->nsreq; i++)
        if (p->sreq[i] != MPI_REQUEST_NULL) {
            int r = MPI_Request_free(&p->sreq[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    for (int i = 0; p->rreq && i < p->nrreq; i++)
        if (p->rreq[i] != MPI_REQUEST_NULL) {
            int r = MPI_Request_free(&p->rreq[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    if (rc != MPI_SUCCESS)
        st = dmxi_mpi_error(rc, "MPI_Request_free", __FILE__, __LINE__);
    dmx_status st2 = dmxi_shm_free(p);
    st = st == DMX_SUCCESS ? st2 : st;
    if (p->comm != MPI_COMM_NULL) {
        rc = MPI_Comm_free(&p->comm);
        if (rc != MPI_SUCCESS && st == DMX_SUCCESS)
            st = dmxi_mpi_error(rc, "MPI_Comm_free", __FILE__, __LINE__);
    }
    for (int k = 0; p->xf && k < p->nt; k++) {
        free(p->xf[k].amap);
        free(p->xf[k].bmap);
    }
    free(p->xf);
    free(p->send);
    free(p->recv);
    free(p->local);
    free(p->speer);
    free(p->rpeer);
    free(p->sbuf);
    free(p->rbuf);
    free(p->sreq);
    free(p->rreq);
    free(p->rreq_peer);
    free(p->cfirst);
    free(p);
    *plan = NULL;
    return st;
}

dmx_status dmx_transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, const dmx_layout *b,
                              dmx_scalar beta, dmx_layout *a)
{
    dmx_status st = DMX_SUCCESS;
    dmx_plan *p = NULL;
    dmx_transform t = {dtype, op, alpha, beta, b, a, 0, 0};
    DMXI_TRY(dmx_plan_create(1, &t, &p));
    DMXI_TRY(dmx_plan_execute(p));
cleanup:
    if (p) {
        dmx_status st2 = dmx_plan_destroy(&p);
        if (st == DMX_SUCCESS)
            st = st2;
    }
    return st;
}
