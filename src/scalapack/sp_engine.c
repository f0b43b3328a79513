/* SPDX-License-Identifier: BSD-3-Clause */
/* Glue between ScaLAPACK's calling conventions and the dmx engine.
 *
 * One call goes:
 *   1. quick return for m or n = 0 (and for p?tran with alpha = 0, beta = 1), no communication;
 *   2. the process group: the communicator of the BLACS grid ictxt (Cblacs_get(ictxt, 10) gives
 *      its system handle, Cblacs2sys_handle the communicator, whose rank r is grid process
 *      r = prow*npcol + pcol). A "context" below is kept by dmx with that communicator
 *      (dmx/expert.h): it talks on dmx's inner duplicate of it, the one duplicate dmx makes;
 *      grids over the same processes in the same order share one while it lives;
 *   3. every process of the group builds a key of integers from its own arguments (its
 *      coordinates in the source and target grids, their descriptors, the indices, sizes and
 *      routine) and the group allgathers them. The gathered key is identical on every process, so
 *      the cache decision below is too, and on a miss it holds everything needed to build the
 *      layouts: each grid's (prow, pcol) -> rank map and the descriptor fields that processes
 *      outside a grid do not know;
 *   4. cache hit: point the cached layouts at this call's arrays (dmx_layout_rebind), set alpha and
 *      beta, execute. Miss: validate the gathered key exactly as ScaLAPACK would, build the two
 *      block-cyclic layouts on the group, take views of the submatrices, plan, execute.
 *
 * The entries (layouts and plan of a call) are kept in dmx's plan cache on the context's
 * communicator (dmx/expert.h, src/plan/plan_cache.c), with the one-shot plans of the calls made
 * alone, under one budget (DMX_CACHE_BYTES per communicator and rank; at most
 * DMX_SCALAPACK_CACHE entries of each kind, a test override), least recently used first out. An
 * entry made together counts the largest process's bytes (one MPI_Allreduce on a miss), so every
 * process of a context, which sees the same sequence of calls on it, lets the same entries go at
 * the same call (plan destruction is collective). A context is freed with the grid's
 * communicator (BLACS_GRIDEXIT) or at MPI_Finalize, by dmx's registry, and its entries with the
 * context's communicator (dmx's inner duplicate of the grid's), right after.
 *
 * Errors abort the program (ScaLAPACK's redistribution routines exit and the PBLAS abort on bad
 * arguments; there is no INFO argument to return them through).
 */
#include "sp_internal.h"

/* the plan cache's calls for a library on dmx (exported by libdmx; not installed) */

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS_GET "what" returning the system handle of a grid's own communicator. */
#define SP_BLACS_GRID_COMM 10
#define SP_DEFAULT_CACHE 16
#define SP_MAX_PIECES 2

/* ---- cache ----------------------------------------------------------------------------------- */
typedef struct sp_entry {
    int key[KEY_LEN]; /* this process's key; equal keys on every process = a hit */
    int npieces;
    dmx_layout *src[SP_MAX_PIECES];
    dmx_layout *dst[SP_MAX_PIECES];
    char uplo[SP_MAX_PIECES], diag[SP_MAX_PIECES]; /* each piece's trapezoid (p?trmr2d) */
    dmx_plan *plan;
    int src_in, dst_in; /* this process is in the source / target grid */
    /* a side is a custom layout (first-block sizes), which cannot be rebound: the key holds its
     * array's address, so a hit has the same array */
    int src_custom, dst_custom;
    /* made alone (sp_small.c): unagreed layouts run by one dmx_transform_once_ex per piece (the
     * pieces' plans are kept by dmx on the layouts' communicator), no plan here; ranks holds
     * what else a hit must match (nranks integers): the context ranks of both grids (2 x size),
     * or for a gathered call (dmxsp_small_eligible 2) the whole gathered key (size x KEY_LEN) */
    int alone;
    int *ranks;
    size_t nranks;
} sp_entry;

typedef struct sp_context {
    struct sp_context *next; /* the live contexts, oldest first */
    MPI_Comm comm;           /* dmx's inner duplicate of the grid communicator (dmx/expert.h) */
    int rank, size;
    int *gkey;  /* allgather buffer (misses only), size * KEY_LEN */
    int *match; /* per cached entry: does this process's key match (hit test) */
    int match_cap;
    int *lkey;       /* a small call's cache key: its key and tag, KEY_LEN + size * KEY_LEN */
    MPI_Group group; /* of comm */
    int *ranks;      /* 2 x size: a small call's grid ranks */
} sp_context;

static struct {
    int initialized;
    int64_t capacity;
    struct sp_context *contexts; /* live contexts, oldest first */
    int direct; /* DMX_SCALAPACK_DIRECT: tiny all-local calls in place (sp_direct.c) */
    dmx_scalapack_stats stats;
} g_sp = {0, SP_DEFAULT_CACHE, NULL, 1, {0}};

/* ---- errors ---------------------------------------------------------------------------------- */
#if defined(__GNUC__)
#define SP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SP_PRINTF(a, b)
#endif

/* Print "dmx_scalapack: NAME: message" (if print) and abort the job. */
static _Noreturn void fail(MPI_Comm comm, int print, const char *name, const char *fmt, ...)
    SP_PRINTF(4, 5);

static _Noreturn void fail(MPI_Comm comm, int print, const char *name, const char *fmt, ...)
{
    if (print) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "dmx_scalapack: %s: ", name);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        fflush(stderr);
        va_end(ap);
    }
    dmxsp_abort(comm);
}

#define SP_MPI(name, call)                                                                         \
    do {                                                                                           \
        int sp_rc_ = (call);                                                                       \
        if (sp_rc_ != MPI_SUCCESS)                                                                 \
            mpi_fail((name), sp_rc_, #call, __LINE__);                                             \
    } while (0)

static _Noreturn void mpi_fail(const char *name, int rc, const char *what, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    fail(MPI_COMM_WORLD, 1, name, "%s failed (sp_engine.c:%d): %s", what, line, msg);
}

#define SP_DMX(name, call)                                                                         \
    do {                                                                                           \
        dmx_status sp_st_ = (call);                                                                \
        if (sp_st_ != DMX_SUCCESS)                                                                 \
            fail(MPI_COMM_WORLD, 1, (name), "%s: %s (%s)", #call, dmx_status_string(sp_st_),       \
                 dmx_last_error());                                                                \
    } while (0)

/* ---- teardown ------------------------------------------------------------------------------ */
static void entry_destroy(sp_entry *e, const char *name)
{
    if (e == NULL)
        return;
    free(e->ranks);
    SP_DMX(name, dmx_plan_destroy(&e->plan));
    for (int k = 0; k < e->npieces; k++) {
        SP_DMX(name, dmx_layout_destroy(&e->src[k]));
        SP_DMX(name, dmx_layout_destroy(&e->dst[k]));
    }
    free(e);
}

/* The plan cache lets an entry go (dmx_cache_free_fn): evicted at a call (made together: at the
 * same call on every process), or when the context's communicator is freed (inside
 * MPI_Comm_free, collective) or at MPI_Finalize. */
static int entry_free(void *obj)
{
    entry_destroy(obj, "letting a cached call go");
    g_sp.stats.entries--;
    g_sp.stats.evictions++;
    return 0;
}

/* The state dmx keeps with the grid's communicator (dmx_comm_set_state): called when the
 * communicator is freed (BLACS_GRIDEXIT, inside MPI_Comm_free: collective on the grid) or at
 * MPI_Finalize. The context's entries are in the plan cache of its communicator, dmx's inner
 * duplicate, which dmx frees (with them, oldest first) after this. */
static void context_free(void *state)
{
    const char *name = "freeing a BLACS grid's communicator";
    sp_context *c = state;
    for (sp_context **q = &g_sp.contexts; *q != NULL; q = &(*q)->next)
        if (*q == c) {
            *q = c->next;
            break;
        }
    free(c->ranks);
    SP_MPI(name, MPI_Group_free(&c->group));
    free(c->gkey);
    free(c->lkey);
    free(c->match);
    free(c);
    g_sp.stats.contexts--;
}

static void ensure_init(void)
{
    if (g_sp.initialized)
        return;
    g_sp.capacity = dmx_setting_int("DMX_SCALAPACK_CACHE");     /* src/core/settings_table.c */
    g_sp.direct = dmx_setting_int("DMX_SCALAPACK_DIRECT") != 0; /* same */
    g_sp.initialized = 1;
}

/* ---- contexts -------------------------------------------------------------------------------- */
/* The context of the grid ictxt: dmx keeps it with the grid's communicator (dmx_comm_state), so
 * it lives until that communicator is freed. Grids over the same processes in the same order
 * share one: a grid without a context of its own takes a live context congruent with it (every
 * process of the grid knows the same live contexts, as they are made and freed collectively).
 * Made at the first call on the grid, by every process of it (ScaLAPACK requires all of ictxt
 * to call): dmx_comm_inner's first call there is collective and matched. */
static sp_context *find_context(int ictxt, const char *name)
{
    int handle = -1;
    Cblacs_get(ictxt, SP_BLACS_GRID_COMM, &handle);
    MPI_Comm gcomm = Cblacs2sys_handle(handle);
    if (gcomm == MPI_COMM_NULL)
        fail(MPI_COMM_WORLD, 1, name, "the BLACS context %d has no communicator", ictxt);
    void *v = NULL;
    SP_DMX(name, dmx_comm_state(gcomm, &v));
    if (v != NULL)
        return v;
    sp_context **tail = &g_sp.contexts;
    for (sp_context *c = g_sp.contexts; c != NULL; c = c->next) {
        int res = MPI_UNEQUAL;
        SP_MPI(name, MPI_Comm_compare(c->comm, gcomm, &res));
        if (res == MPI_IDENT || res == MPI_CONGRUENT)
            return c;
        tail = &c->next;
    }
    sp_context *c = dmxsp_xcalloc(1, sizeof *c, name);
    SP_DMX(name, dmx_comm_inner(gcomm, &c->comm));
    SP_MPI(name, MPI_Comm_rank(c->comm, &c->rank));
    SP_MPI(name, MPI_Comm_size(c->comm, &c->size));
    c->gkey = dmxsp_xcalloc((size_t)c->size * KEY_LEN, sizeof(int), name);
    c->ranks = dmxsp_xcalloc((size_t)c->size * 2, sizeof(int), name);
    c->lkey = dmxsp_xcalloc((size_t)(c->size + 1) * KEY_LEN, sizeof(int), name);
    SP_MPI(name, MPI_Comm_group(c->comm, &c->group));
    SP_DMX(name, dmx_comm_set_state(gcomm, c, context_free));
    *tail = c;
    g_sp.stats.contexts++;
    return c;
}

static dmx_dtype dtype_of(int type)
{
    switch (type) {
    case SP_D: return DMX_DOUBLE;
    case SP_C: return DMX_CFLOAT;
    case SP_Z: return DMX_CDOUBLE;
    default: return DMX_FLOAT; /* SP_S, and SP_I copied bit for bit as floats */
    }
}

/* Build the layouts and the plan for the gathered key of ctx. Collective on ctx->comm; alone
 * (the key made by dmxsp_small_gkey): local, unagreed layouts and no plan (dmx_transform_once runs
 * the call). */
static sp_entry *entry_create(sp_context *ctx, const sp_call *c, int alone)
{
    const int *gkey = ctx->gkey;
    const int size = ctx->size;
    char msg[256];
    int bad = 0;

    /* arguments every process passes must agree */
    for (int r = 1; r < size && !bad; r++) {
        for (int q = K_ROUTINE; q <= K_WITHDIAG; q++) {
            if (gkey[(size_t)r * KEY_LEN + q] != gkey[q]) {
                snprintf(msg, sizeof msg, "processes 0 and %d of the context passed different %s",
                         r,
                         q == K_M   ? "M"
                         : q == K_N ? "N"
                                    : "routines or UPLO/DIAG");
                bad = 1;
                break;
            }
        }
    }
    for (int r = 0; r < size && !bad; r++) {
        if (gkey[(size_t)r * KEY_LEN + K_CTXTMISMATCH]) {
            snprintf(msg, sizeof msg, "A and C must be distributed over the same BLACS context");
            bad = 1;
        }
    }
    const int tran = gkey[K_ROUTINE] == SP_TRAN;
    const char *sname = "A", *dname = tran ? "C" : "B";
    const int m = gkey[K_M], n = gkey[K_N];
    sp_side src = {0}, dst = {0};
    if (!bad)
        bad = dmxsp_decode_side(gkey, size, K_SRC, sname, tran ? n : m, tran ? m : n, &src, msg,
                                sizeof msg);
    if (!bad)
        bad = dmxsp_decode_side(gkey, size, K_DST, dname, m, n, &dst, msg, sizeof msg);
    if (bad) {
        free(src.grid_ranks);
        free(dst.grid_ranks);
        fail(ctx->comm, alone || ctx->rank == 0, c->name, "%s", msg);
    }

    const int *mine = gkey + (size_t)ctx->rank * KEY_LEN;
    sp_entry *e = dmxsp_xcalloc(1, sizeof *e, c->name);
    e->src_in = mine[K_SRC + F_IN];
    e->dst_in = mine[K_DST + F_IN];
    memcpy(e->key, mine, sizeof e->key);
    e->alone = alone;

    /* The layouts stop at the submatrix's last row and column: what lies beyond is never
     * touched, local offsets do not depend on M or N, and the layouts stay small when a small
     * window of a large matrix is moved. */
    dmx_layout *full_src = NULL, *full_dst = NULL;
    int64_t si = 0, sj = 0, di = 0, dj = 0; /* where the submatrices start in those layouts */
    const dmx_dtype dtype = dtype_of(gkey[K_TYPE]);
    e->src_custom = src.custom;
    e->dst_custom = dst.custom;
    SP_DMX(c->name, dmxsp_side_layout(ctx->comm, &src, e->src_in, mine[K_SRC + F_MYROW],
                                      mine[K_SRC + F_MYCOL], c->src, mine[K_SRC + F_LLD], dtype,
                                      alone, &full_src, &si, &sj));
    SP_DMX(c->name, dmxsp_side_layout(ctx->comm, &dst, e->dst_in, mine[K_DST + F_MYROW],
                                      mine[K_DST + F_MYCOL], c->dst, mine[K_DST + F_LLD], dtype,
                                      alone, &full_dst, &di, &dj));
    free(src.grid_ranks);
    free(dst.grid_ranks);

    sp_piece pieces[SP_MAX_PIECES];
    dmx_transform tr[SP_MAX_PIECES];
    e->npieces = dmxsp_make_pieces(gkey, pieces);
    for (int k = 0; k < e->npieces; k++) {
        const sp_piece *p = &pieces[k];
        if (tran)
            SP_DMX(c->name, dmx_layout_create_view(full_src, si + p->c0, sj + p->r0, p->cols,
                                                   p->rows, &e->src[k]));
        else
            SP_DMX(c->name, dmx_layout_create_view(full_src, si + p->r0, sj + p->c0, p->rows,
                                                   p->cols, &e->src[k]));
        SP_DMX(c->name, dmx_layout_create_view(full_dst, di + p->r0, dj + p->c0, p->rows, p->cols,
                                               &e->dst[k]));
        memset(&tr[k], 0, sizeof tr[k]);
        tr[k].dtype = dtype;
        tr[k].op = (dmx_op)gkey[K_OP];
        tr[k].alpha = c->alpha;
        tr[k].beta = c->beta;
        tr[k].b = e->src[k];
        tr[k].a = e->dst[k];
        tr[k].uplo = e->uplo[k] = p->uplo;
        tr[k].diag = e->diag[k] = p->diag;
    }
    SP_DMX(c->name, dmx_layout_destroy(&full_src));
    SP_DMX(c->name, dmx_layout_destroy(&full_dst));
    if (!alone)
        SP_DMX(c->name, dmx_plan_create(e->npieces, tr, &e->plan));
    return e;
}

/* Point the layouts of a side at this call's array. A process in the grid that passes NULL must
 * own nothing of the submatrix. */
static void rebind_side(dmx_layout **views, int npieces, int in, int custom, const void *local,
                        const char *name, const char *mat)
{
    if (!in || custom)
        return;
    for (int k = 0; k < npieces; k++) {
        if (local != NULL) {
            SP_DMX(name, dmx_layout_rebind(views[k], (void *)local));
        } else {
            int64_t nloc = 0;
            SP_DMX(name, dmx_layout_get_num_local_blocks(views[k], &nloc));
            if (nloc > 0)
                fail(MPI_COMM_WORLD, 1, name, "the local array of %s is NULL", mat);
        }
    }
}

static void entry_execute(sp_entry *e, const sp_call *c, int rebind)
{
    if (rebind) {
        rebind_side(e->src, e->npieces, e->src_in, e->src_custom, c->src, c->name, "A");
        rebind_side(e->dst, e->npieces, e->dst_in, e->dst_custom, c->dst, c->name,
                    c->routine == SP_TRAN ? "C" : "B");
    }
    if (e->alone) { /* no agreement (sp_small.c): one one-shot call per piece */
        for (int k = 0; k < e->npieces; k++) {
            const dmx_transform t = {.dtype = dtype_of(e->key[K_TYPE]),
                                     .op = (dmx_op)e->key[K_OP],
                                     .alpha = c->alpha,
                                     .beta = c->beta,
                                     .b = e->src[k],
                                     .a = e->dst[k],
                                     .uplo = e->uplo[k],
                                     .diag = e->diag[k]};
            SP_DMX(c->name, dmx_transform_once_ex(&t));
        }
        return;
    }
    for (int k = 0; k < e->npieces; k++)
        SP_DMX(c->name, dmx_plan_set_scalars(e->plan, k, c->alpha, c->beta));
    SP_DMX(c->name, dmx_plan_execute(e->plan));
}

/* ---- entry ----------------------------------------------------------------------------------- */
static int is_zero(dmx_scalar s)
{
    return s.re == 0.0 && s.im == 0.0;
}

/* The bytes an entry holds on this process: its plan (engine buffers and piece lists, as
 * dmx_plan_info counts them), the entry and its tag; the layouts' descriptions are small and
 * not counted. A call made alone holds no plan here: its pieces' plans are dmx_transform_once's,
 * kept and counted in the same cache. */
static int64_t entry_bytes(const sp_entry *e, const char *name)
{
    int64_t bytes = (int64_t)sizeof *e + (int64_t)(e->nranks * sizeof(int));
    if (e->plan != NULL) {
        dmx_plan_info info;
        SP_DMX(name, dmx_plan_get_info(e->plan, &info));
        bytes += info.buffer_bytes + info.plan_bytes;
    }
    return bytes;
}

/* Keep a new entry in the plan cache of ctx (or destroy it when caching is off): made together
 * (agreed), every process counts the largest process's bytes and keeps it at this same call. */
static void keep(sp_context *ctx, sp_entry *e, int agreed, const int *key, size_t len,
                 const char *name)
{
    if (g_sp.capacity == 0) {
        entry_destroy(e, name);
        return;
    }
    int64_t bytes = entry_bytes(e, name);
    if (agreed)
        SP_MPI(name, MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_MAX, ctx->comm));
    const int cap = g_sp.capacity > INT_MAX ? INT_MAX : (int)g_sp.capacity;
    g_sp.stats.entries++;
    const dmx_cache_kind kind = agreed ? DMX_CACHE_DROPIN : DMX_CACHE_DROPIN_ALONE;
    SP_DMX(name, dmx_cache_keep(ctx->comm, kind, agreed, cap, key, len * sizeof *key, e, bytes,
                                entry_free));
}

/* A small call run by dmx_transform_once on layouts made locally from ctx->gkey: this process's
 * cache of its own layouts, keyed on its own key (its descriptors with its LLD and grid
 * coordinates) and tag (ntag integers: what else decides the layouts). A found entry stays in
 * the cache, pinned while its pieces run (their one-shot plans may make the cache let local
 * entries go) and moved to the front; a new one is kept after its run. Local. */
static void run_local(sp_context *ctx, const sp_call *c, const int *key, const int *tag,
                      size_t ntag)
{
    int *lkey = ctx->lkey; /* key then tag */
    memcpy(lkey, key, KEY_LEN * sizeof *key);
    memcpy(lkey + KEY_LEN, tag, ntag * sizeof *tag);
    const size_t len = (KEY_LEN + ntag) * sizeof *lkey;
    sp_entry *e = dmx_cache_pin(ctx->comm, DMX_CACHE_DROPIN_ALONE, lkey, len);
    if (e != NULL) {
        g_sp.stats.hits++;
        entry_execute(e, c, 1);
        dmx_cache_unpin(ctx->comm, e);
        return;
    }
    g_sp.stats.misses++;
    e = entry_create(ctx, c, 1);
    e->ranks = dmxsp_xcalloc(ntag, sizeof(int), c->name);
    e->nranks = ntag;
    memcpy(e->ranks, tag, ntag * sizeof(int));
    entry_execute(e, c, 0);
    keep(ctx, e, 0, lkey, KEY_LEN + ntag, c->name);
}

void dmxsp_run(const sp_call *c)
{
    if (c->m < 0 || c->n < 0)
        fail(MPI_COMM_WORLD, 1, c->name, "M = %d and N = %d must be at least zero", c->m, c->n);
    if (c->m == 0 || c->n == 0)
        return;
    if (c->routine == SP_TRAN && is_zero(c->alpha) && c->beta.re == 1.0 && c->beta.im == 0.0)
        return;
    if (c->descsrc == NULL || c->descdst == NULL)
        fail(MPI_COMM_WORLD, 1, c->name, "a descriptor is NULL");

    int nprow, npcol, myrow, mycol;
    if (!dmxsp_grid_member(c->ictxt, &nprow, &npcol, &myrow, &mycol)) {
        /* ScaLAPACK requires every process of either grid to be in ictxt; a process in neither
         * has nothing to do. */
        int srow, scol, sr, sc;
        if (dmxsp_grid_member(c->descsrc[1], &srow, &scol, &sr, &sc) ||
            dmxsp_grid_member(c->descdst[1], &srow, &scol, &sr, &sc))
            fail(MPI_COMM_WORLD, 1, c->name,
                 "this process is in the grid of A or B but not in the context %d", c->ictxt);
        return;
    }
    ensure_init();
    const int grid[4] = {nprow, npcol, myrow, mycol};
    if (g_sp.direct) { /* tiny and all local: no plan, no context needed */
        char msg[160];
        int done = dmxsp_direct(c, grid, msg, sizeof msg);
        if (done < 0)
            fail(MPI_COMM_WORLD, 1, c->name, "%s", msg);
        if (done) {
            g_sp.stats.calls++;
            g_sp.stats.local_calls++;
            g_sp.stats.direct_calls++;
            return;
        }
    }
    sp_context *ctx = find_context(c->ictxt, c->name);

    int key[KEY_LEN];
    dmxsp_build_key(c, grid, key);
    g_sp.stats.calls++;
    const int small = dmxsp_small_eligible(c, key, dtype_of(c->type), ctx->size);
    if (small == 1) { /* no collective: the gathered key made alone */
        if (dmxsp_small_gkey(c, key, ctx->group, ctx->size, ctx->ranks, ctx->gkey))
            fail(MPI_COMM_WORLD, 1, c->name, "a grid's processes are not in the context %d",
                 c->ictxt);
        g_sp.stats.local_calls++;
        run_local(ctx, c, key, ctx->ranks, (size_t)ctx->size * 2);
        return;
    }
    if (small == 2) { /* one collective: the key gathered, then as above */
        SP_MPI(c->name,
               MPI_Allgather(key, KEY_LEN, MPI_INT, ctx->gkey, KEY_LEN, MPI_INT, ctx->comm));
        g_sp.stats.gathered_calls++;
        run_local(ctx, c, key, ctx->gkey, (size_t)ctx->size * KEY_LEN);
        return;
    }

    /* Hit test without gathering anything: a cached entry matches when every process's own key
     * equals the one it stored, so each process checks its own and one MIN-reduction over the
     * (at most capacity) entries agrees. Every process holds the same entries in the same
     * order, because they are created, moved and evicted only on agreed outcomes (the cache
     * never lets one go for a call made alone). O(entries) per call, independent of the number
     * of processes. */
    sp_entry *e = NULL;
    int n =
        dmx_cache_match(ctx->comm, DMX_CACHE_DROPIN, key, sizeof key, ctx->match, ctx->match_cap);
    if (n < 0)
        fail(MPI_COMM_WORLD, 1, c->name, "the plan cache: %s", dmx_last_error());
    if (n > ctx->match_cap) {
        free(ctx->match);
        ctx->match_cap = n;
        ctx->match = dmxsp_xcalloc((size_t)n, sizeof(int), c->name);
        n = dmx_cache_match(ctx->comm, DMX_CACHE_DROPIN, key, sizeof key, ctx->match, n);
    }
    if (n > 0) {
        SP_MPI(c->name, MPI_Allreduce(MPI_IN_PLACE, ctx->match, n, MPI_INT, MPI_MIN, ctx->comm));
        for (int k = 0; k < n && e == NULL; k++)
            if (ctx->match[k])
                e = dmx_cache_take_nth(ctx->comm, DMX_CACHE_DROPIN, k); /* to the front */
    }
    if (e != NULL) {
        g_sp.stats.hits++;
        entry_execute(e, c, 1);
        return;
    }

    /* Miss: gather every process's key to validate the call and decode both grids. */
    SP_MPI(c->name, MPI_Allgather(key, KEY_LEN, MPI_INT, ctx->gkey, KEY_LEN, MPI_INT, ctx->comm));
    g_sp.stats.misses++;
    e = entry_create(ctx, c, 0);
    entry_execute(e, c, 0);
    keep(ctx, e, 1, key, KEY_LEN, c->name);
}

void dmxsp_stats(dmx_scalapack_stats *out)
{
    *out = g_sp.stats;
}

void dmxsp_count_gemm(void)
{
    g_sp.stats.calls++;
    g_sp.stats.gemm_calls++;
}

void dmxsp_count_gemm_handed(void)
{
    g_sp.stats.gemm_scalapack_calls++;
}
