/* SPDX-License-Identifier: BSD-3-Clause */
/* The plan cache: the plans dmx keeps between calls, one cache per communicator, under one
 * memory budget (DMX_CACHE_BYTES).
 *
 * Who keeps what here: dmx_transform_once's one-shot plans (plan_small.c; key: the layouts' ids
 * and descriptions, window, dtype, op, trapezoid, cut settings) and libdmx_scalapack's calls
 * (its key: the call's descriptors, indices, sizes and routine; the entry holds the layouts and
 * the plan, agreed or made alone), its p?gemm_ plans and their grids (agreed). The cache holds
 * opaque objects with their key bytes, a kind (which caller's key space) and the bytes they hold;
 * it never looks inside: the caller gives the function that frees an object, so this file calls
 * nothing of the plan module.
 *
 * Entries are local or agreed. A local entry (a one-shot plan, a drop-in call made alone) is
 * made and destroyed by one rank alone, whenever that rank decides. An agreed entry (a drop-in
 * plan made collectively) is destroyed collectively: every rank of the communicator holds the
 * same agreed entries in the same order and counts each with the same bytes (the largest
 * rank's), and evicts one only at a call that every rank makes (dmxi_cache_make_room with
 * agreed = 1), from the same list: so every rank evicts the same agreed entries at the same
 * call. Local entries never push an agreed one out.
 *
 * The budget: every rank keeps at most DMX_CACHE_BYTES of plans per communicator. Making room
 * for a new entry of b bytes destroys the least recently used entries of its kind beyond the
 * kind's count limit (the test overrides DMX_ONCE_KEEP, DMX_SCALAPACK_CACHE), then least
 * recently used local entries while the total plus b is over the budget, then (agreed
 * callers only) least recently used agreed entries while the agreed total plus b is over it.
 * The newest entry always stays, even alone over the budget. A pinned entry (dmxi_cache_pin: its
 * caller is running the object, and what it runs may make room in this cache) is passed by
 * until it is unpinned; the list and the counts stay as they are, nothing is allocated.
 *
 * Freed: at MPI_Comm_free of the communicator (the registry's slot DMXI_SLOT_CACHE, detached
 * before the plan pool, whose duplicates the kept plans run on) or at MPI_Finalize, oldest entry
 * first (agreed entries were made in the same order everywhere, so their collective frees
 * match).
 *
 * Cost: a lookup walks the communicator's entries (a handful) comparing key bytes; no MPI call.
 */
#include "plan.h"

#include "comm.h"
#include "dmx/expert.h"

#include <string.h>

typedef struct entry {
    struct entry *next; /* most recently used first */
    uint64_t serial;    /* creation order, for the teardown */
    int kind, agreed;
    int pins;      /* callers running the object now: eviction passes it by */
    int64_t bytes; /* counted against the budget (the largest rank's for an agreed entry) */
    void *obj;
    dmxi_cache_free_fn free_fn;
    size_t len;
    unsigned char key[]; /* len bytes */
} entry;

struct dmxi_cache {
    entry *head;
    int64_t local_bytes, agreed_bytes;
    int count[DMXI_CACHE_KINDS];
    uint64_t serial;
    int64_t evictions;
};

static int64_t all_bytes; /* over every cache of this process, for tests and reports */

/* Take e out of c's counts and free it (the caller's function frees the object); the caller
 * has taken it off the list. */
static int release(dmxi_cache *c, entry *e)
{
    c->count[e->kind]--;
    if (e->agreed)
        c->agreed_bytes -= e->bytes;
    else
        c->local_bytes -= e->bytes;
    all_bytes -= e->bytes;
    int rc = e->free_fn ? e->free_fn(e->obj) : 0;
    free(e);
    return rc;
}

/* Remove *link's entry from c and free it. */
static int unlink_free(dmxi_cache *c, entry **link)
{
    entry *e = *link;
    *link = e->next;
    return release(c, e);
}

static int cmp_serial(const void *x, const void *y)
{
    const entry *a = *(entry *const *)x, *b = *(entry *const *)y;
    return (a->serial > b->serial) - (a->serial < b->serial);
}

/* Detach (the communicator is freed, or MPI_Finalize; collective): free every entry, oldest
 * first, so the agreed ones are freed in the same order on every rank. */
static int cache_detach(void *state)
{
    dmxi_cache *c = state;
    int n = 0, rc = 0;
    for (entry *e = c->head; e; e = e->next)
        n++;
    entry **all = calloc((size_t)(n > 0 ? n : 1), sizeof *all);
    if (!all) { /* no memory for the order: free them as they come */
        while (c->head)
            rc |= unlink_free(c, &c->head);
        return rc ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    int k = 0;
    for (entry *e = c->head; e; e = e->next)
        all[k++] = e;
    qsort(all, (size_t)n, sizeof *all, cmp_serial);
    c->head = NULL; /* every entry goes: no list to keep */
    for (int i = 0; i < n; i++)
        rc |= release(c, all[i]);
    free(all);
    return rc ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static const dmxi_slot_type cache_type = {cache_detach, NULL};

dmx_status dmxi_cache_get(MPI_Comm comm, int make, dmxi_cache **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *rec = NULL;
    *out = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    if (!dmxi_comm_attached(rec))
        goto cleanup;
    if ((*out = dmxi_comm_slot(rec, DMXI_SLOT_CACHE)) != NULL || !make)
        goto cleanup;
    dmxi_cache *c = calloc(1, sizeof *c);
    DMXI_CHECK(c, DMX_ERR_ALLOC, "out of memory (plan cache)");
    st = dmxi_comm_set_slot(rec, DMXI_SLOT_CACHE, &cache_type, c);
    if (st != DMX_SUCCESS) {
        free(c);
        goto cleanup;
    }
    *out = c;
cleanup:
    return st;
}

/* The link to the entry of kind with this key, or NULL. */
static entry **find(dmxi_cache *c, int kind, const void *key, size_t len)
{
    for (entry **link = &c->head; *link; link = &(*link)->next) {
        const entry *e = *link;
        if (e->kind == kind && e->len == len && memcmp(e->key, key, len) == 0)
            return link;
    }
    return NULL;
}

void *dmxi_cache_find(dmxi_cache *c, int kind, const void *key, size_t len)
{
    entry **link = c ? find(c, kind, key, len) : NULL;
    if (!link)
        return NULL;
    entry *e = *link; /* to the front */
    *link = e->next;
    e->next = c->head;
    c->head = e;
    return e->obj;
}

int dmxi_cache_has(const dmxi_cache *c, int kind, const void *key, size_t len)
{
    return c && find((dmxi_cache *)c, kind, key, len) != NULL;
}

void *dmxi_cache_take(dmxi_cache *c, int kind, const void *key, size_t len)
{
    entry **link = c ? find(c, kind, key, len) : NULL;
    if (!link)
        return NULL;
    entry *e = *link;
    void *obj = e->obj;
    e->free_fn = NULL; /* the caller has it now */
    (void)unlink_free(c, link);
    return obj;
}

void *dmxi_cache_pin(dmxi_cache *c, int kind, const void *key, size_t len)
{
    void *obj = dmxi_cache_find(c, kind, key, len);
    if (obj)
        c->head->pins++; /* find moved it to the front */
    return obj;
}

void dmxi_cache_unpin(dmxi_cache *c, const void *obj)
{
    for (entry *e = c ? c->head : NULL; e; e = e->next)
        if (e->obj == obj && e->pins > 0) {
            e->pins--;
            return;
        }
}

void *dmxi_cache_front(const dmxi_cache *c, int kind)
{
    for (const entry *e = c ? c->head : NULL; e; e = e->next)
        if (e->kind == kind)
            return e->obj;
    return NULL;
}

/* The link to the least recently used unpinned entry that matches (kind < 0: any kind). */
static entry **last(dmxi_cache *c, int kind, int agreed)
{
    entry **found = NULL;
    for (entry **link = &c->head; *link; link = &(*link)->next)
        if ((kind < 0 || (*link)->kind == kind) && (*link)->agreed == agreed && !(*link)->pins)
            found = link;
    return found;
}

/* Evict *link's entry: the caller's hook sees it first (it may take the object's buffers). */
static int evict(dmxi_cache *c, entry **link, dmxi_cache_evict_fn hook, void *ctx)
{
    if (hook)
        hook(ctx, (*link)->obj);
    c->evictions++;
    return unlink_free(c, link);
}

dmx_status dmxi_cache_make_room(dmxi_cache *c, int kind, int agreed, int max_count, int64_t bytes,
                                dmxi_cache_evict_fn hook, void *ctx)
{
    int rc = 0;
    if (!c)
        return DMX_SUCCESS;
    const int64_t budget = dmxi_setting_snapshot()->v[DMXI_SET_CACHE_BYTES];
    entry **link;
    /* the kind's count limit: its entries are all local or all agreed */
    while (c->count[kind] > 0 && c->count[kind] >= max_count && (link = last(c, kind, agreed)))
        rc |= evict(c, link, hook, ctx);
    while (c->local_bytes + c->agreed_bytes + bytes > budget && (link = last(c, -1, 0)))
        rc |= evict(c, link, hook, ctx);
    while (agreed && c->agreed_bytes + bytes > budget && (link = last(c, -1, 1)))
        rc |= evict(c, link, hook, ctx);
    return rc ? dmxi_error(DMX_ERR_MPI, __FILE__, __LINE__, "freeing a cached plan failed")
              : DMX_SUCCESS;
}

dmx_status dmxi_cache_add(dmxi_cache *c, int kind, int agreed, const void *key, size_t len,
                          void *obj, int64_t bytes, dmxi_cache_free_fn free_fn)
{
    dmx_status st = DMX_SUCCESS;
    entry *e = malloc(sizeof *e + len);
    DMXI_CHECK(e, DMX_ERR_ALLOC, "out of memory (plan cache)");
    e->serial = c->serial++;
    e->kind = kind;
    e->agreed = agreed;
    e->pins = 0;
    e->bytes = bytes;
    e->obj = obj;
    e->free_fn = free_fn;
    e->len = len;
    memcpy(e->key, key, len);
    e->next = c->head;
    c->head = e;
    c->count[kind]++;
    if (agreed)
        c->agreed_bytes += bytes;
    else
        c->local_bytes += bytes;
    all_bytes += bytes;
cleanup:
    return st;
}

void dmxi_cache_set_bytes(dmxi_cache *c, const void *obj, int64_t bytes)
{
    for (entry *e = c ? c->head : NULL; e; e = e->next)
        if (e->obj == obj && !e->agreed) {
            c->local_bytes += bytes - e->bytes;
            all_bytes += bytes - e->bytes;
            e->bytes = bytes;
            return;
        }
}

int dmxi_cache_list(const dmxi_cache *c, int kind, void **objs, int max)
{
    int n = 0;
    for (const entry *e = c ? c->head : NULL; e; e = e->next)
        if (e->kind == kind) {
            if (n < max)
                objs[n] = e->obj;
            n++;
        }
    return n;
}

int dmxi_cache_match(const dmxi_cache *c, int kind, const void *key, size_t len, int *match,
                     int max)
{
    int n = 0;
    for (const entry *e = c ? c->head : NULL; e; e = e->next)
        if (e->kind == kind) {
            if (n < max)
                match[n] = e->len == len && memcmp(e->key, key, len) == 0;
            n++;
        }
    return n;
}

void *dmxi_cache_take_nth(dmxi_cache *c, int kind, int i)
{
    for (entry **link = c ? &c->head : NULL; link && *link; link = &(*link)->next)
        if ((*link)->kind == kind && i-- == 0) {
            entry *e = *link; /* to the front */
            *link = e->next;
            e->next = c->head;
            c->head = e;
            return e->obj;
        }
    return NULL;
}

void dmxi_cache_stats(const dmxi_cache *c, dmxi_cache_info *info)
{
    memset(info, 0, sizeof *info);
    info->live_bytes = all_bytes;
    if (!c)
        return;
    info->bytes = c->local_bytes + c->agreed_bytes;
    info->agreed_bytes = c->agreed_bytes;
    info->evictions = c->evictions;
    for (const entry *e = c->head; e; e = e->next)
        info->entries++;
}

/* ---- the exported calls of dmx/expert.h (a library on dmx: the ScaLAPACK drop-in) ---------- */
static int kind_of(dmx_cache_kind k)
{
    switch (k) {
    case DMX_CACHE_DROPIN: return DMXI_CACHE_DROPIN;
    case DMX_CACHE_GEMM: return DMXI_CACHE_GEMM;
    case DMX_CACHE_GEMM_GRID: return DMXI_CACHE_GEMM_GRID;
    default: return DMXI_CACHE_DROPIN_ALONE;
    }
}

/* comm's cache, made when make; NULL with the error cleared when there is none. */
static dmxi_cache *cache_of(MPI_Comm comm, int make)
{
    dmxi_cache *c = NULL;
    if (dmxi_cache_get(comm, make, &c) != DMX_SUCCESS)
        return NULL;
    return c;
}

void *dmx_cache_find(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len)
{
    return dmxi_cache_find(cache_of(comm, 0), kind_of(kind), key, len);
}

void *dmx_cache_take(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len)
{
    return dmxi_cache_take(cache_of(comm, 0), kind_of(kind), key, len);
}

void *dmx_cache_pin(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len)
{
    return dmxi_cache_pin(cache_of(comm, 0), kind_of(kind), key, len);
}

void dmx_cache_unpin(MPI_Comm comm, const void *obj)
{
    dmxi_cache_unpin(cache_of(comm, 0), obj);
}

int dmx_cache_match(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len, int *match,
                    int max)
{
    dmxi_cache *c = NULL;
    if (dmxi_cache_get(comm, 0, &c) != DMX_SUCCESS)
        return -1;
    return dmxi_cache_match(c, kind_of(kind), key, len, match, max);
}

void *dmx_cache_take_nth(MPI_Comm comm, dmx_cache_kind kind, int i)
{
    return dmxi_cache_take_nth(cache_of(comm, 0), kind_of(kind), i);
}

dmx_status dmx_cache_keep(MPI_Comm comm, dmx_cache_kind kind, int agreed, int max_count,
                          const void *key, size_t len, void *obj, int64_t bytes,
                          dmx_cache_free_fn free_fn)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_cache *c = NULL;
    DMXI_TRY(dmxi_cache_get(comm, 1, &c));
    DMXI_CHECK(c, DMX_ERR_STATE, "the communicator is being freed");
    DMXI_TRY(dmxi_cache_make_room(c, kind_of(kind), agreed, max_count, bytes, NULL, NULL));
    DMXI_TRY(dmxi_cache_add(c, kind_of(kind), agreed, key, len, obj, bytes, free_fn));
cleanup:
    return st;
}

dmx_status dmx_cache_get_info(MPI_Comm comm, int64_t *entries, int64_t *bytes, int64_t *live_bytes)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_cache *c = NULL;
    dmxi_cache_info info;
    DMXI_TRY(dmxi_cache_get(comm, 0, &c));
    dmxi_cache_stats(c, &info);
    if (entries)
        *entries = info.entries;
    if (bytes)
        *bytes = info.bytes;
    if (live_bytes)
        *live_bytes = info.live_bytes;
cleanup:
    return st;
}
