/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the public offline relabeling calls (dmx/relabel.h: dmx_relabel_assign*,
 * dmx_relabel_volume_*). Pure C, no MPI.
 *
 *  - assignment on random sparse gains, n <= 8: the exact method reaches the optimum found by
 *    trying every permutation (lap_instances.c), the greedy one stays within [opt/2, opt], the
 *    identity method returns the identity; the reported totals agree with a sum written here;
 *  - assignment up to n = 300: the public calls return exactly the sigma and gain of the
 *    internal solvers (dmxi_lap_exact, dmxi_lap_greedy) they wrap;
 *  - package volumes of random block-cyclic, grid and mixed pairs (plain and transposed) against
 *    a count element by element with owners from the harness's own ScaLAPACK arithmetic; the
 *    block-cyclic pairs also against the internal dmxi_cyclic_volume; p = 0, p padded, p too
 *    small;
 *  - remote volume of a permutation against the element count, and dmx_relabel_volume_solve
 *    (exact) against the least remote volume over all permutations;
 *  - argument errors: NULL pointers, unknown kinds and methods, non-permutations, NULL-safe
 *    destroy, the handle NULL after a failed create.
 */
#include "relabel/cyclic_volume.h"
#include "relabel/lap.h"

#include <stdio.h>
#include <string.h>

#include "dmxt_util.h"
#include "lap_instances.h"

static dmxt_count results;
static dmxt_rng rng;

/* ---- assignment ------------------------------------------------------------------------- */

static dmx_relabel_gains public_gains(const lapt_instance *in)
{
    dmx_relabel_gains g = {in->n, in->rowptr, in->col, in->gain};
    return g;
}

static void test_assign_bruteforce(void)
{
    for (int rep = 0; rep < 300; rep++) {
        int n = (int)dmxt_rng_int(&rng, 0, 8);
        int percent = (int)dmxt_rng_int(&rng, 10, 100);
        int64_t gmax = dmxt_rng_chance(&rng, 50) ? 5 : 1000000;
        lapt_instance in;
        lapt_instance_make(&in, &rng, n, 10 * percent, gmax, 0);
        dmx_relabel_gains g = public_gains(&in);
        int64_t opt = n > 0 ? lapt_best_over_permutations(n, lapt_instance_total_fn, &in) : 0;
        int sigma[8];
        int64_t total = -1, check = -1;

        dmx_status st = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, sigma, &total);
        DMXT_EXPECT(&results, st == DMX_SUCCESS, "exact n=%d: %s", n, dmx_last_error());
        DMXT_EXPECT(&results, lapt_is_permutation(sigma, n), "exact n=%d: not a permutation", n);
        DMXT_EXPECT(&results, total == opt && lapt_instance_total(&in, sigma) == opt,
                    "exact n=%d: gain %lld (sum %lld), optimum %lld", n, (long long)total,
                    (long long)lapt_instance_total(&in, sigma), (long long)opt);
        st = dmx_relabel_assign_gain(&g, sigma, &check);
        DMXT_EXPECT(&results, st == DMX_SUCCESS && check == opt, "assign_gain n=%d: %lld vs %lld",
                    n, (long long)check, (long long)opt);

        st = dmx_relabel_assign(&g, DMX_RELABEL_GREEDY, sigma, &total);
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && lapt_is_permutation(sigma, n) &&
                        total == lapt_instance_total(&in, sigma) && total <= opt &&
                        2 * total >= opt,
                    "greedy n=%d: gain %lld, optimum %lld", n, (long long)total, (long long)opt);

        st = dmx_relabel_assign(&g, DMX_RELABEL_IDENTITY, sigma, &total);
        int ident = 1;
        for (int x = 0; x < n; x++)
            ident &= sigma[x] == x;
        DMXT_EXPECT(&results,
                    st == DMX_SUCCESS && ident && total == lapt_instance_total(&in, sigma),
                    "identity n=%d", n);
        lapt_instance_free(&in);
    }
}

static void test_assign_vs_internal(void)
{
    const int ns[] = {1, 2, 10, 50, 120, 300};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        for (int rep = 0; rep < 4; rep++) {
            int n = ns[a];
            lapt_instance in;
            lapt_instance_make(&in, &rng, n, rep == 0 ? 1000 : 10 * (int)dmxt_rng_int(&rng, 1, 30),
                               rep == 1 ? 3 : 100000, 0);
            dmx_relabel_gains g = public_gains(&in);
            dmxi_lap_sparse s = {in.n, in.rowptr, in.col, in.gain};
            int *sp = malloc((size_t)n * sizeof *sp), *si = malloc((size_t)n * sizeof *si);
            int64_t tp = -1, ti = -2;
            dmx_status a1 = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, sp, &tp);
            dmx_status a2 = dmxi_lap_exact(&s, si, &ti);
            DMXT_EXPECT(&results,
                        a1 == DMX_SUCCESS && a2 == DMX_SUCCESS && tp == ti &&
                            memcmp(sp, si, (size_t)n * sizeof *sp) == 0,
                        "exact n=%d: public and internal differ", n);
            a1 = dmx_relabel_assign(&g, DMX_RELABEL_GREEDY, sp, &tp);
            a2 = dmxi_lap_greedy(&s, si, &ti);
            DMXT_EXPECT(&results,
                        a1 == DMX_SUCCESS && a2 == DMX_SUCCESS && tp == ti &&
                            memcmp(sp, si, (size_t)n * sizeof *sp) == 0,
                        "greedy n=%d: public and internal differ", n);
            free(sp);
            free(si);
            lapt_instance_free(&in);
        }
    }
}

static void test_assign_errors(void)
{
    int64_t rowptr[3] = {0, 1, 2}, gain[2] = {5, 7}, total = 0;
    int col[2] = {1, 1}, sigma[2];
    dmx_relabel_gains g = {2, rowptr, col, gain};
    DMXT_EXPECT(&results, dmx_relabel_assign(NULL, DMX_RELABEL_EXACT, sigma, NULL) == DMX_ERR_NULL,
                "NULL gains");
    DMXT_EXPECT(&results, dmx_relabel_assign(&g, DMX_RELABEL_EXACT, NULL, NULL) == DMX_ERR_NULL,
                "NULL sigma");
    DMXT_EXPECT(&results, dmx_relabel_assign(&g, (dmx_relabel_method)7, sigma, NULL) == DMX_ERR_ARG,
                "unknown method");
    int ok = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, sigma, &total) == DMX_SUCCESS;
    DMXT_EXPECT(&results, ok && total == 7 && sigma[1] == 1 && sigma[0] == 0, "valid 2x2");
    int bad[2] = {1, 1};
    DMXT_EXPECT(&results, dmx_relabel_assign_gain(&g, bad, &total) == DMX_ERR_ARG,
                "assign_gain of a non-permutation");
    gain[0] = DMX_RELABEL_GAIN_MAX + 1;
    for (int m = 0; m < 3; m++)
        DMXT_EXPECT(&results,
                    dmx_relabel_assign(&g, (dmx_relabel_method)m, sigma, NULL) == DMX_ERR_ARG,
                    "gain above the maximum, method %d", m);
    gain[0] = 5;
    col[1] = 2; /* out of range */
    for (int m = 0; m < 3; m++)
        DMXT_EXPECT(&results,
                    dmx_relabel_assign(&g, (dmx_relabel_method)m, sigma, NULL) == DMX_ERR_ARG,
                    "column out of range, method %d", m);
    dmx_relabel_gains empty = {0, NULL, NULL, NULL};
    DMXT_EXPECT(&results,
                dmx_relabel_assign(&empty, DMX_RELABEL_EXACT, NULL, &total) == DMX_SUCCESS &&
                    total == 0,
                "n = 0");
}

/* ---- package volumes -------------------------------------------------------------------- */

/* Owner of element (r, c), written from the description's definition. */
static int owner_of(const dmx_relabel_desc *d, int64_t r, int64_t c)
{
    if (d->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC) {
        int pr = dmxt_indxg2p(r, d->mb, d->rsrc, d->prow);
        int pc = dmxt_indxg2p(c, d->nb, d->csrc, d->pcol);
        return (d->order == 'R' || d->order == 'r') ? pr * d->pcol + pc : pr + pc * d->prow;
    }
    int64_t bi = 0, bj = 0;
    while (d->rowsplits[bi + 1] <= r)
        bi++;
    while (d->colsplits[bj + 1] <= c)
        bj++;
    return d->owners[bi * d->ncb + bj];
}

/* Dense reference V[i*p + j] (source i, target j) by visiting every element. */
static int64_t *count_volumes(const dmx_relabel_desc *src, const dmx_relabel_desc *dst,
                              int transpose, int p)
{
    int64_t *v = calloc((size_t)p * (size_t)p, sizeof *v);
    for (int64_t r = 0; r < src->m; r++)
        for (int64_t c = 0; c < src->n; c++) {
            int i = owner_of(src, r, c);
            int j = transpose ? owner_of(dst, c, r) : owner_of(dst, r, c);
            v[(size_t)i * (size_t)p + (size_t)j]++;
        }
    return v;
}

typedef struct grid_store {
    int64_t rs[16], cs[16];
    int own[256];
} grid_store;

static void random_desc(dmx_relabel_desc *d, int64_t m, int64_t n, int kind, grid_store *gs)
{
    memset(d, 0, sizeof *d);
    d->kind = (dmx_relabel_desc_kind)kind;
    d->m = m;
    d->n = n;
    if (kind == DMX_RELABEL_DESC_BLOCK_CYCLIC) {
        d->mb = dmxt_rng_int(&rng, 1, 9);
        d->nb = dmxt_rng_int(&rng, 1, 9);
        d->prow = (int)dmxt_rng_int(&rng, 1, 3);
        d->pcol = (int)dmxt_rng_int(&rng, 1, 3);
        d->order = "RCrc"[dmxt_rng_int(&rng, 0, 3)];
        d->rsrc = (int)dmxt_rng_int(&rng, 0, d->prow - 1);
        d->csrc = (int)dmxt_rng_int(&rng, 0, d->pcol - 1);
        return;
    }
    /* grid: up to 15 block rows / columns with random cuts, owners in [0, 7) */
    int64_t ext[2] = {m, n};
    int64_t *sp[2] = {gs->rs, gs->cs};
    int64_t nb[2];
    for (int dim = 0; dim < 2; dim++) {
        int64_t k = 0;
        sp[dim][0] = 0;
        for (int64_t x = 1; x < ext[dim] && k < 14; x++)
            if (dmxt_rng_chance(&rng, 30))
                sp[dim][++k] = x;
        if (ext[dim] > 0)
            sp[dim][++k] = ext[dim];
        nb[dim] = k;
    }
    d->nrb = nb[0];
    d->ncb = nb[1];
    for (int64_t k = 0; k < nb[0] * nb[1]; k++)
        gs->own[k] = (int)dmxt_rng_int(&rng, 0, 6);
    d->rowsplits = gs->rs;
    d->colsplits = gs->cs;
    d->owners = gs->own;
}

static int least_p(const dmx_relabel_desc *d)
{
    if (d->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC)
        return d->prow * d->pcol;
    int need = 0;
    for (int64_t k = 0; k < d->nrb * d->ncb; k++)
        if (d->owners[k] + 1 > need)
            need = d->owners[k] + 1;
    return need;
}

/* The public gains (= volumes by target row) equal the dense reference, sources ascending. */
static int same_as_dense(const dmx_relabel_volume *h, const int64_t *ref, int p)
{
    dmx_relabel_gains g;
    int hp = -1;
    int64_t nnz = -1;
    if (dmx_relabel_volume_get_info(h, &hp, &nnz, NULL) != DMX_SUCCESS || hp != p ||
        dmx_relabel_volume_get_gains(h, &g) != DMX_SUCCESS || g.n != p || g.rowptr[p] != nnz)
        return 0;
    int64_t ref_nnz = 0;
    for (int j = 0; j < p; j++) {
        int64_t k = g.rowptr[j];
        for (int i = 0; i < p; i++) {
            int64_t want = ref[(size_t)i * (size_t)p + (size_t)j];
            if (want == 0)
                continue;
            ref_nnz++;
            if (k >= g.rowptr[j + 1] || g.col[k] != i || g.gain[k] != want)
                return 0;
            k++;
        }
        if (k != g.rowptr[j + 1])
            return 0;
    }
    return ref_nnz == nnz;
}

typedef struct remote_ctx {
    const int64_t *ref;
    int p;
    int64_t total;
} remote_ctx;

/* Minus the remote volume of a permutation (so the best permutation has the largest value). */
static int64_t neg_remote_fn(const void *ctx, const int *sigma)
{
    const remote_ctx *c = ctx;
    int64_t local = 0;
    for (int j = 0; j < c->p; j++)
        local += c->ref[(size_t)sigma[j] * (size_t)c->p + (size_t)j];
    return -(c->total - local);
}

static void test_volumes(void)
{
    for (int rep = 0; rep < 400; rep++) {
        int64_t m = dmxt_rng_int(&rng, 0, 30), n = dmxt_rng_int(&rng, 0, 30);
        int transpose = dmxt_rng_chance(&rng, 40);
        int ks = (int)dmxt_rng_int(&rng, 0, 1), kt = (int)dmxt_rng_int(&rng, 0, 1);
        grid_store g1, g2;
        dmx_relabel_desc src, dst;
        random_desc(&src, m, n, ks, &g1);
        random_desc(&dst, transpose ? n : m, transpose ? m : n, kt, &g2);
        int need = least_p(&src) > least_p(&dst) ? least_p(&src) : least_p(&dst);
        if (need < 1)
            need = 1;
        int extra = dmxt_rng_chance(&rng, 30) ? (int)dmxt_rng_int(&rng, 1, 3) : 0;
        int p = need + extra;
        int64_t *ref = count_volumes(&src, &dst, transpose, p);
        dmx_relabel_volume *h = NULL;
        dmx_status st = dmx_relabel_volume_create(&src, &dst, transpose, extra ? p : 0, &h);
        DMXT_EXPECT(&results, st == DMX_SUCCESS && h != NULL, "create kinds %d,%d: %s", ks, kt,
                    dmx_last_error());
        if (!h) {
            free(ref);
            continue;
        }
        int64_t total = -1;
        DMXT_EXPECT(&results,
                    dmx_relabel_volume_get_info(h, NULL, NULL, &total) == DMX_SUCCESS &&
                        total == m * n,
                    "total %lld, want %lld", (long long)total, (long long)(m * n));
        DMXT_EXPECT(&results, same_as_dense(h, ref, p),
                    "volumes differ from the element count: kinds %d,%d, %lldx%lld, T=%d, p=%d", ks,
                    kt, (long long)m, (long long)n, transpose, p);

        if (ks == 0 && kt == 0 && extra == 0) {
            /* the wrapper against the internal closed form it calls */
            dmxi_bc_desc a = {src.m,    src.n,     src.mb,   src.nb,  src.prow,
                              src.pcol, src.order, src.rsrc, src.csrc};
            dmxi_bc_desc b = {dst.m,    dst.n,     dst.mb,   dst.nb,  dst.prow,
                              dst.pcol, dst.order, dst.rsrc, dst.csrc};
            dmxi_volume iv;
            memset(&iv, 0, sizeof iv);
            dmx_relabel_gains g;
            int ok = dmxi_cyclic_volume(&a, &b, transpose, &iv) == DMX_SUCCESS &&
                     dmx_relabel_volume_get_gains(h, &g) == DMX_SUCCESS && g.n == iv.p &&
                     memcmp(g.rowptr, iv.rowptr, ((size_t)iv.p + 1) * sizeof *g.rowptr) == 0 &&
                     memcmp(g.col, iv.col, (size_t)iv.nnz * sizeof *g.col) == 0 &&
                     memcmp(g.gain, iv.vol, (size_t)iv.nnz * sizeof *g.gain) == 0;
            DMXT_EXPECT(&results, ok, "public and internal block-cyclic volumes differ");
            dmxi_cyclic_volume_free(&iv);
        }

        /* remote volume of a random permutation and of the identity */
        int sigma[16];
        for (int j = 0; j < p; j++)
            sigma[j] = j;
        remote_ctx rc = {ref, p, m * n};
        int64_t remote = -1;
        DMXT_EXPECT(&results,
                    dmx_relabel_volume_remote(h, NULL, &remote) == DMX_SUCCESS &&
                        remote == -neg_remote_fn(&rc, sigma),
                    "identity remote %lld", (long long)remote);
        dmxt_rng_shuffle(&rng, sigma, p);
        DMXT_EXPECT(&results,
                    dmx_relabel_volume_remote(h, sigma, &remote) == DMX_SUCCESS &&
                        remote == -neg_remote_fn(&rc, sigma),
                    "permuted remote %lld", (long long)remote);
        if (p >= 2) {
            sigma[0] = sigma[1];
            DMXT_EXPECT(&results, dmx_relabel_volume_remote(h, sigma, &remote) == DMX_ERR_ARG,
                        "remote of a non-permutation");
        }
        /* the exact relabeling reaches the least remote volume over all permutations */
        if (p <= 8) {
            int64_t best = -lapt_best_over_permutations(p, neg_remote_fn, &rc);
            int ok = dmx_relabel_volume_solve(h, DMX_RELABEL_EXACT, sigma, &remote) == DMX_SUCCESS;
            DMXT_EXPECT(&results,
                        ok && lapt_is_permutation(sigma, p) && remote == best &&
                            -neg_remote_fn(&rc, sigma) == best,
                        "solve: remote %lld, least %lld (p=%d)", (long long)remote, (long long)best,
                        p);
            int64_t greedy = -1;
            ok = dmx_relabel_volume_solve(h, DMX_RELABEL_GREEDY, sigma, &greedy) == DMX_SUCCESS;
            DMXT_EXPECT(&results, ok && greedy >= best && greedy == -neg_remote_fn(&rc, sigma),
                        "greedy solve: remote %lld, least %lld", (long long)greedy,
                        (long long)best);
        }
        dmx_relabel_volume_destroy(&h);
        DMXT_EXPECT(&results, h == NULL, "destroy nulls the handle");
        /* a p below what the descriptions need */
        if (need >= 2) {
            h = (dmx_relabel_volume *)&rc; /* must be overwritten with NULL */
            DMXT_EXPECT(&results,
                        dmx_relabel_volume_create(&src, &dst, transpose, need - 1, &h) ==
                                DMX_ERR_ARG &&
                            h == NULL,
                        "p = %d below %d", need - 1, need);
        }
        free(ref);
    }
}

static void test_volume_errors(void)
{
    dmx_relabel_desc a, b;
    memset(&a, 0, sizeof a);
    a.kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
    a.m = a.n = 10;
    a.mb = a.nb = 2;
    a.prow = a.pcol = 2;
    a.order = 'R';
    b = a;
    dmx_relabel_volume *h = NULL;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &b, 0, 0, NULL) == DMX_ERR_NULL,
                "NULL output");
    DMXT_EXPECT(&results, dmx_relabel_volume_create(NULL, &b, 0, 0, &h) == DMX_ERR_NULL,
                "NULL source");
    b.kind = (dmx_relabel_desc_kind)5;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &b, 0, 0, &h) == DMX_ERR_ARG, "bad kind");
    b = a;
    b.order = 'X';
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &b, 0, 0, &h) == DMX_ERR_ARG && !h,
                "bad order");
    b = a;
    b.m = 11;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &b, 0, 0, &h) == DMX_ERR_LAYOUT && !h,
                "size mismatch");
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &a, 0, -1, &h) == DMX_ERR_ARG, "p < 0");
    int64_t rs[3] = {0, 5, 10}, cs[2] = {0, 10};
    int own[2] = {0, -1};
    dmx_relabel_desc g;
    memset(&g, 0, sizeof g);
    g.kind = DMX_RELABEL_DESC_GRID;
    g.m = g.n = 10;
    g.nrb = 2;
    g.ncb = 1;
    g.rowsplits = rs;
    g.colsplits = cs;
    g.owners = own;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&a, &g, 0, 0, &h) == DMX_ERR_LAYOUT && !h,
                "negative owner");
    own[1] = 1;
    rs[1] = 11;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&g, &a, 0, 0, &h) == DMX_ERR_LAYOUT && !h,
                "splits not increasing");
    rs[1] = 5;
    DMXT_EXPECT(&results, dmx_relabel_volume_create(&g, &a, 0, 0, &h) == DMX_SUCCESS && h,
                "valid grid -> block-cyclic");
    int p = 0;
    DMXT_EXPECT(&results, dmx_relabel_volume_get_info(h, &p, NULL, NULL) == DMX_SUCCESS && p == 4,
                "p = %d, want 4", p);
    DMXT_EXPECT(&results, dmx_relabel_volume_remote(h, NULL, NULL) == DMX_ERR_NULL, "NULL remote");
    DMXT_EXPECT(&results, dmx_relabel_volume_get_gains(h, NULL) == DMX_ERR_NULL, "NULL gains");
    DMXT_EXPECT(&results, dmx_relabel_volume_get_info(NULL, &p, NULL, NULL) == DMX_ERR_NULL,
                "NULL handle");
    dmx_relabel_volume_destroy(&h);
    DMXT_EXPECT(&results, dmx_relabel_volume_destroy(&h) == DMX_SUCCESS && !h, "destroy twice");
    DMXT_EXPECT(&results, dmx_relabel_volume_destroy(NULL) == DMX_SUCCESS, "destroy(NULL)");
}

int main(void)
{
    dmxt_rng_seed(&rng, 20261124, 13);
    test_assign_bruteforce();
    test_assign_vs_internal();
    test_assign_errors();
    test_volumes();
    test_volume_errors();
    dmxt_count_print(&results);
    return dmxt_count_exit_code(&results);
}
