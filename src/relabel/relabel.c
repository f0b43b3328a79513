/* SPDX-License-Identifier: BSD-3-Clause */
/* Communication-optimal process relabeling for a batch of transforms (seed sections 3-4).
 *
 * 1. Every rank i measures its row of the package matrix: V[i][j] = bytes of B it holds that
 *    role j of the target needs (and T[i][j], the part that is transposed or scaled), by walking
 *    its own blocks exactly as the planner does. Cost O(own rectangles).
 * 2. The rows (O(peers) entries per rank) are gathered on rank 0, which solves the assignment
 *    problem and broadcasts sigma, so every rank holds the same answer. Memory on rank 0:
 *    O(P + nnz) for the volume cost, O(P^2) for the dense cost kinds.
 * 3. Volume cost: gain(j, y) = V[y][j] is sparse and the exact sparse solver applies (seed
 *    remark 2). Other costs: cost(j, y) = sum_i w(i, y, S_ij) is dense; the dense exact solver
 *    maximizes -cost.
 */
#include "lap.h"
#include "plan.h"

#include <string.h>

typedef struct vol_entry {
    int64_t role, bytes, tbytes;
} vol_entry;

typedef struct vol_ctx {
    vol_entry *v;
    int64_t n, cap;
    int64_t esize;
    int transformed;
} vol_ctx;

static dmx_status add_volume(void *ctx, int owner, int64_t r0, int64_t c0, int64_t rows,
                             int64_t cols)
{
    dmx_status st = DMX_SUCCESS;
    vol_ctx *c = ctx;
    (void)r0, (void)c0;
    DMXI_TRY(dmxi_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v));
    int64_t b = rows * cols * c->esize;
    c->v[c->n++] = (vol_entry){owner, b, c->transformed ? b : 0};
cleanup:
    return st;
}

static int cmp_entry(const void *x, const void *y)
{
    const vol_entry *a = x, *b = y;
    return a->role < b->role ? -1 : a->role > b->role;
}

static int is_one(dmx_scalar s)
{
    return s.re == 1.0 && s.im == 0.0;
}

/* This rank's row of the package matrix, merged by role. */
static dmx_status my_row(int nt, const dmx_transform *t, vol_ctx *c)
{
    dmx_status st = DMX_SUCCESS;
    for (int k = 0; k < nt; k++) {
        dmxi_xform x = {t[k], dmx_dtype_size(t[k].dtype), NULL, NULL, 0, NULL, NULL, 0};
        c->esize = (int64_t)x.esize;
        c->transformed = t[k].op != DMX_OP_N || !is_one(t[k].alpha) || t[k].beta.re != 0.0 ||
                         t[k].beta.im != 0.0;
        DMXI_TRY(dmxi_walk_source(&x, add_volume, c));
    }
    if (c->n > 0)
        qsort(c->v, (size_t)c->n, sizeof *c->v, cmp_entry);
    int64_t w = 0;
    for (int64_t i = 0; i < c->n; i++) {
        if (w > 0 && c->v[w - 1].role == c->v[i].role) {
            c->v[w - 1].bytes += c->v[i].bytes;
            c->v[w - 1].tbytes += c->v[i].tbytes;
        } else {
            c->v[w++] = c->v[i];
        }
    }
    c->n = w;
cleanup:
    return st;
}

typedef dmxi_relabel_pkgs matrix; /* rank 0's view of the whole package matrix (lap.h) */

static void matrix_free(matrix *m)
{
    free(m->rowptr);
    free(m->src);
    free(m->bytes);
    free(m->tbytes);
}

/* Cost of package k (of some role's row) sent from its source to rank y. */
static double pkg_cost(const dmx_relabel_opts *o, const matrix *M, const int *node, int64_t k,
                       int y)
{
    int i = M->src[k];
    double b = (double)M->bytes[k], tb = (double)M->tbytes[k], c = 0.0;
    switch (o->cost) {
    case DMX_COST_LATBW:
        if (i != y)
            c += o->latency[(size_t)i * (size_t)M->p + (size_t)y] +
                 o->bandwidth[(size_t)i * (size_t)M->p + (size_t)y] * b;
        break;
    case DMX_COST_NODE:
        if (i != y)
            c += node[i] == node[y] ? b : b * (o->node_ratio > 0 ? o->node_ratio : 10.0);
        break;
    case DMX_COST_CALLBACK: c += o->fn(i, y, M->bytes[k], M->tbytes[k], o->ctx); break;
    default:
        if (i != y)
            c += b;
    }
    if (i != y)
        c += o->transform_weight * tb;
    return c;
}

/* Cost of role j played by rank y under a dense cost kind. */
static double dense_cost(const dmx_relabel_opts *o, const matrix *M, const int *node, int j, int y)
{
    double c = 0.0;
    for (int64_t k = M->rowptr[j]; k < M->rowptr[j + 1]; k++)
        c += pkg_cost(o, M, node, k, y);
    return c;
}

double dmxi_relabel_busiest(const dmx_relabel_opts *o, const dmxi_relabel_pkgs *M, const int *node,
                            const int *sigma, double *load)
{
    const int p = M->p, by_node = o->cost == DMX_COST_NODE;
    double *out = load, *in = load + p, *mem = load + 2 * p, most = 0.0;
    for (int v = 0; v < 3 * p; v++)
        load[v] = 0.0;
    for (int j = 0; j < p; j++)
        for (int64_t k = M->rowptr[j]; k < M->rowptr[j + 1]; k++) {
            const int i = M->src[k], y = sigma ? sigma[j] : j;
            if (i == y)
                continue;
            const double c = pkg_cost(o, M, node, k, y);
            const int a = by_node ? node[i] : i, b = by_node ? node[y] : y;
            if (by_node && a == b) {
                mem[a] += c;
            } else {
                out[a] += c;
                in[b] += c;
            }
        }
    for (int v = 0; v < 3 * p; v++)
        most = load[v] > most ? load[v] : most;
    return most;
}

/* Solve on rank 0: fills sigma and the result. */
static dmx_status solve(const dmx_relabel_opts *o, const matrix *M, const int *node, int *sigma,
                        dmx_relabel_result *res)
{
    dmx_status st = DMX_SUCCESS;
    int p = M->p;
    double *gain = NULL, *load = NULL;
    double t0 = MPI_Wtime();
    if (o->method == DMX_RELABEL_IDENTITY) {
        for (int j = 0; j < p; j++)
            sigma[j] = j;
    } else if (o->cost == DMX_COST_VOLUME && o->transform_weight == 0.0) {
        dmxi_lap_sparse sp = {p, M->rowptr, M->src, M->bytes};
        if (o->method == DMX_RELABEL_GREEDY)
            DMXI_TRY(dmxi_lap_greedy(&sp, sigma, NULL));
        else
            DMXI_TRY(dmxi_lap_exact(&sp, sigma, NULL));
    } else {
        DMXI_CHECK(o->method == DMX_RELABEL_EXACT, DMX_ERR_UNSUPPORTED,
                   "the greedy method is only offered for the plain volume cost");
        DMXI_CHECK(p <= DMXI_LAP_DENSE_MAX_N, DMX_ERR_UNSUPPORTED,
                   "this cost needs a dense solve, limited to %d ranks (have %d)",
                   DMXI_LAP_DENSE_MAX_N, p);
        gain = dmxi_malloc((int64_t)p * p, sizeof *gain);
        DMXI_CHECK(gain, DMX_ERR_ALLOC, "out of memory for a %d x %d cost matrix", p, p);
        for (int j = 0; j < p; j++)
            for (int y = 0; y < p; y++)
                gain[(size_t)j * (size_t)p + (size_t)y] = -dense_cost(o, M, node, j, y);
        DMXI_TRY(dmxi_lap_dense(p, gain, sigma, NULL));
    }
    res->solve_seconds = MPI_Wtime() - t0;
    int64_t total = 0, kept_id = 0, kept = 0;
    for (int j = 0; j < p; j++)
        for (int64_t k = M->rowptr[j]; k < M->rowptr[j + 1]; k++) {
            total += M->bytes[k];
            kept_id += M->src[k] == j ? M->bytes[k] : 0;
            kept += M->src[k] == sigma[j] ? M->bytes[k] : 0;
        }
    res->volume_identity = total - kept_id;
    res->volume_relabeled = total - kept;
    res->cost_identity = res->cost_relabeled = 0.0;
    for (int j = 0; j < p; j++) {
        res->cost_identity += dense_cost(o, M, node, j, j);
        res->cost_relabeled += dense_cost(o, M, node, j, sigma[j]);
    }
    load = dmxi_malloc(3 * (int64_t)p, sizeof *load);
    DMXI_CHECK(load, DMX_ERR_ALLOC, "out of memory for the links' loads of %d ranks", p);
    res->busiest_identity = dmxi_relabel_busiest(o, M, node, NULL, load);
    res->busiest_relabeled = dmxi_relabel_busiest(o, M, node, sigma, load);
cleanup:
    free(gain);
    free(load);
    return st;
}

/* Node number of every rank (gathered on rank 0), for the node-aware cost. */
static dmx_status node_ids(MPI_Comm comm, int rank, int size, int **out)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm node = MPI_COMM_NULL;
    int leader = rank;
    *out = NULL;
    DMXI_TRY(dmxi_node_split(comm, &node));
    DMXI_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, node)); /* the node's lowest rank names it */
    if (rank == 0) {
        *out = dmxi_malloc(size, sizeof(int));
        DMXI_CHECK(*out, DMX_ERR_ALLOC, "out of memory");
    }
    DMXI_MPI(MPI_Gather(&leader, 1, MPI_INT, *out, 1, MPI_INT, 0, comm));
cleanup:
    if (node != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&node));
    return st;
}

/* The local checks of dmx_relabel_compute's arguments: on every rank the layouts' communicators,
 * sigma, the method and the cost kind; on rank 0 (which solves) also the cost's matrices or
 * callback. The last failure found is returned. Local. */
static dmx_status check_args(int ntransforms, const dmx_transform *transforms,
                             const dmx_relabel_opts *o, const int *sigma, MPI_Comm comm, int rank)
{
    dmx_status local = DMX_SUCCESS;
    for (int k = 0; k < ntransforms && local == DMX_SUCCESS; k++) {
        int cmp = MPI_UNEQUAL;
        if (MPI_Comm_compare(comm, transforms[k].b->d->comm, &cmp) != MPI_SUCCESS ||
            (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) ||
            MPI_Comm_compare(comm, transforms[k].a->d->comm, &cmp) != MPI_SUCCESS ||
            (cmp != MPI_IDENT && cmp != MPI_CONGRUENT))
            local = dmxi_error(DMX_ERR_LAYOUT, __FILE__, __LINE__,
                               "relabeling needs all layouts on one communicator");
    }
    if (!sigma)
        local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "sigma is NULL");
    if ((int)o->method < 0 || o->method > DMX_RELABEL_IDENTITY || (int)o->cost < 0 ||
        o->cost > DMX_COST_CALLBACK)
        local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__, "invalid method or cost kind");
    if (o->cost == DMX_COST_LATBW && rank == 0 && (!o->latency || !o->bandwidth))
        local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "latency/bandwidth matrices are NULL");
    if (o->cost == DMX_COST_CALLBACK && rank == 0 && !o->fn)
        local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "cost callback is NULL");
    return local;
}

/* On rank 0: the package matrix M of the size ranks by role, from the gathered (role, bytes,
 * tbytes) triples (rank r's are the counts[r] numbers from recv[displs[r]] on, nnz triples in
 * all), sources ascending in every row. Local. */
static dmx_status build_matrix(int size, const int64_t *recv, const int *counts, const int *displs,
                               int64_t nnz, matrix *M)
{
    dmx_status local = DMX_SUCCESS;
    M->p = size;
    M->rowptr = dmxi_calloc(size + 1, sizeof(int64_t));
    M->src = dmxi_malloc(nnz, sizeof(int));
    M->bytes = dmxi_malloc(nnz, sizeof(int64_t));
    M->tbytes = dmxi_malloc(nnz, sizeof(int64_t));
    if (!M->rowptr || !M->src || !M->bytes || !M->tbytes)
        local = dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory");
    for (int64_t k = 0; local == DMX_SUCCESS && k < nnz; k++)
        M->rowptr[recv[3 * k] + 1]++;
    for (int j = 0; local == DMX_SUCCESS && j < size; j++)
        M->rowptr[j + 1] += M->rowptr[j];
    for (int r = 0; local == DMX_SUCCESS && r < size; r++) /* sources ascending */
        for (int k = displs[r] / 3; k < (displs[r] + counts[r]) / 3; k++) {
            int64_t at = M->rowptr[recv[3 * k]]++;
            M->src[at] = r;
            M->bytes[at] = recv[3 * k + 1];
            M->tbytes[at] = recv[3 * k + 2];
        }
    for (int j = size; local == DMX_SUCCESS && j > 0; j--)
        M->rowptr[j] = M->rowptr[j - 1];
    if (M->rowptr)
        M->rowptr[0] = 0;
    return local;
}

/* Rank 0's volumes, costs and solve time in *res to every rank. Collective. */
static dmx_status share_result(MPI_Comm comm, dmx_relabel_result *res)
{
    dmx_status st = DMX_SUCCESS;
    double r[5] = {res->cost_identity, res->cost_relabeled, res->solve_seconds,
                   res->busiest_identity, res->busiest_relabeled};
    int64_t v[2] = {res->volume_identity, res->volume_relabeled};
    DMXI_MPI(MPI_Bcast(v, 2, MPI_INT64_T, 0, comm));
    DMXI_MPI(MPI_Bcast(r, 5, MPI_DOUBLE, 0, comm));
    res->volume_identity = v[0], res->volume_relabeled = v[1];
    res->cost_identity = r[0], res->cost_relabeled = r[1], res->solve_seconds = r[2];
    res->busiest_identity = r[3], res->busiest_relabeled = r[4];
cleanup:
    return st;
}

dmx_status dmx_relabel_compute(int ntransforms, const dmx_transform *transforms,
                               const dmx_relabel_opts *opts, int *sigma, dmx_relabel_result *result)
{
    dmx_status st = DMX_SUCCESS;
    dmx_relabel_opts o = {0};
    dmx_relabel_result res = {0};
    vol_ctx c = {0};
    matrix M = {0};
    int *counts = NULL, *displs = NULL, *node = NULL;
    int64_t *recv = NULL, *send = NULL;
    dmxi_error_clear();
    DMXI_TRY(dmxi_transforms_validate(ntransforms, transforms, 0));
    MPI_Comm comm = transforms[0].a->d->comm;
    int rank = transforms[0].a->d->rank, size = transforms[0].a->d->size;
    if (opts)
        o = *opts;
    {
        dmx_status local = check_args(ntransforms, transforms, &o, sigma, comm, rank);
        if (local == DMX_SUCCESS)
            local = my_row(ntransforms, transforms, &c);
        DMXI_TRY(dmxi_agree(comm, local));
    }
    if (o.cost == DMX_COST_NODE)
        DMXI_TRY(node_ids(comm, rank, size, &node));

    /* Gather the rows on rank 0 as (role, bytes, tbytes) triples. */
    {
        int mine;
        DMXI_TRY(dmxi_agree(comm, dmxi_to_int(3 * c.n, &mine, "relabeling row")));
        send = dmxi_malloc(3 * c.n, sizeof *send);
        if (rank == 0) {
            counts = dmxi_malloc(size, sizeof(int));
            displs = dmxi_malloc(size, sizeof(int));
        }
        DMXI_TRY(
            dmxi_agree(comm, send && (rank != 0 || (counts && displs))
                                 ? DMX_SUCCESS
                                 : dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory")));
        for (int64_t i = 0; i < c.n; i++) {
            send[3 * i] = c.v[i].role;
            send[3 * i + 1] = c.v[i].bytes;
            send[3 * i + 2] = c.v[i].tbytes;
        }
        DMXI_MPI(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
        dmx_status local = DMX_SUCCESS;
        int64_t total = 0;
        if (rank == 0) {
            for (int r = 0; r < size; r++)
                total += counts[r];
            if (total > INT_MAX)
                local = dmxi_error(DMX_ERR_OVERFLOW, __FILE__, __LINE__,
                                   "package matrix too large to gather (%lld entries)",
                                   (long long)total / 3);
            for (int r = 0, d = 0; r < size && local == DMX_SUCCESS; r++)
                displs[r] = d, d += counts[r];
            recv = dmxi_malloc(total, sizeof *recv);
            if (!recv && local == DMX_SUCCESS)
                local = dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory");
        }
        DMXI_TRY(dmxi_agree(comm, local));
        DMXI_MPI(MPI_Gatherv(send, mine, MPI_INT64_T, recv, counts, displs, MPI_INT64_T, 0, comm));

        /* Rank 0 builds the matrix by role and solves; everyone learns the outcome. */
        if (rank == 0) {
            local = build_matrix(size, recv, counts, displs, total / 3, &M);
            if (local == DMX_SUCCESS)
                local = solve(&o, &M, node, sigma, &res);
        }
        DMXI_TRY(dmxi_agree(comm, local));
    }
    DMXI_MPI(MPI_Bcast(sigma, size, MPI_INT, 0, comm));
    DMXI_TRY(share_result(comm, &res));
    if (result)
        *result = res;
cleanup:
    free(c.v);
    free(send);
    free(recv);
    free(counts);
    free(displs);
    free(node);
    matrix_free(&M);
    return st;
}

dmx_status dmx_relabel_comm(MPI_Comm comm, const int *sigma, MPI_Comm *newcomm)
{
    dmx_status st = DMX_SUCCESS;
    int rank = 0, size = 0, role = -1;
    char *seen = NULL;
    dmx_status local = DMX_SUCCESS;
    dmxi_error_clear();
    DMXI_MPI(MPI_Comm_rank(comm, &rank));
    DMXI_MPI(MPI_Comm_size(comm, &size));
    if (!sigma || !newcomm) {
        local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "sigma or newcomm is NULL");
    } else {
        seen = calloc((size_t)size, 1);
        if (!seen)
            local = dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory");
        for (int j = 0; seen && j < size && local == DMX_SUCCESS; j++) {
            if (sigma[j] < 0 || sigma[j] >= size || seen[sigma[j]])
                local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__,
                                   "sigma is not a permutation of the ranks (at %d)", j);
            else
                seen[sigma[j]] = 1;
            if (sigma[j] == rank)
                role = j;
        }
    }
    DMXI_TRY(dmxi_agree(comm, local));
    DMXI_MPI(MPI_Comm_split(comm, 0, role, newcomm));
cleanup:
    free(seen);
    return st;
}

dmx_status dmx_plan_create_relabeled(int ntransforms, const dmx_transform *transforms,
                                     const dmx_relabel_opts *opts, int *sigma, MPI_Comm *newcomm,
                                     dmx_layout **relabeled, dmx_plan **plan,
                                     dmx_relabel_result *result)
{
    dmx_status st = DMX_SUCCESS;
    dmx_transform *t = NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    int k = 0;
    dmxi_error_clear();
    if (plan)
        *plan = NULL;
    DMXI_TRY(dmxi_transforms_validate(ntransforms, transforms, 0));
    MPI_Comm comm = transforms[0].a->d->comm;
    {
        dmx_status local = DMX_SUCCESS;
        if (!newcomm || !relabeled || !plan)
            local =
                dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "newcomm, relabeled or plan is NULL");
        for (int i = 0; i < ntransforms && local == DMX_SUCCESS; i++)
            if (transforms[i].beta.re != 0.0 || transforms[i].beta.im != 0.0)
                local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__,
                                   "transform %d: beta must be 0 when the target is relabeled", i);
        t = dmxi_malloc(ntransforms, sizeof *t);
        if (!t && local == DMX_SUCCESS)
            local = dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory");
        DMXI_TRY(dmxi_agree(comm, local));
    }
    for (int i = 0; i < ntransforms; i++)
        relabeled[i] = NULL;
    DMXI_TRY(dmx_relabel_compute(ntransforms, transforms, opts, sigma, result));
    DMXI_TRY(dmx_relabel_comm(comm, sigma, &nc));
    for (k = 0; k < ntransforms; k++) {
        DMXI_TRY(dmxi_agree(nc, dmxi_layout_clone_on(transforms[k].a, nc,
                                                     dmx_dtype_size(transforms[k].dtype),
                                                     &relabeled[k])));
        t[k] = transforms[k];
        t[k].a = relabeled[k];
    }
    DMXI_TRY(dmx_plan_create(ntransforms, t, plan));
    *newcomm = nc;
    nc = MPI_COMM_NULL;
cleanup:
    if (st != DMX_SUCCESS && relabeled)
        for (int i = 0; i < k && i < ntransforms; i++)
            dmx_layout_destroy(&relabeled[i]);
    if (nc != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&nc));
    free(t);
    return st;
}
