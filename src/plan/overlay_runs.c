/* SPDX-License-Identifier: BSD-3-Clause */
/* Run-compressed overlay: the pieces of a transform between two block-cyclic layouts described
 * by runs of rows and columns instead of one rectangle per pair of blocks.
 *
 * Algorithm: in a block-cyclic layout the owner of element (r, c) is grid(f(r), g(c)), where f
 * depends on the row alone and g on the column alone; op(B) seen in A's coordinates is again such
 * a product (for op T and C, B's column map gives op(B)'s rows). So the elements that rank S
 * sends to rank R form a product set: (rows where A's row map gives R's grid row and op(B)'s gives
 * S's) x (columns likewise). One merge of A's and op(B)'s block boundaries along each dimension
 * gives the runs: maximal intervals inside one block of each, tagged with both owners' grid
 * coordinates and both local indices. This rank keeps the runs of its own grid row (column) on
 * the receive side, grouped by op(B)'s grid coordinate, and those of its op(B) grid coordinates
 * on the send side, grouped by A's; each pair of groups is one piece per peer (or local). Pieces
 * are cut here already to the agreed chunk (whole runs, runs split only when one alone is too
 * long), the same way on both sides: the cut depends only on the runs' A coordinates, lengths,
 * the element size and the chunk. packages.c lays them out like any piece, and the engines walk
 * the product (exec/engine_runs.c).
 *
 * Chosen per transform, alike on every rank (from global facts only): both layouts
 * block-cyclic, no trapezoid, and DMX_RUNS = 1, or DMX_RUNS unset and the overlay rectangles
 * average fewer than RUNS_MAX_AREA elements (small blocks on either side).
 * Preconditions: the transform was validated; p->ex.chunk_bytes is the agreed chunk.
 * Cost per rank: O(m/mb_A + m/mb_B + n/nb_A + n/nb_B) for the merge, O(runs x peers) for the
 * pieces; no communication. Memory: the runs (32 bytes each: at most the merged boundaries along
 * this rank's rows once, and along its columns once per peer grid row) plus one piece (about 80
 * bytes) per chunk: O(m/nb + n/nb) per peer instead of O(m n / nb^2).
 */
#include "plan.h"

/* Overlay rectangles below this average area (elements) are planned as runs. */
#define RUNS_MAX_AREA 1024.0

/* One dimension of a layout: its rows (dim 0) or columns (dim 1). */
typedef struct axis {
    const dmx_layout *L;
    int dim;
} axis;

static int64_t ax_start(const axis *x, int64_t k)
{
    return x->dim ? dmxi_layout_col_start(x->L, k) : dmxi_layout_row_start(x->L, k);
}

static int ax_proc(const axis *x, int64_t k)
{
    const dmxi_desc *d = x->L->d;
    return x->dim ? (int)((k + x->L->bj0 + d->csrc) % d->pcol)
                  : (int)((k + x->L->bi0 + d->rsrc) % d->prow);
}

static int ax_nproc(const axis *x)
{
    return x->dim ? x->L->d->pcol : x->L->d->prow;
}

static int ax_mine(const axis *x)
{
    return x->dim ? x->L->d->mypcol : x->L->d->myprow;
}

/* Local index (in the owner's array) of window coordinate v inside window block k. */
static int64_t ax_local(const axis *x, int64_t k, int64_t v)
{
    const dmxi_desc *d = x->L->d;
    if (x->dim) {
        const int64_t J = k + x->L->bj0;
        return (J / d->pcol) * d->nb + (v + x->L->j0 - d->csplit[J]);
    }
    const int64_t I = k + x->L->bi0;
    return (I / d->prow) * d->mb + (v + x->L->i0 - d->rsplit[I]);
}

/* A run with the grid coordinates of its A owner (pa) and op(B) owner (pb). */
typedef struct rrun {
    dmxi_seg s;
    int pa, pb;
} rrun;

typedef struct rrun_list {
    rrun *v;
    int64_t n, cap;
    int64_t pairs; /* intervals between block boundaries (runs before extending) */
} rrun_list;

/* Merge the block boundaries of a and b over [0, ext). */
static dmx_status merge(const axis *a, const axis *b, int64_t ext, rrun_list *l)
{
    dmx_status st = DMX_SUCCESS;
    int64_t x = 0, ka = 0, kb = 0;
    while (x < ext) {
        const int64_t ea = ax_start(a, ka + 1), eb = ax_start(b, kb + 1);
        if (ea <= x || eb <= x) { /* an empty block */
            ka += ea <= x, kb += eb <= x;
            continue;
        }
        const int64_t e = ea < eb ? ea : eb;
        l->pairs++;
        const int pa = ax_proc(a, ka), pb = ax_proc(b, kb);
        const int64_t am = ax_local(a, ka, x), bm = ax_local(b, kb, x);
        rrun *last = l->n > 0 ? &l->v[l->n - 1] : NULL;
        if (last && last->pa == pa && last->pb == pb && last->s.am + last->s.len == am &&
            last->s.bm + last->s.len == bm) { /* continues the last run in both arrays */
            last->s.len += e - x;
            x = e;
            continue;
        }
        DMXI_TRY(dmxi_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v));
        l->v[l->n++] = (rrun){{x, e - x, am, bm}, pa, pb};
        x = e;
    }
cleanup:
    return st;
}

/* The runs whose key owner (pa when by_a, else pb) is mine, grouped by the other owner's
 * coordinate (0..ng-1, in order of a within a group): group g is out[first[g] .. first[g+1]). */
static dmx_status group(const rrun_list *l, int by_a, int mine, int ng, dmxi_seg **out,
                        int64_t **first)
{
    dmx_status st = DMX_SUCCESS;
    *out = NULL;
    *first = dmxi_calloc((int64_t)ng + 2, sizeof **first);
    DMXI_CHECK(*first, DMX_ERR_ALLOC, "out of memory");
    int64_t *f = *first, n = 0;
    for (int64_t i = 0; i < l->n; i++)
        if ((by_a ? l->v[i].pa : l->v[i].pb) == mine)
            f[(by_a ? l->v[i].pb : l->v[i].pa) + 2]++, n++;
    for (int g = 0; g < ng; g++)
        f[g + 2] += f[g + 1];
    *out = dmxi_malloc(n > 0 ? n : 1, sizeof **out);
    DMXI_CHECK(*out, DMX_ERR_ALLOC, "out of memory");
    for (int64_t i = 0; i < l->n; i++)
        if ((by_a ? l->v[i].pa : l->v[i].pb) == mine)
            (*out)[f[(by_a ? l->v[i].pb : l->v[i].pa) + 1]++] = l->v[i].s;
cleanup:
    return st;
}

/* Append runs v[0..n) to segs, each split into runs of at most most elements. */
static dmx_status push_split(dmxi_seg_list *segs, const dmxi_seg *v, int64_t n, int64_t most)
{
    dmx_status st = DMX_SUCCESS;
    for (int64_t i = 0; i < n; i++)
        for (int64_t o = 0; o < v[i].len; o += most) {
            DMXI_TRY(dmxi_reserve((void **)&segs->v, &segs->cap, segs->n + 1, sizeof *segs->v));
            const int64_t l = v[i].len - o < most ? v[i].len - o : most;
            segs->v[segs->n++] = (dmxi_seg){v[i].a + o, l, v[i].am + o, v[i].bm + o};
        }
cleanup:
    return st;
}

/* Everything one side of the plan needs to turn pairs of run groups into pieces. */
typedef struct side {
    const dmx_plan *p;
    int t;
    int recv; /* the receive side (A is mine), else the send side */
    int64_t cap;
    dmxi_seg_list *segs;
    dmxi_piece_list *pieces;
    dmxi_local_list *loc;
} side;

/* Owner, as a plan rank, of A's grid (pr, pc) or of op(B)'s grid coordinates (x, y). */
static int a_rank(const dmxi_xform *x, int pr, int pc)
{
    const dmxi_desc *d = x->t.a->d;
    const int o = d->grid_ranks[(int64_t)pr * d->pcol + pc];
    return x->amap ? x->amap[o] : o;
}
static int b_rank(const dmxi_xform *x, int rx, int cy)
{
    const dmxi_desc *d = x->t.b->d;
    const int o = x->t.op == DMX_OP_N ? d->grid_ranks[(int64_t)rx * d->pcol + cy]
                                      : d->grid_ranks[(int64_t)cy * d->pcol + rx];
    return x->bmap ? x->bmap[o] : o;
}

/* The pieces of row runs segs[r0, r1) (grouped: gfirst/grows, ng groups) by column runs
 * segs[c0, c1) with peer owner (this rank: local rectangles). */
static dmx_status emit(const side *s, int owner, const int64_t *gfirst, const int64_t *grows,
                       int64_t ng, int64_t c0, int64_t c1)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_xform *x = &s->p->xf[s->t];
    const dmxi_seg *v = s->segs->v;
    for (int64_t g = 0; g < ng; g++) {
        const int64_t most = s->cap / grows[g]; /* columns per piece, >= every column run */
        for (int64_t j = c0; j < c1;) {
            int64_t cols = 0, j1 = j;
            while (j1 < c1 && cols + v[j1].len <= most)
                cols += v[j1++].len;
            const dmxi_mem rm = {gfirst[g], j, 0, DMX_COL_MAJOR};
            if (owner == s->p->rank) {
                dmxi_local lp = {v[gfirst[g]].a, v[j].a, grows[g], cols, rm, rm, s->t};
                lp.amem.ld = x->t.a->d->lld;
                lp.bmem.ld = x->t.b->d->lld;
                DMXI_TRY(dmxi_local_push(s->loc, &lp));
            } else {
                dmxi_piece pc = {.r0 = v[gfirst[g]].a,
                                 .c0 = v[j].a,
                                 .rows = grows[g],
                                 .cols = cols,
                                 .mem = rm,
                                 .peer = owner,
                                 .t = s->t};
                pc.mem.ld = (s->recv ? x->t.a : x->t.b)->d->lld;
                DMXI_TRY(dmxi_piece_push(s->pieces, &pc));
            }
            j = j1;
        }
    }
cleanup:
    return st;
}

/* The side of a square tile of at most cap elements, rounded down to a multiple of 16 when it
 * is at least 16 (as packages.c cuts transposed rectangles). */
static int64_t tile_side(int64_t cap)
{
    int64_t lo = 1, hi = cap < ((int64_t)1 << 31) ? cap : ((int64_t)1 << 31);
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (mid <= cap / mid)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo >= 16 ? lo & ~(int64_t)15 : lo;
}

/* Row runs segs[r0, r1) cut into groups of at most rlim rows (every run has at most rlim):
 * gfirst/grows, *ng groups, the tallest *gmax. */
static void row_groups(const dmxi_seg *v, int64_t r0, int64_t r1, int64_t rlim, int64_t *gfirst,
                       int64_t *grows, int64_t *ng, int64_t *gmax)
{
    *ng = *gmax = 0;
    for (int64_t i = r0; i < r1;) {
        int64_t rows = 0, i1 = i;
        while (i1 < r1 && rows + v[i1].len <= rlim)
            rows += v[i1++].len;
        gfirst[*ng] = i, grows[(*ng)++] = rows;
        *gmax = rows > *gmax ? rows : *gmax;
        i = i1;
    }
}

/* One side: rows R (grouped by the other side's grid row coordinate, nr groups) by columns C
 * (nc groups). Op N: pieces of whole columns of the pair (row groups of at most a chunk's
 * elements, only when one column is larger); op T and C: tiles about square (rows at most
 * the square's side unless the pair's columns are fewer), so that neither B's reads nor A's
 * writes run along one long strided line. Everything depends only on the pair's runs, the op,
 * the element size and the chunk: both sides cut alike. */
static dmx_status pair_up(const side *s, const dmxi_seg *R, const int64_t *rf, int nr,
                          const dmxi_seg *C, const int64_t *cf, int nc)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *gfirst = NULL, *grows = NULL;
    const dmxi_xform *x = &s->p->xf[s->t];
    const int tiles = x->t.op != DMX_OP_N;
    const int64_t edge = tiles ? tile_side(s->cap) : s->cap;
    for (int gx = 0; gx < nr; gx++) {
        if (rf[gx] == rf[gx + 1])
            continue;
        int64_t rt = 0;
        for (int64_t i = rf[gx]; i < rf[gx + 1]; i++)
            rt += R[i].len;
        /* the row runs, split to at most the tile side (op T, C) or a chunk (op N) */
        const int64_t rbase = s->segs->n;
        DMXI_TRY(push_split(s->segs, R + rf[gx], rf[gx + 1] - rf[gx], rt > edge ? edge : rt));
        const int64_t rend = s->segs->n;
        free(gfirst), free(grows);
        gfirst = dmxi_malloc(rend - rbase, sizeof *gfirst);
        grows = dmxi_malloc(rend - rbase, sizeof *grows);
        DMXI_CHECK(gfirst && grows, DMX_ERR_ALLOC, "out of memory");
        int64_t ng = 0, gmax = 0;
        if (!tiles)
            row_groups(s->segs->v, rbase, rend, s->cap, gfirst, grows, &ng, &gmax);
        for (int gy = 0; gy < nc; gy++) {
            if (cf[gy] == cf[gy + 1])
                continue;
            const int owner = s->recv ? b_rank(x, gx, gy) : a_rank(x, gx, gy);
            if (!s->recv && owner == s->p->rank)
                continue; /* planned on the receive side */
            if (tiles) {  /* rows per tile: the side, or more when the pair has few columns */
                int64_t ct = 0;
                for (int64_t j = cf[gy]; j < cf[gy + 1]; j++)
                    ct += C[j].len;
                const int64_t per = ct > 0 ? s->cap / ct : s->cap; /* ct >= 1: runs are not empty */
                const int64_t rlim = per > edge ? per : edge;
                row_groups(s->segs->v, rbase, rend, rlim, gfirst, grows, &ng, &gmax);
            }
            const int64_t cbase = s->segs->n;
            DMXI_TRY(push_split(s->segs, C + cf[gy], cf[gy + 1] - cf[gy], s->cap / gmax));
            DMXI_TRY(emit(s, owner, gfirst, grows, ng, cbase, s->segs->n));
        }
    }
cleanup:
    free(gfirst);
    free(grows);
    return st;
}

/* One side of transform t: the runs whose key owner is mine, paired. */
static dmx_status one_side(const side *s, const rrun_list *rows, const rrun_list *cols,
                           const axis *ar, const axis *ac, const axis *br, const axis *bc)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_seg *R = NULL, *C = NULL;
    int64_t *rf = NULL, *cf = NULL;
    const axis *kr = s->recv ? ar : br, *kc = s->recv ? ac : bc; /* mine */
    const axis *gr = s->recv ? br : ar, *gc = s->recv ? bc : ac; /* grouped by */
    if (ax_mine(kr) < 0 || ax_mine(kc) < 0)
        goto cleanup; /* not in this grid */
    DMXI_TRY(group(rows, s->recv, ax_mine(kr), ax_nproc(gr), &R, &rf));
    DMXI_TRY(group(cols, s->recv, ax_mine(kc), ax_nproc(gc), &C, &cf));
    DMXI_TRY(pair_up(s, R, rf, ax_nproc(gr), C, cf, ax_nproc(gc)));
cleanup:
    free(R);
    free(C);
    free(rf);
    free(cf);
    return st;
}

dmx_status dmxi_overlay_runs(const dmx_plan *p, int t, dmxi_piece_list *recv, dmxi_local_list *loc,
                             dmxi_piece_list *send, dmxi_seg_list *segs, int *done)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_xform *x = &p->xf[t];
    const dmx_transform *tr = &x->t;
    const dmx_layout *A = tr->a, *B = tr->b;
    rrun_list rows = {0}, cols = {0};
    int64_t unit = 0;
    *done = 0;
    const int64_t mode = dmxi_setting_int(DMXI_SET_RUNS);
    if (mode == 0 || !A->d->cyclic || !B->d->cyclic || A->d->local_only || B->d->local_only ||
        dmxi_trapezoid_kind(tr, &unit) != 0 || A->m == 0 || A->n == 0)
        return DMX_SUCCESS;
    const int tr_b = tr->op != DMX_OP_N;
    const axis ar = {A, 0}, ac = {A, 1}, br = {B, tr_b}, bc = {B, !tr_b};
    DMXI_TRY(merge(&ar, &br, A->m, &rows));
    DMXI_TRY(merge(&ac, &bc, A->n, &cols));
    if (mode != 1 &&
        (double)A->m * (double)A->n >= RUNS_MAX_AREA * (double)rows.pairs * (double)cols.pairs)
        goto cleanup; /* large rectangles: the rectangle overlay */
    const int64_t es = (int64_t)x->esize, chunk = p->ex.chunk_bytes;
    const int64_t cap = chunk / es > 0 ? chunk / es : 1;
    const side rs = {p, t, 1, cap, segs, recv, loc}, ss = {p, t, 0, cap, segs, send, loc};
    DMXI_TRY(one_side(&rs, &rows, &cols, &ar, &ac, &br, &bc));
    DMXI_TRY(one_side(&ss, &rows, &cols, &ar, &ac, &br, &bc));
    x->runs = 1;
    *done = 1;
cleanup:
    free(rows.v);
    free(cols.v);
    return st;
}
