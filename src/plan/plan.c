/* SPDX-License-Identifier: BSD-3-Clause */
/* The public plan calls: create (validate and agree, overlay or directory, packages, hand the
 * packages to the engine), execute, set scalars, info, destroy, and the one-shot transform.
 * Plans in which every rank exchanges few bytes are made by plan_small.c with one agreement
 * and run by the small engine; the general path below runs when that one declines.
 *
 * Cost of dmx_plan_create per rank: validation (validate.c), the overlay (overlay.c) or the
 * directory (directory.c), the packages (packages.c) and the engine's setup (src/exec/), plus
 * one allreduce of the cut sizes and a few agreements. The private communicator comes from a
 * pool kept on the user's communicator (plan_comm.c): no MPI_Comm_dup after the first plans.
 * Memory held by a plan: the piece lists (about 64 bytes per rectangle; pieces are cut to at
 * most a ring chunk) and what the engine holds (a send and a receive buffer as large as what
 * this rank exchanges with other nodes, and a ring of at most 4 chunks per peer on this node);
 * the engine's part is dmx_plan_info.buffer_bytes. Local rectangles use no buffer.
 */
#include "plan.h"

#include <stdio.h>

typedef dmxi_piece_list piece_list;
typedef dmxi_local_list local_list;

/* Whether this rank's packages qualify for the small engine (see plan_small.c). */
static int64_t is_small(const dmxi_exec *e)
{
    int64_t bytes = 0, limit = dmxi_setting_int(DMXI_SET_SMALL_BYTES);
    for (int side = 0; side < 2; side++) {
        const dmxi_peer *pv = side ? e->rpeer : e->speer;
        for (int i = 0; i < (side ? e->nrpeer : e->nspeer); i++) {
            if (pv[i].bytes > e->max_msg)
                return 0;
            bytes += pv[i].bytes; /* each below max_msg <= INT_MAX: no overflow in practice */
        }
    }
    return limit > 0 && bytes <= limit;
}

/* The engine's message limit and ring chunk size, agreed on e->comm (collective).
 * Test-only settings: a smaller per-message limit exercises the path that > 2^31 counts take, and
 * small ring chunks exercise cut pieces and rings that wrap around. */
static dmx_status agree_cut_sizes(dmxi_exec *e)
{
    dmx_status st = DMX_SUCCESS;
    int64_t mine[2] = {dmxi_setting_int(DMXI_SET_MAX_MESSAGE_BYTES),
                       dmxi_setting_int(DMXI_SET_SHM_CHUNK_BYTES)},
            agreed[2];
    if (mine[0] < 1 || mine[0] > INT_MAX)
        mine[0] = dmxi_setting_info(DMXI_SET_MAX_MESSAGE_BYTES)->dflt;
    if (mine[1] < 64 || mine[1] > ((int64_t)1 << 30))
        mine[1] = dmxi_setting_info(DMXI_SET_SHM_CHUNK_BYTES)->dflt;
    /* sender and receiver must cut alike: the smallest settings win (nonblocking, waited
     * for with test-and-yield: MPICH's blocking calls spin) */
    MPI_Request req = MPI_REQUEST_NULL;
    DMXI_MPI(dmxi_iallreduce(mine, agreed, 2, MPI_INT64_T, MPI_MIN, e->comm, &req));
    DMXI_TRY(dmxi_wait_bounded(&req, "the agreement on the message and chunk sizes"));
    e->max_msg = agreed[0];
    e->chunk_bytes = agreed[1];
cleanup:
    return st;
}

/* dmx_plan_create; once = 1 for dmx_transform_once's plan (plan_small.c's one-shot path). */
static dmx_status create(int ntransforms, const dmx_transform *transforms, int once, dmx_plan **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_plan *p = NULL;
    piece_list send = {0}, recv = {0};
    local_list loc = {0};
    dmxi_seg_list segs = {0};
    int64_t small = 0;
    dmxi_error_clear();
    if (out)
        *out = NULL;
    {
        int done = 0;
        DMXI_TRY(dmxi_plan_create_small(ntransforms, transforms, once, out, &done));
        if (done)
            goto cleanup;
    }
    DMXI_TRY(dmxi_transforms_validate(ntransforms, transforms, 1));
    MPI_Comm comm0 = transforms[0].a->d->comm; /* validated: every layout is set */

    p = calloc(1, sizeof *p);
    if (p) {
        dmxi_exec_init(&p->ex);
        p->comm = MPI_COMM_NULL;
        p->slot = -1;
    }
    /* Agree on out and memory, and take a private duplicate of comm0 (kept across plans). */
    {
        MPI_Comm dup = MPI_COMM_NULL;
        dmxi_comm_pool *pool = NULL;
        int slot = -1;
        DMXI_TRY(dmxi_plan_comm_acquire(
            comm0,
            !out ? dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL")
            : !p ? dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory")
                 : DMX_SUCCESS,
            &dup, &pool, &slot));
        p->comm = dup;
        p->pool = pool;
        p->slot = slot;
    }
    dmxi_exec *e = &p->ex;
    DMXI_MPI(MPI_Comm_rank(p->comm, &p->rank));
    DMXI_MPI(MPI_Comm_size(p->comm, &p->size));
    p->nt = ntransforms;
    p->xf = calloc((size_t)ntransforms, sizeof *p->xf);
    DMXI_CHECK(p->xf, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < ntransforms; k++) {
        p->xf[k].t = transforms[k];
        dmxi_xform_checked(&p->xf[k]); /* validated above */
        p->xf[k].esize = dmx_dtype_size(transforms[k].dtype);
        DMXI_TRY(
            dmxi_agree(p->comm, dmxi_plan_rank_map(p, transforms[k].a->d->comm, &p->xf[k].amap)));
        DMXI_TRY(
            dmxi_agree(p->comm, dmxi_plan_rank_map(p, transforms[k].b->d->comm, &p->xf[k].bmap)));
    }
    e->comm = p->comm;
    e->rank = p->rank;
    e->size = p->size;
    e->nt = p->nt;
    e->xf = p->xf;
    DMXI_TRY(agree_cut_sizes(e));

    /* Planning is local: every rank knows both layouts. Failures (memory) are agreed below. */
    {
        dmx_status local = DMX_SUCCESS;
        for (int t = 0; t < ntransforms && local == DMX_SUCCESS; t++) {
            if (transforms[t].a->d->local_only || transforms[t].b->d->local_only)
                continue; /* planned collectively below */
            local = dmxi_overlay_transform(p, t, &recv, &loc, &send, &segs);
        }
        /* Layouts known only locally: partners come from the directory, a collective step,
         * so every rank takes it for the same transforms after agreeing so far. */
        for (int t = 0; t < ntransforms; t++) {
            if (!transforms[t].a->d->local_only && !transforms[t].b->d->local_only)
                continue;
            DMXI_TRY(dmxi_agree(p->comm, local));
            local = dmxi_plan_directory(p, t, &recv, &loc, &send);
        }
        if (local == DMX_SUCCESS)
            local = dmxi_packages_make(p->xf, &send, &recv, e);
        /* small plans (layouts known only locally, or settings that kept plan_small.c out) run
         * on the small engine too: the same agreement carries whether every rank's is small */
        small = local == DMX_SUCCESS && is_small(e);
        DMXI_TRY(dmxi_agree_min(p->comm, local, &small, 1));
    }
    /* Hand the packages to the engine. */
    e->send = send.v, e->nsend = send.n, send.v = NULL;
    e->recv = recv.v, e->nrecv = recv.n, recv.v = NULL;
    e->local = loc.v, e->nlocal = loc.n, loc.v = NULL;
    e->seg = segs.v, e->nseg = segs.n, segs.v = NULL;
    dmxi_packages_sort_local(e->local, e->nlocal);
    if (small) {
        e->ops = &dmxi_exec_small;
        DMXI_TRY(dmxi_agree(p->comm, e->ops->setup(e))); /* its setup is local */
    } else {
        e->ops = &dmxi_exec_p2p;
        DMXI_TRY(e->ops->setup(e));
    }

    /* Bounded by the layouts' sizes, which validation checked to fit int64_t; checked anyway
     * (and agreed, so a failure cannot leave a plan on some ranks only). */
    DMXI_TRY(dmxi_agree(p->comm, dmxi_plan_info_fill(p)));
    *out = p;
    p = NULL;
cleanup:
    free(send.v);
    free(recv.v);
    free(loc.v);
    free(segs.v);
    if (p)
        dmx_plan_destroy(&p);
    return st;
}

dmx_status dmx_plan_create(int ntransforms, const dmx_transform *transforms, dmx_plan **out)
{
    return create(ntransforms, transforms, 0, out);
}

/* The overlap check again when a block-cyclic layout of the plan was rebound since the last one
 * (planning records the arrays it checked): a user may point B's layout at A's array between
 * executions, and a one-shot call taking back a kept plan skips the creation's checks. Local:
 * a failure goes to the error handler (the default ends the job), as the other ranks may already
 * be exchanging. Cost when nothing moved: two pointer compares per transform. */
static dmx_status check_rebound(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    dmx_transform *tv = NULL;
    int moved = 0; /* only block-cyclic layouts have a base that can move */
    for (int k = 0; k < p->nt; k++) {
        const dmxi_xform *x = &p->xf[k];
        moved |= !x->seen || x->t.a->base != x->seen_a || x->t.b->base != x->seen_b;
    }
    if (!moved)
        return st;
    tv = malloc((size_t)p->nt * sizeof *tv);
    DMXI_CHECK(tv, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < p->nt; k++)
        tv[k] = p->xf[k].t;
    st = dmxi_transforms_overlap(p->nt, tv);
    if (st != DMX_SUCCESS) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", dmx_last_error());
        st = dmxi_fatal(st, __FILE__, __LINE__, "%s (a layout rebound after planning)", msg);
        goto cleanup;
    }
    for (int k = 0; k < p->nt; k++)
        dmxi_xform_checked(&p->xf[k]);
cleanup:
    free(tv);
    return st;
}

dmx_status dmx_plan_execute(dmx_plan *plan)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    /* No plan, no communicator: the other ranks cannot be told. */
    if (!plan)
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_plan_execute: plan is NULL on this rank, which leaves no "
                          "communicator to agree on");
    DMXI_TRY(check_rebound(plan));
    DMXI_TRY(plan->ex.ops->execute(&plan->ex));
cleanup:
    return st;
}

dmx_status dmx_plan_set_scalars(dmx_plan *plan, int k, dmx_scalar alpha, dmx_scalar beta)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(plan, DMX_ERR_NULL, "plan is NULL");
    DMXI_CHECK(k >= 0 && k < plan->nt, DMX_ERR_ARG, "transform %d out of range [0,%d)", k,
               plan->nt);
    plan->xf[k].t.alpha = alpha;
    plan->xf[k].t.beta = beta;
cleanup:
    return st;
}

dmx_status dmx_plan_get_info(const dmx_plan *plan, dmx_plan_info *info)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(plan && info, DMX_ERR_NULL, "plan or info is NULL");
    *info = plan->info;
cleanup:
    return st;
}

dmx_status dmx_transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, const dmx_layout *b,
                              dmx_scalar beta, dmx_layout *a)
{
    const dmx_transform t = {dtype, op, alpha, beta, b, a, 0, 0};
    return dmx_transform_once_ex(&t);
}

dmx_status dmx_transform_once_ex(const dmx_transform *t)
{
    dmx_status st = DMX_SUCCESS;
    dmx_plan *p = NULL;
    dmxi_error_clear();
    DMXI_TRY(create(1, t, 1, &p));
    if (p) /* NULL: a one-shot with nothing to do on this rank (plan_small.c) */
        DMXI_TRY(dmx_plan_execute(p));
cleanup:
    if (p) {
        dmx_status st2 = dmxi_plan_once_finish(&p, st);
        if (st == DMX_SUCCESS)
            st = st2;
    }
    return st;
}
