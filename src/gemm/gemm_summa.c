/* SPDX-License-Identifier: BSD-3-Clause */
/* SUMMA (van de Geijn and Watts, 1997) on a pr x pc grid with panel width b.
 *
 * Algorithm
 *   C (m x n) sits in pr x pc blocks, A's k columns are split over the pc grid columns and B's
 *   k rows over the pr grid rows. [0, k) is cut at both splits' boundaries and each piece into
 *   panels of at most b, so every panel of A lies on one grid column and every panel of B on
 *   one grid row. For each panel: its owner column broadcasts A's m_i x w panel along each grid
 *   row, its owner row broadcasts B's w x n_j panel along each grid column, and every rank adds
 *   the product of the two into its C block (one CBLAS call).
 *   Look-ahead: panel t+1's two broadcasts are started (MPI_Ibcast on the row and column
 *   communicators, since dmx_coll has no nonblocking form) before panel t's multiply, so they
 *   run under it. With overlap off, each panel is broadcast with dmx_coll_bcast and the model's
 *   algorithm, then multiplied.
 *
 * Preconditions: the plan's layouts (gemm_plan.c); ranks beyond pr*pc sit idle.
 *
 * Cost (n x n x n, p = pr*pc ranks, panels of b, T_bcast(q, bytes) the collectives model's time):
 *   blocking:   sum over n/b panels of [T_bcast(pc, n b / pr) + T_bcast(pr, n b / pc)
 *               + 2 n^2 b / p * gamma]
 *   look-ahead: one panel's broadcasts + n/b * max(broadcasts, multiply)
 *   With pipelined or scatter-allgather broadcasts: about 2 (n/b) log(p) alpha + 2 n^2/sqrt(p)
 *   beta + 2 n^3/p gamma on a square grid.
 * Messages: 2 broadcasts per panel per rank (on communicators of 2 or more ranks).
 * Temporary memory: two A panels (m_i x b) and two B panels (b x n_j). */
#include "dmx/gemm.h"
#include "gemm_internal.h"

typedef struct panel {
    int64_t k0, w;
    int ocol, orow; /* grid column owning A's panel, grid row owning B's */
} panel;

/* The panels of [0, k): pieces of both splits, cut into widths of at most b. */
static dmx_status make_panels(const dmx_gemm_plan *g, int64_t b, panel **out, int64_t *np)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *cuts = NULL;
    int nc = 0;
    panel *ps = NULL;
    DMXI_TRY(dmxi_gemm_cuts(g->ka, g->pc, g->kb, g->pr, &cuts, &nc));
    int64_t cnt = 0;
    for (int i = 0; i < nc; i++)
        cnt += (cuts[i + 1] - cuts[i] + b - 1) / b;
    ps = dmxi_malloc(cnt, sizeof *ps);
    DMXI_CHECK(ps != NULL, DMX_ERR_ALLOC, "out of memory for panels");
    cnt = 0;
    for (int i = 0; i < nc; i++)
        for (int64_t k0 = cuts[i]; k0 < cuts[i + 1]; k0 += b) {
            ps[cnt].k0 = k0;
            ps[cnt].w = cuts[i + 1] - k0 < b ? cuts[i + 1] - k0 : b;
            ps[cnt].ocol = dmxi_gemm_part(g->ka, g->pc, k0);
            ps[cnt].orow = dmxi_gemm_part(g->kb, g->pr, k0);
            cnt++;
        }
    *out = ps;
    *np = cnt;
    ps = NULL;
cleanup:
    free(cuts);
    free(ps);
    return st;
}

/* Pack panel t into buffer slot s (at its owners) and start its two broadcasts. */
static dmx_status post(dmx_gemm_plan *g, const panel *pn, int s, int64_t ml, int64_t nl,
                       MPI_Request req[2])
{
    dmx_status st = DMX_SUCCESS;
    void *ab = g->work[s], *bb = g->work[2 + s];
    if (g->myc == pn->ocol)
        dmxi_gemm_copy(g->esz, ml, pn->w,
                       (char *)g->a + (size_t)((pn->k0 - g->ka[g->myc]) * g->lda) * g->esz, g->lda,
                       ab, ml);
    if (g->myr == pn->orow)
        dmxi_gemm_copy(g->esz, pn->w, nl, (char *)g->b + (size_t)(pn->k0 - g->kb[g->myr]) * g->esz,
                       g->ldb, bb, pn->w);
    DMXI_TRY(dmxi_gemm_bcast_start(g, ab, ml * pn->w, pn->ocol, g->row, &req[0]));
    DMXI_TRY(dmxi_gemm_bcast_start(g, bb, pn->w * nl, pn->orow, g->col, &req[1]));
cleanup:
    return st;
}

dmx_status dmxi_gemm_summa(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated)
{
    dmx_status st = DMX_SUCCESS;
    panel *ps = NULL;
    int64_t np = 0;
    MPI_Request req[2][2] = {{MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                             {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    *updated = 0;
    if (g->myr < 0)
        goto cleanup;
    int64_t ml = g->rows[g->myr + 1] - g->rows[g->myr];
    int64_t nl = g->cols[g->myc + 1] - g->cols[g->myc];
    DMXI_TRY(make_panels(g, g->info.panel, &ps, &np));
    np = dmxi_gemm_sim_panels(np);
    if (np > 0)
        DMXI_TRY(post(g, &ps[0], 0, ml, nl, req[0]));
    for (int64_t t = 0; t < np; t++) {
        int s = (int)(t % 2);
        if (t + 1 < np)
            DMXI_TRY(post(g, &ps[t + 1], 1 - s, ml, nl, req[1 - s]));
        DMXI_MPI(dmxi_waitall(2, req[s]));
        dmxi_gemm_local(g->dtype, ml, nl, ps[t].w, g->alpha, g->work[s], ml > 0 ? ml : 1,
                        g->work[2 + s], ps[t].w, *updated ? (dmx_scalar){1.0, 0.0} : first_beta,
                        g->c, g->ldc);
        g->info.local_gemms += ml > 0 && nl > 0;
        *updated = 1;
    }
cleanup:
    if (st != DMX_SUCCESS)
        for (int i = 0; i < 2; i++)
            dmxi_waitall(2, req[i]);
    free(ps);
    return st;
}
