/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply plan: argument checks and agreement, the algorithm's layouts (custom layouts
 * over the plan's communicator, one column-major block per grid rank), the redistribution plans
 * that bring A and B in and C back, execution, and the one-shot dmx_gemm.
 *
 * Layouts. C (m x n) is split into pr x pc near-equal blocks (ceil(m/pr) rows per block row,
 * so a block-cyclic layout with those block sizes on the same 'R' grid fits as is). SUMMA and
 * HSUMMA split A's k columns over pc and B's k rows over pr; Cannon splits k over q for both
 * and places the blocks already skewed (rank (i,j) starts with A(i, i+j) and B(i+j, j), mod q),
 * so the preskew is part of the redistribution and costs no extra step.
 *
 * Temporary memory per rank: A's, B's and C's local blocks when they are redistributed
 * (m*k/p, k*n/p, m*n/p elements on a balanced grid), plus the algorithm's panel buffers
 * (docs/gemm.md): all allocated at plan creation, reported in info.temp_bytes. */
#include "comm.h"
#include "dmx/gemm.h"
#include "gemm_internal.h"
#include "layout.h"

#include <string.h>

static void split_even(int64_t n, int parts, int64_t *x)
{
    int64_t blk = parts > 0 ? (n + parts - 1) / parts : 0;
    for (int i = 0; i <= parts; i++)
        x[i] = i * blk < n ? i * blk : n;
}

enum { OWN_A, OWN_B, OWN_C };

/* Rank owning grid block (i, j) of operand `which`. */
static int owner(const dmx_gemm_plan *g, int which, int i, int j)
{
    int q = g->pr;
    if (g->info.alg != DMX_GEMM_CANNON || which == OWN_C)
        return i * g->pc + j;
    if (which == OWN_A)
        return i * q + (j - i + q) % q;
    return ((i - j + q) % q) * q + j;
}

/* Custom layout of an operand split by rs (nr parts) x cs (nc parts), empty parts dropped;
 * this rank's block (bi, bj) (-1: none) lives at data with leading dimension ld. */
static dmx_status make_layout(dmx_gemm_plan *g, int which, int nr, const int64_t *rs, int nc,
                              const int64_t *cs, int bi, int bj, void *data, int64_t ld,
                              dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *r2 = dmxi_malloc(nr + 1, sizeof(int64_t)), *c2 = dmxi_malloc(nc + 1, sizeof(int64_t));
    int *ri = dmxi_malloc(nr, sizeof(int)), *ci = dmxi_malloc(nc, sizeof(int));
    int *own = NULL;
    int nr2 = 0, nc2 = 0;
    dmx_block blk;
    int64_t nloc = 0;
    DMXI_CHECK(r2 && c2 && ri && ci, DMX_ERR_ALLOC, "out of memory for a layout");
    r2[0] = 0;
    c2[0] = 0;
    for (int i = 0; i < nr; i++)
        if (rs[i + 1] > rs[i]) {
            ri[nr2] = i;
            r2[++nr2] = rs[i + 1];
        }
    for (int j = 0; j < nc; j++)
        if (cs[j + 1] > cs[j]) {
            ci[nc2] = j;
            c2[++nc2] = cs[j + 1];
        }
    own = dmxi_malloc((int64_t)nr2 * nc2, sizeof(int));
    DMXI_CHECK(own != NULL, DMX_ERR_ALLOC, "out of memory for a layout");
    memset(&blk, 0, sizeof blk);
    for (int i = 0; i < nr2; i++)
        for (int j = 0; j < nc2; j++) {
            own[i * nc2 + j] = owner(g, which, ri[i], ci[j]);
            if (ri[i] == bi && ci[j] == bj) {
                blk.brow = i;
                blk.bcol = j;
                blk.data = data;
                blk.ld = ld;
                blk.order = DMX_COL_MAJOR;
                nloc = 1;
            }
        }
    DMXI_TRY(
        dmx_layout_create_custom(g->comm, rs[nr], cs[nc], nr2, r2, nc2, c2, own, nloc, &blk, out));
cleanup:
    free(r2);
    free(c2);
    free(ri);
    free(ci);
    free(own);
    return st;
}

/* 1 if the caller's layout u holds on this rank exactly the column-major block
 * [r0, r0+rows) x [c0, c0+cols) (nothing if it is empty); *data, *ld describe it. */
static int fits(const dmx_gemm_plan *g, const dmx_layout *u, int64_t r0, int64_t c0, int64_t rows,
                int64_t cols, void **data, int64_t *ld)
{
    int64_t nloc = 0, br0, bc0, brows, bcols;
    dmx_order ord;
    *data = NULL;
    *ld = rows > 0 ? rows : 1;
    if (dmx_layout_get_num_local_blocks(u, &nloc) != DMX_SUCCESS)
        return 0;
    if (rows == 0 || cols == 0)
        return nloc == 0;
    if (nloc != 1 || dmx_layout_get_local_block(u, 0, g->dtype, &br0, &bc0, &brows, &bcols, data,
                                                ld, &ord) != DMX_SUCCESS)
        return 0;
    return br0 == r0 && bc0 == c0 && brows == rows && bcols == cols && ord == DMX_COL_MAJOR &&
           *ld >= rows && *ld <= INT_MAX;
}

/* 1 if x and y are the same nonempty layout or some element of x shares memory with some element
 * of y on this rank (layout/layout_alias.c: views of one array compare their global windows, so
 * disjoint submatrices of one block-cyclic array pass although their local memory interleaves;
 * unrelated layouts compare their local runs); -1 out of memory. */
static int overlaps(const dmx_layout *x, const dmx_layout *y, dmx_dtype t)
{
    int hit = 0;
    if (x == y)
        return x->m > 0 && x->n > 0;
    if (dmxi_layouts_alias(x, y, dmx_dtype_size(t), &hit) != DMX_SUCCESS)
        return -1;
    return hit;
}

/* Bring one operand (0 A, 1 B) into the algorithm's layout, or note it fits. */
static dmx_status setup_operand(dmx_gemm_plan *g, int which)
{
    dmx_status st = DMX_SUCCESS;
    int in = g->myr >= 0, cannon = g->info.alg == DMX_GEMM_CANNON, q = g->pr;
    int bi = -1, bj = -1, nr, nc, fit, allfit = 0;
    const int64_t *rs, *cs;
    int64_t rows = 0, cols = 0, ld = 1, cap = 0;
    void *data = NULL;
    if (which == OWN_A) {
        rs = g->rows, nr = g->pr, cs = g->ka, nc = cannon ? q : g->pc;
        if (in)
            bi = g->myr, bj = cannon ? (g->myr + g->myc) % q : g->myc;
    } else {
        rs = g->kb, nr = cannon ? q : g->pr, cs = g->cols, nc = g->pc;
        if (in)
            bi = cannon ? (g->myr + g->myc) % q : g->myr, bj = g->myc;
    }
    if (in) {
        rows = rs[bi + 1] - rs[bi];
        cols = cs[bj + 1] - cs[bj];
    }
    const dmx_layout *u = which == OWN_A ? g->ua : g->ub;
    dmx_op op = which == OWN_A ? g->ta : g->tb;
    fit = op == DMX_OP_N && !cannon &&
          fits(g, u, in ? rs[bi] : 0, in ? cs[bj] : 0, rows, cols, &data, &ld);
    DMXI_MPI(MPI_Allreduce(&fit, &allfit, 1, MPI_INT, MPI_MIN, g->comm));
    if (which == OWN_A)
        g->info.a_in_place = allfit;
    else
        g->info.b_in_place = allfit;
    /* Cannon shifts its blocks, so it always works on its own copies (sized for the widest k
     * block, and skewed, so a caller's layout never fits); SUMMA and HSUMMA read a fitting
     * operand where it is. */
    if (allfit) {
        if (which == OWN_A)
            g->a = data, g->lda = ld;
        else
            g->b = data, g->ldb = ld;
        goto cleanup;
    }
    if (cannon) {
        int64_t kmax = g->ka[1] - g->ka[0];
        cap = which == OWN_A ? rows * kmax : kmax * cols;
    } else {
        cap = rows * cols;
    }
    void *mem = dmxi_malloc(cap, g->esz);
    DMXI_CHECK(mem != NULL, DMX_ERR_ALLOC, "out of memory for an operand block");
    g->info.temp_bytes += cap * (int64_t)g->esz;
    int64_t myld = rows > 0 ? rows : 1;
    if (which == OWN_A)
        g->a_own = g->a = mem, g->lda = myld;
    else
        g->b_own = g->b = mem, g->ldb = myld;
    dmx_layout **l = which == OWN_A ? &g->la : &g->lb;
    DMXI_TRY(make_layout(g, which, nr, rs, nc, cs, bi, bj, mem, myld, l));
    dmx_transform tr;
    memset(&tr, 0, sizeof tr);
    tr.dtype = g->dtype;
    tr.op = op;
    tr.alpha.re = 1.0;
    tr.b = u;
    tr.a = *l;
    DMXI_TRY(dmx_plan_create(1, &tr, which == OWN_A ? &g->pa : &g->pb));
cleanup:
    return st;
}

/* C: written in place when it fits, else into a block of the plan's that one more plan adds
 * into the caller's C (C = 1*block + beta*C, so beta is applied there). */
static dmx_status setup_c(dmx_gemm_plan *g)
{
    dmx_status st = DMX_SUCCESS;
    int in = g->myr >= 0, fit, allfit = 0;
    int64_t rows = 0, cols = 0, ld = 1;
    void *data = NULL;
    if (in) {
        rows = g->rows[g->myr + 1] - g->rows[g->myr];
        cols = g->cols[g->myc + 1] - g->cols[g->myc];
    }
    fit =
        fits(g, g->uc, in ? g->rows[g->myr] : 0, in ? g->cols[g->myc] : 0, rows, cols, &data, &ld);
    DMXI_MPI(MPI_Allreduce(&fit, &allfit, 1, MPI_INT, MPI_MIN, g->comm));
    g->info.c_in_place = allfit;
    if (allfit) {
        g->c = data, g->ldc = ld;
        goto cleanup;
    }
    g->c_own = g->c = dmxi_malloc(rows * cols, g->esz);
    DMXI_CHECK(g->c != NULL, DMX_ERR_ALLOC, "out of memory for C's block");
    g->info.temp_bytes += rows * cols * (int64_t)g->esz;
    g->ldc = rows > 0 ? rows : 1;
    DMXI_TRY(make_layout(g, OWN_C, g->pr, g->rows, g->pc, g->cols, in ? g->myr : -1,
                         in ? g->myc : -1, g->c, g->ldc, &g->lc));
    dmx_transform tr;
    memset(&tr, 0, sizeof tr);
    tr.dtype = g->dtype;
    tr.op = DMX_OP_N;
    tr.alpha.re = 1.0;
    tr.beta = g->beta;
    tr.b = g->lc;
    tr.a = g->uc;
    DMXI_TRY(dmx_plan_create(1, &tr, &g->pcback));
cleanup:
    return st;
}

/* The grid's splits, my position, the row/column (and HSUMMA group) communicators and the
 * panel buffers. */
static dmx_status setup_grid(dmx_gemm_plan *g)
{
    dmx_status st = DMX_SUCCESS;
    int cannon = g->info.alg == DMX_GEMM_CANNON;
    int in = g->rank < g->pr * g->pc;
    g->myr = in ? g->rank / g->pc : -1;
    g->myc = in ? g->rank % g->pc : -1;
    g->rows = dmxi_malloc(g->pr + 1, sizeof(int64_t));
    g->cols = dmxi_malloc(g->pc + 1, sizeof(int64_t));
    g->ka = dmxi_malloc(g->pc + 1, sizeof(int64_t));
    g->kb = dmxi_malloc(g->pr + 1, sizeof(int64_t));
    DMXI_CHECK(g->rows && g->cols && g->ka && g->kb, DMX_ERR_ALLOC, "out of memory for splits");
    split_even(g->m, g->pr, g->rows);
    split_even(g->n, g->pc, g->cols);
    split_even(g->k, g->pc, g->ka);
    split_even(g->k, g->pr, g->kb);
    DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myr : MPI_UNDEFINED, g->myc, &g->row));
    DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myc : MPI_UNDEFINED, g->myr, &g->col));
    if (g->info.alg == DMX_GEMM_HSUMMA) {
        int sc = g->pc / g->gc, sr = g->pr / g->gr;
        DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myr * g->gc + g->myc / sc : MPI_UNDEFINED, g->myc,
                                &g->row_group));
        DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myr * sc + g->myc % sc : MPI_UNDEFINED, g->myc,
                                &g->row_cross));
        DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myc * g->gr + g->myr / sr : MPI_UNDEFINED, g->myr,
                                &g->col_group));
        DMXI_MPI(MPI_Comm_split(g->comm, in ? g->myc * sr + g->myr % sr : MPI_UNDEFINED, g->myr,
                                &g->col_cross));
    }
    /* No panel is wider than the widest piece of k cut at both splits, so the buffers are
     * never wider than that (at most the local operand's k extent). */
    int64_t piece =
        g->ka[1] - g->ka[0] < g->kb[1] - g->kb[0] ? g->ka[1] - g->ka[0] : g->kb[1] - g->kb[0];
    if (!cannon && piece > 0) { /* the widths the panels really have (info reports them) */
        g->info.panel = g->info.panel < piece ? g->info.panel : piece;
        g->info.outer_panel = g->info.outer_panel < piece ? g->info.outer_panel : piece;
    }
    if (!in)
        goto cleanup;
    int64_t ml = g->rows[g->myr + 1] - g->rows[g->myr];
    int64_t nl = g->cols[g->myc + 1] - g->cols[g->myc];
    int64_t pw = g->info.panel, ow = g->info.outer_panel;
    int64_t wa = pw, wb = wa, nbuf = 2;
    if (cannon) {
        nbuf = 1; /* buffer 0 is the operand block itself */
        wa = wb = g->ka[1] - g->ka[0];
    }
    for (int i = 0; i < 4; i++) {
        int64_t cnt = i < 2 ? ml * wa : wb * nl;
        if (i % 2 >= nbuf)
            continue;
        if (g->info.alg == DMX_GEMM_HSUMMA) /* two inner + three outer panels */
            cnt = (i < 2 ? ml : nl) * (i % 2 == 0 ? 2 * pw : 3 * ow);
        g->work[i] = dmxi_malloc(cnt, g->esz);
        DMXI_CHECK(g->work[i] != NULL, DMX_ERR_ALLOC, "out of memory for panel buffers");
        g->info.temp_bytes += cnt * (int64_t)g->esz;
    }
cleanup:
    return st;
}

/* Local checks whose outcome every rank then agrees on. */
static dmx_status check_args(MPI_Comm comm, dmx_dtype dtype, dmx_op ta, dmx_op tb,
                             const dmx_layout *a, const dmx_layout *b, const dmx_layout *c,
                             int64_t dims[3])
{
    dmx_status st = DMX_SUCCESS;
    int64_t am, an, bm, bn, cm, cn;
    (void)comm;
    DMXI_CHECK(a != NULL && b != NULL && c != NULL, DMX_ERR_NULL, "a layout is NULL");
    DMXI_CHECK(dmx_dtype_size(dtype) != 0, DMX_ERR_ARG, "invalid dtype %d", (int)dtype);
    DMXI_CHECK(ta >= DMX_OP_N && ta <= DMX_OP_C && tb >= DMX_OP_N && tb <= DMX_OP_C, DMX_ERR_ARG,
               "invalid op");
    DMXI_TRY(dmx_layout_get_size(a, &am, &an));
    DMXI_TRY(dmx_layout_get_size(b, &bm, &bn));
    DMXI_TRY(dmx_layout_get_size(c, &cm, &cn));
    int64_t m = ta == DMX_OP_N ? am : an, ka = ta == DMX_OP_N ? an : am;
    int64_t kb = tb == DMX_OP_N ? bm : bn, n = tb == DMX_OP_N ? bn : bm;
    DMXI_CHECK(ka == kb, DMX_ERR_LAYOUT,
               "inner dimensions do not match: op(A) is %lld x %lld, "
               "op(B) is %lld x %lld",
               (long long)m, (long long)ka, (long long)kb, (long long)n);
    DMXI_CHECK(cm == m && cn == n, DMX_ERR_LAYOUT, "C is %lld x %lld, op(A)*op(B) is %lld x %lld",
               (long long)cm, (long long)cn, (long long)m, (long long)n);
    int oa = overlaps(c, a, dtype), ob = overlaps(c, b, dtype);
    DMXI_CHECK(oa >= 0 && ob >= 0, DMX_ERR_ALLOC, "out of memory checking overlap");
    DMXI_CHECK(!oa && !ob, DMX_ERR_ARG, "C overlaps A or B (the same layout or memory)");
    dims[0] = m, dims[1] = n, dims[2] = ka;
cleanup:
    return st;
}

/* The address of this rank's first local block of u (NULL when it holds none): where an
 * in-place operand's one block is now, and for any block-cyclic layout a mark that moves with
 * dmx_layout_rebind. */
static void *first_block(const dmx_layout *u, dmx_dtype t)
{
    int64_t nloc = 0, rows, cols, ld;
    dmx_order ord;
    void *d = NULL;
    if (dmx_layout_get_num_local_blocks(u, &nloc) != DMX_SUCCESS || nloc < 1 ||
        dmx_layout_get_local_block(u, 0, t, NULL, NULL, &rows, &cols, &d, &ld, &ord) != DMX_SUCCESS)
        return NULL;
    return d;
}

/* Where each operand's first block is now, so that the first execution too sees a rebind made
 * after planning. */
static void note_blocks(dmx_gemm_plan *g)
{
    const dmx_layout *lay[3] = {g->ua, g->ub, g->uc};
    for (int i = 0; i < 3; i++)
        g->seen[i] = first_block(lay[i], g->dtype);
    g->seen_set = 1;
}

/* The plan's configuration (g->info) from the model. The operands' layouts are global
 * descriptions: every rank computes the same choice from them; the model charges each grid the
 * redistributions into it. Local. */
static dmx_status choose(dmx_gemm_plan *g, const dmx_layout *a, const dmx_layout *b,
                         const dmx_layout *c, int nodes, const dmx_gemm_options *opt)
{
    dmxi_gemm_data data;
    memset(&data, 0, sizeof data);
    dmx_status st = dmxi_gemm_data_from_layouts(g->comm, a, b, c, g->ta, g->tb, &data);
    if (st == DMX_SUCCESS)
        st = dmxi_gemm_choose(g->dtype, g->m, g->n, g->k, g->p, nodes, opt, &data, &g->info);
    dmxi_gemm_data_free(&data);
    return st;
}

dmx_status dmx_gemm_plan_create(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb,
                                dmx_scalar alpha, const dmx_layout *a, const dmx_layout *b,
                                dmx_scalar beta, dmx_layout *c, const dmx_gemm_options *options,
                                dmx_gemm_plan **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = NULL;
    int64_t dims[3] = {0, 0, 0};
    dmx_gemm_options opt;
    if (out != NULL)
        *out = NULL;
    if (comm == MPI_COMM_NULL) /* nobody to agree with: the others must not be left waiting */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_gemm: the communicator is MPI_COMM_NULL on this rank, which leaves "
                          "no communicator to agree on");
    dmx_gemm_options_init(&opt);
    if (options)
        opt = *options;
    dmx_status local = out != NULL ? check_args(comm, dtype, transa, transb, a, b, c, dims)
                                   : dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__,
                                                "dmx_gemm_plan_create: out is NULL");
    if (local == DMX_SUCCESS &&
        (opt.alg < DMX_GEMM_AUTO || opt.alg > DMX_GEMM_CANNON || opt.prow < 0 || opt.pcol < 0 ||
         opt.groups < 0 || opt.panel < 0 || opt.outer_panel < 0))
        local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__, "invalid gemm options");
    /* before the model's search, whose time grows with k */
    if (local == DMX_SUCCESS && (dims[0] > INT_MAX || dims[1] > INT_MAX || dims[2] > INT_MAX))
        local = dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__,
                           "op(A)*op(B) is %lld x %lld with k = %lld: dmx_gemm takes m, n and k "
                           "up to %d (its local multiplies call CBLAS, whose sizes are int)",
                           (long long)dims[0], (long long)dims[1], (long long)dims[2], INT_MAX);
    DMXI_TRY(dmxi_agree(comm, local));
    uint64_t h = dmxi_hash(DMXI_HASH_INIT, dims, sizeof dims);
    int sc[4] = {(int)dtype, (int)transa, (int)transb, (int)opt.alg};
    h = dmxi_hash(h, sc, sizeof sc);
    h = dmxi_hash(h, &alpha, sizeof alpha);
    h = dmxi_hash(h, &beta, sizeof beta);
    DMXI_TRY(dmxi_agree_same(comm, h, "gemm arguments"));
    g = calloc(1, sizeof *g);
    DMXI_CHECK(g != NULL, DMX_ERR_ALLOC, "out of memory for a gemm plan");
    g->comm = g->row = g->col = MPI_COMM_NULL;
    g->row_cross = g->row_group = g->col_cross = g->col_group = MPI_COMM_NULL;
    /* A private duplicate (of dmx's one duplicate of comm; MPI_ERRORS_RETURN): the plans made on
     * it below take their communicators from it without a further duplicate. The nodes comm
     * spans, for the model (its broadcasts cost the network's figures, not shared memory's, once
     * the ranks span more than one node): counted at the first call on comm (collective then)
     * and kept with its record (core/comm.c). */
    dmxi_comm *rec = NULL;
    int nodes = 1;
    DMXI_TRY(dmxi_comm_get(comm, &rec));
    DMXI_TRY(dmxi_comm_dup(rec, &g->comm));
    DMXI_TRY(dmxi_comm_nodes(rec, &nodes));
    DMXI_MPI(MPI_Comm_size(g->comm, &g->p));
    DMXI_MPI(MPI_Comm_rank(g->comm, &g->rank));
    g->dtype = dtype, g->esz = dmx_dtype_size(dtype);
    g->ta = transa, g->tb = transb, g->alpha = alpha, g->beta = beta;
    g->m = dims[0], g->n = dims[1], g->k = dims[2];
    g->ua = a, g->ub = b, g->uc = c;
    g->overlap = opt.overlap;
#ifdef DMX_SIM_WAIT
    /* Simulation builds: the simulated ranks run one after another in one process, so a choice
     * every rank computes alike costs the simulator p times its own time (the torus search took
     * minutes of it at 16,384 ranks, docs/scale.md). Rank 0 chooses and broadcasts the result,
     * which costs the simulated time of one small broadcast. */
    local = g->rank == 0 ? choose(g, a, b, c, nodes, &opt) : DMX_SUCCESS;
    DMXI_TRY(dmxi_agree(g->comm, local));
    DMXI_MPI(MPI_Bcast(&g->info, (int)sizeof g->info, MPI_BYTE, 0, g->comm));
#else
    DMXI_TRY(dmxi_agree(g->comm, choose(g, a, b, c, nodes, &opt)));
#endif
    g->pr = g->info.prow, g->pc = g->info.pcol;
    g->gr = g->info.group_rows, g->gc = g->info.group_cols;
    g->info.m = g->m, g->info.n = g->n, g->info.k = g->k;
    DMXI_TRY(dmxi_agree(g->comm, setup_grid(g)));
    DMXI_TRY(setup_operand(g, OWN_A));
    DMXI_TRY(setup_operand(g, OWN_B));
    DMXI_TRY(setup_c(g));
    note_blocks(g);
    *out = g;
    g = NULL;
cleanup:
    return dmxi_gemm_release(g, st);
}

/* Follow dmx_layout_rebind: in-place operands take their block's current address (the
 * redistribution plans follow by themselves); when a layout moved since the last execution,
 * C is checked against A and B again, as planning did. A finding is local, so it goes to the
 * error handler (other ranks may already be multiplying). */
static dmx_status follow_rebind(dmx_gemm_plan *g)
{
    const dmx_layout *lay[3] = {g->ua, g->ub, g->uc};
    void **ptr[3] = {&g->a, &g->b, &g->c};
    const int inplace[3] = {g->info.a_in_place, g->info.b_in_place, g->info.c_in_place};
    int moved = 0;
    for (int i = 0; i < 3; i++) {
        void *d = first_block(lay[i], g->dtype);
        moved |= g->seen_set && d != g->seen[i];
        g->seen[i] = d;
        if (inplace[i])
            *ptr[i] = d;
    }
    g->seen_set = 1;
    if (moved) {
        int oa = overlaps(g->uc, g->ua, g->dtype), ob = overlaps(g->uc, g->ub, g->dtype);
        if (oa < 0 || ob < 0)
            return dmxi_fatal(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory checking overlap");
        if (oa || ob)
            return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                              "C overlaps A or B (the same memory) after dmx_layout_rebind");
    }
    return DMX_SUCCESS;
}

dmx_status dmx_gemm_plan_execute(dmx_gemm_plan *g)
{
    dmx_status st = DMX_SUCCESS;
    int updated = 0;
    if (g == NULL) /* no plan, no communicator: the others would wait for this rank */
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "dmx_gemm_plan_execute: the plan is NULL on this rank, which leaves no "
                          "communicator to agree on");
    DMXI_TRY(follow_rebind(g));
    g->info.bcasts = g->info.bcast_bytes = g->info.shifts = g->info.shift_bytes = 0;
    g->info.local_gemms = 0;
    if (g->pa)
        DMXI_TRY(dmx_plan_execute(g->pa));
    if (g->pb)
        DMXI_TRY(dmx_plan_execute(g->pb));
    dmx_scalar first = g->info.c_in_place ? g->beta : (dmx_scalar){0.0, 0.0};
    if (!dmxi_gemm_is_zero(g->alpha) && g->k > 0) {
        if (g->info.alg == DMX_GEMM_SUMMA)
            DMXI_TRY(dmxi_gemm_summa(g, first, &updated));
        else if (g->info.alg == DMX_GEMM_HSUMMA)
            DMXI_TRY(dmxi_gemm_hsumma(g, first, &updated));
        else
            DMXI_TRY(dmxi_gemm_cannon(g, first, &updated));
    }
    if (!updated && g->myr >= 0)
        dmxi_gemm_scale(g->dtype, g->rows[g->myr + 1] - g->rows[g->myr],
                        g->cols[g->myc + 1] - g->cols[g->myc], first, g->c, g->ldc);
    if (g->pcback)
        DMXI_TRY(dmx_plan_execute(g->pcback));
cleanup:
    return st;
}

dmx_status dmx_gemm(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb, dmx_scalar alpha,
                    const dmx_layout *a, const dmx_layout *b, dmx_scalar beta, dmx_layout *c,
                    const dmx_gemm_options *options)
{
    dmx_status st = DMX_SUCCESS;
    dmx_gemm_plan *g = NULL;
    DMXI_TRY(dmx_gemm_plan_create(comm, dtype, transa, transb, alpha, a, b, beta, c, options, &g));
    DMXI_TRY(dmx_gemm_plan_execute(g));
cleanup:
    return dmxi_gemm_release(g, st);
}
