/* SPDX-License-Identifier: BSD-3-Clause */
/* Step 2 of the directory (see directory.c): matching the registrations of one region.
 * A sweep over the region's rows keeps, per side, an ordered set of the active column
 * intervals (a bit tree over the distinct column starts); inserting a rectangle checks it
 * against its neighbours on its own side (overlap: DMX_ERR_LAYOUT) and reports every active
 * rectangle of the other side it meets; the areas per side must then add up to the region's
 * (else a gap: DMX_ERR_LAYOUT).
 * Cost for N rectangles and K intersections in the region: O((N + K) log N) time, about 90
 * bytes per rectangle. Local (no communication). */
#include "directory.h"

#include <string.h>

/* ---- step 2: matching in one region --------------------------------------------------------- */

typedef struct drect {
    int64_t r0, c0, r1, c1; /* [r0, r1) x [c0, c1) in A's coordinates */
    int64_t k;              /* owner's local block */
    int64_t slot;           /* index of c0 among the side's distinct column starts */
    int owner;              /* plan rank */
} drect;

typedef struct keyidx {
    int64_t key, idx;
} keyidx;

/* A set of slots 0..n-1 with successor/predecessor queries: a complete binary tree of flags,
 * each node set iff a leaf below it is. */
typedef struct bittree {
    int64_t size; /* leaves, a power of two */
    unsigned char *bit;
} bittree;

static dmx_status bittree_init(bittree *b, int64_t n)
{
    dmx_status st = DMX_SUCCESS;
    b->size = 1;
    while (b->size < n)
        b->size *= 2;
    b->bit = dmxi_calloc(2 * b->size, 1);
    DMXI_CHECK(b->bit, DMX_ERR_ALLOC, "out of memory for a directory sweep of %lld columns",
               (long long)n);
cleanup:
    return st;
}

static void bittree_set(bittree *b, int64_t i, unsigned char on)
{
    int64_t v = i + b->size;
    b->bit[v] = on;
    for (v /= 2; v >= 1; v /= 2) {
        unsigned char x = b->bit[2 * v] | b->bit[2 * v + 1];
        if (b->bit[v] == x)
            break;
        b->bit[v] = x;
    }
}

/* Smallest set slot >= i, or -1. */
static int64_t bittree_next(const bittree *b, int64_t i)
{
    if (i < 0)
        i = 0;
    if (i >= b->size)
        return -1;
    int64_t v = i + b->size;
    if (b->bit[v])
        return i;
    for (; v > 1; v /= 2) {
        if (v % 2 == 0 && b->bit[v + 1]) {
            for (v = v + 1; v < b->size;)
                v = b->bit[2 * v] ? 2 * v : 2 * v + 1;
            return v - b->size;
        }
    }
    return -1;
}

/* Largest set slot <= i, or -1. */
static int64_t bittree_prev(const bittree *b, int64_t i)
{
    if (i >= b->size)
        i = b->size - 1;
    if (i < 0)
        return -1;
    int64_t v = i + b->size;
    if (b->bit[v])
        return i;
    for (; v > 1; v /= 2) {
        if (v % 2 == 1 && b->bit[v - 1]) {
            for (v = v - 1; v < b->size;)
                v = b->bit[2 * v + 1] ? 2 * v + 1 : 2 * v;
            return v - b->size;
        }
    }
    return -1;
}

/* The rectangles one layout registered in the region, and its sweep state. */
typedef struct dside {
    drect *v;
    int64_t n, cap;
    keyidx *by_end; /* rectangles by end row */
    int64_t *cols;  /* distinct column starts, ascending */
    int64_t ncols;
    int64_t *active;  /* slot -> rectangle, valid where the tree has the slot set */
    bittree tree;     /* active slots */
    int64_t next, ie; /* next rectangle to start (v is sorted by r0), next to end */
} dside;

static void dside_free(dside *s)
{
    free(s->v);
    free(s->by_end);
    free(s->cols);
    free(s->active);
    free(s->tree.bit);
}

static int cmp_drect(const void *x, const void *y)
{
    const drect *a = x, *b = y;
    if (a->r0 != b->r0)
        return a->r0 < b->r0 ? -1 : 1;
    return (a->c0 > b->c0) - (a->c0 < b->c0);
}

static int cmp_keyidx(const void *x, const void *y)
{
    const keyidx *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Index of the largest distinct column start <= c, or -1. */
static int64_t dside_floor(const dside *s, int64_t c)
{
    int64_t lo = 0, hi = s->ncols; /* first start > c */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->cols[mid] <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static dmx_status dside_prepare(dside *s)
{
    dmx_status st = DMX_SUCCESS;
    if (s->n > 1)
        qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_drect);
    s->by_end = dmxi_malloc(s->n, sizeof *s->by_end);
    s->cols = dmxi_malloc(s->n, sizeof *s->cols);
    DMXI_CHECK(s->by_end && s->cols, DMX_ERR_ALLOC, "out of memory for %lld rectangles",
               (long long)s->n);
    for (int64_t i = 0; i < s->n; i++) {
        s->by_end[i] = (keyidx){s->v[i].r1, i};
        s->cols[i] = s->v[i].c0;
    }
    if (s->n > 1) {
        qsort(s->by_end, (size_t)s->n, sizeof *s->by_end, cmp_keyidx);
        qsort(s->cols, (size_t)s->n, sizeof *s->cols, cmp_i64);
    }
    s->ncols = 0;
    for (int64_t i = 0; i < s->n; i++)
        if (s->ncols == 0 || s->cols[s->ncols - 1] != s->cols[i])
            s->cols[s->ncols++] = s->cols[i];
    for (int64_t i = 0; i < s->n; i++)
        s->v[i].slot = dside_floor(s, s->v[i].c0);
    s->active = dmxi_malloc(s->ncols, sizeof *s->active);
    DMXI_CHECK(s->active, DMX_ERR_ALLOC, "out of memory for %lld columns", (long long)s->ncols);
    DMXI_TRY(bittree_init(&s->tree, s->ncols));
cleanup:
    return st;
}

/* Everything one directory rank needs while matching. */
typedef struct matcher {
    const dmx_plan *p;
    const dmxi_xform *x;
    const dmx_transform *tr;
    dside side[2];
    outbox *ob;
} matcher;

/* Report rectangle (r0, c0, rows, cols) of A's coordinates, as seen by side `side`, in that
 * layout's own coordinates (B's for op T/C are transposed). */
static void own_coords(const matcher *mt, int side, int64_t *r, int64_t *c)
{
    if (side == SIDE_B)
        dmxi_opb_coords(mt->tr->op, *r, *c, r, c);
}

/* Rank of layout `side` whose plan rank is r (for messages: the inverse of amap/bmap). */
static int layout_rank(const matcher *mt, int side, int r)
{
    const int *map = side == SIDE_A ? mt->x->amap : mt->x->bmap;
    for (int q = 0; map && q < mt->p->size; q++)
        if (map[q] == r)
            return q;
    return r;
}

static dmx_status overlap_error(const matcher *mt, int side, const drect *a, const drect *b)
{
    int64_t r = a->r0 > b->r0 ? a->r0 : b->r0, c = a->c0 > b->c0 ? a->c0 : b->c0;
    own_coords(mt, side, &r, &c);
    return dmxi_error(DMX_ERR_LAYOUT, __FILE__, __LINE__,
                      "transform layouts: blocks of %s on its ranks %d and %d overlap at element "
                      "(%lld,%lld)",
                      side == SIDE_A ? "the target A" : "the source B",
                      layout_rank(mt, side, a->owner), layout_rank(mt, side, b->owner),
                      (long long)r, (long long)c);
}

/* Retire the rectangles of s that end at or above row y. */
static void dside_retire(dside *s, int64_t y)
{
    for (; s->ie < s->n && s->by_end[s->ie].key <= y; s->ie++) {
        int64_t id = s->by_end[s->ie].idx;
        int64_t slot = s->v[id].slot;
        if (id < s->next && s->active[slot] == id)
            bittree_set(&s->tree, slot, 0);
    }
}

/* One intersection of an A rectangle and an op(B) rectangle: notify the owners. */
static dmx_status emit(matcher *mt, const drect *a, const drect *b)
{
    dmx_status st = DMX_SUCCESS;
    int64_t r0 = a->r0 > b->r0 ? a->r0 : b->r0, r1 = a->r1 < b->r1 ? a->r1 : b->r1;
    int64_t c0 = a->c0 > b->c0 ? a->c0 : b->c0, c1 = a->c1 < b->c1 ? a->c1 : b->c1;
    if (r0 >= r1 || c0 >= c1 || !dmxi_trapezoid_meets(mt->tr, r0, c0, r1 - r0, c1 - c0))
        goto cleanup;
    if (a->owner == b->owner) {
        dir_note n = {NOTE_LOCAL, r0, c0, r1 - r0, c1 - c0, a->owner, a->k, b->k};
        DMXI_TRY(dmxi_dir_outbox_add(mt->ob, a->owner, &n));
    } else {
        dir_note n = {NOTE_RECV, r0, c0, r1 - r0, c1 - c0, b->owner, a->k, -1};
        DMXI_TRY(dmxi_dir_outbox_add(mt->ob, a->owner, &n));
        dir_note s = {NOTE_SEND, r0, c0, r1 - r0, c1 - c0, a->owner, -1, b->k};
        DMXI_TRY(dmxi_dir_outbox_add(mt->ob, b->owner, &s));
    }
cleanup:
    return st;
}

/* Start rectangle s->v[id] of side `self`: check it against the active rectangles of its own
 * layout, activate it, and pair it with every active rectangle of the other layout it meets. */
static dmx_status start_rect(matcher *mt, int self, int64_t id)
{
    dmx_status st = DMX_SUCCESS;
    dside *s = &mt->side[self], *o = &mt->side[1 - self];
    const drect *x = &s->v[id];
    /* Active rectangles of one layout are disjoint, so only the neighbours can overlap x. */
    int64_t q = bittree_prev(&s->tree, x->slot);
    if (q >= 0 && s->v[s->active[q]].c1 > x->c0)
        DMXI_TRY(overlap_error(mt, self, &s->v[s->active[q]], x));
    q = bittree_next(&s->tree, x->slot + 1);
    if (q >= 0 && s->v[s->active[q]].c0 < x->c1)
        DMXI_TRY(overlap_error(mt, self, &s->v[s->active[q]], x));
    s->active[x->slot] = id;
    bittree_set(&s->tree, x->slot, 1);
    /* The other layout's active rectangles meeting [c0, c1): the one holding c0, then on. */
    int64_t f = dside_floor(o, x->c0);
    q = bittree_prev(&o->tree, f);
    if (q < 0 || o->v[o->active[q]].c1 <= x->c0)
        q = bittree_next(&o->tree, f + 1);
    for (; q >= 0 && o->v[o->active[q]].c0 < x->c1; q = bittree_next(&o->tree, q + 1)) {
        const drect *y = &o->v[o->active[q]];
        DMXI_TRY(self == SIDE_A ? emit(mt, x, y) : emit(mt, y, x));
    }
cleanup:
    return st;
}

/* Sweep the region from top to bottom. A rectangle is paired with the other side's when the
 * later of the two starts (A's of one row start before B's, so ties are paired once). */
static dmx_status sweep(matcher *mt)
{
    dmx_status st = DMX_SUCCESS;
    dside *a = &mt->side[SIDE_A], *b = &mt->side[SIDE_B];
    while (a->next < a->n || b->next < b->n) {
        int64_t y = INT64_MAX;
        if (a->next < a->n)
            y = a->v[a->next].r0;
        if (b->next < b->n && b->v[b->next].r0 < y)
            y = b->v[b->next].r0;
        dside_retire(a, y);
        dside_retire(b, y);
        for (; a->next < a->n && a->v[a->next].r0 == y; a->next++)
            DMXI_TRY(start_rect(mt, SIDE_A, a->next));
        for (; b->next < b->n && b->v[b->next].r0 == y; b->next++)
            DMXI_TRY(start_rect(mt, SIDE_B, b->next));
    }
cleanup:
    return st;
}

/* Directory rank: read the registrations, validate and intersect them, fill ob with the
 * notifications (packed). */
dmx_status dmxi_dir_match_region(const dir_geom *g, const dmx_plan *p, const dmxi_xform *x,
                                 const dmx_exchange_result *res, outbox *ob)
{
    dmx_status st = DMX_SUCCESS;
    matcher mt = {p, x, &x->t, {{0}, {0}}, ob};
    int64_t nent = 0, reg = dmxi_dir_region_of(g, p->rank);
    int64_t gr0 = 0, gc0 = 0, gr1 = 0, gc1 = 0;
    if (reg >= 0)
        dmxi_dir_region(g, reg, &gr0, &gc0, &gr1, &gc1);
    DMXI_TRY(dmx_exchange_result_get_count(res, &nent));
    for (int64_t e = 0; e < nent; e++) {
        int src = -1;
        const unsigned char *d = NULL;
        int64_t cnt = 0;
        DMXI_TRY(dmxi_dir_records(res, e, sizeof(dir_reg), &src, &d, &cnt));
        DMXI_CHECK(reg >= 0 || cnt == 0, DMX_ERR_INTERNAL,
                   "rank %d registered with rank %d, which keeps no directory region", src,
                   p->rank);
        for (int64_t i = 0; i < cnt; i++) {
            dir_reg r;
            memcpy(&r, d + (size_t)i * sizeof r, sizeof r);
            DMXI_CHECK((r.side == SIDE_A || r.side == SIDE_B) && r.rows >= 1 && r.cols >= 1 &&
                           r.r0 >= gr0 && r.c0 >= gc0 && r.r0 <= gr1 - r.rows &&
                           r.c0 <= gc1 - r.cols,
                       DMX_ERR_INTERNAL, "rank %d registered a rectangle outside region %lld", src,
                       (long long)reg);
            dside *s = &mt.side[r.side];
            DMXI_TRY(dmxi_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v));
            s->v[s->n++] = (drect){r.r0, r.c0, r.r0 + r.rows, r.c0 + r.cols, r.k, 0, src};
        }
    }
    if (reg >= 0) {
        DMXI_TRY(dside_prepare(&mt.side[SIDE_A]));
        DMXI_TRY(dside_prepare(&mt.side[SIDE_B]));
        DMXI_TRY(sweep(&mt));
        /* No overlaps: the rectangles cover the region iff their areas add up to it. */
        for (int side = SIDE_A; side <= SIDE_B; side++) {
            const dside *s = &mt.side[side];
            int64_t area = 0;
            for (int64_t i = 0; i < s->n; i++)
                area += (s->v[i].r1 - s->v[i].r0) * (s->v[i].c1 - s->v[i].c0);
            if (area != (gr1 - gr0) * (gc1 - gc0)) {
                int64_t r = gr0, c = gc0;
                own_coords(&mt, side, &r, &c);
                DMXI_FAIL(DMX_ERR_LAYOUT,
                          "transform layouts: the blocks of %s leave %lld elements uncovered in "
                          "the part of the matrix starting at (%lld,%lld)",
                          side == SIDE_A ? "the target A" : "the source B",
                          (long long)((gr1 - gr0) * (gc1 - gc0) - area), (long long)r,
                          (long long)c);
            }
        }
    }
    DMXI_TRY(dmxi_dir_outbox_pack(ob));
cleanup:
    dside_free(&mt.side[SIDE_A]);
    dside_free(&mt.side[SIDE_B]);
    return st;
}
