/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist: A = op(B) between two block-cyclic layouts, timed for dmx, ScaLAPACK
 * (pdgemr2d for op N, pdtran for op T) and a hand-written MPI_Alltoallv redistribution.
 *
 * Method: every implementation runs on the same local arrays; the implementations of one
 * (case, op) are interleaved round-robin in every repetition so machine noise hits them alike.
 * Before each run A is filled with NaN (outside the timed region); a run is MPI_Barrier,
 * t0 = MPI_Wtime(), the operation, MPI_Wtime() - t0, and the maximum over ranks. Every run,
 * warm-up included, is verified element by element against a closed formula of the global
 * indices. The report is the median (and minimum) over the repetitions. See bench/README.md. */
#include "bench.h"
#include "bench_redist.h"
#include "bench_sweep.h"
#include "bench_util.h"

#include "alltoallv_redist.h"
#include "dmx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const impl_name[NIMPL] = {"dmx", "scalapack",   "alltoallv",
                                             "dmx", "dmx_relabel", "dmx_relabel_identity"};

static void summarize(result *r)
{
    r->t_med = r->t_min = r->t_max = r->cpu_med = -1.0;
    if (r->nt == 0)
        return;
    r->t_med = bench_median(r->t, r->nt);
    r->t_min = r->t[0];
    r->t_max = r->t[r->nt - 1];
    r->cpu_med = bench_median(r->cpu, r->nt);
}

static void print_grid(char *buf, size_t len, grid gr)
{
    snprintf(buf, len, "%dx%d", gr.pr, gr.pc);
}

static void report_json(const group *g, double bound)
{
    const options *o = g->o;
    const bench_case *c = g->c;
    char fg[32], tg[32];
    print_grid(fg, sizeof fg, c->from_grid);
    print_grid(tg, sizeof tg, c->to_grid);
    const result *d = &g->r[IMPL_DMX];
    const int have_dmx = d->nt == o->reps && d->t_med > 0;
    for (int i = 0; i < NIMPL; i++) {
        const result *r = &g->r[i];
        if (!r->attempted)
            continue;
        const int timed = r->nt == o->reps && strcmp(r->status, "ok") == 0;
        printf("{\"bench\":\"redist\",\"impl\":\"%s\",\"case\":\"%s\",\"op\":\"%s\",\"np\":%d,"
               "\"m\":%lld,\"n\":%lld,\"dtype\":\"double\",\"from_mb\":%lld,\"from_nb\":%lld,"
               "\"to_mb\":%lld,\"to_nb\":%lld,\"from_grid\":\"%s\",\"to_grid\":\"%s\","
               "\"batch\":%d,\"reps\":%d,\"align\":%d,",
               impl_name[i], c->name, g->trans ? "T" : "N", g->np, (long long)o->m, (long long)o->n,
               (long long)c->from_mb, (long long)c->from_nb, (long long)c->to_mb,
               (long long)c->to_nb, fg, tg, i == IMPL_DMX_BATCH ? g->nmat : 1, o->reps, o->align);
        if (timed)
            printf("\"t_med\":%.9g,\"t_min\":%.9g,\"t_max\":%.9g,\"gbps\":%.6g,\"cpu_med\":%.9g,",
                   r->t_med, r->t_min, r->t_max, (double)o->m * (double)o->n * 8.0 / r->t_med / 1e9,
                   r->cpu_med);
        else
            printf("\"t_med\":null,\"t_min\":null,\"t_max\":null,\"gbps\":null,"
                   "\"cpu_med\":null,");
        const int rel = i == IMPL_DMX_RELABEL || i == IMPL_DMX_RELABEL_ID;
        const relabeled *rl = rel ? &g->rl[i - IMPL_DMX_RELABEL] : NULL;
        if (i == IMPL_DMX || i == IMPL_DMX_BATCH || rel) {
            if (r->t_plan >= 0)
                printf("\"t_plan\":%.9g,", r->t_plan);
            else
                printf("\"t_plan\":null,");
        }
        if (rel && strcmp(r->status, "ok") == 0)
            printf("\"node_ratio\":%g,\"roles_moved\":%d,\"volume_identity\":%lld,\"volume_"
                   "relabeled\":%lld,"
                   "\"cost_identity\":%.9g,\"cost_relabeled\":%.9g,\"busiest_identity\":%.9g,"
                   "\"busiest_relabeled\":%.9g,",
                   o->node_ratio, rl->moved, (long long)rl->res.volume_identity,
                   (long long)rl->res.volume_relabeled, rl->res.cost_identity,
                   rl->res.cost_relabeled, rl->res.busiest_identity, rl->res.busiest_relabeled);
        if (i != IMPL_DMX) {
            if (timed && have_dmx)
                printf("\"dmx_speedup\":%.4g,", r->t_med / d->t_med);
            else
                printf("\"dmx_speedup\":null,");
        }
        if (timed && bound > 0)
            printf("\"t_bound\":%.9g,\"bound_ratio\":%.4g,", bound, r->t_med / bound);
        printf("\"wrong\":%lld,\"status\":\"%s\"", (long long)r->wrong, r->status);
        if (r->note[0] != '\0') {
            printf(",\"note\":");
            bench_json_string(stdout, r->note);
        }
        printf("}\n");
    }
    fflush(stdout);
}

static void report_table(const group *g, double bound)
{
    const options *o = g->o;
    const result *d = &g->r[IMPL_DMX];
    const int have_dmx = d->nt == o->reps && d->t_med > 0;
    for (int i = 0; i < NIMPL; i++) {
        const result *r = &g->r[i];
        if (!r->attempted)
            continue;
        char impl[32], extra[160] = "";
        if (i == IMPL_DMX_BATCH)
            snprintf(impl, sizeof impl, "dmx x%d", g->nmat);
        else if (i == IMPL_DMX_RELABEL)
            snprintf(impl, sizeof impl, "dmx relab");
        else if (i == IMPL_DMX_RELABEL_ID)
            snprintf(impl, sizeof impl, "dmx rel-id");
        else
            snprintf(impl, sizeof impl, "%s", impl_name[i]);
        const int timed = r->nt == o->reps && strcmp(r->status, "ok") == 0;
        if (!timed) {
            printf("%-8s %-2s %-10s %s: %s\n", g->c->name, g->trans ? "T" : "N", impl, r->status,
                   r->note);
            continue;
        }
        if (i == IMPL_DMX || i == IMPL_DMX_BATCH) {
            if (r->t_plan >= 0)
                snprintf(extra, sizeof extra, "plan %.2f ms%s", r->t_plan * 1e3,
                         i == IMPL_DMX_BATCH ? ", times per matrix" : "");
        } else if (i == IMPL_DMX_RELABEL || i == IMPL_DMX_RELABEL_ID) {
            const relabeled *rl = &g->rl[i - IMPL_DMX_RELABEL];
            snprintf(
                extra, sizeof extra,
                "%.2fx; predicted cost %.4g -> %.4g (%.2fx), busiest link %.4g -> %.4g",
                have_dmx ? r->t_med / d->t_med : 0.0, rl->res.cost_identity, rl->res.cost_relabeled,
                rl->res.cost_relabeled > 0 ? rl->res.cost_relabeled / rl->res.cost_identity : 0.0,
                rl->res.busiest_identity, rl->res.busiest_relabeled);
        } else if (have_dmx) {
            snprintf(extra, sizeof extra, "%.2fx", r->t_med / d->t_med);
        }
        if (r->wrong > 0)
            snprintf(extra, sizeof extra, "WRONG RESULTS");
        char bx[16] = "-";
        if (bound > 0)
            snprintf(bx, sizeof bx, "%.2f", r->t_med / bound);
        printf("%-8s %-2s %-10s %10.3f %10.3f %9.2f %8.2f %6lld %7s  %s\n", g->c->name,
               g->trans ? "T" : "N", impl, r->t_med * 1e3, r->t_min * 1e3, r->cpu_med * 1e3,
               (double)o->m * (double)o->n * 8.0 / r->t_med / 1e9, (long long)r->wrong, bx, extra);
    }
    fflush(stdout);
}

/* Runs one (case, op); returns 0, 1 if some implementation was wrong, 3 if one failed. *bound is
 * the memory bound (dmx's all-local copy, case same op N): set by that case, used by all. */
static int run_group(const options *o, const bench_case *c, int trans, int rank, int np,
                     double *bound)
{
    group g;
    memset(&g, 0, sizeof g);
    g.o = o;
    g.c = c;
    g.trans = trans;
    g.rank = rank;
    g.np = np;
    g.comm = g.rl[0].comm = g.rl[1].comm = MPI_COMM_NULL;
#ifdef DMX_HAVE_SCALAPACK
    g.ctxt_a = g.ctxt_b = g.ctxt_all = -1;
#endif
    for (int i = 0; i < NIMPL; i++) {
        g.r[i].t_plan = -1.0;
        snprintf(g.r[i].status, sizeof g.r[i].status, "ok");
        g.r[i].t = calloc((size_t)o->reps, sizeof(double));
        g.r[i].cpu = calloc((size_t)o->reps, sizeof(double));
    }
    const bench_bc bcb = {trans ? o->n : o->m, trans ? o->m : o->n, c->from_mb,
                          c->from_nb,          c->from_grid.pr,     c->from_grid.pc};
    const bench_bc bca = {o->m, o->n, c->to_mb, c->to_nb, c->to_grid.pr, c->to_grid.pc};
    g.nmat = o->use[0] ? o->batch : 1;
    int ok = redist_side_init(&g.sb, &bcb, rank) == 0 && redist_side_init(&g.sa, &bca, rank) == 0;
    g.b = calloc((size_t)g.nmat, sizeof(double *));
    g.a = calloc((size_t)g.nmat, sizeof(double *));
    ok = ok && g.b != NULL && g.a != NULL;
    for (int k = 0; ok && k < g.nmat; k++) {
        g.b[k] = redist_side_alloc(&g.sb, o->align);
        g.a[k] = redist_side_alloc(&g.sa, o->align);
        ok = g.b[k] != NULL && g.a[k] != NULL;
        if (ok) {
            redist_fill_source(&g.sb, g.b[k], k);
            redist_fill_nan(&g.sa, g.a[k]);
        }
    }
    for (int i = 0; ok && i < NIMPL; i++)
        ok = g.r[i].t != NULL && g.r[i].cpu != NULL;
    int rc = 0;
    if (!redist_all_ranks(ok)) {
        if (rank == 0)
            fprintf(stderr, "dmx bench redist: out of memory for case %s\n", c->name);
        rc = 3;
        goto cleanup;
    }

    if (o->use[0])
        redist_setup_dmx(&g);
    if (o->use[0] && o->relabel) {
        redist_setup_relabel(&g, IMPL_DMX_RELABEL);
        redist_setup_relabel(&g, IMPL_DMX_RELABEL_ID);
    }
    if (o->use[1])
        redist_setup_scalapack(&g);
    if (o->use[2])
        redist_setup_a2a(&g);

    /* Warm-up and timed runs, implementations interleaved. */
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        for (int i = 0; i < NIMPL; i++) {
            if (!g.r[i].active)
                continue;
            double cpu = 0.0, t = redist_run_once(&g, i, &cpu);
            if (t >= 0 && rep >= 0) {
                g.r[i].cpu[g.r[i].nt] = cpu;
                g.r[i].t[g.r[i].nt++] = t;
            }
        }
    }
    for (int i = 0; i < NIMPL; i++) {
        summarize(&g.r[i]);
        if (g.r[i].wrong > 0)
            rc = 1;
        else if (g.r[i].attempted && rc == 0 && strcmp(g.r[i].status, "ok") != 0 &&
                 strcmp(g.r[i].status, "skipped") != 0)
            rc = 3;
    }
    if (strcmp(c->name, "same") == 0 && !trans && g.r[IMPL_DMX].nt == o->reps &&
        g.r[IMPL_DMX].t_med > 0)
        *bound = g.r[IMPL_DMX].t_med;
    if (rank == 0) {
        if (o->json)
            report_json(&g, *bound);
        else
            report_table(&g, *bound);
    }

    redist_teardown_scalapack(&g);
    redist_teardown_dmx(&g);
    bench_a2a_work_free(&g.work);
cleanup:
    for (int k = 0; k < g.nmat; k++) {
        if (g.b != NULL)
            free(g.b[k]);
        if (g.a != NULL)
            free(g.a[k]);
    }
    free(g.b);
    free(g.a);
    redist_side_free(&g.sb);
    redist_side_free(&g.sa);
    for (int i = 0; i < NIMPL; i++) {
        free(g.r[i].t);
        free(g.r[i].cpu);
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                  */
/* ------------------------------------------------------------------------------------------ */

int dmx_cmd_bench_redist(int argc, char **argv)
{
    options o;
    /* Before MPI_Init: every rank parses the same argv, the first process prints. */
    int pr = redist_parse_options(argc, argv, &o, bench_first_process());
    if (pr != 0)
        return pr == 1 ? 0 : 2;

    MPI_Init(&argc, &argv);
    int rank, np, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    grid auto_grid = {np >= 4 ? 2 : 1, np >= 4 ? 2 : np};
    grid fg = o.from_grid.pr > 0 ? o.from_grid : auto_grid;
    grid tg = o.to_grid.pr > 0 ? o.to_grid : auto_grid;
    const char *why = NULL;
    if ((int64_t)fg.pr * fg.pc > np || (int64_t)tg.pr * tg.pc > np)
        why = "a process grid has more processes than ranks";
    else if ((double)o.batch * (double)o.m * (double)o.n >= 9007199254740992.0)
        why = "batch*m*n must stay below 2^53 (exact verification values)";
    if (why != NULL) {
        if (rank == 0)
            fprintf(stderr, "dmx bench redist: %s\n", why);
        MPI_Finalize();
        return 2;
    }

    if (o.sweep || o.sequence) {
        sweep_opts so;
        sweep_opts_default(&so);
        so.reps = o.reps;
        so.align = o.align < 0 ? 0 : o.align;
        so.op_n = o.op_n;
        so.op_t = o.op_t;
        so.json = o.json;
        so.max_n = o.max_n;
        so.count = o.count;
        so.seq_min = o.seq_min;
        so.seq_max = o.seq_max;
        rc = o.sweep ? bench_sweep_run(&so) : 0;
        if (o.sequence) {
            int r = bench_sequence_run(&so);
            rc = r == 1 || (r == 3 && rc == 0) ? r : rc;
        }
        redist_blacs_exit();
        MPI_Finalize();
        return rc;
    }

    char redist_name[48];
    if (fg.pr == tg.pr && fg.pc == tg.pc)
        snprintf(redist_name, sizeof redist_name, "%dx%d", fg.pr, fg.pc);
    else
        snprintf(redist_name, sizeof redist_name, "%dx%d-%dx%d", fg.pr, fg.pc, tg.pr, tg.pc);
    /* The all-local copy (case same, op N) runs first: its dmx time is the memory bound every
     * row is compared with. */
    bench_case cases[2];
    int ncases = 0;
    if (o.case_same)
        cases[ncases++] = (bench_case){"same", o.to_mb, o.to_nb, o.to_mb, o.to_nb, tg, tg};
    if (o.case_redist)
        cases[ncases++] = (bench_case){redist_name, o.from_mb, o.from_nb, o.to_mb, o.to_nb, fg, tg};

    /* By default every case runs with plain malloc arrays and with 64-byte aligned ones. */
    const int aligns[2] = {o.align < 0 ? 0 : o.align, 64};
    for (int pass = 0; pass < (o.align < 0 ? 2 : 1); pass++) {
        options oa = o;
        oa.align = aligns[pass];
        double bound = -1.0;
        if (rank == 0 && !o.json) {
            printf(
                "%sdmx bench redist: np=%d, A %lld x %lld doubles (%.1f MB), median of %d reps "
                "(max over ranks) after %d warm-up%s, arrays %s\n",
                pass ? "\n" : "", np, (long long)o.m, (long long)o.n,
                (double)o.m * (double)o.n * 8.0 / 1e6, o.reps, o.warmup, o.warmup == 1 ? "" : "s",
                oa.align == 0 ? "from plain malloc (--align 0)" : "64-byte aligned (--align 64)");
            if (oa.align != 0 && oa.align != 64)
                printf("  (alignment %d bytes)\n", oa.align);
            for (int k = 0; k < ncases; k++)
                printf("  case %-8s B: %lldx%lld blocks on %dx%d -> A: %lldx%lld blocks on %dx%d\n",
                       cases[k].name, (long long)cases[k].from_mb, (long long)cases[k].from_nb,
                       cases[k].from_grid.pr, cases[k].from_grid.pc, (long long)cases[k].to_mb,
                       (long long)cases[k].to_nb, cases[k].to_grid.pr, cases[k].to_grid.pc);
            printf("  bound: each row's t_med over dmx's all-local copy (case same, op N)\n");
            printf("%-8s %-2s %-10s %10s %10s %9s %8s %6s %7s  %s\n", "case", "op", "impl",
                   "t_med ms", "t_min ms", "cpu ms", "GB/s", "wrong", "bound",
                   "dmx speedup (t_impl / t_dmx)");
            fflush(stdout);
        }
        for (int k = 0; k < ncases; k++) {
            for (int t = 0; t < 2; t++) {
                if (!(t ? o.op_t : o.op_n))
                    continue;
                int r = run_group(&oa, &cases[k], t, rank, np, &bound);
                if (r == 1 || (r == 3 && rc == 0))
                    rc = r;
            }
        }
    }
    redist_blacs_exit();
    /* Every line out before any rank finalizes: under SimGrid's SMPI all ranks are one process,
     * and a rank may abort in MPI_Finalize (docs/scale.md), losing the results not yet printed. */
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
