/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the assignment solvers (src/plan/lap_*.c). Pure C, no MPI.
 *
 *  - exhaustive search over all permutations for n <= 8 on random sparse gains: the exact
 *    solver (sparse) and the dense solver reach the optimum, the greedy one never beats it and
 *    gets at least half of it;
 *  - random sparse instances up to n = 300 against a plain O(n^3) Hungarian method written
 *    here, independently of the library (textbook Kuhn-Munkres with row/column potentials);
 *  - the exact solver also with scan limits -1 (rows one at a time only) and 0/1 (nearly every
 *    row through the multi-source rounds), so all three of its phases are checked;
 *  - the dense solver against the same reference on dense matrices with negative gains;
 *  - edge cases: n = 0 and 1, empty rows (identity kept), input validation, determinism.
 */
#include "relabel/lap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmxt_util.h"
#include "lap_instances.h"

/* This test's checks, and its random instances from the tests' one generator (own seed). */
static dmxt_count results;
static dmxt_rng rng;

/* ---- instances -------------------------------------------------------------------------- */

static dmxi_lap_sparse view(const lapt_instance *in)
{
    dmxi_lap_sparse g = {in->n, in->rowptr, in->col, in->gain};
    return g;
}

/* Textbook Hungarian method, minimizing cost[i][j] (1-based internally): potentials u, v;
 * for each row, grow the alternating tree column by column, lowering slack by delta. O(n^3).
 * Returns the optimal cost; assign[i] = column of row i. */
static int64_t hungarian_min(int n, const int64_t *cost, int *assign)
{
    const int64_t INF = INT64_MAX / 4;
    int64_t *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
    int64_t *minv = malloc(((size_t)n + 1) * sizeof *minv);
    int *p = calloc((size_t)n + 1, sizeof *p), *way = calloc((size_t)n + 1, sizeof *way);
    char *used = malloc((size_t)n + 1);
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INF;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = INF;
            for (int j = 1; j <= n; j++) {
                if (used[j])
                    continue;
                int64_t cur = cost[(int64_t)(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= n; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    int64_t total = 0;
    for (int j = 1; j <= n; j++) {
        assign[p[j] - 1] = j - 1;
        total += cost[(int64_t)(p[j] - 1) * n + (j - 1)];
    }
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return total;
}

static int64_t reference_max(const lapt_instance *in)
{
    int n = in->n;
    int64_t *cost = malloc((size_t)n * (size_t)n * sizeof *cost + 1);
    int *assign = malloc((size_t)n * sizeof *assign + 1);
    for (int64_t k = 0; k < (int64_t)n * n; k++)
        cost[k] = -in->dense[k];
    int64_t best = -hungarian_min(n, cost, assign);
    DMXT_EXPECT(&results, lapt_is_permutation(assign, n) && lapt_instance_total(in, assign) == best,
                "reference Hungarian broken");
    free(cost);
    free(assign);
    return best;
}

/* Run the three library solvers on in and compare with the optimum opt. */
static void check_solvers(const lapt_instance *in, int64_t opt, const char *what)
{
    int n = in->n;
    int *se = malloc((size_t)n * sizeof *se + 1), *sg = malloc((size_t)n * sizeof *sg + 1);
    int *sd = malloc((size_t)n * sizeof *sd + 1);
    dmxi_lap_sparse g = view(in);
    int64_t te = -1, tg = -1;
    dmx_status st = dmxi_lap_exact(&g, se, &te);
    DMXT_EXPECT(&results, st == DMX_SUCCESS, "%s n=%d: exact failed: %s", what, n,
                dmx_last_error());
    DMXT_EXPECT(&results, st == DMX_SUCCESS && lapt_is_permutation(se, n),
                "%s n=%d: exact sigma not a permutation", what, n);
    DMXT_EXPECT(&results, st == DMX_SUCCESS && te == opt && lapt_instance_total(in, se) == opt,
                "%s n=%d: exact gain %lld (reported %lld), optimum %lld", what, n,
                (long long)lapt_instance_total(in, se), (long long)te, (long long)opt);
    /* phase 2/3 on every deferred row (limit 0) and the plain row-by-row order (-1) */
    for (int lim = -1; lim <= 1; lim++) {
        int64_t tt = -1;
        st = dmxi_lap_exact_tuned(&g, lim, sd, &tt);
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && lapt_is_permutation(sd, n) && tt == opt &&
                        lapt_instance_total(in, sd) == opt,
                    "%s n=%d: exact (scan limit %d) gain %lld, optimum %lld", what, n, lim,
                    (long long)tt, (long long)opt);
    }
    st = dmxi_lap_greedy(&g, sg, &tg);
    DMXT_EXPECT(&results,
                st == DMX_SUCCESS && lapt_is_permutation(sg, n) &&
                    tg == lapt_instance_total(in, sg),
                "%s n=%d: greedy failed or wrong total", what, n);
    DMXT_EXPECT(&results, tg <= opt && 2 * tg >= opt, "%s n=%d: greedy %lld vs optimum %lld", what,
                n, (long long)tg, (long long)opt);
    if (n <= 400) {
        double *dg = malloc((size_t)n * (size_t)n * sizeof *dg + 1);
        for (int64_t k = 0; k < (int64_t)n * n; k++)
            dg[k] = (double)in->dense[k];
        double td = -1;
        st = dmxi_lap_dense(n, dg, sd, &td);
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && lapt_is_permutation(sd, n) &&
                        lapt_instance_total(in, sd) == opt && td == (double)opt,
                    "%s n=%d: dense gain %lld (reported %.0f), optimum %lld", what, n,
                    (long long)lapt_instance_total(in, sd), td, (long long)opt);
        free(dg);
    }
    free(se);
    free(sg);
    free(sd);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_exhaustive(void)
{
    static const int64_t gmax[] = {1, 3, 100, INT64_C(1) << 40};
    int count = 0;
    for (int n = 1; n <= 8; n++) {
        int reps = n <= 6 ? 60 : (n == 7 ? 25 : 10);
        for (int r = 0; r < reps; r++) {
            lapt_instance in;
            int permille = (int)dmxt_rng_int(&rng, 100, 700);
            lapt_instance_make(&in, &rng, n, permille, gmax[r % 4], r % 3 == 0);
            check_solvers(&in, lapt_best_over_permutations(in.n, lapt_instance_total_fn, &in),
                          "exhaustive");
            lapt_instance_free(&in);
            count++;
        }
    }
    printf("exhaustive: %d instances with n <= 8\n", count);
}

static void test_random_sparse(void)
{
    static const int sizes[] = {10, 30, 60, 100, 150, 200, 300};
    int count = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        for (int r = 0; r < 6; r++) {
            lapt_instance in;
            /* a few entries per row, as relabeling produces; sometimes dense rows */
            int permille = r == 5 ? 300 : (int)(1000 * dmxt_rng_int(&rng, 1, 6) / n) + 1;
            int64_t gmax = r % 3 == 0 ? 4 : (r % 3 == 1 ? 1000 : INT64_C(1) << 36);
            lapt_instance_make(&in, &rng, n, permille, gmax, r % 2);
            check_solvers(&in, reference_max(&in), "random");
            lapt_instance_free(&in);
            count++;
        }
    }
    printf("random sparse: %d instances with n <= 300 against the reference Hungarian\n", count);
}

/* Dense solver on full matrices with negative gains, against the reference. */
static void test_dense_general(void)
{
    for (int r = 0; r < 12; r++) {
        int n = (int)dmxt_rng_int(&rng, 1, 120);
        double *g = malloc((size_t)n * (size_t)n * sizeof *g);
        int64_t *cost = malloc((size_t)n * (size_t)n * sizeof *cost);
        int *assign = malloc((size_t)n * sizeof *assign), *s = malloc((size_t)n * sizeof *s);
        for (int64_t k = 0; k < (int64_t)n * n; k++) {
            int64_t v = dmxt_rng_int(&rng, -1000, 1000);
            g[k] = (double)v;
            cost[k] = -v;
        }
        int64_t opt = -hungarian_min(n, cost, assign);
        double tot = 0;
        dmx_status st = dmxi_lap_dense(n, g, s, &tot);
        double chk = 0;
        for (int x = 0; st == DMX_SUCCESS && x < n; x++)
            chk += g[(int64_t)x * n + s[x]];
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && lapt_is_permutation(s, n) && tot == (double)opt &&
                        chk == tot,
                    "dense n=%d: %.0f vs optimum %lld", n, tot, (long long)opt);
        free(g);
        free(cost);
        free(assign);
        free(s);
    }
    /* fractional gains: compare with brute force on n = 6 */
    for (int r = 0; r < 20; r++) {
        int n = 6, p[6], s[6];
        double g[36];
        for (int k = 0; k < 36; k++)
            g[k] = (double)dmxt_rng_int(&rng, -100000, 100000) / 977.0;
        double best = -INFINITY;
        for (int k = 0; k < n; k++)
            p[k] = k;
        for (int it = 0; it < 720; it++) {
            double sum = 0;
            for (int x = 0; x < n; x++)
                sum += g[x * n + p[x]];
            if (sum > best)
                best = sum;
            int i = n - 2;
            while (i >= 0 && p[i] >= p[i + 1])
                i--;
            if (i < 0)
                break;
            int j = n - 1;
            while (p[j] <= p[i])
                j--;
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
            for (int a = i + 1, b = n - 1; a < b; a++, b--) {
                t = p[a];
                p[a] = p[b];
                p[b] = t;
            }
        }
        double tot = 0;
        dmx_status st = dmxi_lap_dense(n, g, s, &tot);
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && lapt_is_permutation(s, n) &&
                        fabs(tot - best) <= 1e-9 * fabs(best) + 1e-9,
                    "dense fractional: %.12g vs %.12g", tot, best);
    }
}

static void test_edge_cases(void)
{
    /* n = 0 */
    int64_t rp0[1] = {0};
    dmxi_lap_sparse g0 = {0, rp0, NULL, NULL};
    int64_t t = -1;
    DMXT_EXPECT(&results, dmxi_lap_exact(&g0, NULL, &t) == DMX_SUCCESS && t == 0, "n = 0 exact");
    DMXT_EXPECT(&results, dmxi_lap_greedy(&g0, NULL, &t) == DMX_SUCCESS && t == 0, "n = 0 greedy");
    DMXT_EXPECT(&results, dmxi_lap_dense(0, NULL, NULL, NULL) == DMX_SUCCESS, "n = 0 dense");

    /* no edges at all: identity */
    enum { N = 7 };
    int64_t rp[N + 1] = {0};
    int s[N];
    dmxi_lap_sparse ge = {N, rp, NULL, NULL};
    DMXT_EXPECT(&results, dmxi_lap_exact(&ge, s, &t) == DMX_SUCCESS && t == 0, "empty exact");
    int ident = 1;
    for (int x = 0; x < N; x++)
        ident &= s[x] == x;
    DMXT_EXPECT(&results, ident, "empty instance must give the identity");

    /* roles 1 and 3 swap (gain), the others have nothing: they keep their rank; role 5 has a
     * zero-gain entry for process 6 only, which must not move it. */
    int64_t rp2[N + 1] = {0, 0, 1, 1, 2, 2, 3, 3};
    int col2[3] = {3, 1, 6};
    int64_t gain2[3] = {10, 7, 0};
    dmxi_lap_sparse g2 = {N, rp2, col2, gain2};
    int want[N] = {0, 3, 2, 1, 4, 5, 6};
    DMXT_EXPECT(&results,
                dmxi_lap_exact(&g2, s, &t) == DMX_SUCCESS && t == 17 &&
                    memcmp(s, want, sizeof s) == 0,
                "swap instance: exact keeps unaffected ranks (t = %lld)", (long long)t);
    DMXT_EXPECT(&results,
                dmxi_lap_greedy(&g2, s, &t) == DMX_SUCCESS && t == 17 &&
                    memcmp(s, want, sizeof s) == 0,
                "swap instance: greedy keeps unaffected ranks");

    /* a chain where greedy is worse: roles 0,1; processes 0,1; g(0,0)=5, g(0,1)=4, g(1,0)=4 */
    int64_t rp3[3] = {0, 2, 3};
    int col3[3] = {0, 1, 0};
    int64_t gain3[3] = {5, 4, 4};
    dmxi_lap_sparse g3 = {2, rp3, col3, gain3};
    int64_t te = 0, tg = 0;
    DMXT_EXPECT(&results,
                dmxi_lap_exact(&g3, s, &te) == DMX_SUCCESS && te == 8 && s[0] == 1 && s[1] == 0,
                "exact takes the two lighter edges (%lld)", (long long)te);
    DMXT_EXPECT(&results, dmxi_lap_greedy(&g3, s, &tg) == DMX_SUCCESS && tg == 5,
                "greedy takes the heavy edge");

    /* invalid input */
    int colbad[3] = {0, 2, 0};
    dmxi_lap_sparse gb = {2, rp3, colbad, gain3};
    DMXT_EXPECT(&results, dmxi_lap_exact(&gb, s, NULL) == DMX_ERR_ARG,
                "column out of range rejected");
    int coldup[3] = {0, 0, 0};
    gb.col = coldup;
    DMXT_EXPECT(&results, dmxi_lap_exact(&gb, s, NULL) == DMX_ERR_ARG, "duplicate column rejected");
    int64_t gneg[3] = {1, -1, 1};
    dmxi_lap_sparse gn = {2, rp3, col3, gneg};
    DMXT_EXPECT(&results, dmxi_lap_greedy(&gn, s, NULL) == DMX_ERR_ARG, "negative gain rejected");
    int64_t rpbad[3] = {0, 2, 1};
    dmxi_lap_sparse gr = {2, rpbad, col3, gain3};
    DMXT_EXPECT(&results, dmxi_lap_exact(&gr, s, NULL) == DMX_ERR_ARG,
                "decreasing rowptr rejected");
    DMXT_EXPECT(&results, dmxi_lap_exact(NULL, s, NULL) == DMX_ERR_NULL, "NULL matrix rejected");
    double nan2[4] = {0, NAN, 1, 1};
    DMXT_EXPECT(&results, dmxi_lap_dense(2, nan2, s, NULL) == DMX_ERR_ARG, "NaN gain rejected");
    DMXT_EXPECT(&results,
                dmxi_lap_dense(DMXI_LAP_DENSE_MAX_N + 1, nan2, s, NULL) == DMX_ERR_UNSUPPORTED,
                "dense size limit enforced");

    /* completion helper */
    int part[5] = {-1, 0, -1, -1, 4};
    DMXT_EXPECT(&results,
                dmxi_lap_complete(5, part) == DMX_SUCCESS && part[0] == 1 && part[2] == 2 &&
                    part[3] == 3,
                "complete: identity first, then lowest free process");
}

/* The same input gives the same sigma; larger instance for a run time sanity check. */
static void test_determinism(void)
{
    lapt_instance in;
    lapt_instance_make(&in, &rng, 2000, 3, 50, 1);
    dmxi_lap_sparse g = view(&in);
    int *a = malloc(2000 * sizeof *a), *b = malloc(2000 * sizeof *b);
    int64_t ta = 0, tb = 0;
    DMXT_EXPECT(&results,
                dmxi_lap_exact(&g, a, &ta) == DMX_SUCCESS &&
                    dmxi_lap_exact(&g, b, &tb) == DMX_SUCCESS && ta == tb &&
                    memcmp(a, b, 2000 * sizeof *a) == 0,
                "exact solver not deterministic");
    DMXT_EXPECT(&results,
                dmxi_lap_greedy(&g, a, &ta) == DMX_SUCCESS &&
                    dmxi_lap_greedy(&g, b, &tb) == DMX_SUCCESS && ta == tb &&
                    memcmp(a, b, 2000 * sizeof *a) == 0,
                "greedy solver not deterministic");
    free(a);
    free(b);
    lapt_instance_free(&in);
}

int main(void)
{
    dmxt_rng_seed(&rng, 0x243F6A8885A308D3, 0);
    test_edge_cases();
    test_exhaustive();
    test_random_sparse();
    test_dense_general();
    test_determinism();
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
