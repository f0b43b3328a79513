/* SPDX-License-Identifier: BSD-3-Clause */
/* Layouts made with no communication (dmx_layout_create_block_cyclic_unagreed, the small path of
 * libdmx_scalapack): a one-shot transpose between two of them, and views of them, with a
 * different LLD on every rank, checked against the formula of B's elements (A = B^T); no
 * reduction or barrier counted (PMPI) while the layouts and views are made; dmx_plan_create with
 * them fails with DMX_ERR_UNSUPPORTED on every rank (agreed, no hang); and
 * dmx_transform_once_is_local follows the size bound and DMX_PLAN_CHECK.
 * Prints "N passed, N failed" from rank 0. */
#define _POSIX_C_SOURCE 200809L
#include "dmx.h"
#include "dmx/expert.h"
#include "dmxt_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long n_coll;
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    n_coll++;
    return PMPI_Allreduce(s, r, c, t, o, comm);
}
int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                   MPI_Request *q)
{
    n_coll++;
    return PMPI_Iallreduce(s, r, c, t, o, comm, q);
}
int MPI_Barrier(MPI_Comm comm)
{
    n_coll++;
    return PMPI_Barrier(comm);
}

enum { MB = 2, NB = 3 };
static int pr, pc, myr, myc;

/* local rows (or columns) of a block-cyclic dimension, source process 0 */
static int64_t numroc(int64_t n, int64_t b, int p, int np)
{
    int64_t full = n / (b * np), rest = n - full * b * np, mine = full * b;
    rest -= (int64_t)p * b;
    return mine + (rest <= 0 ? 0 : rest < b ? rest : b);
}

/* this rank's array of an m x n matrix and its element (i, j), or NULL if not here */
static double *at(double *a, int64_t lld, int64_t i, int64_t j)
{
    if ((i / MB) % pr != myr || (j / NB) % pc != myc)
        return NULL;
    int64_t li = (i / (MB * pr)) * MB + i % MB, lj = (j / (NB * pc)) * NB + j % NB;
    return a + li + lj * lld;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dmxt_watchdog(60, 2, "test_unagreed: timed out\n");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dmxt_count cnt = {0, 0};
    pr = size % 2 == 0 ? 2 : 1;
    pc = size / pr;
    myr = rank / pc;
    myc = rank % pc;
    int *map = malloc((size_t)size * sizeof *map);
    for (int k = 0; k < size; k++)
        map[k] = size - 1 - k; /* grid (r, c) on rank P-1 - (r*pc + c) */
    myr = (size - 1 - rank) / pc;
    myc = (size - 1 - rank) % pc;
    const int64_t m = 7, n = 5; /* A is m x n, B n x m; views start at (1, 1) */
    const int64_t lldb = numroc(n + 1, MB, myr, pr) + 1 + rank,
                  llda = numroc(m + 1, MB, myr, pr) + 3 * rank;
    double *b = calloc((size_t)(lldb * (numroc(m + 1, NB, myc, pc) + 1)), sizeof *b);
    double *a = calloc((size_t)(llda * (numroc(n + 1, NB, myc, pc) + 1)), sizeof *a);
    for (int64_t i = 0; i <= n; i++)
        for (int64_t j = 0; j <= m; j++) {
            double *p = at(b, lldb, i, j);
            if (p)
                *p = (double)(100 * i + j);
        }
    dmx_layout *lb = NULL, *la = NULL, *vb = NULL, *va = NULL;
    long c0 = n_coll;
    dmx_status st = dmx_layout_create_block_cyclic_unagreed(MPI_COMM_WORLD, n + 1, m + 1, MB, NB,
                                                            pr, pc, map, 0, 0, b, lldb, &lb);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic_unagreed(MPI_COMM_WORLD, m + 1, n + 1, MB, NB, pr, pc,
                                                     map, 0, 0, a, llda, &la);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(lb, 1, 1, n, m, &vb);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_view(la, 1, 1, m, n, &va);
    DMXT_EXPECT(&cnt, st == DMX_SUCCESS, "layouts: %s", dmx_last_error());
    DMXT_EXPECT(&cnt, n_coll == c0, "%ld collectives making unagreed layouts", n_coll - c0);
    DMXT_EXPECT(&cnt, dmx_transform_once_is_local(DMX_DOUBLE, m, n), "7x5 doubles are not local");
    DMXT_EXPECT(&cnt, !dmx_transform_once_is_local(DMX_DOUBLE, 4096, 4096), "4096^2 is local");
    for (int rep = 0; rep < 2 && st == DMX_SUCCESS; rep++) {
        dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
        long c1 = n_coll;
        st = dmx_transform_once(DMX_DOUBLE, DMX_OP_T, one, vb, zero, va);
        DMXT_EXPECT(&cnt, st == DMX_SUCCESS, "dmx_transform_once: %s", dmx_last_error());
        DMXT_EXPECT(&cnt, n_coll == c1, "%ld collectives in a one-shot", n_coll - c1);
        int64_t wrong = 0;
        for (int64_t i = 0; i <= m; i++)
            for (int64_t j = 0; j <= n; j++) {
                double *p = at(a, llda, i, j);
                double want = i >= 1 && j >= 1 ? (double)(100 * j + i) : 0.0; /* B(j, i) */
                wrong += p && *p != want;
            }
        DMXT_EXPECT(&cnt, wrong == 0, "rank %d: %lld wrong elements of A", rank, (long long)wrong);
    }
    /* anything but a one-shot with no agreement: refused on every rank */
    dmx_transform t = {DMX_DOUBLE, DMX_OP_T, {1, 0}, {0, 0}, vb, va, 0, 0};
    dmx_plan *plan = NULL;
    st = dmx_plan_create(1, &t, &plan);
    DMXT_EXPECT(&cnt, st == DMX_ERR_UNSUPPORTED && plan == NULL,
                "dmx_plan_create on unagreed layouts: %s (%s)", dmx_status_string(st),
                dmx_last_error());
    setenv("DMX_PLAN_CHECK", "agree", 1);
    DMXT_EXPECT(&cnt, !dmx_transform_once_is_local(DMX_DOUBLE, m, n), "local under agree");
    unsetenv("DMX_PLAN_CHECK");
    dmx_layout_destroy(&va);
    dmx_layout_destroy(&vb);
    dmx_layout_destroy(&la);
    dmx_layout_destroy(&lb);
    free(a);
    free(b);
    free(map);
    dmxt_count sum = cnt;
    MPI_Allreduce(&cnt, &sum, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        dmxt_count_print(&sum);
    MPI_Finalize();
    return dmxt_count_exit_code(&sum);
}
