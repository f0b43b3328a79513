/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop-in's p?gemm_ paths that keep state (test build, symbols prefixed dmxsp_test_) against
 * Debian's ScaLAPACK in one process: SUMMA on the caller's arrays (sp_gemm_summa.c) and the plan
 * cache per grid (sp_gemm_cache.c).
 *
 * Each random case (every grid shape that fits, all four types) builds operands whose rows of A
 * and C, and columns of B and C, line up block for block (same block size, submatrix origins
 * IA/IC and JB/JC at the same place of a block on the same process, with different RSRC/CSRC
 * and origins != 1), and arbitrary blocking along k (A's NB and B's MB differ now and then; k
 * long enough, now and then, for several panels of 256). The op pair is N N (SUMMA in place), or
 * any pair, or the origins put out of line (dmx_gemm's plan). Then three calls with the same
 * descriptors: alpha1/beta1; alpha2/beta2 (beta = 0 with NaN in C now and then); alpha2/beta2
 * again on new arrays. After each, every local element of C (padding included) must agree with
 * ScaLAPACK's within rounding, and the path counters must show the expected path: SUMMA in place
 * for N N in line, found in the cache on calls 2 and 3; dmx_gemm's plan otherwise, found in the
 * cache on call 3 (call 2's alpha and beta differ); on a 1 x 1 grid one local multiply on the
 * caller's arrays (sp_gemm.c), no plan and no cache.
 *
 * With a third argument most > 0 (run under a small DMX_CACHE_BYTES or DMX_SCALAPACK_GEMM_CACHE),
 * dmx's plan cache of the grid's communicator (where the drop-in keeps the grid and its plans)
 * must hold at most that many entries after every call.
 *
 * Usage: test_gemm_inplace [ncases [seed [most]]]. Run with DMX_SCALAPACK_GEMM=dmx. */
#include "dmx.h"
#include "dmx/expert.h"
#include "dmxt_util.h"
#include "sp_gemm_test.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void dmxsp_gemm_paths(int64_t out[5]);
MPI_Comm Cblacs2sys_handle(int sysctxt);

/* Entries in dmx's plan cache of grid ctxt's communicator (-1 when it cannot be read). */
static int64_t kept_entries(int ctxt)
{
    int handle = -1;
    int64_t entries = -1;
    MPI_Comm inner = MPI_COMM_NULL;
    Cblacs_get(ctxt, 10, &handle);
    if (dmx_comm_inner(Cblacs2sys_handle(handle), &inner) != DMX_SUCCESS ||
        dmx_cache_get_info(inner, &entries, NULL, NULL) != DMX_SUCCESS)
        return -1;
    return entries;
}

typedef struct mat {
    int i, j, desc[9], lr, lc, lld;
    void *d;
} mat;

/* An M x N matrix in blocks of mb x nb from process (rsrc, csrc), filled from id and fill. */
static void make(mat *x, int t, int M, int N, int mb, int nb, int rsrc, int csrc, int ctxt,
                 const int *grid, int pad, int id, int fill)
{
    x->lr = numroc_(&M, &mb, &grid[2], &rsrc, &grid[0]);
    x->lc = numroc_(&N, &nb, &grid[3], &csrc, &grid[1]);
    x->lld = (x->lr > 0 ? x->lr : 1) + pad;
    const int d[9] = {1, ctxt, M, N, mb, nb, rsrc, csrc, x->lld};
    memcpy(x->desc, d, sizeof d);
    const size_t n = (size_t)x->lld * (size_t)(x->lc > 0 ? x->lc : 1);
    x->d = malloc(n * spt_esize(t));
    for (size_t k = 0; k < n; k++)
        spt_put(t, x->d, k,
                (double)((k * 37 + (size_t)(id + fill) * 11 + (size_t)grid[2]) % 23) / 7.0 - 1.5,
                (double)((k * 13 + (size_t)id * 3 + (size_t)grid[3]) % 19) / 9.0 - 1.0);
}

/* Call p<t>gemm_ of Debian (real = 1) or of dmx's test build, alpha and beta as double pairs. */
static void call_gemm(int real, int t, char ta, char tb, int m, int n, int k, const double *alpha,
                      const mat *a, const mat *b, const double *beta, mat *c)
{
    const float fa[2] = {(float)alpha[0], (float)alpha[1]},
                fb[2] = {(float)beta[0], (float)beta[1]};
    const int single = t == 0 || t == 2;
    spt_gemm(real, t, ta, tb, m, n, k, single ? (const void *)fa : alpha,
             (spt_operand){a->d, a->i, a->j, a->desc}, (spt_operand){b->d, b->i, b->j, b->desc},
             single ? (const void *)fb : beta, (spt_operand){c->d, c->i, c->j, c->desc});
}

/* Origin (1-based) of a submatrix in a distribution of blocks bs from src over np that starts
 * at the same place of a block on the same process as 1-based index ref of blocks bs from rsrc
 * (in line), or one block later, on the next process (out of line, np > 1). */
static int line_up(dmxt_rng *g, int ref, int bs, int rsrc, int src, int np, int out)
{
    const int blk = (ref - 1) / bs, off = (ref - 1) % bs, owner = (rsrc + blk) % np;
    const int b2 = (owner - src + np) % np + np * spt_int(g, 0, 1);
    return 1 + (b2 + (out && np > 1 ? 1 : 0)) * bs + off;
}

typedef struct ccase {
    int t, m, n, k;
    char ta, tb;
    int inplace; /* the expected path: SUMMA on the arrays */
    mat a, b, c;
} ccase;

/* Draw case cs on grid (nprow, npcol, myrow, mycol) of context ctxt. */
static void draw(ccase *x, dmxt_rng *g, int ctxt, const int *grid)
{
    const int pr = grid[0], pc = grid[1];
    x->t = spt_int(g, 0, 3);
    const int kind = spt_int(g, 0, 2); /* 0: N N in line, 1: any ops in line, 2: N N out of line */
    const char ops[6] = {'N', 'T', 'C', 'n', 't', 'c'};
    x->ta = kind == 1 ? ops[spt_int(g, 0, 5)] : 'N';
    x->tb = kind == 1 ? ops[spt_int(g, 0, 5)] : 'n';
    x->m = spt_int(g, 1, 40), x->n = spt_int(g, 1, 40);
    x->k = spt_int(g, 0, 7) == 0 ? spt_int(g, 300, 600) : spt_int(g, 1, 40);
    const int na = toupper((unsigned char)x->ta) == 'N', nb = toupper((unsigned char)x->tb) == 'N';
    const int out = kind == 2 && (pr > 1 || pc > 1);
    x->inplace = (na && nb && !out) || (pr == 1 && pc == 1);
    /* C: blocks mb x nb; A's rows and B's columns lined up with it when op is N */
    const int mb = spt_int(g, 1, 6), nbk = spt_int(g, 1, 6), kba = spt_int(g, 1, 8);
    const int kbb = spt_int(g, 0, 1) ? kba : spt_int(g, 1, 8);
    const int crs = spt_int(g, 0, pr - 1), ccs = spt_int(g, 0, pc - 1);
    x->c.i = spt_int(g, 1, 2 * mb * pr), x->c.j = spt_int(g, 1, 2 * nbk * pc);
    const int ars = spt_int(g, 0, pr - 1), acs = spt_int(g, 0, pc - 1);
    const int brs = spt_int(g, 0, pr - 1), bcs = spt_int(g, 0, pc - 1);
    x->a.i = na ? line_up(g, x->c.i, mb, crs, ars, pr, out) : spt_int(g, 1, 5);
    x->a.j = spt_int(g, 1, 5);
    x->b.i = spt_int(g, 1, 5);
    x->b.j = nb ? line_up(g, x->c.j, nbk, ccs, bcs, pc, out && pr == 1) : spt_int(g, 1, 5);
    const int arows = na ? x->m : x->k, acols = na ? x->k : x->m;
    const int brows = nb ? x->k : x->n, bcols = nb ? x->n : x->k;
    make(&x->a, x->t, x->a.i - 1 + arows, x->a.j - 1 + acols, na ? mb : kba, na ? kba : mb, ars,
         acs, ctxt, grid, spt_int(g, 0, 2), 1, 0);
    make(&x->b, x->t, x->b.i - 1 + brows, x->b.j - 1 + bcols, nb ? kbb : nbk, nb ? nbk : kbb, brs,
         bcs, ctxt, grid, spt_int(g, 0, 2), 2, 0);
    make(&x->c, x->t, x->c.i - 1 + x->m, x->c.j - 1 + x->n, mb, nbk, crs, ccs, ctxt, grid,
         spt_int(g, 0, 2), 3, 0);
}

static size_t cells(const mat *x)
{
    return (size_t)x->lld * (size_t)(x->lc > 0 ? x->lc : 1);
}

/* New arrays for A, B and C (same descriptors), C and its copy filled alike. */
static void refill(ccase *x, mat *c2, int call, const int *grid)
{
    mat *ms[3] = {&x->a, &x->b, &x->c};
    for (int i = 0; i < 3; i++) {
        mat *y = ms[i];
        const size_t n = cells(y);
        free(y->d);
        y->d = malloc(n * spt_esize(x->t));
        for (size_t e = 0; e < n; e++)
            spt_put(x->t, y->d, e, (double)((e * 29 + (size_t)(i + call)) % 17) / 5.0 - 1.5,
                    (double)((e * 7 + (size_t)grid[2]) % 11) / 4.0 - 1.0);
    }
    memcpy(c2->d, x->c.d, cells(&x->c) * spt_esize(x->t));
}

/* Run case cs; returns the number of failed checks on this process (-1 outside the grid). */
static int one_case(int cs, uint64_t seed, const int *ctxts, int (*shapes)[2], int ng, int me,
                    int most)
{
    dmxt_rng g = spt_seed(seed, (uint64_t)cs, 11);
    const int q = spt_int(&g, 0, ng - 1);
    if (ctxts[q] < 0)
        return -1;
    int grid[4];
    Cblacs_gridinfo(ctxts[q], &grid[0], &grid[1], &grid[2], &grid[3]);
    const int single = grid[0] == 1 && grid[1] == 1;
    (void)shapes;
    ccase x;
    draw(&x, &g, ctxts[q], grid);
    mat c2 = x.c;
    c2.d = malloc(cells(&x.c) * spt_esize(x.t));
    memcpy(c2.d, x.c.d, cells(&x.c) * spt_esize(x.t));
    const int cplx = x.t >= 2;
    double al[3][2], be[3][2];
    for (int i = 0; i < 2; i++) {
        al[i][0] = spt_unit(&g) * 2 - 1 + 0.25, al[i][1] = cplx ? spt_unit(&g) : 0;
        be[i][0] = spt_int(&g, 0, 3) == 0 ? 0.0 : spt_unit(&g) * 2 - 1,
        be[i][1] = cplx ? spt_unit(&g) : 0;
        if (be[i][0] == 0)
            be[i][1] = 0;
    }
    memcpy(al[2], al[1], sizeof al[1]);
    memcpy(be[2], be[1], sizeof be[1]);
    int bad = 0;
    const double tol = (x.t == 0 || x.t == 2 ? 2e-4 : 1e-10) * (x.k + 1);
    for (int call = 0; call < 3; call++) {
        if (call == 2)
            refill(&x, &c2, call, grid);
        if (be[call][0] == 0 && be[call][1] == 0) /* C not read: NaN must not matter */
            for (size_t e = 0; e < cells(&x.c); e++) {
                spt_put(x.t, x.c.d, e, NAN, NAN);
                spt_put(x.t, c2.d, e, NAN, NAN);
            }
        int64_t p0[5], p1[5];
        dmxsp_gemm_paths(p0);
        call_gemm(1, x.t, x.ta, x.tb, x.m, x.n, x.k, al[call], &x.a, &x.b, be[call], &x.c);
        call_gemm(0, x.t, x.ta, x.tb, x.m, x.n, x.k, al[call], &x.a, &x.b, be[call], &c2);
        dmxsp_gemm_paths(p1);
        const double worst = spt_worst_diff(x.t, x.c.d, c2.d, cells(&x.c));
        const int64_t kept = most > 0 ? kept_entries(ctxts[q]) : 0;
        if (kept < 0 || kept > most) {
            fprintf(stderr,
                    "FAIL case %d call %d rank %d: the grid's plan cache holds %lld entries"
                    " (at most %d)\n",
                    cs, call, me, (long long)kept, most);
            bad++;
        }
        const int hit_expected = x.inplace ? call > 0 : call == 2;
        /* a 1 x 1 grid: one local multiply, no plan and no cache */
        const int path_ok = single ? p1[4] - p0[4] == 1 && p1[0] == p0[0] && p1[1] == p0[1] &&
                                         p1[2] == p0[2] && p1[3] == p0[3]
                                   : p1[0] - p0[0] == x.inplace && p1[1] - p0[1] == !x.inplace &&
                                         p1[2] - p0[2] == hit_expected &&
                                         p1[3] - p0[3] == !hit_expected && p1[4] == p0[4];
        if (worst > tol || !path_ok) {
            fprintf(
                stderr,
                "FAIL case %d call %d: p%cgemm %c%c m %d n %d k %d grid %dx%d rank %d: rel diff "
                "%.3g; path %s expected, counters +%lld in place +%lld plan +%lld found "
                "+%lld made\n",
                cs, call, "sdcz"[x.t], x.ta, x.tb, x.m, x.n, x.k, grid[0], grid[1], me, worst,
                single      ? "one process"
                : x.inplace ? "in place"
                            : "plan",
                (long long)(p1[0] - p0[0]), (long long)(p1[1] - p0[1]), (long long)(p1[2] - p0[2]),
                (long long)(p1[3] - p0[3]));
            bad++;
        }
    }
    free(x.a.d);
    free(x.b.d);
    free(x.c.d);
    free(c2.d);
    return bad;
}

int main(int argc, char **argv)
{
    int me, np;
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    const int ncases = argc > 1 ? atoi(argv[1]) : 90;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261127u;
    const int most = argc > 3 ? atoi(argv[3]) : 0;
    Cblacs_pinfo(&me, &np);
    int ctxts[16], shapes[16][2];
    const int ng = spt_all_grids(np, ctxts, shapes);
    long bad = 0, checks = 0;
    for (int cs = 0; cs < ncases; cs++) {
        const int r = one_case(cs, seed, ctxts, shapes, ng, me, most);
        checks += r >= 0 ? 3 : 0;
        bad += r > 0 ? r : 0;
    }
    return spt_finish(bad, checks, ctxts, ng, me);
}
