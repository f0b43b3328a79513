/* SPDX-License-Identifier: BSD-3-Clause */
/* Relabeled transforms, end to end: dmx_plan_create_relabeled and the three-step API
 * (dmx_relabel_compute, dmx_relabel_comm, dmx_plan_create on the relabeled communicator).
 *
 * Every case checks, independently of dmx:
 *   - every element of the relabeled target against the closed formula (serial reference);
 *   - sigma is a permutation, the same on every rank, and the relabeled communicator gives each
 *     rank the role sigma assigns it;
 *   - the volumes dmx reports against a count made here from the test-side layout description
 *     (bytes of B whose target role is played by another rank), and with the volume cost the
 *     busiest link dmx reports (the most bytes a rank sends to or receives from others) against
 *     the same count;
 *   - exact never moves more than greedy or identity; the known cases (equal blocks, row- vs
 *     column-major grids) move nothing.
 */
#include "dmxtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Owner (role) of element (i, j) of a block-cyclic target with grid order 'R'/'C'. */
static int bc_role(int64_t i, int64_t j, int64_t mb, int64_t nb, int pr, int pc, char ord)
{
    int r = (int)((i / mb) % pr), c = (int)((j / nb) % pc);
    return ord == 'R' ? r * pc + c : r + c * pr;
}

/* Bytes that cross ranks when role j is played by rank sigma[j] (*remote, summed over ranks),
 * and the busiest rank link (*busiest: the most bytes a rank sends to others or receives from
 * others), counted element by element over each rank's part of B. */
static void count_moves(dmxt_ctx *ctx, const dmxt_matrix *B, dmx_op op, const int *sigma,
                        int64_t mb, int64_t nb, int pr, int pc, char ord, int64_t *remote,
                        int64_t *busiest)
{
    int64_t *in = calloc((size_t)ctx->size, sizeof *in), out = 0;
    size_t es = dmx_dtype_size(B->dtype);
    for (int64_t k = 0; k < B->nblk; k++) {
        const dmxt_block *b = &B->blk[k];
        for (int64_t j = b->col0; j < b->col0 + b->cols; j++)
            for (int64_t i = b->row0; i < b->row0 + b->rows; i++) {
                int role = op == DMX_OP_N ? bc_role(i, j, mb, nb, pr, pc, ord)
                                          : bc_role(j, i, mb, nb, pr, pc, ord);
                int who = role < ctx->size ? (sigma ? sigma[role] : role) : -1;
                if (who == ctx->rank)
                    continue;
                out += (int64_t)es;
                if (who >= 0)
                    in[who] += (int64_t)es;
            }
    }
    MPI_Allreduce(&out, remote, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    MPI_Allreduce(MPI_IN_PLACE, in, ctx->size, MPI_INT64_T, MPI_SUM, ctx->comm);
    MPI_Allreduce(&out, busiest, 1, MPI_INT64_T, MPI_MAX, ctx->comm);
    for (int r = 0; r < ctx->size; r++)
        *busiest = in[r] > *busiest ? in[r] : *busiest;
    free(in);
}

/* Check every element of a dmx-allocated relabeled target. */
static int64_t check_target(const dmx_layout *A, const dmxt_expect *e, char *msg, size_t len)
{
    int64_t nb = 0, bad = 0;
    dmx_layout_get_num_local_blocks(A, &nb);
    for (int64_t k = 0; k < nb; k++) {
        int64_t r0, c0, rows, cols, ld;
        void *data;
        dmx_order order;
        dmx_layout_get_local_block(A, k, e->dtype, &r0, &c0, &rows, &cols, &data, &ld, &order);
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) {
                double re, im, wre, wim, scale;
                int exact;
                int64_t pos = order == DMX_COL_MAJOR ? i + j * ld : i * ld + j;
                dmxt_get(e->dtype, data, pos, &re, &im);
                dmxt_reference(e, r0 + i, c0 + j, &wre, &wim, &exact, &scale);
                double tol = exact ? 0.0 : dmxt_tolerance(e->dtype) * scale;
                if (!(fabs(re - wre) <= tol && fabs(im - wim) <= tol)) {
                    if (bad++ == 0)
                        snprintf(msg, len, "A(%lld,%lld) = (%g,%g), want (%g,%g)",
                                 (long long)(r0 + i), (long long)(c0 + j), re, im, wre, wim);
                }
            }
    }
    return bad;
}

/* sigma must be a permutation, equal on all ranks, and newcomm must rank by role. */
static int64_t check_sigma(dmxt_ctx *ctx, const int *sigma, MPI_Comm newcomm, char *msg, size_t len)
{
    int64_t bad = 0;
    char *seen = calloc((size_t)ctx->size, 1);
    int role = -1;
    for (int j = 0; j < ctx->size; j++) {
        if (sigma[j] < 0 || sigma[j] >= ctx->size || seen[sigma[j]]) {
            bad++;
            snprintf(msg, len, "sigma is not a permutation at %d", j);
            break;
        }
        seen[sigma[j]] = 1;
        if (sigma[j] == ctx->rank)
            role = j;
    }
    free(seen);
    uint64_t h = 1469598103934665603ULL;
    for (int j = 0; j < ctx->size; j++)
        h = (h ^ (uint64_t)sigma[j]) * 1099511628211ULL;
    uint64_t hmin, hmax;
    MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, ctx->comm);
    MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, ctx->comm);
    if (hmin != hmax) {
        bad++;
        snprintf(msg, len, "ranks got different sigma");
    }
    if (newcomm != MPI_COMM_NULL) {
        int nr = -1;
        MPI_Comm_rank(newcomm, &nr);
        if (nr != role) {
            bad++;
            snprintf(msg, len, "rank %d has rank %d in the relabeled communicator, role %d",
                     ctx->rank, nr, role);
        }
    }
    return bad;
}

typedef struct tcase {
    dmx_dtype dtype;
    dmx_op op;
    int64_t m, n;   /* B's size */
    int64_t mb, nb; /* target blocks */
    int pr, pc;     /* target grid */
    char ord;       /* target rank order */
    int bkind;      /* B layout kind (-1 random) */
    dmx_relabel_opts opts;
    int three_step;  /* user memory through the three-step API */
    int expect_zero; /* a known case: relabeling removes all traffic */
} tcase;

static void run_case(dmxt_ctx *ctx, dmxt_rng *rng, const tcase *c, const char *name)
{
    char desc[1024], msg[300] = "";
    int64_t bad = 0;
    dmxt_matrix B;
    dmx_layout *T = NULL, *A = NULL;
    dmx_plan *plan = NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    int *sigma = calloc((size_t)ctx->size, sizeof *sigma);
    dmx_relabel_result res = {0}, greedy = {0};
    int64_t am = c->op == DMX_OP_N ? c->m : c->n, an = c->op == DMX_OP_N ? c->n : c->m;
    dmx_scalar alpha = {c->dtype >= DMX_CFLOAT ? 0.5 : 2.0, c->dtype >= DMX_CFLOAT ? -1.5 : 0.0};

    dmxt_matrix_random(&B, ctx->comm, c->dtype, c->m, c->n, c->bkind, rng);
    snprintf(desc, sizeof desc,
             "%s %s op %s B[%s] -> %lldx%lld blocks on %dx%d '%c' cost %d method %d%s", name,
             dmxt_dtype_name(c->dtype), dmxt_op_name(c->op), B.desc, (long long)c->mb,
             (long long)c->nb, c->pr, c->pc, c->ord, (int)c->opts.cost, (int)c->opts.method,
             c->three_step ? " three-step" : "");
    dmxt_set_current(desc);
    dmx_status st = dmxt_matrix_create(&B);
    if (st == DMX_SUCCESS) {
        dmxt_fill(&B, 3);
        st = dmx_layout_create_block_cyclic(ctx->comm, am, an, c->mb, c->nb, c->pr, c->pc, c->ord,
                                            0, 0, NULL, 1, &T);
    }
    bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "layouts", msg, sizeof msg);
    dmxt_expect e = {c->dtype, c->op, alpha, {0.0, 0.0}, 0, 0, DMXT_NAN, 3, 0, 0, am, an, 0, 0};
    dmx_transform t = {c->dtype, c->op, alpha, {0.0, 0.0}, B.layout, T, 0, 0};
    dmxt_matrix Au;
    memset(&Au, 0, sizeof Au);
    if (st == DMX_SUCCESS && !c->three_step) {
        st = dmx_plan_create_relabeled(1, &t, &c->opts, sigma, &nc, &A, &plan, &res);
        bad +=
            dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_plan_create_relabeled", msg, sizeof msg);
        if (st == DMX_SUCCESS) {
            st = dmx_plan_execute(plan);
            bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "execute", msg, sizeof msg);
            bad += check_target(A, &e, msg, sizeof msg);
        }
    } else if (st == DMX_SUCCESS) {
        st = dmx_relabel_compute(1, &t, &c->opts, sigma, &res);
        bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "dmx_relabel_compute", msg, sizeof msg);
        if (st == DMX_SUCCESS)
            st = dmx_relabel_comm(ctx->comm, sigma, &nc);
        if (st == DMX_SUCCESS) { /* the user's own target on the relabeled communicator */
            dmxt_matrix_bc(&Au, nc, c->dtype, am, an, c->mb, c->nb, c->pr, c->pc, c->ord, NULL, 0,
                           0, 1);
            st = dmxt_matrix_create(&Au);
            if (st == DMX_SUCCESS) {
                dmxt_fill(&Au, DMXT_NAN);
                t.a = Au.layout;
                st = dmx_plan_create(1, &t, &plan);
            }
            if (st == DMX_SUCCESS)
                st = dmx_plan_execute(plan);
            bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "plan on the relabeled comm", msg,
                                      sizeof msg);
            if (st == DMX_SUCCESS)
                bad += dmxt_check_result(&Au, &e, msg, sizeof msg);
        }
    }
    if (st == DMX_SUCCESS) {
        bad += check_sigma(ctx, sigma, nc, msg, sizeof msg);
        int64_t before = 0, after = 0, b0 = 0, b1 = 0;
        count_moves(ctx, &B, c->op, NULL, c->mb, c->nb, c->pr, c->pc, c->ord, &before, &b0);
        count_moves(ctx, &B, c->op, sigma, c->mb, c->nb, c->pr, c->pc, c->ord, &after, &b1);
        if (before != res.volume_identity || after != res.volume_relabeled) {
            bad++;
            snprintf(msg, sizeof msg, "volumes: dmx says %lld -> %lld, counted %lld -> %lld",
                     (long long)res.volume_identity, (long long)res.volume_relabeled,
                     (long long)before, (long long)after);
        }
        if (c->opts.cost == DMX_COST_VOLUME && c->opts.transform_weight == 0.0) {
            if ((double)b0 != res.busiest_identity || (double)b1 != res.busiest_relabeled) {
                bad++;
                snprintf(msg, sizeof msg, "busiest link: dmx says %g -> %g, counted %lld -> %lld",
                         res.busiest_identity, res.busiest_relabeled, (long long)b0, (long long)b1);
            }
        }
        if (res.cost_relabeled > res.cost_identity * (1 + 1e-12) + 1e-9) {
            bad++;
            snprintf(msg, sizeof msg, "cost got worse: %g -> %g", res.cost_identity,
                     res.cost_relabeled);
        }
        if (c->expect_zero && res.volume_relabeled != 0) {
            bad++;
            snprintf(msg, sizeof msg, "known case: %lld bytes still move",
                     (long long)res.volume_relabeled);
        }
        if (c->opts.cost == DMX_COST_VOLUME && c->opts.method == DMX_RELABEL_EXACT) {
            dmx_relabel_opts g = {
                DMX_RELABEL_GREEDY, DMX_COST_VOLUME, NULL, NULL, 0, 0, NULL, NULL};
            int *sg = calloc((size_t)ctx->size, sizeof *sg);
            dmx_transform tg = t;
            tg.a = T; /* the template on the original communicator */
            st = dmx_relabel_compute(1, &tg, &g, sg, &greedy);
            bad += dmxt_expect_status(ctx, st, DMX_SUCCESS, "greedy", msg, sizeof msg);
            if (st == DMX_SUCCESS && greedy.volume_relabeled < res.volume_relabeled) {
                bad++;
                snprintf(msg, sizeof msg, "greedy (%lld) beat exact (%lld)",
                         (long long)greedy.volume_relabeled, (long long)res.volume_relabeled);
            }
            free(sg);
        }
    }
    dmx_plan_destroy(&plan);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&T);
    if (Au.layout || Au.nalloc)
        dmxt_matrix_free(&Au);
    dmxt_matrix_free(&B);
    if (nc != MPI_COMM_NULL)
        MPI_Comm_free(&nc);
    free(sigma);
    dmxt_case_end(ctx, bad, msg, desc);
}

static double cost_cb(int src, int dst, int64_t bytes, int64_t tbytes, void *ctx)
{
    (void)ctx;
    if (src == dst)
        return 0.0;
    return (double)bytes * (1.0 + abs(src - dst)) + 0.5 * (double)tbytes;
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "relabel_transform");
    dmxt_rng rng;
    dmxt_rng_seed(&rng, ctx.seed, 11);
    int P = ctx.size;
    double *lat = malloc(sizeof(double) * (size_t)(P * P)),
           *bw = malloc(sizeof(double) * (size_t)(P * P));
    for (int i = 0; i < P * P; i++) {
        lat[i] = 1.0 + (double)dmxt_rng_int(&rng, 0, 100);
        bw[i] = 0.5 + dmxt_rng_unit(&rng);
    }

    /* Known cases: equal blocks on row- vs column-major grids, and a grid of one process row,
     * where the target is a pure permutation of the source's roles. */
    for (int d = 0; d < 4; d++) {
        int pr = 1, pc = P;
        for (int f = 1; f * f <= P; f++)
            if (P % f == 0)
                pr = f, pc = P / f;
        const dmx_dtype dt = (dmx_dtype)d;
        const int64_t m = 37 + d, n = 29, mb = 4, nb = 3;
        dmxt_matrix Bm; /* same blocks on the same grid, row-major rank order */
        char desc[200], msg[300] = "";
        int64_t bad = 0;
        dmxt_matrix_bc(&Bm, ctx.comm, dt, m, n, mb, nb, pr, pc, 'R', NULL, 0, 0, 0);
        snprintf(desc, sizeof desc, "known case %s: %dx%d 'R' -> 'C', equal blocks",
                 dmxt_dtype_name(dt), pr, pc);
        dmxt_set_current(desc);
        dmx_status st = dmxt_matrix_create(&Bm);
        dmx_layout *T = NULL, *A = NULL;
        dmx_plan *plan = NULL;
        MPI_Comm nc = MPI_COMM_NULL;
        int *sigma = calloc((size_t)P, sizeof *sigma);
        dmx_relabel_result res = {0};
        if (st == DMX_SUCCESS) {
            dmxt_fill(&Bm, 5);
            st = dmx_layout_create_block_cyclic(ctx.comm, m, n, mb, nb, pr, pc, 'C', 0, 0, NULL, 1,
                                                &T);
        }
        dmx_transform t = {dt, DMX_OP_N, {1.0, 0.0}, {0.0, 0.0}, Bm.layout, T, 0, 0};
        if (st == DMX_SUCCESS)
            st = dmx_plan_create_relabeled(1, &t, NULL, sigma, &nc, &A, &plan, &res);
        if (st == DMX_SUCCESS)
            st = dmx_plan_execute(plan);
        bad += dmxt_expect_status(&ctx, st, DMX_SUCCESS, "known case", msg, sizeof msg);
        if (st == DMX_SUCCESS) {
            dmxt_expect e = {dt, DMX_OP_N, {1.0, 0.0}, {0.0, 0.0}, 0, 0, DMXT_NAN,
                             5,  0,        0,          m,          n, 0, 0};
            bad += check_target(A, &e, msg, sizeof msg);
            bad += check_sigma(&ctx, sigma, nc, msg, sizeof msg);
            dmx_plan_info info;
            dmx_plan_get_info(plan, &info);
            if (res.volume_relabeled != 0 || info.send_elems != 0) {
                bad++;
                snprintf(msg, sizeof msg, "%lld bytes / %lld elements still move",
                         (long long)res.volume_relabeled, (long long)info.send_elems);
            }
        }
        dmx_plan_destroy(&plan);
        dmx_layout_destroy(&A);
        dmx_layout_destroy(&T);
        dmxt_matrix_free(&Bm);
        if (nc != MPI_COMM_NULL)
            MPI_Comm_free(&nc);
        free(sigma);
        dmxt_case_end(&ctx, bad, msg, desc);
    }

    /* Random cases: every dtype and op, every cost kind, both APIs. */
    int ncases = (int)dmxt_cases("DMX_TEST_CASES", 24);
    for (int k = 0; k < ncases; k++) {
        tcase c;
        memset(&c, 0, sizeof c);
        c.dtype = (dmx_dtype)(k % 4);
        c.op = (dmx_op)((k / 4) % 3);
        c.m = dmxt_rng_int(&rng, 1, 60);
        c.n = dmxt_rng_int(&rng, 1, 60);
        c.mb = dmxt_rng_int(&rng, 1, 12);
        c.nb = dmxt_rng_int(&rng, 1, 12);
        c.pr = (int)dmxt_rng_int(&rng, 1, P);
        c.pc = (int)dmxt_rng_int(&rng, 1, P / c.pr);
        c.ord = dmxt_rng_chance(&rng, 50) ? 'R' : 'C';
        c.bkind = -1;
        c.opts.method = k % 5 == 4 ? DMX_RELABEL_GREEDY : DMX_RELABEL_EXACT;
        c.opts.cost = (dmx_cost_kind)(k % 7 < 4 ? DMX_COST_VOLUME : k % 7 - 3);
        if (c.opts.method == DMX_RELABEL_GREEDY)
            c.opts.cost = DMX_COST_VOLUME;
        c.opts.latency = lat;
        c.opts.bandwidth = bw;
        c.opts.node_ratio = 4.0;
        c.opts.fn = cost_cb;
        c.opts.transform_weight = k % 6 == 5 && c.opts.cost != DMX_COST_VOLUME ? 0.25 : 0.0;
        c.three_step = k % 3 == 2;
        run_case(&ctx, &rng, &c, "random");
    }
    free(lat);
    free(bw);
    return dmxt_finish(&ctx);
}
