/* SPDX-License-Identifier: BSD-3-Clause */
/* Error paths of the collective constructors (block-cyclic, mapped, custom, layouts known only
 * locally, views, plans): each invalid input on ONE rank only (the others valid), or a
 * description that differs between ranks. Every rank must return the expected code,
 * *out must stay NULL, user memory must be untouched, nothing may hang (finishing is the check;
 * the watchdog reports a hang), and a valid creation right after the failed one must still work.
 * Each case runs with the bad rank 0 and, where P > 1, the bad rank P-1.
 *
 * Cases marked "implied" check behaviour the header implies but the written semantics do not
 * spell out (e.g. NULL arguments that are not `out`).
 */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls that leave a rank no communicator to agree on (ntransforms < 1, transforms NULL) go to
 * the error handler; this one counts them and returns, so the call returns its error (every
 * rank passes the bad input in those cases, so none is left waiting). */
static int handler_calls;
static void counting_handler(dmx_status st, const char *message)
{
    (void)st;
    (void)message;
    handler_calls++;
}

static void expect(dmxt_checker *C, dmx_status got, dmx_status want, const char *what)
{
    char m[500];
    if (dmxt_expect_status(C->ctx, got, want, what, m, sizeof m))
        dmxt_fail(C, "%s", m);
}

static void expect_null(dmxt_checker *C, const void *out, const char *what)
{
    if (out != NULL)
        dmxt_fail(C, "%s failed but *out = %p, not NULL", what, out);
}

static void expect_fill(dmxt_checker *C, const dmxt_matrix *M, int k, const char *what)
{
    char m[500] = "";
    if (dmxt_check_fill(M, k, m, sizeof m))
        dmxt_fail(C, "%s wrote user memory: %s", what, m);
}

/* ---------------------------------------------------------------------------------------- */
/* Block-cyclic and mapped constructors                                                      */
/* ---------------------------------------------------------------------------------------- */

enum {
    BC_M_NEG,
    BC_N_NEG,
    BC_MB_ZERO,
    BC_NB_NEG,
    BC_PROW_ZERO,
    BC_PCOL_NEG,
    BC_GRID_TOO_BIG,
    BC_RSRC_NEG,
    BC_RSRC_BIG,
    BC_CSRC_BIG,
    BC_ORDER_X,
    BC_ORDER_NUL,
    BC_LLD_SMALL,
    BC_LLD_ZERO,
    BC_OUT_NULL,
    BC_MAP_DUP,
    BC_MAP_HIGH,
    BC_MAP_NEG,
    BC_MAP_NULL,
    BC_OK_LOWER_R,
    BC_OK_LOWER_C,
    BC_OK_SUBGRID
};

typedef struct bccase {
    int mut;
    int mapped;
    dmx_status want;
    int min_p;
    const char *name;
} bccase;

static const bccase bc_cases[] = {
    {BC_M_NEG, 0, DMX_ERR_ARG, 1, "m = -1"},
    {BC_N_NEG, 0, DMX_ERR_ARG, 1, "n = -3"},
    {BC_MB_ZERO, 0, DMX_ERR_ARG, 1, "mb = 0"},
    {BC_NB_NEG, 0, DMX_ERR_ARG, 1, "nb = -2"},
    {BC_PROW_ZERO, 0, DMX_ERR_ARG, 1, "prow = 0"},
    {BC_PCOL_NEG, 0, DMX_ERR_ARG, 1, "pcol = -1"},
    {BC_GRID_TOO_BIG, 0, DMX_ERR_ARG, 1, "prow*pcol = P+1 > comm size"},
    {BC_RSRC_NEG, 0, DMX_ERR_ARG, 1, "rsrc = -1"},
    {BC_RSRC_BIG, 0, DMX_ERR_ARG, 1, "rsrc = prow"},
    {BC_CSRC_BIG, 0, DMX_ERR_ARG, 1, "csrc = pcol"},
    {BC_ORDER_X, 0, DMX_ERR_ARG, 1, "grid_order = 'X'"},
    {BC_ORDER_NUL, 0, DMX_ERR_ARG, 1, "grid_order = 0"},
    {BC_LLD_SMALL, 0, DMX_ERR_ARG, 1, "lld = local rows - 1"},
    {BC_LLD_ZERO, 0, DMX_ERR_ARG, 1, "lld = 0"},
    {BC_OUT_NULL, 0, DMX_ERR_NULL, 1, "out = NULL"},
    {BC_M_NEG, 1, DMX_ERR_ARG, 1, "mapped: m = -1"},
    {BC_MB_ZERO, 1, DMX_ERR_ARG, 1, "mapped: mb = 0"},
    {BC_GRID_TOO_BIG, 1, DMX_ERR_ARG, 1, "mapped: prow*pcol = P+1 > comm size"},
    {BC_CSRC_BIG, 1, DMX_ERR_ARG, 1, "mapped: csrc = pcol"},
    {BC_LLD_SMALL, 1, DMX_ERR_ARG, 1, "mapped: lld = local rows - 1"},
    {BC_OUT_NULL, 1, DMX_ERR_NULL, 1, "mapped: out = NULL"},
    {BC_MAP_DUP, 1, DMX_ERR_ARG, 2, "mapped: duplicate rank in grid_ranks"},
    {BC_MAP_HIGH, 1, DMX_ERR_ARG, 1, "mapped: grid rank = comm size"},
    {BC_MAP_NEG, 1, DMX_ERR_ARG, 1, "mapped: grid rank = -1"},
    {BC_MAP_NULL, 1, DMX_ERR_NULL, 1, "mapped: grid_ranks = NULL (implied)"},
    {BC_OK_LOWER_R, 0, DMX_SUCCESS, 1, "valid: grid_order 'r'"},
    {BC_OK_LOWER_C, 0, DMX_SUCCESS, 1, "valid: grid_order 'c'"},
    {BC_OK_SUBGRID, 1, DMX_SUCCESS, 1, "valid: mapped on a subset of ranks, reversed"},
};

/* The valid base: 9 x (3P+1) in 2 x 3 blocks on a 1 x P grid, so every rank owns rows and
 * columns. Mapped: grid_ranks reversed. */
static void bc_base(dmxt_matrix *M, int mapped, int P)
{
    int *ranks = malloc(sizeof(int) * (size_t)P);
    for (int i = 0; i < P; i++)
        ranks[i] = P - 1 - i;
    dmxt_matrix_bc(M, MPI_COMM_WORLD, DMX_DOUBLE, 9, 3 * P + 1, 2, 3, 1, P, 'R',
                   mapped ? ranks : NULL, 0, 0, 1);
    free(ranks);
}

static void run_bc(dmxt_ctx *ctx, const bccase *c, int bad_rank, dmxt_checker *C)
{
    int P = ctx->size, me_bad = ctx->rank == bad_rank;
    dmxt_matrix M;
    if (c->mut == BC_OK_SUBGRID) { /* ranks P-1, ..., 1 in a 1 x (P-1) grid: rank 0 owns nothing */
        int sub[64], q = P > 1 ? P - 1 : 1;
        for (int i = 0; i < q; i++)
            sub[i] = P - 1 - i;
        dmxt_matrix_bc(&M, MPI_COMM_WORLD, DMX_DOUBLE, 9, 7, 2, 3, 1, q, 'R', sub, 0, 0, 1);
    } else {
        bc_base(&M, c->mapped, P);
    }
    dmxt_matrix_alloc(&M);
    dmxt_fill(&M, 3);
    int64_t m = M.m, n = M.n, mb = M.mb, nb = M.nb, lld = M.lld;
    int prow = M.prow, pcol = M.pcol, rsrc = M.rsrc, csrc = M.csrc;
    char order = M.grid_order;
    int *ranks = malloc(sizeof(int) * (size_t)(P + 1));
    memcpy(ranks, M.grid_ranks, sizeof(int) * (size_t)(prow * pcol));
    const int *rp = ranks;
    dmx_layout *out = NULL, **outp = &out;
    if (me_bad) {
        switch (c->mut) {
        case BC_M_NEG: m = -1; break;
        case BC_N_NEG: n = -3; break;
        case BC_MB_ZERO: mb = 0; break;
        case BC_NB_NEG: nb = -2; break;
        case BC_PROW_ZERO: prow = 0; break;
        case BC_PCOL_NEG: pcol = -1; break;
        case BC_GRID_TOO_BIG:
            prow = 1;
            pcol = P + 1;
            ranks[P] = P; /* distinct, so only the size is wrong for the plain case */
            break;
        case BC_RSRC_NEG: rsrc = -1; break;
        case BC_RSRC_BIG: rsrc = prow; break;
        case BC_CSRC_BIG: csrc = pcol; break;
        case BC_ORDER_X: order = 'X'; break;
        case BC_ORDER_NUL: order = '\0'; break;
        case BC_LLD_SMALL: lld = M.lrows - 1; break;
        case BC_LLD_ZERO: lld = 0; break;
        case BC_OUT_NULL: outp = NULL; break;
        case BC_MAP_DUP: ranks[1] = ranks[0]; break;
        case BC_MAP_HIGH: ranks[0] = P; break;
        case BC_MAP_NEG: ranks[P - 1] = -1; break;
        case BC_MAP_NULL: rp = NULL; break;
        }
    }
    if (c->mut == BC_OK_LOWER_R)
        order = 'r';
    if (c->mut == BC_OK_LOWER_C)
        order = 'c';
    void *local = dmxt_matrix_local(&M);
    dmx_status st;
    if (c->mapped)
        st = dmx_layout_create_block_cyclic_mapped(MPI_COMM_WORLD, m, n, mb, nb, prow, pcol, rp,
                                                   rsrc, csrc, local, lld, outp);
    else
        st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, n, mb, nb, prow, pcol, order, rsrc,
                                            csrc, local, lld, outp);
    expect(C, st, c->want, c->name);
    if (c->want != DMX_SUCCESS)
        expect_null(C, out, c->name);
    dmx_layout_destroy(&out);
    expect_fill(C, &M, 3, c->name);
    /* a valid creation right after the failed one */
    st = dmxt_matrix_create(&M);
    expect(C, st, DMX_SUCCESS, "valid create after the case");
    dmxt_matrix_free(&M);
    free(ranks);
}

/* ---------------------------------------------------------------------------------------- */
/* Custom constructor                                                                       */
/* ---------------------------------------------------------------------------------------- */

enum {
    C_RS0,
    C_RS_NONINC,
    C_RS_END,
    C_CS_END_BIG,
    C_OWNER_HIGH,
    C_OWNER_NEG,
    C_BROW_HIGH,
    C_BCOL_NEG,
    C_LD_COL,
    C_LD_ROW,
    C_DATA_NULL,
    C_MISSING,
    C_DUPLICATE,
    C_NOT_OWNED,
    C_DIFF_M,
    C_DIFF_SPLITS,
    C_DIFF_OWNERS,
    C_OUT_NULL,
    C_OK_EMPTY,
    C_OK_ROWMAJOR_PAD
};

typedef struct ccase {
    int mut;
    dmx_status want;
    int min_p;
    const char *name;
} ccase;

static const ccase c_cases[] = {
    {C_RS0, DMX_ERR_LAYOUT, 1, "rowsplits[0] = 1"},
    {C_RS_NONINC, DMX_ERR_LAYOUT, 1, "rowsplits not strictly increasing (0,0,7)"},
    {C_RS_END, DMX_ERR_LAYOUT, 1, "rowsplits end at m-1"},
    {C_CS_END_BIG, DMX_ERR_LAYOUT, 1, "colsplits end at n+1"},
    {C_OWNER_HIGH, DMX_ERR_LAYOUT, 1, "owner = comm size"},
    {C_OWNER_NEG, DMX_ERR_LAYOUT, 1, "owner = -1"},
    {C_BROW_HIGH, DMX_ERR_LAYOUT, 1, "block brow = nrb"},
    {C_BCOL_NEG, DMX_ERR_LAYOUT, 1, "block bcol = -1"},
    {C_LD_COL, DMX_ERR_LAYOUT, 1, "col-major block with ld = rows-1"},
    {C_LD_ROW, DMX_ERR_LAYOUT, 1, "row-major block with ld = cols-1"},
    {C_DATA_NULL, DMX_ERR_LAYOUT, 1, "NULL data for a nonempty block"},
    {C_MISSING, DMX_ERR_LAYOUT, 1, "a rank omits one of its blocks"},
    {C_DUPLICATE, DMX_ERR_LAYOUT, 1, "a rank passes one of its blocks twice"},
    {C_NOT_OWNED, DMX_ERR_LAYOUT, 2, "a rank passes a block another rank owns"},
    {C_DIFF_M, DMX_ERR_LAYOUT, 2, "m (and rowsplits) differ between ranks"},
    {C_DIFF_SPLITS, DMX_ERR_LAYOUT, 2, "colsplits differ between ranks"},
    {C_DIFF_OWNERS, DMX_ERR_LAYOUT, 2, "owners differ between ranks"},
    {C_OUT_NULL, DMX_ERR_NULL, 1, "out = NULL"},
    {C_OK_EMPTY, DMX_SUCCESS, 1, "valid: 0 x 5 with nrb = 0"},
    {C_OK_ROWMAJOR_PAD, DMX_SUCCESS, 1, "valid: the base with every block row-major, padded"},
};

/* The valid base: 7 x 5, rows [0,2,7] (or [0,2,4,7] if P > 6, so every rank owns a block),
 * cols [0,1,3,5], block b owned by rank b % P, mixed orders and padding.
 * variant 1: m = 8; 2: cols [0,2,3,5]; 3: owner of block 0 moved. */
static void c_base(dmxt_matrix *M, int P, int variant, int all_rowmajor)
{
    int64_t rs[4] = {0, 2, 7, 7}, cs[4] = {0, 1, 3, 5};
    int64_t nrb = 2;
    if (P > 6) {
        rs[2] = 4;
        nrb = 3;
    }
    int owners[9];
    dmx_order ord[9];
    int64_t pads[9];
    for (int b = 0; b < 9; b++) {
        owners[b] = b % P;
        ord[b] = (all_rowmajor || b % 3 == 1) ? DMX_ROW_MAJOR : DMX_COL_MAJOR;
        pads[b] = (all_rowmajor || b % 2) ? 2 : 0;
    }
    int64_t m = 7;
    if (variant == 1)
        m = rs[nrb] = 8;
    if (variant == 2)
        cs[1] = 2;
    if (variant == 3)
        owners[0] = 1 % P;
    dmxt_matrix_custom(M, MPI_COMM_WORLD, DMX_CFLOAT, m, 5, nrb, rs, 3, cs, owners, ord, pads);
}

static void run_custom(dmxt_ctx *ctx, const ccase *c, int bad_rank, dmxt_checker *C)
{
    int P = ctx->size, me_bad = ctx->rank == bad_rank;
    int variant = 0;
    if (me_bad)
        variant = c->mut == C_DIFF_M        ? 1
                  : c->mut == C_DIFF_SPLITS ? 2
                  : c->mut == C_DIFF_OWNERS ? 3
                                            : 0;
    dmxt_matrix M;
    c_base(&M, P, variant, c->mut == C_OK_ROWMAJOR_PAD);
    if (c->mut == C_OK_EMPTY) {
        dmxt_matrix_free(&M);
        int64_t rs[1] = {0}, cs[3] = {0, 2, 5};
        dmxt_matrix_custom(&M, MPI_COMM_WORLD, DMX_CFLOAT, 0, 5, 0, rs, 2, cs, NULL, NULL, NULL);
    }
    dmxt_matrix_alloc(&M);
    dmxt_fill(&M, 5);
    int64_t nrb = M.nrb, ncb = M.ncb, m = M.m, n = M.n;
    int64_t rs[8], cs[8];
    int owners[16];
    memcpy(rs, M.rsplits, sizeof(int64_t) * (size_t)(nrb + 1));
    memcpy(cs, M.csplits, sizeof(int64_t) * (size_t)(ncb + 1));
    if (nrb * ncb > 0)
        memcpy(owners, M.owners, sizeof(int) * (size_t)(nrb * ncb));
    dmx_block *ub = NULL;
    int64_t nloc = dmxt_matrix_user_blocks(&M, &ub);
    dmx_block *blocks = malloc(sizeof(dmx_block) * (size_t)(nloc + 2));
    memcpy(blocks, ub, sizeof(dmx_block) * (size_t)nloc);
    free(ub);
    void *foreign = NULL;
    dmx_layout *out = NULL, **outp = &out;
    if (me_bad) {
        switch (c->mut) {
        case C_RS0: rs[0] = 1; break;
        case C_RS_NONINC: rs[1] = 0; break;
        case C_RS_END: rs[nrb] = m - 1; break;
        case C_CS_END_BIG: cs[ncb] = n + 1; break;
        case C_OWNER_HIGH: owners[0] = P; break;
        case C_OWNER_NEG: owners[nrb * ncb - 1] = -1; break;
        case C_BROW_HIGH: blocks[0].brow = nrb; break;
        case C_BCOL_NEG: blocks[0].bcol = -1; break;
        case C_LD_COL:
        case C_LD_ROW: {
            int64_t b = blocks[0].brow * ncb + blocks[0].bcol;
            int64_t rows = rs[blocks[0].brow + 1] - rs[blocks[0].brow];
            int64_t cols = cs[blocks[0].bcol + 1] - cs[blocks[0].bcol];
            (void)b;
            blocks[0].order = c->mut == C_LD_COL ? DMX_COL_MAJOR : DMX_ROW_MAJOR;
            blocks[0].ld = (c->mut == C_LD_COL ? rows : cols) - 1;
            break;
        }
        case C_DATA_NULL: blocks[0].data = NULL; break;
        case C_MISSING: nloc--; break;
        case C_DUPLICATE: blocks[nloc++] = blocks[0]; break;
        case C_NOT_OWNED: {
            /* add a block owned by the next rank, with memory of its own */
            int other = (ctx->rank + 1) % P;
            for (int64_t b = 0; b < nrb * ncb; b++) {
                if (owners[b] != other)
                    continue;
                foreign = calloc(64, 8);
                blocks[nloc].brow = b / ncb;
                blocks[nloc].bcol = b % ncb;
                blocks[nloc].data = foreign;
                blocks[nloc].ld = 8;
                blocks[nloc].order = DMX_COL_MAJOR;
                nloc++;
                break;
            }
            break;
        }
        case C_OUT_NULL: outp = NULL; break;
        }
    }
    dmx_status st = dmx_layout_create_custom(MPI_COMM_WORLD, m, n, nrb, rs, ncb, cs, owners, nloc,
                                             blocks, outp);
    expect(C, st, c->want, c->name);
    if (c->want != DMX_SUCCESS)
        expect_null(C, out, c->name);
    dmx_layout_destroy(&out);
    expect_fill(C, &M, 5, c->name);
    free(blocks);
    free(foreign);
    dmxt_matrix_free(&M);
    /* a valid creation right after the failed one */
    c_base(&M, P, 0, 0);
    expect(C, dmxt_matrix_create(&M), DMX_SUCCESS, "valid create after the case");
    dmxt_matrix_free(&M);
}

/* ---------------------------------------------------------------------------------------- */
/* Layouts known only locally                                                               */
/* ---------------------------------------------------------------------------------------- */

enum {
    L_OUTSIDE,
    L_NEG,
    L_EMPTY_BLOCK,
    L_LD,
    L_DATA_NULL,
    L_OWN_OVERLAP,
    L_MISSING,
    L_DIFF_M,
    L_OUT_NULL,
    L_OVERFLOW,
    L_CROSS_OVERLAP,
    L_OK_EMPTY
};

typedef struct lcase {
    int mut;
    dmx_status want; /* DMX_ERR_INTERNAL here: any error, the same on every rank */
    int min_p;
    const char *name;
} lcase;

static const lcase l_cases[] = {
    {L_OUTSIDE, DMX_ERR_LAYOUT, 1, "local: a block starting at row m"},
    {L_NEG, DMX_ERR_LAYOUT, 1, "local: a block at column -1"},
    {L_EMPTY_BLOCK, DMX_ERR_LAYOUT, 1, "local: a block with 0 rows"},
    {L_LD, DMX_ERR_LAYOUT, 1, "local: a col-major block with ld = rows - 1"},
    {L_DATA_NULL, DMX_ERR_LAYOUT, 1, "local: NULL data"},
    {L_OWN_OVERLAP, DMX_ERR_LAYOUT, 1, "local: a rank passes one of its blocks twice"},
    {L_MISSING, DMX_ERR_LAYOUT, 1, "local: a rank omits one of its blocks (area < m*n)"},
    {L_DIFF_M, DMX_ERR_LAYOUT, 2, "local: m differs between ranks"},
    {L_OUT_NULL, DMX_ERR_NULL, 1, "local: out = NULL"},
    {L_OVERFLOW, DMX_ERR_INTERNAL, 1,
     "local: 2^32 x 2^32 with no blocks on any rank (m*n overflows int64; any error)"},
    {L_CROSS_OVERLAP, DMX_ERR_INTERNAL, 2,
     "local: a rank passes another rank's block instead of its own (same area; any error at "
     "create or plan)"},
    {L_OK_EMPTY, DMX_SUCCESS, 1, "valid: local 0 x 4 with no blocks"},
};

/* The valid base: 6 x 6, rows split into 1 x 3 tiles (i, 0..2) and (i, 3..5), tile t owned by
 * t % P (12 tiles of one shape: every rank up to 12 owns one). */
static void l_base(dmxt_matrix *M, int P, int64_t m)
{
    int64_t rects[4 * 12];
    int owners[12];
    dmx_order ord[12];
    int64_t pads[12];
    int nt = 0;
    for (int64_t i = 0; i < m; i++) {
        for (int h = 0; h < 2; h++, nt++) {
            int64_t *r = &rects[4 * nt];
            r[0] = i, r[1] = h ? 3 : 0, r[2] = 1, r[3] = 3;
            owners[nt] = nt % P;
            ord[nt] = h ? DMX_ROW_MAJOR : DMX_COL_MAJOR;
            pads[nt] = nt % 3;
        }
    }
    dmxt_matrix_local_tiles(M, MPI_COMM_WORLD, DMX_FLOAT, m, 6, nt, rects, owners, ord, pads);
}

/* Collective: the same non-success status everywhere? */
static void expect_any_error(dmxt_checker *C, dmx_status st, const char *what)
{
    int v[2] = {(int)st, -(int)st}, r[2];
    MPI_Allreduce(v, r, 2, MPI_INT, MPI_MAX, C->ctx->comm);
    if (st == DMX_SUCCESS || r[0] != -r[1])
        dmxt_fail(C, "%s returned %s (statuses over ranks %s .. %s), expected one error everywhere",
                  what, dmx_status_string(st), dmx_status_string((dmx_status)-r[1]),
                  dmx_status_string((dmx_status)r[0]));
}

static void run_local_layout(dmxt_ctx *ctx, const lcase *c, int bad_rank, dmxt_checker *C)
{
    int P = ctx->size, me_bad = ctx->rank == bad_rank;
    dmxt_matrix M;
    l_base(&M, P, (c->mut == L_DIFF_M && me_bad) ? 5 : 6);
    dmxt_matrix_alloc(&M);
    dmxt_fill(&M, 4);
    dmx_local_block *lb = NULL;
    int64_t nl = dmxt_matrix_local_blocks(&M, &lb);
    dmx_local_block *blocks = malloc(sizeof(dmx_local_block) * (size_t)(nl + 2));
    memcpy(blocks, lb, sizeof(dmx_local_block) * (size_t)nl);
    free(lb);
    int64_t m = M.m, n = M.n;
    dmx_layout *out = NULL, **outp = &out;
    void *foreign = NULL;
    if (c->mut == L_OVERFLOW) {
        m = n = (int64_t)1 << 32;
        nl = 0;
    }
    if (c->mut == L_OK_EMPTY) {
        m = 0;
        n = 4;
        nl = 0;
    }
    if (me_bad) {
        switch (c->mut) {
        case L_OUTSIDE: blocks[0].row0 = m; break;
        case L_NEG: blocks[0].col0 = -1; break;
        case L_EMPTY_BLOCK: blocks[0].rows = 0; break;
        case L_LD:
            blocks[0].order = DMX_COL_MAJOR;
            blocks[0].ld = blocks[0].rows - 1;
            break;
        case L_DATA_NULL: blocks[0].data = NULL; break;
        case L_OWN_OVERLAP: blocks[nl++] = blocks[0]; break;
        case L_MISSING: nl--; break;
        case L_OUT_NULL: outp = NULL; break;
        case L_CROSS_OVERLAP: {
            /* a tile of the next rank in place of this rank's first tile (all tiles are 1 x 3, so
             * the total area stays m*n: only a cross-rank check can see it) */
            int other = (ctx->rank + 1) % P;
            for (int64_t t = 0; t < M.nrect; t++) {
                const int64_t *r = &M.rects[4 * t];
                if (M.owners[t] == other) {
                    foreign = calloc(64, sizeof(float));
                    blocks[0].row0 = r[0];
                    /* cppcheck-suppress objectIndex ; M.rects is a heap array, r points into it */
                    blocks[0].col0 = r[1];
                    blocks[0].data = foreign;
                    blocks[0].ld = 1;
                    blocks[0].order = DMX_COL_MAJOR;
                    break;
                }
            }
            break;
        }
        }
    }
    dmx_status st = dmx_layout_create_local(MPI_COMM_WORLD, m, n, nl, blocks, outp);
    if (c->mut == L_CROSS_OVERLAP) {
        /* creation may not see the overlap; planning must */
        int ok = st == DMX_SUCCESS, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_ok) {
            dmxt_matrix A;
            l_base(&A, P, 6);
            expect(C, dmxt_matrix_create(&A), DMX_SUCCESS, "create a valid target");
            dmxt_fill(&A, 7);
            dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
            dmx_transform t = {DMX_FLOAT, DMX_OP_N, one, zero, out, A.layout, 0, 0};
            dmx_plan *plan = NULL;
            st = dmx_plan_create(1, &t, &plan);
            expect_any_error(C, st, "plan from overlapping local blocks");
            expect_null(C, plan, c->name);
            /* and as the target */
            t.b = A.layout;
            t.a = out;
            st = dmx_plan_create(1, &t, &plan);
            expect_any_error(C, st, "plan into overlapping local blocks");
            expect_null(C, plan, c->name);
            expect_fill(C, &A, 7, c->name);
            dmxt_matrix_free(&A);
        } else {
            expect_any_error(C, st, c->name);
        }
    } else if (c->want == DMX_ERR_INTERNAL) {
        expect_any_error(C, st, c->name);
    } else {
        expect(C, st, c->want, c->name);
    }
    if (c->want != DMX_SUCCESS && c->mut != L_CROSS_OVERLAP)
        expect_null(C, out, c->name);
    dmx_layout_destroy(&out);
    expect_fill(C, &M, 4, c->name);
    free(blocks);
    free(foreign);
    dmxt_matrix_free(&M);
    l_base(&M, P, 6);
    expect(C, dmxt_matrix_create(&M), DMX_SUCCESS, "valid create after the case");
    dmxt_matrix_free(&M);
}

/* ---------------------------------------------------------------------------------------- */
/* Views                                                                                    */
/* ---------------------------------------------------------------------------------------- */

typedef struct vcase {
    int64_t i0, j0, m, n; /* on the bad rank; the others use (1, 1, 3, 2) */
    int nested;           /* applied to a (1,1,6,5) view instead of the 9 x 7 parent */
    int out_null;
    dmx_status want;
    const char *name;
} vcase;

static const vcase v_cases[] = {
    {-1, 0, 2, 2, 0, 0, DMX_ERR_ARG, "view i0 = -1"},
    {0, -1, 2, 2, 0, 0, DMX_ERR_ARG, "view j0 = -1"},
    {0, 0, -1, 2, 0, 0, DMX_ERR_ARG, "view m = -1"},
    {0, 0, 2, -2, 0, 0, DMX_ERR_ARG, "view n = -2"},
    {1, 0, 9, 2, 0, 0, DMX_ERR_ARG, "view rows past the end (i0 + m = M + 1)"},
    {0, 3, 2, 5, 0, 0, DMX_ERR_ARG, "view columns past the end (j0 + n = N + 1)"},
    {10, 0, 0, 2, 0, 0, DMX_ERR_ARG, "empty view starting past the end (i0 = M + 1)"},
    {0, 0, 7, 2, 1, 0, DMX_ERR_ARG, "view of a view: past the inner view's end, inside parent"},
    {1, 1, 3, 2, 0, 1, DMX_ERR_NULL, "view out = NULL"},
};

static void run_view(dmxt_ctx *ctx, const vcase *c, int bad_rank, dmxt_checker *C)
{
    dmxt_matrix M;
    dmxt_matrix_bc(&M, MPI_COMM_WORLD, DMX_FLOAT, 9, 7, 2, 2, 1, ctx->size, 'C', NULL, 0, 0, 0);
    expect(C, dmxt_matrix_create(&M), DMX_SUCCESS, "create parent");
    dmxt_fill(&M, 2);
    dmx_layout *parent = M.layout, *mid = NULL;
    if (c->nested) {
        expect(C, dmx_layout_create_view(M.layout, 1, 1, 6, 5, &mid), DMX_SUCCESS,
               "create the outer view");
        parent = mid;
    }
    int me_bad = ctx->rank == bad_rank;
    dmx_layout *out = NULL;
    dmx_status st;
    if (me_bad)
        st = dmx_layout_create_view(parent, c->i0, c->j0, c->m, c->n, c->out_null ? NULL : &out);
    else
        st = dmx_layout_create_view(parent, 1, 1, 3, 2, &out);
    expect(C, st, c->want, c->name);
    expect_null(C, out, c->name);
    dmx_layout_destroy(&out);
    expect_fill(C, &M, 2, c->name);
    expect(C, dmx_layout_create_view(parent, 1, 1, 3, 2, &out), DMX_SUCCESS,
           "valid view after the case");
    dmx_layout_destroy(&out);
    dmx_layout_destroy(&mid);
    dmxt_matrix_free(&M);
}

/* ---------------------------------------------------------------------------------------- */
/* Plans                                                                                    */
/* ---------------------------------------------------------------------------------------- */

enum {
    P_SIZE_ALL,
    P_SIZE_ONE,
    P_OPT_SIZE,
    P_COMM,
    P_DTYPE_HIGH,
    P_DTYPE_NEG,
    P_OP_BAD,
    P_UPLO_BAD,
    P_DIAG_BAD,
    P_BATCH_SECOND_BAD,
    P_DTYPE_DIFF,
    P_OP_DIFF,
    P_SIZES_DIFF,
    P_OUT_NULL,
    P_NT_NEG,
    P_TR_NULL,
    P_A_NULL,
    P_A_NULL_ONE,
    P_NT_DIFF,
    P_B_NULL_ONE,
    P_A_NOMEM,
    P_B_NOMEM,
    P_OK_DUP_COMM,
    P_OK_LOWER_UPLO
};

typedef struct pcase {
    int mut;
    dmx_status want;
    int min_p;
    int all_ranks; /* the bad input is on every rank (not only the bad one) */
    const char *name;
    dmx_status alt; /* also accepted (for implied cases where two codes are defensible) */
} pcase;

static const pcase p_cases[] = {
    {P_SIZE_ALL, DMX_ERR_LAYOUT, 1, 1, "B 6x5 for A 6x6 (every rank)", DMX_SUCCESS},
    {P_SIZE_ONE, DMX_ERR_LAYOUT, 1, 0, "B 6x5 for A 6x6 on one rank", DMX_SUCCESS},
    {P_OPT_SIZE, DMX_ERR_LAYOUT, 1, 1, "op T: op(B) 5x6 for A 6x5 (every rank)", DMX_SUCCESS},
    {P_COMM, DMX_SUCCESS, 2, 1,
     "valid: B on a communicator with reversed ranks (same processes, other order)", DMX_SUCCESS},
    {P_DTYPE_HIGH, DMX_ERR_ARG, 1, 0, "dtype = 4", DMX_SUCCESS},
    {P_DTYPE_NEG, DMX_ERR_ARG, 1, 0, "dtype = -1", DMX_SUCCESS},
    {P_OP_BAD, DMX_ERR_ARG, 1, 0, "op = 3", DMX_SUCCESS},
    {P_UPLO_BAD, DMX_ERR_ARG, 1, 0, "uplo = 'X'", DMX_SUCCESS},
    {P_DIAG_BAD, DMX_ERR_ARG, 1, 0, "uplo = 'U', diag = 'X'", DMX_SUCCESS},
    {P_BATCH_SECOND_BAD, DMX_ERR_ARG, 1, 0, "batch of 2: op = 7 in the second transform",
     DMX_SUCCESS},
    {P_DTYPE_DIFF, DMX_ERR_ARG, 2, 0, "dtype differs between ranks (float vs double)", DMX_SUCCESS},
    {P_OP_DIFF, DMX_ERR_ARG, 2, 0, "op differs between ranks (N vs T, square)", DMX_SUCCESS},
    {P_SIZES_DIFF, DMX_ERR_ARG, 2, 0, "sizes differ between ranks (5x5 vs 6x6, each valid)",
     DMX_SUCCESS},
    {P_OUT_NULL, DMX_ERR_NULL, 1, 0, "out = NULL", DMX_SUCCESS},
    {P_NT_NEG, DMX_ERR_ARG, 1, 1, "ntransforms = -1 (implied)", DMX_SUCCESS},
    {P_TR_NULL, DMX_ERR_NULL, 1, 1, "transforms = NULL (implied; ARG accepted)", DMX_ERR_ARG},
    {P_A_NULL, DMX_ERR_NULL, 1, 1, "transform.a = NULL (implied)", DMX_SUCCESS},
    {P_A_NULL_ONE, DMX_ERR_NULL, 1, 0, "transform.a = NULL on one rank only (once hung the others)",
     DMX_SUCCESS},
    {P_NT_DIFF, DMX_ERR_ARG, 2, 0, "ntransforms differs between ranks (2 vs 1)", DMX_SUCCESS},
    {P_B_NULL_ONE, DMX_ERR_NULL, 1, 0, "transform.b = NULL (implied)", DMX_SUCCESS},
    {P_A_NOMEM, DMX_ERR_NULL, 1, 0,
     "A created with local = NULL on a rank that owns elements (plan must fail)", DMX_SUCCESS},
    {P_B_NOMEM, DMX_ERR_NULL, 1, 0,
     "B created with local = NULL on a rank that owns elements (plan must fail)", DMX_SUCCESS},
    {P_OK_DUP_COMM, DMX_SUCCESS, 1, 1, "valid: B on a duplicate (congruent) communicator",
     DMX_SUCCESS},
    {P_OK_LOWER_UPLO, DMX_SUCCESS, 1, 1, "valid: uplo 'G', diag 'N'", DMX_SUCCESS},
};

static void init_tr(dmx_transform *t, dmx_dtype dtype, dmx_op op, const dmx_layout *b,
                    dmx_layout *a)
{
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->op = op;
    t->alpha.re = 2.0;
    t->beta.re = -1.0;
    t->b = b;
    t->a = a;
}

static void run_plan(dmxt_ctx *ctx, const pcase *c, int bad_rank, dmxt_checker *C, MPI_Comm dupc,
                     MPI_Comm revc)
{
    int P = ctx->size, me_bad = c->all_ranks || ctx->rank == bad_rank;
    /* A 6x6 block-cyclic, B 6x6 custom, B5 6x5, A5 5x5 / B55 5x5, A65 6x5, Bx on another comm */
    dmxt_matrix A, B, B5, A5, B55, Bx, N;
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_DOUBLE, 6, 6, 2, 1, 1, P, 'R', NULL, 0, 0, 0);
    int64_t rs[3] = {0, 4, 6}, cs[3] = {0, 3, 6};
    int owners[4] = {0, 1 % P, 2 % P, 3 % P};
    dmxt_matrix_custom(&B, MPI_COMM_WORLD, DMX_DOUBLE, 6, 6, 2, rs, 2, cs, owners, NULL, NULL);
    dmxt_matrix_bc(&B5, MPI_COMM_WORLD, DMX_DOUBLE, 6, 5, 3, 3, P, 1, 'C', NULL, 0, 0, 0);
    dmxt_matrix_bc(&A5, MPI_COMM_WORLD, DMX_DOUBLE, 5, 5, 1, 2, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&B55, MPI_COMM_WORLD, DMX_DOUBLE, 5, 5, 2, 2, P, 1, 'R', NULL, 0, 0, 0);
    MPI_Comm bxc = c->mut == P_COMM ? revc : dupc;
    dmxt_matrix_bc(&Bx, bxc, DMX_DOUBLE, 6, 6, 1, 1, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix_bc(&N, MPI_COMM_WORLD, DMX_DOUBLE, 6, 6, 1, 1, 1, P, 'R', NULL, 0, 0, 0);
    dmxt_matrix *all[] = {&A, &B, &B5, &A5, &B55, &Bx, &N};
    enum { NALL = sizeof all / sizeof all[0] };
    for (int i = 0; i < NALL; i++) {
        expect(C, dmxt_matrix_create(all[i]), DMX_SUCCESS, "create layouts for the plan case");
        dmxt_fill(all[i], i);
    }
    dmx_layout *nomem = NULL; /* N's description without memory on the bad rank */
    if (c->mut == P_A_NOMEM || c->mut == P_B_NOMEM)
        expect(C,
               dmx_layout_create_block_cyclic(MPI_COMM_WORLD, 6, 6, 1, 1, 1, P, 'R', 0, 0,
                                              ctx->rank == bad_rank ? NULL : dmxt_matrix_local(&N),
                                              N.lld, &nomem),
               DMX_SUCCESS, "create a layout with local = NULL on one rank");
    if (C->bad) {
        dmx_layout_destroy(&nomem);
        for (int i = 0; i < NALL; i++)
            dmxt_matrix_free(all[i]);
        return;
    }
    dmx_transform tr[2];
    init_tr(&tr[0], DMX_DOUBLE, DMX_OP_N, B.layout, A.layout);
    init_tr(&tr[1], DMX_DOUBLE, DMX_OP_T, B55.layout, A5.layout);
    int nt = 1;
    const dmx_transform *trp = tr;
    dmx_plan *plan = NULL, **outp = &plan;
    if (c->mut == P_BATCH_SECOND_BAD)
        nt = 2;
    if (me_bad) {
        switch (c->mut) {
        case P_SIZE_ALL:
        case P_SIZE_ONE: tr[0].b = B5.layout; break;
        case P_OPT_SIZE:
            tr[0].op = DMX_OP_T;
            tr[0].b = B5.layout;
            tr[0].a = B5.layout; /* A 6x5 (never written: the plan must fail) */
            break;
        case P_COMM: tr[0].b = Bx.layout; break;
        case P_DTYPE_HIGH: tr[0].dtype = (dmx_dtype)4; break;
        case P_DTYPE_NEG: tr[0].dtype = (dmx_dtype)-1; break;
        case P_OP_BAD: tr[0].op = (dmx_op)3; break;
        case P_UPLO_BAD: tr[0].uplo = 'X'; break;
        case P_DIAG_BAD:
            tr[0].uplo = 'U';
            tr[0].diag = 'X';
            break;
        case P_BATCH_SECOND_BAD: tr[1].op = (dmx_op)7; break;
        case P_DTYPE_DIFF: tr[0].dtype = DMX_FLOAT; break;
        case P_OP_DIFF: tr[0].op = DMX_OP_T; break;
        case P_SIZES_DIFF:
            tr[0].b = B55.layout;
            tr[0].a = A5.layout;
            break;
        case P_OUT_NULL: outp = NULL; break;
        case P_NT_NEG: nt = -1; break;
        case P_TR_NULL: trp = NULL; break;
        case P_A_NULL:
        case P_A_NULL_ONE: tr[0].a = NULL; break;
        case P_NT_DIFF: nt = 2; break;
        case P_B_NULL_ONE: tr[0].b = NULL; break;
        case P_A_NOMEM: break;
        case P_B_NOMEM: break;
        case P_OK_DUP_COMM: tr[0].b = Bx.layout; break;
        case P_OK_LOWER_UPLO:
            tr[0].uplo = 'G';
            tr[0].diag = 'N';
            break;
        }
    }
    if (c->mut == P_A_NOMEM) /* every rank passes the layout; one rank has no memory */
        tr[0].a = nomem;
    if (c->mut == P_B_NOMEM)
        tr[0].b = nomem;
    handler_calls = 0;
    dmx_status st = dmx_plan_create(nt, trp, outp);
    expect(C, st, (c->alt != DMX_SUCCESS && st == c->alt) ? c->alt : c->want, c->name);
    int want_calls = me_bad && (c->mut == P_NT_NEG || c->mut == P_TR_NULL);
    if (handler_calls != want_calls)
        dmxt_fail(C, "%s: the error handler was called %d times, expected %d", c->name,
                  handler_calls, want_calls);
    if (c->want != DMX_SUCCESS)
        expect_null(C, plan, c->name);
    /* a plan that was created against expectations is destroyed (collectively) */
    int have = plan != NULL, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_have && c->want != DMX_SUCCESS)
        dmx_plan_destroy(&plan);
    if (plan && st == DMX_SUCCESS && c->want == DMX_SUCCESS) {
        /* the valid ones must also compute */
        expect(C, dmx_plan_execute(plan), DMX_SUCCESS, "execute");
        dmxt_expect e = {.dtype = DMX_DOUBLE,
                         .op = DMX_OP_N,
                         .alpha = tr[0].alpha,
                         .beta = tr[0].beta,
                         .ka = 0,
                         .kb = c->mut == P_OK_DUP_COMM || c->mut == P_COMM ? 5 : 1,
                         .am = 6,
                         .an = 6};
        char m[500] = "";
        if (dmxt_check_result(&A, &e, m, sizeof m))
            dmxt_fail(C, "%s: wrong result: %s", c->name, m);
        dmxt_fill(&A, 0);
        dmx_plan_destroy(&plan);
    }
    for (int i = 0; i < NALL; i++)
        expect_fill(C, all[i], i, c->name);

    /* a valid plan right after the failed one, executed and checked */
    init_tr(&tr[0], DMX_DOUBLE, DMX_OP_T, B.layout, A.layout);
    plan = NULL;
    expect(C, dmx_plan_create(1, tr, &plan), DMX_SUCCESS, "valid plan after the case");
    if (plan) {
        expect(C, dmx_plan_execute(plan), DMX_SUCCESS, "execute the valid plan");
        dmxt_expect e = {.dtype = DMX_DOUBLE,
                         .op = DMX_OP_T,
                         .alpha = tr[0].alpha,
                         .beta = tr[0].beta,
                         .ka = 0,
                         .kb = 1,
                         .am = 6,
                         .an = 6};
        char m[500] = "";
        if (dmxt_check_result(&A, &e, m, sizeof m))
            dmxt_fail(C, "valid plan after the case: wrong result: %s", m);
        expect(C, dmx_plan_destroy(&plan), DMX_SUCCESS, "destroy the valid plan");
    }
    dmx_layout_destroy(&nomem);
    for (int i = 0; i < NALL; i++)
        dmxt_matrix_free(all[i]);
}

/* Local calls on bad handles (implied by the header's status codes). */
static void run_local(dmxt_ctx *ctx, dmxt_checker *C)
{
    int P = ctx->size;
    dmxt_matrix A, B;
    dmxt_matrix_bc(&A, MPI_COMM_WORLD, DMX_CDOUBLE, 4, 4, 1, 1, P, 1, 'R', NULL, 0, 0, 0);
    int64_t rs[2] = {0, 4}, cs[2] = {0, 4};
    int owners[1] = {P - 1};
    dmxt_matrix_custom(&B, MPI_COMM_WORLD, DMX_CDOUBLE, 4, 4, 1, rs, 1, cs, owners, NULL, NULL);
    expect(C, dmxt_matrix_create(&A), DMX_SUCCESS, "create A");
    expect(C, dmxt_matrix_create(&B), DMX_SUCCESS, "create B");
    dmx_transform t;
    init_tr(&t, DMX_CDOUBLE, DMX_OP_C, B.layout, A.layout);
    dmx_plan *plan = NULL;
    expect(C, dmx_plan_create(1, &t, &plan), DMX_SUCCESS, "create plan");
    dmx_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    dmx_status st;
    if ((st = dmx_plan_set_scalars(plan, 1, one, zero)) != DMX_ERR_ARG)
        dmxt_fail(C, "set_scalars(k = ntransforms) -> %s, expected DMX_ERR_ARG (implied)",
                  dmx_status_string(st));
    if ((st = dmx_plan_set_scalars(plan, -1, one, zero)) != DMX_ERR_ARG)
        dmxt_fail(C, "set_scalars(k = -1) -> %s, expected DMX_ERR_ARG (implied)",
                  dmx_status_string(st));
    if ((st = dmx_plan_set_scalars(NULL, 0, one, zero)) != DMX_ERR_NULL)
        dmxt_fail(C, "set_scalars(NULL plan) -> %s, expected DMX_ERR_NULL (implied)",
                  dmx_status_string(st));
    if ((st = dmx_plan_get_info(plan, NULL)) != DMX_ERR_NULL)
        dmxt_fail(C, "get_info(info = NULL) -> %s, expected DMX_ERR_NULL (implied)",
                  dmx_status_string(st));
    if ((st = dmx_layout_rebind(NULL, NULL)) != DMX_ERR_NULL)
        dmxt_fail(C, "rebind(NULL layout) -> %s, expected DMX_ERR_NULL (implied)",
                  dmx_status_string(st));
    /* every rank owns rows of A (P x 1 grid of 1 x 1 blocks, 4 rows): NULL must be refused and
     * the layout keep its memory (the execution below checks that) */
    if (P <= 4 && (st = dmx_layout_rebind(A.layout, NULL)) != DMX_ERR_NULL)
        dmxt_fail(C, "rebind(A, NULL) on a rank owning part of A -> %s, expected DMX_ERR_NULL",
                  dmx_status_string(st));
    if ((st = dmx_layout_rebind(B.layout, NULL)) == DMX_SUCCESS)
        dmxt_fail(C, "rebind of a custom layout succeeded (only block-cyclic layouts rebind; "
                     "implied)");
    if ((st = dmx_layout_get_size(NULL, NULL, NULL)) != DMX_ERR_NULL)
        dmxt_fail(C, "get_size(NULL) -> %s, expected DMX_ERR_NULL (implied)",
                  dmx_status_string(st));
    int owner = 0;
    if ((st = dmx_layout_get_owner(NULL, 0, 0, &owner)) != DMX_ERR_NULL || owner != -1)
        dmxt_fail(C, "get_owner(NULL layout) -> %s, owner %d; expected DMX_ERR_NULL, -1",
                  dmx_status_string(st), owner);
    if ((st = dmx_layout_get_owner(B.layout, 0, 0, NULL)) != DMX_ERR_NULL)
        dmxt_fail(C, "get_owner(NULL owner) -> %s, expected DMX_ERR_NULL", dmx_status_string(st));
    dmx_plan *nullplan = NULL;
    if ((st = dmx_plan_destroy(&nullplan)) != DMX_SUCCESS)
        dmxt_fail(C, "plan_destroy(&NULL) -> %s, expected DMX_SUCCESS (NULL-safe)",
                  dmx_status_string(st));
    /* the plan still works after all that */
    dmxt_fill(&A, 1);
    dmxt_fill(&B, 0);
    expect(C, dmx_plan_execute(plan), DMX_SUCCESS, "execute after bad local calls");
    dmxt_expect e = {.dtype = DMX_CDOUBLE,
                     .op = DMX_OP_C,
                     .alpha = t.alpha,
                     .beta = t.beta,
                     .ka = 1,
                     .kb = 0,
                     .am = 4,
                     .an = 4};
    char m[500] = "";
    if (dmxt_check_result(&A, &e, m, sizeof m))
        dmxt_fail(C, "wrong result after bad local calls: %s", m);
    expect(C, dmx_plan_destroy(&plan), DMX_SUCCESS, "destroy plan");
    if (plan != NULL)
        dmxt_fail(C, "plan_destroy did not set the handle to NULL");
    dmxt_matrix_free(&A);
    dmxt_matrix_free(&B);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "test_errors");
    dmx_set_error_handler(counting_handler);
    int P = ctx.size;
    MPI_Comm dupc, revc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - ctx.rank, &revc);
    int bad_ranks[2] = {0, P - 1};
    int nbad = P > 1 ? 2 : 1;
    char desc[512];

    for (int b = 0; b < nbad; b++) {
        int br = bad_ranks[b];
        for (size_t i = 0; i < sizeof bc_cases / sizeof bc_cases[0]; i++) {
            if (P < bc_cases[i].min_p)
                continue;
            snprintf(desc, sizeof desc, "block-cyclic: %s on rank %d", bc_cases[i].name, br);
            dmxt_set_current(desc);
            dmxt_checker C = {.ctx = &ctx};
            run_bc(&ctx, &bc_cases[i], br, &C);
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
        for (size_t i = 0; i < sizeof c_cases / sizeof c_cases[0]; i++) {
            if (P < c_cases[i].min_p)
                continue;
            snprintf(desc, sizeof desc, "custom: %s on rank %d", c_cases[i].name, br);
            dmxt_set_current(desc);
            dmxt_checker C = {.ctx = &ctx};
            run_custom(&ctx, &c_cases[i], br, &C);
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
        for (size_t i = 0; i < sizeof l_cases / sizeof l_cases[0]; i++) {
            int every = l_cases[i].mut == L_OVERFLOW || l_cases[i].mut == L_OK_EMPTY;
            if (P < l_cases[i].min_p || (every && b > 0))
                continue;
            if (every)
                snprintf(desc, sizeof desc, "%s (every rank)", l_cases[i].name);
            else
                snprintf(desc, sizeof desc, "%s on rank %d", l_cases[i].name, br);
            dmxt_set_current(desc);
            dmxt_checker C = {.ctx = &ctx};
            run_local_layout(&ctx, &l_cases[i], br, &C);
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
        for (size_t i = 0; i < sizeof v_cases / sizeof v_cases[0]; i++) {
            snprintf(desc, sizeof desc, "%s on rank %d (others: valid view)", v_cases[i].name, br);
            dmxt_set_current(desc);
            dmxt_checker C = {.ctx = &ctx};
            run_view(&ctx, &v_cases[i], br, &C);
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
        for (size_t i = 0; i < sizeof p_cases / sizeof p_cases[0]; i++) {
            if (P < p_cases[i].min_p || (p_cases[i].all_ranks && b > 0))
                continue;
            if ((p_cases[i].mut == P_A_NOMEM || p_cases[i].mut == P_B_NOMEM) && P > 6)
                continue; /* the bad rank must own elements of the 6 x 6, 1 x P layout */
            if (p_cases[i].all_ranks)
                snprintf(desc, sizeof desc, "plan: %s", p_cases[i].name);
            else
                snprintf(desc, sizeof desc, "plan: %s on rank %d", p_cases[i].name, br);
            dmxt_set_current(desc);
            dmxt_checker C = {.ctx = &ctx};
            run_plan(&ctx, &p_cases[i], br, &C, dupc, revc);
            dmxt_case_end(&ctx, C.bad, C.msg, desc);
        }
    }
    {
        snprintf(desc, sizeof desc, "local calls on bad handles and indices");
        dmxt_set_current(desc);
        dmxt_checker C = {.ctx = &ctx};
        run_local(&ctx, &C);
        dmxt_case_end(&ctx, C.bad, C.msg, desc);
    }
    MPI_Comm_free(&dupc);
    MPI_Comm_free(&revc);
    return dmxt_finish(&ctx);
}
