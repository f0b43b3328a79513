/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_MAX and MPI_MIN on unsigned integer types, against a serial reference (not the MPI
 * library's own collective: Debian 12's MPICH 4.0.2 compares every unsigned type as signed, and
 * its Open MPI 4.1.4 MPI_UNSIGNED_LONG, in their collectives as in MPI_Reduce_local).
 *
 * Every unsigned predefined type x {max, min} x {reduce (roots 0 and p-1), allreduce,
 * reduce-scatter, scan, exscan} x every dmx algorithm of the collective and AUTO, in place and
 * not. The values mix numbers with the top bit set and small ones, so that a signed comparison
 * picks the wrong one. Each rank computes the expected result from every rank's values (a closed
 * form of rank and index). DMX_COLL_MPI is not checked: it is the MPI library's call, bugs
 * included (docs/coll.md).
 *
 * Settings: DMX_TEST_SEED, DMX_TEST_TIMEOUT (tests/common). */
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct utype {
    MPI_Datatype t;
    const char *name;
} utype;

/* Element i of rank r's input, reduced to the type's width bits: every third one near the top
 * of the range (top bit set), the others small. */
static uint64_t value(int r, int64_t i, int bits)
{
    const uint64_t top = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    if ((r + i) % 3 == 0)
        return top - (uint64_t)((r * 3 + i) % 17);
    return (uint64_t)((r * 5 + i) % 29);
}

static void put(void *buf, int64_t i, int size, uint64_t v)
{
    switch (size) {
    case 1: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    default: ((uint64_t *)buf)[i] = v; break;
    }
}

static uint64_t get(const void *buf, int64_t i, int size)
{
    switch (size) {
    case 1: return ((const uint8_t *)buf)[i];
    case 2: return ((const uint16_t *)buf)[i];
    case 4: return ((const uint32_t *)buf)[i];
    default: return ((const uint64_t *)buf)[i];
    }
}

/* max or min of element i over ranks [r0, r1). */
static uint64_t expected(int is_max, int r0, int r1, int64_t i, int bits)
{
    uint64_t v = value(r0, i, bits);
    for (int r = r0 + 1; r < r1; r++) {
        const uint64_t w = value(r, i, bits);
        v = is_max ? (w > v ? w : v) : (w < v ? w : v);
    }
    return v;
}

static void one(dmxt_ctx *ctx, const utype *u, int is_max, dmx_coll_kind kind, dmx_coll_alg alg,
                int root, int inplace)
{
    const int rank = ctx->rank, p = ctx->size;
    int sz = 0;
    MPI_Type_size(u->t, &sz);
    const int bits = 8 * sz;
    const int64_t cnt = kind == DMX_COLL_REDUCE_SCATTER ? 7 : 37; /* per block, or the vector */
    const int64_t nin = kind == DMX_COLL_REDUCE_SCATTER ? cnt * p : cnt;
    char desc[200];
    snprintf(desc, sizeof desc, "%s %s %s alg=%s root=%d inplace=%d np=%d",
             dmx_coll_kind_name(kind), is_max ? "max" : "min", u->name, dmx_coll_alg_name(alg),
             root, inplace, p);
    dmxt_set_current(desc);
    dmxt_checker C = {ctx, 0, ""};
    unsigned char *in = malloc((size_t)(nin * sz)), *out = malloc((size_t)(nin * sz));
    if (!in || !out) {
        dmxt_fail(&C, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < nin; i++)
        put(in, i, sz, value(rank, i, bits));
    memcpy(out, in, (size_t)(nin * sz)); /* the in-place input */
    const MPI_Op op = is_max ? MPI_MAX : MPI_MIN;
    const void *s = inplace ? MPI_IN_PLACE : in;
    dmx_status st = DMX_SUCCESS;
    switch (kind) {
    case DMX_COLL_REDUCE:
        s = inplace && rank != root ? in : s; /* MPI_IN_PLACE only at the root */
        st = dmx_coll_reduce(s, out, cnt, u->t, op, root, ctx->comm, alg);
        break;
    case DMX_COLL_ALLREDUCE: st = dmx_coll_allreduce(s, out, cnt, u->t, op, ctx->comm, alg); break;
    case DMX_COLL_REDUCE_SCATTER:
        st = dmx_coll_reduce_scatter(s, out, cnt, u->t, op, ctx->comm, alg);
        break;
    case DMX_COLL_SCAN: st = dmx_coll_scan(s, out, cnt, u->t, op, ctx->comm, alg); break;
    default: st = dmx_coll_exscan(s, out, cnt, u->t, op, ctx->comm, alg); break;
    }
    if (st != DMX_SUCCESS) {
        dmxt_fail(&C, "status %s: %s", dmx_status_string(st), dmx_last_error());
        goto done;
    }
    for (int64_t i = 0; i < cnt; i++) {
        int r0 = 0, r1 = p;
        int64_t gi = i; /* the input element this output element reduces */
        if (kind == DMX_COLL_REDUCE && rank != root)
            break; /* nothing defined here */
        if (kind == DMX_COLL_REDUCE_SCATTER)
            gi = rank * cnt + i;
        if (kind == DMX_COLL_SCAN)
            r1 = rank + 1;
        if (kind == DMX_COLL_EXSCAN) {
            if (rank == 0)
                break; /* undefined on rank 0 */
            r1 = rank;
        }
        const uint64_t want = expected(is_max, r0, r1, gi, bits), got = get(out, i, sz);
        if (got != want) {
            dmxt_fail(&C, "rank %d: element %lld is %llu, want %llu", rank, (long long)i,
                      (unsigned long long)got, (unsigned long long)want);
            break;
        }
    }
done:
    dmxt_case_end(ctx, C.bad, C.msg, desc);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_unsigned");
    const utype types[] = {{MPI_UNSIGNED_CHAR, "unsigned char"},
                           {MPI_UNSIGNED_SHORT, "unsigned short"},
                           {MPI_UNSIGNED, "unsigned"},
                           {MPI_UNSIGNED_LONG, "unsigned long"},
                           {MPI_UNSIGNED_LONG_LONG, "unsigned long long"},
                           {MPI_UINT8_T, "uint8_t"},
                           {MPI_UINT16_T, "uint16_t"},
                           {MPI_UINT32_T, "uint32_t"},
                           {MPI_UINT64_T, "uint64_t"}};
    const dmx_coll_kind kinds[] = {DMX_COLL_REDUCE, DMX_COLL_ALLREDUCE, DMX_COLL_REDUCE_SCATTER,
                                   DMX_COLL_SCAN, DMX_COLL_EXSCAN};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (int is_max = 0; is_max < 2; is_max++)
            for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
                for (int a = DMX_COLL_AUTO; a < DMX_COLL_NALGS; a++) {
                    if (a == DMX_COLL_MPI || !dmx_coll_alg_valid(kinds[ki], (dmx_coll_alg)a))
                        continue;
                    const int nroot = kinds[ki] == DMX_COLL_REDUCE && ctx.size > 1 ? 2 : 1;
                    for (int ri = 0; ri < nroot; ri++)
                        for (int ip = 0; ip < 2; ip++)
                            one(&ctx, &types[ti], is_max, kinds[ki], (dmx_coll_alg)a,
                                ri ? ctx.size - 1 : 0, ip);
                }
    return dmxt_finish(&ctx);
}
