/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator registry: everything dmx keeps with a communicator, in one record attached
 * under one keyval (comm.c has the rules, docs/architecture.md the list). */
#ifndef DMXI_COMM_H
#define DMXI_COMM_H

#include "dmxi.h"

/* The modules' states kept with a communicator. The order is the order in which they are
 * detached when the communicator is freed: the drop-in first (its context), then the plan cache
 * (it destroys plans), then the plan pool (its duplicates carry the shared windows), then the
 * rest. */
typedef enum dmxi_slot_id {
    DMXI_SLOT_DROPIN,     /* scalapack drop-in's context (dmx_comm_set_state) */
    DMXI_SLOT_CACHE,      /* plan/plan_cache.c: the plans kept between calls */
    DMXI_SLOT_PLAN,       /* plan/plan_comm.c: the pool of plan duplicates, one-shot state */
    DMXI_SLOT_COLL,       /* coll/coll_common.c: grid, node count, AUTO's memo */
    DMXI_SLOT_EXCHANGE,   /* exchange/exchange_common.c: duplicate, round counter, RSX window */
    DMXI_SLOT_SHM,        /* exec/shm.c: the kept shared window (on a plan's duplicate) */
    DMXI_SLOT_LAYOUT_IDS, /* layout/layout.c: the reserved range of layout ids */
    DMXI_NSLOTS
} dmxi_slot_id;

/* What the registry calls for a slot's state; the module that sets the state supplies it. */
typedef struct dmxi_slot_type {
    /* The communicator is being freed (inside the user's MPI_Comm_free, so collectively) or MPI
     * is finalizing: free the MPI objects the state holds. May free communicators and windows;
     * must not fail where it can avoid it (MPICH makes a failing callback fatal to the outer
     * MPI_Comm_free). Returns an MPI error code. NULL: nothing to free. */
    int (*detach)(void *state);
    /* The record's last reference is gone: free the state's memory. NULL: free(state). */
    void (*release)(void *state);
} dmxi_slot_type;

typedef struct dmxi_comm dmxi_comm;

/* The record of comm, attached on first use (MPI_Comm_set_attr). Local. Repeats on the same
 * communicator in one thread cost one compare. */
dmx_status dmxi_comm_get(MPI_Comm comm, dmxi_comm **rec);

/* The state in slot id, NULL if none. Local. */
void *dmxi_comm_slot(const dmxi_comm *rec, dmxi_slot_id id);

/* Keep state in slot id (empty) with its type (static storage). Local. */
dmx_status dmxi_comm_set_slot(dmxi_comm *rec, dmxi_slot_id id, const dmxi_slot_type *type,
                              void *state);

/* The inner duplicate (MPI_ERRORS_RETURN), made on first use: collective on the communicator
 * then. A communicator dmx made itself is its own inner duplicate. */
dmx_status dmxi_comm_inner(dmxi_comm *rec, MPI_Comm *inner);

/* The node communicator of the inner duplicate (dmxi_node_split), made on first use:
 * collective then. */
dmx_status dmxi_comm_node(dmxi_comm *rec, MPI_Comm *node);

/* The number of nodes the communicator spans (the leaders of its node communicator), counted
 * once: collective then (one MPI_Allreduce on the inner duplicate), local afterwards. */
dmx_status dmxi_comm_nodes(dmxi_comm *rec, int *nodes);

/* A further duplicate of the inner one (MPI_ERRORS_RETURN), for a module that needs a context
 * of its own (an exchange in flight, a live plan); the caller frees it with MPI_Comm_free.
 * Collective. */
dmx_status dmxi_comm_dup(dmxi_comm *rec, MPI_Comm *dup);

/* References: the attachment holds one; a holder (a live plan on a pool duplicate) keeps the
 * record and its states' memory after the communicator is freed. Local, thread-safe. */
void dmxi_comm_hold(dmxi_comm *rec);
void dmxi_comm_release(dmxi_comm *rec);

/* Whether the record is still attached (its communicator not freed). Local. */
int dmxi_comm_attached(const dmxi_comm *rec);

#endif /* DMXI_COMM_H */
