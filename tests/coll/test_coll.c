/* SPDX-License-Identifier: BSD-3-Clause */
/* Every collective x every algorithm (and AUTO and MPI) against the MPI library's own
 * collective on the same input: sizes 0, 1, 7, p+1 (not divisible by p) and ~1 MB, every root
 * in {0, p/2, p-1}, several datatypes and ops (integer values, so sums are exact), in place
 * and not. A case passes when every significant output byte equals MPI's (and, for exscan on
 * rank 0 and non-root outputs, when dmx left the buffer untouched).
 * A second sweep covers the MPI library's call with counts above what one MPI call takes
 * (INT_MAX elements, chunked by dmx: coll_api.c, run_mpi_large) at small sizes: DMX_COLL_MPI
 * and AUTO (which then runs a dmx algorithm for the blocked collectives), with the test hooks
 * dmxi_coll_mpi_count_max = 5 and dmxi_coll_mpi_chunk_bytes = 16 (so 1-4 elements per chunk,
 * several chunks, the last one short), every collective, root and in-place variant.
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (tests/common). */
#include "coll/coll_internal.h"
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tcase {
    dmx_coll_kind kind;
    dmx_coll_alg alg;
    int64_t count;
    MPI_Datatype type;
    MPI_Op op;
    int root, inplace;
    int64_t k;
} tcase;

static const char *tname(MPI_Datatype t)
{
    if (t == MPI_INT)
        return "int";
    if (t == MPI_DOUBLE)
        return "double";
    if (t == MPI_CHAR)
        return "char";
    if (t == MPI_C_DOUBLE_COMPLEX)
        return "zdouble";
    if (t == MPI_LONG_LONG)
        return "llong";
    return "?";
}

static const char *oname(MPI_Op o)
{
    if (o == MPI_SUM)
        return "sum";
    if (o == MPI_MAX)
        return "max";
    if (o == MPI_BXOR)
        return "bxor";
    return "-";
}

/* Small integer values (exact in every type), distinct per rank and index. */
static void fill(void *buf, MPI_Datatype t, int64_t n, int rank, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        int v = (int)((rank * 131 + i * 7 + (int64_t)(seed % 97)) % 61) - 30;
        if (t == MPI_INT)
            ((int *)buf)[i] = v;
        else if (t == MPI_DOUBLE)
            ((double *)buf)[i] = v;
        else if (t == MPI_LONG_LONG)
            ((long long *)buf)[i] = (long long)v * 1000003LL;
        else if (t == MPI_C_DOUBLE_COMPLEX) {
            ((double *)buf)[2 * i] = v;
            ((double *)buf)[2 * i + 1] = -v - 1;
        } else
            ((char *)buf)[i] = (char)v;
    }
}

/* MPI's own result for the case into ref (the same layout dmx fills). */
static void reference(const tcase *c, const void *in, void *ref, int rank, int p)
{
    int n = (int)c->count;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (c->kind) {
    case DMX_COLL_BCAST:
        if (rank == c->root)
            memcpy(ref, in, 0); /* ref was filled with the input by the caller */
        MPI_Bcast(ref, n, c->type, c->root, w);
        break;
    case DMX_COLL_SCATTER: MPI_Scatter(in, n, c->type, ref, n, c->type, c->root, w); break;
    case DMX_COLL_GATHER: MPI_Gather(in, n, c->type, ref, n, c->type, c->root, w); break;
    case DMX_COLL_ALLGATHER: MPI_Allgather(in, n, c->type, ref, n, c->type, w); break;
    case DMX_COLL_REDUCE: MPI_Reduce(in, ref, n, c->type, c->op, c->root, w); break;
    case DMX_COLL_ALLREDUCE: MPI_Allreduce(in, ref, n, c->type, c->op, w); break;
    case DMX_COLL_REDUCE_SCATTER: MPI_Reduce_scatter_block(in, ref, n, c->type, c->op, w); break;
    case DMX_COLL_ALLTOALL: MPI_Alltoall(in, n, c->type, ref, n, c->type, w); break;
    case DMX_COLL_SCAN: MPI_Scan(in, ref, n, c->type, c->op, w); break;
    case DMX_COLL_EXSCAN: MPI_Exscan(in, ref, n, c->type, c->op, w); break;
    case DMX_COLL_SHIFT: {
        int kk = (int)(((c->k % p) + p) % p);
        MPI_Sendrecv(in, n, c->type, (rank + kk) % p, 5, ref, n, c->type, (rank - kk + p) % p, 5, w,
                     MPI_STATUS_IGNORE);
        break;
    }
    default: break;
    }
}

/* Run dmx for the case; in is this rank's input, out the output buffer (pre-filled with the
 * sentinel); returns the status. */
static dmx_status run_dmx(const tcase *c, const void *in, void *out, int rank, int p, int64_t es)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int64_t n = c->count, b = n * es;
    const void *s = in;
    void *r = out;
    int root = rank == c->root;
    if (c->inplace) {
        switch (c->kind) {
        case DMX_COLL_SCATTER:
            if (root)
                r = MPI_IN_PLACE;
            break;
        case DMX_COLL_GATHER:
            if (root) {
                memcpy((char *)out + c->root * b, in, (size_t)b);
                s = MPI_IN_PLACE;
            }
            break;
        case DMX_COLL_ALLGATHER:
            memcpy((char *)out + rank * b, in, (size_t)b);
            s = MPI_IN_PLACE;
            break;
        case DMX_COLL_REDUCE:
            if (root) {
                memcpy(out, in, (size_t)b);
                s = MPI_IN_PLACE;
            }
            break;
        case DMX_COLL_ALLREDUCE:
        case DMX_COLL_SCAN:
        case DMX_COLL_EXSCAN:
        case DMX_COLL_SHIFT:
            memcpy(out, in, (size_t)b);
            s = MPI_IN_PLACE;
            break;
        case DMX_COLL_REDUCE_SCATTER:
        case DMX_COLL_ALLTOALL:
            memcpy(out, in, (size_t)(b * p));
            s = MPI_IN_PLACE;
            break;
        default: break;
        }
    }
    switch (c->kind) {
    case DMX_COLL_BCAST:
        if (root)
            memcpy(out, in, (size_t)b);
        return dmx_coll_bcast(out, n, c->type, c->root, w, c->alg);
    case DMX_COLL_SCATTER: return dmx_coll_scatter(s, r, n, c->type, c->root, w, c->alg);
    case DMX_COLL_GATHER: return dmx_coll_gather(s, r, n, c->type, c->root, w, c->alg);
    case DMX_COLL_ALLGATHER: return dmx_coll_allgather(s, r, n, c->type, w, c->alg);
    case DMX_COLL_REDUCE: return dmx_coll_reduce(s, r, n, c->type, c->op, c->root, w, c->alg);
    case DMX_COLL_ALLREDUCE: return dmx_coll_allreduce(s, r, n, c->type, c->op, w, c->alg);
    case DMX_COLL_REDUCE_SCATTER:
        return dmx_coll_reduce_scatter(s, r, n, c->type, c->op, w, c->alg);
    case DMX_COLL_ALLTOALL: return dmx_coll_alltoall(s, r, n, c->type, w, c->alg);
    case DMX_COLL_SCAN: return dmx_coll_scan(s, r, n, c->type, c->op, w, c->alg);
    case DMX_COLL_EXSCAN: return dmx_coll_exscan(s, r, n, c->type, c->op, w, c->alg);
    case DMX_COLL_SHIFT: return dmx_coll_shift(s, r, n, c->type, c->k, w, c->alg);
    default: return DMX_ERR_INTERNAL;
    }
}

static void one_case(dmxt_ctx *ctx, const tcase *c)
{
    int rank = ctx->rank, p = ctx->size, es = 0;
    MPI_Type_size(c->type, &es);
    int64_t n = c->count, b = n * es, big = (b * p > 0 ? b * p : 1);
    char desc[200];
    snprintf(desc, sizeof desc,
             "%s alg=%s count=%lld type=%s op=%s root=%d inplace=%d k=%lld np=%d",
             dmx_coll_kind_name(c->kind), dmx_coll_alg_name(c->alg), (long long)n, tname(c->type),
             oname(c->op), c->root, c->inplace, (long long)c->k, p);
    dmxt_set_current(desc);
    dmxt_checker C = {ctx, 0, ""};
    char *in = malloc((size_t)big), *out = malloc((size_t)big), *ref = malloc((size_t)big);
    if (!in || !out || !ref) {
        dmxt_fail(&C, "out of memory");
        goto done;
    }
    fill(in, c->type, n * p, rank, ctx->seed);
    memset(out, 0x5a, (size_t)big);
    memset(ref, 0x5a, (size_t)big);
    if (c->kind == DMX_COLL_BCAST && rank == c->root)
        memcpy(ref, in, (size_t)b);
    reference(c, in, ref, rank, p);
    dmx_status st = run_dmx(c, in, out, rank, p, es);
    if (st != DMX_SUCCESS) {
        dmxt_fail(&C, "status %s: %s", dmx_status_string(st), dmx_last_error());
        goto done;
    }
    /* Which bytes are significant here. */
    int64_t cmp = b;
    int root = rank == c->root;
    switch (c->kind) {
    case DMX_COLL_GATHER: cmp = root ? b * p : 0; break;
    case DMX_COLL_ALLGATHER:
    case DMX_COLL_ALLTOALL: cmp = b * p; break;
    case DMX_COLL_REDUCE: cmp = root ? b : 0; break;
    case DMX_COLL_SCATTER: cmp = (root && c->inplace) ? 0 : b; break;
    case DMX_COLL_EXSCAN: cmp = rank == 0 ? 0 : b; break;
    default: break;
    }
    if (cmp > 0 && memcmp(out, ref, (size_t)cmp) != 0) {
        int64_t i = 0;
        while (i < cmp && out[i] == ref[i])
            i++;
        dmxt_fail(&C, "rank %d: byte %lld differs from MPI's (%d vs %d)", rank, (long long)i,
                  out[i], ref[i]);
    }
    /* Untouched: exscan on rank 0 (not in place), non-root outputs of gather and reduce. */
    int untouched = (c->kind == DMX_COLL_EXSCAN && rank == 0 && !c->inplace) ||
                    ((c->kind == DMX_COLL_GATHER || c->kind == DMX_COLL_REDUCE) && !root);
    if (untouched)
        for (int64_t i = 0; i < big; i++)
            if ((unsigned char)out[i] != 0x5a) {
                dmxt_fail(&C, "rank %d: byte %lld of an insignificant output written", rank,
                          (long long)i);
                break;
            }
done:
    dmxt_case_end(ctx, C.bad, C.msg, desc);
    free(in);
    free(out);
    free(ref);
}

static int is_red(dmx_coll_kind k)
{
    return k == DMX_COLL_REDUCE || k == DMX_COLL_ALLREDUCE || k == DMX_COLL_REDUCE_SCATTER ||
           k == DMX_COLL_SCAN || k == DMX_COLL_EXSCAN;
}

static int is_rooted(dmx_coll_kind k)
{
    return k == DMX_COLL_BCAST || k == DMX_COLL_SCATTER || k == DMX_COLL_GATHER ||
           k == DMX_COLL_REDUCE;
}

static int is_blocked(dmx_coll_kind k)
{
    return k == DMX_COLL_SCATTER || k == DMX_COLL_GATHER || k == DMX_COLL_ALLGATHER ||
           k == DMX_COLL_REDUCE_SCATTER || k == DMX_COLL_ALLTOALL;
}

/* Every collective x algorithm x size x type x root x in place (chunked: the MPI library's call
 * only, at sizes above the lowered count limit, each size in every type and in place too). */
static void sweep(dmxt_ctx *ctx, int chunked)
{
    int p = ctx->size;
    int roots[3] = {0, p / 2, p - 1};
    int nroots = p == 1 ? 1 : (p == 2 ? 2 : 3);
    for (int kind = 0; kind < DMX_COLL_NKINDS; kind++) {
        for (int alg = 0; alg < DMX_COLL_NALGS; alg++) {
            if (!dmx_coll_alg_valid((dmx_coll_kind)kind, (dmx_coll_alg)alg) ||
                (chunked && alg != DMX_COLL_MPI && alg != DMX_COLL_AUTO))
                continue;
            int64_t per = is_blocked((dmx_coll_kind)kind) ? p : 1;
            int64_t sizes[5] = {0, 1, 7, p + 1, (1 << 20) / 4 / per};
            if (chunked) {
                const int64_t more[5] = {6, 7, p + 6, 2 * (int64_t)p + 9, 23};
                memcpy(sizes, more, sizeof sizes);
            }
            const int large = chunked ? 5 : 4; /* the index of the large size (none: 5) */
            for (int si = 0; si < 5; si++) {
                for (int ti = 0; ti < 3; ti++) {
                    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX};
                    MPI_Op ops[3] = {MPI_SUM, MPI_MAX, MPI_SUM};
                    if (!is_red((dmx_coll_kind)kind)) {
                        types[1] = MPI_CHAR;
                        types[2] = MPI_LONG_LONG;
                    } else {
                        types[2] = (si % 2) ? MPI_LONG_LONG : MPI_C_DOUBLE_COMPLEX;
                        ops[2] = (si % 2) ? MPI_BXOR : MPI_SUM;
                    }
                    if (si == large && ti > 0)
                        continue; /* the large size once */
                    int nr = is_rooted((dmx_coll_kind)kind) && si != large ? nroots : 1;
                    for (int ri = 0; ri < nr; ri++)
                        for (int ip = 0; ip < 2; ip++) {
                            if (si == large && ip)
                                continue;
                            tcase c = {(dmx_coll_kind)kind,
                                       (dmx_coll_alg)alg,
                                       sizes[si],
                                       types[ti],
                                       is_red((dmx_coll_kind)kind) ? ops[ti] : MPI_OP_NULL,
                                       roots[ri],
                                       ip,
                                       0};
                            if (kind == DMX_COLL_SHIFT) {
                                /* several shifts, negative and beyond p too */
                                int64_t ks[4] = {1, -1, p / 2 + 1, 3 * (int64_t)p + 2};
                                for (int ki = 0; ki < 4; ki++) {
                                    c.k = ks[ki];
                                    one_case(ctx, &c);
                                }
                            } else {
                                one_case(ctx, &c);
                            }
                        }
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll");
    sweep(&ctx, 0);
    dmxi_coll_mpi_count_max = 5;
    dmxi_coll_mpi_chunk_bytes = 16;
    sweep(&ctx, 1);
    return dmxt_finish(&ctx);
}
