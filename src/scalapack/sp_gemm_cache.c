/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop-in's p?gemm_ plans, kept for the calls that follow in dmx's plan cache of the grid
 * (dmx/expert.h's dmx_cache_* calls; src/plan/plan_cache.c), under its one budget
 * (DMX_CACHE_BYTES per communicator and process) with the drop-in's other calls.
 *
 * Where: the cache of dmx's inner duplicate of the BLACS grid's communicator (dmx_comm_inner),
 * which dmx frees with that communicator (BLACS_GRIDEXIT) or at MPI_Finalize, entries oldest
 * first. Every entry here is agreed: every process of the grid makes, finds, lets go and frees
 * the same entries at the same calls (ScaLAPACK has all of the grid call p?gemm_, and the keys
 * below hold only what is equal on every process), so the collective frees match.
 *
 * Two kinds of entries:
 *   - the grid (DMX_CACHE_GEMM_GRID, keyed by NPROW, NPCOL and the rank of every grid process):
 *     the row and column communicators SUMMA broadcasts on (split from the inner duplicate) and
 *     SUMMA's panel buffers, shared by the grid's plans. It is pinned during each call, so a plan
 *     kept at the end of the call cannot push it out;
 *   - a plan (DMX_CACHE_GEMM, at most DMX_SCALAPACK_GEMM_CACHE of them per grid communicator, a
 *     test override; 0 keeps none), keyed by the call's global arguments: type, TRANSA, TRANSB, M,
 *     N, K, IA, JA, IB, JB, IC, JC, the grid's shape and the three descriptors without LLD:
 *       - SUMMA on the caller's arrays (sp_gemm_summa.c) when the operands suit it: nothing
 *         local in it depends on the arrays or alpha and beta, so a found entry is run as it is;
 *       - else dmx_gemm's plan on layouts of the three operands (sp_layout.c). Those hold this
 *         process's LLDs, alpha and beta, and for a custom layout (first blocks not MB x NB) its
 *         array; the key adds alpha and beta, and a found entry is used only when every
 *         process's own LLDs (and custom arrays) match (one MPI_Allreduce), after a
 *         dmx_layout_rebind to this call's arrays; otherwise it is taken out, freed and remade.
 * A new entry counts the largest process's bytes (one MPI_Allreduce): the plan's (SUMMA's
 * panel lists, or dmx_gemm_plan_get_info's temp_bytes) and the entry's. The grid's panel
 * buffers grow with the widest panel run and are not counted.
 * DMX_SCALAPACK_GEMM_INPLACE=0 turns SUMMA on the caller's arrays off (every call through
 * dmx_gemm), for comparisons. */
#include "sp_gemm_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GK_HEAD = 15, GK_KIND = 12, GK_DESC = 9, GK_LEN = GK_HEAD + 3 * GK_DESC + 8 };

typedef struct sp_gentry {
    int key[GK_LEN];
    sp_gsumma *summa; /* SUMMA in place, or NULL: */
    dmx_gemm_plan *plan;
    dmx_layout *full[3], *view[3];
    int lld[3], custom[3];
    void *array[3]; /* the custom layouts' arrays */
} sp_gentry;

/* A grid the multiply ran on, kept as an entry of kind DMX_CACHE_GEMM_GRID. */
typedef struct sp_gnode {
    sp_ggrid g; /* g.comm: dmx's inner duplicate (borrowed) */
    int nranks;
    int key[]; /* NPROW, NPCOL, then the rank of each grid process (prow * NPCOL + pcol) */
} sp_gnode;

static int64_t g_paths[5];

void dmxsp_gemm_paths(int64_t out[5])
{
    memcpy(out, g_paths, sizeof g_paths);
}

void dmxsp_gemm_path_one_process(void)
{
    g_paths[4]++;
}

static _Noreturn void die(MPI_Comm comm, const char *name, const char *what)
{
    fprintf(stderr, "dmx_scalapack: %s: %s\n", name, what);
    fflush(stderr);
    dmxsp_abort(comm);
}

static void die_dmx(MPI_Comm comm, const char *name, dmx_status st)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s: %s", dmx_status_string(st), dmx_last_error());
    die(comm, name, msg);
}

/* ---- teardown -------------------------------------------------------------------------------- */
/* Free a plan entry: collective on the grid (dmx_gemm_plan_destroy); the plan cache calls it
 * (dmx_cache_free_fn) when it lets the entry go (at a call every process makes), when the grid's
 * communicator is freed or at MPI_Finalize. Returns 0 when it succeeded. */
static int entry_free(void *obj)
{
    sp_gentry *e = obj;
    int bad = 0;
    dmxsp_gsumma_free(e->summa);
    bad |= dmx_gemm_plan_destroy(&e->plan) != DMX_SUCCESS;
    for (int i = 0; i < 3; i++) {
        bad |= dmx_layout_destroy(&e->view[i]) != DMX_SUCCESS;
        bad |= dmx_layout_destroy(&e->full[i]) != DMX_SUCCESS;
    }
    free(e);
    return bad;
}

/* Free a grid entry (dmx_cache_free_fn): its row and column communicators (collective on the
 * grid; freed in the order every process made its entries) and panel buffers. */
static int grid_free(void *obj)
{
    sp_gnode *n = obj;
    int bad = 0;
    for (int i = 0; i < 4; i++)
        free(n->g.work[i]);
    bad |= MPI_Comm_free(&n->g.row) != MPI_SUCCESS;
    bad |= MPI_Comm_free(&n->g.col) != MPI_SUCCESS;
    free(n);
    return bad;
}

/* Keep new entry obj (key of len integers) in the plan cache of comm, counted as the largest
 * process's bytes. Collective on comm. */
static void keep(const char *name, MPI_Comm comm, dmx_cache_kind kind, int max_count,
                 const int *key, size_t len, void *obj, int64_t bytes, dmx_cache_free_fn fn)
{
    if (MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        die(comm, name, "MPI_Allreduce of a kept multiply's bytes failed");
    const dmx_status st =
        dmx_cache_keep(comm, kind, 1, max_count, key, len * sizeof *key, obj, bytes, fn);
    if (st != DMX_SUCCESS)
        die_dmx(comm, name, st);
}

/* ---- grids ----------------------------------------------------------------------------------- */
/* The grid of this call on comm (dmx's inner duplicate of the grid's communicator), found in
 * its plan cache or made there, pinned: the caller unpins it after the call. Collective on comm. */
static sp_gnode *find_grid(const char *name, MPI_Comm comm, const int *grid, const int *ranks)
{
    const int nr = grid[0] * grid[1];
    sp_gnode *n = dmxsp_xcalloc(1, sizeof *n + sizeof(int) * ((size_t)nr + 2), name);
    n->key[0] = grid[0], n->key[1] = grid[1];
    memcpy(n->key + 2, ranks, sizeof(int) * (size_t)nr);
    const size_t klen = sizeof(int) * ((size_t)nr + 2);
    sp_gnode *found = dmx_cache_pin(comm, DMX_CACHE_GEMM_GRID, n->key, klen);
    if (found != NULL) {
        free(n);
        return found;
    }
    n->nranks = nr;
    n->g.comm = comm;
    n->g.nprow = grid[0], n->g.npcol = grid[1], n->g.myrow = grid[2], n->g.mycol = grid[3];
    if (MPI_Comm_split(comm, grid[2], grid[3], &n->g.row) != MPI_SUCCESS ||
        MPI_Comm_split(comm, grid[3], grid[2], &n->g.col) != MPI_SUCCESS)
        die(comm, name, "cannot make the grid's row and column communicators");
    keep(name, comm, DMX_CACHE_GEMM_GRID, INT_MAX, n->key, (size_t)nr + 2, n,
         (int64_t)(sizeof *n + klen), grid_free);
    if (dmx_cache_pin(comm, DMX_CACHE_GEMM_GRID, n->key, klen) != n)
        die(comm, name, "the multiply's grid is not in the plan cache");
    return n;
}

/* ---- entries --------------------------------------------------------------------------------- */
static void put_desc(int *k, const sp_desc *d)
{
    const int v[GK_DESC] = {d->dtype, d->m, d->n, d->imb, d->inb, d->mb, d->nb, d->rsrc, d->csrc};
    memcpy(k, v, sizeof v);
}

static int upper(char c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* The global key; its kind (SUMMA's plan 1, dmx_gemm's 2) and, for dmx_gemm's plans, alpha and
 * beta are added by the caller. The grid's shape is in it; its order of processes is not needed:
 * the BLACS make a communicator of its own for each grid, and the cache is that communicator's. */
static void make_key(int *k, dmx_dtype t, const sp_gemm_args *g, const int *grid)
{
    memset(k, 0, sizeof(int) * GK_LEN);
    const int h[GK_HEAD] = {(int)t, upper(g->ta), upper(g->tb), g->m,  g->n, g->k,    g->ia,  g->ja,
                            g->ib,  g->jb,        g->ic,        g->jc, 0,    grid[0], grid[1]};
    memcpy(k, h, sizeof h);
    put_desc(k + GK_HEAD, &g->a);
    put_desc(k + GK_HEAD + GK_DESC, &g->b);
    put_desc(k + GK_HEAD + 2 * GK_DESC, &g->c);
}

static void key_scalars(int *k, dmx_scalar alpha, dmx_scalar beta)
{
    const double d[4] = {alpha.re, alpha.im, beta.re, beta.im};
    memcpy(k + GK_HEAD + 3 * GK_DESC, d, sizeof d); /* their bits, 2 integers each */
}

/* The plan entry with this key in comm's plan cache, moved to the front; NULL if none. Local;
 * the same answer on every process. */
static sp_gentry *lookup(MPI_Comm comm, const int *key)
{
    return dmx_cache_find(comm, DMX_CACHE_GEMM, key, sizeof(int) * GK_LEN);
}

/* The bytes entry e holds on this process: the entry, SUMMA's panel lists or dmx_gemm's plan. */
static int64_t entry_bytes(const char *name, MPI_Comm comm, const sp_gentry *e)
{
    int64_t bytes = (int64_t)sizeof *e;
    dmx_gemm_info info;
    if (e->summa != NULL) {
        bytes += (int64_t)sizeof *e->summa + e->summa->npanels * (int64_t)sizeof(sp_gpanel);
        for (int q = 0; q < e->summa->npanels; q++)
            bytes += e->summa->panels[q].count * (int64_t)sizeof(sp_gseg);
    }
    if (e->plan != NULL) {
        const dmx_status st = dmx_gemm_plan_get_info(e->plan, &info);
        if (st != DMX_SUCCESS)
            die_dmx(comm, name, st);
        bytes += info.temp_bytes;
    }
    return bytes;
}

/* ---- dmx_gemm's plans ------------------------------------------------------------------------ */

/* The layout of one operand (rows x cols at 1-based i, j of descriptor d) and its view. */
static dmx_status operand(MPI_Comm comm, const sp_desc *d, const int *grid, int *ranks, void *data,
                          int i, int j, int rows, int cols, dmx_dtype t, dmx_layout **full,
                          dmx_layout **view)
{
    sp_side s = {0};
    s.nprow = grid[0], s.npcol = grid[1];
    s.m = d->m, s.n = d->n, s.mb = d->mb, s.nb = d->nb, s.rsrc = d->rsrc, s.csrc = d->csrc;
    s.imb = d->imb, s.inb = d->inb, s.custom = d->imb != d->mb || d->inb != d->nb;
    s.i0 = i - 1, s.j0 = j - 1, s.rows = rows, s.cols = cols;
    s.grid_ranks = ranks;
    int64_t oi, oj;
    dmx_status st =
        dmxsp_side_layout(comm, &s, 1, grid[2], grid[3], data, d->lld, t, 0, full, &oi, &oj);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(*full, oi, oj, rows, cols, view);
    return st;
}

static dmx_op op_of(char c, dmx_dtype t)
{
    if (c == 'N' || c == 'n')
        return DMX_OP_N;
    /* conj is transpose for the real types */
    return (c == 'C' || c == 'c') && (t == DMX_CFLOAT || t == DMX_CDOUBLE) ? DMX_OP_C : DMX_OP_T;
}

/* A new entry with dmx_gemm's plan of call g. Collective on comm. */
static sp_gentry *plan_entry(const char *name, MPI_Comm comm, dmx_dtype t, const sp_gemm_args *g,
                             const int *grid, int *ranks, dmx_scalar alpha, void *const arr[3],
                             dmx_scalar beta)
{
    sp_gentry *e = dmxsp_xcalloc(1, sizeof *e, name);
    const int nota = g->ta == 'N' || g->ta == 'n', notb = g->tb == 'N' || g->tb == 'n';
    const sp_desc *d[3] = {&g->a, &g->b, &g->c};
    const int ij[3][2] = {{g->ia, g->ja}, {g->ib, g->jb}, {g->ic, g->jc}};
    const int dims[3][2] = {{nota ? g->m : g->k, nota ? g->k : g->m},
                            {notb ? g->k : g->n, notb ? g->n : g->k},
                            {g->m, g->n}};
    dmx_status st = DMX_SUCCESS;
    for (int i = 0; i < 3 && st == DMX_SUCCESS; i++) {
        st = operand(comm, d[i], grid, ranks, arr[i], ij[i][0], ij[i][1], dims[i][0], dims[i][1], t,
                     &e->full[i], &e->view[i]);
        e->lld[i] = d[i]->lld;
        e->custom[i] = d[i]->imb != d[i]->mb || d[i]->inb != d[i]->nb;
        e->array[i] = e->custom[i] ? arr[i] : NULL;
    }
    if (st == DMX_SUCCESS)
        st = dmx_gemm_plan_create(comm, t, op_of(g->ta, t), op_of(g->tb, t), alpha, e->view[0],
                                  e->view[1], beta, e->view[2], NULL, &e->plan);
    if (st != DMX_SUCCESS)
        die_dmx(comm, name, st);
    return e;
}

/* Does found entry e serve this call on every process? (Its key matched: the same answer
 * everywhere so far; the LLDs and custom arrays are this process's own.) Collective on comm. */
static int plan_matches(const char *name, MPI_Comm comm, const sp_gentry *e, const sp_gemm_args *g,
                        void *const arr[3])
{
    const int lld[3] = {g->a.lld, g->b.lld, g->c.lld};
    int ok = 1;
    for (int i = 0; i < 3; i++)
        ok = ok && e->lld[i] == lld[i] && (!e->custom[i] || e->array[i] == arr[i]);
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm) != MPI_SUCCESS)
        die(comm, name, "MPI_Allreduce of the cache decision failed");
    return all;
}

static void profile(MPI_Comm comm, const char *name, const sp_gemm_args *g, const sp_gentry *e,
                    int hit, double t0, double t1, double t2)
{
    int rank = -1;
    MPI_Comm_rank(comm, &rank);
    char how[160];
    dmx_gemm_info info;
    if (e->summa != NULL)
        snprintf(how, sizeof how, "SUMMA on the caller's arrays, %d panels up to %lld wide",
                 e->summa->npanels, (long long)e->summa->wmax);
    else if (dmx_gemm_plan_get_info(e->plan, &info) == DMX_SUCCESS)
        snprintf(how, sizeof how, "dmx %s on %d x %d, in place A/B/C %d/%d/%d",
                 dmx_gemm_alg_name(info.alg), info.prow, info.pcol, info.a_in_place,
                 info.b_in_place, info.c_in_place);
    else
        snprintf(how, sizeof how, "dmx");
    fprintf(stderr,
            "dmx profile rank %d: %s %c%c %d x %d x %d: %s; plan %s %.2f ms, multiply %.2f ms\n",
            rank, name, g->ta, g->tb, g->m, g->n, g->k, how, hit ? "cached" : "made",
            1e3 * (t1 - t0), 1e3 * (t2 - t1));
}

/* ---- one call -------------------------------------------------------------------------------- */

/* The entry serving call g on grid n: found in the plan cache (*hit = 1) or made (not kept
 * yet). Collective on the grid. */
static sp_gentry *entry_for(const char *name, sp_gnode *n, dmx_dtype t, const sp_gemm_args *g,
                            const int *grid, dmx_scalar alpha, void *const arr[3], dmx_scalar beta,
                            int *hit)
{
    const sp_gemm_set *set = dmxsp_gemm_settings();
    const MPI_Comm comm = n->g.comm;
    int key[GK_LEN];
    make_key(key, t, g, grid);
    /* SUMMA's plan first: whether the operands suit it depends on the key alone */
    key[GK_KIND] = 1;
    sp_gentry *e = set->capacity > 0 && set->inplace ? lookup(comm, key) : NULL;
    sp_gsumma *summa = NULL;
    if (e == NULL && set->inplace)
        summa = dmxsp_gsumma_make(g, grid);
    if (e == NULL && summa == NULL) {
        key[GK_KIND] = 2;
        key_scalars(key, alpha, beta);
        e = set->capacity > 0 ? lookup(comm, key) : NULL;
        if (e != NULL && !plan_matches(name, comm, e, g, arr)) {
            /* every process takes it out at this call and frees it (collective) */
            if (dmx_cache_take(comm, DMX_CACHE_GEMM, key, sizeof key) != e || entry_free(e))
                die(comm, name, "letting a kept multiply go failed");
            e = NULL;
        }
    }
    *hit = e != NULL;
    if (e != NULL)
        return e;
    if (summa != NULL) {
        e = dmxsp_xcalloc(1, sizeof *e, name);
        e->summa = summa;
    } else {
        e = plan_entry(name, comm, t, g, grid, n->key + 2, alpha, arr, beta);
    }
    memcpy(e->key, key, sizeof key);
    return e;
}

void dmxsp_gemm_cached(const char *name, MPI_Comm comm, dmx_dtype t, const sp_gemm_args *g,
                       const int *grid, int *ranks, dmx_scalar alpha, void *a, void *b,
                       dmx_scalar beta, void *c)
{
    void *const arr[3] = {a, b, c};
    const double t0 = MPI_Wtime();
    MPI_Comm inner = MPI_COMM_NULL; /* the cache is kept with dmx's duplicate of the grid's */
    dmx_status st = dmx_comm_inner(comm, &inner);
    if (st != DMX_SUCCESS)
        die_dmx(comm, name, st);
    sp_gnode *n = find_grid(name, inner, grid, ranks);
    int hit = 0;
    sp_gentry *e = entry_for(name, n, t, g, grid, alpha, arr, beta, &hit);
    const double t1 = MPI_Wtime();
    g_paths[e->summa != NULL ? 0 : 1]++;
    g_paths[hit ? 2 : 3]++;
    if (e->summa != NULL) {
        char msg[200];
        if (dmxsp_gsumma_run(e->summa, &n->g, t, g, alpha, a, b, beta, c, msg, sizeof msg))
            die(inner, name, msg);
    } else {
        for (int i = 0; i < 3 && hit && st == DMX_SUCCESS; i++)
            if (!e->custom[i])
                st = dmx_layout_rebind(e->view[i], arr[i]);
        if (st == DMX_SUCCESS)
            st = dmx_gemm_plan_execute(e->plan);
        if (st != DMX_SUCCESS)
            die_dmx(inner, name, st);
    }
    if (dmxsp_gemm_settings()->profile) /* DMX_PROFILE: a line per call and rank */
        profile(inner, name, g, e, hit, t0, t1, MPI_Wtime());
    const int cap = dmxsp_gemm_settings()->capacity;
    if (!hit && cap > 0)
        keep(name, inner, DMX_CACHE_GEMM, cap, e->key, GK_LEN, e, entry_bytes(name, inner, e),
             entry_free);
    else if (!hit && entry_free(e))
        die(inner, name, "freeing a multiply's plan failed");
    dmx_cache_unpin(inner, n); /* the cache may let the grid go from now on */
}
