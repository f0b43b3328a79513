/* SPDX-License-Identifier: BSD-3-Clause */
/* Layouts: the shared description, windows, block-cyclic and mapped block-cyclic layouts,
 * views, clones and destruction. Custom and local-only layouts (and their collective
 * validation) are in layout_custom.c, the queries the planner and the public getters use in
 * layout_query.c. */
#include "layout_impl.h"

#include "comm.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* ---- layout ids ----------------------------------------------------------------------------- */

/* This process's next layout id; ids agreed on any communicator move it past them. */
static _Atomic int64_t next_id = 1;
/* This process's next id of an unagreed layout (DMXI_UNAGREED_ID set: never an agreed id). */
static _Atomic int64_t next_unagreed = 1;

static int64_t unagreed_id(void)
{
    return atomic_fetch_add(&next_unagreed, 1) | DMXI_UNAGREED_ID;
}

dmx_status dmxi_layout_agree_id(MPI_Comm comm, dmx_status local, int64_t *id)
{
    int64_t v = atomic_load(&next_id);
    dmx_status st = dmxi_agree_max(comm, local, &v);
    if (st != DMX_SUCCESS)
        return st;
    int64_t cur = atomic_load(&next_id);
    while (cur <= v && !atomic_compare_exchange_weak(&next_id, &cur, v + 1))
        ;
    *id = v;
    return DMX_SUCCESS;
}

dmx_status dmxi_layout_agree_id_hash(MPI_Comm comm, dmx_status local, uint64_t hash,
                                     const char *what, int64_t *id)
{
    /* one reduction (MIN): the status, the largest next id (as its negation), the hash twice */
    int64_t v[3] = {-atomic_load(&next_id), (int64_t)hash, (int64_t)~hash};
    dmx_status st = dmxi_agree_min(comm, local, v, 3);
    if (st != DMX_SUCCESS)
        return st;
    if (v[1] != (int64_t)hash || ~v[2] != (int64_t)hash)
        return dmxi_error(DMX_ERR_LAYOUT, __FILE__, __LINE__, "ranks passed different %s", what);
    const int64_t top = -v[0];
    int64_t cur = atomic_load(&next_id);
    while (cur <= top && !atomic_compare_exchange_weak(&next_id, &cur, top + 1))
        ;
    *id = top;
    return DMX_SUCCESS;
}

/* ---- ids without a reduction -------------------------------------------------------------- */

/* Block-cyclic layouts under local checks (dmx's default error handler, which ends the job on a
 * failed check, and DMX_PLAN_CHECK=local) take their ids from a range reserved per communicator:
 * the first such layout on a communicator agrees as usual (status, id, description hash) and
 * also reserves the next ID_RANGE ids on every rank (next_id moves past them), which the
 * following block-cyclic layouts on that communicator use in turn with no collective. The ids
 * are equal on every rank because layout creation is collective and in order on a communicator
 * (MPI's rule for collectives), and unique in the process because the range is reserved in
 * next_id, which every later agreement starts above. When the range runs out, the next layout
 * agrees and reserves again. Not checked in between: that every rank passed the same
 * description (docs/errors.md). Memory: 16 bytes per communicator, in its record (core/comm.c),
 * freed with it. */
enum { ID_RANGE = 1 << 16 };

typedef struct id_range {
    int64_t next, end; /* the next free id and the last one reserved */
} id_range;

/* Whether argument checks are local (see above; the same on every rank). Local. */
static int checks_local(void)
{
    const char *s = dmxi_setting_str(DMXI_SET_PLAN_CHECK);
    return dmxi_error_handler_is_default() && (!s || strcmp(s, "local") == 0);
}

/* The next id of comm's reserved range in *id, or 0 when none is left. Local. */
static dmx_status range_take(MPI_Comm comm, int64_t *id)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *rec = NULL;
    *id = 0;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    id_range *r = dmxi_comm_slot(rec, DMXI_SLOT_LAYOUT_IDS);
    if (r && r->next <= r->end)
        *id = r->next++;
cleanup:
    return st;
}

/* After the agreed id `top`: reserve top + 1 .. top + ID_RANGE for comm (every rank alike).
 * Local. */
static dmx_status range_reserve(MPI_Comm comm, int64_t top)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *rec = NULL;
    id_range *fresh = NULL;
    const int64_t end = top + ID_RANGE;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    id_range *r = dmxi_comm_slot(rec, DMXI_SLOT_LAYOUT_IDS);
    if (r) {
        r->next = top + 1;
        r->end = end;
    } else {
        fresh = malloc(sizeof *fresh);
        DMXI_CHECK(fresh, DMX_ERR_ALLOC, "out of memory");
        fresh->next = top + 1;
        fresh->end = end;
        DMXI_TRY(dmxi_comm_set_slot(rec, DMXI_SLOT_LAYOUT_IDS, NULL, fresh));
        fresh = NULL; /* kept with comm (core/comm.c): freed with it */
    }
    int64_t cur = atomic_load(&next_id);
    while (cur <= end && !atomic_compare_exchange_weak(&next_id, &cur, end + 1))
        ;
cleanup:
    free(fresh);
    return st;
}

/* ---- shared description ------------------------------------------------------------------ */

void dmxi_desc_release(dmxi_desc *d)
{
    if (!d || --d->refcount > 0)
        return;
    free(d->rsplit);
    free(d->csplit);
    free(d->grid_ranks);
    free(d->owners);
    free(d->blocks);
    free(d->owned);
    free(d);
}

static dmx_status make_splits(int64_t len, int64_t bs, int64_t *nblk, int64_t **split)
{
    dmx_status st = DMX_SUCCESS;
    int64_t nb = len == 0 ? 0 : (len - 1) / bs + 1;
    int64_t *s = dmxi_malloc(nb + 1, sizeof *s);
    DMXI_CHECK(s, DMX_ERR_ALLOC, "out of memory for %lld splits", (long long)nb);
    for (int64_t k = 0; k < nb; k++)
        s[k] = k * bs;
    s[nb] = len;
    *nblk = nb;
    *split = s;
cleanup:
    return st;
}

/* ---- the window --------------------------------------------------------------------------- */

/* Fill the window fields of L for window (i0, j0, m, n) of L->d; enumerate local blocks. */
static dmx_status set_window(dmx_layout *L, int64_t i0, int64_t j0, int64_t m, int64_t n)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_desc *d = L->d;
    L->i0 = i0, L->j0 = j0, L->m = m, L->n = n;
    if (d->local_only) {
        L->bi0 = L->bj0 = 0;
    } else if (m > 0 && n > 0) {
        L->bi0 = dmxi_desc_find_split(d->rsplit, d->nrb, i0);
        L->nrb = dmxi_desc_find_split(d->rsplit, d->nrb, i0 + m - 1) - L->bi0 + 1;
        L->bj0 = dmxi_desc_find_split(d->csplit, d->ncb, j0);
        L->ncb = dmxi_desc_find_split(d->csplit, d->ncb, j0 + n - 1) - L->bj0 + 1;
    } else {
        /* An empty window keeps its extent along the non-empty dimension for queries. */
        L->bi0 = m > 0 ? dmxi_desc_find_split(d->rsplit, d->nrb, i0) : 0;
        L->nrb = m > 0 ? dmxi_desc_find_split(d->rsplit, d->nrb, i0 + m - 1) - L->bi0 + 1 : 0;
        L->bj0 = n > 0 ? dmxi_desc_find_split(d->csplit, d->ncb, j0) : 0;
        L->ncb = n > 0 ? dmxi_desc_find_split(d->csplit, d->ncb, j0 + n - 1) - L->bj0 + 1 : 0;
    }
    L->nlocal = 0;
    L->nlr = L->nlc = 0;
    if (d->local_only) { /* no grid; the window is the whole matrix */
        L->nrb = L->ncb = 0;
        L->nlocal = d->nlocal;
        goto cleanup;
    }
    if (L->nrb == 0 || L->ncb == 0 || (d->cyclic && d->myprow < 0))
        goto cleanup;
    if (d->cyclic) {
        int64_t q = ((int64_t)d->myprow - d->rsrc - L->bi0) % d->prow;
        if (q < 0)
            q += d->prow;
        L->first_br = q;
        L->nlr = q < L->nrb ? (L->nrb - 1 - q) / d->prow + 1 : 0;
        q = ((int64_t)d->mypcol - d->csrc - L->bj0) % d->pcol;
        if (q < 0)
            q += d->pcol;
        L->first_bc = q;
        L->nlc = q < L->ncb ? (L->ncb - 1 - q) / d->pcol + 1 : 0;
        DMXI_TRY(dmxi_mul64(L->nlr, L->nlc, &L->nlocal));
    } else {
        int64_t cnt = 0;
        for (int64_t k = 0; k < d->nlocal; k++) {
            const dmxi_lblock *b = &d->blocks[k];
            if (b->brow >= L->bi0 && b->brow < L->bi0 + L->nrb && b->bcol >= L->bj0 &&
                b->bcol < L->bj0 + L->ncb)
                cnt++;
        }
        L->lidx = dmxi_malloc(cnt, sizeof *L->lidx);
        DMXI_CHECK(L->lidx, DMX_ERR_ALLOC, "out of memory for %lld local blocks", (long long)cnt);
        for (int64_t k = 0; k < d->nlocal; k++) {
            const dmxi_lblock *b = &d->blocks[k];
            if (b->brow >= L->bi0 && b->brow < L->bi0 + L->nrb && b->bcol >= L->bj0 &&
                b->bcol < L->bj0 + L->ncb)
                L->lidx[L->nlocal++] = k;
        }
    }
cleanup:
    return st;
}

/* ---- construction ------------------------------------------------------------------------- */

dmx_status dmxi_layout_new(dmxi_desc *d, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_layout *L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = d;
    d->refcount++;
    DMXI_TRY(set_window(L, 0, 0, d->m, d->n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    return st;
}

static dmxi_desc *desc_new(MPI_Comm comm)
{
    dmxi_desc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->refcount = 1; /* the creator's reference, dropped when creation ends */
    d->comm = comm;
    d->myprow = d->mypcol = -1;
    return d;
}

dmx_status dmxi_desc_begin(MPI_Comm comm, dmx_layout **out, dmxi_desc **dp)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_desc *d = desc_new(comm);
    *dp = d;
    if (out)
        *out = NULL;
    DMXI_CHECK(out, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(d, DMX_ERR_ALLOC, "out of memory");
    DMXI_MPI(MPI_Comm_rank(comm, &d->rank));
    DMXI_MPI(MPI_Comm_size(comm, &d->size));
cleanup:
    return st;
}

/* Number of rows of a block-cyclic dimension that process coordinate p holds. */
static int64_t local_extent(int64_t len, int64_t bs, int p, int src, int np)
{
    if (p < 0 || len == 0)
        return 0;
    int64_t nblk = (len - 1) / bs + 1;
    int64_t q = ((int64_t)p - src) % np;
    if (q < 0)
        q += np;
    if (q >= nblk)
        return 0;
    int64_t cnt = (nblk - 1 - q) / np + 1; /* blocks held */
    /* Written so that no term passes len (nblk * bs may exceed INT64_MAX when len is near it). */
    if ((nblk - 1) % np == q) /* holds the last, possibly partial block */
        return (cnt - 1) * bs + (len - (nblk - 1) * bs);
    return cnt * bs; /* full blocks only, all before the last: at most (nblk - 1) * bs < len */
}

/* The ranks of the prow x pcol grid into d->grid_ranks (grid_ranks row by row, or else the ranks
 * in grid_order 'R' or 'C') and this rank's grid coordinates into d; a rank out of [0, size) or
 * repeated is refused. Local. */
static dmx_status map_grid(dmxi_desc *d, int prow, int pcol, const int *grid_ranks, char grid_order,
                           int rank, int size)
{
    dmx_status st = DMX_SUCCESS;
    char *seen = calloc((size_t)size, 1);
    d->grid_ranks = dmxi_malloc((int64_t)prow * pcol, sizeof(int));
    DMXI_CHECK(d->grid_ranks && seen, DMX_ERR_ALLOC, "out of memory");
    for (int pr = 0; pr < prow; pr++)
        for (int pc = 0; pc < pcol; pc++) {
            int r;
            if (grid_ranks)
                r = grid_ranks[pr * pcol + pc];
            else if (grid_order == 'R' || grid_order == 'r')
                r = pr * pcol + pc;
            else
                r = pr + pc * prow;
            DMXI_CHECK(r >= 0 && r < size && !seen[r], DMX_ERR_ARG,
                       "grid rank %d at (%d,%d) is out of range or repeated", r, pr, pc);
            seen[r] = 1;
            d->grid_ranks[pr * pcol + pc] = r;
            if (r == rank)
                d->myprow = pr, d->mypcol = pc;
        }
cleanup:
    free(seen);
    return st;
}

/* The address create_cyclic gets for a NULL grid_ranks of the mapped constructor. */
static const int no_map = -1;

static dmx_status create_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb,
                                int prow, int pcol, const int *grid_ranks, char grid_order,
                                int rsrc, int csrc, void *local, int64_t lld, int agree,
                                dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_desc *d = NULL;
    int rank = 0, size = 0;
    if (out)
        *out = NULL;
    if (comm == MPI_COMM_NULL) /* no communicator: the others cannot be told */
        return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                          "the communicator is MPI_COMM_NULL on this rank");
    DMXI_MPI(MPI_Comm_rank(comm, &rank));
    DMXI_MPI(MPI_Comm_size(comm, &size));

    /* Local validation; the first error (if any) is agreed below so no rank is left waiting. */
#define BAD(code, ...)                                                                             \
    do {                                                                                           \
        if (st == DMX_SUCCESS)                                                                     \
            st = dmxi_error((code), __FILE__, __LINE__, __VA_ARGS__);                              \
    } while (0)
    if (grid_ranks == &no_map)
        BAD(DMX_ERR_NULL, "grid_ranks is NULL");
    if (out)
        *out = NULL;
    else
        BAD(DMX_ERR_NULL, "out is NULL");
    d = desc_new(comm);
    if (!d)
        BAD(DMX_ERR_ALLOC, "out of memory");
    if (m < 0 || n < 0)
        BAD(DMX_ERR_ARG, "matrix size %lld x %lld is negative", (long long)m, (long long)n);
    if (mb < 1 || nb < 1)
        BAD(DMX_ERR_ARG, "block size %lld x %lld must be positive", (long long)mb, (long long)nb);
    if (st == DMX_SUCCESS && (prow < 1 || pcol < 1 || (int64_t)prow * pcol > size))
        BAD(DMX_ERR_ARG, "process grid %d x %d does not fit %d ranks", prow, pcol, size);
    if (st == DMX_SUCCESS && (rsrc < 0 || rsrc >= prow || csrc < 0 || csrc >= pcol))
        BAD(DMX_ERR_ARG, "rsrc/csrc = %d/%d outside the %d x %d grid", rsrc, csrc, prow, pcol);
    if (!grid_ranks && grid_order != 'R' && grid_order != 'r' && grid_order != 'C' &&
        grid_order != 'c')
        BAD(DMX_ERR_ARG, "grid order '%c' is not 'R' or 'C'", grid_order);
    if (st == DMX_SUCCESS)
        st = map_grid(d, prow, pcol, grid_ranks, grid_order, rank, size);
    if (st == DMX_SUCCESS) {
        int64_t lr = local_extent(m, mb, d->myprow, rsrc, prow);
        int64_t lc = local_extent(n, nb, d->mypcol, csrc, pcol);
        if (local && lr > 0 && lld < lr)
            BAD(DMX_ERR_ARG, "lld = %lld is smaller than the %lld local rows", (long long)lld,
                (long long)lr);
        int64_t tmp;
        if (local && lr > 0 && lc > 0 && (dmxi_mul64(lld, lc, &tmp) != DMX_SUCCESS))
            BAD(DMX_ERR_OVERFLOW, "local array size overflows");
    }
#undef BAD
    /* Everything local first, then one agreement: status, id and description hash. */
    int64_t id = 0;
    if (st == DMX_SUCCESS) {
        d->rank = rank, d->size = size;
        d->m = m, d->n = n, d->mb = mb, d->nb = nb, d->lld = lld;
        d->prow = prow, d->pcol = pcol, d->rsrc = rsrc, d->csrc = csrc;
        d->cyclic = 1;
        st = make_splits(m, mb, &d->nrb, &d->rsplit);
        if (st == DMX_SUCCESS)
            st = make_splits(n, nb, &d->ncb, &d->csplit);
    }
    if (st == DMX_SUCCESS) {
        int64_t hdr[9] = {1, m, n, mb, nb, prow, pcol, rsrc, csrc};
        uint64_t h = dmxi_hash(DMXI_HASH_INIT, hdr, sizeof hdr);
        d->hash = dmxi_hash(h, d->grid_ranks, (size_t)prow * (size_t)pcol * sizeof(int));
    }
    /* local checks: a failed one ends the job in the handler; an id of the reserved range (or,
     * for layouts made alone, an unagreed one) */
    const int local_ids = agree && checks_local();
    if ((!agree || local_ids) && st != DMX_SUCCESS) {
        st = dmxi_fatal_recorded(st);
        goto cleanup;
    }
    if (!agree) {
        d->unagreed = 1;
        id = unagreed_id();
    } else {
        if (local_ids)
            DMXI_TRY(range_take(comm, &id));
        if (id == 0) {
            DMXI_TRY(dmxi_layout_agree_id_hash(comm, st, st == DMX_SUCCESS ? d->hash : 0,
                                               "block-cyclic layout descriptions", &id));
            if (local_ids)
                DMXI_TRY(range_reserve(comm, id));
        }
    }
    DMXI_TRY(dmxi_layout_new(d, out));
    (*out)->base = local;
    (*out)->id = id;
cleanup:
    dmxi_desc_release(d);
    return st;
}

dmx_status dmx_layout_create_block_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                          int64_t nb, int prow, int pcol, char grid_order, int rsrc,
                                          int csrc, void *local, int64_t lld, dmx_layout **out)
{
    dmxi_error_clear();
    return create_cyclic(comm, m, n, mb, nb, prow, pcol, NULL, grid_order, rsrc, csrc, local, lld,
                         1, out);
}

dmx_status dmx_layout_create_block_cyclic_mapped(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                                 int64_t nb, int prow, int pcol,
                                                 const int *grid_ranks, int rsrc, int csrc,
                                                 void *local, int64_t lld, dmx_layout **out)
{
    dmxi_error_clear();
    /* A NULL map on one rank must not leave the others waiting: create_cyclic agrees on it with
     * everything else (no_map marks it). */
    if (out)
        *out = NULL;
    return create_cyclic(comm, m, n, mb, nb, prow, pcol, grid_ranks ? grid_ranks : &no_map, 'R',
                         rsrc, csrc, local, lld, 1, out);
}

dmx_status dmx_layout_create_block_cyclic_unagreed(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                                   int64_t nb, int prow, int pcol,
                                                   const int *grid_ranks, int rsrc, int csrc,
                                                   void *local, int64_t lld, dmx_layout **out)
{
    dmxi_error_clear();
    if (out)
        *out = NULL;
    return create_cyclic(comm, m, n, mb, nb, prow, pcol, grid_ranks ? grid_ranks : &no_map, 'R',
                         rsrc, csrc, local, lld, 0, out);
}

dmx_status dmx_layout_create_view(const dmx_layout *parent, int64_t i0, int64_t j0, int64_t m,
                                  int64_t n, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    dmx_layout *L = NULL;
    int64_t id = 0;
    if (out)
        *out = NULL;
    /* No parent, no communicator: the other ranks cannot be told, so this goes to the handler. */
    if (!parent)
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_layout_create_view: parent is NULL on this rank, which leaves no "
                          "communicator to agree on");
    {
        dmx_status local = DMX_SUCCESS;
        if (!out)
            local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL");
        else if (parent->d->local_only)
            local = dmxi_error(DMX_ERR_UNSUPPORTED, __FILE__, __LINE__,
                               "views of layouts known only locally are not supported");
        else if (i0 < 0 || j0 < 0 || m < 0 || n < 0 || i0 > parent->m - m || j0 > parent->n - n)
            local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__,
                               "view (%lld,%lld) of size %lld x %lld is outside the %lld x %lld "
                               "matrix",
                               (long long)i0, (long long)j0, (long long)m, (long long)n,
                               (long long)parent->m, (long long)parent->n);
        int64_t v[5] = {i0, j0, m, n, parent->id};
        if (!parent->d->unagreed) {
            DMXI_TRY(dmxi_layout_agree_id_hash(parent->d->comm, local,
                                               dmxi_hash(parent->d->hash, v, sizeof v),
                                               "view windows or parents", &id));
        } else if (local != DMX_SUCCESS) { /* made alone: nobody waits to hear of it */
            return dmxi_fatal_recorded(local);
        } else {
            id = unagreed_id();
        }
    }
    L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = parent->d;
    L->d->refcount++;
    L->base = parent->base;
    L->id = id;
    DMXI_TRY(set_window(L, parent->i0 + i0, parent->j0 + j0, m, n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    return st;
}

dmx_status dmxi_layout_clone_on(const dmx_layout *tmpl, MPI_Comm comm, size_t esize,
                                dmx_layout **out)
{
    const dmxi_desc *t = tmpl->d;
    dmxi_desc *d = NULL;
    dmx_layout *L = NULL;
    int64_t n = 0;
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(dmxi_desc_begin(comm, out, &d));
    DMXI_CHECK(d->size == t->size, DMX_ERR_LAYOUT, "communicator sizes differ");
    d->m = t->m, d->n = t->n, d->nrb = t->nrb, d->ncb = t->ncb, d->hash = t->hash;
    d->cyclic = t->cyclic;
    d->rsplit = dmxi_malloc(t->nrb + 1, sizeof(int64_t));
    d->csplit = dmxi_malloc(t->ncb + 1, sizeof(int64_t));
    DMXI_CHECK(d->rsplit && d->csplit, DMX_ERR_ALLOC, "out of memory");
    memcpy(d->rsplit, t->rsplit, (size_t)(t->nrb + 1) * sizeof(int64_t));
    memcpy(d->csplit, t->csplit, (size_t)(t->ncb + 1) * sizeof(int64_t));
    if (t->cyclic) {
        d->mb = t->mb, d->nb = t->nb, d->prow = t->prow, d->pcol = t->pcol;
        d->rsrc = t->rsrc, d->csrc = t->csrc;
        int64_t np = (int64_t)t->prow * t->pcol;
        d->grid_ranks = dmxi_malloc(np, sizeof(int));
        DMXI_CHECK(d->grid_ranks, DMX_ERR_ALLOC, "out of memory");
        memcpy(d->grid_ranks, t->grid_ranks, (size_t)np * sizeof(int));
        for (int64_t k = 0; k < np; k++)
            if (d->grid_ranks[k] == d->rank)
                d->myprow = (int)(k / d->pcol), d->mypcol = (int)(k % d->pcol);
        int64_t lr = local_extent(d->m, d->mb, d->myprow, d->rsrc, d->prow);
        int64_t lc = local_extent(d->n, d->nb, d->mypcol, d->csrc, d->pcol);
        d->lld = lr > 1 ? lr : 1;
        DMXI_TRY(dmxi_mul64(lr, lc, &n));
    } else {
        int64_t nblk = t->nrb * t->ncb, cnt = 0;
        d->owners = dmxi_malloc(nblk, sizeof(int));
        DMXI_CHECK(d->owners, DMX_ERR_ALLOC, "out of memory");
        memcpy(d->owners, t->owners, (size_t)nblk * sizeof(int));
        for (int64_t k = 0; k < nblk; k++)
            cnt += d->owners[k] == d->rank;
        d->blocks = dmxi_malloc(cnt, sizeof(dmxi_lblock));
        DMXI_CHECK(d->blocks, DMX_ERR_ALLOC, "out of memory");
        for (int64_t k = 0; k < nblk; k++) {
            if (d->owners[k] != d->rank)
                continue;
            int64_t I = k / d->ncb, J = k % d->ncb;
            int64_t rows = d->rsplit[I + 1] - d->rsplit[I], cols = d->csplit[J + 1] - d->csplit[J];
            d->blocks[d->nlocal++] = (dmxi_lblock){I, J, 0, 0, NULL, rows, DMX_COL_MAJOR};
            int64_t area = 0;
            DMXI_TRY(dmxi_mul64(rows, cols, &area));
            DMXI_TRY(dmxi_add64(n, area, &n));
        }
    }
    d->owned = dmxi_calloc(n, esize);
    DMXI_CHECK(d->owned, DMX_ERR_ALLOC, "out of memory for %lld elements", (long long)n);
    for (int64_t k = 0, off = 0; k < d->nlocal; k++) {
        dmxi_lblock *b = &d->blocks[k];
        b->data = (char *)d->owned + (size_t)off * esize;
        off += b->ld * (d->csplit[b->bcol + 1] - d->csplit[b->bcol]);
    }
    L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = d;
    d->refcount++;
    L->base = d->cyclic ? d->owned : NULL;
    L->id = (int64_t)((uint64_t)tmpl->id | (UINT64_C(1) << 63));
    DMXI_TRY(set_window(L, tmpl->i0, tmpl->j0, tmpl->m, tmpl->n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    dmxi_desc_release(d);
    return st;
}

dmx_status dmx_layout_destroy(dmx_layout **layout)
{
    if (!layout || !*layout)
        return DMX_SUCCESS;
    dmx_layout *L = *layout;
    dmxi_desc_release(L->d);
    free(L->lidx);
    free(L);
    *layout = NULL;
    return DMX_SUCCESS;
}
