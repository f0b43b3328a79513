/* SPDX-License-Identifier: BSD-3-Clause */
/* Time pdgemr2d_ and pdtran_ through dmx against Debian's ScaLAPACK in one run.
 *
 * Default case: a 4096 x 4096 double matrix on a 2 x 2 grid, 32 x 32 blocks -> 128 x 128 blocks
 * (pdgemr2d_), and C (128 x 128 blocks) = A^T (32 x 32 blocks) on the same grid (pdtran_). dmx
 * runs through the test build of libdmx_scalapack (the same code as the shared library, symbols
 * prefixed dmxsp_test_), so both implementations are called by name in one process; the real
 * one is the program's own libscalapack-openmpi.
 *
 * Each configuration: one warm-up call (dmx builds and caches its plan there), then reps timed
 * calls, each between barriers, the time of a call being the maximum over ranks; prints one JSON
 * line per implementation with the median and a line with the ratios.
 *
 * Usage: mpirun -n 4 bench_sp_gemr2d [n] [reps] [align]
 * align: byte alignment of the local arrays (default 64, as posix_memalign or MKL's allocator
 * give; 0 = plain malloc, which gives 16).
 *
 * Or: mpirun -n 4 bench_sp_gemr2d --sweep|--sequence [reps] [align] [max_n or count]: the modes
 * of `dmx bench redist --sweep` / `--sequence` (bench_sweep.h) with the drop-in added.
 *
 * Or: mpirun -n P bench_sp_gemr2d --tiny [calls] [reps]: a loop of `calls` (default 10^5) 1 x 1
 * pdtran_ calls on the default grid, Debian's and the drop-in's (its in-place path,
 * src/scalapack/sp_direct.c) alternately, reps (default 5) loops each; per implementation the
 * median over loops of the per-call time (maximum over ranks), and the ratio. The result is
 * checked after every loop.
 */
#include "alltoallv_redist.h"
#include "bench_scalapack.h"
#include "bench_sweep.h"
#include "bench_util.h"
#include "dmx/scalapack.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, rc_);            \
            bench_abort(2);                                                                        \
        }                                                                                          \
    } while (0)

typedef struct bmat {
    int desc[9];
    double *data;
    size_t nelem;
} bmat;

static void bmat_make(bmat *x, int ctxt, int m, int n, int nb, int myrow, int mycol, int pr, int pc,
                      int align)
{
    int in = ctxt >= 0;
    int locr = in ? (int)bench_bc_numroc(m, nb, myrow, pr) : 0;
    int locc = in ? (int)bench_bc_numroc(n, nb, mycol, pc) : 0;
    int lld = locr > 1 ? locr : 1;
    int d[9] = {1, in ? ctxt : -1, m, n, nb, nb, 0, 0, lld};
    memcpy(x->desc, d, sizeof d);
    x->nelem = (size_t)lld * (size_t)(locc > 1 ? locc : 1);
    x->data = bench_alloc_aligned(x->nelem * sizeof(double), align);
    if (!x->data) {
        fprintf(stderr, "bench_sp_gemr2d: out of memory (or alignment %d invalid)\n", align);
        bench_abort(1);
    }
    for (size_t k = 0; k < x->nelem; k++)
        x->data[k] = (double)(k % 1013);
}

enum { OP_GEMR2D, OP_TRAN };

static void call(int op, int dmx, int n, bmat *a, bmat *b, int ictxt)
{
    const int one = 1;
    const double alpha = 1.0, beta = 0.0;
    if (op == OP_GEMR2D && dmx)
        dmxsp_test_pdgemr2d_(&n, &n, a->data, &one, &one, a->desc, b->data, &one, &one, b->desc,
                             &ictxt);
    else if (op == OP_GEMR2D)
        pdgemr2d_(&n, &n, a->data, &one, &one, a->desc, b->data, &one, &one, b->desc, &ictxt);
    else if (a->desc[1] < 0) /* processes outside the grid do not call the PBLAS */
        return;
    else if (dmx)
        dmxsp_test_pdtran_(&n, &n, &alpha, a->data, &one, &one, a->desc, &beta, b->data, &one, &one,
                           b->desc);
    else
        pdtran_(&n, &n, &alpha, a->data, &one, &one, a->desc, &beta, b->data, &one, &one, b->desc);
}

static double time_it(int op, int dmx, int n, bmat *a, bmat *b, int ictxt, int reps)
{
    double *t = malloc((size_t)reps * sizeof(double));
    call(op, dmx, n, a, b, ictxt); /* warm-up */
    for (int r = 0; r < reps; r++) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        call(op, dmx, n, a, b, ictxt);
        t[r] = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0);
    }
    double med = bench_median(t, reps);
    free(t);
    return med;
}

/* --tiny: 1 x 1 pdtran_ in a loop, Debian's (impl 0) against the drop-in's (impl 1). */
static int tiny_loop(int calls, int reps, int me, int np)
{
    if (calls < 1 || reps < 1)
        return 2;
    int pr = np >= 4 ? 2 : 1, pc = np >= 4 ? 2 : np, ctxt, nr, nc, myrow, mycol;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    Cblacs_gridinfo(ctxt, &nr, &nc, &myrow, &mycol);
    const int one = 1;
    const double alpha = 1.0, beta = 0.0;
    int desc[9] = {1, ctxt, 1, 1, 1, 1, 0, 0, 1};
    double b = 2.5 + me, a = 0.0, *t = calloc((size_t)(2 * reps), sizeof(double));
    long wrong = 0;
    for (int rep = -1; rep < reps; rep++) { /* rep -1: warm-up */
        for (int impl = 0; impl < 2; impl++) {
            a = -1.0;
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            double t0 = MPI_Wtime();
            if (myrow >= 0) {
                for (int k = 0; k < calls; k++) {
                    if (impl == 0)
                        pdtran_(&one, &one, &alpha, &b, &one, &one, desc, &beta, &a, &one, &one,
                                desc);
                    else
                        dmxsp_test_pdtran_(&one, &one, &alpha, &b, &one, &one, desc, &beta, &a,
                                           &one, &one, desc);
                }
            }
            double dt = bench_max_over_ranks(MPI_COMM_WORLD, MPI_Wtime() - t0) / calls;
            /* the element lives on process (0, 0): A = B there, untouched elsewhere */
            wrong += (myrow == 0 && mycol == 0) ? a != b : a != -1.0;
            if (rep >= 0)
                t[impl * reps + rep] = dt;
        }
    }
    long all = 0;
    CHECK_MPI(MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    dmx_scalapack_stats st;
    dmxsp_test_dmx_scalapack_get_stats(&st);
    double ts = bench_median(t, reps), td = bench_median(t + reps, reps);
    if (me == 0)
        printf("bench_sp_gemr2d --tiny: np=%d, grid %dx%d, %d calls of 1 x 1 pdtran_ per loop, "
               "median of %d loops (max over ranks)\n  scalapack %8.3f us/call\n  dropin    "
               "%8.3f us/call  speedup %.2fx  (rank 0: %lld of %lld calls in place)  wrong %ld\n",
               np, pr, pc, calls, reps, ts * 1e6, td * 1e6, ts / td, (long long)st.direct_calls,
               (long long)st.calls, all);
    free(t);
    if (myrow >= 0)
        Cblacs_gridexit(ctxt);
    return all != 0;
}

static const char usage_text[] =
    "usage: mpirun -n P bench_sp_gemr2d [n [reps [align]]]\n"
    "       mpirun -n P bench_sp_gemr2d --sweep [reps [align [max_n]]]\n"
    "       mpirun -n P bench_sp_gemr2d --sequence [reps [align [count]]]\n"
    "       mpirun -n P bench_sp_gemr2d --tiny [calls [reps]]\n"
    "pdgemr2d_ and pdtran_ through Debian's ScaLAPACK and through dmx's drop-in, timed in one\n"
    "run. Defaults: n 4096, reps 5, align 64 (0: plain malloc; --sweep and --sequence: 0),\n"
    "max_n and count as in dmx bench redist --sweep / --sequence, calls 100000.\n";

/* Checks the arguments before MPI starts (every process sees the same ones, the first prints):
 * -1 to go on, else the exit status (0 for --help, 2 for a bad argument, named). */
static int check_args(int argc, char **argv)
{
    int first = 1, most = 3;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        if (bench_first_process())
            fputs(usage_text, stdout);
        return 0;
    }
    if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') {
        first = 2;
        most = strcmp(argv[1], "--tiny") == 0 ? 2 : 3;
        if (strcmp(argv[1], "--sweep") != 0 && strcmp(argv[1], "--sequence") != 0 &&
            strcmp(argv[1], "--tiny") != 0) {
            if (bench_first_process())
                fprintf(stderr, "bench_sp_gemr2d: unknown option '%s'\n%s", argv[1], usage_text);
            return 2;
        }
    }
    if (argc - first > most) {
        if (bench_first_process())
            fprintf(stderr, "bench_sp_gemr2d: unexpected argument '%s'\n%s", argv[first + most],
                    usage_text);
        return 2;
    }
    for (int k = first; k < argc; k++) {
        char *end = NULL;
        long long v = strtoll(argv[k], &end, 10);
        /* align (the third number, --sweep and --sequence: the second) may be 0, every other
         * number is at least 1 */
        int align_at = first == 1 ? 2 : strcmp(argv[1], "--tiny") == 0 ? -1 : 1;
        long long lo = k - first == align_at ? 0 : 1;
        if (end == argv[k] || *end != '\0' || v < lo || v > 1000000000) {
            if (bench_first_process())
                fprintf(stderr, "bench_sp_gemr2d: bad value '%s' (a whole number from %lld)\n%s",
                        argv[k], lo, usage_text);
            return 2;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    int arg_rc = check_args(argc, argv);
    if (arg_rc >= 0)
        return arg_rc;
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me, np;
    Cblacs_pinfo(&me, &np);
    if (argc > 1 && (strcmp(argv[1], "--sweep") == 0 || strcmp(argv[1], "--sequence") == 0)) {
        sweep_opts so;
        sweep_opts_default(&so);
        so.align = 0;
        so.reps = argc > 2 ? atoi(argv[2]) : so.reps;
        so.align = argc > 3 ? atoi(argv[3]) : so.align;
        const int sweep = argv[1][3] == 'w';
        if (argc > 4 && sweep)
            so.max_n = atoll(argv[4]);
        else if (argc > 4)
            so.count = atoi(argv[4]);
        int rc = so.reps >= 1 ? (sweep ? bench_sweep_run(&so) : bench_sequence_run(&so)) : 2;
        Cblacs_exit(1);
        CHECK_MPI(MPI_Finalize());
        return rc;
    }
    if (argc > 1 && strcmp(argv[1], "--tiny") == 0) {
        int rc = tiny_loop(argc > 2 ? atoi(argv[2]) : 100000, argc > 3 ? atoi(argv[3]) : 5, me, np);
        Cblacs_exit(1);
        CHECK_MPI(MPI_Finalize());
        return rc;
    }
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int align = argc > 3 ? atoi(argv[3]) : 64;
    int pr = np >= 4 ? 2 : 1, pc = np >= 4 ? 2 : np;
    int ctxt, myrow, mycol, r0, c0;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    Cblacs_gridinfo(ctxt, &r0, &c0, &myrow, &mycol);
    if (myrow < 0)
        ctxt = -1;
    int all;
    Cblacs_get(0, 0, &all);
    Cblacs_gridinit(&all, "Row", 1, np);

    bmat a, b;
    bmat_make(&a, ctxt, n, n, 32, myrow, mycol, pr, pc, align);
    bmat_make(&b, ctxt, n, n, 128, myrow, mycol, pr, pc, align);
    static const char *const names[2] = {"pdgemr2d", "pdtran"};
    for (int op = 0; op < 2; op++) {
        double t_real = time_it(op, 0, n, &a, &b, all, reps);
        double t_dmx = time_it(op, 1, n, &a, &b, all, reps);
        if (me == 0) {
            printf("{\"bench\":\"scalapack_%s\",\"impl\":\"scalapack\",\"n\":%d,\"grid\":\"%dx%d\","
                   "\"nb_from\":32,\"nb_to\":128,\"ranks\":%d,\"t_med\":%.6f}\n",
                   names[op], n, pr, pc, np, t_real);
            printf("{\"bench\":\"scalapack_%s\",\"impl\":\"dmx\",\"n\":%d,\"grid\":\"%dx%d\","
                   "\"nb_from\":32,\"nb_to\":128,\"ranks\":%d,\"t_med\":%.6f}\n",
                   names[op], n, pr, pc, np, t_dmx);
            printf("%s: ScaLAPACK %.4f s, dmx %.4f s, speedup %.2fx\n", names[op], t_real, t_dmx,
                   t_real / t_dmx);
            fflush(stdout);
        }
    }
    free(a.data);
    free(b.data);
    if (ctxt >= 0)
        Cblacs_gridexit(ctxt);
    Cblacs_gridexit(all);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
