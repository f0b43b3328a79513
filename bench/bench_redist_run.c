/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist: layouts, fill and verification, and the setup and one timed run of each
 * implementation (dmx, ScaLAPACK, hand-written MPI_Alltoallv). See bench_redist.c for the method.
 */
#include "bench_redist.h"
#include "bench_util.h"
#ifdef DMX_HAVE_SCALAPACK
#include "bench_scalapack.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Global formula, fill, verification                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Value of element (i, j) of the k-th source matrix of size mb_ x nb_: distinct, exact in a
 * double as long as batch*m*n < 2^53 (checked), never 0. */
static double bval(int64_t k, int64_t i, int64_t j, int64_t mb_, int64_t nb_)
{
    return (double)((k * mb_ + i) * nb_ + j + 1);
}

/* Global indices of this rank's local rows (or columns) of a layout. */
static int64_t *global_indices(int64_t nloc, int64_t nb, int iproc, int nprocs)
{
    int64_t *g = malloc((size_t)(nloc > 0 ? nloc : 1) * sizeof(int64_t));
    if (g != NULL)
        for (int64_t l = 0; l < nloc; l++)
            g[l] = bench_bc_global(l, nb, iproc, nprocs);
    return g;
}

int redist_side_init(side *s, const bench_bc *bc, int rank)
{
    s->bc = *bc;
    bench_bc_local(bc, rank, &s->pr, &s->pc, &s->mloc, &s->nloc);
    s->ld = s->mloc > 0 ? s->mloc : 1;
    s->gi = global_indices(s->mloc, bc->mb, s->pr, bc->prow);
    s->gj = global_indices(s->nloc, bc->nb, s->pc, bc->pcol);
    return s->gi != NULL && s->gj != NULL ? 0 : -1;
}

void redist_side_free(side *s)
{
    free(s->gi);
    free(s->gj);
    s->gi = s->gj = NULL;
}

double *redist_side_alloc(const side *s, int align)
{
    int64_t n = s->ld * (s->nloc > 0 ? s->nloc : 1);
    return bench_alloc_aligned((size_t)n * sizeof(double), align);
}

void redist_fill_source(const side *s, double *b, int64_t k)
{
    for (int64_t jl = 0; jl < s->nloc; jl++)
        for (int64_t il = 0; il < s->mloc; il++)
            b[il + jl * s->ld] = bval(k, s->gi[il], s->gj[jl], s->bc.m, s->bc.n);
}

void redist_fill_nan(const side *s, double *a)
{
    int64_t n = s->ld * s->nloc;
    for (int64_t k = 0; k < n; k++)
        a[k] = NAN;
}

/* Wrong elements of this rank's part of A_k = op(B_k); B is bm x bn. */
static int64_t count_wrong(const side *s, const double *a, int64_t k, int trans, int64_t bm,
                           int64_t bn)
{
    int64_t wrong = 0;
    for (int64_t jl = 0; jl < s->nloc; jl++) {
        const int64_t j = s->gj[jl];
        for (int64_t il = 0; il < s->mloc; il++) {
            const int64_t i = s->gi[il];
            double want = trans ? bval(k, j, i, bm, bn) : bval(k, i, j, bm, bn);
            if (!(a[il + jl * s->ld] == want))
                wrong++;
        }
    }
    return wrong;
}

static void set_status(result *r, const char *status, const char *note)
{
    r->active = 0;
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->note, sizeof r->note, "%s", note);
}

/* All ranks agree on the worst dmx status. */
static dmx_status agree(dmx_status st)
{
    int in = (int)st, out = (int)DMX_ERR_INTERNAL;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return (dmx_status)out;
}

static void dmx_fail(group *g, int impl, const char *what, dmx_status st)
{
    char note[200];
    snprintf(note, sizeof note, "%s: %s", what, g->rank == 0 ? dmx_last_error() : "");
    set_status(&g->r[impl], dmx_status_string(st), note);
}

void redist_setup_dmx(group *g)
{
    const int nlay = g->nmat;
    g->lb = calloc((size_t)nlay, sizeof *g->lb);
    g->la = calloc((size_t)nlay, sizeof *g->la);
    g->r[IMPL_DMX].attempted = g->r[IMPL_DMX].active = 1;
    if (g->nmat > 1)
        g->r[IMPL_DMX_BATCH].attempted = g->r[IMPL_DMX_BATCH].active = 1;
    if (g->lb == NULL || g->la == NULL) {
        set_status(&g->r[IMPL_DMX], "failed", "out of memory");
        set_status(&g->r[IMPL_DMX_BATCH], "failed", "out of memory");
        return;
    }
    if (bench_world_dup(&g->comm) != MPI_SUCCESS) {
        g->comm = MPI_COMM_NULL;
        set_status(&g->r[IMPL_DMX], "failed", "MPI_Comm_dup");
        set_status(&g->r[IMPL_DMX_BATCH], "failed", "MPI_Comm_dup");
        return;
    }
    for (int k = 0; k < nlay; k++) {
        const bench_bc *b = &g->sb.bc, *a = &g->sa.bc;
        dmx_status st =
            dmx_layout_create_block_cyclic(g->comm, b->m, b->n, b->mb, b->nb, b->prow, b->pcol, 'R',
                                           0, 0, g->b[k], g->sb.ld, &g->lb[k]);
        st = agree(st);
        if (st == DMX_SUCCESS) {
            st = dmx_layout_create_block_cyclic(g->comm, a->m, a->n, a->mb, a->nb, a->prow, a->pcol,
                                                'R', 0, 0, g->a[k], g->sa.ld, &g->la[k]);
            st = agree(st);
        }
        if (st != DMX_SUCCESS) {
            dmx_fail(g, IMPL_DMX, "dmx_layout_create_block_cyclic", st);
            if (g->nmat > 1)
                dmx_fail(g, IMPL_DMX_BATCH, "dmx_layout_create_block_cyclic", st);
            return;
        }
    }
    dmx_transform *tr = calloc((size_t)nlay, sizeof *tr);
    if (tr == NULL) {
        set_status(&g->r[IMPL_DMX], "failed", "out of memory");
        set_status(&g->r[IMPL_DMX_BATCH], "failed", "out of memory");
        return;
    }
    for (int k = 0; k < nlay; k++) {
        tr[k].dtype = DMX_DOUBLE;
        tr[k].op = g->trans ? DMX_OP_T : DMX_OP_N;
        tr[k].alpha.re = 1.0;
        tr[k].beta.re = 0.0;
        tr[k].b = g->lb[k];
        tr[k].a = g->la[k];
    }
    for (int pass = 0; pass < (g->nmat > 1 ? 2 : 1); pass++) {
        const int impl = pass == 0 ? IMPL_DMX : IMPL_DMX_BATCH;
        dmx_plan **p = pass == 0 ? &g->plan : &g->plan_batch;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        dmx_status st = dmx_plan_create(pass == 0 ? 1 : nlay, tr, p);
        double t = MPI_Wtime() - t0;
        g->r[impl].t_plan = bench_max_over_ranks(MPI_COMM_WORLD, t);
        st = agree(st);
        if (st != DMX_SUCCESS)
            dmx_fail(g, impl, "dmx_plan_create", st);
    }
    free(tr);
}

/* The relabeled target of B -> A: dmx picks sigma under the --node-ratio cost (or the identity,
 * for IMPL_DMX_RELABEL_ID), makes the relabeled communicator and A's layout on it with its own
 * memory, and the plan. The verifying side is A's part for this rank's role, its rank in the
 * relabeled communicator. */
void redist_setup_relabel(group *g, int impl)
{
    result *r = &g->r[impl];
    relabeled *rl = &g->rl[impl - IMPL_DMX_RELABEL];
    r->attempted = r->active = 1;
    if (g->la == NULL || g->la[0] == NULL || g->plan == NULL) {
        set_status(r, "skipped", "needs dmx's own plan");
        return;
    }
    dmx_transform tr = {0};
    tr.dtype = DMX_DOUBLE;
    tr.op = g->trans ? DMX_OP_T : DMX_OP_N;
    tr.alpha.re = 1.0;
    tr.b = g->lb[0];
    tr.a = g->la[0];
    dmx_relabel_opts opts = {0};
    opts.method = impl == IMPL_DMX_RELABEL ? DMX_RELABEL_EXACT : DMX_RELABEL_IDENTITY;
    opts.cost = g->o->node_ratio > 0 ? DMX_COST_NODE : DMX_COST_VOLUME;
    opts.node_ratio = g->o->node_ratio;
    int *sigma = malloc((size_t)g->np * sizeof *sigma);
    dmx_status st = sigma ? DMX_SUCCESS : DMX_ERR_ALLOC;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (st == DMX_SUCCESS)
        st = dmx_plan_create_relabeled(1, &tr, &opts, sigma, &rl->comm, &rl->layout, &rl->plan,
                                       &rl->res);
    r->t_plan = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
    rl->moved = 0;
    for (int j = 0; st == DMX_SUCCESS && j < g->np; j++)
        rl->moved += sigma[j] != j;
    free(sigma);
    st = agree(st);
    if (st != DMX_SUCCESS) {
        dmx_fail(g, impl, "dmx_plan_create_relabeled", st);
        return;
    }
    int role = 0, ok = MPI_Comm_rank(rl->comm, &role) == MPI_SUCCESS;
    ok = ok && redist_side_init(&rl->side, &g->sa.bc, role) == 0;
    int64_t nloc = 0, ld = 0;
    void *data = NULL;
    ok = ok && dmx_layout_get_num_local_blocks(rl->layout, &nloc) == DMX_SUCCESS;
    if (ok && nloc > 0)
        ok = dmx_layout_get_local_block(rl->layout, 0, DMX_DOUBLE, NULL, NULL, NULL, NULL, &data,
                                        &ld, NULL) == DMX_SUCCESS;
    rl->a = data;
    if (ok && nloc > 0) /* dmx's array for the role: its leading dimension, not ours */
        rl->side.ld = ld;
    if (!redist_all_ranks(ok))
        set_status(r, "failed", "the relabeled target's local array");
}

void redist_teardown_dmx(group *g)
{
    for (int i = 0; i < 2; i++) {
        relabeled *rl = &g->rl[i];
        dmx_plan_destroy(&rl->plan);
        dmx_layout_destroy(&rl->layout);
        if (rl->comm != MPI_COMM_NULL)
            MPI_Comm_free(&rl->comm);
        redist_side_free(&rl->side);
    }
    dmx_plan_destroy(&g->plan_batch);
    dmx_plan_destroy(&g->plan);
    for (int k = 0; k < g->nmat; k++) {
        if (g->la != NULL)
            dmx_layout_destroy(&g->la[k]);
        if (g->lb != NULL)
            dmx_layout_destroy(&g->lb[k]);
    }
    free(g->la);
    free(g->lb);
    g->la = g->lb = NULL;
    if (g->comm != MPI_COMM_NULL)
        MPI_Comm_free(&g->comm);
}

int redist_all_ranks(int ok)
{
    int out;
    MPI_Allreduce(&ok, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return out;
}

void redist_setup_a2a(group *g)
{
    result *r = &g->r[IMPL_A2A];
    r->attempted = r->active = 1;
    /* Every count and displacement of the hand-written version is an int. */
    const int64_t lim = 2147483647;
    int fits = g->sb.mloc * g->sb.nloc <= lim && g->sa.mloc * g->sa.nloc <= lim;
    if (!redist_all_ranks(fits)) {
        set_status(r, "skipped", "a local part has more than INT_MAX elements");
        return;
    }
    int ok = bench_a2a_work_init(&g->work, g->sb.mloc * g->sb.nloc, g->sa.mloc * g->sa.nloc) == 0;
    if (!redist_all_ranks(ok))
        set_status(r, "failed", "out of memory for the send/receive buffers");
}

#ifdef DMX_HAVE_SCALAPACK
static int blacs_grid(int pr, int pc)
{
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    return ctxt;
}

static void make_desc(int *desc, const side *s, int ctxt)
{
    int m = (int)s->bc.m, n = (int)s->bc.n, mb = (int)s->bc.mb, nb = (int)s->bc.nb;
    int zero = 0, lld = (int)s->ld, info = 0;
    if (s->pr >= 0) {
        descinit_(desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &lld, &info);
        /* numroc_ must agree with the local sizes every implementation uses. */
        int nprow = s->bc.prow, npcol = s->bc.pcol;
        if (info != 0 || numroc_(&m, &mb, &s->pr, &zero, &nprow) != s->mloc ||
            numroc_(&n, &nb, &s->pc, &zero, &npcol) != s->nloc)
            desc[0] = -1;
    } else {
        /* Not in this grid: ScaLAPACK's redistribution routines want context -1. */
        const int d[9] = {1, -1, m, n, mb, nb, 0, 0, 1};
        memcpy(desc, d, sizeof d);
    }
}
#endif

void redist_setup_scalapack(group *g)
{
    result *r = &g->r[IMPL_SCALAPACK];
    r->attempted = 1;
#ifdef DMX_HAVE_SCALAPACK
    const int64_t lim = 2147483647;
    if (g->sb.bc.m > lim || g->sb.bc.n > lim || g->sb.ld > lim || g->sa.ld > lim) {
        set_status(r, "skipped", "sizes beyond 32-bit ScaLAPACK integers");
        return;
    }
    if (g->trans &&
        (g->c->from_grid.pr != g->c->to_grid.pr || g->c->from_grid.pc != g->c->to_grid.pc)) {
        set_status(r, "skipped", "pdtran needs A and B on one process grid");
        return;
    }
    r->active = 1;
    g->ctxt_all = blacs_grid(1, g->np);
    g->ctxt_b = blacs_grid(g->sb.bc.prow, g->sb.bc.pcol);
    g->ctxt_a = g->trans ? g->ctxt_b : blacs_grid(g->sa.bc.prow, g->sa.bc.pcol);
    make_desc(g->desc_b, &g->sb, g->ctxt_b);
    make_desc(g->desc_a, &g->sa, g->ctxt_a);
    if (!redist_all_ranks(g->desc_b[0] == 1 && g->desc_a[0] == 1))
        set_status(r, "failed", "descinit_ failed or numroc_ disagrees with the layout");
#else
    set_status(r, "skipped", "built without ScaLAPACK");
#endif
}

void redist_teardown_scalapack(group *g)
{
#ifdef DMX_HAVE_SCALAPACK
    if (!g->r[IMPL_SCALAPACK].attempted || strcmp(g->r[IMPL_SCALAPACK].status, "skipped") == 0)
        return;
    if (g->ctxt_a >= 0 && g->ctxt_a != g->ctxt_b)
        Cblacs_gridexit(g->ctxt_a);
    if (g->ctxt_b >= 0)
        Cblacs_gridexit(g->ctxt_b);
    if (g->ctxt_all >= 0)
        Cblacs_gridexit(g->ctxt_all);
#else
    (void)g;
#endif
}

/* Run implementation impl once on every rank; returns the time (max over ranks, per matrix) or
 * a negative value if it failed, and in *cpu the CPU time of all ranks (per matrix); adds wrong
 * elements to r->wrong. */
double redist_run_once(group *g, int impl, double *cpu)
{
    result *r = &g->r[impl];
    const int nverify = impl == IMPL_DMX_BATCH ? g->nmat : 1;
    const int rel = impl == IMPL_DMX_RELABEL || impl == IMPL_DMX_RELABEL_ID;
    relabeled *rl = rel ? &g->rl[impl - IMPL_DMX_RELABEL] : NULL;
    for (int k = 0; k < nverify && (!rel || rl->a != NULL); k++)
        redist_fill_nan(rel ? &rl->side : &g->sa, rel ? rl->a : g->a[k]);

    int err = 0;
    dmx_status st = DMX_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = bench_cpu_now();
    double t0 = MPI_Wtime();
    switch (impl) {
    case IMPL_DMX: st = dmx_plan_execute(g->plan); break;
    case IMPL_DMX_BATCH: st = dmx_plan_execute(g->plan_batch); break;
    case IMPL_DMX_RELABEL:
    case IMPL_DMX_RELABEL_ID: st = dmx_plan_execute(rl->plan); break;
    case IMPL_A2A:
        err = bench_a2a_redist(MPI_COMM_WORLD, g->trans ? 'T' : 'N', &g->sb.bc, g->b[0], g->sb.ld,
                               &g->sa.bc, g->a[0], g->sa.ld, &g->work);
        break;
    case IMPL_SCALAPACK:
#ifdef DMX_HAVE_SCALAPACK
    {
        const int m = (int)g->sa.bc.m, n = (int)g->sa.bc.n, one = 1;
        if (g->trans) {
            const double alpha = 1.0, beta = 0.0;
            if (g->sa.pr >= 0)
                pdtran_(&m, &n, &alpha, g->b[0], &one, &one, g->desc_b, &beta, g->a[0], &one, &one,
                        g->desc_a);
        } else {
            pdgemr2d_(&m, &n, g->b[0], &one, &one, g->desc_b, g->a[0], &one, &one, g->desc_a,
                      &g->ctxt_all);
        }
    }
#endif
    break;
    default: break;
    }
    double t = MPI_Wtime() - t0;
    double c = bench_cpu_now() - c0;
    t = bench_max_over_ranks(MPI_COMM_WORLD, t);
    MPI_Allreduce(&c, cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    if (impl == IMPL_DMX || impl == IMPL_DMX_BATCH || rel) {
        st = agree(st);
        if (st != DMX_SUCCESS) {
            dmx_fail(g, impl, "dmx_plan_execute", st);
            return -1.0;
        }
    } else if (!redist_all_ranks(err == 0)) {
        set_status(r, "failed", "the MPI_Alltoallv redistribution returned an error");
        return -1.0;
    }

    int64_t wrong = 0, total;
    for (int k = 0; k < nverify; k++)
        wrong += count_wrong(rel ? &rl->side : &g->sa, rel ? rl->a : g->a[k], k, g->trans,
                             g->sb.bc.m, g->sb.bc.n);
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (total > r->wrong)
        r->wrong = total;
    if (impl == IMPL_DMX_BATCH) {
        *cpu /= g->nmat;
        t /= g->nmat;
    }
    return t;
}

void redist_blacs_exit(void)
{
#ifdef DMX_HAVE_SCALAPACK
    Cblacs_exit(1);
#endif
}
