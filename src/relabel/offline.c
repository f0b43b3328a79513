/* SPDX-License-Identifier: BSD-3-Clause */
/* The public offline relabeling calls (dmx/relabel.h, "Offline relabeling studies"): thin
 * wrappers that validate the arguments, translate the public descriptions into the internal ones
 * field by field and call the MPI-free solvers (lap_exact.c, lap_greedy.c) and the package
 * volumes (cyclic_volume.c). No algorithm lives here.
 *
 * Everything is Local and uses no MPI. Temporary memory: dmx_relabel_assign O(n + nnz) (the
 * solvers'); dmx_relabel_volume_create the volume computation's (cyclic_volume.h) plus, when a
 * block-cyclic side meets a grid side, that side's grid form (O(nrb + ncb + nrb * ncb));
 * dmx_relabel_volume_remote O(P) for the permutation check.
 */
#include "cyclic_volume.h"
#include "lap.h"

#include <string.h>

/* The handle owns one volume matrix. */
struct dmx_relabel_volume {
    dmxi_volume v;
};

/* Public gains -> the solvers' sparse matrix (same fields, copied one by one). */
static dmxi_lap_sparse to_sparse(const dmx_relabel_gains *g)
{
    dmxi_lap_sparse s;
    s.n = g->n;
    s.rowptr = g->rowptr;
    s.col = g->col;
    s.gain = g->gain;
    return s;
}

dmx_status dmx_relabel_assign(const dmx_relabel_gains *gains, dmx_relabel_method method, int *sigma,
                              int64_t *total_gain)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_CHECK(gains != NULL, DMX_ERR_NULL, "gains is NULL");
    DMXI_CHECK(sigma != NULL || gains->n == 0, DMX_ERR_NULL, "sigma is NULL");
    dmxi_lap_sparse g = to_sparse(gains);
    switch (method) {
    case DMX_RELABEL_EXACT: DMXI_TRY(dmxi_lap_exact(&g, sigma, total_gain)); break;
    case DMX_RELABEL_GREEDY: DMXI_TRY(dmxi_lap_greedy(&g, sigma, total_gain)); break;
    case DMX_RELABEL_IDENTITY:
        DMXI_TRY(dmxi_lap_sparse_check(&g));
        for (int x = 0; x < g.n; x++)
            sigma[x] = x;
        if (total_gain)
            DMXI_TRY(dmxi_lap_sparse_gain(&g, sigma, total_gain));
        break;
    default: DMXI_FAIL(DMX_ERR_ARG, "unknown relabeling method %d", (int)method);
    }
cleanup:
    return st;
}

dmx_status dmx_relabel_assign_gain(const dmx_relabel_gains *gains, const int *sigma,
                                   int64_t *total_gain)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_CHECK(gains != NULL && total_gain != NULL, DMX_ERR_NULL, "NULL argument");
    dmxi_lap_sparse g = to_sparse(gains);
    DMXI_TRY(dmxi_lap_sparse_check(&g));
    DMXI_TRY(dmxi_lap_sparse_gain(&g, sigma, total_gain));
cleanup:
    return st;
}

/* ---- package volumes ---------------------------------------------------------------------- */

static void to_bc(const dmx_relabel_desc *d, dmxi_bc_desc *bc)
{
    memset(bc, 0, sizeof *bc);
    bc->m = d->m;
    bc->n = d->n;
    bc->mb = d->mb;
    bc->nb = d->nb;
    bc->prow = d->prow;
    bc->pcol = d->pcol;
    bc->order = d->order;
    bc->rsrc = d->rsrc;
    bc->csrc = d->csrc;
}

static void to_grid(const dmx_relabel_desc *d, dmxi_grid_desc *g)
{
    memset(g, 0, sizeof *g);
    g->m = d->m;
    g->n = d->n;
    g->nrb = d->nrb;
    g->ncb = d->ncb;
    g->rowsplits = d->rowsplits;
    g->colsplits = d->colsplits;
    g->owners = d->owners;
}

/* The least rank count one description needs (0 where it cannot tell: the volume calls then
 * report what is wrong with it). */
static int64_t least_ranks(const dmx_relabel_desc *d)
{
    int64_t need = 0;
    if (d->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC) {
        if (d->prow >= 1 && d->pcol >= 1)
            need = (int64_t)d->prow * d->pcol;
    } else if (d->owners && d->nrb > 0 && d->ncb > 0 && d->nrb <= (INT64_C(1) << 26) / d->ncb) {
        for (int64_t k = 0; k < d->nrb * d->ncb; k++)
            if ((int64_t)d->owners[k] + 1 > need)
                need = (int64_t)d->owners[k] + 1;
    }
    return need;
}

/* Grow the volume matrix to p ranks (rows of the new ranks are empty). */
static dmx_status pad_ranks(dmxi_volume *v, int p)
{
    dmx_status st = DMX_SUCCESS;
    if (p <= v->p)
        goto cleanup;
    int64_t *rp = realloc(v->rowptr, ((size_t)p + 1) * sizeof *rp);
    DMXI_CHECK(rp != NULL, DMX_ERR_ALLOC, "out of memory (%d ranks)", p);
    v->rowptr = rp;
    for (int j = v->p + 1; j <= p; j++)
        rp[j] = v->nnz;
    v->p = p;
cleanup:
    return st;
}

dmx_status dmx_relabel_volume_create(const dmx_relabel_desc *src, const dmx_relabel_desc *dst,
                                     int transpose, int p, dmx_relabel_volume **volume)
{
    dmx_status st = DMX_SUCCESS;
    dmx_relabel_volume *h = NULL;
    int64_t *sp[2][2] = {{NULL, NULL}, {NULL, NULL}};
    int *own[2] = {NULL, NULL};
    dmxi_error_clear();
    DMXI_CHECK(volume != NULL, DMX_ERR_NULL, "volume is NULL");
    *volume = NULL;
    DMXI_CHECK(src != NULL && dst != NULL, DMX_ERR_NULL, "source or target description is NULL");
    const dmx_relabel_desc *d[2] = {src, dst};
    for (int s = 0; s < 2; s++)
        DMXI_CHECK(d[s]->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC ||
                       d[s]->kind == DMX_RELABEL_DESC_GRID,
                   DMX_ERR_ARG, "%s: unknown description kind %d", s ? "target" : "source",
                   (int)d[s]->kind);
    DMXI_CHECK(p >= 0, DMX_ERR_ARG, "p = %d is negative", p);
    int64_t need = least_ranks(src);
    if (least_ranks(dst) > need)
        need = least_ranks(dst);
    DMXI_CHECK(need <= INT_MAX, DMX_ERR_ARG, "the descriptions need %lld ranks", (long long)need);
    DMXI_CHECK(p == 0 || p >= need, DMX_ERR_ARG, "p = %d, but the descriptions need %lld ranks", p,
               (long long)need);
    if (p == 0)
        p = need > 0 ? (int)need : 1;
    h = calloc(1, sizeof *h);
    DMXI_CHECK(h != NULL, DMX_ERR_ALLOC, "out of memory");
    if (src->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC && dst->kind == DMX_RELABEL_DESC_BLOCK_CYCLIC) {
        dmxi_bc_desc a, b;
        to_bc(src, &a);
        to_bc(dst, &b);
        DMXI_TRY(dmxi_cyclic_volume(&a, &b, transpose, &h->v));
        DMXI_TRY(pad_ranks(&h->v, p));
    } else {
        dmxi_grid_desc g[2];
        for (int s = 0; s < 2; s++) {
            if (d[s]->kind == DMX_RELABEL_DESC_GRID) {
                to_grid(d[s], &g[s]);
            } else {
                dmxi_bc_desc bc;
                to_bc(d[s], &bc);
                DMXI_TRY(dmxi_cyclic_volume_bc_to_grid(&bc, &g[s], &sp[s][0], &sp[s][1], &own[s]));
            }
        }
        DMXI_TRY(dmxi_cyclic_volume_grid(&g[0], &g[1], transpose, p, &h->v));
    }
    *volume = h;
    h = NULL;
cleanup:
    if (h)
        dmxi_cyclic_volume_free(&h->v);
    free(h);
    for (int s = 0; s < 2; s++) {
        free(sp[s][0]);
        free(sp[s][1]);
        free(own[s]);
    }
    return st;
}

dmx_status dmx_relabel_volume_destroy(dmx_relabel_volume **volume)
{
    if (volume && *volume) {
        dmxi_cyclic_volume_free(&(*volume)->v);
        free(*volume);
        *volume = NULL;
    }
    return DMX_SUCCESS;
}

dmx_status dmx_relabel_volume_get_info(const dmx_relabel_volume *volume, int *p, int64_t *nnz,
                                       int64_t *total)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_CHECK(volume != NULL, DMX_ERR_NULL, "volume is NULL");
    if (p)
        *p = volume->v.p;
    if (nnz)
        *nnz = volume->v.nnz;
    if (total)
        *total = volume->v.total;
cleanup:
    return st;
}

dmx_status dmx_relabel_volume_get_gains(const dmx_relabel_volume *volume, dmx_relabel_gains *gains)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_CHECK(volume != NULL && gains != NULL, DMX_ERR_NULL, "NULL argument");
    dmxi_lap_sparse g = dmxi_cyclic_volume_gains(&volume->v);
    gains->n = g.n;
    gains->rowptr = g.rowptr;
    gains->col = g.col;
    gains->gain = g.gain;
cleanup:
    return st;
}

dmx_status dmx_relabel_volume_remote(const dmx_relabel_volume *volume, const int *sigma,
                                     int64_t *remote)
{
    dmx_status st = DMX_SUCCESS;
    char *used = NULL;
    dmxi_error_clear();
    DMXI_CHECK(volume != NULL && remote != NULL, DMX_ERR_NULL, "NULL argument");
    if (sigma) {
        used = dmxi_calloc(volume->v.p, 1);
        DMXI_CHECK(used != NULL, DMX_ERR_ALLOC, "out of memory");
        for (int j = 0; j < volume->v.p; j++) {
            DMXI_CHECK(sigma[j] >= 0 && sigma[j] < volume->v.p && !used[sigma[j]], DMX_ERR_ARG,
                       "sigma is not a permutation (sigma[%d] = %d)", j, sigma[j]);
            used[sigma[j]] = 1;
        }
    }
    DMXI_TRY(dmxi_cyclic_volume_remote(&volume->v, sigma, remote));
cleanup:
    free(used);
    return st;
}

dmx_status dmx_relabel_volume_solve(const dmx_relabel_volume *volume, dmx_relabel_method method,
                                    int *sigma, int64_t *remote)
{
    dmx_status st = DMX_SUCCESS;
    dmx_relabel_gains g;
    DMXI_TRY(dmx_relabel_volume_get_gains(volume, &g));
    DMXI_TRY(dmx_relabel_assign(&g, method, sigma, NULL));
    if (remote)
        DMXI_TRY(dmx_relabel_volume_remote(volume, sigma, remote));
cleanup:
    return st;
}
