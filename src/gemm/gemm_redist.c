/* SPDX-License-Identifier: BSD-3-Clause */
/* The redistribution term of the multiply's choice: what it costs to bring A and B from the
 * caller's layouts into a candidate grid's and C back, so that AUTO does not leave a grid the
 * data already sit on for one whose multiply saves less than the moves cost.
 *
 * Volumes: dmx_relabel_volume_create (dmx/relabel.h), the closed-form package volumes the
 * relabeling and the offline planner use, between the caller's description and the grid's
 * (block-cyclic with one block per grid rank, as gemm_plan.c lays it out; Cannon's skew is a
 * renaming of the target ranks). The redistribution module's own choice (the engine, by bytes
 * per rank) prices nothing, and the plan module's headers are above gemm, so the time is this
 * file's own:
 *   T(operand) = alpha * most messages of one rank (sent or received)
 *              + max(busiest rank's bytes inside its node * beta_intra,
 *                    busiest network link's bytes * beta_inter)
 * where a rank's bytes are the larger of what it sends and receives, the network link is the
 * node's one link (bytes leaving or entering it) or, with the machine's torus line, each torus
 * link on the messages' dimension-order routes; on one node everything is inside it. Local
 * copies (elements that stay on their rank) are free. Where the volumes would be too many to
 * compute (more than 2^22 rank pairs, e.g. a cyclic layout on thousands of ranks) or cannot be,
 * a bound stands in: every element of a grid block moves, from as many peers as can hold it. The
 * plan executes A's, B's and C's redistributions one after the other, so the term is their sum. */
#include "gemm_internal.h"
#include "layout.h"

#include <stdlib.h>
#include <string.h>

enum { OP_A, OP_B, OP_C };

/* Above this many blocks a layout is not described (not priced). */
#define MAX_GRID_BLOCKS (INT64_C(1) << 16)

void dmxi_gemm_data_free(dmxi_gemm_data *d)
{
    for (int i = 0; i < 3; i++) {
        free(d->map[i]);
        free(d->split[i][0]);
        free(d->split[i][1]);
        free(d->owners[i]);
    }
    memset(d, 0, sizeof *d);
}

void dmxi_gemm_data_from_operands(const dmx_gemm_operands *ops, dmxi_gemm_data *out)
{
    memset(out, 0, sizeof *out);
    if (ops == NULL)
        return;
    const dmx_relabel_desc *x[3] = {ops->a, ops->b, ops->c};
    out->trans[0] = ops->transa != DMX_OP_N;
    out->trans[1] = ops->transb != DMX_OP_N;
    for (int i = 0; i < 3; i++)
        if (x[i]) {
            out->known[i] = 1;
            out->d[i] = *x[i];
        }
}

/* grid_ranks of a block-cyclic description in row-major ('R') or column-major ('C') order, or 0
 * for any other mapping. */
static char grid_order(const dmxi_desc *d)
{
    int rowmaj = 1, colmaj = 1;
    for (int r = 0; r < d->prow; r++)
        for (int c = 0; c < d->pcol; c++) {
            int g = d->grid_ranks[(int64_t)r * d->pcol + c];
            rowmaj &= g == r * d->pcol + c;
            colmaj &= g == r + c * d->prow;
        }
    return rowmaj ? 'R' : colmaj ? 'C' : 0;
}

/* One layout as a description (its window): block-cyclic when it is one with a standard grid
 * order and a window starting on block boundaries, else its blocks and owners. 0: described. */
static int describe(const dmx_layout *L, dmxi_gemm_data *out, int i)
{
    const dmxi_desc *d = L->d;
    dmx_relabel_desc *x = &out->d[i];
    memset(x, 0, sizeof *x);
    x->m = L->m, x->n = L->n;
    if (d->local_only)
        return 1;
    char order = d->cyclic ? grid_order(d) : 0;
    if (order && L->i0 % d->mb == 0 && L->j0 % d->nb == 0) {
        x->kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        x->mb = d->mb, x->nb = d->nb, x->prow = d->prow, x->pcol = d->pcol, x->order = order;
        x->rsrc = (int)((d->rsrc + L->i0 / d->mb) % d->prow);
        x->csrc = (int)((d->csrc + L->j0 / d->nb) % d->pcol);
        return 0;
    }
    if (L->nrb < 1 || L->ncb < 1 || L->nrb > MAX_GRID_BLOCKS / L->ncb)
        return 1;
    int64_t *rs = malloc((size_t)(L->nrb + 1) * sizeof *rs);
    int64_t *cs = malloc((size_t)(L->ncb + 1) * sizeof *cs);
    int *own = malloc((size_t)(L->nrb * L->ncb) * sizeof *own);
    out->split[i][0] = rs, out->split[i][1] = cs, out->owners[i] = own;
    if (!rs || !cs || !own)
        return 1;
    for (int64_t b = 0; b <= L->nrb; b++)
        rs[b] = dmxi_layout_row_start(L, b);
    for (int64_t b = 0; b <= L->ncb; b++)
        cs[b] = dmxi_layout_col_start(L, b);
    for (int64_t bi = 0; bi < L->nrb; bi++)
        for (int64_t bj = 0; bj < L->ncb; bj++)
            own[bi * L->ncb + bj] = dmxi_layout_block_owner(L, bi, bj);
    x->kind = DMX_RELABEL_DESC_GRID;
    x->nrb = L->nrb, x->ncb = L->ncb;
    x->rowsplits = rs, x->colsplits = cs, x->owners = own;
    return 0;
}

/* The layout's ranks as the plan's: NULL map when comm and the layout's communicator hold the
 * same processes in the same order; 1 when they are not the same processes. */
static dmx_status rank_map(MPI_Comm comm, const dmx_layout *L, int **map, int *other)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Group gl = MPI_GROUP_NULL, gp = MPI_GROUP_NULL;
    int cmp = MPI_UNEQUAL, n = 0, *from = NULL;
    *map = NULL;
    *other = 0;
    DMXI_MPI(MPI_Comm_compare(comm, L->d->comm, &cmp));
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT)
        goto cleanup;
    if (cmp == MPI_UNEQUAL) {
        *other = 1;
        goto cleanup;
    }
    DMXI_MPI(MPI_Comm_group(L->d->comm, &gl));
    DMXI_MPI(MPI_Comm_group(comm, &gp));
    DMXI_MPI(MPI_Group_size(gl, &n));
    from = malloc((size_t)n * sizeof *from);
    *map = malloc((size_t)n * sizeof **map);
    DMXI_CHECK(from && *map, DMX_ERR_ALLOC, "out of memory for a rank map");
    for (int r = 0; r < n; r++)
        from[r] = r;
    DMXI_MPI(MPI_Group_translate_ranks(gl, n, from, gp, *map));
cleanup:
    free(from);
    if (gl != MPI_GROUP_NULL)
        MPI_Group_free(&gl);
    if (gp != MPI_GROUP_NULL)
        MPI_Group_free(&gp);
    return st;
}

dmx_status dmxi_gemm_data_from_layouts(MPI_Comm comm, const dmx_layout *a, const dmx_layout *b,
                                       const dmx_layout *c, dmx_op ta, dmx_op tb,
                                       dmxi_gemm_data *out)
{
    dmx_status st = DMX_SUCCESS;
    const dmx_layout *l[3] = {a, b, c};
    memset(out, 0, sizeof *out);
    out->trans[0] = ta != DMX_OP_N;
    out->trans[1] = tb != DMX_OP_N;
    for (int i = 0; i < 3; i++) {
        int other = 0;
        DMXI_TRY(rank_map(comm, l[i], &out->map[i], &other));
        out->known[i] = !other && describe(l[i], out, i) == 0;
    }
cleanup:
    return st;
}

/* Where one redistribution's bytes go. */
typedef struct loads {
    int64_t p, per, nnodes, nlinks;
    double *out, *in;    /* per rank, inside its node */
    int64_t *mout, *min; /* messages per rank */
    double *link;        /* per network link (node's link: out at 2v, in at 2v + 1) */
    const dmxi_gemm_curve *cv;
} loads;

static void add_message(loads *L, int64_t s, int64_t d, double bytes)
{
    int64_t ns = s / L->per, nd = d / L->per;
    L->mout[s]++;
    L->min[d]++;
    if (ns == nd) {
        L->out[s] += bytes;
        L->in[d] += bytes;
    } else if (L->cv->ndims > 0) {
        int64_t cur = ns, id = 0;
        while (cur != nd) {
            cur = dmxi_gemm_torus_hop(L->cv, ns, nd, cur, &id);
            L->link[id] += bytes;
        }
    } else {
        L->link[2 * ns] += bytes;
        L->link[2 * nd + 1] += bytes;
    }
}

static double most(const double *x, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

/* Ranks of a block-cyclic description @p x whose elements one block of @p blk x @p bln (at any
 * place) can hold, at most. */
static double holders(const dmx_relabel_desc *x, int64_t blm, int64_t bln)
{
    double r = (double)(blm / x->mb + 2), c = (double)(bln / x->nb + 2);
    return (r < x->prow ? r : x->prow) * (c < x->pcol ? c : x->pcol);
}

/* The bound used where the volumes are not computed (too many of them, or a failure): every
 * element of the grid's blocks moves, each rank exchanging with as many peers as a grid block
 * can have sources; at the network's figures when the ranks span nodes. */
static double bound_time(const dmx_relabel_desc *grid, double peers, const dmxi_gemm_net *net)
{
    double bytes = (double)grid->mb * (double)grid->nb * (double)net->esz;
    double p1 = (double)(net->p - 1);
    return net->alpha * (peers < p1 ? peers : p1) +
           bytes * (net->nodes > 1 ? net->beta_inter : net->beta_intra);
}

/* Volumes past this many (rank, rank) pairs are not computed for one redistribution. */
#define MAX_PAIRS (INT64_C(1) << 22)

/* The time of one redistribution between the caller's description @p user and the grid's
 * (block-cyclic, one block per grid rank): into the grid, or out of it (@p back, C), the ranks
 * renamed by umap (the caller's) and gmap (the grid's; NULL: as they are). */
static double move_time(const dmx_relabel_desc *user, const dmx_relabel_desc *grid, int back,
                        int trans, const int *umap, const int *gmap, const dmxi_gemm_net *net)
{
    const dmx_relabel_desc *src = back ? grid : user, *dst = back ? user : grid;
    const int *smap = back ? gmap : umap, *dmap = back ? umap : gmap;
    dmx_relabel_volume *v = NULL;
    dmx_relabel_gains g;
    double t = -1.0;
    loads L;
    memset(&L, 0, sizeof L);
    if (src->m == 0 || src->n == 0)
        return 0.0;
    /* a grid block's sources, at most: the pairs to compute are that many per grid rank */
    int cyclic = user->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC;
    double peers = cyclic ? holders(user, trans ? grid->nb : grid->mb, trans ? grid->mb : grid->nb)
                          : (double)user->nrb * (double)user->ncb;
    peers = peers < (double)net->p ? peers : (double)net->p;
    double work = peers * (double)grid->prow * (double)grid->pcol; /* grid form: the overlay */
    if (!cyclic) {
        double ov = ((double)user->nrb + grid->prow) * ((double)user->ncb + grid->pcol);
        work = ov > work ? ov : work;
    }
    if (work > (double)MAX_PAIRS)
        return bound_time(grid, peers, net);
    if (dmx_relabel_volume_create(src, dst, trans, (int)net->p, &v) != DMX_SUCCESS ||
        dmx_relabel_volume_get_gains(v, &g) != DMX_SUCCESS || g.n > net->p) {
        dmx_relabel_volume_destroy(&v);
        return bound_time(grid, peers, net);
    }
    L.p = net->p;
    L.cv = dmxi_gemm_machine();
    L.per = net->nodes > 1 ? (net->p + net->nodes - 1) / net->nodes : net->p;
    L.nnodes = (net->p + L.per - 1) / L.per;
    L.nlinks = 2 * L.nnodes;
    if (L.cv->ndims > 0) {
        int64_t all = 1;
        for (int j = 0; j < L.cv->ndims; j++)
            all *= L.cv->dims[j];
        if (all >= L.nnodes) /* else one link per node, as node_loads does */
            L.nlinks = all * L.cv->ndims * 2;
        else
            L.cv = NULL;
    }
    dmxi_gemm_curve flat;
    if (L.cv == NULL) {
        memset(&flat, 0, sizeof flat);
        L.cv = &flat;
    }
    L.out = calloc((size_t)L.p, sizeof *L.out);
    L.in = calloc((size_t)L.p, sizeof *L.in);
    L.mout = calloc((size_t)L.p, sizeof *L.mout);
    L.min = calloc((size_t)L.p, sizeof *L.min);
    L.link = calloc((size_t)L.nlinks, sizeof *L.link);
    if (L.out && L.in && L.mout && L.min && L.link) {
        for (int j = 0; j < g.n; j++)
            for (int64_t x = g.rowptr[j]; x < g.rowptr[j + 1]; x++) {
                int64_t s = smap ? smap[g.col[x]] : g.col[x], d = dmap ? dmap[j] : j;
                if (s != d && s >= 0 && d >= 0 && s < L.p && d < L.p)
                    add_message(&L, s, d, (double)g.gain[x] * (double)net->esz);
            }
        int64_t msgs = 0;
        for (int64_t r = 0; r < L.p; r++) {
            msgs = L.mout[r] > msgs ? L.mout[r] : msgs;
            msgs = L.min[r] > msgs ? L.min[r] : msgs;
        }
        double inside = most(L.out, L.p), ins = most(L.in, L.p);
        inside = (ins > inside ? ins : inside) * net->beta_intra;
        double across = most(L.link, L.nlinks) * net->beta_inter;
        t = net->alpha * (double)msgs + (inside > across ? inside : across);
    }
    if (t < 0) /* out of memory */
        t = bound_time(grid, peers, net);
    free(L.out);
    free(L.in);
    free(L.mout);
    free(L.min);
    free(L.link);
    dmx_relabel_volume_destroy(&v);
    return t;
}

double dmxi_gemm_redist_time(const dmxi_gemm_data *d, const dmxi_gemm_net *net, int pr, int pc,
                             int cannon, double part[3])
{
    /* the grid's layouts: rows over pr, columns over pc, one block per grid rank, row-major */
    const int64_t dims[3][2] = {{net->m, net->k}, {net->k, net->n}, {net->m, net->n}};
    int *skew[2] = {NULL, NULL};
    double total = 0.0;
    if (cannon) { /* rank (i, j) holds A(i, i + j) and B(i + j, j): role (r, c) renamed */
        skew[0] = malloc((size_t)pr * pc * sizeof(int));
        skew[1] = malloc((size_t)pr * pc * sizeof(int));
        for (int r = 0; r < pr && skew[0] && skew[1]; r++)
            for (int c = 0; c < pc; c++) {
                skew[0][r * pc + c] = r * pc + (c - r + pc) % pc;
                skew[1][r * pc + c] = ((r - c + pr) % pr) * pc + c;
            }
    }
    for (int i = 0; i < 3; i++) {
        part[i] = 0.0;
        if (!d->known[i] || (cannon && i < 2 && !(skew[0] && skew[1])))
            continue;
        dmx_relabel_desc grid;
        memset(&grid, 0, sizeof grid);
        grid.kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        grid.m = dims[i][0], grid.n = dims[i][1];
        grid.mb = grid.m > 0 ? (grid.m + pr - 1) / pr : 1;
        grid.nb = grid.n > 0 ? (grid.n + pc - 1) / pc : 1;
        grid.prow = pr, grid.pcol = pc, grid.order = 'R';
        double t = move_time(&d->d[i], &grid, i == OP_C, i == OP_C ? 0 : d->trans[i], d->map[i],
                             cannon && i < 2 ? skew[i] : NULL, net);
        part[i] = t > 0 ? t : 0.0;
        total += part[i];
    }
    free(skew[0]);
    free(skew[1]);
    return total;
}
