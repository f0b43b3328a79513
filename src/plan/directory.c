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
 *  2. Matching (local to each directory rank): a sweep over the region's rows with, per side, an
 *     ordered set of the active column intervals (a bit tree over the distinct column starts).
 *     Inserting a rectangle checks it against its neighbours on its own side (two rectangles of
 *     one layout overlapping: DMX_ERR_LAYOUT) and reports every active rectangle of the other
 *     side that it meets; the sum of areas per side must then equal the region's area (else a
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
#include "plan/plan.h"

#include "exchange/exchange.h"

#include <math.h>
#include <string.h>

/* ---- the directory's partition of A's index space ------------------------------------------ */

typedef struct dir_geom {
    int64_t m, n;
    int64_t pr, pc, nreg; /* region grid and number of regions (0 for an empty matrix) */
    int64_t rbase, rrem;  /* the first rrem region rows have rbase + 1 rows, the others rbase */
    int64_t cbase, crem;
    int64_t size; /* ranks in the plan */
} dir_geom;

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
static int64_t geom_region_of(const dir_geom *g, int rank)
{
    if (g->nreg == 0)
        return -1;
    int64_t k = ((int64_t)rank * g->nreg + g->size - 1) / g->size;
    return k < g->nreg && geom_owner(g, k) == rank ? k : -1;
}

static void geom_region(const dir_geom *g, int64_t k, int64_t *r0, int64_t *c0, int64_t *r1,
                        int64_t *c1)
{
    int64_t i = k / g->pc, j = k % g->pc;
    *r0 = part_start(g->rbase, g->rrem, i);
    *r1 = part_start(g->rbase, g->rrem, i + 1);
    *c0 = part_start(g->cbase, g->crem, j);
    *c1 = part_start(g->cbase, g->crem, j + 1);
}

/* ---- records on the wire (int64_t fields only: no padding) --------------------------------- */

enum { SIDE_A = 0, SIDE_B = 1 };

/* A rectangle of A (side 0) or op(B) (side 1) in A's coordinates, clipped to a region. */
typedef struct dir_reg {
    int64_t r0, c0, rows, cols, k, side;
} dir_reg;

enum { NOTE_RECV = 0, NOTE_SEND = 1, NOTE_LOCAL = 2 };

/* A piece for its recipient: kind, rectangle (A's coordinates), the peer (plan rank), the A
 * block (RECV, LOCAL) and the B block (SEND, LOCAL) it lies in on the recipient. */
typedef struct dir_note {
    int64_t kind, r0, c0, rows, cols, peer, ka, kb;
} dir_note;

/* Outgoing records with their destinations: item i is v[i*(words+1)] (the destination)
 * followed by `words` int64_t of record. */
typedef struct outbox {
    int64_t *v;
    int64_t n, cap; /* items; cap counts int64_t */
    int64_t words;
    dmx_exchange_send *sends;
    int64_t nsend;
} outbox;

static dmx_status outbox_add(outbox *ob, int64_t dest, const void *rec)
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
static dmx_status outbox_pack(outbox *ob)
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
static dmx_status result_records(const dmx_exchange_result *res, int64_t i, size_t rsize,
                                 int *source, const unsigned char **data, int64_t *count)
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
            geom_region(g, k2, &gr0, &gc0, &gr1, &gc1);
            int64_t a0 = r0 > gr0 ? r0 : gr0, a1 = r0 + rows < gr1 ? r0 + rows : gr1;
            int64_t b0 = c0 > gc0 ? c0 : gc0, b1 = c0 + cols < gc1 ? c0 + cols : gc1;
            dir_reg rec = {a0, b0, a1 - a0, b1 - b0, k, side};
            DMXI_TRY(outbox_add(ob, geom_owner(g, k2), &rec));
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
    DMXI_TRY(outbox_pack(ob));
cleanup:
    return st;
}

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
        DMXI_TRY(outbox_add(mt->ob, a->owner, &n));
    } else {
        dir_note n = {NOTE_RECV, r0, c0, r1 - r0, c1 - c0, b->owner, a->k, -1};
        DMXI_TRY(outbox_add(mt->ob, a->owner, &n));
        dir_note s = {NOTE_SEND, r0, c0, r1 - r0, c1 - c0, a->owner, -1, b->k};
        DMXI_TRY(outbox_add(mt->ob, b->owner, &s));
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
static dmx_status match_region(const dir_geom *g, const dmx_plan *p, const dmxi_xform *x,
                               const dmx_exchange_result *res, outbox *ob)
{
    dmx_status st = DMX_SUCCESS;
    matcher mt = {p, x, &x->t, {{0}, {0}}, ob};
    int64_t nent = 0, reg = geom_region_of(g, p->rank);
    int64_t gr0 = 0, gc0 = 0, gr1 = 0, gc1 = 0;
    if (reg >= 0)
        geom_region(g, reg, &gr0, &gc0, &gr1, &gc1);
    DMXI_TRY(dmx_exchange_result_get_count(res, &nent));
    for (int64_t e = 0; e < nent; e++) {
        int src = -1;
        const unsigned char *d = NULL;
        int64_t cnt = 0;
        DMXI_TRY(result_records(res, e, sizeof(dir_reg), &src, &d, &cnt));
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
    DMXI_TRY(outbox_pack(ob));
cleanup:
    dside_free(&mt.side[SIDE_A]);
    dside_free(&mt.side[SIDE_B]);
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
        DMXI_TRY(result_records(res, e, sizeof(dir_note), &src, &d, &cnt));
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
        local = match_region(&g, p, x, res, &notes);
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
