/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator registry: one place for everything dmx keeps with a communicator.
 *
 * One keyval for the process. A communicator dmx works on gets one record, attached on first
 * use; it holds
 *  - the inner duplicate (MPI_Comm_dup of the communicator, MPI_ERRORS_RETURN), made when a
 *    module first asks for it. Collectives and the drop-in talk on it; a module that needs a
 *    context of its own (an exchange in flight, each live plan, the one-shot calls) gets a
 *    duplicate of the inner one (dmxi_comm_dup), so the user's communicator is duplicated once;
 *  - the node communicator of the inner duplicate, made when a module first asks for it;
 *  - one slot per module (comm.h's enum), each a state with a type: a detach function (free the
 *    MPI objects) and a release function (free the memory). The registry knows no module's type.
 * Communicators dmx makes itself (the inner duplicate, dmxi_comm_dup's) get a record marked
 * private, at once: they are their own inner duplicate, so a plan on a drop-in context or the
 * shared window of a plan duplicate needs no further duplicate.
 *
 * One delete callback. It runs inside the user's MPI_Comm_free (collective on the communicator,
 * so its frees are collective too): it detaches the slots in the enum's order, frees the node
 * communicator, then the inner duplicate (whose own record is detached inside that free: nested
 * callbacks), and drops the attachment's reference. A record whose holders (live plans on a
 * pool duplicate) remain keeps its memory until the last one releases it. A callback's failure
 * is returned to MPI (MPICH then fails the outer MPI_Comm_free), so detach functions avoid
 * failing.
 *
 * One finalize hook: the record of MPI_COMM_SELF, made with the keyval. MPI_Finalize deletes
 * MPI_COMM_SELF's attributes first, while MPI still works completely; the callback then
 * detaches every other record of a user communicator in the order they were made (the same on
 * every rank of a communicator, as dmx's calls on it are collective and ordered), then
 * MPI_COMM_SELF's own slots, and frees the keyval. Private records are detached by their owners
 * (freeing the communicator); a private communicator still held by a live plan at MPI_Finalize
 * is left to MPI.
 *
 * Threads: the list of records and the keyval's creation are under a spin lock (never held
 * across an MPI call that can run a callback); references are atomic; the last two records
 * looked up are remembered per thread and trusted only while no record has been detached since. As
 * before, two threads must not make dmx's first call on one communicator at once (a
 * collective call).
 *
 * Cost: a repeated lookup is one or two compares; the first one on a communicator one
 * MPI_Comm_get_attr and one MPI_Comm_set_attr. Memory: about 130 bytes per communicator plus the
 * modules' states. */
#include "comm.h"

#include <stdatomic.h>
#include <stdlib.h>

struct dmxi_comm {
    MPI_Comm comm;  /* the communicator the record is attached to */
    MPI_Comm inner; /* MPI_COMM_NULL until asked for; comm itself when private */
    MPI_Comm node;  /* MPI_COMM_NULL until asked for */
    int nodes;      /* nodes the communicator spans; 0 until asked for */
    int is_private; /* comm was made by dmx */
    int is_self;    /* MPI_COMM_SELF's record: its deletion is MPI_Finalize */
    int attached;   /* comm not freed yet */
    atomic_int refs;
    struct {
        void *state;
        const dmxi_slot_type *type;
    } slot[DMXI_NSLOTS];
    dmxi_comm *prev, *next; /* attached records, oldest first */
};

static int keyval = MPI_KEYVAL_INVALID;
static dmxi_comm *head, *tail; /* attached records, oldest first */
static atomic_flag lock = ATOMIC_FLAG_INIT;
static atomic_ulong generation; /* records detached so far */
/* The last two records this thread looked up (a drop-in call looks up the grid's communicator
 * and then its inner duplicate), trusted while the generation they were found in is current. */
static _Thread_local dmxi_comm *recent[2];
static _Thread_local unsigned long recent_gen[2];
static _Thread_local int recent_next;

static void lock_list(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void unlock_list(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

static void link_record(dmxi_comm *r)
{
    lock_list();
    r->prev = tail;
    r->next = NULL;
    if (tail)
        tail->next = r;
    else
        head = r;
    tail = r;
    unlock_list();
}

static void unlink_record(dmxi_comm *r)
{
    lock_list();
    if (r->prev)
        r->prev->next = r->next;
    else if (head == r)
        head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else if (tail == r)
        tail = r->prev;
    r->prev = r->next = NULL;
    unlock_list();
    atomic_fetch_add(&generation, 1);
}

static int merge_rc(int rc, int r)
{
    return rc == MPI_SUCCESS ? r : rc;
}

void dmxi_comm_hold(dmxi_comm *rec)
{
    atomic_fetch_add(&rec->refs, 1);
}

void dmxi_comm_release(dmxi_comm *rec)
{
    if (!rec || atomic_fetch_sub(&rec->refs, 1) != 1)
        return;
    for (int i = 0; i < DMXI_NSLOTS; i++) {
        void *s = rec->slot[i].state;
        if (!s)
            continue;
        if (rec->slot[i].type && rec->slot[i].type->release)
            rec->slot[i].type->release(s);
        else
            free(s);
    }
    free(rec);
}

int dmxi_comm_attached(const dmxi_comm *rec)
{
    return rec && rec->attached;
}

/* Free what the record holds of MPI: the slots' objects in the enum's order, the node
 * communicator, the inner duplicate. Inside MPI_Comm_free or MPI_Finalize. */
static int detach(dmxi_comm *r)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < DMXI_NSLOTS; i++)
        if (r->slot[i].state && r->slot[i].type && r->slot[i].type->detach)
            rc = merge_rc(rc, r->slot[i].type->detach(r->slot[i].state));
    /* cleared only now: a slot's detach (the pool's kept one-shot plans) may still keep its
     * duplicates for the others it frees itself */
    r->attached = 0;
    unlink_record(r);
    if (r->node != MPI_COMM_NULL)
        rc = merge_rc(rc, MPI_Comm_free(&r->node));
    if (r->inner != MPI_COMM_NULL && !r->is_private)
        rc = merge_rc(rc, MPI_Comm_free(&r->inner)); /* detaches the inner's record */
    r->inner = MPI_COMM_NULL;
    return rc;
}

/* MPI_Finalize: detach every record of a user communicator still attached, oldest first. A
 * reference held across the call keeps the record readable afterwards; one MPI would not
 * detach is dropped from the list and left to MPI. */
static int detach_all(void)
{
    int rc = MPI_SUCCESS;
    for (;;) {
        lock_list();
        dmxi_comm *r = head;
        while (r && (r->is_private || r->is_self))
            r = r->next;
        if (r)
            dmxi_comm_hold(r);
        unlock_list();
        if (!r)
            break;
        rc = merge_rc(rc, MPI_Comm_delete_attr(r->comm, keyval)); /* runs record_delete */
        if (r->attached) {
            r->attached = 0;
            unlink_record(r);
        }
        dmxi_comm_release(r);
    }
    return rc;
}

#ifdef DMX_SIM_WAIT
/* Simulation builds only. SimGrid's SMPI (3.32) gives every rank of a communicator made by
 * MPI_Comm_create or MPI_Comm_split the same object, attributes included, and the first rank to
 * free it runs every attribute's delete callback: the other ranks' records would be detached in
 * that rank's context (its list, its keyval), and the job ends in MPI_Comm_delete_attr's
 * MPI_ERR_OTHER at the next free. So each rank deletes its own attribute first, a barrier waits
 * for all of them, and only then is the communicator freed (MPI_Comm_free is collective). This
 * definition takes the place of SMPI's for the program and dmx alike. */
int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && *comm != MPI_COMM_NULL) {
        void *attr = NULL;
        int flag = 0, rc = MPI_SUCCESS;
        if (keyval != MPI_KEYVAL_INVALID)
            rc = PMPI_Comm_get_attr(*comm, keyval, &attr, &flag);
        if (rc == MPI_SUCCESS && flag)
            rc = PMPI_Comm_delete_attr(*comm, keyval);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Barrier(*comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Comm_free(comm);
}
#endif

/* The one delete callback: the communicator is being freed, or (MPI_COMM_SELF) MPI_Finalize. */
static int record_delete(MPI_Comm comm, int kv, void *attr, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    dmxi_comm *r = attr;
    int rc = MPI_SUCCESS;
    if (r->is_self)
        rc = detach_all();
    rc = merge_rc(rc, detach(r));
    if (r->is_self) {
        int k = keyval;
        keyval = MPI_KEYVAL_INVALID;
        rc = merge_rc(rc, MPI_Comm_free_keyval(&k));
    }
    dmxi_comm_release(r);
    return rc;
}

/* Attach a new record to comm. Local. */
static dmx_status attach(MPI_Comm comm, int is_private, int is_self, dmxi_comm **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *r = calloc(1, sizeof *r);
    DMXI_CHECK(r, DMX_ERR_ALLOC, "out of memory (communicator record)");
    r->comm = comm;
    r->inner = is_private ? comm : MPI_COMM_NULL;
    r->node = MPI_COMM_NULL;
    r->is_private = is_private;
    r->is_self = is_self;
    r->attached = 1;
    atomic_init(&r->refs, 1);
    DMXI_MPI(MPI_Comm_set_attr(comm, keyval, r));
    link_record(r);
    *out = r;
    r = NULL;
cleanup:
    free(r);
    return st;
}

/* The keyval and MPI_COMM_SELF's record (the finalize hook), made once. */
static dmx_status ensure_keyval(void)
{
    dmx_status st = DMX_SUCCESS;
    lock_list();
    if (keyval == MPI_KEYVAL_INVALID) {
        dmxi_comm *self = NULL;
        int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &keyval, NULL);
        unlock_list(); /* attach takes it again */
        DMXI_MPI(rc);
        st = attach(MPI_COMM_SELF, 0, 1, &self);
        if (st != DMX_SUCCESS)
            DMXI_MPI_ALL(MPI_Comm_free_keyval(&keyval));
        return st;
    }
    unlock_list();
cleanup:
    return st;
}

dmx_status dmxi_comm_get(MPI_Comm comm, dmxi_comm **rec)
{
    dmx_status st = DMX_SUCCESS;
    for (int i = 0; i < 2; i++)
        if (recent[i] && recent_gen[i] == atomic_load(&generation) && recent[i]->comm == comm) {
            *rec = recent[i];
            return DMX_SUCCESS;
        }
    *rec = NULL;
    DMXI_CHECK(comm != MPI_COMM_NULL, DMX_ERR_ARG, "communicator is MPI_COMM_NULL");
    DMXI_TRY(ensure_keyval());
    void *v = NULL;
    int flag = 0;
    const unsigned long gen = atomic_load(&generation);
    DMXI_MPI(MPI_Comm_get_attr(comm, keyval, &v, &flag));
    if (flag)
        *rec = v;
    else
        DMXI_TRY(attach(comm, 0, 0, rec));
    recent[recent_next] = *rec;
    recent_gen[recent_next] = gen;
    recent_next ^= 1;
cleanup:
    return st;
}

void *dmxi_comm_slot(const dmxi_comm *rec, dmxi_slot_id id)
{
    return rec->slot[id].state;
}

dmx_status dmxi_comm_set_slot(dmxi_comm *rec, dmxi_slot_id id, const dmxi_slot_type *type,
                              void *state)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(id >= 0 && id < DMXI_NSLOTS && !rec->slot[id].state, DMX_ERR_INTERNAL,
               "communicator slot %d taken or out of range", (int)id);
    rec->slot[id].type = type;
    rec->slot[id].state = state;
cleanup:
    return st;
}

/* A duplicate of parent with MPI_ERRORS_RETURN and a private record. Collective. */
static dmx_status private_dup(MPI_Comm parent, MPI_Comm *out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *r = NULL;
    *out = MPI_COMM_NULL;
#ifdef DMX_SIM_WAIT
    /* Simulation builds: SimGrid's SMPI (3.32) copies the group in MPI_Comm_dup, 12 bytes per
     * pair of ranks (3.2 GB of the simulator's memory at 16,384 ranks, docs/scale.md), while
     * MPI_Comm_create with the parent's own group shares it: the same group in a new context,
     * which is what a duplicate is (dmx copies no attributes). */
    MPI_Group grp = MPI_GROUP_NULL;
    DMXI_MPI(MPI_Comm_group(parent, &grp));
    int rc = MPI_Comm_create(parent, grp, out);
    MPI_Group_free(&grp);
    DMXI_MPI(rc);
#else
    DMXI_MPI(MPI_Comm_dup(parent, out));
#endif
    DMXI_MPI(MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN));
    DMXI_TRY(attach(*out, 1, 0, &r));
cleanup:
    if (st != DMX_SUCCESS && *out != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(out));
    return st;
}

dmx_status dmxi_comm_inner(dmxi_comm *rec, MPI_Comm *inner)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(rec->attached, DMX_ERR_STATE, "the communicator has been freed");
    if (rec->inner == MPI_COMM_NULL)
        DMXI_TRY(private_dup(rec->comm, &rec->inner));
    *inner = rec->inner;
cleanup:
    return st;
}

dmx_status dmxi_comm_node(dmxi_comm *rec, MPI_Comm *node)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm inner = MPI_COMM_NULL;
    if (rec->node == MPI_COMM_NULL) {
        DMXI_TRY(dmxi_comm_inner(rec, &inner));
        DMXI_TRY(dmxi_node_split(inner, &rec->node));
    }
    *node = rec->node;
cleanup:
    return st;
}

dmx_status dmxi_comm_nodes(dmxi_comm *rec, int *nodes)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm node = MPI_COMM_NULL, inner = MPI_COMM_NULL;
    int nrank = 0, leader = 0, count = 0;
    if (rec->nodes == 0) { /* count the node leaders (rank 0 of each node communicator) */
        DMXI_TRY(dmxi_comm_node(rec, &node));
        DMXI_TRY(dmxi_comm_inner(rec, &inner));
        DMXI_MPI(MPI_Comm_rank(node, &nrank));
        leader = nrank == 0;
        DMXI_MPI(MPI_Allreduce(&leader, &count, 1, MPI_INT, MPI_SUM, inner));
        rec->nodes = count;
    }
    *nodes = rec->nodes;
cleanup:
    return st;
}

dmx_status dmxi_comm_dup(dmxi_comm *rec, MPI_Comm *dup)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm inner = MPI_COMM_NULL;
    *dup = MPI_COMM_NULL;
    DMXI_TRY(dmxi_comm_inner(rec, &inner));
    DMXI_TRY(private_dup(inner, dup));
cleanup:
    return st;
}

/* ---- the public calls for libraries on dmx (the ScaLAPACK drop-in) ------------------------- */

typedef struct ext_state {
    void *state;
    dmx_comm_state_free fn;
} ext_state;

static int ext_detach(void *s)
{
    ext_state *e = s;
    if (e->state && e->fn)
        e->fn(e->state);
    e->state = NULL;
    return MPI_SUCCESS;
}

static const dmxi_slot_type ext_type = {ext_detach, NULL};

dmx_status dmx_comm_inner(MPI_Comm comm, MPI_Comm *inner)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *r = NULL;
    DMXI_CHECK(inner, DMX_ERR_NULL, "inner is NULL");
    *inner = MPI_COMM_NULL;
    DMXI_TRY(dmxi_comm_get(comm, &r));
    DMXI_TRY(dmxi_comm_inner(r, inner));
cleanup:
    return st;
}

dmx_status dmx_comm_state(MPI_Comm comm, void **state)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *r = NULL;
    DMXI_CHECK(state, DMX_ERR_NULL, "state is NULL");
    *state = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &r));
    const ext_state *e = dmxi_comm_slot(r, DMXI_SLOT_DROPIN);
    *state = e ? e->state : NULL;
cleanup:
    return st;
}

dmx_status dmx_comm_set_state(MPI_Comm comm, void *state, dmx_comm_state_free fn)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_comm *r = NULL;
    DMXI_TRY(dmxi_comm_get(comm, &r));
    ext_state *e = dmxi_comm_slot(r, DMXI_SLOT_DROPIN);
    if (!e) {
        e = calloc(1, sizeof *e);
        DMXI_CHECK(e, DMX_ERR_ALLOC, "out of memory");
        st = dmxi_comm_set_slot(r, DMXI_SLOT_DROPIN, &ext_type, e);
        if (st != DMX_SUCCESS) {
            free(e);
            goto cleanup;
        }
    }
    DMXI_CHECK(!e->state || !state, DMX_ERR_STATE, "the communicator already has a state");
    e->state = state;
    e->fn = fn;
cleanup:
    return st;
}
