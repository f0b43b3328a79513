/* SPDX-License-Identifier: BSD-3-Clause */
/* Edge lines joined (src/exec/edge_join.c): a received piece writes the cache lines it shares
 * with a local rectangle whole, and the rectangle leaves those rows out.
 *
 * A = alpha*op(B) + beta*A from 32 x 32 blocks to 96 x 64 blocks on the same grid (size x 1, 1 x
 * size, and 2 x size/2 for even sizes above 2), so that down each column of A the rank's own rows
 * and a peer's take turns: every kind of boundary occurs. A sits at every tested offset in a cache
 * line (A's memory is a line-aligned buffer plus off bytes), its lld a whole number of lines (the
 * join's case) or one element more (no join), and the test's environment streams A's writes
 * (DMX_STREAM=1, registered beside the default). For the four types, ops N, T, C and the
 * scalars (1, 0) (joined), (2, 0) and (1, 1) (not joined), every local element of A is checked
 * against the value computed here from the global indices (exact in every type), and the guard
 * bytes around A's array and the rows between its local row count and lld must be untouched.
 * Then A is moved to another offset with dmx_layout_rebind and the same plan runs again: the
 * join reads the alignment at each execution. */
#define _POSIX_C_SOURCE 200809L

#include "dmx.h"
#include "dmxt_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINE = 64, GUARD = 2 * LINE, BB = 32 };

static size_t esize_of(dmx_dtype t)
{
    return t == DMX_FLOAT ? 4 : t == DMX_DOUBLE ? 8 : t == DMX_CFLOAT ? 8 : 16;
}

static int is_complex(dmx_dtype t)
{
    return t == DMX_CFLOAT || t == DMX_CDOUBLE;
}

/* Element values, exact in float: B(i, j) and A's starting A0(i, j). */
static void bval(int64_t i, int64_t j, double *re, double *im)
{
    *re = (double)(i * 512 + j), *im = (double)(j * 4 - i);
}

static void a0val(int64_t i, int64_t j, double *re, double *im)
{
    *re = -(double)(i * 3 + j), *im = (double)(i - 2 * j);
}

static void put(dmx_dtype t, void *p, int64_t k, double re, double im)
{
    switch (t) {
    case DMX_FLOAT: ((float *)p)[k] = (float)re; break;
    case DMX_DOUBLE: ((double *)p)[k] = re; break;
    case DMX_CFLOAT: ((float *)p)[2 * k] = (float)re, ((float *)p)[2 * k + 1] = (float)im; break;
    default: ((double *)p)[2 * k] = re, ((double *)p)[2 * k + 1] = im; break;
    }
}

static void get(dmx_dtype t, const void *p, int64_t k, double *re, double *im)
{
    *im = 0.0;
    switch (t) {
    case DMX_FLOAT: *re = ((const float *)p)[k]; break;
    case DMX_DOUBLE: *re = ((const double *)p)[k]; break;
    case DMX_CFLOAT: *re = ((const float *)p)[2 * k], *im = ((const float *)p)[2 * k + 1]; break;
    default: *re = ((const double *)p)[2 * k], *im = ((const double *)p)[2 * k + 1]; break;
    }
}

typedef struct grid {
    int pr, pc, myr, myc;
} grid;

/* A's local array in a guarded buffer: arr = buf + GUARD + off. */
typedef struct abuf {
    unsigned char *buf;
    char *arr;
    size_t bytes; /* of the array (lld x local columns) */
} abuf;

static int abuf_make(abuf *a, size_t bytes, size_t off)
{
    a->bytes = bytes;
    a->buf = aligned_alloc(LINE, (bytes + 2 * GUARD + LINE + LINE - 1) / LINE * LINE);
    if (!a->buf)
        return 0;
    memset(a->buf, 0x5a, (bytes + 2 * GUARD + LINE + LINE - 1) / LINE * LINE);
    a->arr = (char *)a->buf + GUARD + off;
    return 1;
}

/* Fill A's local array (rows ml of lld, cols nl) with A0 and the padding rows with 0x5a. */
static void fill_a(dmx_dtype t, const abuf *a, const grid *g, int64_t mb, int64_t nb, int64_t ml,
                   int64_t nl, int64_t lld)
{
    for (int64_t jl = 0; jl < nl; jl++)
        for (int64_t il = 0; il < ml; il++) {
            double re, im;
            a0val(dmxt_indxl2g(il, mb, g->myr, 0, g->pr), dmxt_indxl2g(jl, nb, g->myc, 0, g->pc),
                  &re, &im);
            put(t, a->arr, il + jl * lld, re, im);
        }
}

/* Check A against alpha*op(B) + beta*A0, the padding rows and the guards; failures counted. */
static void check_a(dmxt_count *cnt, const char *what, dmx_dtype t, dmx_op op, double alpha,
                    double beta, const abuf *a, size_t off, const grid *g, int64_t mb, int64_t nb,
                    int64_t ml, int64_t nl, int64_t lld)
{
    const size_t esz = esize_of(t);
    int64_t bad = 0, first_i = -1, first_j = -1;
    for (int64_t jl = 0; jl < nl; jl++)
        for (int64_t il = 0; il < lld; il++) {
            if (il >= ml) {
                const unsigned char *p = (const unsigned char *)a->arr + (il + jl * lld) * esz;
                for (size_t k = 0; k < esz; k++)
                    if (p[k] != 0x5a && bad++ == 0)
                        first_i = il, first_j = jl;
                continue;
            }
            const int64_t i = dmxt_indxl2g(il, mb, g->myr, 0, g->pr);
            const int64_t j = dmxt_indxl2g(jl, nb, g->myc, 0, g->pc);
            double br, bi, ar, ai, gr, gi;
            if (op == DMX_OP_N)
                bval(i, j, &br, &bi);
            else
                bval(j, i, &br, &bi);
            if (!is_complex(t))
                bi = 0.0;
            if (op == DMX_OP_C)
                bi = -bi;
            a0val(i, j, &ar, &ai);
            if (!is_complex(t))
                ai = 0.0;
            get(t, a->arr, il + jl * lld, &gr, &gi);
            if ((gr != alpha * br + beta * ar || gi != alpha * bi + beta * ai) && bad++ == 0)
                first_i = i, first_j = j;
        }
    for (size_t k = 0; k < GUARD + off; k++)
        if (a->buf[k] != 0x5a && bad++ == 0)
            first_i = -2, first_j = (int64_t)k;
    for (size_t k = 0; k < GUARD; k++)
        if ((unsigned char)a->arr[a->bytes + k] != 0x5a && bad++ == 0)
            first_i = -3, first_j = (int64_t)k;
    DMXT_EXPECT(cnt, bad == 0, "%s: %lld wrong (first at %lld, %lld)", what, (long long)bad,
                (long long)first_i, (long long)first_j);
}

/* Every case on grid g. */
static void run_grid(dmxt_count *cntp, int rank, const grid *gp)
{
    const grid g = *gp;
    const int64_t M = 420, N = 300, MB = 96, NB = 64;
    const dmx_dtype types[4] = {DMX_FLOAT, DMX_DOUBLE, DMX_CFLOAT, DMX_CDOUBLE};
    const dmx_op ops[3] = {DMX_OP_N, DMX_OP_T, DMX_OP_C};
    const double scal[3][2] = {{1.0, 0.0}, {2.0, 0.0}, {1.0, 1.0}};
    for (int ti = 0; ti < 4; ti++) {
        const dmx_dtype t = types[ti];
        const size_t esz = esize_of(t), lel = LINE / esz;
        for (int oi = 0; oi < 3; oi++) {
            const dmx_op op = ops[oi];
            /* B: op(B) is M x N */
            const int64_t bm = op == DMX_OP_N ? M : N, bn = op == DMX_OP_N ? N : M;
            const int64_t bml = dmxt_numroc(bm, BB, g.myr, 0, g.pr);
            const int64_t bnl = dmxt_numroc(bn, BB, g.myc, 0, g.pc);
            const int64_t blld = bml > 0 ? bml : 1;
            char *b = malloc((size_t)(blld * (bnl > 0 ? bnl : 1)) * esz);
            for (int64_t jl = 0; jl < bnl; jl++)
                for (int64_t il = 0; il < bml; il++) {
                    double re, im;
                    bval(dmxt_indxl2g(il, BB, g.myr, 0, g.pr), dmxt_indxl2g(jl, BB, g.myc, 0, g.pc),
                         &re, &im);
                    put(t, b, il + jl * blld, re, im);
                }
            const int64_t ml = dmxt_numroc(M, MB, g.myr, 0, g.pr);
            const int64_t nl = dmxt_numroc(N, NB, g.myc, 0, g.pc);
            for (int lk = 0; lk < 2; lk++) {
                const int64_t lines = ((ml > 0 ? ml : 1) + (int64_t)lel - 1) / (int64_t)lel;
                const int64_t lld = lines * (int64_t)lel + lk; /* lk = 1: off the lines */
                const size_t bytes = (size_t)(lld * nl) * esz;
                for (int si = 0; si < 3; si++) {
                    const double alpha = scal[si][0], beta = scal[si][1];
                    /* two offsets in a line per plan: the first execution, then after a rebind */
                    const size_t off0 = (esz * (size_t)(1 + si + lk)) % LINE;
                    const size_t off1 = (off0 + 2 * esz + 16) % LINE / esz * esz;
                    abuf a0, a1;
                    if (!abuf_make(&a0, bytes, off0) || !abuf_make(&a1, bytes, off1)) {
                        fprintf(stderr, "rank %d: out of memory\n", rank);
                        MPI_Abort(MPI_COMM_WORLD, 2);
                    }
                    fill_a(t, &a0, &g, MB, NB, ml, nl, lld);
                    fill_a(t, &a1, &g, MB, NB, ml, nl, lld);
                    dmx_layout *la = NULL, *lb = NULL;
                    dmx_plan *plan = NULL;
                    dmx_status st =
                        dmx_layout_create_block_cyclic(MPI_COMM_WORLD, M, N, MB, NB, g.pr, g.pc,
                                                       'R', 0, 0, ml > 0 ? a0.arr : NULL, lld, &la);
                    if (st == DMX_SUCCESS)
                        st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, bm, bn, BB, BB, g.pr,
                                                            g.pc, 'R', 0, 0, b, blld, &lb);
                    if (st == DMX_SUCCESS) {
                        dmx_transform tr;
                        memset(&tr, 0, sizeof tr);
                        tr.dtype = t;
                        tr.op = op;
                        tr.alpha.re = alpha;
                        tr.beta.re = beta;
                        tr.a = la;
                        tr.b = lb;
                        st = dmx_plan_create(1, &tr, &plan);
                    }
                    char what[160];
                    snprintf(what, sizeof what,
                             "rank %d dtype %d op %d alpha %g beta %g lld %lld (+%d) offset %zu",
                             rank, (int)t, (int)op, alpha, beta, (long long)lld, lk, off0);
                    DMXT_EXPECT(cntp, st == DMX_SUCCESS, "%s: setup: %s (%s)", what,
                                dmx_status_string(st), dmx_last_error());
                    if (st == DMX_SUCCESS) {
                        st = dmx_plan_execute(plan);
                        DMXT_EXPECT(cntp, st == DMX_SUCCESS, "%s: execute: %s", what,
                                    dmx_status_string(st));
                        check_a(cntp, what, t, op, alpha, beta, &a0, off0, &g, MB, NB, ml, nl, lld);
                        st = dmx_layout_rebind(la, ml > 0 ? a1.arr : NULL);
                        if (st == DMX_SUCCESS)
                            st = dmx_plan_execute(plan);
                        snprintf(what, sizeof what,
                                 "rank %d dtype %d op %d alpha %g beta %g lld %lld (+%d) "
                                 "rebound to offset %zu",
                                 rank, (int)t, (int)op, alpha, beta, (long long)lld, lk, off1);
                        DMXT_EXPECT(cntp, st == DMX_SUCCESS, "%s: %s", what, dmx_status_string(st));
                        check_a(cntp, what, t, op, alpha, beta, &a1, off1, &g, MB, NB, ml, nl, lld);
                    }
                    dmx_plan_destroy(&plan);
                    dmx_layout_destroy(&la);
                    dmx_layout_destroy(&lb);
                    free(a0.buf);
                    free(a1.buf);
                }
            }
            free(b);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dmxt_watchdog(240, 1, "FAIL: watchdog expired\n0 passed, 1 failed\n");
    dmxt_count cnt = {0, 0};
    /* grids size x 1, 1 x size and 2 x size/2 */
    const int ngrids = size % 2 == 0 && size > 2 ? 3 : size > 1 ? 2 : 1;
    for (int gi = 0; gi < ngrids; gi++) {
        grid g = {gi == 0 ? size : gi == 1 ? 1 : 2, gi == 0 ? 1 : gi == 1 ? size : size / 2, 0, 0};
        g.myr = rank / g.pc, g.myc = rank % g.pc;
        run_grid(&cnt, rank, &g);
    }
    dmxt_count all = cnt;
    MPI_Allreduce(&cnt.passed, &all.passed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&cnt.failed, &all.failed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        dmxt_count_print(&all);
    MPI_Finalize();
    return dmxt_count_exit_code(&all);
}
