/* SPDX-License-Identifier: BSD-3-Clause */
/* ScaLAPACK's p?gemm_ (Fortran convention) on dmx's multiply: sub(C) = alpha op(sub(A))
 * op(sub(B)) + beta sub(C) with sub(X) = X(IX:IX+rows-1, JX:JX+cols-1), as the PBLAS define it.
 *
 * First, a call whose operands all sit on one process (each in one block; any size on a 1 x 1
 * grid) is one local multiply on the caller's arrays there (one_owner() below), without
 * ScaLAPACK's layers or dmx's planning; the other calls take the steps below (small ones on larger
 * grids go to ScaLAPACK's own routine, sp_gemm_real.c).
 *
 * Each call, in PDGEMM's order:
 * 1. The descriptors are read by the PBLAS' rule (sp_desc.c: DTYPE 1, 9 integers; DTYPE 2, 11
 *    integers with first blocks IMB x INB). A's context is the call's (B's and C's must be it).
 * 2. A process outside A's grid (no such context here) is an illegal DESCA (code -1002). The
 *    others check their arguments (sp_gemm_check.c) and allgather their grid coordinates and
 *    codes over the grid's communicator, so all of them know whether any process found one. An
 *    illegal argument is reported as the PBLAS do: PB_Cwarn with dmx's message, then the
 *    library's PB_Cabort with the PBLAS' code (it prints the parameter's number and ends the job;
 *    in ScaLAPACK's own PBLAS testers it records the code and returns, and so does this call).
 *    The processes whose own arguments were right return with a message.
 * 3. Quick return as PDGEMM: M or N = 0, or (alpha = 0 or K = 0) and beta = 1.
 * 4. alpha = 0 or K = 0: sub(C) = beta sub(C) on each process's own elements (beta = 0 writes
 *    zeros, NaN in C is fine), with no communication and A and B not read, as the PBLAS do.
 * 5. Otherwise the multiply (sp_gemm_cache.c): SUMMA straight on the caller's arrays when their
 *    blocks already suit it (sp_gemm_summa.c), else dmx_gemm on a layout per operand (sp_layout.c:
 *    block-cyclic over the local array with the descriptor's blocks, cut at the submatrix's last
 *    row and column; a custom layout when the first blocks differ) and a view of the submatrix;
 *    either plan kept in dmx's plan cache of the grid's communicator for the calls that follow
 *    (under DMX_CACHE_BYTES, freed with that communicator). Errors end the job with
 *    dmx's message.
 * Not supported (the job ends with a message): RSRC or CSRC = -1 (the PBLAS' replicated
 * operands) in a multiply (step 5; step 4 scales a replicated C). */
#include "sp_gemm_internal.h"

#include <stdio.h>
#include <stdlib.h>

static _Noreturn void die(MPI_Comm comm, const char *name, const char *what)
{
    fprintf(stderr, "dmx_scalapack: %s: %s\n", name, what);
    fflush(stderr);
    dmxsp_abort(comm);
}

/* The PBLAS' report of an illegal argument (see step 2). */
static void illegal(int ctxt, const char *name, int info, const char *msg)
{
    char text[90]; /* PB_Cwarn formats into 100 bytes */
    snprintf(text, sizeof text, "dmx: %.80s", msg);
    PB_Cwarn(ctxt, -1, name, "%s", text);
    PB_Cabort(ctxt, name, info);
}

static void scale_one(dmx_dtype t, void *p, dmx_scalar b)
{
    const int zero = b.re == 0.0 && b.im == 0.0;
    switch (t) {
    case DMX_FLOAT: *(float *)p = zero ? 0.0f : (float)(b.re * *(float *)p); break;
    case DMX_DOUBLE: *(double *)p = zero ? 0.0 : b.re * *(double *)p; break;
    case DMX_CFLOAT: {
        float *z = p, re = z[0], im = z[1];
        z[0] = zero ? 0.0f : (float)(b.re * re - b.im * im);
        z[1] = zero ? 0.0f : (float)(b.re * im + b.im * re);
        break;
    }
    default: {
        double *z = p, re = z[0], im = z[1];
        z[0] = zero ? 0.0 : b.re * re - b.im * im;
        z[1] = zero ? 0.0 : b.re * im + b.im * re;
        break;
    }
    }
}

/* sub(C) = beta sub(C) on this process's elements (step 4). */
static void scale_local(const char *name, dmx_dtype t, const sp_gemm_args *g, const int *grid,
                        void *c, dmx_scalar beta)
{
    const sp_desc *d = &g->c;
    const size_t es = dmx_dtype_size(t);
    int64_t *rows = malloc(sizeof *rows * (size_t)g->m);
    if (rows == NULL)
        die(MPI_COMM_WORLD, name, "out of memory");
    for (int i = 0; i < g->m; i++)
        rows[i] = dmxsp_local_index(g->ic - 1 + i, d->imb, d->mb, d->rsrc, grid[0], grid[2]);
    for (int j = 0; j < g->n; j++) {
        const int64_t lc =
            dmxsp_local_index(g->jc - 1 + j, d->inb, d->nb, d->csrc, grid[1], grid[3]);
        for (int i = 0; i < g->m && lc >= 0; i++)
            if (rows[i] >= 0)
                scale_one(t, (char *)c + (size_t)(rows[i] + lc * d->lld) * es, beta);
    }
    free(rows);
}

/* Step 2's exchange: grid coordinates and codes of every process of the grid's communicator;
 * ranks[prow * npcol + pcol] = its rank there. Returns the first other process's nonzero code
 * (0 if none) and its coordinates in *erow, *ecol. */
static int exchange(const char *name, MPI_Comm comm, const int *grid, int info, int *ranks,
                    int *erow, int *ecol)
{
    int size;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        die(comm, name, "MPI_Comm_size failed on the grid's communicator");
    int me[3] = {grid[2], grid[3], info}, *all = malloc(sizeof(int) * 3 * (size_t)size);
    if (all == NULL)
        die(comm, name, "out of memory");
    if (MPI_Allgather(me, 3, MPI_INT, all, 3, MPI_INT, comm) != MPI_SUCCESS)
        die(comm, name, "MPI_Allgather of the grid coordinates failed");
    int other = 0;
    for (int r = 0; r < size; r++) {
        const int *f = all + 3 * r;
        if (f[0] >= 0 && f[0] < grid[0] && f[1] >= 0 && f[1] < grid[1])
            ranks[f[0] * grid[1] + f[1]] = r;
        if (f[2] != 0 && other == 0)
            other = f[2], *erow = f[0], *ecol = f[1];
    }
    free(all);
    return other;
}

static int replicated(const sp_desc *d)
{
    return d->rsrc < 0 || d->csrc < 0;
}

static void gemm(const char *name, dmx_dtype t, const sp_gemm_args *g, dmx_scalar alpha, void *a,
                 void *b, dmx_scalar beta, void *c)
{
    int grid[4];
    char msg[256];
    const int ctxt = g->a.ctxt;
    if (!dmxsp_grid_member(ctxt, &grid[0], &grid[1], &grid[2], &grid[3]) || grid[0] < 1) {
        snprintf(msg, sizeof msg, "parameter 10: DESCA CTXT = %d, no grid of this process", ctxt);
        illegal(ctxt, name, -1002, msg);
        return;
    }
    const int info = dmxsp_gemm_check(g, grid, msg, sizeof msg);
    int handle = -1, erow = -1, ecol = -1;
    Cblacs_get(ctxt, 10, &handle); /* 10: the grid's communicator */
    MPI_Comm comm = Cblacs2sys_handle(handle);
    if (comm == MPI_COMM_NULL)
        die(MPI_COMM_WORLD, name, "the BLACS context has no communicator");
    int *ranks = malloc(sizeof(int) * (size_t)grid[0] * (size_t)grid[1]);
    if (ranks == NULL)
        die(comm, name, "out of memory");
    const int other = exchange(name, comm, grid, info, ranks, &erow, &ecol);
    const int zero_a = alpha.re == 0.0 && alpha.im == 0.0, one_b = beta.re == 1.0 && beta.im == 0.0;
    if (info != 0) {
        illegal(ctxt, name, info, msg);
    } else if (other != 0) {
        fprintf(stderr,
                "dmx_scalapack: %s: process (%d, %d) of the grid found an illegal argument (INFO "
                "%d); process (%d, %d) returns\n",
                name, erow, ecol, other, grid[2], grid[3]);
    } else if (g->m == 0 || g->n == 0 || ((zero_a || g->k == 0) && one_b)) {
        /* quick return */
    } else if (zero_a || g->k == 0) { /* local, a replicated C (RSRC or CSRC = -1) included */
        scale_local(name, t, g, grid, c, beta);
        dmxsp_count_gemm();
    } else {
        if (replicated(&g->a) || replicated(&g->b) || replicated(&g->c))
            die(comm, name, "RSRC or CSRC = -1 (replicated operands) is not supported by dmx");
        dmxsp_gemm_cached(name, comm, t, g, grid, ranks, alpha, a, b, beta, c);
        dmxsp_count_gemm();
    }
    free(ranks);
}

/* Where entries [g, g + n) of rows (or columns) with a first block of `first`, then blocks of
 * bs, block 0 on process src of np, lie when one process holds them all at consecutive local
 * indices: that process (*owner) and the local index of g (*local). One process holds everything
 * in order; on more, the entries must sit in one block. 0 when they are spread. n >= 1. */
static int one_piece(int64_t g, int64_t n, int64_t first, int64_t bs, int src, int np, int *owner,
                     int64_t *local)
{
    const int64_t e = g + n - 1;
    const int64_t b0 = g < first ? 0 : 1 + (g - first) / bs,
                  b1 = e < first ? 0 : 1 + (e - first) / bs;
    if (np != 1 && b0 != b1)
        return 0;
    *owner = (int)((src + b0) % np);
    *local = dmxsp_local_index(g, first, bs, src, np, *owner);
    return 1;
}

/* Where sub(X) (rows x cols at 1-based (i, j)) sits when one process holds it at consecutive
 * local rows and columns: that process's grid coordinates and the local row and column of
 * X(i, j); 0 when spread. */
typedef struct placed {
    int pr, pc;
    int64_t lr, lc;
} placed;

static int one_block(const sp_desc *d, int i, int rows, int j, int cols, const int *grid, placed *x)
{
    return one_piece(i - 1, rows, d->imb, d->mb, d->rsrc, grid[0], &x->pr, &x->lr) &&
           one_piece(j - 1, cols, d->inb, d->nb, d->csrc, grid[1], &x->pc, &x->lc);
}

static int op_n(char t)
{
    return t == 'N' || t == 'n';
}

/* What placing needs: sizes >= 0, origins >= 1, DTYPE 1 or 2 and blocks >= 1; anything else is
 * dmxsp_gemm_check's to report, on the usual path. */
static int placeable(const sp_gemm_args *g)
{
    const sp_desc *d[3] = {&g->a, &g->b, &g->c};
    for (int x = 0; x < 3; x++)
        if ((d[x]->dtype != 1 && d[x]->dtype != 2) || d[x]->imb < 1 || d[x]->inb < 1 ||
            d[x]->mb < 1 || d[x]->nb < 1)
            return 0;
    return g->m >= 0 && g->n >= 0 && g->k >= 0 && g->ia >= 1 && g->ja >= 1 && g->ib >= 1 &&
           g->jb >= 1 && g->ic >= 1 && g->jc >= 1;
}

/* A call whose sub(A), sub(B) and sub(C) all sit on one process, each in one block (any size on
 * a 1 x 1 grid, where the one process holds every block in order): that process makes one local
 * multiply on the caller's arrays and the others have nothing to do. It is what PDGEMM computes,
 * without ScaLAPACK's layers (470 ns for a 1 x 1 x 1 call on one process, 2.15 us on a 2 x 2
 * grid, docs/scalapack.md) or dmx's planning. Every process decides alike, from the arguments
 * every process is given alike, and checks its own (LLD included) before anything else: an
 * illegal one is reported as in step 2 below, but without the exchange, since the other
 * processes return at once; sub(C) meeting sub(A) or sub(B) in memory ends the job, as on the
 * other paths. Replicated operands (RSRC or CSRC = -1), arguments too wrong to place and calls
 * spread over processes go the usual way. Returns 1 when the call is done. Local. */
static int one_owner(const char *name, dmx_dtype t, const sp_gemm_args *g, dmx_scalar alpha,
                     const void *a, const void *b, dmx_scalar beta, void *c)
{
    int grid[4];
    placed pa = {0}, pb = {0}, pcx = {0};
    char msg[256];
    if (!dmxsp_grid_member(g->a.ctxt, &grid[0], &grid[1], &grid[2], &grid[3]) ||
        replicated(&g->a) || replicated(&g->b) || replicated(&g->c) || !placeable(g))
        return 0;
    const int zero_a = alpha.re == 0.0 && alpha.im == 0.0, one_b = beta.re == 1.0 && beta.im == 0.0;
    const int quick = g->m == 0 || g->n == 0 || ((zero_a || g->k == 0) && one_b);
    const int scale = !quick && (zero_a || g->k == 0); /* sub(C) = beta sub(C), A and B not read */
    const int ra = op_n(g->ta) ? g->m : g->k, ca = op_n(g->ta) ? g->k : g->m; /* sub(A) */
    const int rb = op_n(g->tb) ? g->k : g->n, cb = op_n(g->tb) ? g->n : g->k; /* sub(B) */
    if (!quick && !scale &&
        (!one_block(&g->c, g->ic, g->m, g->jc, g->n, grid, &pcx) ||
         !one_block(&g->a, g->ia, ra, g->ja, ca, grid, &pa) ||
         !one_block(&g->b, g->ib, rb, g->jb, cb, grid, &pb) || pa.pr != pcx.pr || pa.pc != pcx.pc ||
         pb.pr != pcx.pr || pb.pc != pcx.pc))
        return 0;
    const int info = dmxsp_gemm_check(g, grid, msg, sizeof msg);
    if (info != 0) {
        illegal(g->a.ctxt, name, info, msg);
        return 1;
    }
    if (scale) { /* step 4 below: each process its own elements of sub(C) (beta = 0 writes 0) */
        scale_local(name, t, g, grid, c, beta);
        dmxsp_count_gemm();
        return 1;
    }
    if (quick)
        return 1; /* PDGEMM's quick return */
    dmxsp_count_gemm();
    dmxsp_gemm_path_one_process();
    if (grid[2] != pcx.pr || grid[3] != pcx.pc)
        return 1; /* no part of sub(C) here */
    const size_t es = dmx_dtype_size(t);
    if (dmxsp_gemm_meet(c, g->c.lld, pcx.lr, pcx.lc, g->m, g->n, a, g->a.lld, pa.lr, pa.lc, ra, ca,
                        es) ||
        dmxsp_gemm_meet(c, g->c.lld, pcx.lr, pcx.lc, g->m, g->n, b, g->b.lld, pb.lr, pb.lc, rb, cb,
                        es))
        die(MPI_COMM_WORLD, name, "sub(C) shares memory with sub(A) or sub(B) on this process");
    dmxsp_gemm_local(t, g->ta, g->tb, g->m, g->n, g->k, alpha,
                     (const char *)a + (size_t)(pa.lr + pa.lc * g->a.lld) * es, g->a.lld,
                     (const char *)b + (size_t)(pb.lr + pb.lc * g->b.lld) * es, g->b.lld, beta,
                     (char *)c + (size_t)(pcx.lr + pcx.lc * g->c.lld) * es, g->c.lld);
    if (dmxsp_gemm_settings()->profile) {
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr,
                "dmx profile rank %d: %s %c%c %d x %d x %d: one local multiply (its operands on "
                "one process)\n",
                rank, name, g->ta, g->tb, g->m, g->n, g->k);
    }
    return 1;
}

static dmx_scalar sc_s(const float *v)
{
    return (dmx_scalar){v[0], 0.0};
}
static dmx_scalar sc_d(const double *v)
{
    return (dmx_scalar){v[0], 0.0};
}
static dmx_scalar sc_c(const float *v)
{
    return (dmx_scalar){v[0], v[1]};
}
static dmx_scalar sc_z(const double *v)
{
    return (dmx_scalar){v[0], v[1]};
}

/* Dereference one call into sp_gemm_args, the descriptors read by the PBLAS' rule. */
static void args(sp_gemm_args *g, const char *ta, const char *tb, const int *m, const int *n,
                 const int *k, const int *ia, const int *ja, const int *desca, const int *ib,
                 const int *jb, const int *descb, const int *ic, const int *jc, const int *descc)
{
    g->ta = *ta, g->tb = *tb, g->m = *m, g->n = *n, g->k = *k;
    g->ia = *ia, g->ja = *ja, g->ib = *ib, g->jb = *jb, g->ic = *ic, g->jc = *jc;
    dmxsp_desc_read(desca, 1, &g->a);
    dmxsp_desc_read(descb, 1, &g->b);
    dmxsp_desc_read(descc, 1, &g->c);
}

#define SP_DEFINE_GEMM(ch, R, DT, UP, SPT)                                                         \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##gemm_)(                                        \
        const char *ta, const char *tb, const int *m, const int *n, const int *k, const R *alpha,  \
        R *a, const int *ia, const int *ja, const int *desca, R *b, const int *ib, const int *jb,  \
        const int *descb, const R *beta, R *c, const int *ic, const int *jc, const int *descc);    \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##gemm_)(                                        \
        const char *ta, const char *tb, const int *m, const int *n, const int *k, const R *alpha,  \
        R *a, const int *ia, const int *ja, const int *desca, R *b, const int *ib, const int *jb,  \
        const int *descb, const R *beta, R *c, const int *ic, const int *jc, const int *descc)     \
    {                                                                                              \
        sp_gemm_args g;                                                                            \
        args(&g, ta, tb, m, n, k, ia, ja, desca, ib, jb, descb, ic, jc, descc);                    \
        if (dmxsp_gemm_one_process_allowed() &&                                                    \
            one_owner("P" UP "GEMM", DT, &g, sc_##ch(alpha), a, b, sc_##ch(beta), c))              \
            return;                                                                                \
        if (dmxsp_gemm_tiny(SPT, *m, *n, *k)) {                                                    \
            dmxsp_gemm_next(SPT)(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, \
                                 c, ic, jc, descc);                                                \
            return;                                                                                \
        }                                                                                          \
        if (dmxsp_gemm_to_scalapack(SPT, &g)) {                                                    \
            dmxsp_gemm_next(SPT)(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, \
                                 c, ic, jc, descc);                                                \
            return;                                                                                \
        }                                                                                          \
        gemm("P" UP "GEMM", DT, &g, sc_##ch(alpha), a, b, sc_##ch(beta), c);                       \
    }

SP_DEFINE_GEMM(s, float, DMX_FLOAT, "S", SP_S)
SP_DEFINE_GEMM(d, double, DMX_DOUBLE, "D", SP_D)
SP_DEFINE_GEMM(c, float, DMX_CFLOAT, "C", SP_C)
SP_DEFINE_GEMM(z, double, DMX_CDOUBLE, "Z", SP_Z)
