/* SPDX-License-Identifier: BSD-3-Clause */
/* The measurement engine of the collectives benchmark and calibration (bench_coll.h). */
#include "bench_coll.h"
#include "bench_util.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bcoll_steady_malloc(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--malloc-default") == 0)
            return 0;
#if defined(__GLIBC__)
    /* No mmap'ed chunks, no trimming: a freed temporary is reused by the next call. */
    return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
#else
    return 0;
#endif
}

static int is_blocked(dmx_coll_kind k)
{
    return k == DMX_COLL_SCATTER || k == DMX_COLL_GATHER || k == DMX_COLL_ALLGATHER ||
           k == DMX_COLL_REDUCE_SCATTER || k == DMX_COLL_ALLTOALL;
}

int bcoll_nodes(void)
{
    static int nodes = 0;
    if (nodes == 0) {
        MPI_Comm node;
        int r = 0, leader = 0;
        MPI_Comm_split_type(bcoll_world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &r);
        leader = r == 0;
        MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, bcoll_world);
        MPI_Comm_free(&node);
    }
    return nodes;
}

static void reference(bcoll_case *c)
{
    int n = (int)c->count;
    MPI_Comm w = bcoll_world;
    int p = c->size, r = c->rank;
    switch (c->kind) {
    case DMX_COLL_BCAST:
        if (r == c->root)
            memcpy(c->ref, c->in, (size_t)c->in_bytes);
        MPI_Bcast(c->ref, n, MPI_INT, c->root, w);
        break;
    case DMX_COLL_SCATTER: MPI_Scatter(c->in, n, MPI_INT, c->ref, n, MPI_INT, c->root, w); break;
    case DMX_COLL_GATHER: MPI_Gather(c->in, n, MPI_INT, c->ref, n, MPI_INT, c->root, w); break;
    case DMX_COLL_ALLGATHER: MPI_Allgather(c->in, n, MPI_INT, c->ref, n, MPI_INT, w); break;
    case DMX_COLL_REDUCE: MPI_Reduce(c->in, c->ref, n, MPI_INT, MPI_SUM, c->root, w); break;
    case DMX_COLL_ALLREDUCE: MPI_Allreduce(c->in, c->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(c->in, c->ref, n, MPI_INT, MPI_SUM, w);
        break;
    case DMX_COLL_ALLTOALL: MPI_Alltoall(c->in, n, MPI_INT, c->ref, n, MPI_INT, w); break;
    case DMX_COLL_SCAN: MPI_Scan(c->in, c->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_EXSCAN: MPI_Exscan(c->in, c->ref, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_SHIFT:
        MPI_Sendrecv(c->in, n, MPI_INT, (r + 1) % p, 1, c->ref, n, MPI_INT, (r - 1 + p) % p, 1, w,
                     MPI_STATUS_IGNORE);
        break;
    default: break;
    }
}

int bcoll_setup(bcoll_case *c, dmx_coll_kind kind, int64_t bytes)
{
    memset(c, 0, sizeof *c);
    MPI_Comm_rank(bcoll_world, &c->rank);
    MPI_Comm_size(bcoll_world, &c->size);
    c->kind = kind;
    c->sample = BCOLL_SAMPLE;
    c->count = bytes / 4;
    c->bytes = c->count * 4;
    c->root = 0;
    int64_t blk = c->bytes, p = c->size;
    int64_t inb = blk, outb = blk;
    switch (kind) {
    case DMX_COLL_SCATTER: inb = blk * p; break;
    case DMX_COLL_GATHER:
    case DMX_COLL_ALLGATHER: outb = blk * p; break;
    case DMX_COLL_REDUCE_SCATTER: inb = blk * p; break;
    case DMX_COLL_ALLTOALL: inb = outb = blk * p; break;
    default: break;
    }
    (void)is_blocked;
    c->in_bytes = inb;
    c->out_bytes = outb;
    c->cmp_bytes = outb;
    if ((kind == DMX_COLL_GATHER || kind == DMX_COLL_REDUCE) && c->rank != c->root)
        c->cmp_bytes = 0;
    if (kind == DMX_COLL_EXSCAN && c->rank == 0)
        c->cmp_bytes = 0;
    c->in = malloc((size_t)(inb > 0 ? inb : 1));
    c->out = malloc((size_t)(outb > 0 ? outb : 1));
    c->ref = malloc((size_t)(outb > 0 ? outb : 1));
    int ok = c->in && c->out && c->ref, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, bcoll_world);
    if (!all) {
        bcoll_free(c);
        return -1;
    }
    int *v = (int *)c->in;
    for (int64_t i = 0; i < inb / 4; i++)
        v[i] = (int)((c->rank * 7919 + i * 31) % 1000) - 500;
    memset(c->out, 0, (size_t)(outb > 0 ? outb : 1));
    memset(c->ref, 0, (size_t)(outb > 0 ? outb : 1));
    reference(c);
    return 0;
}

void bcoll_free(bcoll_case *c)
{
    free(c->in);
    free(c->out);
    free(c->ref);
    c->in = c->out = c->ref = NULL;
}

/* The MPI library's own call, straight (no dmx front end), on a private duplicate. */
static dmx_status native(bcoll_case *c)
{
    static MPI_Comm w = MPI_COMM_NULL;
    if (w == MPI_COMM_NULL)
        MPI_Comm_dup(bcoll_world, &w);
    int n = (int)c->count, p = c->size, r = c->rank, rc = MPI_SUCCESS;
    switch (c->kind) {
    case DMX_COLL_BCAST: rc = MPI_Bcast(c->out, n, MPI_INT, c->root, w); break;
    case DMX_COLL_SCATTER:
        rc = MPI_Scatter(c->in, n, MPI_INT, c->out, n, MPI_INT, c->root, w);
        break;
    case DMX_COLL_GATHER: rc = MPI_Gather(c->in, n, MPI_INT, c->out, n, MPI_INT, c->root, w); break;
    case DMX_COLL_ALLGATHER: rc = MPI_Allgather(c->in, n, MPI_INT, c->out, n, MPI_INT, w); break;
    case DMX_COLL_REDUCE: rc = MPI_Reduce(c->in, c->out, n, MPI_INT, MPI_SUM, c->root, w); break;
    case DMX_COLL_ALLREDUCE: rc = MPI_Allreduce(c->in, c->out, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(c->in, c->out, n, MPI_INT, MPI_SUM, w);
        break;
    case DMX_COLL_ALLTOALL: rc = MPI_Alltoall(c->in, n, MPI_INT, c->out, n, MPI_INT, w); break;
    case DMX_COLL_SCAN: rc = MPI_Scan(c->in, c->out, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_EXSCAN: rc = MPI_Exscan(c->in, c->out, n, MPI_INT, MPI_SUM, w); break;
    case DMX_COLL_SHIFT:
        rc = MPI_Sendrecv(c->in, n, MPI_INT, (r + 1) % p, 1, c->out, n, MPI_INT, (r - 1 + p) % p, 1,
                          w, MPI_STATUS_IGNORE);
        break;
    default: return DMX_ERR_INTERNAL;
    }
    return rc == MPI_SUCCESS ? DMX_SUCCESS : DMX_ERR_MPI;
}

static dmx_status call(bcoll_case *c, dmx_coll_alg alg)
{
    MPI_Comm w = bcoll_world;
    int64_t n = c->count;
    if (alg == DMX_COLL_MPI)
        return native(c);
    switch (c->kind) {
    case DMX_COLL_BCAST: return dmx_coll_bcast(c->out, n, MPI_INT, c->root, w, alg);
    case DMX_COLL_SCATTER: return dmx_coll_scatter(c->in, c->out, n, MPI_INT, c->root, w, alg);
    case DMX_COLL_GATHER: return dmx_coll_gather(c->in, c->out, n, MPI_INT, c->root, w, alg);
    case DMX_COLL_ALLGATHER: return dmx_coll_allgather(c->in, c->out, n, MPI_INT, w, alg);
    case DMX_COLL_REDUCE:
        return dmx_coll_reduce(c->in, c->out, n, MPI_INT, MPI_SUM, c->root, w, alg);
    case DMX_COLL_ALLREDUCE: return dmx_coll_allreduce(c->in, c->out, n, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_REDUCE_SCATTER:
        return dmx_coll_reduce_scatter(c->in, c->out, n, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_ALLTOALL: return dmx_coll_alltoall(c->in, c->out, n, MPI_INT, w, alg);
    case DMX_COLL_SCAN: return dmx_coll_scan(c->in, c->out, n, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_EXSCAN: return dmx_coll_exscan(c->in, c->out, n, MPI_INT, MPI_SUM, w, alg);
    case DMX_COLL_SHIFT: return dmx_coll_shift(c->in, c->out, n, MPI_INT, 1, w, alg);
    default: return DMX_ERR_INTERNAL;
    }
}

double bcoll_time(bcoll_case *c, dmx_coll_alg alg, int calls, int *wrong)
{
    /* The broadcast's input is the root's output buffer, set before the clock starts (no
     * collective changes the root's buffer, so a batch keeps it). */
    if (c->kind == DMX_COLL_BCAST && c->rank == c->root)
        memcpy(c->out, c->in, (size_t)c->in_bytes);
    if (calls < 1)
        calls = 1;
    /* One untimed call first: the sample then starts from this algorithm's own cache and
     * memory state, not from what the algorithm before it left (with a single timed call, a
     * 2 MiB exscan by MPI's call measured 20 % slower after a dmx algorithm than after itself). */
    dmx_status st = call(c, alg);
    MPI_Barrier(bcoll_world);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls && st == DMX_SUCCESS; i++)
        st = call(c, alg);
    double tmax = bench_max_over_ranks(bcoll_world, MPI_Wtime() - t0) / calls;
    int bad = st != DMX_SUCCESS ||
              (c->cmp_bytes > 0 && memcmp(c->out, c->ref, (size_t)c->cmp_bytes) != 0);
    int v[1] = {bad}, s[1] = {0};
    MPI_Allreduce(v, s, 1, MPI_INT, MPI_SUM, bcoll_world);
    if (c->cmp_bytes > 0)
        memset(c->out, 0, (size_t)c->cmp_bytes); /* the next run must write it again */
    *wrong = s[0];
    return tmax;
}

int bcoll_calls(double t_call, double sample)
{
    if (!(t_call > 0))
        return BCOLL_MAX_CALLS;
    double n = ceil(sample / t_call);
    return n < 1 ? 1 : (n > BCOLL_MAX_CALLS ? BCOLL_MAX_CALLS : (int)n);
}

int bcoll_measure(bcoll_case *c, const int *algs, int na, int reps, double budget, int max_reps,
                  double *med, int *wrong, int *calls_out)
{
    enum { CAP = 64 };
    double t[BCOLL_MAXALGS][CAP], warm = 0, fastest = 1e300;
    int w = 0, calls = 1;
    if (na > BCOLL_MAXALGS)
        na = BCOLL_MAXALGS;
    for (int i = 0; i < na; i++)
        wrong[i] = 0;
    /* Warm-up (first touch of every buffer, MPI's connections and internal buffers, dmx's
     * communicator cache): every algorithm once, then once more as a batch of the calls per
     * sample that the fastest single call suggests; the batch's times set the calls per sample
     * and the number of rounds. */
    for (int pass = 0; pass < 2; pass++) {
        warm = 0;
        fastest = 1e300;
        for (int i = 0; i < na; i++) {
            double x = bcoll_time(c, (dmx_coll_alg)algs[i], calls, &w);
            wrong[i] += w;
            warm += x * calls;
            fastest = x < fastest ? x : fastest;
        }
        calls = bcoll_calls(fastest, c->sample);
    }
    if (max_reps > CAP)
        max_reps = CAP;
    if (reps <= 0) {
        reps = warm > 0 ? (int)(budget / warm) : max_reps;
        reps = reps < 7 ? 7 : (reps > max_reps ? max_reps : reps);
    }
    if (reps > CAP)
        reps = CAP;
    /* Round k runs every algorithm once, starting at algorithm k mod na, so a slow spell of the
     * machine, and whatever one call leaves behind for the next (caches, MPI's internal
     * buffers, a peer still finishing), hits every algorithm alike. */
    for (int k = 0; k < reps; k++)
        for (int j = 0; j < na; j++) {
            int i = (j + k) % na;
            t[i][k] = bcoll_time(c, (dmx_coll_alg)algs[i], calls, &w);
            wrong[i] += w;
        }
    for (int i = 0; i < na; i++)
        med[i] = bench_median(t[i], reps);
    if (calls_out)
        *calls_out = calls;
    return reps;
}

int bcoll_parse_names(const char *s, int *sel, int n, int is_alg)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", s);
    for (int i = 0; i < n; i++)
        sel[i] = 0;
    for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) {
        int found = 0;
        if (is_alg && strcmp(t, "dmx") == 0) { /* every algorithm of dmx's own */
            for (int i = DMX_COLL_MPI + 1; i < n; i++)
                sel[i] = found = 1;
            continue;
        }
        for (int i = 0; i < n; i++) {
            const char *nm =
                is_alg ? dmx_coll_alg_name((dmx_coll_alg)i) : dmx_coll_kind_name((dmx_coll_kind)i);
            if (nm && strcmp(nm, t) == 0)
                sel[i] = found = 1;
        }
        if (!found)
            return -1;
    }
    return 0;
}

double bcoll_predict(const bcoll_case *c, dmx_coll_alg alg, dmx_coll_alg *chosen)
{
    double t = -1;
    if (dmx_coll_predict(c->kind, alg, c->size, c->bytes, bcoll_nodes(), &t, chosen) != DMX_SUCCESS)
        return -1;
    return t;
}
