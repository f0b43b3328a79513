/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's cost model and choice: each algorithm's time from the collectives model
 * (dmx_coll_predict for the broadcasts and shifts) and the local multiply's rate curve, and the
 * search over algorithm, grid, G, B and b that AUTO runs. DMX_GEMM is read here; the machine
 * it prices (DMX_GEMM_MODEL, DMX_GEMM_MFLOPS) in gemm_machine.c.
 *
 * Times (ml = ceil(m/pr), nl = ceil(n/pc), e bytes per element, f = 2 flops per multiply-add for
 * real types and 8 for complex, W(w) = f ml nl w / R(min(w, ml, nl)) with R the rate curve,
 * Tb(q, bytes) the broadcast over q ranks, 0 for q = 1; with look-ahead, i.e. communication
 * hidden under the multiply where shorter; panels as the algorithms cut them, at both k splits):
 *   SUMMA   c(w) = Tb(pc, ml w e) + Tb(pr, w nl e): T = c(first) + sum_panels max(c(w), W(w))
 *   HSUMMA  co(w) over gc and gr, ci(w) over pc/gc and pr/gr:
 *           T = co + ci (first) + sum_outer max(co(wo), sum_inner max(ci(w), W(w)))
 *   Cannon  s = 2 Tshift(q, ml ceil(k/q) e): T = s + q max(s, W(ceil(k/q)))
 *   Without look-ahead, sums instead of maxima. With a backbone (DMX_GEMM_MODEL's backbone line:
 *   one switch of that many bytes/s that all messages cross), no panel's step (SUMMA, HSUMMA's
 *   outer panel) or shift (Cannon) is shorter than all ranks' bytes of it over the backbone.
 *   With SimGrid's concurrent MPI_Ibcast (ibcast = concurrent), SUMMA's and HSUMMA's inner
 *   panels count links instead (link_step); where ranks share nodes, an HSUMMA outer panel
 *   followed by one of the same owners takes at least the busiest link's bytes of both levels
 *   (node_loads' level 3). */
#include "dmx/gemm.h"
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's broadcast and shift times, cached by (kind, q, bytes) within one search (the
 * search asks for the same few sizes thousands of times). */
enum { NCACHE = 512 };
typedef struct centry {
    int64_t q, bytes;
    int kind, used;
    double t;
} centry;

/* Messages a step puts through one node's links (see node_loads): for each kind of node, the
 * A broadcast's messages leaving the node (off) and staying in it (in), and B's. */
enum { NSHAPES = 64, NKINDS = 32, NLEVELS = 4, NMOVES = 128 };
typedef struct nkind {
    int64_t off_a, in_a, off_b, in_b;
} nkind;
typedef struct nshape {
    int pr, pc, gr, gc, used;
    int nk[NLEVELS];
    nkind k[NLEVELS][NKINDS];
    int64_t hops_a, hops_b; /* level 3: all links' A and B messages together (see consider) */
} nshape;

typedef struct mctx {
    dmx_dtype t;
    int64_t m, n, k, nodes, p;
    int overlap;
    double beta_inter,
        beta_intra; /* s/byte of one message across nodes and inside one (0: unset) */
    centry cache[NCACHE];
    nshape shapes[NSHAPES];
    const dmxi_gemm_data *data; /* the operands' layouts (NULL: not known, nothing charged) */
    double util, best_util;     /* busiest node's link time / local multiply time (see consider) */
    double traffic, best_traffic; /* all links' busy time together (see consider) */
    double least;                 /* the least time priced so far in this search */
    int nmoves;
    struct {
        int pr, pc, cannon;
        double t;
    } moves[NMOVES]; /* redistribution time per grid, computed once per search */
} mctx;

static double coll_time(mctx *c, int kind, int64_t q, int64_t bytes)
{
    double s = 0.0;
    if (q < 2)
        return 0.0;
    uint64_t h = ((uint64_t)q * 1000003u + (uint64_t)bytes * 7919u + (uint64_t)kind) % NCACHE;
    centry *e = &c->cache[h];
    if (e->used && e->q == q && e->bytes == bytes && e->kind == kind)
        return e->t;
    /* Look-ahead broadcasts are the MPI library's MPI_Ibcast (DMX_MODEL's mpi.bcast factor
     * or DMX_GEMM_MODEL's ibcast line describe it); blocking ones dmx_coll_bcast with the model's
     * choice. */
    const dmxi_gemm_curve *cv = dmxi_gemm_machine();
    int64_t nodes = c->nodes < q ? c->nodes : q;
    dmx_coll_alg alg = kind == DMX_COLL_BCAST && c->overlap ? cv->ibcast : DMX_COLL_AUTO;
    if (kind == DMX_COLL_BCAST && c->overlap && cv->concurrent) {
        /* The root's q-1 sends share its link: one latency, q-1 times the bytes. alpha and
         * beta from the collectives model's one-message time (a flat broadcast to 2 ranks). */
        double t0 = 0.0, t1 = 0.0;
        if (dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_FLAT, 2, 0, nodes > 1 ? 2 : 1, &t0, NULL) !=
                DMX_SUCCESS ||
            dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_FLAT, 2, bytes, nodes > 1 ? 2 : 1, &t1,
                             NULL) != DMX_SUCCESS)
            t0 = t1 = 1e30;
        s = t0 + (double)(q - 1) * (t1 - t0);
    } else if (dmx_coll_predict((dmx_coll_kind)kind, alg, q, bytes, nodes, &s, NULL) !=
               DMX_SUCCESS) {
        s = 1e30;
    }
    *e = (centry){q, bytes, kind, 1, s};
    return s;
}

static double tb(mctx *c, int64_t q, double bytes)
{
    return coll_time(c, DMX_COLL_BCAST, q, (int64_t)bytes);
}

static double comb(const mctx *c, double comm, double work)
{
    return c->overlap ? (comm > work ? comm : work) : comm + work;
}

/* The least time the shared switch needs to carry @p bytes in all (0 when unlimited). */
static double backbone(double bytes)
{
    const dmxi_gemm_curve *cv = dmxi_gemm_machine();
    return cv->backbone > 0 ? bytes / cv->backbone : 0.0;
}

static double at_least(double t, double floor)
{
    return t > floor ? t : floor;
}

/* Local update of an ml x nl block with width w. */
static double work(const mctx *c, double ml, double nl, double w)
{
    double f = c->t >= DMX_CFLOAT ? 8.0 : 2.0, d = w;
    if (ml < d)
        d = ml;
    if (nl < d)
        d = nl;
    return d > 0 ? f * ml * nl * w / dmxi_gemm_rate(d) : 0.0;
}

/* Widest piece of [0, k) cut at both splits (k over pc parts, k over pr parts): no panel is
 * wider, so this caps b and B (and the panel buffers). */
static int64_t widest_piece(int64_t k, int pr, int pc)
{
    int64_t sa = (k + pc - 1) / pc, sb = (k + pr - 1) / pr;
    int64_t w = sa < sb ? sa : sb;
    return w > 0 ? w : 1;
}

/* 1 when the look-ahead broadcasts are SimGrid's concurrent MPI_Ibcast (one link per host):
 * then panels_time counts links, as below, instead of adding the row and column broadcasts. */
static int concurrent_links(const mctx *c)
{
    return c->overlap && dmxi_gemm_machine()->concurrent;
}

/* Nodes shared by several ranks (nodes > 1, more ranks than nodes): ranks fill the nodes in order
 * (ceil(p / nodes) per node) and the grid is row-major, so the roots of one step's broadcasts
 * crowd some nodes. A grid row's ranks sit side by side: when B's panel row is broadcast down
 * the columns, every rank of that row is a root, and a node of that row sends its ranks' q - 1
 * messages each through the node's one link. The model then charges a step the busiest node's
 * bytes, those leaving the node at the network's rate and those staying in it at the node's
 * (separate resources: the larger). One rank per node gives the per-rank figures as before; one
 * node is left to the per-rank figures (shared memory is not one link). */
static int shared_nodes(const mctx *c)
{
    return c->nodes > 1 && c->p > c->nodes;
}

/* Add one node's counts to a level's kinds: a new kind, or (table full) into the last one as
 * the largest of each count (an upper bound). */
static void add_kind(nshape *s, int lv, nkind x)
{
    for (int i = 0; i < s->nk[lv]; i++) {
        nkind *y = &s->k[lv][i];
        if (y->off_a == x.off_a && y->in_a == x.in_a && y->off_b == x.off_b && y->in_b == x.in_b)
            return;
    }
    if (s->nk[lv] < NKINDS) {
        s->k[lv][s->nk[lv]++] = x;
        return;
    }
    nkind *y = &s->k[lv][NKINDS - 1];
    y->off_a = x.off_a > y->off_a ? x.off_a : y->off_a;
    y->in_a = x.in_a > y->in_a ? x.in_a : y->in_a;
    y->off_b = x.off_b > y->off_b ? x.off_b : y->off_b;
    y->in_b = x.in_b > y->in_b ? x.in_b : y->in_b;
}

/* Where one step's messages go: per directed link (the node's one link, or each torus link on
 * the message's route) and per node's loopback, A's and B's counted apart. */
typedef struct tally {
    const dmxi_gemm_curve *cv;
    int64_t per;   /* ranks per node */
    int64_t *link; /* [link * 2 + (0: A, 1: B)] */
    int64_t *loop; /* [node * 2 + ...] */
    int64_t nlinks, nnodes;
} tally;

/* The torus's directed links from @p s to @p d (SimGrid's dimension order, x fastest: in each
 * dimension the way the source's coordinates make shorter, wrapping round), each counted. */
static void torus_route(tally *t, int64_t s, int64_t d, int isb)
{
    int64_t cur = s, id = 0;
    while (cur != d) {
        cur = dmxi_gemm_torus_hop(t->cv, s, d, cur, &id);
        t->link[id * 2 + isb]++;
    }
}

static void send_one(tally *t, int64_t from, int64_t to, int isb)
{
    int64_t s = from / t->per, d = to / t->per;
    if (s == d)
        t->loop[s * 2 + isb]++;
    else if (t->cv->ndims > 0)
        torus_route(t, s, d, isb);
    else
        t->link[s * 2 + isb]++;
}

/* A root at rank r sending to r + u d, u = 1 .. q - 1. */
static void send_fan(tally *t, int64_t r, int64_t d, int64_t q, int isb)
{
    for (int64_t u = 1; u < q; u++)
        send_one(t, r, r + u * d, isb);
}

/* One step's messages at level @p lv. Level 0: the inner broadcasts (rows of s consecutive
 * columns, roots at place 0 of each group; columns of sr consecutive rows, roots at the group's
 * first row); level 1: the cross broadcasts (gc ranks s apart, roots in column 0; gr ranks sr
 * apart, roots in row 0); level 2: Cannon's shifts (every rank sends A to its left and B to its
 * upper neighbour); level 3: levels 0 and 1 together. The first panel's roots stand for every
 * panel's. */
static void step_messages(tally *t, const nshape *s, int lv)
{
    int64_t sc = s->pc / s->gc, sr = s->pr / s->gr;
    if (lv == 3) {
        step_messages(t, s, 0);
        step_messages(t, s, 1);
        return;
    }
    for (int64_t r = 0; r < (int64_t)s->pr * s->pc; r++) {
        int64_t i = r / s->pc, j = r % s->pc;
        if (lv == 2) {
            send_one(t, r, i * s->pc + (j + s->pc - 1) % s->pc, 0);
            send_one(t, r, ((i + s->pr - 1) % s->pr) * s->pc + j, 1);
            continue;
        }
        if (lv == 0 ? j % sc == 0 : j == 0)
            send_fan(t, r, lv == 0 ? 1 : sc, lv == 0 ? sc : s->gc, 0);
        if (lv == 0 ? i % sr == 0 : i == 0)
            send_fan(t, r, lv == 0 ? s->pc : sr * s->pc, lv == 0 ? sr : s->gr, 1);
    }
}

/* The kinds of link (and loopback) of a grid and grouping at every level, computed once per
 * search. NULL when the nodes are not shared (or on failure: the per-rank figures then). */
static const nshape *node_loads(mctx *c, int pr, int pc, int gr, int gc)
{
    if (!shared_nodes(c))
        return NULL;
    uint64_t h =
        ((uint64_t)pr * 131u + (uint64_t)pc * 31u + (uint64_t)gr * 7u + (uint64_t)gc) % NSHAPES;
    nshape *s = NULL;
    for (int u = 0; u < NSHAPES && s == NULL; u++) {
        nshape *x = &c->shapes[(h + (uint64_t)u) % NSHAPES];
        if (x->used && x->pr == pr && x->pc == pc && x->gr == gr && x->gc == gc)
            return x;
        if (!x->used)
            s = x;
    }
    if (s == NULL) { /* table full: the key's own slot is taken over (a search walks the grids
                      * in order, so the shapes it asks for again are recent ones); it is filled
                      * whole below, and stays free if that fails */
        s = &c->shapes[h];
        s->used = 0;
    }
    tally t = {dmxi_gemm_machine(), (c->p + c->nodes - 1) / c->nodes, NULL, NULL, 0, 0};
    t.nnodes = ((int64_t)pr * pc + t.per - 1) / t.per;
    t.nlinks = t.nnodes;
    if (t.cv->ndims > 0) {
        int64_t all = 1;
        for (int j = 0; j < t.cv->ndims; j++)
            all *= t.cv->dims[j];
        if (all < t.nnodes) /* more nodes than the torus holds: one link per node */
            return NULL;
        t.nlinks = all * t.cv->ndims * 2;
    }
    t.link = calloc((size_t)t.nlinks * 2, sizeof *t.link);
    t.loop = calloc((size_t)t.nnodes * 2, sizeof *t.loop);
    if (t.link && t.loop) {
        *s = (nshape){.pr = pr, .pc = pc, .gr = gr, .gc = gc, .used = 1};
        for (int lv = 0; lv < NLEVELS; lv++) {
            memset(t.link, 0, (size_t)t.nlinks * 2 * sizeof *t.link);
            memset(t.loop, 0, (size_t)t.nnodes * 2 * sizeof *t.loop);
            step_messages(&t, s, lv);
            for (int64_t l = 0; l < t.nlinks; l++) {
                s->hops_a += lv == 3 ? t.link[2 * l] : 0;
                s->hops_b += lv == 3 ? t.link[2 * l + 1] : 0;
                if (t.link[2 * l] || t.link[2 * l + 1])
                    add_kind(s, lv, (nkind){t.link[2 * l], 0, t.link[2 * l + 1], 0});
            }
            for (int64_t v = 0; v < t.nnodes; v++)
                if (t.loop[2 * v] || t.loop[2 * v + 1])
                    add_kind(s, lv, (nkind){0, t.loop[2 * v], 0, t.loop[2 * v + 1]});
        }
    }
    free(t.link);
    free(t.loop);
    return s && s->used ? s : NULL;
}

/* Seconds per byte of one message across nodes and inside one node, from the collectives
 * model's flat broadcast to 2 ranks (as the concurrent broadcast's alpha and beta). */
static void node_betas(mctx *c)
{
    if (c->beta_inter > 0)
        return;
    for (int nd = 1; nd <= 2; nd++) {
        double t0 = 0.0, t1 = 0.0;
        double *beta = nd == 2 ? &c->beta_inter : &c->beta_intra;
        if (dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_FLAT, 2, 0, nd, &t0, NULL) != DMX_SUCCESS ||
            dmx_coll_predict(DMX_COLL_BCAST, DMX_COLL_FLAT, 2, 1 << 20, nd, &t1, NULL) !=
                DMX_SUCCESS)
            t0 = 0.0, t1 = 1e30;
        *beta = (t1 - t0) / (double)(1 << 20);
        if (!(*beta > 0))
            *beta = 1e-30;
    }
}

/* The busiest node's bandwidth time in a step of level @p lv whose A messages have @p ea bytes
 * and B messages @p eb (0 leaves that broadcast out). */
static double node_bw(mctx *c, const nshape *s, int lv, double ea, double eb)
{
    double most = 0.0;
    node_betas(c);
    for (int i = 0; i < s->nk[lv]; i++) {
        const nkind *x = &s->k[lv][i];
        double off = ((double)x->off_a * ea + (double)x->off_b * eb) * c->beta_inter;
        double in = ((double)x->in_a * ea + (double)x->in_b * eb) * c->beta_intra;
        double t = off > in ? off : in;
        most = t > most ? t : most;
    }
    return most;
}

/* One inner panel's step with look-ahead (two panels in flight) when every rank has its own link
 * and a broadcast's root posts all its sends at once (ibcast = concurrent): the row broadcast of
 * A (over qa ranks, ea bytes) and the column broadcast of B (qb ranks, eb bytes) leave from
 * different roots, except at the one rank owning both panels, whose link carries both. A step
 * starts the next panel's broadcasts and then waits for the current one, posted a step earlier;
 * with steps of X and a broadcast taking L that gives X = max(W, (L + W) / 2).
 *  - panel owned by the same ranks as the previous one (inside a piece): both panels in flight
 *    leave through the same owner's link, so X >= its bandwidth time per panel, Bw = the two
 *    broadcasts' bandwidth terms together, and L = alpha + Bw: X = max(W, Bw, (L + W) / 2);
 *  - panel with new owners (first of a piece): the two panels in flight use different links,
 *    and only one row and one column see the doubly loaded owner: L = the slower of the two
 *    broadcasts alone, X = max(W, (L + W) / 2).
 * Against SMPI at 64 ranks (docs/gemm.md) this is within 20 % for b from 32 to 256 on both
 * platforms, where adding the broadcasts and serialising the panels was up to 3.5x too high.
 * With nodes shared (@p sh not NULL), "a rank's link" is its node's: the bandwidth terms are the
 * busiest node's (node_bw), A's alone, B's alone, and both together for the owners' case.
 * @p first (if not NULL) gets the panel's broadcast time when nothing hides it (L of the new-owner
 * case). */
static double link_step(mctx *c, const nshape *sh, int64_t qa, int64_t qb, double ea, double eb,
                        double W, int new_owners, double *first)
{
    double ta = tb(c, qa, ea), tbb = tb(c, qb, eb);
    double aa = qa > 1 ? tb(c, qa, 0.0) : 0.0, ab = qb > 1 ? tb(c, qb, 0.0) : 0.0;
    double bw = (ta - aa) + (tbb - ab);
    if (sh) {
        ta = aa + node_bw(c, sh, 0, ea, 0.0);
        tbb = ab + node_bw(c, sh, 0, 0.0, eb);
        bw = node_bw(c, sh, 0, ea, eb);
    }
    double L1 = ta > tbb ? ta : tbb;
    double L = new_owners ? L1 : (aa > ab ? aa : ab) + bw, x = (L + W) / 2.0;
    if (first)
        *first = L1;
    if (!new_owners && bw > x)
        x = bw;
    return W > x ? W : x;
}

/* Predicted time of SUMMA (B = 0) or HSUMMA over the actual panels: [0, k) cut at both splits,
 * pieces cut into outer panels of at most B (HSUMMA) and those into inner panels of at most b,
 * as gemm_summa.c and gemm_hsumma.c do. The first panel's broadcasts are never hidden. */
static double panels_time(mctx *c, int pr, int pc, int gr, int gc, int64_t b, int64_t B)
{
    double e = (double)dmx_dtype_size(c->t);
    double ml = (double)((c->m + pr - 1) / pr), nl = (double)((c->n + pc - 1) / pc);
    int64_t k = c->k, sa = (k + pc - 1) / pc, sb = (k + pr - 1) / pr, x = 0;
    int64_t ir = pr / gr, ic = pc / gc, ob = B > 0 ? B : b;
    double total = 0.0, first = -1.0;
    while (x < k) {
        int64_t na = (x / sa + 1) * sa, nb = (x / sb + 1) * sb, end = na < nb ? na : nb;
        end = end < k ? end : k;
        for (int64_t o = x; o < end; o += ob) { /* outer panel (SUMMA: the panel) */
            int64_t ow = end - o < ob ? end - o : ob, nfull = ow / b, rem = ow % b;
            double ci = tb(c, ic, ml * (double)b * e) + tb(c, ir, (double)b * nl * e);
            double inner = (double)nfull * comb(c, ci, work(c, ml, nl, (double)b));
            double ci0 = ci;
            if (rem > 0) {
                double cr = tb(c, ic, ml * (double)rem * e) + tb(c, ir, (double)rem * nl * e);
                inner += comb(c, cr, work(c, ml, nl, (double)rem));
                if (nfull == 0)
                    ci0 = cr;
            }
            const nshape *sh = concurrent_links(c) ? node_loads(c, pr, pc, gr, gc) : NULL;
            if (concurrent_links(c)) {
                inner = 0.0;
                for (int64_t u = 0; u * b < ow; u++) {
                    double w = ow - u * b < b ? (double)(ow - u * b) : (double)b;
                    inner += link_step(c, sh, ic, ir, ml * w * e, w * nl * e, work(c, ml, nl, w),
                                       o == x && u == 0, u == 0 ? &ci0 : NULL);
                }
            }
            double co =
                B > 0 ? tb(c, gc, ml * (double)ow * e) + tb(c, gr, (double)ow * nl * e) : 0.0;
            if (B > 0 && sh) /* the cross broadcasts' latencies, then the busiest node's bytes */
                co = (gc > 1 ? tb(c, gc, 0.0) : 0.0) + (gr > 1 ? tb(c, gr, 0.0) : 0.0) +
                     node_bw(c, sh, 1, ml * (double)ow * e, (double)ow * nl * e);
            if (first < 0)
                first = co + ci0;
            /* The next outer panel from the same owners: its cross broadcasts leave the nodes
             * that relay this one's inner panels while they do, so the busiest node carries
             * both levels' bytes of one outer panel in this panel's time. */
            if (sh) {
                double both = node_bw(c, sh, 3, ml * (double)ow * e, (double)ow * nl * e);
                double wo = work(c, ml, nl, (double)ow);
                if (B > 0 && o + ob < end)
                    inner = at_least(inner, both);
                if (wo > 0 && both / wo > c->util)
                    c->util = both / wo;
                c->traffic += ((double)sh->hops_a * ml * (double)ow * e +
                               (double)sh->hops_b * (double)ow * nl * e) *
                              c->beta_inter;
            }
            /* All ranks' broadcast bytes of this panel (outer and inner levels together move
             * each panel to the pc - 1 other grid columns and the pr - 1 other grid rows). */
            double bb =
                backbone(((double)(pc - 1) * (double)c->m + (double)(pr - 1) * (double)c->n) *
                         (double)ow * e);
            total += at_least(B > 0 ? comb(c, co, inner) : inner, bb);
        }
        x = end;
    }
    return (first > 0 ? first : 0.0) + total;
}

static double predict_one(mctx *c, dmx_gemm_alg alg, int pr, int pc, int gr, int gc, int64_t b,
                          int64_t B)
{
    double e = (double)dmx_dtype_size(c->t);
    double ml = (double)((c->m + pr - 1) / pr), nl = (double)((c->n + pc - 1) / pc);
    c->util = 0.0, c->traffic = 0.0;
    if (alg == DMX_GEMM_CANNON) {
        int64_t kq = (c->k + pr - 1) / pr;
        double s = 2.0 * coll_time(c, DMX_COLL_SHIFT, pr, (int64_t)(ml * (double)kq * e));
        s = at_least(s, backbone((double)pr * pr * (ml + nl) * (double)kq * e)); /* all shifts */
        const nshape *sh = node_loads(c, pr, pr, 1, 1); /* the busiest node's shifts */
        if (sh)
            s = at_least(s, node_bw(c, sh, 2, ml * (double)kq * e, nl * (double)kq * e));
        double w = work(c, ml, nl, (double)kq);
        return s + (double)pr * comb(c, s, w) - (c->overlap ? 0.0 : s);
    }
    if (alg == DMX_GEMM_SUMMA)
        return panels_time(c, pr, pc, 1, 1, b, 0);
    return panels_time(c, pr, pc, gr, gc, b, B);
}

int dmxi_gemm_group_grid(int pr, int pc, int G, int *gr, int *gc)
{
    int best = 0;
    for (int r = 1; r <= pr && r <= G; r++) {
        if (pr % r || G % r || pc % (G / r) || (int64_t)r * pc < G)
            continue;
        if (!best || abs(r - G / r) < abs(*gr - *gc)) {
            *gr = r;
            *gc = G / r;
            best = 1;
        }
    }
    return best;
}

/* The algorithm DMX_GEMM forces, or AUTO. */
static dmx_status env_alg(dmx_gemm_alg *alg)
{
    dmx_status st = DMX_SUCCESS;
    const char *v = dmxi_setting_str(DMXI_SET_GEMM);
    *alg = DMX_GEMM_AUTO;
    if (v == NULL)
        goto cleanup;
    for (int a = DMX_GEMM_AUTO; a <= DMX_GEMM_CANNON; a++)
        if (strcmp(v, dmx_gemm_alg_name((dmx_gemm_alg)a)) == 0) {
            *alg = (dmx_gemm_alg)a;
            goto cleanup;
        }
    DMXI_FAIL(DMX_ERR_ARG, "DMX_GEMM=%s: expected auto, summa, hsumma or cannon", v);
cleanup:
    return st;
}

/* The redistribution term of a grid (gemm_redist.c), with the figures the broadcasts use:
 * alpha a one-message broadcast's time, beta inside a node and across. 0 without layouts. */
static double moves(mctx *c, int pr, int pc, int cannon)
{
    if (c->data == NULL)
        return 0.0;
    for (int i = 0; i < c->nmoves; i++)
        if (c->moves[i].pr == pr && c->moves[i].pc == pc && c->moves[i].cannon == cannon)
            return c->moves[i].t;
    node_betas(c);
    dmxi_gemm_net net = {c->p,          c->nodes,      c->m,
                         c->n,          c->k,          dmx_dtype_size(c->t),
                         tb(c, 2, 0.0), c->beta_intra, c->beta_inter};
    double part[3];
    double t = dmxi_gemm_redist_time(c->data, &net, pr, pc, cannon, part);
    if (c->nmoves < NMOVES) {
        int i = c->nmoves++;
        c->moves[i].pr = pr, c->moves[i].pc = pc, c->moves[i].cannon = cannon, c->moves[i].t = t;
    }
    return t;
}

static void consider(mctx *c, dmx_gemm_alg alg, int pr, int pc, int gr, int gc, int64_t b,
                     int64_t B, dmx_gemm_info *best, int *have)
{
    double t = predict_one(c, alg, pr, pc, gr, gc, b, B);
    double r = moves(c, pr, pc, alg == DMX_GEMM_CANNON);
    /* Candidates come in order of growing panel memory (widths ascending; SUMMA, HSUMMA,
     * Cannon): a later one must be better by more than 1 %, the model's resolution, so near
     * ties keep the smaller buffers. With the operands' layouts known, the time compared is the
     * multiply's plus the redistribution's (0 without layouts: the comparison as before). */
    double held = best->predicted_seconds + best->redist_seconds;
    /* A near tie between groupings of the same panels on the same grid goes to the one whose
     * busiest node's links have the most slack (its bytes' time against the local multiply's):
     * near saturation the simulated steps stretch beyond the model's max(communication, work)
     * (graphene_ib, 128 ranks, b = B = 32: G = 2 at 0.97 of the multiply's time took 1.09x
     * the predicted time, G = 4 to 32 at 0.56-0.71 within 0.5 % of theirs; docs/scale.md).
     * util is 0 unless node_loads applies (shared nodes, ibcast = concurrent): no rule then.
     * With the busiest links as loaded (within 1 %), to the one whose links carry at least 5 %
     * fewer bytes in all (traffic: every link's time summed, a message on each link of its
     * route): the other links' messages share routes with the busiest one's and stretch its
     * steps (bgp_2048, 2,048 ranks, b = B = 64: G = 64 and 128 priced alike, G = 64's A
     * broadcasts also crossing the torus, 9 % more traffic, simulated 341.2 against 310.7 ms;
     * docs/gemm.md). And when the links carry more than 1.1x the multiply's time, a near tie
     * (1 % of the least time priced) between panel widths goes to the wider panel: saturated
     * steps each wait for the last of their messages, and wider panels take fewer steps (same
     * point, G = 128: b = 32 330.9 ms, b = 64 310.7, priced 319.8 and 321.5). */
    int tie = *have && alg == DMX_GEMM_HSUMMA && best->alg == DMX_GEMM_HSUMMA && best->prow == pr &&
              best->pcol == pc && t + r < 1.01 * held;
    int same = tie && best->panel == b && best->outer_panel == B;
    int slack = same && c->util < 0.9 * c->best_util;
    int quiet = same && c->util < 1.01 * c->best_util && c->traffic < 0.95 * c->best_traffic;
    int wider =
        tie && b > best->panel && c->util > 1.1 && c->best_util > 1.1 && t + r < 1.01 * c->least;
    if (!*have || t + r < c->least)
        c->least = t + r;
    if (*have && !slack && !quiet && !wider && !(t + r < 0.99 * held))
        return;
    *have = 1;
    c->best_util = c->util;
    c->best_traffic = c->traffic;
    best->redist_seconds = r;
    best->alg = alg;
    best->prow = pr, best->pcol = pc;
    best->group_rows = gr, best->group_cols = gc, best->groups = gr * gc;
    best->panel = b, best->outer_panel = B;
    best->predicted_seconds = t;
    best->compute_seconds =
        work(c, (double)((c->m + pr - 1) / pr), (double)((c->n + pc - 1) / pc), (double)b) *
        (double)c->k / (double)(b > 0 ? b : 1);
}

static dmx_status search(mctx *c, int64_t p, const dmx_gemm_options *o, dmx_gemm_alg alg,
                         dmx_gemm_info *out)
{
    dmx_status st = DMX_SUCCESS;
    static const int64_t widths[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 0};
    int have = 0;
    int64_t kk = c->k > 0 ? c->k : 1;
    c->p = p;
    DMXI_CHECK(p >= 1 && p <= INT_MAX, DMX_ERR_ARG, "p = %lld", (long long)p);
    DMXI_CHECK((int64_t)o->prow * o->pcol <= p, DMX_ERR_UNSUPPORTED,
               "grid %d x %d needs more than %lld ranks", o->prow, o->pcol, (long long)p);
    DMXI_CHECK((o->prow == 0) == (o->pcol == 0), DMX_ERR_ARG, "give both prow and pcol or neither");
    for (int a = DMX_GEMM_SUMMA; a <= DMX_GEMM_CANNON; a++) {
        if (alg != DMX_GEMM_AUTO && a != (int)alg)
            continue;
        if (a == DMX_GEMM_CANNON) {
            int q = (int)floor(sqrt((double)p) + 1e-9);
            while ((int64_t)(q + 1) * (q + 1) <= p)
                q++;
            while ((int64_t)q * q > p)
                q--;
            if (o->prow) {
                if (o->prow != o->pcol)
                    continue;
                q = o->prow;
            }
            consider(c, DMX_GEMM_CANNON, q, q, 1, 1, (kk + q - 1) / q, (kk + q - 1) / q, out,
                     &have);
            continue;
        }
        int sq = 1; /* the most square grid, the only one searched above 4096 ranks */
        for (int r = 1; (int64_t)r * r <= p; r++)
            if (p % r == 0)
                sq = r;
        /* Grids from the most square outwards (d x p/d, then p/d x d), so that with the 1 %
         * rule of consider() a less square grid must be clearly better; a forced grid alone. */
        for (int d = o->prow ? 1 : sq, tw = 0; d >= 1; tw = !tw, d -= tw == 0) {
            int pr = tw ? (int)(p / d) : d, pc = (int)(p / pr);
            if (o->prow) {
                if (tw)
                    break;
                pr = o->prow, pc = o->pcol;
            } else if (p % d || (tw && pr == d) || (p > 4096 && d != sq)) {
                continue;
            }
            /* Panel widths: the list up to the widest piece, then that piece (a panel never
             * exceeds it, so neither do the panel buffers). */
            int64_t cap = widest_piece(kk, pr, pc);
            for (int wi = 0; wi < 9; wi++) {
                int64_t b =
                    o->panel ? o->panel : (widths[wi] && widths[wi] < cap ? widths[wi] : cap);
                if ((o->panel && wi > 0) || (!o->panel && wi > 0 && widths[wi - 1] >= cap))
                    break;
                if (a == DMX_GEMM_SUMMA) {
                    consider(c, DMX_GEMM_SUMMA, pr, pc, 1, 1, b, b, out, &have);
                    continue;
                }
                for (int G = 1; G <= pr * pc; G++) {
                    int gr = 0, gc = 0;
                    if ((o->groups && G != o->groups) || (pr * pc) % G)
                        continue;
                    if (!dmxi_gemm_group_grid(pr, pc, G, &gr, &gc))
                        continue;
                    if (o->outer_panel) {
                        if (o->outer_panel % b == 0)
                            consider(c, DMX_GEMM_HSUMMA, pr, pc, gr, gc, b, o->outer_panel, out,
                                     &have);
                        continue;
                    }
                    for (int64_t B = b; B <= 16 * b && (B == b || B <= cap); B *= 2)
                        consider(c, DMX_GEMM_HSUMMA, pr, pc, gr, gc, b, B, out, &have);
                }
            }
        }
    }
    DMXI_CHECK(have, DMX_ERR_UNSUPPORTED,
               "no %s configuration fits the options (grid %d x %d, G %d, b %lld, B %lld) on %lld "
               "ranks",
               dmx_gemm_alg_name(alg), o->prow, o->pcol, o->groups, (long long)o->panel,
               (long long)o->outer_panel, (long long)p);
cleanup:
    return st;
}

dmx_status dmxi_gemm_choose(dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p, int nodes,
                            const dmx_gemm_options *opt, const dmxi_gemm_data *data,
                            dmx_gemm_info *out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_alg alg = opt->alg;
    mctx *c = calloc(1, sizeof *c);
    DMXI_CHECK(c != NULL, DMX_ERR_ALLOC, "out of memory for the model");
    c->t = t, c->m = m, c->n = n, c->k = k, c->nodes = nodes > 1 ? nodes : 1;
    c->overlap = opt->overlap;
    c->data = data;
    if (alg == DMX_GEMM_AUTO)
        DMXI_TRY(env_alg(&alg));
    memset(out, 0, sizeof *out);
    DMXI_TRY(search(c, p, opt, alg, out));
cleanup:
    free(c);
    return st;
}

dmx_status dmx_gemm_predict(dmx_gemm_alg alg, dmx_dtype dtype, int64_t m, int64_t n, int64_t k,
                            int64_t p, int64_t nodes, const dmx_gemm_options *options,
                            dmx_gemm_info *chosen)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_options o;
    dmx_gemm_info info;
    mctx *c = NULL;
    DMXI_CHECK(chosen != NULL, DMX_ERR_NULL, "chosen is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0 && m >= 0 && n >= 0 && k >= 0 && nodes >= 1, DMX_ERR_ARG,
               "invalid dtype, size or node count");
    DMXI_CHECK(alg >= DMX_GEMM_AUTO && alg <= DMX_GEMM_CANNON, DMX_ERR_ARG, "invalid algorithm");
    dmx_gemm_options_init(&o);
    if (options)
        o = *options;
    c = calloc(1, sizeof *c);
    DMXI_CHECK(c != NULL, DMX_ERR_ALLOC, "out of memory for the model");
    c->t = dtype, c->m = m, c->n = n, c->k = k, c->nodes = nodes, c->overlap = o.overlap;
    memset(&info, 0, sizeof info);
    DMXI_TRY(search(c, p, &o, alg, &info));
    info.m = m, info.n = n, info.k = k;
    *chosen = info;
cleanup:
    free(c);
    return st;
}
