/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx calibrate gemm: the local multiply's rate by panel width, for the multiply's model.
 *
 *   mpirun -n P dmx calibrate gemm [options]      (--help lists them)
 *
 * The local block is the one a rank holds when an N x N x N multiply runs on Q ranks (default
 * P) on the most square grid: ml = ceil(N/pr) rows, nl = ceil(N/pc) columns. For each panel
 * width b in 32, 64, ..., up to the widest panel such a run can have (min(ceil(N/pr),
 * ceil(N/pc))), every rank at once times an ml x nl x K multiply done as K/b rank-b updates
 * (dmx_gemm on MPI_COMM_SELF, SUMMA forced with panel b; K = max(1024, b)), so the rate is the
 * one a rank sees when all ranks of the node are busy. Rank 0 prints the mean rate per width as
 * "rate = b MFLOPS" lines, the model file format of DMX_GEMM_MODEL (written to FILE with -o),
 * and the widest panel's rate as DMX_GEMM_MFLOPS. Run with OPENBLAS_NUM_THREADS=1 (the model
 * assumes one core per rank). Memory per rank: ml*K + K*nl + ml*nl doubles plus two panels. */
#include "bench_util.h"
#include "cli.h"
#include "dmx.h"
#include "dmx_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MFLOP/s of an m x n x k double multiply in panels of b, reps timed runs after one warm-up;
 * -1 on every rank when some rank could not set it up (out of memory). Collective. */
static double rate_of(int64_t m, int64_t n, int64_t k, int64_t b, int reps)
{
    double *a = calloc((size_t)(m * k), sizeof(double)),
           *bm = calloc((size_t)(k * n), sizeof(double)),
           *c = calloc((size_t)(m * n), sizeof(double)), r = 0.0;
    dmx_layout *la = NULL, *lb = NULL, *lc = NULL;
    dmx_gemm_plan *g = NULL;
    dmx_gemm_options o;
    dmx_scalar one = {1, 0}, zero = {0, 0};
    dmx_gemm_options_init(&o);
    o.alg = DMX_GEMM_SUMMA;
    o.panel = b;
    for (int64_t i = 0; a && i < m * k; i++)
        a[i] = (double)(i % 7) - 3.0;
    for (int64_t i = 0; bm && i < k * n; i++)
        bm[i] = (double)(i % 5) - 2.0;
    int ok = a && bm && c &&
             dmx_layout_create_block_cyclic(MPI_COMM_SELF, m, k, m, k, 1, 1, 'R', 0, 0, a, m,
                                            &la) == DMX_SUCCESS &&
             dmx_layout_create_block_cyclic(MPI_COMM_SELF, k, n, k, n, 1, 1, 'R', 0, 0, bm, k,
                                            &lb) == DMX_SUCCESS &&
             dmx_layout_create_block_cyclic(MPI_COMM_SELF, m, n, m, n, 1, 1, 'R', 0, 0, c, m,
                                            &lc) == DMX_SUCCESS &&
             dmx_gemm_plan_create(MPI_COMM_SELF, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, one, la, lb, zero,
                                  lc, &o, &g) == DMX_SUCCESS;
    /* every rank times, or none: the barriers below must match */
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    r = -1.0;
    if (ok) {
        dmx_gemm_plan_execute(g); /* warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++)
            dmx_gemm_plan_execute(g);
        r = 2.0 * (double)m * (double)n * (double)k * reps / (MPI_Wtime() - t0) / 1e6;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    dmx_gemm_plan_destroy(&g);
    dmx_layout_destroy(&la);
    dmx_layout_destroy(&lb);
    dmx_layout_destroy(&lc);
    free(a);
    free(bm);
    free(c);
    return r;
}

int dmx_cmd_calibrate_gemm(int argc, char **argv)
{
    int64_t n = 4096, q = 0, kk = 0;
    int reps = 1, rank, np, pr = 1, rc = 0;
    const char *out = NULL;
    cli_opt opts[] = {
        CLI_OPT("n", CLI_SIZE, &n, 1, 1 << 20, "N",
                "the multiply whose local block is timed is N x N x N;\ndefault 4096"),
        CLI_OPT("grid-ranks", CLI_SIZE, &q, 1, 1 << 30, "Q",
                "ranks of that multiply (most square grid); default P"),
        CLI_OPT("k", CLI_SIZE, &kk, 1, 1 << 20, "K",
                "inner dimension of each timed multiply; default\nmax(1024, panel width)"),
        CLI_OPT("reps", CLI_INT, &reps, 1, 0, "R",
                "timed runs per width after one warm-up; default 1"),
        {.name = "output",
         .short_name = 'o',
         .kind = CLI_STR,
         .dest = &out,
         .meta = "FILE",
         .help = "also write the rate lines as a DMX_GEMM_MODEL file;\ndefault none"},
    };
    cli_spec spec = {"calibrate gemm",
                     1,
                     "[options]",
                     "The local multiply's rate by panel width (32, 64, ... up to the widest "
                     "panel),\nall ranks busy at once, for the multiply's model: prints "
                     "\"rate = b MFLOPS\" lines\nand DMX_GEMM_MFLOPS. Run with "
                     "OPENBLAS_NUM_THREADS=1. Progress on stderr.",
                     opts,
                     CLI_NOPTS(opts),
                     "Exit status: 0 done, 1 out of memory or the file failed, 2 bad options.\n"};
    int prc = cli_parse(&spec, argc, argv, bench_first_process());
    if (prc != CLI_RUN)
        return prc == CLI_HELP ? 0 : 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    n = n > 0 ? n : 4096;
    q = q > 0 && q <= 1 << 30 ? q : np;
    reps = reps > 0 ? reps : 1;
    for (int64_t r = 1; r * r <= q; r++)
        if (q % r == 0)
            pr = (int)r;
    int64_t pc = q / pr > 0 ? q / pr : 1;
    int64_t ml = (n + pr - 1) / pr, nl = (n + pc - 1) / pc, cap = ml < nl ? ml : nl;
    FILE *f = NULL;
    if (rank == 0 && out != NULL && (f = fopen(out, "w")) == NULL) {
        fprintf(stderr, "dmx: calibrate gemm: cannot write %s\n", out);
        rc = 1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != 0) {
        MPI_Finalize();
        return rc;
    }
    if (rank == 0) {
        printf("# dmx calibrate gemm: local dgemm, block %lld x %lld (n %lld on %lld ranks, "
               "grid %dx%lld), %d ranks at once, mean MFLOP/s per rank by panel width\n",
               (long long)ml, (long long)nl, (long long)n, (long long)q, pr, (long long)pc, np);
        if (f)
            fprintf(f, "# dmx calibrate gemm: block %lld x %lld, %d ranks at once\n", (long long)ml,
                    (long long)nl, np);
    }
    double best = 0.0;
    int nw = 1, step = 0;
    for (int64_t b = 32; !(b >= cap || b >= 4096); b *= 2)
        nw++;
    for (int64_t b = 32;; b *= 2) {
        int64_t w = b < cap ? b : cap, k = kk > 0 ? kk : (w > 1024 ? w : 1024);
        cli_progress(rank != 0, "calibrate gemm", ++step, nw,
                     "panel width %lld: %lld x %lld x %lld multiply in rank-%lld updates",
                     (long long)w, (long long)ml, (long long)nl, (long long)k, (long long)w);
        double r = rate_of(ml, nl, k, w, reps), sum = 0.0;
        if (r < 0) { /* on every rank */
            if (rank == 0)
                fprintf(stderr,
                        "dmx calibrate gemm: cannot set up a %lld x %lld x %lld multiply "
                        "(out of memory?)\n",
                        (long long)ml, (long long)nl, (long long)k);
            rc = 1;
            break;
        }
        MPI_Reduce(&r, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("rate = %lld %.0f\n", (long long)w, sum / np);
            if (f)
                fprintf(f, "rate = %lld %.0f\n", (long long)w, sum / np);
            best = sum / np > best ? sum / np : best;
        }
        if (w >= cap || b >= 4096)
            break;
    }
    if (rank == 0) {
        if (f && (ferror(f) | fclose(f)) && rc == 0) {
            fprintf(stderr, "dmx: calibrate gemm: error writing %s\n", out);
            rc = 1;
        }
        if (rc == 0 && f)
            printf("# written to %s: export DMX_GEMM_MODEL=%s\n", out, out);
        if (rc == 0)
            printf("export DMX_GEMM_MFLOPS=%.0f\n", best);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
