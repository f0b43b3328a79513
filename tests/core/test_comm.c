/* SPDX-License-Identifier: BSD-3-Clause */
/* What dmx attaches to a communicator (src/core/comm.c): every module's state on one user
 * communicator, then freed with it, and the same left for MPI_Finalize.
 *
 * On a user communicator U: layouts (their id range), a plan created, executed and destroyed
 * (the plan pool and the shared window of its duplicate), a one-shot transform (the one-shot
 * duplicate and its kept plans), exchanges (the exchange's duplicate), collectives with the grid
 * algorithm (the inner duplicate, the node communicator, the grid's row and column
 * communicators) and a library state kept as the ScaLAPACK drop-in keeps its own (dmx_comm_inner
 * and dmx_comm_set_state, with a plan on the inner duplicate destroyed by the state's free
 * function). Every result is checked against a serial reference or MPI's own collective.
 *
 * This program defines MPI_Comm_dup, MPI_Comm_split, MPI_Comm_split_type, MPI_Comm_free, the
 * window calls and MPI_Comm_create_keyval / MPI_Comm_free_keyval, forwarding to PMPI_*, and
 * keeps the communicators and windows made through them (dmx is linked statically into the
 * test, so its calls come here; the test's own communicators are made through PMPI_*). It
 * checks that
 *  - each user communicator is duplicated at most once (every other duplicate dmx makes is of a
 *    communicator dmx made itself), and dmx makes one keyval;
 *  - MPI_Comm_free(U) frees every communicator and window dmx made under U, and runs the
 *    library state's free function once;
 *  - with states left on MPI_COMM_WORLD, on a communicator the program never frees and on
 *    MPI_COMM_SELF, MPI_Finalize frees every communicator and window dmx made and the keyval
 *    (checked after PMPI_Finalize returns; a leftover makes the exit code nonzero).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "dmx/expert.h"
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counting MPI calls ------------------------------------------------------------------ */

enum { MAXLIVE = 512 };
static int counting;
static struct {
    MPI_Comm comm, parent;
} live[MAXLIVE]; /* communicators made through the calls below and not freed */
static int nlive, overflow;
static MPI_Win wlive[MAXLIVE];
static int nwlive;
static long n_keyval_create, n_keyval_free;
static MPI_Comm user_comms[8]; /* the user communicators watched for duplicates */
static long user_dups[8];
static int nuser;

static void add_comm(MPI_Comm c, MPI_Comm parent)
{
    if (!counting || c == MPI_COMM_NULL)
        return;
    for (int u = 0; u < nuser; u++)
        if (parent == user_comms[u])
            user_dups[u]++;
    if (nlive < MAXLIVE) {
        live[nlive].comm = c;
        live[nlive++].parent = parent;
    } else {
        overflow = 1;
    }
}

static int is_live(MPI_Comm c)
{
    for (int i = 0; i < nlive; i++)
        if (live[i].comm == c)
            return 1;
    return 0;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS)
        add_comm(*newcomm, comm);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS)
        add_comm(*newcomm, MPI_COMM_NULL); /* not a duplicate */
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
    if (rc == MPI_SUCCESS)
        add_comm(*newcomm, MPI_COMM_NULL);
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    for (int i = 0; i < nlive; i++)
        if (live[i].comm == *comm) {
            live[i] = live[--nlive];
            break;
        }
    return PMPI_Comm_free(comm);
}

static void add_win(MPI_Win w)
{
    if (counting && nwlive < MAXLIVE)
        wlive[nwlive++] = w;
    else if (counting)
        overflow = 1;
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    int rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
    if (rc == MPI_SUCCESS)
        add_win(*win);
    return rc;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    int rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
    if (rc == MPI_SUCCESS)
        add_win(*win);
    return rc;
}

int MPI_Win_free(MPI_Win *win)
{
    for (int i = 0; i < nwlive; i++)
        if (wlive[i] == *win) {
            wlive[i] = wlive[--nwlive];
            break;
        }
    return PMPI_Win_free(win);
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                           int *keyval, void *extra)
{
    n_keyval_create++;
    return PMPI_Comm_create_keyval(copy, del, keyval, extra);
}

int MPI_Comm_free_keyval(int *keyval)
{
    n_keyval_free++;
    return PMPI_Comm_free_keyval(keyval);
}

/* After MPI_Finalize: everything dmx made must be gone. */
static int finalize_leftovers;

int MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = PMPI_Finalize();
    if (nlive || nwlive || overflow || n_keyval_create != 1 || n_keyval_free != 1) {
        fprintf(stderr,
                "FAIL [test_comm] rank %d after MPI_Finalize: %d communicators and %d windows "
                "made by dmx left, %ld keyvals made, %ld freed (want 1, 1)%s\n",
                rank, nlive, nwlive, n_keyval_create, n_keyval_free,
                overflow ? " (too many to track)" : "");
        finalize_leftovers = 1;
    }
    return rc;
}

/* ---- the modules' states ------------------------------------------------------------------ */

/* A plan and a one-shot transform between block-cyclic layouts on comm, results checked. */
static void plan_and_once(MPI_Comm comm, int size, dmxt_checker *C, const char *where)
{
    dmxt_matrix A, B;
    dmxt_matrix_bc(&A, comm, DMX_DOUBLE, 23, 17, 3, 2, 1, size, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&B, comm, DMX_DOUBLE, 17, 23, 2, 5, size, 1, 'C', NULL, 0, 0, 0);
    if (dmxt_matrix_create(&A) != DMX_SUCCESS || dmxt_matrix_create(&B) != DMX_SUCCESS) {
        dmxt_fail(C, "%s: layouts: %s", where, dmx_last_error());
        goto done;
    }
    dmxt_expect e = {
        .dtype = DMX_DOUBLE, .op = DMX_OP_T, .alpha = {1, 0}, .kb = 2, .am = 23, .an = 17};
    char msg[400] = "";
    /* the shared-window engine (plan pool, window kept on the plan's duplicate) */
    setenv("DMX_SMALL_BYTES", "0", 1);
    dmx_transform t = {DMX_DOUBLE, DMX_OP_T, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
    dmx_plan *p = NULL;
    dmxt_fill(&A, 0);
    dmxt_fill(&B, 2);
    if (dmx_plan_create(1, &t, &p) != DMX_SUCCESS || dmx_plan_execute(p) != DMX_SUCCESS)
        dmxt_fail(C, "%s: plan: %s", where, dmx_last_error());
    else if (dmxt_check_result(&A, &e, msg, sizeof msg))
        dmxt_fail(C, "%s: plan: %s", where, msg);
    dmx_plan_destroy(&p);
    unsetenv("DMX_SMALL_BYTES");
    /* one-shot, twice (the second takes the kept plan) */
    for (int k = 0; k < 2; k++) {
        dmxt_fill(&A, 0);
        dmxt_fill(&B, 3 + k);
        e.kb = 3 + k;
        if (dmx_transform_once(DMX_DOUBLE, DMX_OP_T, (dmx_scalar){1, 0}, B.layout,
                               (dmx_scalar){0, 0}, A.layout) != DMX_SUCCESS)
            dmxt_fail(C, "%s: one-shot: %s", where, dmx_last_error());
        else if (dmxt_check_result(&A, &e, msg, sizeof msg))
            dmxt_fail(C, "%s: one-shot %d: %s", where, k, msg);
    }
done:
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
}

/* Each rank sends one int64 to the next; checks what came from the previous one. */
static void exchange(MPI_Comm comm, int rank, int size, dmx_exchange_protocol proto,
                     dmxt_checker *C, const char *where)
{
    int64_t out = 1000 * (int64_t)rank + (rank + 1) % size;
    dmx_exchange_send s = {(rank + 1) % size, &out, sizeof out};
    dmx_exchange_result *res = NULL;
    int64_t n = -1, bytes = 0;
    int src = -1;
    const void *data = NULL;
    if (dmx_exchange(comm, proto, 1, &s, &res) != DMX_SUCCESS ||
        dmx_exchange_result_get_count(res, &n) != DMX_SUCCESS || n != 1 ||
        dmx_exchange_result_get(res, 0, &src, &data, &bytes) != DMX_SUCCESS) {
        dmxt_fail(C, "%s: exchange %s: %s (count %lld)", where, dmx_exchange_protocol_name(proto),
                  dmx_last_error(), (long long)n);
    } else {
        int64_t got = 0;
        memcpy(&got, data, sizeof got);
        const int prev = (rank + size - 1) % size;
        if (src != prev || bytes != 8 || got != 1000 * (int64_t)prev + rank)
            dmxt_fail(C, "%s: exchange %s: got %lld from %d", where,
                      dmx_exchange_protocol_name(proto), (long long)got, src);
    }
    dmx_exchange_result_destroy(&res);
}

/* Allgather by the grid algorithm (its row and column communicators) and allreduce by AUTO,
 * against MPI's own. */
static void collectives(MPI_Comm comm, int rank, int size, dmxt_checker *C, const char *where)
{
    double in[5], want[5], got[5];
    for (int i = 0; i < 5; i++)
        in[i] = rank * 10.0 + i;
    PMPI_Allreduce(in, want, 5, MPI_DOUBLE, MPI_SUM, comm);
    if (dmx_coll_allreduce(in, got, 5, MPI_DOUBLE, MPI_SUM, comm, DMX_COLL_AUTO) != DMX_SUCCESS)
        dmxt_fail(C, "%s: allreduce: %s", where, dmx_last_error());
    else if (memcmp(got, want, sizeof got) != 0)
        dmxt_fail(C, "%s: allreduce: got %g, want %g", where, got[0], want[0]);
    int all[64] = {0}, mine = 7 * rank + 1;
    if (dmx_coll_allgather(&mine, all, 1, MPI_INT, comm, DMX_COLL_GRID) != DMX_SUCCESS)
        dmxt_fail(C, "%s: allgather: %s", where, dmx_last_error());
    else
        for (int r = 0; r < size && r < 64; r++)
            if (all[r] != 7 * r + 1) {
                dmxt_fail(C, "%s: allgather: block %d holds %d", where, r, all[r]);
                break;
            }
}

/* A library's state, as the ScaLAPACK drop-in keeps its context: a plan on dmx's inner duplicate,
 * destroyed by the free function (inside MPI_Comm_free of the communicator, or MPI_Finalize). */
typedef struct lib_state {
    dmxt_matrix A, B;
    dmx_plan *plan;
} lib_state;

static int lib_frees;

static void lib_free(void *v)
{
    lib_state *s = v;
    dmx_plan_destroy(&s->plan);
    dmxt_matrix_free(&s->A);
    dmxt_matrix_free(&s->B);
    free(s);
    lib_frees++;
}

static void library(MPI_Comm comm, int size, dmxt_checker *C, const char *where)
{
    MPI_Comm inner = MPI_COMM_NULL, again = MPI_COMM_NULL;
    void *v = NULL;
    if (dmx_comm_inner(comm, &inner) != DMX_SUCCESS ||
        dmx_comm_inner(comm, &again) != DMX_SUCCESS || inner != again || inner == comm ||
        dmx_comm_state(comm, &v) != DMX_SUCCESS || v) {
        dmxt_fail(C, "%s: dmx_comm_inner / dmx_comm_state: %s", where, dmx_last_error());
        return;
    }
    lib_state *s = calloc(1, sizeof *s);
    dmxt_matrix_bc(&s->A, inner, DMX_DOUBLE, 9, 14, 2, 3, size, 1, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&s->B, inner, DMX_DOUBLE, 9, 14, 4, 1, 1, size, 'C', NULL, 0, 0, 0);
    char msg[400] = "";
    dmxt_expect e = {
        .dtype = DMX_DOUBLE, .op = DMX_OP_N, .alpha = {1, 0}, .kb = 7, .am = 9, .an = 14};
    if (dmxt_matrix_create(&s->A) != DMX_SUCCESS || dmxt_matrix_create(&s->B) != DMX_SUCCESS) {
        dmxt_fail(C, "%s: library layouts: %s", where, dmx_last_error());
    } else {
        dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, s->B.layout, s->A.layout, 0, 0};
        dmxt_fill(&s->A, 0);
        dmxt_fill(&s->B, 7);
        if (dmx_plan_create(1, &t, &s->plan) != DMX_SUCCESS ||
            dmx_plan_execute(s->plan) != DMX_SUCCESS)
            dmxt_fail(C, "%s: library plan: %s", where, dmx_last_error());
        else if (dmxt_check_result(&s->A, &e, msg, sizeof msg))
            dmxt_fail(C, "%s: library plan: %s", where, msg);
    }
    if (dmx_comm_set_state(comm, s, lib_free) != DMX_SUCCESS ||
        dmx_comm_state(comm, &v) != DMX_SUCCESS || v != s) {
        dmxt_fail(C, "%s: dmx_comm_set_state: %s", where, dmx_last_error());
        lib_free(s);
    }
}

static void every_module(dmxt_ctx *ctx, MPI_Comm comm, dmxt_checker *C, const char *where)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    (void)ctx;
    plan_and_once(comm, size, C, where);
    exchange(comm, rank, size, DMX_EXCHANGE_NBX, C, where);
    exchange(comm, rank, size, DMX_EXCHANGE_AUTO, C, where);
    collectives(comm, rank, size, C, where);
    library(comm, size, C, where);
    plan_and_once(comm, size, C, where); /* again: nothing new to make */
}

/* Every duplicate's parent is a watched user communicator or one dmx made. */
static void check_parents(dmxt_checker *C, const char *where)
{
    for (int i = 0; i < nlive; i++) {
        MPI_Comm p = live[i].parent;
        int ok = p == MPI_COMM_NULL || is_live(p);
        for (int u = 0; u < nuser && !ok; u++)
            ok = p == user_comms[u];
        if (!ok) {
            dmxt_fail(C, "%s: a duplicate of a communicator dmx did not make nor watch", where);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_comm");
    setenv("DMX_SHM", "1", 1);

    /* 1. Everything on U, then MPI_Comm_free(U). */
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm u = MPI_COMM_NULL;
        PMPI_Comm_dup(MPI_COMM_WORLD, &u);
        user_comms[nuser++] = u;
        counting = 1;
        every_module(&ctx, u, &C, "U");
        if (user_dups[0] != 1)
            dmxt_fail(&C, "U: %ld duplicates of the user communicator (want 1)", user_dups[0]);
        check_parents(&C, "U");
        if (nlive == 0)
            dmxt_fail(&C, "U: no communicator made (the counting calls are not reached)");
        if (lib_frees != 0)
            dmxt_fail(&C, "U: the library state freed early");
        MPI_Comm_free(&u);
        if (nlive != 0 || nwlive != 0)
            dmxt_fail(&C, "MPI_Comm_free(U) left %d communicators and %d windows made by dmx",
                      nlive, nwlive);
        if (lib_frees != 1)
            dmxt_fail(&C, "MPI_Comm_free(U) ran the library state's free %d times (want 1)",
                      lib_frees);
        user_comms[0] = MPI_COMM_NULL; /* the handle may come back */
        dmxt_case_end(&ctx, C.bad, C.msg,
                      "every module's state on one communicator, freed with it");
    }

    /* 2. The same on MPI_COMM_WORLD, on V (never freed) and plans on MPI_COMM_SELF: left for
     *    MPI_Finalize (checked there). */
    {
        dmxt_checker C = {.ctx = &ctx};
        MPI_Comm v = MPI_COMM_NULL;
        PMPI_Comm_dup(MPI_COMM_WORLD, &v);
        user_comms[nuser++] = MPI_COMM_WORLD;
        user_comms[nuser++] = v;
        user_comms[nuser++] = MPI_COMM_SELF;
        every_module(&ctx, MPI_COMM_WORLD, &C, "MPI_COMM_WORLD");
        every_module(&ctx, v, &C, "V");
        plan_and_once(MPI_COMM_SELF, 1, &C, "MPI_COMM_SELF");
        for (int k = 1; k < 4; k++)
            if (user_dups[k] > 1)
                dmxt_fail(&C, "%ld duplicates of user communicator %d (want at most 1)",
                          user_dups[k], k);
        check_parents(&C, "left for MPI_Finalize");
        dmxt_case_end(&ctx, C.bad, C.msg, "states left on communicators for MPI_Finalize");
    }
    int rc = dmxt_finish(&ctx);
    if (lib_frees != 3) {
        fprintf(stderr, "FAIL [test_comm] the library states were freed %d times (want 3)\n",
                lib_frees);
        rc = 1;
    }
    return rc || finalize_leftovers;
}
