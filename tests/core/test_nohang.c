/* SPDX-License-Identifier: BSD-3-Clause */
/* The reproducers of issue 14 where one rank cannot tell the others about its mistake: it has
 * no communicator to agree on (a view of a NULL parent, a plan of 0 or -1 transforms, a NULL
 * transforms array, executing a NULL plan), or the ranks call on different communicators
 * (layouts on a duplicate on rank 0 and on the original elsewhere). The promise there is not an
 * agreed error but that the job ends with a clear message instead of hanging.
 *
 * Usage: test_nohang MODE [default]. Rank 0 makes the mistake of MODE, the other ranks make the
 * valid call. A test handler (or, with "default", dmx's own) receives the error; the test
 * handler checks on its rank that the user's arrays are byte for byte unchanged (checksums taken
 * before the call) and that every output handle is still NULL, prints
 * "nohang OK [MODE] ..." (or "nohang FAIL [MODE] ...") and the closing line, and aborts the
 * job. ctest passes the test on the OK line (PASS_REGULAR_EXPRESSION) and fails it on FAIL, on
 * a missing line, or on its 60 s timeout. If rank 0's call returns instead of reaching the
 * handler, that is a failure too. The other ranks' valid calls may return (an execution that
 * does not need rank 0's part, a plan destroy that frees nothing collectively): they then wait
 * for the job to end, and fail only if it has not ended 30 s later.
 *
 * Every MPI_Abort of this program, dmx's default handler's included (the library is linked in
 * statically, so its call lands here), first flushes stdio and sleeps a second, then calls
 * PMPI_Abort: MPICH's launcher (hydra) may drop output still in flight from the ranks when one
 * aborts, which lost the OK line (and dmx's message) now and then.
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *mode = "";
static int rank;
static double t0;

/* What the handler checks: the arrays of these matrices and these handles. */
enum { MAXM = 4, MAXH = 4 };
static dmxt_matrix *mats[MAXM];
static uint64_t sums[MAXM];
static int nmats;
static void **handles[MAXH];
static int nhandles;

static uint64_t checksum(const dmxt_matrix *M)
{
    uint64_t h = UINT64_C(1469598103934665603);
    size_t es = dmx_dtype_size(M->dtype);
    for (int a = 0; a < M->nalloc; a++) {
        const unsigned char *p = M->allocs[a];
        for (size_t i = 0; i < (size_t)M->alloc_elems[a] * es; i++) {
            h ^= p[i];
            h *= UINT64_C(1099511628211);
        }
    }
    return h;
}

static void watch_matrix(dmxt_matrix *M)
{
    mats[nmats] = M;
    sums[nmats++] = checksum(M);
}

static void watch_handle(void **h)
{
    handles[nhandles++] = h;
}

static void test_handler(dmx_status st, const char *message)
{
    char why[300] = "";
    for (int i = 0; i < nmats; i++)
        if (checksum(mats[i]) != sums[i])
            dmxt_append(why, sizeof why, " matrix %d's memory changed;", i);
    for (int i = 0; i < nhandles; i++)
        if (*handles[i] != NULL)
            dmxt_append(why, sizeof why, " handle %d is not NULL;", i);
    if (strcmp(message, dmx_last_error()) != 0)
        dmxt_append(why, sizeof why, " the message differs from dmx_last_error();");
    if (message[0] == '\0')
        dmxt_append(why, sizeof why, " empty message;");
    printf("nohang %s [%s] rank %d after %.2f s: %s: %s%s\n", why[0] ? "FAIL" : "OK", mode, rank,
           MPI_Wtime() - t0, dmx_status_string(st), message, why);
    if (rank == 0)
        printf("%d passed, %d failed\n", why[0] ? 0 : 1, why[0] ? 1 : 0);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Let the launcher forward what the ranks printed before the abort tears the job down. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    fflush(stdout);
    fflush(stderr);
    nanosleep(&(struct timespec){1, 0}, NULL);
    return PMPI_Abort(comm, errorcode);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_nohang");
    rank = ctx.rank;
    const int P = ctx.size;
    mode = argc > 1 ? argv[1] : "";
    if (!(argc > 2 && strcmp(argv[2], "default") == 0))
        dmx_set_error_handler(test_handler);
    /* the agreements on different communicators give up after 2 s, not 600 */
    setenv("DMX_TIMEOUT", "2", 1);
    const int bad = rank == 0;

    MPI_Comm dupc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    dmxt_matrix A, B, Ad, Bd;
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 7, 6, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&B, MPI_COMM_WORLD, DMX_DOUBLE, 7, 6, 3, 1, P, 1, 'C', NULL, 0, 0, 0);
    dmxt_matrix_bc(&Ad, dupc, DMX_DOUBLE, 7, 6, 2, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&Bd, dupc, DMX_DOUBLE, 7, 6, 3, 1, P, 1, 'C', NULL, 0, 0, 0);
    dmxt_matrix *all[] = {&A, &B, &Ad, &Bd};
    for (int i = 0; i < 4; i++) {
        if (dmxt_matrix_create(all[i]) != DMX_SUCCESS) {
            fprintf(stderr, "nohang FAIL [%s]: creating the layouts: %s\n", mode, dmx_last_error());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        dmxt_fill(all[i], i + 1);
        watch_matrix(all[i]);
    }
    dmx_transform t = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, B.layout, A.layout, 0, 0};
    dmx_transform td = {DMX_DOUBLE, DMX_OP_N, {1, 0}, {0, 0}, Bd.layout, Ad.layout, 0, 0};
    dmx_layout *view = NULL, *lay = NULL;
    dmx_plan *plan = NULL;
    watch_handle((void **)&view);
    watch_handle((void **)&plan);
    watch_handle((void **)&lay);
    dmx_status st = DMX_SUCCESS;
    t0 = MPI_Wtime();

    if (strcmp(mode, "view_null_parent") == 0) {
        st = dmx_layout_create_view(bad ? NULL : A.layout, 1, 1, 2, 2, &view);
    } else if (strcmp(mode, "plan_zero") == 0 || strcmp(mode, "plan_negative") == 0) {
        int n = mode[5] == 'z' ? 0 : -1;
        st = dmx_plan_create(bad ? n : 1, &t, &plan);
    } else if (strcmp(mode, "plan_transforms_null") == 0) {
        st = dmx_plan_create(1, bad ? NULL : &t, &plan);
    } else if (strcmp(mode, "plan_dup_comm") == 0) {
        /* every layout is valid; rank 0 plans with the ones on the duplicate */
        st = dmx_plan_create(1, bad ? &td : &t, &plan);
    } else if (strcmp(mode, "layout_dup_comm") == 0) {
        int64_t lld = 7;
        st = dmx_layout_create_block_cyclic(bad ? dupc : MPI_COMM_WORLD, 7, 6, 2, 2, 1, P, 'R', 0,
                                            0, NULL, lld, &lay);
    } else if (strcmp(mode, "execute_null") == 0) {
        /* every rank has a plan; rank 0 passes NULL instead of it */
        dmx_plan *p = NULL;
        st = dmx_plan_create(1, &t, &p);
        if (st == DMX_SUCCESS)
            st = dmx_plan_execute(bad ? NULL : p);
        dmx_plan_destroy(&p);
    } else {
        fprintf(stderr, "nohang FAIL [%s]: unknown mode\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* A valid call may return on the other ranks: wait there for rank 0's handler to end the
     * job (sleeping, not in an MPI call, which would spin under MPICH). */
    for (int i = 0; !bad && i < 300; i++)
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    /* Reaching this line means a call returned where it should have ended the job. */
    printf("nohang FAIL [%s] rank %d: the call returned %s (%s) instead of ending the job\n", mode,
           rank, dmx_status_string(st), dmx_last_error());
    fflush(stdout);
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&view);
    dmx_layout_destroy(&lay);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 1;
}
