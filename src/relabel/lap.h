/* SPDX-License-Identifier: BSD-3-Clause */
/* Linear assignment solvers for communication-optimal process relabeling (COPR).
 *
 * The relabeling problem (seed sections 4.1-4.2): n roles x (target ranks in the original
 * labeling) are given to n processes y by a permutation sigma, role x played by process
 * sigma(x). Giving role x to process y gains g(x, y); find the sigma maximizing
 * sum_x g(x, sigma(x)). With the locally-free volume cost, g(x, y) = V(S_{y,x}): the elements
 * that process y already holds of what role x needs (seed remark 2; the constant -V(S_{x,x})
 * of every role drops out of the arg max).
 *
 * Number types: sparse gains are int64_t (volumes in elements, exact integer arithmetic, so
 * every rank computes bit-identical results); the dense solver, meant for general cost
 * functions (latency + bandwidth models, ...), takes double gains.
 *
 * Every solver is Local (no MPI, no threads), deterministic (the result depends only on the
 * input values and their order) and borrows its inputs for the duration of the call.
 */
#ifndef DMXI_RELABEL_LAP_H
#define DMXI_RELABEL_LAP_H

#include "dmxi.h"

#include <stdint.h>

/* Largest gain the sparse solvers accept: every potential and distance of the exact solver
 * stays within 3 * DMXI_LAP_GAIN_MAX, far from int64 overflow. */
#define DMXI_LAP_GAIN_MAX (INT64_C(1) << 60)

/* Largest n the dense O(n^3) solver accepts (it reads an n x n matrix: 2048^2 doubles are 32 MiB;
 * its worst case at that size is several seconds). */
#define DMXI_LAP_DENSE_MAX_N 2048

/*
 * Sparse gain matrix in compressed sparse rows, borrowed. Row x (a role) holds the processes
 * col[k] with gain gain[k] for rowptr[x] <= k < rowptr[x+1]. Gains are >= 0 and at most
 * DMXI_LAP_GAIN_MAX; a (x, y) pair appears at most once per row; missing pairs gain 0. Columns
 * need not be sorted within a row (sorted rows give the most natural tie-breaking).
 */
typedef struct dmxi_lap_sparse {
    int n;                 /* roles = processes, n >= 0 */
    const int64_t *rowptr; /* n + 1 offsets, rowptr[0] = 0, nondecreasing */
    const int *col;        /* rowptr[n] process indices in [0, n) */
    const int64_t *gain;   /* rowptr[n] gains in [0, DMXI_LAP_GAIN_MAX] */
} dmxi_lap_sparse;

/* Check the structure and value ranges of @p g (O(n + nnz)). DMX_ERR_ARG on violations. */
dmx_status dmxi_lap_sparse_check(const dmxi_lap_sparse *g);

/* Total gain sum_x g(x, sigma[x]) of a permutation (O(nnz)); checks that sigma is one. */
dmx_status dmxi_lap_sparse_gain(const dmxi_lap_sparse *g, const int *sigma, int64_t *total);

/*
 * Exact maximum-gain assignment (lap_exact.c): shortest augmenting paths with potentials on the
 * sparse graph, where every role also has a private zero-gain "unassigned" option; rows are
 * added one at a time (phase 1) and those whose search would scan more than
 * DMXI_LAP_SCAN_LIMIT rows are added together afterwards (phase 2: multi-source shortest paths,
 * then a maximal set of disjoint shortest augmenting paths per round). Finally the unassigned
 * roles are given the unused processes (identity first). Writes the permutation to sigma[0..n)
 * (role x -> process sigma[x]) and, if total_gain is not NULL, its total gain. Memory
 * O(n + nnz). Time O(nnz log n) when every search is short (typical of relabeling), at most
 * O(n * nnz log n).
 */
dmx_status dmxi_lap_exact(const dmxi_lap_sparse *g, int *sigma, int64_t *total_gain);

/* Phase 1 search limit of dmxi_lap_exact (rows scanned before a row is deferred to phase 2). */
#define DMXI_LAP_SCAN_LIMIT 64

/* dmxi_lap_exact with another phase 1 limit (tests, tuning): scan_limit < 0 never defers
 * (pure row-by-row), 0 defers every row whose search needs any scan. Same optimum gain; the
 * permutation may differ among equally good ones. */
dmx_status dmxi_lap_exact_tuned(const dmxi_lap_sparse *g, int scan_limit, int *sigma,
                                int64_t *total_gain);

/*
 * Greedy 1/2-approximation (lap_greedy.c): edges by gain descending (ties in CSR order), taken
 * when both ends are free, then completed like dmxi_lap_exact. Never better than the exact
 * solver; at least half its gain. Time O(n + nnz) (radix sort), memory O(n + nnz).
 */
dmx_status dmxi_lap_greedy(const dmxi_lap_sparse *g, int *sigma, int64_t *total_gain);

/*
 * Exact maximum-gain assignment on a full matrix (lap_dense.c): gain[x*n + y] (borrowed, any
 * finite doubles, negative allowed) for role x on process y. Shortest augmenting paths with
 * potentials, O(n^3) time, O(n) extra memory; n <= DMXI_LAP_DENSE_MAX_N, else
 * DMX_ERR_UNSUPPORTED. Writes sigma[0..n) and, if not NULL, the total gain.
 */
dmx_status dmxi_lap_dense(int n, const double *gain, int *sigma, double *total_gain);

/*
 * Complete a partial assignment: sigma[x] is a process or -1 (role unassigned), each process
 * used at most once. Every unassigned role x takes process x if that is unused; the remaining
 * unassigned roles then take the remaining processes, both in increasing order. O(n).
 */
dmx_status dmxi_lap_complete(int n, int *sigma);

/* The package matrix by role (relabel.c): role j needs bytes[k] from rank src[k] for rowptr[j]
 * <= k < rowptr[j + 1], tbytes[k] of them of transforms that transpose or scale. */
typedef struct dmxi_relabel_pkgs {
    int p;
    int64_t *rowptr; /* p + 1 */
    int *src;
    int64_t *bytes, *tbytes;
} dmxi_relabel_pkgs;

/* The busiest link's load (dmx_relabel_result's busiest_*) when role j is played by rank
 * sigma[j] (sigma NULL: the identity), under o's cost: with DMX_COST_NODE per node (node[i]: rank
 * i's node number, in [0, p)) a link out, a link in and the memory its ranks share, otherwise per
 * rank a link out and a link in; a rank's packages to itself load nothing. @p load is scratch of 3
 * p doubles. Local, O(p + packages). */
double dmxi_relabel_busiest(const dmx_relabel_opts *o, const dmxi_relabel_pkgs *M, const int *node,
                            const int *sigma, double *load);

#endif /* DMXI_RELABEL_LAP_H */
