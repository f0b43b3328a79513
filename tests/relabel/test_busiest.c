/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the busiest link's load that relabeling reports (dmxi_relabel_busiest, behind
 * dmx_relabel_result's busiest_identity and busiest_relabeled). Pure C, no MPI.
 *
 *  - two small package matrices whose loads were worked out by hand (below, in the comments):
 *    the node cost on two nodes of two ranks (memory, links out and in, the transform weight)
 *    and the volume cost per rank, under the identity and under a swap;
 *  - random matrices: with every rank on its own node the node cost's busiest load is the volume
 *    cost's times node_ratio (the per-node and per-rank accounting agree), and with all ranks on
 *    one node it is the whole remote volume's cost; the load never exceeds the total cost.
 * tests/relabel_mpi/test_relabel_transform.c checks the volume cost's load against a count
 * element by element on real layouts.
 */
#include "relabel/lap.h"

#include <math.h>
#include <stdlib.h>

#include "dmxt_util.h"

static dmxt_count results;
static dmxt_rng rng;

/* Four roles: role 0 needs 100 B from rank 1 and 10 B from rank 2; role 1 50 B from rank 0;
 * role 2 40 B from rank 3 and 20 B from rank 0; role 3 30 B from rank 3. */
static int64_t rp4[] = {0, 2, 3, 5, 6};
static int src4[] = {1, 2, 0, 3, 0, 3};
static int64_t by4[] = {100, 10, 50, 40, 20, 30};
static int64_t tb4[] = {100, 0, 0, 0, 0, 0};

static void test_by_hand(void)
{
    dmxi_relabel_pkgs M = {4, rp4, src4, by4, tb4};
    int node[4] = {0, 0, 2, 2}, ident[4] = {0, 1, 2, 3}, swap[4] = {1, 0, 3, 2};
    double load[12];
    dmx_relabel_opts o = {0};
    o.cost = DMX_COST_NODE;
    o.node_ratio = 8;
    /* identity: node 0's memory 100 + 50; rank 2 -> rank 0 crosses, 10 x 8 = 80 out of node 2
     * and into node 0; rank 0 -> rank 2 crosses, 20 x 8 = 160 out of node 0 and into node 2;
     * node 2's memory 40; role 3 stays on rank 3 */
    double b = dmxi_relabel_busiest(&o, &M, node, ident, load);
    DMXT_EXPECT(&results, b == 160.0, "node cost, identity: %g, expected 160", b);
    b = dmxi_relabel_busiest(&o, &M, node, NULL, load); /* NULL: the identity */
    DMXT_EXPECT(&results, b == 160.0, "node cost, sigma NULL: %g, expected 160", b);
    /* swap: roles 0 and 1 keep their 100 and 50 on ranks 1 and 0; 10 B still cross (80); role
     * 2 on rank 3 keeps its 40, its 20 from rank 0 still cross (160); role 3 on rank 2 takes 30
     * from rank 3 through node 2's memory */
    b = dmxi_relabel_busiest(&o, &M, node, swap, load);
    DMXT_EXPECT(&results, b == 160.0, "node cost, swap: %g, expected 160", b);
    /* a cheaper link: node_ratio 1, so node 0's memory (150) is the busiest under the identity,
     * and under the swap the links carry 20 (node 0 out, node 2 in) and node 2's memory 30 */
    o.node_ratio = 1;
    b = dmxi_relabel_busiest(&o, &M, node, ident, load);
    DMXT_EXPECT(&results, b == 150.0, "node ratio 1, identity: %g, expected 150", b);
    b = dmxi_relabel_busiest(&o, &M, node, swap, load);
    DMXT_EXPECT(&results, b == 30.0, "node ratio 1, swap: %g, expected 30", b);
    /* the transform weight adds 0.5 per transformed byte to role 0's 100 B: node 0's memory
     * carries 150 + 50 under the identity; under the swap that package stays on rank 1 */
    o.transform_weight = 0.5;
    b = dmxi_relabel_busiest(&o, &M, node, ident, load);
    DMXT_EXPECT(&results, b == 200.0, "transform weight, identity: %g, expected 200", b);
    b = dmxi_relabel_busiest(&o, &M, node, swap, load);
    DMXT_EXPECT(&results, b == 30.0, "transform weight, swap: %g, expected 30", b);
    /* volume cost, per rank: identity out 70 (rank 0), 100 (1), 10 (2), 40 (3); in 110 (0),
     * 50 (1), 60 (2); swap: out 20 (0), 10 (2), 30 (3); in 10 (1), 30 (2), 20 (3) */
    dmx_relabel_opts v = {0};
    b = dmxi_relabel_busiest(&v, &M, NULL, ident, load);
    DMXT_EXPECT(&results, b == 110.0, "volume, identity: %g, expected 110", b);
    b = dmxi_relabel_busiest(&v, &M, NULL, swap, load);
    DMXT_EXPECT(&results, b == 30.0, "volume, swap: %g, expected 30", b);
}

/* A random package matrix of p roles, up to 6 packages per role, and a random permutation. */
static void random_case(int p, dmxi_relabel_pkgs *M, int *sigma)
{
    M->p = p;
    M->rowptr = malloc((size_t)(p + 1) * sizeof *M->rowptr);
    M->src = malloc((size_t)p * 6 * sizeof *M->src);
    M->bytes = malloc((size_t)p * 6 * sizeof *M->bytes);
    M->tbytes = malloc((size_t)p * 6 * sizeof *M->tbytes);
    M->rowptr[0] = 0;
    for (int j = 0; j < p; j++) {
        int64_t k = M->rowptr[j];
        int n = (int)dmxt_rng_int(&rng, 0, 6);
        for (int u = 0; u < n; u++, k++) {
            M->src[k] = (int)dmxt_rng_int(&rng, 0, p - 1);
            M->bytes[k] = dmxt_rng_int(&rng, 1, 1000);
            M->tbytes[k] = 0;
        }
        M->rowptr[j + 1] = k;
    }
    for (int j = 0; j < p; j++)
        sigma[j] = j;
    dmxt_rng_shuffle(&rng, sigma, p);
}

static void test_random(void)
{
    for (int it = 0; it < 200; it++) {
        int p = (int)dmxt_rng_int(&rng, 1, 40);
        dmxi_relabel_pkgs M;
        int *sigma = malloc((size_t)p * sizeof *sigma), *own = malloc((size_t)p * sizeof *own);
        int *one = calloc((size_t)p, sizeof *one);
        double *load = malloc((size_t)p * 3 * sizeof *load);
        random_case(p, &M, sigma);
        for (int i = 0; i < p; i++)
            own[i] = i;
        dmx_relabel_opts v = {0}, nd = {0};
        nd.cost = DMX_COST_NODE;
        nd.node_ratio = (double)dmxt_rng_int(&rng, 1, 16);
        double bv = dmxi_relabel_busiest(&v, &M, NULL, sigma, load);
        double bo = dmxi_relabel_busiest(&nd, &M, own, sigma, load);
        DMXT_EXPECT(&results, fabs(bo - nd.node_ratio * bv) <= 1e-9 * bo,
                    "p %d, a node per rank: node cost %g, volume %g x ratio %g", p, bo, bv,
                    nd.node_ratio);
        double remote = 0.0, total = 0.0;
        for (int j = 0; j < p; j++)
            for (int64_t k = M.rowptr[j]; k < M.rowptr[j + 1]; k++)
                remote += M.src[k] != sigma[j] ? (double)M.bytes[k] : 0.0;
        double b1 = dmxi_relabel_busiest(&nd, &M, one, sigma, load);
        DMXT_EXPECT(&results, b1 == remote, "p %d, one node: %g, remote volume %g", p, b1, remote);
        total = remote; /* the volume cost's total; every package loads at most two links */
        DMXT_EXPECT(&results, bv <= total && bv * 2 * p >= total,
                    "p %d: busiest %g outside [total / 2p, total] of %g", p, bv, total);
        free(M.rowptr);
        free(M.src);
        free(M.bytes);
        free(M.tbytes);
        free(sigma);
        free(own);
        free(one);
        free(load);
    }
}

int main(void)
{
    dmxt_rng_seed(&rng, 20261128, 35);
    test_by_hand();
    test_random();
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
