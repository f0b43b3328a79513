/* SPDX-License-Identifier: BSD-3-Clause */
/* Two threads of every rank execute two different plans at the same time (README "Threads":
 * under MPI_THREAD_MULTIPLE, executions of distinct plans may overlap).
 *
 * The main thread duplicates MPI_COMM_WORLD twice and creates one plan on each duplicate (with
 * the argument "same": both plans on one duplicate, which dmx runs on two private ones):
 *  - plan 0: doubles, op N, block-cyclic 32 x 32 blocks into 128 x 128 blocks on the same
 *    2-D grid;
 *  - plan 1: double complex, op T with alpha = 2 and beta = -1, B on a 1 x P grid of 64 x 48
 *    blocks into A on a P x 1 grid of 32 x 96 blocks (a grid change).
 * Then two pthreads each run their own plan ROUNDS times: refill A and B with matrix ids that
 * change every round (fresh data), execute, and check every element this rank owns (and the
 * padding) against the serial reference of tests/common (dmxt_check_result), counting wrong
 * rounds. Both threads start together (a barrier between them) so the executions overlap. The
 * main thread joins them and sums the counts over ranks (one case per plan).
 *
 * When MPI provides less than MPI_THREAD_MULTIPLE the test says "skipped" and passes with
 * 0 passed, 0 failed. Sizes keep each round a few milliseconds at 4 ranks on 2 cores.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */

#include "dmxtest.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { ROUNDS = 20, NPLANS = 2 };

typedef struct job {
    int which;
    dmxt_matrix A, B;
    dmx_plan *plan;
    dmxt_expect e; /* ka and kb change every round */
    pthread_barrier_t *start;
    dmxt_checker C;
} job;

static void *run(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(j->start);
    for (int r = 0; r < ROUNDS; r++) {
        /* ids 0..15: A's and B's ids differ and move each round */
        j->e.ka = (2 * r + j->which) % (DMXT_MAX_ID + 1);
        j->e.kb = (2 * r + j->which + 5) % (DMXT_MAX_ID + 1);
        dmxt_fill(&j->A, j->e.ka);
        dmxt_fill(&j->B, j->e.kb);
        dmx_status st = dmx_plan_execute(j->plan);
        if (st != DMX_SUCCESS) {
            dmxt_fail(&j->C, "plan %d round %d: execute: %s: %s", j->which, r,
                      dmx_status_string(st), dmx_last_error());
            continue;
        }
        char msg[400] = "";
        if (dmxt_check_result(&j->A, &j->e, msg, sizeof msg))
            dmxt_fail(&j->C, "plan %d round %d (%s): %s", j->which, r, j->A.desc, msg);
    }
    return NULL;
}

/* Two near-square factors of p, rows <= cols. */
static void grid2(int p, int *pr, int *pc)
{
    *pr = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            *pr = d;
    *pc = p / *pr;
}

static dmx_status make_plans(job *jobs, MPI_Comm comm[NPLANS], int size)
{
    int pr = 1, pc = 1;
    grid2(size, &pr, &pc);
    /* plan 0: A = B, doubles, 32 -> 128 blocks, one grid */
    const int64_t m0 = 500, n0 = 470;
    dmxt_matrix_bc(&jobs[0].A, comm[0], DMX_DOUBLE, m0, n0, 128, 128, pr, pc, 'R', NULL, 0, 0, 3);
    dmxt_matrix_bc(&jobs[0].B, comm[0], DMX_DOUBLE, m0, n0, 32, 32, pr, pc, 'R', NULL, 0, 0, 0);
    jobs[0].e =
        (dmxt_expect){.dtype = DMX_DOUBLE, .op = DMX_OP_N, .alpha = {1, 0}, .am = m0, .an = n0};
    /* plan 1: A = 2 B^T - A, double complex, B on 1 x size, A on size x 1 */
    const int64_t m1 = 384, n1 = 448;
    dmxt_matrix_bc(&jobs[1].A, comm[1], DMX_CDOUBLE, m1, n1, 32, 96, size, 1, 'C', NULL, 0, 0, 1);
    dmxt_matrix_bc(&jobs[1].B, comm[1], DMX_CDOUBLE, n1, m1, 64, 48, 1, size, 'C', NULL, 0, 0, 0);
    jobs[1].e = (dmxt_expect){
        .dtype = DMX_CDOUBLE, .op = DMX_OP_T, .alpha = {2, 0}, .beta = {-1, 0}, .am = m1, .an = n1};
    for (int k = 0; k < NPLANS; k++) {
        job *j = &jobs[k];
        dmx_status st = dmxt_matrix_create(&j->A);
        if (st == DMX_SUCCESS)
            st = dmxt_matrix_create(&j->B);
        if (st != DMX_SUCCESS)
            return st;
        dmx_transform t = {j->e.dtype,  j->e.op,     j->e.alpha, j->e.beta,
                           j->B.layout, j->A.layout, 0,          0};
        st = dmx_plan_create(1, &t, &j->plan);
        if (st != DMX_SUCCESS)
            return st;
    }
    return DMX_SUCCESS;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    const int provided = dmxt_init_thread(&ctx, &argc, &argv, "test_threads", MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (ctx.rank == 0)
            printf("test_threads: skipped: MPI_Init_thread provided thread level %d, below "
                   "MPI_THREAD_MULTIPLE (%d)\n",
                   provided, MPI_THREAD_MULTIPLE);
        return dmxt_finish(&ctx);
    }
    MPI_Comm comm[NPLANS];
    job jobs[NPLANS];
    memset(jobs, 0, sizeof jobs);
    /* "same": both plans on one duplicate (each live plan still runs on a private one) */
    const int same = argc > 1 && strcmp(argv[1], "same") == 0;
    for (int k = 0; k < NPLANS; k++)
        if (k == 0 || !same)
            MPI_Comm_dup(MPI_COMM_WORLD, &comm[k]);
        else
            comm[k] = comm[0];
    dmxt_set_current("creating the plans");
    dmx_status st = make_plans(jobs, comm, ctx.size);
    char msg[600] = "";
    if (st != DMX_SUCCESS)
        snprintf(msg, sizeof msg, "creating: %s: %s", dmx_status_string(st), dmx_last_error());
    int64_t sent[NPLANS] = {0, 0}, shm[NPLANS] = {0, 0};
    for (int k = 0; k < NPLANS && st == DMX_SUCCESS; k++) {
        dmx_plan_info info;
        st = dmx_plan_get_info(jobs[k].plan, &info);
        sent[k] = info.send_elems;
        shm[k] = info.npeers_shared_memory;
    }
    MPI_Allreduce(MPI_IN_PLACE, sent, NPLANS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, shm, NPLANS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (ctx.rank == 0)
        for (int k = 0; k < NPLANS; k++)
            printf("test_threads: plan %d sends %lld elements between ranks, %lld shared-memory "
                   "peers\n",
                   k, (long long)sent[k], (long long)shm[k]);
    /* a plan that moves nothing between ranks would not test concurrent exchanges */
    if (st == DMX_SUCCESS && ctx.size > 1 && (sent[0] == 0 || sent[1] == 0))
        snprintf(msg, sizeof msg, "a plan sends nothing between ranks");
    if (dmxt_case_end(&ctx, st != DMX_SUCCESS || msg[0], msg,
                      "creating two plans on two duplicates")) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, NPLANS);
        pthread_t tid[NPLANS];
        dmxt_set_current("two threads executing their plans");
        for (int k = 0; k < NPLANS; k++) {
            jobs[k].which = k;
            jobs[k].start = &start;
            if (pthread_create(&tid[k], NULL, run, &jobs[k]) != 0) {
                fprintf(stderr, "test_threads: pthread_create failed\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        for (int k = 0; k < NPLANS; k++)
            pthread_join(tid[k], NULL);
        pthread_barrier_destroy(&start);
        for (int k = 0; k < NPLANS; k++) {
            char desc[700];
            snprintf(desc, sizeof desc, "plan %d (%s), %d rounds beside the other plan's thread", k,
                     jobs[k].A.desc, ROUNDS);
            dmxt_case_end(&ctx, jobs[k].C.bad, jobs[k].C.msg, desc);
        }
    }
    for (int k = 0; k < NPLANS; k++) {
        dmx_plan_destroy(&jobs[k].plan);
        dmxt_matrix_free(&jobs[k].A);
        dmxt_matrix_free(&jobs[k].B);
    }
    for (int k = 0; k < (same ? 1 : NPLANS); k++)
        MPI_Comm_free(&comm[k]);
    if (ctx.rank == 0)
        printf("test_threads: %d rounds of each plan in two threads per rank, %s\n", ROUNDS,
               same ? "both plans on one communicator" : "each plan on its own communicator");
    return dmxt_finish(&ctx);
}
