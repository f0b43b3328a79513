/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench relabel: solve time of the exact and the greedy relabeling on block-cyclic layout
 * pairs at P = 1e3, 1e4, 1e5. One process, no MPI.
 *
 * Method: for every (P, case) the package volumes are computed once (dmx_relabel_volume_create,
 * closed form; its time is reported too), then each solver (dmx_relabel_assign, exact and
 * greedy) runs once to warm up and `reps` more times; the
 * report is the median solve time (timespec_get wall clock) and the remote volumes with the
 * identity, the exact and the greedy relabeling. Every exact run must return the same sigma.
 *
 * Grids are near-square with exactly P ranks: 25 x 40, 80 x 125, 250 x 400; the matrix is
 * square with about 5000 x 3200 elements per rank (m = n = 128000, 400000, 1280000). Cases:
 *   bs32to64_RtoC       32 x 32 blocks, row-major ranks -> 64 x 64 blocks, column-major ranks
 *   grid_swap_64_RtoC   64 x 64 blocks on PR x PC row-major -> PC x PR column-major
 *   opT_bs32to64_RtoC   the same as the first, target holds the transpose (op = T)
 *   bs32to50_RtoC       (P = 1e3 only, or with --dense-overlap) 32 -> 50 blocks: every role
 *                       overlaps most processes, a dense, tie-heavy assignment problem
 */
#include "bench.h"
#include "bench_util.h"
#include "cli.h"

#include "dmx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_size {
    int p, prow, pcol;
    int64_t m;
} bench_size;

static const bench_size sizes[] = {
    {1000, 25, 40, 128000}, {10000, 80, 125, 400000}, {100000, 250, 400, 1280000}};

typedef struct bench_case {
    const char *name;
    int64_t mb_from, mb_to;
    int swap_grid, transpose, dense;
} bench_case;

static const bench_case cases[] = {{"bs32to64_RtoC", 32, 64, 0, 0, 0},
                                   {"grid_swap_64_RtoC", 64, 64, 1, 0, 0},
                                   {"opT_bs32to64_RtoC", 32, 64, 0, 1, 0},
                                   {"bs32to50_RtoC", 32, 50, 0, 0, 1}};

typedef struct bench_out {
    int64_t nnz, vol_id, vol_exact, vol_greedy;
    double t_volume, t_exact, t_greedy;
} bench_out;

/* One (size, case) run. Returns DMX_SUCCESS, or an error whose message is in *why (a static
 * string) or, if *why is NULL, in dmx_last_error(). */
static dmx_status run_case(const bench_size *sz, const bench_case *bc, int reps, bench_out *out,
                           const char **why)
{
    dmx_status st = DMX_SUCCESS;
    dmx_relabel_volume *v = NULL;
    dmx_relabel_gains g;
    int p = 0, *s0 = NULL, *s1 = NULL;
    double *t = NULL;
    *why = NULL;
    dmx_relabel_desc from, to;
    memset(&from, 0, sizeof from);
    memset(&to, 0, sizeof to);
    from.kind = to.kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
    from.m = from.n = to.m = to.n = sz->m;
    from.mb = from.nb = bc->mb_from;
    to.mb = to.nb = bc->mb_to;
    from.prow = sz->prow;
    from.pcol = sz->pcol;
    to.prow = bc->swap_grid ? sz->pcol : sz->prow;
    to.pcol = bc->swap_grid ? sz->prow : sz->pcol;
    from.order = 'R';
    to.order = 'C';
    double t0 = bench_wall_now();
    if ((st = dmx_relabel_volume_create(&from, &to, bc->transpose, 0, &v)) != DMX_SUCCESS)
        goto cleanup;
    out->t_volume = bench_wall_now() - t0;
    if ((st = dmx_relabel_volume_get_info(v, &p, &out->nnz, NULL)) != DMX_SUCCESS ||
        (st = dmx_relabel_volume_get_gains(v, &g)) != DMX_SUCCESS ||
        (st = dmx_relabel_volume_remote(v, NULL, &out->vol_id)) != DMX_SUCCESS)
        goto cleanup;
    s0 = malloc((size_t)p * sizeof *s0);
    s1 = malloc((size_t)p * sizeof *s1);
    t = malloc((size_t)reps * sizeof *t);
    if (!s0 || !s1 || !t) {
        st = DMX_ERR_ALLOC;
        *why = "out of memory";
        goto cleanup;
    }

    /* warm-up, and the reference sigma */
    if ((st = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, s0, NULL)) != DMX_SUCCESS)
        goto cleanup;
    for (int r = 0; r < reps; r++) {
        t0 = bench_wall_now();
        if ((st = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, s1, NULL)) != DMX_SUCCESS)
            goto cleanup;
        t[r] = bench_wall_now() - t0;
        if (memcmp(s0, s1, (size_t)p * sizeof *s0) != 0) {
            st = DMX_ERR_INTERNAL;
            *why = "exact solver returned different sigmas for the same input";
            goto cleanup;
        }
    }
    out->t_exact = bench_median(t, reps);
    if ((st = dmx_relabel_volume_remote(v, s0, &out->vol_exact)) != DMX_SUCCESS)
        goto cleanup;

    if ((st = dmx_relabel_assign(&g, DMX_RELABEL_GREEDY, s1, NULL)) != DMX_SUCCESS)
        goto cleanup;
    for (int r = 0; r < reps; r++) {
        t0 = bench_wall_now();
        if ((st = dmx_relabel_assign(&g, DMX_RELABEL_GREEDY, s1, NULL)) != DMX_SUCCESS)
            goto cleanup;
        t[r] = bench_wall_now() - t0;
    }
    out->t_greedy = bench_median(t, reps);
    if ((st = dmx_relabel_volume_remote(v, s1, &out->vol_greedy)) != DMX_SUCCESS)
        goto cleanup;
    if (out->vol_exact > out->vol_greedy || out->vol_exact > out->vol_id) {
        st = DMX_ERR_INTERNAL;
        *why = "exact relabeling worse than greedy or identity";
    }
cleanup:
    dmx_relabel_volume_destroy(&v);
    free(s0);
    free(s1);
    free(t);
    return st;
}

int dmx_cmd_bench_relabel(int argc, char **argv)
{
    int json = 0, reps = 5, max_p = 100000, dense_all = 0;
    cli_opt opts[] = {
        CLI_FLAG_OPT("json", &json, "one JSON object per line instead of the table"),
        CLI_OPT("reps", CLI_INT, &reps, 1, 0, "R",
                "timed runs per solver, median reported; default 5"),
        CLI_OPT("max-p", CLI_INT, &max_p, 1, 0, "P", "skip sizes above P ranks; default 100000"),
        CLI_FLAG_OPT("dense-overlap", &dense_all,
                     "run the dense 32 -> 50 case at every size (slow: seconds\nat P = 1e4, "
                     "minutes at 1e5); default only at P = 1e3"),
    };
    cli_spec spec = {"bench relabel",
                     0,
                     "[options]",
                     "The relabeling solvers (exact and greedy) on layout pairs at P = 1e3, 1e4, "
                     "1e5:\nremote volumes and solve times. One process, no MPI. Progress on "
                     "stderr.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    int total = 0, step = 0;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof cases / sizeof cases[0]; b++)
            total += sizes[a].p <= max_p && !(cases[b].dense && sizes[a].p > 1000 && !dense_all);
    if (!json)
        printf("%7s %-19s %10s %14s %6s %6s %12s %12s %10s %10s\n", "P", "case", "nnz", "remote id",
               "ex %", "gr %", "t_exact s", "t_greedy s", "t_vol s", "m = n");
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
        if (sizes[a].p > max_p)
            continue;
        for (size_t b = 0; b < sizeof cases / sizeof cases[0]; b++) {
            if (cases[b].dense && sizes[a].p > 1000 && !dense_all)
                continue;
            bench_out o;
            memset(&o, 0, sizeof o);
            const char *why = NULL;
            cli_progress(0, "bench relabel", ++step, total, "P = %d, %s", sizes[a].p,
                         cases[b].name);
            dmx_status st = run_case(&sizes[a], &cases[b], reps, &o, &why);
            if (st != DMX_SUCCESS) {
                fprintf(stderr, "dmx bench relabel: %s: %s\n", dmx_status_string(st),
                        why ? why : dmx_last_error());
                return 1;
            }
            double re =
                o.vol_id > 0 ? 100.0 * (double)(o.vol_id - o.vol_exact) / (double)o.vol_id : 0.0;
            double rg =
                o.vol_id > 0 ? 100.0 * (double)(o.vol_id - o.vol_greedy) / (double)o.vol_id : 0.0;
            if (json)
                printf("{\"bench\":\"relabel\",\"p\":%d,\"case\":\"%s\",\"m\":%lld,\"n\":%lld,"
                       "\"grid\":\"%dx%d\",\"nnz\":%lld,\"volume_identity\":%lld,"
                       "\"volume_exact\":%lld,\"volume_greedy\":%lld,\"reduction_exact\":%.4f,"
                       "\"reduction_greedy\":%.4f,\"t_exact\":%.6f,\"t_greedy\":%.6f,"
                       "\"t_volume\":%.6f,\"reps\":%d}\n",
                       sizes[a].p, cases[b].name, (long long)sizes[a].m, (long long)sizes[a].m,
                       sizes[a].prow, sizes[a].pcol, (long long)o.nnz, (long long)o.vol_id,
                       (long long)o.vol_exact, (long long)o.vol_greedy, re, rg, o.t_exact,
                       o.t_greedy, o.t_volume, reps);
            else
                printf("%7d %-19s %10lld %14lld %6.2f %6.2f %12.6f %12.6f %10.6f %lld\n",
                       sizes[a].p, cases[b].name, (long long)o.nnz, (long long)o.vol_id, re, rg,
                       o.t_exact, o.t_greedy, o.t_volume, (long long)sizes[a].m);
            fflush(stdout);
        }
    }
    return 0;
}
