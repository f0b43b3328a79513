/* SPDX-License-Identifier: BSD-3-Clause */
/* How the planner cuts pieces larger than a ring chunk, and transforms through such cut pieces.
 *
 * 1. Shapes (dmxi_piece_cut_shape, every rank alike): for dtype sizes 4, 8, 16, op N, T, C,
 *    chunk sizes from 64 bytes to 1 GiB and piece sizes from 1 x 1 to 46341 x 46341 (and beyond
 *    2^31 elements): no sub-piece exceeds the chunk, the count is the number of sub-pieces
 *    covering the piece, and for op T and C no sub-piece is thin: both sides are at least
 *    min(extent, 16) elements whenever the chunk holds 16 x 16 elements (a column-wide cut, as
 *    before issue 15, reads one element of B per column of B and fails here).
 * 2. Transforms A = alpha*op(B) + beta*A between block-cyclic layouts whose pieces are larger
 *    than a chunk forced small through DMX_SHM_CHUNK_BYTES (64, 1000, 4096 bytes), so that a
 *    small matrix is cut the way a huge one is cut at the default 128 KiB: every dtype x op N/T/C
 *    x two scalar pairs x three shapes, with local arrays at an 8-byte offset from malloc's
 *    alignment or not, padded (odd) leading dimensions or not, and with DMX_SHM=0 (messages
 *    instead of rings) on some cases. Every rank checks its A memory against the serial formula
 *    reference (dmxt_check_result) and that B was not written.
 *
 * `test_pieces --bench M N [float|double|cfloat|cdouble] [N|T|C] [reps]` instead times
 * A (M x N) = op(B) between 1-D column-block layouts over all ranks (A's column blocks against
 * B's column blocks, so with P ranks (P-1)/P of the elements change rank) and prints one JSON
 * line from rank 0, with "wrong": the elements of A (all of them, after the timed runs) that
 * differ from op(B) computed from B's fill formula (exit code 1 if any). Run it with 1 rank for
 * the all-local time of the same transform. Memory: A and B, 2 x M x N elements in total over
 * the ranks, plus the plan's rings.
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. shapes -------------------------------------------------------------------------- */

static int64_t mini(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Check one cut; returns the number of problems (message in msg). */
static int64_t check_shape(dmx_op op, int64_t rows, int64_t cols, int64_t es, int64_t maxb,
                           char *msg, size_t len)
{
    int64_t rp = 0, cp = 0, cnt = 0;
    dmx_status st = dmxi_piece_cut_shape(op, rows, cols, es, maxb, &rp, &cp, &cnt);
    const char *why = NULL;
    const int64_t cap = maxb / es;
    if (st != DMX_SUCCESS)
        why = "status";
    else if (rp < 1 || cp < 1 || rp > rows || cp > cols)
        why = "sub-piece extent out of range";
    else if (cnt != ((rows - 1) / rp + 1) * ((cols - 1) / cp + 1))
        why = "count is not the number of sub-pieces";
    else if (cnt > 1 && rp > cap / cp)
        why = "sub-piece larger than the chunk";
    else if (cnt == 1 && (rp != rows || cp != cols))
        why = "uncut piece reported with other extents";
    else if (cnt == 1 && rows * cols > cap)
        why = "piece larger than the chunk left uncut";
    else if (op != DMX_OP_N && cap >= 256 && (rp < mini(rows, 16) || cp < mini(cols, 16)))
        why = "thin sub-piece for a transpose";
    if (!why)
        return 0;
    snprintf(msg, len, "op %d, %lld x %lld of %lld bytes, chunk %lld: %s (%lld x %lld, %lld)",
             (int)op, (long long)rows, (long long)cols, (long long)es, (long long)maxb, why,
             (long long)rp, (long long)cp, (long long)cnt);
    return 1;
}

static void test_shapes(dmxt_ctx *ctx)
{
    static const int64_t ext[] = {1, 2, 15, 16, 17, 100, 181, 1000, 4096, 32769, 46341, 3000000};
    static const int64_t chunks[] = {64, 100, 1000, 4096, 131072, (int64_t)1 << 30};
    static const int64_t sizes[] = {4, 8, 16};
    const int n = (int)(sizeof ext / sizeof ext[0]);
    int64_t bad = 0;
    char msg[300] = "";
    for (int o = 0; o < 3; o++)
        for (int s = 0; s < 3; s++)
            for (int c = 0; c < (int)(sizeof chunks / sizeof chunks[0]); c++)
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        if (!bad)
                            bad += check_shape((dmx_op)o, ext[i], ext[j], sizes[s], chunks[c], msg,
                                               sizeof msg);
    dmxt_case_end(ctx, bad, msg, "cut shapes over ops, element sizes, chunks and extents");

    /* The case of issue 15: a 46341^2 float transpose at the default chunk goes in tiles of at
     * least 128 x 128 elements. */
    int64_t rp = 0, cp = 0, cnt = 0;
    bad = 0;
    msg[0] = '\0';
    if (dmxi_piece_cut_shape(DMX_OP_T, 46341, 23171, 4, 131072, &rp, &cp, &cnt) != DMX_SUCCESS ||
        rp < 128 || cp < 128) {
        bad = 1;
        snprintf(msg, sizeof msg, "46341 x 23171 float piece cut %lld x %lld", (long long)rp,
                 (long long)cp);
    }
    dmxt_case_end(ctx, bad, msg, "46341 x 23171 float op T at 128 KiB: square tiles");
}

/* ---- 2. transforms through cut pieces --------------------------------------------------- */

/* A local array moved to an 8-byte offset from malloc's alignment (keeps the old one to give
 * back before dmxt_matrix_free). */
typedef struct shifted {
    char *raw;
    void *old;
} shifted;

static void shift_local(dmxt_matrix *M, shifted *sh)
{
    sh->raw = NULL;
    sh->old = NULL;
    if (M->alloc_elems[0] == 0)
        return;
    const size_t bytes = (size_t)M->alloc_elems[0] * dmx_dtype_size(M->dtype);
    sh->raw = malloc(bytes + 64);
    if (!sh->raw) {
        fprintf(stderr, "test_pieces: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *p = sh->raw + (16 - (uintptr_t)sh->raw % 16) % 16 + 8; /* 8 mod 16 */
    memcpy(p, M->allocs[0], bytes);
    sh->old = dmxt_matrix_swap_local(M, p);
}

static void unshift_local(dmxt_matrix *M, shifted *sh)
{
    if (sh->raw)
        dmxt_matrix_swap_local(M, sh->old);
    free(sh->raw);
}

typedef struct shape {
    int64_t m, n;     /* A */
    int64_t amb, anb; /* A's blocks */
    int aprow, apcol; /* A's grid (scaled to the rank count) */
    int64_t bmb, bnb; /* B's blocks (B is n x m for op T/C) */
    int bprow, bpcol;
} shape;

static void run_case(dmxt_ctx *ctx, dmx_dtype dt, dmx_op op, int sc, const shape *sh, int64_t chunk,
                     int offset, int64_t pad, int shm_off)
{
    const int P = ctx->size;
    dmxt_matrix A, B;
    const int64_t bm = op == DMX_OP_N ? sh->m : sh->n, bn = op == DMX_OP_N ? sh->n : sh->m;
    const int apr = sh->aprow > P ? P : sh->aprow, apc = P / apr;
    const int bpr = sh->bprow > P ? P : sh->bprow, bpc = P / bpr;
    dmxt_matrix_bc(&A, ctx->comm, dt, sh->m, sh->n, sh->amb, sh->anb, apr, apc, 'R', NULL, 0, 0,
                   pad);
    dmxt_matrix_bc(&B, ctx->comm, dt, bm, bn, sh->bmb, sh->bnb, bpr, bpc, 'C', NULL, 0, 0, pad);
    dmxt_matrix_alloc(&A);
    dmxt_matrix_alloc(&B);
    shifted sa = {0}, sb = {0};
    if (offset) {
        shift_local(&A, &sa);
        shift_local(&B, &sb);
    }
    const int ka = 1, kb = 2;
    dmxt_fill(&A, ka);
    dmxt_fill(&B, kb);
    dmx_scalar alpha = {1.0, 0.0}, beta = {0.0, 0.0};
    if (sc == 1) {
        alpha = (dmx_scalar){-2.0, 0.5};
        beta = (dmx_scalar){0.5, -0.25};
    }
    char desc[400], msg[600] = "";
    snprintf(desc, sizeof desc,
             "%s op=%s alpha=(%g,%g) beta=(%g,%g) A %lldx%lld blocks %lldx%lld grid %dx%d, B "
             "blocks %lldx%lld grid %dx%d, DMX_SHM_CHUNK_BYTES=%lld%s%s ld pad %lld",
             dmxt_dtype_name(dt), dmxt_op_name(op), alpha.re, alpha.im, beta.re, beta.im,
             (long long)sh->m, (long long)sh->n, (long long)sh->amb, (long long)sh->anb, apr, apc,
             (long long)sh->bmb, (long long)sh->bnb, bpr, bpc, (long long)chunk,
             offset ? " arrays at +8 bytes" : "", shm_off ? " DMX_SHM=0" : "", (long long)pad);
    dmxt_set_current(desc);
    int64_t bad = 0;
    dmx_plan *plan = NULL;
    dmx_status st = dmxt_matrix_create(&A);
    if (st == DMX_SUCCESS)
        st = dmxt_matrix_create(&B);
    if (st == DMX_SUCCESS) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)chunk);
        setenv("DMX_SHM_CHUNK_BYTES", v, 1);
        if (shm_off)
            setenv("DMX_SHM", "0", 1);
        dmx_transform tr = {dt, op, alpha, beta, B.layout, A.layout, 0, 0};
        st = dmx_plan_create(1, &tr, &plan);
        unsetenv("DMX_SHM_CHUNK_BYTES");
        unsetenv("DMX_SHM");
    }
    if (st == DMX_SUCCESS)
        st = dmx_plan_execute(plan);
    if (st != DMX_SUCCESS) {
        bad = 1;
        snprintf(msg, sizeof msg, "status %s: %s", dmx_status_string(st), dmx_last_error());
    } else {
        dmxt_expect e = {dt, op, alpha, beta, 0, 0, ka, kb, 0, 0, sh->m, sh->n, 0, 0};
        bad += dmxt_check_result(&A, &e, msg, sizeof msg);
        if (!bad)
            bad += dmxt_check_fill(&B, kb, msg, sizeof msg);
    }
    dmx_plan_destroy(&plan);
    if (A.layout)
        dmx_layout_destroy(&A.layout);
    if (B.layout)
        dmx_layout_destroy(&B.layout);
    unshift_local(&A, &sa);
    unshift_local(&B, &sb);
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
    dmxt_case_end(ctx, bad, msg, desc);
}

static void test_transforms(dmxt_ctx *ctx)
{
    /* Blocks large against the chunks, so pieces are cut; B's blocks split what A's keep
     * whole, so most of each block changes rank. */
    static const shape shapes[] = {
        {96, 80, 96, 40, 1, 4, 80, 24, 1, 4},   /* whole columns against column blocks */
        {67, 131, 34, 66, 2, 2, 45, 67, 2, 2},  /* odd blocks on 2 x 2 */
        {200, 40, 200, 10, 1, 4, 13, 200, 4, 1} /* tall A, B's row blocks */
    };
    static const int64_t chunks[] = {64, 1000, 4096};
    int k = 0;
    for (int dt = 0; dt < 4; dt++)
        for (int op = 0; op < 3; op++)
            for (int sc = 0; sc < 2; sc++)
                for (int s = 0; s < 3; s++, k++)
                    run_case(ctx, (dmx_dtype)dt, (dmx_op)op, sc, &shapes[s], chunks[k % 3],
                             (k / 3) % 2, (k / 2) % 2 ? 3 : 0, k % 7 == 0);
}

/* ---- benchmark ---------------------------------------------------------------------------- */

static dmx_dtype parse_dtype(const char *s)
{
    if (strcmp(s, "float") == 0)
        return DMX_FLOAT;
    if (strcmp(s, "cfloat") == 0)
        return DMX_CFLOAT;
    if (strcmp(s, "cdouble") == 0)
        return DMX_CDOUBLE;
    return DMX_DOUBLE;
}

/* The benchmark's value of B(i, j): a small integer (exact in every dtype), the imaginary part
 * of complex types another one. */
static double bval(int64_t i, int64_t j, int imag)
{
    return (double)((i * 7 + j * 13 + imag * 5) % 8191) - (imag ? 4000.0 : 0.0);
}

/* Element k of a dtype array: set (re, im) or read them (through memcpy: the array is bytes).
 * Local. */
static void elem_set(char *x, size_t k, dmx_dtype dt, double re, double im)
{
    if (dt == DMX_FLOAT || dt == DMX_CFLOAT) {
        const float v[2] = {(float)re, (float)im};
        memcpy(x + k * (dt == DMX_FLOAT ? 4 : 8), v, dt == DMX_FLOAT ? 4 : 8);
    } else {
        const double v[2] = {re, im};
        memcpy(x + k * (dt == DMX_DOUBLE ? 8 : 16), v, dt == DMX_DOUBLE ? 8 : 16);
    }
}

static void elem_get(const char *x, size_t k, dmx_dtype dt, double *re, double *im)
{
    if (dt == DMX_FLOAT || dt == DMX_CFLOAT) {
        float v[2] = {0, 0};
        memcpy(v, x + k * (dt == DMX_FLOAT ? 4 : 8), dt == DMX_FLOAT ? 4 : 8);
        *re = v[0], *im = v[1];
    } else {
        double v[2] = {0, 0};
        memcpy(v, x + k * (dt == DMX_DOUBLE ? 8 : 16), dt == DMX_DOUBLE ? 8 : 16);
        *re = v[0], *im = v[1];
    }
}

static int bench(int argc, char **argv)
{
    int rank = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int64_t m = argc > 2 ? atoll(argv[2]) : 4096, n = argc > 3 ? atoll(argv[3]) : m;
    const dmx_dtype dt = parse_dtype(argc > 4 ? argv[4] : "double");
    const dmx_op op = argc > 5 ? (argv[5][0] == 'N'   ? DMX_OP_N
                                  : argv[5][0] == 'C' ? DMX_OP_C
                                                      : DMX_OP_T)
                               : DMX_OP_T;
    const int reps = argc > 6 ? atoi(argv[6]) : 3;
    const int64_t bm = op == DMX_OP_N ? m : n, bn = op == DMX_OP_N ? n : m;
    const size_t es = dmx_dtype_size(dt);
    /* A: column blocks of n/P; B: column blocks of bn/P (1 x P grids) */
    const int64_t anb = (n + P - 1) / P, bnb = (bn + P - 1) / P;
    const int64_t alc = dmxt_numroc(n, anb, rank, 0, P), blc = dmxt_numroc(bn, bnb, rank, 0, P);
    char *a = malloc((size_t)(m * alc) * es + 1), *b = malloc((size_t)(bm * blc) * es + 1);
    dmx_layout *la = NULL, *lb = NULL;
    dmx_plan *plan = NULL;
    int rc = 1;
    if (!a || !b) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        goto done;
    }
    const int cplx = dt == DMX_CFLOAT || dt == DMX_CDOUBLE;
    for (int64_t jl = 0; jl < blc; jl++) /* B's local column jl is global column rank*bnb + jl */
        for (int64_t i = 0; i < bm; i++)
            elem_set(b, (size_t)(i + jl * bm), dt, bval(i, rank * bnb + jl, 0),
                     cplx ? bval(i, rank * bnb + jl, 1) : 0.0);
    memset(a, 0, (size_t)(m * alc) * es);
    if (dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, n, m, anb, 1, P, 'R', 0, 0, a,
                                       m > 1 ? m : 1, &la) != DMX_SUCCESS ||
        dmx_layout_create_block_cyclic(MPI_COMM_WORLD, bm, bn, bm, bnb, 1, P, 'R', 0, 0, b,
                                       bm > 1 ? bm : 1, &lb) != DMX_SUCCESS)
        goto done;
    dmx_transform tr = {dt, op, {1.0, 0.0}, {0.0, 0.0}, lb, la, 0, 0};
    double t0 = MPI_Wtime();
    if (dmx_plan_create(1, &tr, &plan) != DMX_SUCCESS)
        goto done;
    const double tplan = MPI_Wtime() - t0;
    double best = 1e300, sum = 0;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (dmx_plan_execute(plan) != DMX_SUCCESS)
            goto done;
        double t = MPI_Wtime() - t0, tmax = 0;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best = tmax < best ? tmax : best;
        sum += tmax;
    }
    /* every element of A against op(B) computed from bval (alpha 1, beta 0: exact) */
    long long wrong = 0, all = 0;
    for (int64_t jl = 0; jl < alc; jl++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t gj = rank * anb + jl, bi = op == DMX_OP_N ? i : gj,
                          bj = op == DMX_OP_N ? gj : i;
            double re, im;
            elem_get(a, (size_t)(i + jl * m), dt, &re, &im);
            const double wim = cplx ? (op == DMX_OP_C ? -1.0 : 1.0) * bval(bi, bj, 1) : 0.0;
            wrong += re != bval(bi, bj, 0) || im != wim;
        }
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("{\"bench\":\"pieces\",\"ranks\":%d,\"m\":%lld,\"n\":%lld,\"dtype\":\"%s\","
               "\"op\":\"%s\",\"reps\":%d,\"t_plan\":%.4f,\"t_min\":%.4f,\"t_mean\":%.4f,"
               "\"GBps\":%.3f,\"wrong\":%lld}\n",
               P, (long long)m, (long long)n, dmxt_dtype_name(dt), dmxt_op_name(op), reps, tplan,
               best, sum / reps, 2.0 * (double)m * (double)n * (double)es / best / 1e9, all);
    rc = all != 0;
done:
    if (rc)
        fprintf(stderr, "rank %d: %s\n", rank, dmx_last_error());
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&la);
    dmx_layout_destroy(&lb);
    free(a);
    free(b);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        MPI_Init(&argc, &argv);
        return bench(argc, argv);
    }
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_pieces");
    test_shapes(&ctx);
    test_transforms(&ctx);
    return dmxt_finish(&ctx);
}
