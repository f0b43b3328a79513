/* SPDX-License-Identifier: BSD-3-Clause */
/* The redistribution term of the multiply's AUTO (issue 35): with the operands' layouts known,
 * every grid is charged the moves of A, B (and C back) into it.
 *
 * Model (rank 0, offline, with the built-in figures: main unsets DMX_MODEL, DMX_GEMM_MODEL,
 * DMX_GEMM and DMX_GEMM_MFLOPS first):
 *  (a) keep: operands on grid G0, and a grid G1 that AUTO takes without the layouts, whose
 *      multiply is predicted slightly cheaper than G0's but whose redistribution costs more
 *      than it saves: AUTO with the layouts keeps G0 (nothing moves, term 0);
 *  (b) move: operands on a grid whose multiply is far slower: AUTO still leaves it, for a grid
 *      whose saving exceeds the moves' cost;
 *  (c) without layouts nothing changes: dmx_gemm_explain_operands(NULL) = dmx_gemm_explain, and
 *      dmx_gemm_predict reports no term (tests/gemm/model_nodes.sh compares whole tables with
 *      outputs recorded before the term).
 * Plan (4 ranks on one node): A, B, C on a 1 x 4 grid in the blocks that fit SUMMA there (as
 * block-cyclic and as custom layouts, which the plan describes by their blocks), case (a) at
 * p = 4: the plan stays on 1 x 4 with every operand in place, and its product is right. Rank 0
 * prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include "dmx.h"
#include "dmx/expert.h"
#include "dmxt_util.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* A (m x k), B (k x n), C (m x n) block-cyclic on pr x pc ('R') in the blocks that fit SUMMA. */
static void fitting(dmx_relabel_desc d[3], int64_t m, int64_t n, int64_t k, int pr, int pc)
{
    const int64_t dims[3][2] = {{m, k}, {k, n}, {m, n}};
    for (int i = 0; i < 3; i++) {
        memset(&d[i], 0, sizeof d[i]);
        d[i].kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        d[i].m = dims[i][0], d[i].n = dims[i][1];
        d[i].mb = (dims[i][0] + pr - 1) / pr, d[i].nb = (dims[i][1] + pc - 1) / pc;
        d[i].prow = pr, d[i].pcol = pc, d[i].order = 'R';
    }
}

/* The grid of the explained choice ("grid RxC," in its reason); 0 when not found. */
static int chosen_grid(const dmx_choice *c, int *pr, int *pc)
{
    const char *s = strstr(c->reason, "grid ");
    return s && sscanf(s, "grid %dx%d", pr, pc) == 2;
}

/* The redistribution time in a candidate's note ("... + redist X s"); -1 when absent. */
static double note_redist(const dmx_choice *c, const char *name)
{
    for (int i = 0; i < c->n; i++) {
        const char *s = strstr(c->cand[i].note, "redist ");
        double r = -1.0;
        if (strcmp(c->cand[i].name, name) == 0 && s && sscanf(s, "redist %lf", &r) == 1)
            return r;
    }
    return -1.0;
}

/* The multiply alone, AUTO on a forced grid, no layouts. */
static double multiply_on(int64_t n, int64_t p, int64_t nodes, int pr, int pc)
{
    dmx_gemm_options o;
    dmx_gemm_info i;
    dmx_gemm_options_init(&o);
    o.prow = pr, o.pcol = pc;
    if (dmx_gemm_predict(DMX_GEMM_AUTO, DMX_DOUBLE, n, n, n, p, nodes, &o, &i) != DMX_SUCCESS)
        return NAN;
    return i.predicted_seconds;
}

/* n^3 on p ranks over @p nodes nodes, operands on d0r x d0c. @p move: case (b), else (a). */
static void scenario(dmxt_count *cnt, int64_t n, int64_t p, int64_t nodes, int d0r, int d0c,
                     int move)
{
    dmx_gemm_info free_choice;
    dmx_relabel_desc d[3];
    dmx_choice ch;
    char g1[24];
    int cr = 0, cc = 0;
    const char *what = move ? "(b) move" : "(a) keep";
    /* without layouts: the grid AUTO takes, G1 */
    if (dmx_gemm_predict(DMX_GEMM_AUTO, DMX_DOUBLE, n, n, n, p, nodes, NULL, &free_choice) !=
        DMX_SUCCESS) {
        DMXT_EXPECT(cnt, 0, "%s: dmx_gemm_predict: %s", what, dmx_last_error());
        return;
    }
    int g1r = free_choice.prow, g1c = free_choice.pcol;
    snprintf(g1, sizeof g1, "grid %dx%d", g1r, g1c);
    DMXT_EXPECT(cnt, free_choice.redist_seconds == 0.0, "%s: a term without layouts (%g s)", what,
                free_choice.redist_seconds);
    DMXT_EXPECT(cnt, g1r != d0r || g1c != d0c,
                "%s: scenario gone: without layouts AUTO already picks the data's grid %dx%d", what,
                d0r, d0c);
    double t0 = multiply_on(n, p, nodes, d0r, d0c), t1 = multiply_on(n, p, nodes, g1r, g1c);
    DMXT_EXPECT(cnt, t1 < t0,
                "%s: scenario gone: the multiply on %s (%g s) is not cheaper than "
                "on the data's %dx%d (%g s)",
                what, g1, t1, d0r, d0c, t0);
    /* with the layouts */
    fitting(d, n, n, n, d0r, d0c);
    dmx_gemm_operands ops = {DMX_OP_N, DMX_OP_N, &d[0], &d[1], &d[2]};
    if (dmx_gemm_explain_operands(DMX_DOUBLE, n, n, n, p, nodes, NULL, &ops, &ch) != DMX_SUCCESS ||
        !chosen_grid(&ch, &cr, &cc)) {
        DMXT_EXPECT(cnt, 0, "%s: explain: %s", what, dmx_last_error());
        return;
    }
    double r1 = note_redist(&ch, g1);
    DMXT_EXPECT(cnt, r1 > 0, "%s: no redistribution term shown for %s", what, g1);
    if (!move) {
        DMXT_EXPECT(cnt, t1 > 0.8 * t0,
                    "%s: scenario gone: %s's multiply (%g s) is not slightly "
                    "cheaper than the data's grid's (%g s)",
                    what, g1, t1, t0);
        DMXT_EXPECT(cnt, r1 > t0 - t1,
                    "%s: scenario gone: moving to %s (%g s) costs less than it "
                    "saves (%g s)",
                    what, g1, r1, t0 - t1);
        DMXT_EXPECT(cnt, cr == d0r && cc == d0c && strstr(ch.reason, "redist 0 s") != NULL,
                    "%s: operands on %dx%d, %s saves %g s and moving costs %g s, but AUTO "
                    "chose %dx%d (%s)",
                    what, d0r, d0c, g1, t0 - t1, r1, cr, cc, ch.reason);
    } else {
        double rc = note_redist(&ch, ch.cand[ch.chosen].name);
        DMXT_EXPECT(cnt, t0 - t1 > r1, "%s: scenario gone: %s saves %g s, moving costs %g s", what,
                    g1, t0 - t1, r1);
        DMXT_EXPECT(cnt, (cr != d0r || cc != d0c) && rc > 0,
                    "%s: operands on %dx%d, %s saves %g s for %g s of moves, but AUTO stayed "
                    "(%s)",
                    what, d0r, d0c, g1, t0 - t1, r1, ch.reason);
    }
}

/* (c): no layouts, the choice and the candidates as dmx_gemm_explain's. */
static void unchanged(dmxt_count *cnt, int64_t n, int64_t p, int64_t nodes)
{
    dmx_choice x, y;
    int ok =
        dmx_gemm_explain(DMX_DOUBLE, n, n, n, p, nodes, NULL, &x) == DMX_SUCCESS &&
        dmx_gemm_explain_operands(DMX_DOUBLE, n, n, n, p, nodes, NULL, NULL, &y) == DMX_SUCCESS;
    DMXT_EXPECT(cnt,
                ok && x.n == 3 && y.n == 3 && strcmp(x.reason, y.reason) == 0 &&
                    strstr(x.reason, "redist") == NULL,
                "(c) p %lld: without layouts the explained choice changed (%s / %s)", (long long)p,
                x.reason, y.reason);
}

/* A description of the wrong size is refused (not priced as if it were right). */
static void refused(dmxt_count *cnt)
{
    dmx_relabel_desc d[3];
    dmx_choice ch;
    fitting(d, 256, 256, 128, 1, 4); /* A 256 x 128, but k = 256 below */
    dmx_gemm_operands ops = {DMX_OP_N, DMX_OP_N, &d[0], NULL, NULL};
    dmx_status st = dmx_gemm_explain_operands(DMX_DOUBLE, 256, 256, 256, 4, 1, NULL, &ops, &ch);
    DMXT_EXPECT(cnt, st == DMX_ERR_ARG && strstr(dmx_last_error(), "description of A") != NULL,
                "a 256 x 128 A for k = 256: status %d (%s)", (int)st, dmx_last_error());
    ops.transa = DMX_OP_T; /* stored k x m = 256 x 256: the 256 x 128 one is still wrong */
    st = dmx_gemm_explain_operands(DMX_DOUBLE, 256, 256, 256, 4, 1, NULL, &ops, &ch);
    DMXT_EXPECT(cnt, st == DMX_ERR_ARG, "a transposed 256 x 128 A for 256 x 256: status %d",
                (int)st);
    /* the same 256 x 128 description as the stored A of m = 128, k = 256 with op T: right */
    st = dmx_gemm_explain_operands(DMX_DOUBLE, 128, 256, 256, 4, 1, NULL, &ops, &ch);
    DMXT_EXPECT(cnt, st == DMX_SUCCESS, "a stored 256 x 128 A^T for m = 128, k = 256: %s",
                dmx_last_error());
}

/* The plan at 4 ranks on one node, operands on 1 x 4 (case (a) at p = 4). */
static void plan_keeps(dmxt_count *cnt, int64_t n, int custom)
{
    const int64_t nb = (n + size - 1) / size;
    double *m[3];
    dmx_layout *l[3] = {NULL, NULL, NULL};
    dmx_gemm_plan *g = NULL;
    dmx_gemm_info info;
    int ok = 1, own[64];
    int64_t rs[2] = {0, n}, cs[65];
    for (int j = 0; j <= size && j < 65; j++)
        cs[j] = j * nb < n ? j * nb : n;
    for (int j = 0; j < size && j < 64; j++)
        own[j] = j;
    for (int i = 0; i < 3; i++) {
        m[i] = calloc((size_t)(n * nb), sizeof(double));
        /* custom: the same blocks described by their owners (the grid form of the term) */
        dmx_block blk = {0, rank, m[i], n, DMX_COL_MAJOR};
        ok &= m[i] != NULL && size <= 64 &&
              (custom ? dmx_layout_create_custom(MPI_COMM_WORLD, n, n, 1, rs, size, cs, own, 1,
                                                 &blk, &l[i])
                      : dmx_layout_create_block_cyclic(MPI_COMM_WORLD, n, n, n, nb, 1, size, 'R', 0,
                                                       0, m[i], n, &l[i])) == DMX_SUCCESS;
    }
    /* A(i, j) = i + 2j, B(i, j) = 1 if i == j + 1 else 0: C(i, j) = A(i, j + 1) (0 at j = n-1) */
    for (int64_t j = 0; j < nb && ok; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t gj = rank * nb + j;
            m[0][j * n + i] = (double)(i + 2 * gj);
            m[1][j * n + i] = i == gj + 1 ? 1.0 : 0.0;
        }
    ok =
        ok &&
        dmx_gemm_plan_create(MPI_COMM_WORLD, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, (dmx_scalar){1.0, 0.0},
                             l[0], l[1], (dmx_scalar){0.0, 0.0}, l[2], NULL, &g) == DMX_SUCCESS &&
        dmx_gemm_plan_execute(g) == DMX_SUCCESS && dmx_gemm_plan_get_info(g, &info) == DMX_SUCCESS;
    DMXT_EXPECT(cnt, ok, "plan on 1x%d (%s): %s", size, custom ? "custom" : "block-cyclic",
                dmx_last_error());
    if (ok) {
        DMXT_EXPECT(cnt,
                    info.prow == 1 && info.pcol == size && info.a_in_place && info.b_in_place &&
                        info.c_in_place && info.redist_seconds == 0.0,
                    "plan (%s): operands on 1x%d, chose %dx%d (in place %d %d %d, term %g s)",
                    custom ? "custom" : "block-cyclic", size, info.prow, info.pcol, info.a_in_place,
                    info.b_in_place, info.c_in_place, info.redist_seconds);
        int64_t bad = 0;
        for (int64_t j = 0; j < nb; j++)
            for (int64_t i = 0; i < n; i++) {
                int64_t gj = rank * nb + j;
                double want = gj + 1 < n ? (double)(i + 2 * (gj + 1)) : 0.0;
                bad += gj < n && m[2][j * n + i] != want;
            }
        DMXT_EXPECT(cnt, bad == 0, "plan: %lld elements of C wrong", (long long)bad);
    }
    dmx_gemm_plan_destroy(&g);
    for (int i = 0; i < 3; i++) {
        dmx_layout_destroy(&l[i]);
        free(m[i]);
    }
}

int main(int argc, char **argv)
{
    const char *env[] = {"DMX_MODEL", "DMX_GEMM_MODEL", "DMX_GEMM", "DMX_GEMM_MFLOPS"};
    for (int i = 0; i < 4; i++) /* the built-in machine, whatever the harness sets */
        unsetenv(env[i]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    int leader = 0, nodes = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &leader);
    leader = leader == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    dmxt_count n = {0, 0};
    if (rank == 0) {
        /* 16 ranks, one per node, n = 2048 (built-in figures): AUTO alone takes 4 x 4 */
        scenario(&n, 2048, 16, 16, 2, 8, 0);  /* (a): 4 x 4 saves ~6 %, moving costs more */
        scenario(&n, 2048, 16, 16, 1, 16, 1); /* (b): 1 x 16 is ~2x slower: AUTO moves */
        scenario(&n, 256, 4, 1, 1, 4, 0);     /* (a) on one node: the plan's case below */
        unchanged(&n, 2048, 16, 16);
        unchanged(&n, 256, 4, 1);
        refused(&n);
    }
    if (size == 4 && nodes == 1) {
        plan_keeps(&n, 256, 0);
        plan_keeps(&n, 256, 1);
    }
    dmxt_count all = {0, 0};
    MPI_Allreduce(&n.passed, &all.passed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&n.failed, &all.failed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        dmxt_count_print(&all);
    MPI_Finalize();
    return dmxt_count_exit_code(&all);
}
