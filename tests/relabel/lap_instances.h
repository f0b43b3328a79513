/* SPDX-License-Identifier: BSD-3-Clause */
/* Random assignment instances and brute-force references shared by the relabeling tests
 * (test_lap.c: the internal solvers; test_relabel_offline.c: the public calls that wrap them).
 * Test code only, independent of the library. */
#ifndef DMX_TESTS_LAP_INSTANCES_H
#define DMX_TESTS_LAP_INSTANCES_H

#include <stdint.h>

#include "dmxt_util.h"

/* Sparse gains in compressed rows (the layout of dmxi_lap_sparse and dmx_relabel_gains) and the
 * same gains dense (n x n row-major, 0 where a pair is missing). */
typedef struct lapt_instance {
    int n;
    int64_t *rowptr;
    int *col;
    int64_t *gain;
    int64_t *dense;
} lapt_instance;

/* Random instance of size n from rng: each pair present with probability permille/1000 (with
 * diag also the diagonal pair with probability 1/2), gains uniform in [0, gmax] (zeros kept as
 * explicit entries), the columns of a row in random order. Free with lapt_instance_free. */
void lapt_instance_make(lapt_instance *in, dmxt_rng *rng, int n, int permille, int64_t gmax,
                        int diag);
void lapt_instance_free(lapt_instance *in);

/* Total gain of the assignment x -> sigma[x], summed from the dense copy. */
int64_t lapt_instance_total(const lapt_instance *in, const int *sigma);

/* Is s[0..n) a permutation of 0..n-1? */
int lapt_is_permutation(const int *s, int n);

/* Largest f(ctx, perm) over all permutations perm of 0..n-1 (0 <= n <= 8), by trying them all. */
typedef int64_t (*lapt_perm_fn)(const void *ctx, const int *perm);
int64_t lapt_best_over_permutations(int n, lapt_perm_fn f, const void *ctx);

/* lapt_perm_fn for the total gain of a lapt_instance (ctx). */
int64_t lapt_instance_total_fn(const void *ctx, const int *perm);

#endif
