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
 * Preconditions: as dmx_plan_create. Errors keep its promises (docs/errors.md): a rank returns
 * only after the agreement, with the worst status of any rank.
 * Cost (collective on the first layout's communicator): one MPI_Iallreduce of 12 int64 values
 * (waited for with a bound, like dmxi_agree), an MPI_Comm_dup only when no kept duplicate is
 * free (DMX_COMM_CACHE); local work
 * O(rectangles) as the overlay. Memory: the piece lists and the engine's buffers (the bytes
 * exchanged, at most DMX_SMALL_BYTES per rank).
 */
#include "plan.h"

#include <string.h>

/* A message limit and ring chunk as dmx_plan_create sanitizes them. */
static void cut_settings(int64_t *max_msg, int64_t *chunk)
{
    *max_msg = dmxi_setting_int(DMXI_SET_MAX_MESSAGE_BYTES);
    *chunk = dmxi_setting_int(DMXI_SET_SHM_CHUNK_BYTES);
    if (*max_msg < 1 || *max_msg > INT_MAX)
        *max_msg = dmxi_setting_info(DMXI_SET_MAX_MESSAGE_BYTES)->dflt;
    if (*chunk < 64 || *chunk > ((int64_t)1 << 30))
        *chunk = dmxi_setting_info(DMXI_SET_SHM_CHUNK_BYTES)->dflt;
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
    if (bytes > limit || biggest > max_msg)
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

dmx_status dmxi_plan_create_small(int nt, const dmx_transform *tv, dmx_plan **out, int *done)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    MPI_Comm comm0 = MPI_COMM_NULL;
    uint64_t h = 0;
    dmx_plan *p = NULL;
    *done = 1;
    /* no communicator on this rank: the error handler, as dmxi_transforms_validate */
    DMXI_TRY(dmxi_transforms_check(nt, tv, 1, &comm0, &h, &local));
    int64_t max_msg = 0, chunk = 0, limit = dmxi_setting_int(DMXI_SET_SMALL_BYTES);
    cut_settings(&max_msg, &chunk);
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
