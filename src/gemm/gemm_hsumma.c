/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical SUMMA (Quintin, Hasanov, Lastovetsky, 2013) on a pr x pc grid split into
 * G = gr x gc groups of (pr/gr) x (pc/gc) ranks, outer panel width B, inner panel width b.
 *
 * Algorithm
 *   Panels of [0, k) as in SUMMA (gemm_summa.c), of width at most B (the outer panels). For an
 *   outer panel of A owned by grid column c = g*s + l (s = pc/gc ranks per group row, l the
 *   place inside the group): the ranks at place l of every group of the grid row receive it
 *   from column c (one broadcast over gc ranks: the "cross" communicator); then inside each
 *   group the rank at place l broadcasts it in inner panels of width b to its s group mates
 *   (the "group" communicator), and every rank multiplies each inner panel. B's panels go the
 *   same way down the grid columns with gr groups of pr/gr ranks.
 *   Look-ahead on both levels: outer panel o+1's cross broadcasts start when outer panel o's
 *   first inner panel starts (three outer buffers), and inner panel t+1's group broadcasts start
 *   before inner panel t's multiply (two inner buffers), all nonblocking (MPI_Ibcast).
 *   G = 1 is SUMMA with panel b (the cross communicators have one rank); G = p with B = b is
 *   SUMMA with panel B (the groups have one rank): same panels, same broadcasts.
 *
 * Preconditions: gr divides pr, gc divides pc; B a multiple of b.
 *
 * Cost (n x n x n, p ranks on a square grid, sqrt(G) x sqrt(G) groups, T_bcast from the model):
 *   n/B * [T_bcast(sqrt(G), n B / sqrt(p)) * 2]  +  n/b * [T_bcast(sqrt(p/G), n b / sqrt(p)) * 2]
 *   + 2 n^3 / p gamma, the broadcasts hidden under the multiplies as far as they are shorter.
 *   With scatter-allgather broadcasts the latency terms are 2 (n/B) log(G) alpha and
 *   2 (n/b) log(p/G) alpha against SUMMA's 2 (n/b) log(p) alpha; the bandwidth terms are
 *   about twice SUMMA's 2 n^2/sqrt(p) beta (each level moves the panel once).
 * Temporary memory: three outer A panels (m_i x B), three outer B panels (B x n_j), two inner
 *   panels of each (m_i x b, b x n_j). */
#include "dmx/gemm.h"
#include "gemm_internal.h"

typedef struct step {
    int64_t k0, w; /* inner panel */
    int64_t o;     /* its outer panel */
    int64_t u;     /* index inside the outer panel */
} step;

typedef struct outer {
    int64_t k0, w;
    int ocol, orow;
} outer;

typedef struct hs {
    dmx_gemm_plan *g;
    int64_t ml, nl, b, B;
    int sc, sr;
    outer *os;
    int64_t no;
    step *ss;
    int64_t ns;
} hs;

static dmx_status make_schedule(hs *h)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = h->g;
    int64_t *cuts = NULL;
    int nc = 0;
    DMXI_TRY(dmxi_gemm_cuts(g->ka, g->pc, g->kb, g->pr, &cuts, &nc));
    int64_t no = 0, ns = 0;
    for (int i = 0; i < nc; i++)
        no += (cuts[i + 1] - cuts[i] + h->B - 1) / h->B;
    h->os = dmxi_malloc(no, sizeof *h->os);
    DMXI_CHECK(h->os != NULL, DMX_ERR_ALLOC, "out of memory for panels");
    for (int i = 0; i < nc; i++)
        for (int64_t k0 = cuts[i]; k0 < cuts[i + 1]; k0 += h->B) {
            outer *o = &h->os[h->no++];
            o->k0 = k0;
            o->w = cuts[i + 1] - k0 < h->B ? cuts[i + 1] - k0 : h->B;
            o->ocol = dmxi_gemm_part(g->ka, g->pc, k0);
            o->orow = dmxi_gemm_part(g->kb, g->pr, k0);
            ns += (o->w + h->b - 1) / h->b;
        }
    h->ss = dmxi_malloc(ns, sizeof *h->ss);
    DMXI_CHECK(h->ss != NULL, DMX_ERR_ALLOC, "out of memory for panels");
    for (int64_t o = 0; o < h->no; o++)
        for (int64_t u = 0; u * h->b < h->os[o].w; u++) {
            step *s = &h->ss[h->ns++];
            s->o = o;
            s->u = u;
            s->k0 = h->os[o].k0 + u * h->b;
            s->w = h->os[o].w - u * h->b < h->b ? h->os[o].w - u * h->b : h->b;
        }
cleanup:
    free(cuts);
    return st;
}

/* Outer buffers of slot s (three slots). */
static void *outer_a(const hs *h, int64_t o)
{
    return (char *)h->g->work[1] + (size_t)((o % 3) * h->ml * h->B) * h->g->esz;
}
static void *outer_b(const hs *h, int64_t o)
{
    return (char *)h->g->work[3] + (size_t)((o % 3) * h->nl * h->B) * h->g->esz;
}

/* Outer panel o: its owners pack it; the ranks at its place in every group take part in the
 * cross broadcasts. */
static dmx_status post_outer(hs *h, int64_t o, MPI_Request req[2])
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = h->g;
    const outer *op = &h->os[o];
    void *ab = outer_a(h, o), *bb = outer_b(h, o);
    req[0] = req[1] = MPI_REQUEST_NULL;
    if (g->myc == op->ocol)
        dmxi_gemm_copy(g->esz, h->ml, op->w,
                       (char *)g->a + (size_t)((op->k0 - g->ka[g->myc]) * g->lda) * g->esz, g->lda,
                       ab, h->ml);
    if (g->myr == op->orow) /* B's outer panel as its inner panels one after another */
        for (int64_t u = 0; u * h->b < op->w; u++) {
            int64_t w = op->w - u * h->b < h->b ? op->w - u * h->b : h->b;
            dmxi_gemm_copy(g->esz, w, h->nl,
                           (char *)g->b + (size_t)(op->k0 + u * h->b - g->kb[g->myr]) * g->esz,
                           g->ldb, (char *)bb + (size_t)(u * h->b * h->nl) * g->esz, w);
        }
    if (g->myc % h->sc == op->ocol % h->sc)
        DMXI_TRY(
            dmxi_gemm_bcast_start(g, ab, h->ml * op->w, op->ocol / h->sc, g->row_cross, &req[0]));
    if (g->myr % h->sr == op->orow % h->sr)
        DMXI_TRY(
            dmxi_gemm_bcast_start(g, bb, op->w * h->nl, op->orow / h->sr, g->col_cross, &req[1]));
cleanup:
    return st;
}

/* Inner panel t: the buffers it is multiplied from, and its group broadcasts. */
static dmx_status post_inner(hs *h, int64_t t, void **ab, void **bb, MPI_Request req[2])
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = h->g;
    const step *s = &h->ss[t];
    const outer *op = &h->os[s->o];
    int sl = (int)(t % 2);
    if (g->myc % h->sc == op->ocol % h->sc)
        *ab = (char *)outer_a(h, s->o) + (size_t)(s->u * h->b * h->ml) * g->esz;
    else
        *ab = (char *)g->work[0] + (size_t)(sl * h->ml * h->b) * g->esz;
    if (g->myr % h->sr == op->orow % h->sr)
        *bb = (char *)outer_b(h, s->o) + (size_t)(s->u * h->b * h->nl) * g->esz;
    else
        *bb = (char *)g->work[2] + (size_t)(sl * h->nl * h->b) * g->esz;
    DMXI_TRY(dmxi_gemm_bcast_start(g, *ab, h->ml * s->w, op->ocol % h->sc, g->row_group, &req[0]));
    DMXI_TRY(dmxi_gemm_bcast_start(g, *bb, s->w * h->nl, op->orow % h->sr, g->col_group, &req[1]));
cleanup:
    return st;
}

dmx_status dmxi_gemm_hsumma(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated)
{
    dmx_status st = DMX_SUCCESS;
    hs h = {0};
    MPI_Request oreq[3][2], ireq[2][2];
    void *ab[2] = {NULL, NULL}, *bb[2] = {NULL, NULL};
    for (int i = 0; i < 6; i++)
        oreq[i / 2][i % 2] = MPI_REQUEST_NULL;
    for (int i = 0; i < 4; i++)
        ireq[i / 2][i % 2] = MPI_REQUEST_NULL;
    *updated = 0;
    if (g->myr < 0)
        goto cleanup;
    h.g = g;
    h.ml = g->rows[g->myr + 1] - g->rows[g->myr];
    h.nl = g->cols[g->myc + 1] - g->cols[g->myc];
    h.b = g->info.panel;
    h.B = g->info.outer_panel;
    h.sc = g->pc / g->gc;
    h.sr = g->pr / g->gr;
    DMXI_TRY(make_schedule(&h));
    h.no = dmxi_gemm_sim_panels(h.no); /* outer panels; their inner ones are in order */
    while (h.ns > 0 && h.ss[h.ns - 1].o >= h.no)
        h.ns--;
    if (h.ns == 0)
        goto cleanup;
    DMXI_TRY(post_outer(&h, 0, oreq[0]));
    DMXI_MPI(dmxi_waitall(2, oreq[0]));
    if (h.no > 1)
        DMXI_TRY(post_outer(&h, 1, oreq[1]));
    DMXI_TRY(post_inner(&h, 0, &ab[0], &bb[0], ireq[0]));
    for (int64_t t = 0; t < h.ns; t++) {
        int s = (int)(t % 2);
        if (t + 1 < h.ns) {
            int64_t o = h.ss[t + 1].o;
            if (o != h.ss[t].o) { /* the next inner panel opens outer panel o */
                DMXI_MPI(dmxi_waitall(2, oreq[o % 3]));
                if (o + 1 < h.no)
                    DMXI_TRY(post_outer(&h, o + 1, oreq[(o + 1) % 3]));
            }
            DMXI_TRY(post_inner(&h, t + 1, &ab[1 - s], &bb[1 - s], ireq[1 - s]));
        }
        DMXI_MPI(dmxi_waitall(2, ireq[s]));
        int64_t w = h.ss[t].w;
        dmxi_gemm_local(g->dtype, h.ml, h.nl, w, g->alpha, ab[s], h.ml > 0 ? h.ml : 1, bb[s], w,
                        *updated ? (dmx_scalar){1.0, 0.0} : first_beta, g->c, g->ldc);
        g->info.local_gemms += h.ml > 0 && h.nl > 0;
        *updated = 1;
    }
cleanup:
    if (st != DMX_SUCCESS) {
        for (int i = 0; i < 3; i++)
            dmxi_waitall(2, oreq[i]);
        for (int i = 0; i < 2; i++)
            dmxi_waitall(2, ireq[i]);
    }
    free(h.os);
    free(h.ss);
    return st;
}
