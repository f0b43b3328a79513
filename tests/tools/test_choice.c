/* SPDX-License-Identifier: BSD-3-Clause */
/* The explained choices (dmx_*_explain, dmx/expert.h) against what the library picks on a run,
 * on this communicator:
 *   - exchange: the protocol a dmx_exchange reports it ran (AUTO and each protocol passed);
 *   - coll: what dmx_coll_auto_choice says the next AUTO call runs (run with DMX_COLL_TUNE=0,
 *     where that is the model's choice), for several collectives and sizes;
 *   - gemm: the algorithm and grid of a dmx_gemm_plan (dmx_gemm_plan_get_info), explained with
 *     its operands' layouts described (dmx_gemm_explain_operands: the redistribution term);
 *   - rma: the path the heap's last strided transfer took (the heap's last_path, internal),
 *     with the heap's own probe and shared segment, for gets, puts and accumulates;
 *   - redist: the engine a dmx_plan_create plan runs (small or general, internal) with the
 *     per-rank volumes from dmx_relabel_volume_* (checked against the plan's own counts),
 *     and the one-shot path against dmx_transform_once_is_local.
 * Each explain call's chosen candidate must also be marked feasible. Rank 0 prints
 * "N passed, N failed". */
#include "dmx.h"
#include "dmx/expert.h"
#include "dmxt_util.h"
#include "exec/exec.h"
#include "plan/plan.h"
#include "rma/rma.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, nodes;

/* The chosen candidate's name ("" when none), and whether it is feasible. */
static const char *chosen(const dmx_choice *c, dmxt_count *n)
{
    if (c->chosen < 0)
        return "";
    DMXT_EXPECT(n, c->cand[c->chosen].feasible, "%s: chosen %s is not feasible", c->module,
                c->cand[c->chosen].name);
    return c->cand[c->chosen].name;
}

static void check_exchange(dmxt_count *n)
{
    const dmx_exchange_protocol protos[] = {DMX_EXCHANGE_AUTO, DMX_EXCHANGE_NBX, DMX_EXCHANGE_PEX,
                                            DMX_EXCHANGE_PCX};
    for (int i = 0; i < 4; i++) {
        double payload = rank;
        dmx_exchange_send s = {(rank + 1) % size, &payload, sizeof payload};
        dmx_exchange_result *res = NULL;
        dmx_exchange_info info;
        dmx_choice c;
        dmx_status st = dmx_exchange(MPI_COMM_WORLD, protos[i], 1, &s, &res);
        if (st == DMX_SUCCESS)
            st = dmx_exchange_result_get_info(res, &info);
        DMXT_EXPECT(n, st == DMX_SUCCESS, "exchange: %s", dmx_last_error());
        DMXT_EXPECT(n, dmx_exchange_explain(size, protos[i], &c) == DMX_SUCCESS, "explain: %s",
                    dmx_last_error());
        if (st == DMX_SUCCESS)
            DMXT_EXPECT(n, strcmp(chosen(&c, n), dmx_exchange_protocol_name(info.protocol)) == 0,
                        "exchange %s at P = %d: explained %s, ran %s",
                        dmx_exchange_protocol_name(protos[i]), size, chosen(&c, n),
                        dmx_exchange_protocol_name(info.protocol));
        dmx_exchange_result_destroy(&res);
    }
}

static void check_coll(dmxt_count *n)
{
    const dmx_coll_kind kinds[] = {DMX_COLL_BCAST, DMX_COLL_ALLREDUCE, DMX_COLL_ALLGATHER,
                                   DMX_COLL_ALLTOALL, DMX_COLL_REDUCE_SCATTER};
    const int64_t sizes[] = {8, 4096, 1 << 20, 16 << 20};
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < 4; b++) {
            dmx_coll_alg alg = DMX_COLL_AUTO;
            int settled = 0;
            dmx_choice c;
            dmx_status st =
                dmx_coll_auto_choice(MPI_COMM_WORLD, kinds[k], sizes[b], &alg, &settled);
            DMXT_EXPECT(n, st == DMX_SUCCESS && settled, "auto_choice: %s (settled %d)",
                        dmx_last_error(), settled);
            st = dmx_coll_explain(kinds[k], size, sizes[b], nodes, &c);
            DMXT_EXPECT(n, st == DMX_SUCCESS, "coll explain: %s", dmx_last_error());
            DMXT_EXPECT(n, st == DMX_SUCCESS && strcmp(chosen(&c, n), dmx_coll_alg_name(alg)) == 0,
                        "%s %lld bytes at P = %d: explained %s, AUTO runs %s",
                        dmx_coll_kind_name(kinds[k]), (long long)sizes[b], size, chosen(&c, n),
                        dmx_coll_alg_name(alg));
        }
}

/* A block-cyclic m x n layout on a pr x pc grid with memory. */
static dmx_layout *bc(int64_t m, int64_t nn, int64_t mb, int64_t nb, int pr, int pc, double **mem)
{
    int myr = rank / pc, myc = rank % pc;
    int64_t lr = dmxt_numroc(m, mb, myr, 0, pr), lc = dmxt_numroc(nn, nb, myc, 0, pc);
    int64_t lld = lr > 1 ? lr : 1;
    *mem = calloc((size_t)(lld * (lc > 1 ? lc : 1)), sizeof(double));
    dmx_layout *l = NULL;
    if (dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, nn, mb, nb, pr, pc, 'R', 0, 0, *mem, lld,
                                       &l) != DMX_SUCCESS)
        return NULL;
    return l;
}

static void check_gemm(dmxt_count *n)
{
    const int64_t dims[][3] = {{64, 64, 64}, {300, 40, 500}, {40, 400, 20}};
    int pr = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            pr = d;
    for (int i = 0; i < 3; i++) {
        int64_t m = dims[i][0], nn = dims[i][1], k = dims[i][2];
        double *ma, *mb, *mc;
        dmx_layout *a = bc(m, k, 16, 16, pr, size / pr, &ma),
                   *b = bc(k, nn, 16, 16, pr, size / pr, &mb),
                   *c = bc(m, nn, 16, 16, pr, size / pr, &mc);
        dmx_gemm_plan *g = NULL;
        dmx_gemm_info info;
        dmx_choice ch;
        dmx_status st =
            dmx_gemm_plan_create(MPI_COMM_WORLD, DMX_DOUBLE, DMX_OP_N, DMX_OP_N,
                                 (dmx_scalar){1.0, 0.0}, a, b, (dmx_scalar){0.0, 0.0}, c, NULL, &g);
        if (st == DMX_SUCCESS)
            st = dmx_gemm_plan_get_info(g, &info);
        DMXT_EXPECT(n, st == DMX_SUCCESS, "gemm plan: %s", dmx_last_error());
        /* the same layouts described: the choice charges the redistributions from them */
        const int64_t dd[3][2] = {{m, k}, {k, nn}, {m, nn}};
        dmx_relabel_desc d[3];
        for (int x = 0; x < 3; x++) {
            memset(&d[x], 0, sizeof d[x]);
            d[x].kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
            d[x].m = dd[x][0], d[x].n = dd[x][1], d[x].mb = 16, d[x].nb = 16;
            d[x].prow = pr, d[x].pcol = size / pr, d[x].order = 'R';
        }
        dmx_gemm_operands ops = {DMX_OP_N, DMX_OP_N, &d[0], &d[1], &d[2]};
        DMXT_EXPECT(n,
                    dmx_gemm_explain_operands(DMX_DOUBLE, m, nn, k, size, nodes, NULL, &ops, &ch) ==
                        DMX_SUCCESS,
                    "gemm explain: %s", dmx_last_error());
        if (st == DMX_SUCCESS) {
            char grid[32];
            snprintf(grid, sizeof grid, "grid %dx%d,", info.prow, info.pcol);
            DMXT_EXPECT(n,
                        strcmp(chosen(&ch, n), dmx_gemm_alg_name(info.alg)) == 0 &&
                            strstr(ch.reason, grid) != NULL,
                        "gemm %lldx%lldx%lld at P = %d: explained %s (%s), plan %s %s",
                        (long long)m, (long long)nn, (long long)k, size, chosen(&ch, n), ch.reason,
                        dmx_gemm_alg_name(info.alg), grid);
        }
        dmx_gemm_plan_destroy(&g);
        dmx_layout_destroy(&a);
        dmx_layout_destroy(&b);
        dmx_layout_destroy(&c);
        free(ma);
        free(mb);
        free(mc);
    }
}

/* On an allocated heap (a node's shared segment: shm where mapped) and on attached user memory
 * (no segment: the message paths), when this MPI opens windows over it. */
static void check_rma(dmxt_count *n, int attach)
{
    enum { ELEMS = 1 << 16 };
    dmx_rma_heap *h = NULL;
    double *user = calloc(ELEMS, sizeof(double));
    dmx_status st = attach
                        ? dmx_rma_attach(MPI_COMM_WORLD, user, ELEMS * (int64_t)sizeof(double), &h)
                        : dmx_rma_alloc(MPI_COMM_WORLD, ELEMS * (int64_t)sizeof(double), &h);
    int ok = st == DMX_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (attach && !all && st == DMX_ERR_UNSUPPORTED) {
        dmx_rma_free(&h);
        free(user);
        return; /* this MPI has no one-sided component for user memory */
    }
    DMXT_EXPECT(n, st == DMX_SUCCESS, "rma heap (attach %d): %s", attach, dmx_last_error());
    if (st != DMX_SUCCESS) {
        free(user);
        return;
    }
    void *vb = NULL;
    dmx_rma_get_base(h, &vb);
    double *base = vb;
    double *local = calloc(ELEMS, sizeof(double));
    /* op, count, blocklen, stride */
    const struct {
        char op;
        int64_t count, len, stride;
    } cases[] = {{'g', 1000, 1, 4},    {'g', 1000, 1, 1},    {'g', 8, 4096, 4096},
                 {'p', 1000, 1, 4},    {'p', 8, 2048, 4096}, {'a', 1000, 1, 4},
                 {'a', 4, 4096, 4096}, {'g', 1, 100, 100},   {'g', 100, 8, 4}};
    int pe = (rank + 1) % size;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t cnt = cases[i].count, len = cases[i].len, str = cases[i].stride;
        dmx_rma_explain_args a = {cases[i].op, cnt, len, str, 8, 0, 0, 0};
        dmx_choice c;
        if (cases[i].op == 'g')
            st = dmx_aget(h, DMX_DOUBLE, local, base, len, str, len, cnt, pe);
        else if (cases[i].op == 'p')
            st = dmx_aput(h, DMX_DOUBLE, base, local, str, len, len, cnt, pe);
        else
            st = dmx_aacc(h, DMX_DOUBLE, base, local, str, len, len, cnt, pe);
        if (st == DMX_SUCCESS)
            st = dmx_rma_barrier(h);
        DMXT_EXPECT(n, st == DMX_SUCCESS, "rma case %zu: %s", i, dmx_last_error());
        DMXT_EXPECT(n, dmx_rma_explain(h, pe, &a, &c) == DMX_SUCCESS, "rma explain: %s",
                    dmx_last_error());
        static const char *const names[] = {"auto", "shm", "vector", "blocks", "pack", "span"};
        DMXT_EXPECT(
            n, strcmp(chosen(&c, n), names[h->last_path]) == 0,
            "rma %c count %lld len %lld stride %lld at P = %d (attach %d): explained %s, ran "
            "%s",
            cases[i].op, (long long)cnt, (long long)len, (long long)str, size, attach,
            chosen(&c, n), names[h->last_path]);
    }
    free(local);
    dmx_rma_free(&h);
    free(user);
}

/* The largest bytes a rank sends plus receives (to and from other ranks) and between two ranks,
 * from the package volumes, as `dmx model redist` computes them. */
static void volumes(int64_t m, int64_t nn, const int64_t bl[2][2], const int grid[2][2],
                    int64_t *rank_bytes, int64_t *peer_bytes)
{
    dmx_relabel_desc d[2];
    for (int s = 0; s < 2; s++) {
        memset(&d[s], 0, sizeof d[s]);
        d[s].kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        d[s].m = m, d[s].n = nn, d[s].mb = bl[s][0], d[s].nb = bl[s][1];
        d[s].prow = grid[s][0], d[s].pcol = grid[s][1], d[s].order = 'R';
    }
    dmx_relabel_volume *v = NULL;
    dmx_relabel_gains g;
    int64_t sum[64] = {0};
    *rank_bytes = *peer_bytes = 0;
    if (dmx_relabel_volume_create(&d[0], &d[1], 0, size, &v) != DMX_SUCCESS ||
        dmx_relabel_volume_get_gains(v, &g) != DMX_SUCCESS || g.n > 64) {
        *rank_bytes = *peer_bytes = -1;
        dmx_relabel_volume_destroy(&v);
        return;
    }
    for (int j = 0; j < g.n; j++)
        for (int64_t x = g.rowptr[j]; x < g.rowptr[j + 1]; x++)
            if (g.col[x] != j) {
                sum[g.col[x]] += 8 * g.gain[x];
                sum[j] += 8 * g.gain[x];
                *peer_bytes = 8 * g.gain[x] > *peer_bytes ? 8 * g.gain[x] : *peer_bytes;
            }
    for (int r = 0; r < g.n; r++)
        *rank_bytes = sum[r] > *rank_bytes ? sum[r] : *rank_bytes;
    dmx_relabel_volume_destroy(&v);
}

static void check_redist(dmxt_count *n)
{
    /* DMX_SMALL_BYTES=65536 (CMakeLists): the first two small, the last two general at P > 1 */
    const int64_t cases[][6] = {{40, 30, 4, 4, 8, 8},
                                {64, 64, 8, 8, 32, 16},
                                {200, 200, 8, 8, 64, 64},
                                {300, 100, 16, 16, 32, 32}};
    for (int i = 0; i < 4; i++) {
        int64_t m = cases[i][0], nn = cases[i][1];
        const int64_t bl[2][2] = {{cases[i][2], cases[i][3]}, {cases[i][4], cases[i][5]}};
        const int grid[2][2] = {{size, 1}, {1, size}};
        double *mb, *ma;
        dmx_layout *b = bc(m, nn, bl[0][0], bl[0][1], grid[0][0], grid[0][1], &mb);
        dmx_layout *a = bc(m, nn, bl[1][0], bl[1][1], grid[1][0], grid[1][1], &ma);
        dmx_transform t = {0};
        t.dtype = DMX_DOUBLE, t.op = DMX_OP_N, t.alpha = (dmx_scalar){1.0, 0.0};
        t.beta = (dmx_scalar){0.0, 0.0}, t.b = b, t.a = a;
        dmx_plan *p = NULL;
        dmx_plan_info info;
        dmx_status st = dmx_plan_create(1, &t, &p);
        if (st == DMX_SUCCESS)
            st = dmx_plan_get_info(p, &info);
        DMXT_EXPECT(n, st == DMX_SUCCESS, "plan: %s", dmx_last_error());
        int64_t rank_bytes = 0, peer_bytes = 0, mine = 0, most = 0;
        volumes(m, nn, bl, grid, &rank_bytes, &peer_bytes);
        if (st == DMX_SUCCESS) {
            /* the volumes' per-rank bytes are the plan's own counts, at their largest */
            mine = 8 * (info.send_elems + info.recv_elems);
            MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
            DMXT_EXPECT(n, most == rank_bytes, "case %d: volumes give %lld bytes, plan %lld", i,
                        (long long)rank_bytes, (long long)most);
            dmx_choice c;
            DMXT_EXPECT(n,
                        dmx_transform_explain(DMX_DOUBLE, m, nn, 0, rank_bytes, peer_bytes, &c) ==
                            DMX_SUCCESS,
                        "redist explain: %s", dmx_last_error());
            const char *ran = p->ex.ops == &dmxi_exec_small ? "small" : "general";
            DMXT_EXPECT(n, strcmp(chosen(&c, n), ran) == 0,
                        "redist case %d at P = %d: explained %s, plan runs %s (%s)", i, size,
                        chosen(&c, n), ran, c.reason);
            DMXT_EXPECT(n,
                        dmx_transform_explain(DMX_DOUBLE, m, nn, 1, rank_bytes, peer_bytes, &c) ==
                            DMX_SUCCESS,
                        "redist explain: %s", dmx_last_error());
            DMXT_EXPECT(n,
                        (strcmp(chosen(&c, n), "once-alone") == 0) ==
                            dmx_transform_once_is_local(DMX_DOUBLE, m, nn),
                        "redist case %d once: explained %s, dmx_transform_once_is_local %d", i,
                        chosen(&c, n), dmx_transform_once_is_local(DMX_DOUBLE, m, nn));
        }
        dmx_plan_destroy(&p);
        dmx_layout_destroy(&a);
        dmx_layout_destroy(&b);
        free(ma);
        free(mb);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    int leader = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &leader);
    leader = leader == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    dmxt_count n = {0, 0};
    check_exchange(&n);
    check_coll(&n);
    check_gemm(&n);
    check_rma(&n, 0);
    check_rma(&n, 1);
    check_redist(&n);
    dmxt_count all = {0, 0};
    MPI_Allreduce(&n.passed, &all.passed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&n.failed, &all.failed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        dmxt_count_print(&all);
    MPI_Finalize();
    return dmxt_count_exit_code(&all);
}
