/* SPDX-License-Identifier: BSD-3-Clause */
/* The plans' private communicators, kept across plans.
 *
 * Algorithm: every plan runs on a private duplicate of its first layout's communicator (its
 * messages and tags cannot meet the user's or another live plan's). Instead of MPI_Comm_dup at
 * each dmx_plan_create and MPI_Comm_free at each dmx_plan_destroy (blocking collectives, which
 * spin under MPICH and cost a time slice each when ranks outnumber cores), the duplicates are
 * kept in a pool, an attribute of the user's communicator: a slot is either in use by one live
 * plan or free. dmx_plan_create takes the lowest free slot and dmx_plan_destroy gives it back,
 * so two live plans never share a duplicate, and whatever a duplicate carries (the engine's node
 * communicator and shared window, shm.c; the exchange's cache) is reused by the next plan on it.
 *
 * One-shot calls (dmx_transform_once's plans when they make no agreement, plan_small.c) use a
 * further duplicate of their own, made by the first one on every rank and never handed to a
 * persistent plan; the pool also keeps the last one-shot plans (which share that duplicate) and
 * destroys them with the pool, and the key of the last one-shot call that passed its checks. The
 * pool looked up last is remembered, so calls in a row on one communicator find it without
 * MPI_Comm_get_attr (a hash lookup in the MPI library, ~20 ns of a 100 ns call).
 *
 * Preconditions: plan creation is collective on the communicator. The ranks' pools agree when
 * every rank creates and destroys the plans of a communicator in the same order; the choice of
 * slot is agreed anyway (it rides on the argument agreement's reduction), and when ranks
 * disagree the plan gets a duplicate of its own, freed with it, as does a plan beyond
 * DMX_COMM_CACHE live ones and a plan whose execution broke (messages may be left on it).
 *
 * Cost per dmx_plan_create: one allreduce of three integers (it replaces the argument
 * agreement's one, so it adds nothing); MPI_Comm_dup only when no free slot is left. Destroy is
 * local for a kept duplicate. Memory: DMX_COMM_CACHE (default 4) duplicates per communicator
 * and what they carry (each at most DMX_SHM_CACHE_BYTES of shared window, shm.c). All of it is
 * freed when the user frees the communicator (the attribute's delete callback, collective as
 * MPI_Comm_free is) or at MPI_Finalize (an attribute of MPI_COMM_SELF frees every pool left).
 */
#include "plan.h"

#include <stdatomic.h>
#include <string.h>

struct dmxi_comm_pool {
    MPI_Comm comm;           /* the user's communicator the pool is attached to */
    MPI_Comm *dup;           /* slot -> duplicate (MPI_COMM_NULL: not made yet) */
    unsigned char *state;    /* slot -> SLOT_FREE, SLOT_USED or SLOT_DEAD */
    int n, cap;              /* slots made, slots allowed (DMX_COMM_CACHE when made) */
    int attached;            /* still the attribute of comm */
    int users;               /* live plans holding a slot or the one-shot duplicate */
    MPI_Comm once;           /* the one-shot calls' duplicate (MPI_COMM_NULL: not made yet) */
    dmxi_once_state once_st; /* the kept one-shot plans and last key (plan_small.c) */
    dmxi_comm_pool *next;    /* every pool of this process, for MPI_Finalize */
};

enum { SLOT_FREE, SLOT_USED, SLOT_DEAD };

static int pool_keyval = MPI_KEYVAL_INVALID;
static int final_keyval = MPI_KEYVAL_INVALID;
static dmxi_comm_pool *pools; /* attached pools */
/* The pool pool_get returned last in this thread: found again by comparing the handle, without
 * MPI_Comm_get_attr. Per thread, so threads working on different communicators do not share it;
 * valid only while no pool has been detached since it was taken (pool_gen counts detachments,
 * in any thread), so a freed pool is never reached through it and a new communicator with an
 * old handle is looked up again. */
static _Thread_local dmxi_comm_pool *recent;
static _Thread_local unsigned long recent_gen;
static atomic_ulong pool_gen;

static dmxi_comm_pool *recent_pool(MPI_Comm comm)
{
    return recent && recent_gen == atomic_load(&pool_gen) && recent->comm == comm ? recent : NULL;
}

static void set_recent(dmxi_comm_pool *p)
{
    recent_gen = atomic_load(&pool_gen);
    recent = p;
}

static void unlink_pool(dmxi_comm_pool *p)
{
    atomic_fetch_add(&pool_gen, 1);
    if (recent == p)
        recent = NULL;
    for (dmxi_comm_pool **q = &pools; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            return;
        }
}

static void pool_release_memory(dmxi_comm_pool *p)
{
    free(p->dup);
    free(p->state);
    free(p);
}

/* Delete callback: the user freed the communicator (or MPI_Finalize, below). Frees the free
 * duplicates (collective, as the user's MPI_Comm_free is); slots in use stay with their plans,
 * which free them at destroy. */
static int pool_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    dmxi_comm_pool *p = attr;
    int rc = MPI_SUCCESS;
    p->once_st.checked = 0;
    while (p->once_st.nplan > 0) /* each gives the one-shot duplicate back, freed below */
        if (dmx_plan_destroy(&p->once_st.plan[--p->once_st.nplan]) != DMX_SUCCESS)
            rc = MPI_ERR_OTHER;
    for (int i = 0; i < p->n; i++)
        if (p->state[i] == SLOT_FREE && p->dup[i] != MPI_COMM_NULL) {
            int r = MPI_Comm_free(&p->dup[i]);
            rc = rc == MPI_SUCCESS ? r : rc;
        }
    if (!p->once_st.busy && p->once != MPI_COMM_NULL) {
        int r = MPI_Comm_free(&p->once);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    p->attached = 0;
    unlink_pool(p);
    if (p->users == 0)
        pool_release_memory(p);
    return rc;
}

/* First thing in MPI_Finalize (attributes of MPI_COMM_SELF go first, while MPI works): detach
 * every pool left, in the order they were made (the same on every rank of a communicator, as
 * plan creation is collective), then free the keyval. */
static int final_hook(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)attr;
    (void)extra;
    int rc = MPI_SUCCESS;
    while (pools) {
        dmxi_comm_pool *p = pools;
        while (p->next)
            p = p->next; /* the oldest: pools are pushed at the front */
        /* MPI_COMM_SELF's own attributes are being deleted right now: MPI calls pool_delete
         * for its pool itself */
        if (p->comm == MPI_COMM_SELF) {
            unlink_pool(p);
            continue;
        }
        int r = MPI_Comm_delete_attr(p->comm, pool_keyval);
        rc = rc == MPI_SUCCESS ? r : rc;
        if (r != MPI_SUCCESS)
            unlink_pool(p); /* cannot detach: drop it from the list, leave it to MPI */
    }
    if (pool_keyval != MPI_KEYVAL_INVALID) {
        int r = MPI_Comm_free_keyval(&pool_keyval);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    return rc;
}

/* The pool of comm, attached on first use. Local. */
static dmx_status pool_get(MPI_Comm comm, dmxi_comm_pool **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm_pool *p = NULL;
    *out = NULL;
    if ((*out = recent_pool(comm)) != NULL)
        return st;
    if (pool_keyval == MPI_KEYVAL_INVALID) {
        DMXI_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pool_delete, &pool_keyval, NULL));
        if (final_keyval == MPI_KEYVAL_INVALID) {
            DMXI_MPI(
                MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, final_hook, &final_keyval, NULL));
            DMXI_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, final_keyval, NULL));
        }
    }
    void *v = NULL;
    int flag = 0;
    DMXI_MPI(MPI_Comm_get_attr(comm, pool_keyval, &v, &flag));
    if (flag) {
        *out = v;
        set_recent(v);
        goto cleanup;
    }
    int64_t cap = dmxi_setting_int(DMXI_SET_COMM_CACHE);
    cap = cap > 64 ? 64 : cap;
    p = calloc(1, sizeof *p);
    DMXI_CHECK(p, DMX_ERR_ALLOC, "out of memory (communicator pool)");
    p->comm = comm;
    p->once = MPI_COMM_NULL;
    p->cap = (int)cap;
    if (cap > 0) {
        p->dup = dmxi_malloc(cap, sizeof *p->dup);
        p->state = dmxi_malloc(cap, sizeof *p->state);
        DMXI_CHECK(p->dup && p->state, DMX_ERR_ALLOC, "out of memory (communicator pool)");
    }
    DMXI_MPI(MPI_Comm_set_attr(comm, pool_keyval, p));
    p->attached = 1;
    p->next = pools;
    pools = p;
    *out = p;
    set_recent(p);
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
        DMXI_MPI(MPI_Comm_dup(comm, dup));
        DMXI_MPI(MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN));
        if (!agreed)
            goto cleanup; /* a duplicate of its own */
        p->dup[p->n] = *dup;
        p->state[p->n] = SLOT_FREE;
        p->n++;
    }
    p->state[choice] = SLOT_USED;
    p->users++;
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
    DMXI_MPI(MPI_Iallreduce(buf, buf + 3, 3, MPI_INT64_T, MPI_MAX, comm, &req));
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
        DMXI_MPI(MPI_Comm_dup(comm, &p->once));
        DMXI_MPI(MPI_Comm_set_errhandler(p->once, MPI_ERRORS_RETURN));
    }
    *pool = p;
    *once = &p->once_st;
cleanup:
    return st;
}

dmxi_once_state *dmxi_plan_comm_once_peek(MPI_Comm comm)
{
    dmxi_comm_pool *p = recent_pool(comm);
    if (!p && pool_get(comm, &p) != DMX_SUCCESS) {
        p = NULL;
        dmxi_error_clear(); /* the caller's full path meets the failure again and reports it */
    }
    return p && p->attached && p->once != MPI_COMM_NULL ? &p->once_st : NULL;
}

dmxi_once_state *dmxi_plan_comm_once_kept(dmxi_comm_pool *pool)
{
    return pool && pool->attached ? &pool->once_st : NULL;
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
    pool->users++;
    *dup = pool->once;
    *slot = DMXI_SLOT_ONCE;
cleanup:
    return st;
}

dmx_status dmxi_plan_comm_release(MPI_Comm *dup, dmxi_comm_pool *pool, int slot, int keep)
{
    dmx_status st = DMX_SUCCESS;
    if (*dup == MPI_COMM_NULL)
        return DMX_SUCCESS;
    if (pool && slot == DMXI_SLOT_ONCE) {
        /* the running call's flag (busy) is cleared by dmxi_plan_once_finish, which also destroys
         * the kept plans before a plan that frees the duplicate (they share it) */
        pool->users--;
        if (keep && pool->attached) {
            *dup = MPI_COMM_NULL; /* kept for the next one-shot call */
            return DMX_SUCCESS;
        }
        pool->once = MPI_COMM_NULL; /* freed below: the next one-shot call makes a new one */
        pool->once_st.checked = 0;
        if (!pool->attached && pool->users == 0)
            pool_release_memory(pool);
    } else if (pool && slot >= 0) {
        pool->users--;
        if (keep && pool->attached) {
            pool->state[slot] = SLOT_FREE; /* kept, with what it carries */
            *dup = MPI_COMM_NULL;
            return DMX_SUCCESS;
        }
        pool->state[slot] = SLOT_DEAD;
        pool->dup[slot] = MPI_COMM_NULL;
        if (!pool->attached && pool->users == 0)
            pool_release_memory(pool);
    }
    DMXI_MPI(MPI_Comm_free(dup));
cleanup:
    return st;
}
