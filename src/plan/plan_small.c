/* SPDX-License-Identifier: BSD-3-Clause */
/* Small plans: dmx_plan_create with one agreement when every rank exchanges few bytes.
 *
 * Algorithm: every rank checks its arguments (validate.c, no agreement) and, when both layouts
 * of every transform are known globally (block-cyclic, custom, views: the overlay gives the
 * pieces in closed form, no directory protocol), plans on its own: rank maps, the overlay, the
 * packages, and, if the bytes it sends plus receives to and from other ranks are at most
 * DMX_SMALL_BYTES and each package fits one message, the buffers of the small engine
 * (exec/engine_small.c, plain messages, no shared window). Then ONE reduction over the layouts'
 * communicator agrees on everything at once: the worst status, that all ranks passed the same
 * transforms (hash), that every rank's plan is small, and that the settings the cuts depend on
 * are equal, and which kept duplicate of the communicator the plan takes (plan_comm.c). All
 * agreed: take that duplicate and hand the plan out. Planned everywhere
 * but not small everywhere: the same packages go to the general engine (dmxi_exec_p2p, shared
 * window), so large plans are validated and planned once too. Not planned everywhere (layouts
 * known only locally, a local error) or the settings differ: the tentative plan is dropped and
 * dmx_plan_create takes its general path, which agrees step by step.
 *
 * One-shot calls (dmx_transform_once) skip even that reduction when no rank needs to hear of
 * another's failure and every rank can tell alone that the plan is small: DMX_PLAN_CHECK=local
 * (the default) and dmx's default error handler (which never returns: a rank whose check fails
 * ends the job), layouts known globally, and 2 x A's bytes <= DMX_ONCE_BYTES (a rank sends at
 * most op(B)'s bytes and receives at most A's; every rank computes the bound alike; the bound is
 * at least DMX_SMALL_BYTES, 16 MiB by default, so the mid-size calls of GEMR2D-style sequences
 * skip the agreement and the shared window too, and it bounds the small engine's buffers).
 * The plan
 * then runs on a duplicate of the communicator reserved for one-shot calls (plan_comm.c), and
 * is kept there for later one-shot calls, which take it back when their key matches (layout
 * ids and descriptions, window, dtype, op, trapezoid, cut settings; the scalars and the
 * layouts' arrays are read at execution). The plans are kept in the communicator's plan cache
 * (plan_cache.c), most recently used first, up to DMX_ONCE_KEEP (4) of them within
 * DMX_CACHE_BYTES, so calls that alternate between a few transforms (p?trmr2d's band and
 * triangle, a solver moving a matrix out and back) plan each once. A call with a new key makes
 * the cache let the least recently used plans go beyond those limits and reuses their engine
 * buffers when large enough (fresh pages of a
 * multi-MB buffer cost more than the copy: 1024^2 doubles, 2 x 2 grids, 8 ms against 1.3 ms).
 * What the reduction
 * carried is settled without it: the duplicate is made once, by every rank's first one-shot call on
 * the communicator; the settings must be equal on every rank (docs/settings.md); different
 * transforms on different ranks are not detected (docs/errors.md). A rank with no block of A or B
 * returns after its checks.
 *
 * Preconditions: as dmx_plan_create. Errors keep its promises (docs/errors.md): a rank returns
 * only after the agreement, with the worst status of any rank (the one-shot path: a failed
 * check calls the error handler).
 * Cost (collective on the first layout's communicator): one MPI_Iallreduce of 12 int64 values
 * (waited for with a bound, like dmxi_agree), an MPI_Comm_dup only when no kept duplicate is
 * free (DMX_COMM_CACHE); local work
 * O(rectangles) as the overlay. The one-shot path: no collective (MPI_Comm_dup on the first
 * call only); a repeated call (the key of a kept plan or of the last checked call) costs a
 * check of the settings' snapshot, a key compare and the execution: its arguments are not
 * checked again (the key holds what the checks depend on, except the arrays, checked for NULL),
 * nothing is allocated, hashed or asked of MPI (create_again). Memory: the piece lists and
 * the engine's buffers (the bytes exchanged, at most DMX_SMALL_BYTES per rank, DMX_ONCE_BYTES on
 * the one-shot path); the one-shot path keeps such plans in the communicator's plan cache
 * (up to DMX_ONCE_KEEP, their buffers and piece lists with the cache's other plans at most
 * DMX_CACHE_BYTES, or the newest one's alone) until the communicator is freed.
 */
#include "plan.h"

#include "choice.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

/* The settings a small plan depends on: the byte limit, the message limit and ring chunk as
 * dmx_plan_create sanitizes them, and whether one-shot checks are local (DMX_PLAN_CHECK=local,
 * the default). From the settings' snapshot (settings.c): a one-shot call that takes its kept
 * plan back costs ~100 ns in all, and a scan of a 90-variable environment alone ~50 ns. */
static void read_settings(int64_t *limit, int64_t *max_msg, int64_t *chunk, int *check_local,
                          int64_t *once_limit)
{
    const dmxi_setting_values *s = dmxi_setting_snapshot();
    const int64_t small = s->v[DMXI_SET_SMALL_BYTES], once = s->v[DMXI_SET_ONCE_BYTES];
    *limit = small;
    /* DMX_SMALL_BYTES=0 turns the one-shot path off too; it never bounds less than the small
     * limit */
    *once_limit = small > 0 ? (once > small ? once : small) : 0;
    *max_msg = s->v[DMXI_SET_MAX_MESSAGE_BYTES];
    *chunk = s->v[DMXI_SET_SHM_CHUNK_BYTES];
    if (*max_msg < 1 || *max_msg > INT_MAX)
        *max_msg = dmxi_setting_info(DMXI_SET_MAX_MESSAGE_BYTES)->dflt;
    if (*chunk < 64 || *chunk > ((int64_t)1 << 30))
        *chunk = dmxi_setting_info(DMXI_SET_SHM_CHUNK_BYTES)->dflt;
    const char *check = s->raw[DMXI_SET_PLAN_CHECK];
    *check_local = !check || strcmp(check, "local") == 0;
}

/* The small engine's bound on one rank: @p bytes sent plus received to and from other ranks,
 * @p biggest the most to or from one peer (one message each). */
static int small_fits(int64_t bytes, int64_t biggest, int64_t limit, int64_t max_msg)
{
    return bytes <= limit && biggest <= max_msg;
}

/* The one-shot path's bound (alone()): the total bytes of A, which bounds what any rank sends
 * plus receives to half of it. */
static int once_fits(int64_t total, int64_t once_limit, int64_t max_msg)
{
    return once_limit > 0 && total <= once_limit / 2 && total <= max_msg;
}

/* This rank's tentative plan on comm0 (borrowed as p->comm until the duplicate replaces it).
 * *small: it qualifies for the small engine, whose setup has then run. Local. */
static dmx_status build(int nt, const dmx_transform *tv, MPI_Comm comm0, int64_t max_msg,
                        int64_t chunk, int64_t limit, dmx_plan **out, int *small)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_piece_list send = {0}, recv = {0};
    dmxi_local_list loc = {0};
    dmxi_seg_list segs = {0};
    dmx_plan *p = calloc(1, sizeof *p);
    *small = 0;
    *out = NULL;
    DMXI_CHECK(p, DMX_ERR_ALLOC, "out of memory");
    dmxi_exec *e = &p->ex;
    dmxi_exec_init(e);
    p->comm = comm0;
    p->slot = -1;
    *out = p;
    DMXI_MPI(MPI_Comm_rank(comm0, &p->rank));
    DMXI_MPI(MPI_Comm_size(comm0, &p->size));
    p->nt = nt;
    p->xf = calloc((size_t)nt, sizeof *p->xf);
    DMXI_CHECK(p->xf, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < nt; k++) {
        p->xf[k].t = tv[k];
        dmxi_xform_checked(&p->xf[k]); /* the caller checked tv */
        p->xf[k].esize = dmx_dtype_size(tv[k].dtype);
        DMXI_TRY(dmxi_plan_rank_map(p, tv[k].a->d->comm, &p->xf[k].amap));
        DMXI_TRY(dmxi_plan_rank_map(p, tv[k].b->d->comm, &p->xf[k].bmap));
    }
    e->rank = p->rank;
    e->size = p->size;
    e->nt = nt;
    e->xf = p->xf;
    e->max_msg = max_msg;
    e->chunk_bytes = chunk;
    for (int t = 0; t < nt; t++)
        DMXI_TRY(dmxi_overlay_transform(p, t, &recv, &loc, &send, &segs));
    DMXI_TRY(dmxi_packages_make(p->xf, &send, &recv, e));
    e->send = send.v, e->nsend = send.n, send.v = NULL;
    e->recv = recv.v, e->nrecv = recv.n, recv.v = NULL;
    e->local = loc.v, e->nlocal = loc.n, loc.v = NULL;
    e->seg = segs.v, e->nseg = segs.n, segs.v = NULL;
    dmxi_packages_sort_local(e->local, e->nlocal);

    int64_t bytes = 0, biggest = 0;
    for (int side = 0; side < 2; side++) {
        const dmxi_peer *pv = side ? e->rpeer : e->speer;
        for (int i = 0; i < (side ? e->nrpeer : e->nspeer); i++) {
            DMXI_TRY(dmxi_add64(bytes, pv[i].bytes, &bytes));
            biggest = pv[i].bytes > biggest ? pv[i].bytes : biggest;
        }
    }
    if (!small_fits(bytes, biggest, limit, max_msg))
        goto cleanup; /* planned, not small: kept for the general engine */
    e->ops = &dmxi_exec_small;
    DMXI_TRY(e->ops->setup(e));
    DMXI_TRY(dmxi_plan_info_fill(p));
    *small = 1;
cleanup:
    free(send.v);
    free(recv.v);
    free(loc.v);
    free(segs.v);
    return st;
}

/* Run a plan this file made on the general engine (dmxi_exec_p2p), as dmx_plan_create's
 * general path ends: the packages are the ones it would make (same overlay, same agreed cut
 * settings), so neither the validation nor the planning is repeated. Collective on p->comm. */
static dmx_status finish_general(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_exec *e = &p->ex;
    if (e->ops) /* this rank's own part was small: release the small engine's buffers */
        (void)e->ops->free(e);
    /* the engine's setup starts from an object whose engine fields are empty */
    e->ops = NULL;
    e->sbytes = e->rbytes = e->shm_bytes = e->buffer_bytes = 0;
    e->nsreq = e->nrreq = 0;
    e->shm = e->npeers_shm = 0;
    memset(&p->info, 0, sizeof p->info);
    e->ops = &dmxi_exec_p2p;
    DMXI_TRY(e->ops->setup(e));
    DMXI_TRY(dmxi_agree(p->comm, dmxi_plan_info_fill(p)));
cleanup:
    return st;
}

/* Drop a plan that is not handed out: before the duplicate its communicator is the caller's
 * comm0 (not ours to free) and nothing in it is collective (the small engine's setup is local);
 * after a failed finish_general every rank destroys it alike. */
static void drop(dmx_plan **p, MPI_Comm comm0)
{
    if (*p == NULL)
        return;
    if ((*p)->comm == comm0)
        (*p)->comm = MPI_COMM_NULL;
    dmx_plan_destroy(p);
}

/* Whether every rank can make this one-shot plan alone: both layouts of every transform known
 * globally, and a bound every rank computes alike from the (checked) arguments shows the plan
 * is small on every rank: a rank sends at most op(B)'s bytes and receives at most A's, so
 * 2 x (A's bytes) <= DMX_SMALL_BYTES and A's bytes <= the message limit suffice. Local; the
 * same answer on every rank when the arguments and settings are equal. */
static int alone(int nt, const dmx_transform *tv, int64_t limit, int64_t max_msg)
{
    int64_t total = 0;
    for (int t = 0; t < nt; t++) {
        const dmx_layout *a = tv[t].a;
        int64_t bytes = 0;
        if (a->d->local_only || tv[t].b->d->local_only)
            return 0;
        if (dmxi_mul64(a->m, a->n, &bytes) != DMX_SUCCESS ||
            dmxi_mul64(bytes, (int64_t)dmx_dtype_size(tv[t].dtype), &bytes) != DMX_SUCCESS ||
            dmxi_add64(total, bytes, &total) != DMX_SUCCESS)
            return 0;
    }
    return once_fits(total, limit, max_msg);
}

/* The key of a one-shot call: what its plan depends on besides the scalars (the layouts by
 * id, which no two layouts share, and by description, which clones of one template share with
 * their id; the window; the settings that cut the packages). Each value has its own bits, so
 * equal keys mean equal values (an invalid dtype or op never matches a valid call's key).
 * Local. */
static void once_key(const dmx_transform *t, int64_t max_msg, int64_t chunk, int64_t limit,
                     int64_t key[DMXI_ONCE_KEY])
{
    const int64_t k[DMXI_ONCE_KEY] = {(int64_t)(uint32_t)t->dtype | (int64_t)(uint32_t)t->op << 32,
                                      (int64_t)(unsigned char)t->uplo |
                                          (int64_t)(unsigned char)t->diag << 8,
                                      t->a->id,
                                      t->b->id,
                                      (int64_t)(intptr_t)t->a->d,
                                      (int64_t)(intptr_t)t->b->d,
                                      t->a->i0,
                                      t->a->j0,
                                      t->a->m,
                                      t->a->n,
                                      t->b->i0,
                                      t->b->j0,
                                      t->b->m,
                                      t->b->n,
                                      max_msg,
                                      chunk,
                                      limit};
    memcpy(key, k, sizeof k);
}

/* Equal keys (a loop the compiler turns into a few vector compares; memcmp is a call). */
static int key_equal(const int64_t *x, const int64_t *y)
{
    int64_t d = 0;
    for (int k = 0; k < DMXI_ONCE_KEY; k++)
        d |= x[k] ^ y[k];
    return d == 0;
}

/* A layout's memory check of validate.c: the one argument a call with the key of an earlier,
 * checked call may have changed (dmx_layout_rebind). */
static int has_memory(const dmx_layout *L)
{
    return !L->d->cyclic || L->nlocal == 0 || L->m == 0 || L->n == 0 || L->base;
}

/* The one-shot plans kept in comm's plan cache (plan_cache.c), or NULL. Local. */
static dmxi_cache *kept_cache(MPI_Comm comm)
{
    dmxi_cache *c = NULL;
    if (dmxi_cache_get(comm, 0, &c) != DMX_SUCCESS) {
        c = NULL;
        dmxi_error_clear(); /* the full path meets the failure again and reports it */
    }
    return c;
}

/* Take the kept plan with this key back for a call of transform t, which has its key: the same
 * transform, only the scalars may differ. os is busy until the call finishes. Local. */
static dmx_plan *kept_take(dmxi_cache *c, dmxi_once_state *os, const int64_t *key,
                           const dmx_transform *t)
{
    dmx_plan *p = dmxi_cache_take(c, DMXI_CACHE_ONCE, key, DMXI_ONCE_KEY * sizeof *key);
    os->busy = 1;
    os->hits++;
    p->xf[0].t = *t;
    return p;
}

/* The memory a kept plan holds: the engine's buffers (at their capacity) and the piece lists. */
static int64_t kept_bytes(const dmx_plan *p)
{
    return p->ex.buffer_bytes + p->info.plan_bytes;
}

/* A kept plan's free function in the cache. */
static int kept_free(void *obj)
{
    dmx_plan *p = obj;
    return dmx_plan_destroy(&p) != DMX_SUCCESS;
}

/* How many one-shot plans a communicator keeps (DMX_ONCE_KEEP, at most DMXI_ONCE_KEEP_MAX). */
static int keep_count(void)
{
    const int64_t k = dmxi_setting_snapshot()->v[DMXI_SET_ONCE_KEEP];
    return k < DMXI_ONCE_KEEP_MAX ? (int)k : DMXI_ONCE_KEEP_MAX;
}

/* A new plan (its engine's buffers just allocated, not yet touched) taking the buffers of the
 * kept plans the cache evicts to make room for it: the first evicted plan whose send (receive)
 * buffer is large enough gives it to the taker instead of freeing it. */
typedef struct taker {
    dmx_plan *p;
    int sgot, rgot; /* a buffer was taken over */
} taker;

static void take_buffers(void *ctx, void *obj)
{
    taker *t = ctx;
    dmx_plan *v = obj;
    dmxi_exec *e = &t->p->ex, *o = &v->ex;
    if (v->slot != DMXI_SLOT_ONCE)
        return; /* not a one-shot plan */
    if (!t->sgot && e->sbytes > 0 && v->scap >= e->sbytes) {
        free(e->sbuf);
        e->sbuf = o->sbuf, t->p->scap = v->scap, o->sbuf = NULL, t->sgot = 1;
    }
    if (!t->rgot && e->rbytes > 0 && v->rcap >= e->rbytes) {
        free(e->rbuf);
        e->rbuf = o->rbuf, t->p->rcap = v->rcap, o->rbuf = NULL, t->rgot = 1;
    }
}

/* Give buffer *buf (capacity *cap, need bytes needed) the one of *mbuf (capacity *mcap) when that
 * is large enough, *mbuf taking *buf in exchange, or a new one of mneed bytes when *buf is
 * smaller (nothing changes if that allocation fails). Local. */
static void swap_buffer(char **buf, int64_t *cap, int64_t need, char **mbuf, int64_t *mcap,
                        int64_t mneed)
{
    if (need == 0 || *mcap < need)
        return;
    char *b = *buf;
    int64_t c = *cap;
    if (c < mneed) {
        char *nb = dmxi_malloc(mneed, 1);
        if (!nb)
            return;
        free(b);
        b = nb, c = mneed;
    }
    *buf = *mbuf, *cap = *mcap;
    *mbuf = b, *mcap = c;
}

/* Make room in comm's cache for new plan p (its engine's buffers just allocated, not yet
 * touched) before it is kept: the cache evicts the least recently used plans beyond
 * DMX_ONCE_KEEP - 1 or beyond DMX_CACHE_BYTES with p's; an evicted plan's small-engine buffers
 * serve p when large enough. Then p swaps buffers with the most recently used kept plan when
 * that one's are large enough: the last call touched them, so they are mapped and likely in
 * cache. A call of a new shape thus writes warm pages instead of faulting fresh ones in (fresh
 * pages of a multi-MB buffer cost more than the copy: 1024^2 doubles, 2 x 2 grids, 8 ms against
 * 1.3 ms), and the kept plan faults its new buffers in only if it runs again. Local. */
static dmx_status kept_make_room(dmxi_cache *c, dmx_plan *p)
{
    dmxi_exec *e = &p->ex;
    p->scap = e->sbytes, p->rcap = e->rbytes;
    taker tk = {p, 0, 0};
    const dmx_status st =
        dmxi_cache_make_room(c, DMXI_CACHE_ONCE, 0, keep_count(), kept_bytes(p), take_buffers, &tk);
    dmx_plan *m = dmxi_cache_front(c, DMXI_CACHE_ONCE);
    if (m) {
        swap_buffer(&e->sbuf, &p->scap, e->sbytes, &m->ex.sbuf, &m->scap, m->ex.sbytes);
        swap_buffer(&e->rbuf, &p->rcap, e->rbytes, &m->ex.rbuf, &m->rcap, m->ex.rbytes);
        m->ex.buffer_bytes = m->info.buffer_bytes = m->scap + m->rcap;
        dmxi_cache_set_bytes(c, m, kept_bytes(m));
    }
    e->buffer_bytes = p->info.buffer_bytes = p->scap + p->rcap;
    return st;
}

/* A one-shot call (nt = 1, settings and handler allowing the path) with the key of a plan kept
 * on its communicator, or of the last call there whose checks passed: those checks, the bound of
 * alone() and the plan depend only on what the key holds (the layouts' descriptions and windows,
 * dtype, op, trapezoid, the cut settings), except the arrays, checked again. So: no check, no
 * planning; that kept plan is taken back (*out), or *out = NULL on a rank with no block of A or
 * B. *hit = 0 (nothing changed): anything else, the full path. Local, no MPI call; no allocation.
 */
static void create_again(const dmx_transform *t, int64_t max_msg, int64_t chunk, int64_t limit,
                         dmx_plan **out, int *hit)
{
    *hit = 0;
    if (!t->a || !t->b || !out)
        return;
    dmxi_once_state *os = dmxi_plan_comm_once_peek(t->a->d->comm);
    if (!os)
        return;
    int64_t key[DMXI_ONCE_KEY];
    once_key(t, max_msg, chunk, limit, key);
    dmxi_cache *c = kept_cache(t->a->d->comm);
    const int kept = dmxi_cache_has(c, DMXI_CACHE_ONCE, key, sizeof key);
    if (!kept && !(os->checked && key_equal(os->key, key)))
        return;
    if (!has_memory(t->a) || !has_memory(t->b))
        return; /* the full path reports it */
    if (t->a->nlocal == 0 && t->b->nlocal == 0) {
        *out = NULL; /* nothing to send, receive or copy here */
        *hit = 1;
    } else if (kept && !os->busy) { /* busy: the full path reports the overlap */
        *out = kept_take(c, os, key, t);
        *hit = 1;
    }
}

/* The one-shot path with no agreement: plan alone, on the one-shot duplicate (plan_comm.c), or
 * take back a plan an earlier one-shot call kept with this call's key; a rank with no block of A
 * or B makes no plan (*out = NULL). Records the key as checked (the caller checked the
 * arguments). A failure on this rank calls the (default, aborting) error handler. Local, except
 * MPI_Comm_dup on comm0's first one-shot call. */
static dmx_status create_alone(const dmx_transform *tv, MPI_Comm comm0, int64_t max_msg,
                               int64_t chunk, int64_t limit, dmx_plan **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_plan *p = NULL;
    dmxi_comm_pool *pool = NULL;
    dmxi_once_state *os = NULL;
    int small = 0;
    int64_t key[DMXI_ONCE_KEY];
    *out = NULL;
    once_key(tv, max_msg, chunk, limit, key);
    /* every rank takes part in making the one-shot duplicate on the first call */
    st = dmxi_plan_comm_once_state(comm0, &pool, &os);
    if (st == DMX_SUCCESS) {
        memcpy(os->key, key, sizeof key);
        os->checked = 1;
    }
    if (st == DMX_SUCCESS && tv->a->nlocal == 0 && tv->b->nlocal == 0)
        return st; /* nothing to send, receive or copy here */
    if (st == DMX_SUCCESS && os->busy)
        st = dmxi_error(DMX_ERR_STATE, __FILE__, __LINE__,
                        "a one-shot call on this communicator is already running (one-shot calls "
                        "on one communicator must not overlap, as any collective)");
    dmxi_cache *c = NULL;
    if (st == DMX_SUCCESS)
        st = dmxi_cache_get(comm0, 1, &c);
    if (st == DMX_SUCCESS) {
        if (dmxi_cache_has(c, DMXI_CACHE_ONCE, key, sizeof key)) {
            *out = kept_take(c, os, key, tv);
            return st;
        }
        st = build(1, tv, comm0, max_msg, chunk, limit, &p, &small);
        os->made += st == DMX_SUCCESS;
    }
    if (st == DMX_SUCCESS && !small)
        st = dmxi_error(DMX_ERR_INTERNAL, __FILE__, __LINE__,
                        "a one-shot plan within the small bound is not small on this rank");
    if (st == DMX_SUCCESS)
        st = kept_make_room(c, p);
    if (st == DMX_SUCCESS) {
        p->comm = MPI_COMM_NULL;
        st = dmxi_plan_comm_once_take(pool, &p->comm, &p->slot);
        p->pool = st == DMX_SUCCESS ? pool : NULL;
        p->ex.comm = p->comm;
        memcpy(p->key, key, sizeof key);
    }
    if (st != DMX_SUCCESS) {
        drop(&p, comm0);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", dmx_last_error());
        return dmxi_fatal(st, __FILE__, __LINE__, "one-shot plan on this rank: %s", msg);
    }
    *out = p;
    return st;
}

dmx_status dmxi_plan_once_finish(dmx_plan **p, dmx_status st)
{
    dmx_plan *q = *p;
    dmxi_once_state *os = q && q->slot == DMXI_SLOT_ONCE ? dmxi_plan_comm_once_kept(q->pool) : NULL;
    if (!os)
        return dmx_plan_destroy(p);
    os->busy = 0;
    const int n = keep_count();
    /* the cache of the layouts' communicator, which holds the pool (alive: the call's layouts) */
    dmxi_cache *c = kept_cache(q->xf[0].t.a->d->comm);
    if (st == DMX_SUCCESS && !q->ex.broken && n > 0 && c) {
        /* room for it (kept_make_room made it, unless the settings changed since); the newest
         * plan always stays */
        dmx_status st2 = dmxi_cache_make_room(c, DMXI_CACHE_ONCE, 0, n, kept_bytes(q), NULL, NULL);
        if (st2 == DMX_SUCCESS)
            st2 = dmxi_cache_add(c, DMXI_CACHE_ONCE, 0, q->key, sizeof q->key, q, kept_bytes(q),
                                 kept_free);
        if (st2 == DMX_SUCCESS) {
            *p = NULL;
            return st2;
        }
        dmx_status st3 = dmx_plan_destroy(p);
        return st2 == DMX_SUCCESS ? st3 : st2;
    }
    /* A broken plan frees the duplicate the kept plans share: they go first; with DMX_ONCE_KEEP=0
     * none stays either. */
    dmx_status st2 = q->ex.broken || n == 0
                         ? dmxi_cache_make_room(c, DMXI_CACHE_ONCE, 0, 0, 0, NULL, NULL)
                         : DMX_SUCCESS;
    dmx_status st3 = dmx_plan_destroy(p);
    return st2 == DMX_SUCCESS ? st3 : st2;
}

dmx_status dmxi_plan_create_small(int nt, const dmx_transform *tv, int once, dmx_plan **out,
                                  int *done)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    MPI_Comm comm0 = MPI_COMM_NULL;
    uint64_t h = 0;
    dmx_plan *p = NULL;
    *done = 1;
    int64_t max_msg = 0, chunk = 0, limit = 0, once_limit = 0;
    int check_local = 0;
    read_settings(&limit, &max_msg, &chunk, &check_local, &once_limit);
    /* DMX_PLAN_CHECK=local and the default error handler: a one-shot call's failed check
     * cannot return, so no rank needs to hear of it */
    if (once && check_local && dmxi_error_handler_is_default()) {
        if (nt == 1 && tv && out) { /* the call before had the same key: no check, no plan */
            int hit = 0;
            create_again(tv, max_msg, chunk, once_limit, out, &hit);
            if (hit)
                return DMX_SUCCESS;
        }
        /* No rank waits for this one's verdict: a failed check ends here, in the handler
         * (which does not return); the hash is needed only if the plan is agreed below. */
        DMXI_TRY(dmxi_transforms_check(nt, tv, 1, &comm0, NULL, &local));
        if (local == DMX_SUCCESS && !out)
            local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL");
        if (local != DMX_SUCCESS) {
            return dmxi_fatal_recorded(local);
        }
        if (nt == 1 && alone(nt, tv, once_limit, max_msg))
            return create_alone(tv, comm0, max_msg, chunk, once_limit, out);
        if (tv->a->d->unagreed || tv->b->d->unagreed) /* made alone: no agreement to fall to */
            return dmxi_fatal(DMX_ERR_UNSUPPORTED, __FILE__, __LINE__,
                              "a one-shot call on layouts of "
                              "dmx_layout_create_block_cyclic_unagreed is not small enough to make "
                              "no agreement (dmx_transform_once_is_local)");
    }
    /* no communicator on this rank: the error handler, as dmxi_transforms_validate */
    DMXI_TRY(dmxi_transforms_check(nt, tv, 1, &comm0, &h, &local));
    if (local == DMX_SUCCESS && !out)
        local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL");
    int small = 0;
    if (local == DMX_SUCCESS && limit > 0) {
        int global = 1;
        for (int t = 0; t < nt; t++)
            global &= !tv[t].a->d->local_only && !tv[t].b->d->local_only;
        if (global)
            local = build(nt, tv, comm0, max_msg, chunk, limit, &p, &small);
    }
    /* The plan's private duplicate: this rank's choice of a kept one (plan_comm.c). */
    dmxi_comm_pool *pool = NULL;
    int64_t choice = -1;
    if (local == DMX_SUCCESS && p)
        local = dmxi_plan_comm_choose(comm0, &pool, &choice);
    /* One reduction (MIN): status, hash equal everywhere, all small, all planned, settings
     * equal, the same kept duplicate chosen everywhere. */
    int64_t v[12] = {(int64_t)h, (int64_t)~h, small,  max_msg,   -max_msg, chunk,
                     -chunk,     limit,       -limit, p != NULL, choice,   -choice};
    DMXI_TRY(dmxi_agree_min(comm0, local, v, 12));
    if (v[0] != (int64_t)h || ~v[1] != (int64_t)h)
        DMXI_FAIL(DMX_ERR_ARG, "ranks passed different transforms (dtype, op, scalars, layouts or "
                               "windows)");
    if (!v[9] || v[3] != -v[4] || v[5] != -v[6] || v[7] != -v[8]) {
        *done = 0; /* not planned everywhere, or cut settings differ: the general path */
        goto cleanup;
    }
    p->comm = MPI_COMM_NULL;
    DMXI_TRY(
        dmxi_plan_comm_take(comm0, pool, choice, v[10] == -v[11], &p->comm, &p->pool, &p->slot));
    p->ex.comm = p->comm;
    if (!v[2]) /* planned everywhere, not small everywhere: the general engine on this plan */
        DMXI_TRY(finish_general(p));
    *out = p;
    p = NULL;
cleanup:
    drop(&p, comm0);
    return st;
}

int dmx_transform_once_is_local(dmx_dtype dtype, int64_t m, int64_t n)
{
    int64_t limit = 0, max_msg = 0, chunk = 0, bytes = 0, once_limit = 0;
    int check_local = 0;
    if (m < 0 || n < 0 || dmx_dtype_size(dtype) == 0)
        return 0;
    read_settings(&limit, &max_msg, &chunk, &check_local, &once_limit);
    if (!check_local || !dmxi_error_handler_is_default() ||
        dmxi_mul64(m, n, &bytes) != DMX_SUCCESS ||
        dmxi_mul64(bytes, (int64_t)dmx_dtype_size(dtype), &bytes) != DMX_SUCCESS)
        return 0;
    return once_fits(bytes, once_limit, max_msg); /* the bound of alone() */
}

/* ---- the choice explained (dmx model redist) --------------------------------------------- */

/* The one-shot candidate: whether it is taken, and why (not). */
static int explain_once(dmx_choice *c, int once, int64_t abytes, int64_t once_limit,
                        int64_t max_msg, int check_local)
{
    int ok = once && check_local && dmxi_error_handler_is_default() &&
             once_fits(abytes, once_limit, max_msg);
    const char *why = !once                                    ? "only dmx_transform_once calls"
                      : !check_local                           ? "DMX_PLAN_CHECK is not local"
                      : !dmxi_error_handler_is_default()       ? "a user error handler is set"
                      : once_fits(abytes, once_limit, max_msg) ? "within the bounds"
                                                               : "A too large for the bound";
    dmxi_choice_add(c, "once-alone", NAN, ok,
                    "%s: rule 2 x A's bytes (%lld) <= %lld and A's bytes <= %lld; no agreement",
                    why, (long long)(2 * abytes), (long long)once_limit, (long long)max_msg);
    return ok;
}

dmx_status dmx_transform_explain(dmx_dtype dtype, int64_t m, int64_t n, int once,
                                 int64_t rank_bytes, int64_t peer_bytes, dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    int64_t limit = 0, max_msg = 0, chunk = 0, once_limit = 0, abytes = 0;
    int check_local = 0;
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0 && m >= 0 && n >= 0, DMX_ERR_ARG,
               "invalid dtype or size");
    DMXI_TRY(dmxi_mul64(m, n, &abytes));
    DMXI_TRY(dmxi_mul64(abytes, (int64_t)dmx_dtype_size(dtype), &abytes));
    read_settings(&limit, &max_msg, &chunk, &check_local, &once_limit);
    /* unknown volumes: a rank sends at most op(B)'s bytes and receives at most A's */
    int bound = rank_bytes < 0 || peer_bytes < 0;
    if (rank_bytes < 0)
        rank_bytes = 2 * abytes;
    if (peer_bytes < 0)
        peer_bytes = abytes;
    dmxi_choice_init(out, "redist",
                     "m=%lld n=%lld dtype-bytes=%d once=%d rank-bytes=%lld%s peer-bytes=%lld",
                     (long long)m, (long long)n, (int)dmx_dtype_size(dtype), once != 0,
                     (long long)rank_bytes, bound ? " (bound)" : "", (long long)peer_bytes);
    int alone_ok = explain_once(out, once, abytes, once_limit, max_msg, check_local);
    int small_ok = limit > 0 && small_fits(rank_bytes, peer_bytes, limit, max_msg);
    dmxi_choice_add(out, "small", NAN, small_ok,
                    "rule: every rank's bytes <= DMX_SMALL_BYTES (%lld), each peer's <= %lld; "
                    "one agreement, plain messages",
                    (long long)limit, (long long)max_msg);
    dmxi_choice_add(out, "general", NAN, 1,
                    "otherwise: agreement step by step, shared window on a node");
    if (alone_ok)
        dmxi_choice_pick(out, 0, "rule: every rank can tell alone that the plan is small");
    else if (small_ok)
        dmxi_choice_pick(out, 1, "rule: %lld bytes per rank <= %lld%s", (long long)rank_bytes,
                         (long long)limit, bound ? " (from the bound 2 x A's bytes)" : "");
    else
        dmxi_choice_pick(out, 2, "rule: %s%s",
                         limit <= 0           ? "DMX_SMALL_BYTES=0"
                         : rank_bytes > limit ? "some rank exchanges more than DMX_SMALL_BYTES"
                                              : "a package is above the message limit",
                         bound && limit > 0 ? " by the bound 2 x A's bytes; the volumes may fit"
                                            : "");
cleanup:
    return st;
}
