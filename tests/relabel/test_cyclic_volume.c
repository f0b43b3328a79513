/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the package volumes (src/plan/cyclic_volume.c) and of relabeling on them.
 * Pure C, no MPI.
 *
 *  - block-cyclic volumes against a brute-force element-by-element count on small random
 *    layouts: both grid orders, unequal grid sizes and shapes, first-block offsets, transpose,
 *    empty matrices, blocks larger than the matrix, and long dimensions where the owner
 *    pattern's period is shorter than the matrix (the periodic shortcut);
 *  - the grid-overlay volumes of the same layouts (dmxi_cyclic_volume_bc_to_grid) are identical;
 *  - remote volumes of random relabelings against the brute force;
 *  - the exact solver on volume matrices equals the dense solver and beats greedy/identity,
 *    also on tie-heavy structured pairs at P in the hundreds in all its phase settings;
 *  - known cases reaching 100 % reduction: a cyclic shift of ranks, row- vs column-major rank
 *    grids with equal blocks (also with a transpose), and the Figure 3 end points.
 */
#include "relabel/cyclic_volume.h"
#include "relabel/lap.h"

#include <stdio.h>
#include <string.h>

#include "dmxt_util.h"

/* This test's checks, and its random instances from the tests' one generator (own seed). */
static dmxt_count results;
static dmxt_rng rng;

/* Owner of element (r, c) of a block-cyclic layout, straight from the definition. */
static int owner(const dmxi_bc_desc *d, int64_t r, int64_t c)
{
    int pr = (int)((r / d->mb + d->rsrc) % d->prow);
    int pc = (int)((c / d->nb + d->csrc) % d->pcol);
    return d->order == 'R' ? pr * d->pcol + pc : pr + pc * d->prow;
}

/* Brute-force dense P x P volumes: vol[j*p + i] = elements i sends to j. */
static int64_t *brute_volume(const dmxi_bc_desc *s, const dmxi_bc_desc *t, int transpose, int p)
{
    int64_t *vol = calloc((size_t)p * (size_t)p, sizeof *vol);
    for (int64_t r = 0; r < s->m; r++)
        for (int64_t c = 0; c < s->n; c++) {
            int i = owner(s, r, c);
            int j = transpose ? owner(t, c, r) : owner(t, r, c);
            vol[(int64_t)j * p + i]++;
        }
    return vol;
}

/* Compare a CSR volume matrix with a dense one; also checks sorted rows and positive entries. */
static int same_volume(const dmxi_volume *v, const int64_t *dense, int p)
{
    if (v->p != p || v->rowptr[0] != 0 || v->rowptr[p] != v->nnz)
        return 0;
    int64_t *row = calloc((size_t)p, sizeof *row);
    int ok = 1;
    for (int j = 0; j < p && ok; j++) {
        memset(row, 0, (size_t)p * sizeof *row);
        for (int64_t k = v->rowptr[j]; k < v->rowptr[j + 1]; k++) {
            if (v->vol[k] <= 0 || v->col[k] < 0 || v->col[k] >= p ||
                (k > v->rowptr[j] && v->col[k] <= v->col[k - 1]))
                ok = 0;
            else
                row[v->col[k]] = v->vol[k];
        }
        for (int i = 0; i < p && ok; i++)
            ok = row[i] == dense[(int64_t)j * p + i];
    }
    free(row);
    return ok;
}

static int same_csr(const dmxi_volume *a, const dmxi_volume *b)
{
    return a->p == b->p && a->nnz == b->nnz && a->total == b->total &&
           memcmp(a->rowptr, b->rowptr, ((size_t)a->p + 1) * sizeof *a->rowptr) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * sizeof *a->col) == 0 &&
           memcmp(a->vol, b->vol, (size_t)a->nnz * sizeof *a->vol) == 0;
}

static void random_bc(dmxi_bc_desc *d, int64_t m, int64_t n)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    d->n = n;
    d->mb = dmxt_rng_int(&rng, 1, 9);
    d->nb = dmxt_rng_int(&rng, 1, 9);
    if (dmxt_rng_next(&rng) % 8 == 0)
        d->mb = m + dmxt_rng_int(&rng, 1, 5); /* one block larger than the matrix */
    d->prow = (int)dmxt_rng_int(&rng, 1, 4);
    d->pcol = (int)dmxt_rng_int(&rng, 1, 4);
    d->order = dmxt_rng_next(&rng) % 2 ? 'R' : 'C';
    d->rsrc = (int)dmxt_rng_int(&rng, 0, d->prow - 1);
    d->csrc = (int)dmxt_rng_int(&rng, 0, d->pcol - 1);
}

static int grid_size(const dmxi_bc_desc *d)
{
    return d->prow * d->pcol;
}

/* Volumes of one random pair against the brute force and the grid overlay; remote volumes of
 * the identity and of a random permutation; solvers on the result. */
static void check_pair(const dmxi_bc_desc *s, const dmxi_bc_desc *t, int transpose)
{
    int p = grid_size(s) > grid_size(t) ? grid_size(s) : grid_size(t);
    dmxi_volume v, w;
    memset(&v, 0, sizeof v);
    memset(&w, 0, sizeof w);
    dmx_status st = dmxi_cyclic_volume(s, t, transpose, &v);
    DMXT_EXPECT(&results, st == DMX_SUCCESS, "cyclic_volume failed: %s", dmx_last_error());
    if (st != DMX_SUCCESS)
        return;
    int64_t *dense = brute_volume(s, t, transpose, p);
    DMXT_EXPECT(
        &results, same_volume(&v, dense, p) && v.total == s->m * s->n,
        "volumes differ: %lldx%lld op=%c src %lldx%lld/%dx%d%c(%d,%d) dst %lldx%lld/%dx%d%c(%d,%d)",
        (long long)s->m, (long long)s->n, transpose ? 'T' : 'N', (long long)s->mb, (long long)s->nb,
        s->prow, s->pcol, s->order, s->rsrc, s->csrc, (long long)t->mb, (long long)t->nb, t->prow,
        t->pcol, t->order, t->rsrc, t->csrc);

    /* grid overlay of the same layouts gives the same CSR */
    dmxi_grid_desc gs, gt;
    int64_t *rs[2] = {NULL, NULL}, *cs[2] = {NULL, NULL};
    int *own[2] = {NULL, NULL};
    st = dmxi_cyclic_volume_bc_to_grid(s, &gs, &rs[0], &cs[0], &own[0]);
    if (st == DMX_SUCCESS)
        st = dmxi_cyclic_volume_bc_to_grid(t, &gt, &rs[1], &cs[1], &own[1]);
    if (st == DMX_SUCCESS)
        st = dmxi_cyclic_volume_grid(&gs, &gt, transpose, p, &w);
    DMXT_EXPECT(&results, st == DMX_SUCCESS && same_csr(&v, &w),
                "grid overlay differs from block-cyclic (%s)", dmx_last_error());

    /* remote volumes: identity and a random permutation */
    int *sigma = malloc((size_t)p * sizeof *sigma);
    for (int j = 0; j < p; j++)
        sigma[j] = j;
    for (int j = p - 1; j > 0; j--) {
        int z = (int)dmxt_rng_int(&rng, 0, j), tmp = sigma[j];
        sigma[j] = sigma[z];
        sigma[z] = tmp;
    }
    int64_t local_id = 0, local_sig = 0, rid = -1, rsig = -1;
    for (int j = 0; j < p; j++) {
        local_id += dense[(int64_t)j * p + j];
        local_sig += dense[(int64_t)j * p + sigma[j]];
    }
    DMXT_EXPECT(&results,
                dmxi_cyclic_volume_remote(&v, NULL, &rid) == DMX_SUCCESS &&
                    rid == v.total - local_id,
                "identity remote volume %lld, expected %lld", (long long)rid,
                (long long)(v.total - local_id));
    DMXT_EXPECT(&results,
                dmxi_cyclic_volume_remote(&v, sigma, &rsig) == DMX_SUCCESS &&
                    rsig == v.total - local_sig,
                "relabeled remote volume %lld, expected %lld", (long long)rsig,
                (long long)(v.total - local_sig));

    /* exact == dense solver on the full gain matrix; exact <= greedy, identity */
    dmxi_lap_sparse g = dmxi_cyclic_volume_gains(&v);
    int *se = malloc((size_t)p * sizeof *se), *sg = malloc((size_t)p * sizeof *sg);
    int *sd = malloc((size_t)p * sizeof *sd);
    double *dg = malloc((size_t)p * (size_t)p * sizeof *dg);
    for (int64_t k = 0; k < (int64_t)p * p; k++)
        dg[k] = (double)dense[k];
    int64_t te = 0, tg = 0, re = 0, rg = 0;
    double td = 0;
    DMXT_EXPECT(&results,
                dmxi_lap_exact(&g, se, &te) == DMX_SUCCESS &&
                    dmxi_lap_greedy(&g, sg, &tg) == DMX_SUCCESS &&
                    dmxi_lap_dense(p, dg, sd, &td) == DMX_SUCCESS,
                "solvers failed on a volume matrix");
    DMXT_EXPECT(&results, td == (double)te, "exact gain %lld, dense %.0f", (long long)te, td);
    DMXT_EXPECT(&results,
                dmxi_cyclic_volume_remote(&v, se, &re) == DMX_SUCCESS &&
                    dmxi_cyclic_volume_remote(&v, sg, &rg) == DMX_SUCCESS && re == v.total - te &&
                    re <= rg && re <= rid,
                "exact remote %lld, greedy %lld, identity %lld", (long long)re, (long long)rg,
                (long long)rid);

    free(se);
    free(sg);
    free(sd);
    free(dg);
    free(sigma);
    free(dense);
    for (int k = 0; k < 2; k++) {
        free(rs[k]);
        free(cs[k]);
        free(own[k]);
    }
    dmxi_cyclic_volume_free(&v);
    dmxi_cyclic_volume_free(&w);
}

static void test_random_layouts(void)
{
    int count = 0;
    for (int r = 0; r < 400; r++) {
        int64_t m = dmxt_rng_int(&rng, 0, 40), n = dmxt_rng_int(&rng, 0, 40);
        if (r % 20 == 0)
            m = 0;
        int transpose = r % 3 == 0;
        dmxi_bc_desc s, t;
        random_bc(&s, m, n);
        random_bc(&t, transpose ? n : m, transpose ? m : n);
        check_pair(&s, &t, transpose);
        count++;
    }
    /* long, thin matrices: owner pattern period (lcm of mb*prow) far below the length */
    for (int r = 0; r < 30; r++) {
        int transpose = r % 2;
        int64_t m = dmxt_rng_int(&rng, 20000, 60000), n = dmxt_rng_int(&rng, 1, 3);
        dmxi_bc_desc s, t;
        random_bc(&s, m, n);
        random_bc(&t, transpose ? n : m, transpose ? m : n);
        check_pair(&s, &t, transpose);
        count++;
    }
    printf("volumes: %d random layout pairs against the brute-force count\n", count);
}

/* Remote volume after the exact relabeling of a block-cyclic pair, and the reduction in %. */
static double exact_reduction(const dmxi_bc_desc *s, const dmxi_bc_desc *t, int transpose,
                              int64_t *identity, int64_t *after)
{
    dmxi_volume v;
    memset(&v, 0, sizeof v);
    *identity = *after = -1;
    if (dmxi_cyclic_volume(s, t, transpose, &v) != DMX_SUCCESS)
        return -1;
    dmxi_lap_sparse g = dmxi_cyclic_volume_gains(&v);
    int *sigma = malloc((size_t)v.p * sizeof *sigma);
    double red = -1;
    if (dmxi_lap_exact(&g, sigma, NULL) == DMX_SUCCESS &&
        dmxi_cyclic_volume_remote(&v, NULL, identity) == DMX_SUCCESS &&
        dmxi_cyclic_volume_remote(&v, sigma, after) == DMX_SUCCESS)
        red = *identity > 0 ? 100.0 * (double)(*identity - *after) / (double)*identity : 0.0;
    free(sigma);
    dmxi_cyclic_volume_free(&v);
    return red;
}

static dmxi_bc_desc bc(int64_t m, int64_t n, int64_t mb, int64_t nb, int pr, int pc, char ord)
{
    dmxi_bc_desc d;
    memset(&d, 0, sizeof d);
    d.m = m;
    d.n = n;
    d.mb = mb;
    d.nb = nb;
    d.prow = pr;
    d.pcol = pc;
    d.order = ord;
    return d;
}

static void test_known_cases(void)
{
    int64_t id = 0, after = 0;
    double red;

    /* cyclic shift of ranks: 1 x 8 grid, the target's first block column one process later */
    dmxi_bc_desc s = bc(100, 1000, 10, 7, 1, 8, 'R'), t = s;
    t.csrc = 1;
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, id == 100 * 1000 && after == 0 && red == 100.0,
                "cyclic shift: identity %lld, after %lld", (long long)id, (long long)after);

    /* the same shift on a 2D grid with column-major ranks and a row offset */
    s = bc(333, 222, 4, 5, 3, 5, 'C');
    t = s;
    t.rsrc = 2;
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, id > 0 && after == 0 && red == 100.0, "row shift: after %lld",
                (long long)after);

    /* row- vs column-major rank grid, equal blocks: a pure relabeling */
    s = bc(1000, 900, 16, 16, 4, 6, 'R');
    t = bc(1000, 900, 16, 16, 4, 6, 'C');
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, id > 0 && after == 0 && red == 100.0, "R vs C: identity %lld, after %lld",
                (long long)id, (long long)after);

    /* transpose on a square grid: R -> C keeps the rank (no communication at all), R -> R is a
     * relabeling */
    s = bc(640, 480, 32, 32, 5, 5, 'R');
    t = bc(480, 640, 32, 32, 5, 5, 'C');
    exact_reduction(&s, &t, 1, &id, &after);
    DMXT_EXPECT(&results, id == 0 && after == 0, "transpose R -> C: identity %lld", (long long)id);
    t.order = 'R';
    red = exact_reduction(&s, &t, 1, &id, &after);
    DMXT_EXPECT(&results, id > 0 && after == 0 && red == 100.0, "transpose R -> R: after %lld",
                (long long)after);

    /* unequal grid sizes: 2 x 3 R -> 3 x 4 C with equal blocks; extra target ranks */
    s = bc(120, 120, 10, 10, 2, 3, 'R');
    t = bc(120, 120, 10, 10, 3, 4, 'C');
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, red >= 0 && after <= id, "unequal grids: %lld -> %lld", (long long)id,
                (long long)after);

    /* Figure 3 end points: 1e5 x 1e5, 10 x 10, R -> C, final block 1e4 */
    t = bc(100000, 100000, 10000, 10000, 10, 10, 'C');
    s = bc(100000, 100000, 10000, 10000, 10, 10, 'R');
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, id == 9000000000 && after == 0 && red == 100.0,
                "fig3 equal blocks: identity %lld, after %lld", (long long)id, (long long)after);
    s = bc(100000, 100000, 1, 1, 10, 10, 'R');
    red = exact_reduction(&s, &t, 0, &id, &after);
    DMXT_EXPECT(&results, id == 9900000000 && after == id && red == 0.0,
                "fig3 block 1: identity %lld, after %lld", (long long)id, (long long)after);
}

/* Tie-heavy structured pairs (uniform overlaps: block size 1 against odd blocks, transposed,
 * unequal grids) at P in the hundreds: the exact solver in all its modes against the dense
 * solver. These are the instances whose long searches the exact solver defers to phase 2. */
static void test_structured_ties(void)
{
    static const int cfg[][8] = {
        /* m, grid s (pr, pc), block s, grid t (pr, pc), block t (mb, nb) */
        {3000, 20, 20, 1, 10, 40, 3, 7},
        {2400, 12, 25, 1, 15, 20, 5, 3},
        {4000, 16, 16, 2, 16, 16, 3, 3},
        {1800, 10, 30, 1, 30, 10, 7, 2},
    };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        for (int transpose = 0; transpose <= 1; transpose++) {
            const int *k = cfg[c];
            dmxi_bc_desc s = bc(k[0], k[0], k[3], k[3], k[1], k[2], 'R');
            dmxi_bc_desc t = bc(k[0], k[0], k[6], k[7], k[4], k[5], 'C');
            dmxi_volume v;
            memset(&v, 0, sizeof v);
            if (dmxi_cyclic_volume(&s, &t, transpose, &v) != DMX_SUCCESS) {
                DMXT_EXPECT(&results, 0, "structured volume failed: %s", dmx_last_error());
                continue;
            }
            int p = v.p;
            dmxi_lap_sparse g = dmxi_cyclic_volume_gains(&v);
            double *dg = calloc((size_t)p * (size_t)p, sizeof *dg);
            for (int j = 0; j < p; j++)
                for (int64_t e = v.rowptr[j]; e < v.rowptr[j + 1]; e++)
                    dg[(int64_t)j * p + v.col[e]] = (double)v.vol[e];
            int *sig = malloc((size_t)p * sizeof *sig);
            double td = 0;
            DMXT_EXPECT(&results, dmxi_lap_dense(p, dg, sig, &td) == DMX_SUCCESS, "dense failed");
            for (int lim = -1; lim <= DMXI_LAP_SCAN_LIMIT;
                 lim += lim < 2 ? 1 : DMXI_LAP_SCAN_LIMIT - 2) {
                int64_t te = -1;
                dmx_status st = dmxi_lap_exact_tuned(&g, lim, sig, &te);
                DMXT_EXPECT(&results, st == DMX_SUCCESS && (double)te == td,
                            "structured %zu op=%c P=%d limit %d: exact %lld, dense %.0f", c,
                            transpose ? 'T' : 'N', p, lim, (long long)te, td);
            }
            free(dg);
            free(sig);
            dmxi_cyclic_volume_free(&v);
        }
    }
}

static void test_errors(void)
{
    dmxi_volume v;
    memset(&v, 0, sizeof v);
    dmxi_bc_desc s = bc(10, 20, 2, 2, 2, 2, 'R'), t = bc(10, 20, 2, 2, 2, 2, 'C');
    DMXT_EXPECT(&results, dmxi_cyclic_volume(&s, &t, 1, &v) == DMX_ERR_LAYOUT,
                "size mismatch not caught");
    t.order = 'X';
    DMXT_EXPECT(&results, dmxi_cyclic_volume(&s, &t, 0, &v) == DMX_ERR_ARG, "bad order not caught");
    t = s;
    t.mb = 0;
    DMXT_EXPECT(&results, dmxi_cyclic_volume(&s, &t, 0, &v) == DMX_ERR_ARG,
                "zero block not caught");
    t = s;
    t.rsrc = 2;
    DMXT_EXPECT(&results, dmxi_cyclic_volume(&s, &t, 0, &v) == DMX_ERR_ARG, "bad rsrc not caught");
    DMXT_EXPECT(&results, v.rowptr == NULL && v.nnz == 0, "failed call left output behind");

    int64_t rsp[3] = {0, 4, 10}, csp[2] = {0, 20};
    int own[2] = {0, 5};
    dmxi_grid_desc g = {10, 20, 2, 1, rsp, csp, own};
    DMXT_EXPECT(&results, dmxi_cyclic_volume_grid(&g, &g, 0, 4, &v) == DMX_ERR_LAYOUT,
                "owner >= p not caught");
    DMXT_EXPECT(&results,
                dmxi_cyclic_volume_grid(&g, &g, 0, 6, &v) == DMX_SUCCESS && v.total == 200 &&
                    v.nnz == 2,
                "grid volume");
    dmxi_cyclic_volume_free(&v);
    rsp[1] = 10;
    DMXT_EXPECT(&results, dmxi_cyclic_volume_grid(&g, &g, 0, 6, &v) == DMX_ERR_LAYOUT,
                "non-increasing splits not caught");
}

int main(void)
{
    dmxt_rng_seed(&rng, 0x9E3779B97F4A7C15, 0);
    test_errors();
    test_known_cases();
    test_random_layouts();
    test_structured_ties();
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
