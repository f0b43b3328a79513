/* SPDX-License-Identifier: BSD-3-Clause */
/* The baseline of `dmx bench redist`: a block-cyclic redistribution written the way an MPI user
 * would write it by hand with one MPI_Alltoallv, plus the block-cyclic index helpers the
 * benchmark shares with it. Not part of the library. */
#ifndef DMX_BENCH_ALLTOALLV_REDIST_H
#define DMX_BENCH_ALLTOALLV_REDIST_H

#include <mpi.h>
#include <stdint.h>

/* A ScaLAPACK-style block-cyclic layout of a global m x n matrix in mb x nb blocks on a
 * prow x pcol grid: first block on process (0, 0), process (pr, pc) is rank pr*pcol + pc of the
 * communicator, ranks at or beyond prow*pcol own nothing. Local arrays are column-major. */
typedef struct bench_bc {
    int64_t m, n;
    int64_t mb, nb;
    int prow, pcol;
} bench_bc;

/* Number of the n indices in blocks of nb that process iproc of nprocs owns (ScaLAPACK's
 * NUMROC with the first block on process 0). */
int64_t bench_bc_numroc(int64_t n, int64_t nb, int iproc, int nprocs);

/* Global index of local index l on process iproc of nprocs, blocks of nb. */
int64_t bench_bc_global(int64_t l, int64_t nb, int iproc, int nprocs);

/* This rank's grid coordinates (-1, -1 outside the grid) and local sizes (0 outside). */
void bench_bc_local(const bench_bc *l, int rank, int *pr, int *pc, int64_t *mloc, int64_t *nloc);

/* Send and receive buffers an MPI_Alltoallv redistribution reuses from call to call, as a user
 * would keep a workspace. */
typedef struct bench_a2a_work {
    double *sbuf;
    double *rbuf;
    int64_t scap, rcap;
} bench_a2a_work;

/* Size the workspace for B's and A's local element counts. Returns 0, or -1 if out of memory. */
int bench_a2a_work_init(bench_a2a_work *w, int64_t nsend, int64_t nrecv);
void bench_a2a_work_free(bench_a2a_work *w);

/* A = B (op 'N', lb is m x n) or A = B^T (op 'T', lb is n x m) for la an m x n layout, by one
 * MPI_Alltoall of counts and one MPI_Alltoallv. Collective on comm, which must hold every rank
 * of both grids. b, ldb: this rank's local B; a, lda: its local A. Returns 0; -1 if a count
 * does not fit an int or memory runs out; the MPI error code if an MPI call fails. The return
 * value can differ between ranks (as a hand-written routine's would). */
int bench_a2a_redist(MPI_Comm comm, char op, const bench_bc *lb, const double *b, int64_t ldb,
                     const bench_bc *la, double *a, int64_t lda, bench_a2a_work *w);

#endif
