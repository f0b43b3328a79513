/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop-in's p?gemm_ plans, kept per grid for the calls that follow.
 *
 * A grid: our duplicate of the BLACS grid's communicator with its row and column communicators
 * (SUMMA's broadcasts) and SUMMA's panel buffers. Grids are matched by their communicator
 * (MPI_Comm_compare: the same processes in the same order) and the rank of every grid process,
 * which every process knows alike (sp_gemm.c's exchange), so all of them find or make the same
 * grid at the same call. Kept until MPI_Finalize.
 *
 * A plan, in a list per grid, most recently used first, at most DMX_SCALAPACK_GEMM_CACHE
 * (default 8; 0 keeps none) of them, keyed by the call's global arguments: type, TRANSA, TRANSB,
 * M, N, K, IA, JA, IB, JB, IC, JC and the three descriptors without LLD (all equal on every
 * process, so every process finds the same entry or none and evicts the same one):
 *   - SUMMA on the caller's arrays (sp_gemm_summa.c) when the operands suit it: nothing local
 *     in it depends on the arrays or alpha and beta, so a found entry is run as it is;
 *   - else dmx_gemm's plan on layouts of the three operands (sp_layout.c). Those hold this
 *     process's LLDs, alpha and beta, and for a custom layout (first blocks not MB x NB) its
 *     array; the key adds alpha and beta, and a found entry is used only when every process's
 *     own LLDs (and custom arrays) match (one MPI_Allreduce), after a dmx_layout_rebind to this
 *     call's arrays; otherwise it is remade.
 * DMX_SCALAPACK_GEMM_INPLACE=0 turns SUMMA on the caller's arrays off (every call through
 * dmx_gemm), for comparisons.
 *
 * Everything is freed at MPI_Finalize (a state kept with MPI_COMM_SELF, dmx_comm_set_state),
 * grids in the order they were made, so the collective frees match. */
#include "sp_gemm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GK_HEAD = 13, GK_DESC = 9, GK_LEN = GK_HEAD + 3 * GK_DESC + 8 };

typedef struct sp_gentry {
    struct sp_gentry *next;
    int key[GK_LEN];
    sp_gsumma *summa; /* SUMMA in place, or NULL: */
    dmx_gemm_plan *plan;
    dmx_layout *full[3], *view[3];
    int lld[3], custom[3];
    void *array[3]; /* the custom layouts' arrays */
} sp_gentry;

typedef struct sp_gnode {
    struct sp_gnode *next; /* creation order */
    sp_ggrid g;
    int *ranks; /* nprow x npcol */
    sp_gentry *entries;
    int nentries;
} sp_gnode;

static struct {
    int init;
    sp_gnode *grids;
    int64_t paths[4];
} g_gc;

void sp_gemm_paths(int64_t out[4])
{
    memcpy(out, g_gc.paths, sizeof g_gc.paths);
}

static _Noreturn void die(MPI_Comm comm, const char *name, const char *what)
{
    fprintf(stderr, "dmx_scalapack: %s: %s\n", name, what);
    fflush(stderr);
    sp_abort(comm);
}

static void die_dmx(MPI_Comm comm, const char *name, dmx_status st)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s: %s", dmx_status_string(st), dmx_last_error());
    die(comm, name, msg);
}

/* ---- teardown -------------------------------------------------------------------------------- */
static void entry_free(sp_gentry *e)
{
    sp_gsumma_free(e->summa);
    dmx_gemm_plan_destroy(&e->plan);
    for (int i = 0; i < 3; i++) {
        dmx_layout_destroy(&e->view[i]);
        dmx_layout_destroy(&e->full[i]);
    }
    free(e);
}

/* Kept with MPI_COMM_SELF in dmx's communicator registry (dmx_comm_set_state): called at
 * MPI_Finalize, after the records of the program's communicators (docs/architecture.md). */
static void cache_free(void *state)
{
    (void)state;
    while (g_gc.grids != NULL) {
        sp_gnode *n = g_gc.grids;
        g_gc.grids = n->next;
        while (n->entries != NULL) {
            sp_gentry *e = n->entries;
            n->entries = e->next;
            entry_free(e);
        }
        for (int i = 0; i < 4; i++)
            free(n->g.work[i]);
        MPI_Comm_free(&n->g.row);
        MPI_Comm_free(&n->g.col);
        MPI_Comm_free(&n->g.comm);
        free(n->ranks);
        free(n);
    }
    g_gc.init = 0;
}

static void init(const char *name)
{
    if (g_gc.init)
        return;
    if (dmx_comm_set_state(MPI_COMM_SELF, &g_gc, cache_free) != DMX_SUCCESS)
        die(MPI_COMM_WORLD, name, "cannot keep the multiply's cache with MPI_COMM_SELF");
    g_gc.init = 1;
}

/* ---- grids ----------------------------------------------------------------------------------- */
static sp_gnode *find_grid(const char *name, MPI_Comm comm, const int *grid, const int *ranks)
{
    const size_t nr = (size_t)grid[0] * (size_t)grid[1];
    sp_gnode **tail = &g_gc.grids;
    for (sp_gnode *n = g_gc.grids; n != NULL; n = n->next) {
        int res = MPI_UNEQUAL;
        if (MPI_Comm_compare(n->g.comm, comm, &res) != MPI_SUCCESS)
            die(comm, name, "MPI_Comm_compare failed");
        if ((res == MPI_IDENT || res == MPI_CONGRUENT) && n->g.nprow == grid[0] &&
            n->g.npcol == grid[1] && memcmp(n->ranks, ranks, nr * sizeof(int)) == 0)
            return n;
        tail = &n->next;
    }
    sp_gnode *n = sp_xcalloc(1, sizeof *n, name);
    n->ranks = sp_xcalloc(nr, sizeof(int), name);
    memcpy(n->ranks, ranks, nr * sizeof(int));
    n->g.nprow = grid[0], n->g.npcol = grid[1], n->g.myrow = grid[2], n->g.mycol = grid[3];
    if (MPI_Comm_dup(comm, &n->g.comm) != MPI_SUCCESS ||
        MPI_Comm_split(n->g.comm, grid[2], grid[3], &n->g.row) != MPI_SUCCESS ||
        MPI_Comm_split(n->g.comm, grid[3], grid[2], &n->g.col) != MPI_SUCCESS)
        die(comm, name, "cannot make the grid's row and column communicators");
    *tail = n;
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
 * beta are added by the caller. */
static void make_key(int *k, dmx_dtype t, const sp_gemm_args *g)
{
    memset(k, 0, sizeof(int) * GK_LEN);
    const int h[GK_HEAD] = {(int)t, upper(g->ta), upper(g->tb), g->m,  g->n,  g->k, g->ia,
                            g->ja,  g->ib,        g->jb,        g->ic, g->jc, 0};
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

/* The entry with this key, moved to the front; NULL if none. */
static sp_gentry *lookup(sp_gnode *n, const int *key)
{
    sp_gentry **pp = &n->entries;
    for (sp_gentry *e = n->entries; e != NULL; pp = &e->next, e = e->next)
        if (memcmp(e->key, key, sizeof e->key) == 0) {
            *pp = e->next;
            e->next = n->entries;
            n->entries = e;
            return e;
        }
    return NULL;
}

/* Add e at the front, evicting the least recently used beyond the capacity (every process of
 * the grid evicts the same entry at the same call). With capacity 0 the caller frees e after its
 * run instead of calling this. */
static void insert(sp_gnode *n, sp_gentry *e)
{
    e->next = n->entries;
    n->entries = e;
    n->nentries++;
    while (n->nentries > sp_gemm_settings()->capacity) {
        sp_gentry **pp = &n->entries;
        while ((*pp)->next != NULL)
            pp = &(*pp)->next;
        entry_free(*pp);
        *pp = NULL;
        n->nentries--;
    }
}

/* Remove e from n's list (it is there) and free it. */
static void drop(sp_gnode *n, sp_gentry *e)
{
    for (sp_gentry **pp = &n->entries; *pp != NULL; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            n->nentries--;
            break;
        }
    entry_free(e);
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
        sp_side_layout(comm, &s, 1, grid[2], grid[3], data, d->lld, t, 0, full, &oi, &oj);
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
    sp_gentry *e = sp_xcalloc(1, sizeof *e, name);
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
        snprintf(how, sizeof how, "%s on the caller's arrays, %d panels up to %lld wide",
                 e->summa->local ? "one local multiply" : "SUMMA", e->summa->npanels,
                 (long long)e->summa->wmax);
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

/* The entry serving call g on grid n: found (*hit = 1) or made. Collective on the grid. */
static sp_gentry *entry_for(const char *name, sp_gnode *n, dmx_dtype t, const sp_gemm_args *g,
                            const int *grid, dmx_scalar alpha, void *const arr[3], dmx_scalar beta,
                            int *hit)
{
    const sp_gemm_set *set = sp_gemm_settings();
    int key[GK_LEN];
    make_key(key, t, g);
    /* SUMMA's plan first: whether the operands suit it depends on the key alone */
    key[GK_HEAD - 1] = 1;
    sp_gentry *e = set->capacity > 0 && set->inplace ? lookup(n, key) : NULL;
    sp_gsumma *summa = NULL;
    if (e == NULL && set->inplace)
        summa = sp_gsumma_make(g, grid);
    if (e == NULL && summa == NULL) {
        key[GK_HEAD - 1] = 2;
        key_scalars(key, alpha, beta);
        e = set->capacity > 0 ? lookup(n, key) : NULL;
        if (e != NULL && !plan_matches(name, n->g.comm, e, g, arr)) {
            drop(n, e);
            e = NULL;
        }
    }
    *hit = e != NULL;
    if (e != NULL)
        return e;
    if (summa != NULL) {
        e = sp_xcalloc(1, sizeof *e, name);
        e->summa = summa;
    } else {
        e = plan_entry(name, n->g.comm, t, g, grid, n->ranks, alpha, arr, beta);
    }
    memcpy(e->key, key, sizeof key);
    return e;
}

void sp_gemm_cached(const char *name, MPI_Comm comm, dmx_dtype t, const sp_gemm_args *g,
                    const int *grid, int *ranks, dmx_scalar alpha, void *a, void *b,
                    dmx_scalar beta, void *c)
{
    init(name);
    void *const arr[3] = {a, b, c};
    const double t0 = MPI_Wtime();
    sp_gnode *n = find_grid(name, comm, grid, ranks);
    int hit = 0;
    sp_gentry *e = entry_for(name, n, t, g, grid, alpha, arr, beta, &hit);
    const double t1 = MPI_Wtime();
    g_gc.paths[e->summa != NULL ? 0 : 1]++;
    g_gc.paths[hit ? 2 : 3]++;
    if (e->summa != NULL) {
        char msg[200];
        if (sp_gsumma_run(e->summa, &n->g, t, g, alpha, a, b, beta, c, msg, sizeof msg))
            die(n->g.comm, name, msg);
    } else {
        dmx_status st = DMX_SUCCESS;
        for (int i = 0; i < 3 && hit && st == DMX_SUCCESS; i++)
            if (!e->custom[i])
                st = dmx_layout_rebind(e->view[i], arr[i]);
        if (st == DMX_SUCCESS)
            st = dmx_gemm_plan_execute(e->plan);
        if (st != DMX_SUCCESS)
            die_dmx(n->g.comm, name, st);
    }
    if (sp_gemm_settings()->profile) /* DMX_PROFILE: a line per call and rank */
        profile(n->g.comm, name, g, e, hit, t0, t1, MPI_Wtime());
    if (!hit && sp_gemm_settings()->capacity > 0)
        insert(n, e);
    else if (!hit)
        entry_free(e);
}
