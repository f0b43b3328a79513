/* SPDX-License-Identifier: BSD-3-Clause */
/* The plans' private communicators, kept across plans.
 *
 * Algorithm: every plan runs on a private duplicate of its first layout's communicator (its
 * messages and tags cannot meet the user's or another live plan's). Instead of MPI_Comm_dup at
 * each dmx_plan_create and MPI_Comm_free at each dmx_plan_destroy (blocking collectives, which
 * spin under MPICH and cost a time slice each when ranks outnumber cores), the duplicates are
 * kept in a pool, a slot of the user's communicator's record (core/comm.c): a slot is either in
 * use by one live plan or free. The duplicates are made from the record's inner duplicate (the
 * one duplicate dmx makes of a user communicator). dmx_plan_create takes the lowest free slot and
 * dmx_plan_destroy gives it back, so two live plans never share a duplicate, and whatever a
 * duplicate carries (the engine's node communicator and shared window, shm.c; the exchange's cache)
 * is reused by the next plan on it.
 *
 * One-shot calls (dmx_transform_once's plans when they make no agreement, plan_small.c) use a
 * further duplicate of their own, made by the first one on every rank and never handed to a
 * persistent plan (the one-shot plans that share it are kept in the communicator's plan cache,
 * plan_cache.c, detached before this pool); the pool also keeps the key of the last one-shot call
 * that passed its checks. The
 * registry remembers the record looked up last, so calls in a row on one communicator find the
 * pool without MPI_Comm_get_attr (a hash lookup in the MPI library, ~20 ns of a 100 ns call).
 *
 * Preconditions: plan creation is collective on the communicator. The ranks' pools agree when
 * every rank creates and destroys the plans of a communicator in the same order; the choice of
 * slot is agreed anyway (it rides on the argument agreement's reduction), and when ranks
 * disagree the plan gets a duplicate of its own, freed with it, as does a plan beyond
 * DMX_COMM_CACHE live ones and a plan whose execution broke (messages may be left on it).
 *
 * Cost per dmx_plan_create: one allreduce of three integers (it replaces the argument
 * agreement's one, so it adds nothing); MPI_Comm_dup only when no free slot is left (and the
 * inner duplicate on the communicator's first one). Destroy is
 * local for a kept duplicate. Memory: DMX_COMM_CACHE (default 4) duplicates per communicator
 * and what they carry (each at most DMX_SHM_CACHE_BYTES of shared window, shm.c). All of it is
 * freed when the user frees the communicator (the record's delete callback, collective as
 * MPI_Comm_free is) or at MPI_Finalize (the registry's hook); a live plan holds a reference to
 * the record, so the pool's memory lasts until the last such plan is destroyed.
 */
#include "plan.h"

#include "comm.h"

#include <string.h>

struct dmxi_comm_pool {
    dmxi_comm *rec;          /* the record of the user's communicator (core/comm.c) */
    MPI_Comm *dup;           /* slot -> duplicate (MPI_COMM_NULL: not made yet) */
    unsigned char *state;    /* slot -> SLOT_FREE, SLOT_USED or SLOT_DEAD */
    int n, cap;              /* slots made, slots allowed (DMX_COMM_CACHE when made) */
    MPI_Comm once;           /* the one-shot calls' duplicate (MPI_COMM_NULL: not made yet) */
    dmxi_once_state once_st; /* the one-shot calls' last key and counters (plan_small.c) */
};

enum { SLOT_FREE, SLOT_USED, SLOT_DEAD };

/* Release (core/comm.c): the record's last reference is gone (the communicator is freed and no
 * plan holds a slot or the one-shot duplicate any more). */
static void pool_release_memory(void *state)
{
    dmxi_comm_pool *p = state;
    free(p->dup);
    free(p->state);
    free(p);
}

/* Detach: the user freed the communicator (or MPI_Finalize). Frees the free duplicates
 * (collective, as the user's MPI_Comm_free is); slots in use stay with their plans, which free
 * them at destroy. The plan cache was detached before (core/comm.h's order): its one-shot plans
 * gave the shared one-shot duplicate back to the pool, which frees it below. */
static int pool_detach(void *state)
{
    dmxi_comm_pool *p = state;
    int rc = MPI_SUCCESS;
    p->once_st.checked = 0;
    for (int i = 0; i < p->n; i++)
        if (p->state[i] == SLOT_FREE && p->dup[i] != MPI_COMM_NULL) {
            int r = MPI_Comm_free(&p->dup[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    if (!p->once_st.busy && p->once != MPI_COMM_NULL) {
        int r = MPI_Comm_free(&p->once);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    return rc;
}

static const dmxi_slot_type pool_type = {pool_detach, pool_release_memory};

/* The pool of comm, kept in its record on first use. Local. */
static dmx_status pool_get(MPI_Comm comm, dmxi_comm_pool **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm_pool *p = NULL;
    dmxi_comm *rec = NULL;
    *out = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    if ((*out = dmxi_comm_slot(rec, DMXI_SLOT_PLAN)) != NULL)
        goto cleanup;
    int64_t cap = dmxi_setting_int(DMXI_SET_COMM_CACHE);
    cap = cap > 64 ? 64 : cap;
    p = calloc(1, sizeof *p);
    DMXI_CHECK(p, DMX_ERR_ALLOC, "out of memory (communicator pool)");
    p->rec = rec;
    p->once = MPI_COMM_NULL;
    p->cap = (int)cap;
    if (cap > 0) {
        p->dup = dmxi_malloc(cap, sizeof *p->dup);
        p->state = dmxi_malloc(cap, sizeof *p->state);
        DMXI_CHECK(p->dup && p->state, DMX_ERR_ALLOC, "out of memory (communicator pool)");
    }
    DMXI_TRY(dmxi_comm_set_slot(rec, DMXI_SLOT_PLAN, &pool_type, p));
    *out = p;
    p = NULL;
cleanup:
    if (p)
        pool_release_memory(p);
    return st;
}

dmx_status dmxi_plan_comm_choose(MPI_Comm comm, dmxi_comm_pool **pool, int64_t *choice)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm_pool *p = NULL;
    *pool = NULL;
    *choice = -1;
    DMXI_TRY(pool_get(comm, &p));
    for (int i = 0; i < p->n && *choice < 0; i++)
        if (p->state[i] == SLOT_FREE)
            *choice = i;
    if (*choice < 0 && p->n < p->cap)
        *choice = p->n;
    *pool = p;
cleanup:
    return st;
}

dmx_status dmxi_plan_comm_take(MPI_Comm comm, dmxi_comm_pool *p, int64_t choice, int agreed,
                               MPI_Comm *dup, dmxi_comm_pool **pool, int *slot)
{
    dmx_status st = DMX_SUCCESS;
    *dup = MPI_COMM_NULL;
    *pool = NULL;
    *slot = -1;
    agreed = agreed && p && choice >= 0;
    if (agreed && choice < p->n) {
        *dup = p->dup[choice];
    } else {
        dmxi_comm *rec = p ? p->rec : NULL;
        if (!rec)
            DMXI_TRY(dmxi_comm_get(comm, &rec));
        DMXI_TRY(dmxi_comm_dup(rec, dup)); /* a duplicate of the inner one */
        if (!agreed)
            goto cleanup; /* a duplicate of its own */
        p->dup[p->n] = *dup;
        p->state[p->n] = SLOT_FREE;
        p->n++;
    }
    p->state[choice] = SLOT_USED;
    dmxi_comm_hold(p->rec);
    *pool = p;
    *slot = (int)choice;
cleanup:
    if (st != DMX_SUCCESS && *dup != MPI_COMM_NULL && *slot < 0)
        DMXI_MPI_ALL(MPI_Comm_free(dup));
    return st;
}

dmx_status dmxi_plan_comm_acquire(MPI_Comm comm, dmx_status local, MPI_Comm *dup,
                                  dmxi_comm_pool **pool, int *slot)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm_pool *p = NULL;
    int64_t *buf = NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    *dup = MPI_COMM_NULL;
    *pool = NULL;
    *slot = -1;
    /* This rank's choice: its lowest free slot, a new slot, or -1 (a duplicate of its own). */
    int64_t choice = -1;
    if (local == DMX_SUCCESS)
        local = dmxi_plan_comm_choose(comm, &p, &choice);
    /* One reduction (MAX) agrees on the arguments and on the choice: (status, choice, -choice).
     * On the heap: after a timeout the reduction stays pending and may write into it. */
    buf = calloc(6, sizeof *buf);
    DMXI_CHECK(buf, DMX_ERR_ALLOC, "out of memory");
    buf[0] = (int64_t)local;
    buf[1] = choice;
    buf[2] = -choice;
    DMXI_MPI(dmxi_iallreduce(buf, buf + 3, 3, MPI_INT64_T, MPI_MAX, comm, &req));
    st = dmxi_wait_bounded(&req, "the agreement on the arguments");
    if (st != DMX_SUCCESS) {
        if (req != MPI_REQUEST_NULL)
            buf = NULL; /* still pending */
        goto cleanup;
    }
    if (buf[3] != 0) {
        st = local != DMX_SUCCESS
                 ? local
                 : dmxi_error((dmx_status)buf[3], __FILE__, __LINE__,
                              "another rank failed with %s (see its error message)",
                              dmx_status_string((dmx_status)buf[3]));
        goto cleanup;
    }
    /* max == min: every rank chose the same slot */
    DMXI_TRY(dmxi_plan_comm_take(comm, p, choice, buf[4] == -buf[5], dup, pool, slot));
cleanup:
    free(buf);
    return st;
}

dmx_status dmxi_plan_comm_once_state(MPI_Comm comm, dmxi_comm_pool **pool, dmxi_once_state **once)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm_pool *p = NULL;
    *pool = NULL;
    *once = NULL;
    DMXI_TRY(pool_get(comm, &p));
    if (p->once == MPI_COMM_NULL) {
        DMXI_CHECK(!p->once_st.busy, DMX_ERR_INTERNAL, "one-shot duplicate busy but not made");
        DMXI_TRY(dmxi_comm_dup(p->rec, &p->once));
    }
    *pool = p;
    *once = &p->once_st;
cleanup:
    return st;
}

dmxi_once_state *dmxi_plan_comm_once_peek(MPI_Comm comm)
{
    dmxi_comm_pool *p = NULL;
    if (pool_get(comm, &p) != DMX_SUCCESS) {
        p = NULL;
        dmxi_error_clear(); /* the caller's full path meets the failure again and reports it */
    }
    return p && dmxi_comm_attached(p->rec) && p->once != MPI_COMM_NULL ? &p->once_st : NULL;
}

dmxi_once_state *dmxi_plan_comm_once_kept(dmxi_comm_pool *pool)
{
    return pool && dmxi_comm_attached(pool->rec) ? &pool->once_st : NULL;
}

dmx_status dmxi_plan_comm_once_take(dmxi_comm_pool *pool, MPI_Comm *dup, int *slot)
{
    dmx_status st = DMX_SUCCESS;
    *dup = MPI_COMM_NULL;
    *slot = -1;
    DMXI_CHECK(!pool->once_st.busy && pool->once != MPI_COMM_NULL, DMX_ERR_STATE,
               "a one-shot call on this communicator is already running (one-shot calls on one "
               "communicator must not overlap, as any collective)");
    pool->once_st.busy = 1;
    dmxi_comm_hold(pool->rec);
    *dup = pool->once;
    *slot = DMXI_SLOT_ONCE;
cleanup:
    return st;
}

dmx_status dmxi_plan_comm_release(MPI_Comm *dup, dmxi_comm_pool *pool, int slot, int keep)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *rec = pool && (slot >= 0 || slot == DMXI_SLOT_ONCE) ? pool->rec : NULL;
    if (*dup == MPI_COMM_NULL)
        return DMX_SUCCESS;
    keep = keep && rec && dmxi_comm_attached(rec);
    if (rec && slot == DMXI_SLOT_ONCE) {
        /* the running call's flag (busy) is cleared by dmxi_plan_once_finish, which also destroys
         * the kept plans before a plan that frees the duplicate (they share it) */
        if (keep)
            *dup = MPI_COMM_NULL; /* kept for the next one-shot call */
        else {
            pool->once = MPI_COMM_NULL; /* freed below: the next one-shot call makes a new one */
            pool->once_st.checked = 0;
        }
    } else if (rec) {
        pool->state[slot] = keep ? SLOT_FREE : SLOT_DEAD; /* kept, with what it carries */
        if (keep)
            *dup = MPI_COMM_NULL;
        else
            pool->dup[slot] = MPI_COMM_NULL;
    }
    /* the pool's memory may go with this reference (a freed communicator): nothing of it below */
    dmxi_comm_release(rec);
    if (*dup != MPI_COMM_NULL)
        DMXI_MPI(MPI_Comm_free(dup));
cleanup:
    return st;
}
