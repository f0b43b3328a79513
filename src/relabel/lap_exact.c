/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact sparse linear assignment for process relabeling, and the helpers the solvers share.
 *
 * Algorithm: maximum-weight bipartite matching by shortest augmenting paths with potentials
 * (the augmentation phase of Jonker-Volgenant / the Hungarian method, Dijkstra on reduced
 * costs), written for the sparse, nonnegative gains of relabeling.
 *
 * Why a non-perfect matching suffices: gains are >= 0 and missing pairs gain 0, so the best
 * perfect assignment gains exactly as much as the best (not necessarily perfect) matching M of
 * the sparse graph: any perfect assignment restricted to its sparse edges is a matching, and M
 * completed with arbitrary pairs of free roles and processes loses nothing (a free pair with
 * positive gain would extend M, contradicting maximality; so completion pairs gain 0).
 *
 * Formulation: minimize cost c(x, y) = -g(x, y) over assignments of every row (role) x to
 * either a column y (process, sparse edge) or its own private dummy column (cost 0,
 * "unassigned"). This is a linear program with duals u(x) and v(y) <= 0 (dummies fixed at 0):
 * an assignment of all rows is optimal if every reduced cost c(x, y) - u(x) - v(y) is >= 0, the
 * assigned edges have reduced cost 0, and v(y) = 0 on every unused column. The solver keeps
 * exactly these invariants for the rows placed so far (free rows are unconstrained), so the
 * final assignment is optimal by LP duality, whatever order the rows were placed in.
 *
 * Placing rows: Dijkstra over reduced costs from the free row(s) finds the cheapest
 * alternating path to a free column: a free process, or the dummy of any row on the path (that
 * row gives up its process and becomes unassigned). Because every free column has v = 0,
 * reduced lengths to all endpoints are comparable. Afterwards the finalized columns get
 * v(y) += d(y) - mu (mu = path length), which keeps reduced costs >= 0 and makes the path tight,
 * and the path is flipped.
 *  Phase 1: rows one at a time (the start row's columns get labels c - v, its dummy label 0).
 *           A search that would scan more than DMXI_LAP_SCAN_LIMIT rows is abandoned (nothing
 *           has changed yet) and its row deferred. On relabeling instances almost every search
 *           ends after a scan or two.
 *  Phase 2: the deferred rows together, in rounds: one multi-source Dijkstra from all of them
 *           (the same labels c - v; after it every free row's potential is mu), the potential
 *           update, then a depth-first search from each free row in the admissible graph
 *           (reduced cost 0) for vertex-disjoint augmenting paths, all of cost mu. Long searches
 *           typically come from plateaus of equal gains near the end, where many rows compete
 *           for few free processes: one round places many of them at once. A round always
 *           places at least one row (the Dijkstra path is admissible). If mu = 0 nothing can
 *           gain any more and the rows stay unassigned.
 *  Phase 3: when a round places less than a quarter of its rows, the rest are added one at a
 *           time as in phase 1, without a limit.
 *
 * Pruning: the start row's own dummy is an endpoint at label 0, so no label >= the best
 * endpoint so far is ever stored; a row whose best gain goes to a free process ends its search
 * at once. Rows on their dummy are never reached again (their dummy is adjacent only to them),
 * so an augmentation that no longer gains stops immediately.
 *
 * Determinism: integer arithmetic only; heap ties broken by column index; endpoints replaced
 * only by strictly shorter ones (the start row's dummy is found first, so equal-gain moves are
 * never made in phase 1); fixed row and edge orders everywhere.
 */
#include "lap.h"

#include <string.h>

dmx_status dmxi_lap_sparse_check(const dmxi_lap_sparse *g)
{
    dmx_status st = DMX_SUCCESS;
    int *mark = NULL;
    DMXI_CHECK(g != NULL, DMX_ERR_NULL, "gain matrix is NULL");
    DMXI_CHECK(g->n >= 0, DMX_ERR_ARG, "n = %d is negative", g->n);
    if (g->n == 0)
        goto cleanup;
    DMXI_CHECK(g->rowptr != NULL, DMX_ERR_NULL, "rowptr is NULL");
    DMXI_CHECK(g->rowptr[0] == 0, DMX_ERR_ARG, "rowptr[0] = %lld, not 0", (long long)g->rowptr[0]);
    for (int x = 0; x < g->n; x++)
        DMXI_CHECK(g->rowptr[x + 1] >= g->rowptr[x], DMX_ERR_ARG, "rowptr decreases at row %d", x);
    int64_t nnz = g->rowptr[g->n];
    DMXI_CHECK(nnz == 0 || (g->col != NULL && g->gain != NULL), DMX_ERR_NULL,
               "col or gain is NULL");
    mark = dmxi_malloc(g->n, sizeof *mark);
    DMXI_CHECK(mark != NULL, DMX_ERR_ALLOC, "out of memory (%d marks)", g->n);
    for (int y = 0; y < g->n; y++)
        mark[y] = -1;
    for (int x = 0; x < g->n; x++) {
        for (int64_t k = g->rowptr[x]; k < g->rowptr[x + 1]; k++) {
            int y = g->col[k];
            DMXI_CHECK(y >= 0 && y < g->n, DMX_ERR_ARG, "row %d: column %d out of [0, %d)", x, y,
                       g->n);
            DMXI_CHECK(g->gain[k] >= 0 && g->gain[k] <= DMXI_LAP_GAIN_MAX, DMX_ERR_ARG,
                       "row %d: gain %lld out of [0, 2^60]", x, (long long)g->gain[k]);
            DMXI_CHECK(mark[y] != x, DMX_ERR_ARG, "row %d: column %d appears twice", x, y);
            mark[y] = x;
        }
    }
cleanup:
    free(mark);
    return st;
}

dmx_status dmxi_lap_sparse_gain(const dmxi_lap_sparse *g, const int *sigma, int64_t *total)
{
    dmx_status st = DMX_SUCCESS;
    char *used = NULL;
    int64_t sum = 0;
    DMXI_CHECK(g != NULL && total != NULL && (sigma != NULL || g->n == 0), DMX_ERR_NULL,
               "NULL argument");
    used = dmxi_calloc(g->n, 1);
    DMXI_CHECK(used != NULL, DMX_ERR_ALLOC, "out of memory");
    for (int x = 0; x < g->n; x++) {
        int y = sigma[x];
        DMXI_CHECK(y >= 0 && y < g->n && !used[y], DMX_ERR_ARG,
                   "sigma is not a permutation (sigma[%d] = %d)", x, y);
        used[y] = 1;
        for (int64_t k = g->rowptr[x]; k < g->rowptr[x + 1]; k++) {
            if (g->col[k] == y) {
                DMXI_TRY(dmxi_add64(sum, g->gain[k], &sum));
                break;
            }
        }
    }
    *total = sum;
cleanup:
    free(used);
    return st;
}

dmx_status dmxi_lap_complete(int n, int *sigma)
{
    dmx_status st = DMX_SUCCESS;
    char *used = NULL;
    DMXI_CHECK(n >= 0 && (sigma != NULL || n == 0), DMX_ERR_ARG, "bad arguments");
    used = dmxi_calloc(n, 1);
    DMXI_CHECK(used != NULL, DMX_ERR_ALLOC, "out of memory");
    for (int x = 0; x < n; x++) {
        if (sigma[x] < 0)
            continue;
        DMXI_CHECK(sigma[x] < n && !used[sigma[x]], DMX_ERR_INTERNAL,
                   "partial assignment uses process %d twice or out of range", sigma[x]);
        used[sigma[x]] = 1;
    }
    /* Unaffected ranks keep their role. */
    for (int x = 0; x < n; x++) {
        if (sigma[x] < 0 && !used[x]) {
            sigma[x] = x;
            used[x] = 1;
        }
    }
    int y = 0;
    for (int x = 0; x < n; x++) {
        if (sigma[x] >= 0)
            continue;
        while (used[y])
            y++; /* stays < n: as many unused processes as unassigned roles */
        sigma[x] = y;
        used[y] = 1;
    }
cleanup:
    free(used);
    return st;
}

/* ---- the exact solver ------------------------------------------------------------------- */

typedef struct heap_item {
    int64_t d;
    int y;
} heap_item;

typedef struct lap_state {
    const dmxi_lap_sparse *g;
    int *row_col;    /* role -> matched process, -1 = free or unassigned (dummy) */
    int64_t *row_w;  /* gain of the matched edge */
    int *col_row;    /* process -> matched role, -1 = free */
    int64_t *v;      /* column potentials (<= 0; 0 on free columns) */
    int64_t *d;      /* tentative / final distances of columns touched in this search */
    int64_t *pred_w; /* gain of the edge pred[y] -> y */
    int *pred;       /* row that labeled column y */
    int *stamp;      /* search that touched y */
    char *final;     /* y finalized in the search stamp[y] */
    int *done;       /* finalized columns of this search */
    int ndone;
    int search; /* current search id (> 0) */
    heap_item *heap;
    int64_t heap_n, heap_cap;
    /* best endpoint of this search: a free process (best_col) or the dummy of best_row */
    int64_t best_d;
    int best_col, best_row;
    /* phase 2: depth-first search for augmenting paths in the admissible graph */
    int *mark;       /* column visited in phase mark[y] */
    int64_t *cursor; /* next edge to try of a row on the stack */
    int *stack_row;  /* rows of the current path */
    int *stack_col;  /* column through which stack_row[k] was entered (-1 for the source) */
} lap_state;

static int item_less(heap_item a, heap_item b)
{
    return a.d < b.d || (a.d == b.d && a.y < b.y);
}

static dmx_status heap_push(lap_state *s, int64_t d, int y)
{
    if (s->heap_n == s->heap_cap) {
        dmx_status st =
            dmxi_reserve((void **)&s->heap, &s->heap_cap, s->heap_n + 1, sizeof *s->heap);
        if (st != DMX_SUCCESS)
            return st;
    }
    heap_item it = {d, y};
    int64_t i = s->heap_n++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!item_less(it, s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = it;
    return DMX_SUCCESS;
}

static heap_item heap_pop(lap_state *s)
{
    heap_item top = s->heap[0];
    heap_item last = s->heap[--s->heap_n];
    int64_t i = 0, n = s->heap_n;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && item_less(s->heap[c + 1], s->heap[c]))
            c++;
        if (!item_less(s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n > 0)
        s->heap[i] = last;
    return top;
}

/* u(i) of a matched row: its matched edge is tight, c(i, x_i) - v(x_i) with c = -gain. */
static int64_t row_u(const lap_state *s, int i)
{
    return -s->row_w[i] - s->v[s->row_col[i]];
}

/* Relax the edges of row i, reached at distance di with potential ui (a free source row has
 * di = ui = 0, so its columns get labels c - v). Columns labeled at or beyond the best endpoint
 * are never stored: they could not be finalized before the search stops. */
static dmx_status scan_row(lap_state *s, int i, int64_t di, int64_t ui)
{
    const dmxi_lap_sparse *g = s->g;
    int search = s->search;
    int64_t base = di - ui;
    /* A matched row's own dummy is a free endpoint at reduced cost 0 - ui - 0. (A free source
     * row's dummy has label 0, the initial endpoint.) */
    if (s->row_col[i] >= 0 && base < s->best_d) {
        s->best_d = base;
        s->best_row = i;
        s->best_col = -1;
    }
    for (int64_t k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
        int y = g->col[k];
        int64_t nd = base - g->gain[k] - s->v[y];
        if (nd >= s->best_d)
            continue;
        if (s->stamp[y] != search) {
            s->stamp[y] = search;
            s->final[y] = 0;
        } else if (s->final[y] || nd >= s->d[y]) {
            continue;
        }
        s->d[y] = nd;
        s->pred[y] = i;
        s->pred_w[y] = g->gain[k];
        if (s->col_row[y] < 0) {
            s->best_d = nd;
            s->best_col = y;
            s->best_row = -1;
        } else {
            dmx_status st = heap_push(s, nd, y);
            if (st != DMX_SUCCESS)
                return st;
        }
    }
    return DMX_SUCCESS;
}

/* Start a search: no endpoint yet but the sources' own dummies at label 0. */
static void search_begin(lap_state *s, int first_source)
{
    s->search++;
    s->heap_n = 0;
    s->ndone = 0;
    s->best_d = 0;
    s->best_row = first_source;
    s->best_col = -1;
}

/* Dijkstra from the labeled sources until no label below the best endpoint is left. With
 * limit >= 0, gives up (*aborted = 1) after finalizing that many columns. */
static dmx_status search_run(lap_state *s, int limit, int *aborted)
{
    dmx_status st = DMX_SUCCESS;
    *aborted = 0;
    while (s->heap_n > 0) {
        heap_item it = heap_pop(s);
        if (it.d >= s->best_d)
            break;
        int y = it.y;
        if (s->final[y] || it.d != s->d[y])
            continue; /* stale entry */
        if (limit >= 0 && s->ndone >= limit) {
            *aborted = 1;
            break;
        }
        s->final[y] = 1;
        s->done[s->ndone++] = y;
        int i = s->col_row[y];
        DMXI_TRY(scan_row(s, i, it.d, row_u(s, i)));
    }
cleanup:
    return st;
}

/* Finalized columns: v(y) += d(y) - mu. Keeps every reduced cost >= 0 and makes every shortest
 * augmenting path tight. */
static void search_update(lap_state *s)
{
    int64_t mu = s->best_d;
    for (int t = 0; t < s->ndone; t++) {
        int y = s->done[t];
        s->v[y] += s->d[y] - mu;
    }
}

/* Phase 1: add row f by one shortest augmenting path. If the search is too long, nothing
 * changes and *deferred is set. */
static dmx_status add_row(lap_state *s, int f, int limit, int *deferred)
{
    dmx_status st = DMX_SUCCESS;
    int aborted = 0;
    search_begin(s, f);
    DMXI_TRY(scan_row(s, f, 0, 0));
    DMXI_TRY(search_run(s, limit, &aborted));
    *deferred = aborted;
    if (aborted)
        goto cleanup;
    search_update(s);
    /* Flip the path backwards from the endpoint. */
    int y;
    if (s->best_col >= 0) {
        y = s->best_col;
    } else {
        int r = s->best_row;
        if (r == f)
            goto cleanup;  /* f's own dummy: f stays unassigned */
        y = s->row_col[r]; /* r gives up this process and becomes unassigned */
        s->row_col[r] = -1;
        s->row_w[r] = 0;
    }
    for (;;) {
        int i = s->pred[y];
        int next = s->row_col[i];
        s->col_row[y] = i;
        s->row_col[i] = y;
        s->row_w[i] = s->pred_w[y];
        if (i == f)
            break;
        y = next;
    }
cleanup:
    return st;
}

/* Phase 2, depth-first search in the admissible graph (reduced cost 0 after search_update)
 * from free row f, whose potential is mu. On success flips the path and returns 1. Columns are
 * marked once per phase, so the paths of one phase are vertex-disjoint and the phase costs
 * O(nnz). */
static int augment_dfs(lap_state *s, int f, int64_t mu, int phase)
{
    const dmxi_lap_sparse *g = s->g;
    int top = 0;
    s->stack_row[0] = f;
    s->stack_col[0] = -1;
    s->cursor[f] = g->rowptr[f];
    while (top >= 0) {
        int r = s->stack_row[top];
        int64_t ur = r == f ? mu : row_u(s, r);
        /* a matched row whose gain is no better than nothing may give its process away */
        if (r != f && s->cursor[r] == g->rowptr[r] && ur == 0) {
            s->row_col[r] = -1;
            s->row_w[r] = 0;
            for (int k = top; k > 0; k--) {
                int y = s->stack_col[k], i = s->stack_row[k - 1];
                s->col_row[y] = i;
                s->row_col[i] = y;
            }
            goto flipped;
        }
        int found = -1;
        while (s->cursor[r] < g->rowptr[r + 1]) {
            int64_t k = s->cursor[r]++;
            int y = g->col[k];
            if (s->mark[y] == phase || -g->gain[k] - ur - s->v[y] != 0)
                continue;
            s->mark[y] = phase;
            found = y;
            break;
        }
        if (found < 0) {
            top--; /* dead end for this phase */
            continue;
        }
        int owner = s->col_row[found];
        if (owner < 0) {
            /* free process: r takes it, every row below takes the column above it */
            s->col_row[found] = r;
            s->row_col[r] = found;
            for (int k = top; k > 0; k--) {
                int y = s->stack_col[k], i = s->stack_row[k - 1];
                s->col_row[y] = i;
                s->row_col[i] = y;
            }
            goto flipped;
        }
        top++;
        s->stack_row[top] = owner;
        s->stack_col[top] = found;
        s->cursor[owner] = g->rowptr[owner];
    }
    return 0;
flipped:
    /* matched gains of the rows that moved: look the new edge up in their row */
    for (int k = 0; k <= top; k++) {
        int i = s->stack_row[k], y = s->row_col[i];
        if (y < 0)
            continue;
        for (int64_t e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            if (g->col[e] == y) {
                s->row_w[i] = g->gain[e];
                break;
            }
        }
    }
    return 1;
}

/* Phase 2: the rows in list[0..*count) are free. Multi-source shortest paths from all of them
 * (labels c - v, the same as one super-source), potential update, then as many disjoint
 * shortest augmenting paths as a depth-first search finds. Removes the rows that got a place
 * (or, when no free row can gain any more, assigns them all to their dummies). Every phase
 * assigns at least one row: the shortest path found by Dijkstra is admissible. */
static dmx_status add_rows_phase(lap_state *s, int *list, int *count)
{
    dmx_status st = DMX_SUCCESS;
    int aborted = 0;
    search_begin(s, list[0]);
    for (int t = 0; t < *count; t++)
        DMXI_TRY(scan_row(s, list[t], 0, 0));
    DMXI_TRY(search_run(s, -1, &aborted));
    search_update(s);
    int64_t mu = s->best_d;
    if (mu == 0) {
        *count = 0; /* nothing left to gain: all stay unassigned */
        goto cleanup;
    }
    int kept = 0;
    for (int t = 0; t < *count; t++)
        if (!augment_dfs(s, list[t], mu, s->search))
            list[kept++] = list[t];
    DMXI_CHECK(kept < *count, DMX_ERR_INTERNAL, "assignment phase made no progress");
    *count = kept;
cleanup:
    return st;
}

dmx_status dmxi_lap_exact(const dmxi_lap_sparse *g, int *sigma, int64_t *total_gain)
{
    return dmxi_lap_exact_tuned(g, DMXI_LAP_SCAN_LIMIT, sigma, total_gain);
}

dmx_status dmxi_lap_exact_tuned(const dmxi_lap_sparse *g, int scan_limit, int *sigma,
                                int64_t *total_gain)
{
    dmx_status st = DMX_SUCCESS;
    lap_state s;
    int *deferred = NULL;
    memset(&s, 0, sizeof s);
    DMXI_TRY(dmxi_lap_sparse_check(g));
    DMXI_CHECK(sigma != NULL || g->n == 0, DMX_ERR_NULL, "sigma is NULL");
    DMXI_CHECK(g->n <= INT_MAX / 4, DMX_ERR_UNSUPPORTED, "assignment of size %d is too large",
               g->n); /* keeps the search counter (at most 3n + 1) in an int */
    int n = g->n;
    s.g = g;
    s.row_col = dmxi_malloc(n, sizeof *s.row_col);
    s.row_w = dmxi_calloc(n, sizeof *s.row_w);
    s.col_row = dmxi_malloc(n, sizeof *s.col_row);
    s.v = dmxi_calloc(n, sizeof *s.v);
    s.d = dmxi_calloc(n, sizeof *s.d);
    s.pred_w = dmxi_calloc(n, sizeof *s.pred_w);
    s.pred = dmxi_calloc(n, sizeof *s.pred);
    s.stamp = dmxi_calloc(n, sizeof *s.stamp);
    s.final = dmxi_calloc(n, sizeof *s.final);
    s.done = dmxi_malloc(n, sizeof *s.done);
    s.mark = dmxi_calloc(n, sizeof *s.mark);
    s.cursor = dmxi_calloc(n, sizeof *s.cursor);
    s.stack_row = dmxi_malloc(n + 1, sizeof *s.stack_row);
    s.stack_col = dmxi_malloc(n + 1, sizeof *s.stack_col);
    deferred = dmxi_malloc(n, sizeof *deferred);
    DMXI_CHECK(s.row_col && s.row_w && s.col_row && s.v && s.d && s.pred_w && s.pred && s.stamp &&
                   s.final && s.done && s.mark && s.cursor && s.stack_row && s.stack_col &&
                   deferred,
               DMX_ERR_ALLOC, "out of memory (assignment of size %d)", n);
    for (int x = 0; x < n; x++) {
        s.row_col[x] = -1;
        s.col_row[x] = -1;
    }
    /* Phase 1: rows one at a time; long searches are deferred. */
    int ndeferred = 0;
    for (int f = 0; f < n; f++) {
        int later = 0;
        DMXI_TRY(add_row(&s, f, scan_limit, &later));
        if (later)
            deferred[ndeferred++] = f;
    }
    /* Phase 2: the deferred rows together, while a round places at least a quarter of them;
     * phase 3: the rest one at a time without a limit. */
    while (ndeferred > 0) {
        int before = ndeferred;
        DMXI_TRY(add_rows_phase(&s, deferred, &ndeferred));
        if (ndeferred > 0 && 4 * (int64_t)(before - ndeferred) < before) {
            for (int t = 0; t < ndeferred; t++) {
                int later = 0;
                DMXI_TRY(add_row(&s, deferred[t], -1, &later));
            }
            ndeferred = 0;
        }
    }
    for (int x = 0; x < n; x++)
        sigma[x] = s.row_col[x];
    DMXI_TRY(dmxi_lap_complete(n, sigma));
    if (total_gain)
        DMXI_TRY(dmxi_lap_sparse_gain(g, sigma, total_gain));
cleanup:
    free(s.row_col);
    free(s.row_w);
    free(s.col_row);
    free(s.v);
    free(s.d);
    free(s.pred_w);
    free(s.pred);
    free(s.stamp);
    free(s.final);
    free(s.done);
    free(s.mark);
    free(s.cursor);
    free(s.stack_row);
    free(s.stack_col);
    free(s.heap);
    free(deferred);
    return st;
}
