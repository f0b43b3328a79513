/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: which (datatype, op) pairs a reduction takes, and the arithmetic dmx does itself
 * (the local reduction every reducing algorithm calls, dmxi_c_reduce_local).
 *
 * Predefined ops on predefined datatypes follow the table of the MPI standard (section
 * "Predefined Reduction Operations"): the datatype's group (C integer, Fortran integer,
 * floating point, logical, complex, byte, multi-language, pair) against the op's list. The
 * table is looked up, never tried: MPI_Reduce_local on a pair it refuses raises the library's
 * error on MPI_COMM_WORLD's (or MPI_COMM_SELF's) handler, which ends the job before dmx can say
 * why. Predefined ops on derived datatypes are refused too (the standard allows them only in
 * one-sided accumulates; both Open MPI 4.1 and MPICH 4.0 refuse them in reductions).
 * MPI_REPLACE and MPI_NO_OP exist for accumulates only. */
#include "coll_internal.h"

#include <limits.h>
#include <string.h>

enum {
    G_CINT = 1,    /* C integer */
    G_FINT = 2,    /* Fortran integer */
    G_FLOAT = 4,   /* floating point */
    G_LOGICAL = 8, /* C and Fortran logical */
    G_COMPLEX = 16,
    G_BYTE = 32,
    G_MULTI = 64, /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    G_PAIR = 128  /* the MINLOC/MAXLOC pairs */
};

/* The group of a predefined datatype, 0 for one no predefined op takes (MPI_CHAR, MPI_PACKED,
 * ...). Fortran handles that a build lacks are MPI_DATATYPE_NULL and never match (the front end
 * refuses that handle first). */
static int type_group(MPI_Datatype t)
{
    const MPI_Datatype cint[] = {MPI_INT,
                                 MPI_LONG,
                                 MPI_SHORT,
                                 MPI_UNSIGNED_SHORT,
                                 MPI_UNSIGNED,
                                 MPI_UNSIGNED_LONG,
                                 MPI_LONG_LONG,
                                 MPI_LONG_LONG_INT,
                                 MPI_UNSIGNED_LONG_LONG,
                                 MPI_SIGNED_CHAR,
                                 MPI_UNSIGNED_CHAR,
                                 MPI_INT8_T,
                                 MPI_INT16_T,
                                 MPI_INT32_T,
                                 MPI_INT64_T,
                                 MPI_UINT8_T,
                                 MPI_UINT16_T,
                                 MPI_UINT32_T,
                                 MPI_UINT64_T};
    const MPI_Datatype fint[] = {MPI_INTEGER};
    const MPI_Datatype flt[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL,
                                MPI_DOUBLE_PRECISION};
    const MPI_Datatype logi[] = {MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL};
    const MPI_Datatype cplx[] = {
        MPI_C_FLOAT_COMPLEX,   MPI_C_DOUBLE_COMPLEX,   MPI_C_LONG_DOUBLE_COMPLEX,
        MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX,
        MPI_COMPLEX,           MPI_DOUBLE_COMPLEX};
    const MPI_Datatype multi[] = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
    const MPI_Datatype pair[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
                                 MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
                                 MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
#define IN(list, g)                                                                                \
    for (size_t k = 0; k < sizeof list / sizeof list[0]; k++)                                      \
        if (t == list[k] && t != MPI_DATATYPE_NULL)                                                \
            return g;
    IN(cint, G_CINT)
    IN(fint, G_FINT)
    IN(flt, G_FLOAT)
    IN(logi, G_LOGICAL)
    IN(cplx, G_COMPLEX)
    IN(multi, G_MULTI)
    IN(pair, G_PAIR)
#undef IN
    if (t == MPI_BYTE)
        return G_BYTE;
    return 0;
}

typedef struct opinfo {
    MPI_Op op;
    const char *name;
    int groups; /* datatype groups the op takes; 0: none in a reduction */
} opinfo;

static const opinfo *op_find(MPI_Op op)
{
    static opinfo ops[14];
    static int n = 0;
    if (n == 0) {
        const int arith = G_CINT | G_FINT | G_FLOAT | G_MULTI;
        const opinfo all[] = {{MPI_MAX, "MPI_MAX", arith},
                              {MPI_MIN, "MPI_MIN", arith},
                              {MPI_SUM, "MPI_SUM", arith | G_COMPLEX},
                              {MPI_PROD, "MPI_PROD", arith | G_COMPLEX},
                              {MPI_LAND, "MPI_LAND", G_CINT | G_LOGICAL},
                              {MPI_LOR, "MPI_LOR", G_CINT | G_LOGICAL},
                              {MPI_LXOR, "MPI_LXOR", G_CINT | G_LOGICAL},
                              {MPI_BAND, "MPI_BAND", G_CINT | G_FINT | G_BYTE | G_MULTI},
                              {MPI_BOR, "MPI_BOR", G_CINT | G_FINT | G_BYTE | G_MULTI},
                              {MPI_BXOR, "MPI_BXOR", G_CINT | G_FINT | G_BYTE | G_MULTI},
                              {MPI_MAXLOC, "MPI_MAXLOC", G_PAIR},
                              {MPI_MINLOC, "MPI_MINLOC", G_PAIR},
                              {MPI_REPLACE, "MPI_REPLACE", 0},
                              {MPI_NO_OP, "MPI_NO_OP", 0}};
        memcpy(ops, all, sizeof all);
        n = (int)(sizeof all / sizeof all[0]);
    }
    for (int k = 0; k < n; k++)
        if (ops[k].op == op)
            return &ops[k];
    return NULL;
}

int dmxi_c_op_predefined(MPI_Op op)
{
    return op_find(op) != NULL;
}

const char *dmxi_c_op_name(MPI_Op op)
{
    const opinfo *o = op_find(op);
    return o != NULL ? o->name : "a user-defined op";
}

int dmxi_c_op_valid(MPI_Datatype type, MPI_Op op)
{
    const opinfo *o = op_find(op);
    return o != NULL && (o->groups & type_group(type)) != 0;
}

/* 8- and 16-bit integer types: MPI_SUM and MPI_PROD are dmx's (dmxi_c_own_arith). */
static int small_int(MPI_Datatype t)
{
    const MPI_Datatype s[] = {MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,   MPI_UNSIGNED_SHORT,
                              MPI_INT8_T,      MPI_UINT8_T,       MPI_INT16_T, MPI_UINT16_T};
    for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
        if (t == s[k])
            return 1;
    return 0;
}

int dmxi_c_own_arith(MPI_Datatype type, MPI_Op op)
{
    if (op == MPI_SUM || op == MPI_PROD)
        return small_int(type);
    return dmxi_c_unsigned_minmax(type, op);
}

int dmxi_coll_keeps_order(dmx_coll_kind kind, dmx_coll_alg alg, int p)
{
    if (alg == DMX_COLL_MPI || p == 1)
        return 1;
    switch (kind) {
    case DMX_COLL_REDUCE:
    case DMX_COLL_ALLREDUCE:
        /* the binomial trees combine in rank order (a tree rooted at rank 0); recursive
         * doubling only without folds; the ring schemes start each block at another rank */
        return alg == DMX_COLL_BINOMIAL || (alg == DMX_COLL_RECDBL && dmxi_pow2_floor(p) == p);
    case DMX_COLL_SCAN:
    case DMX_COLL_EXSCAN: return alg == DMX_COLL_RING || alg == DMX_COLL_HYPERCUBE;
    default: return 0; /* reduce-scatter: ring and halving fold and rotate */
    }
}

int dmxi_c_unsigned_minmax(MPI_Datatype type, MPI_Op op)
{
    if (op != MPI_MAX && op != MPI_MIN)
        return 0;
    const MPI_Datatype u[] = {MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT,     MPI_UNSIGNED,
                              MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T,
                              MPI_UINT16_T,      MPI_UINT32_T,           MPI_UINT64_T};
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if (type == u[k])
            return 1;
    return 0;
}

/* inout[i] = max or min (in[i], inout[i]) for n unsigned elements of T. */
#define MINMAX(T)                                                                                  \
    do {                                                                                           \
        const T *x = in;                                                                           \
        T *y = inout;                                                                              \
        if (op == MPI_MAX) {                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = x[i] > y[i] ? x[i] : y[i];                                                  \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = x[i] < y[i] ? x[i] : y[i];                                                  \
        }                                                                                          \
    } while (0)

/* inout[i] = in[i] + or * inout[i] for n 8- or 16-bit integers, wrapping modulo 2^bits (done in
 * unsigned 32-bit arithmetic: two's complement gives the same bits for the signed types). */
#define WRAP(T)                                                                                    \
    do {                                                                                           \
        const T *x = in;                                                                           \
        T *y = inout;                                                                              \
        if (op == MPI_SUM) {                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = (T)((uint32_t)x[i] + (uint32_t)y[i]);                                       \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = (T)((uint32_t)x[i] * (uint32_t)y[i]);                                       \
        }                                                                                          \
    } while (0)

dmx_status dmxi_c_reduce_local(const void *in, void *inout, int64_t n, MPI_Datatype type, MPI_Op op)
{
    dmx_status st = DMX_SUCCESS;
    int es = 0;
    DMXI_MPI(MPI_Type_size(type, &es));
    if ((op == MPI_SUM || op == MPI_PROD) && dmxi_c_own_arith(type, op)) {
        /* Open MPI 4.1.4 saturates 8/16-bit MPI_SUM in its vector kernels (from 64 elements):
         * 200 + 200 as unsigned char gave 255; MPI requires the wrapped 144 */
        switch (es) {
        case 1: WRAP(uint8_t); goto cleanup;
        case 2: WRAP(uint16_t); goto cleanup;
        default: break;
        }
    }
    if (dmxi_c_unsigned_minmax(type, op)) {
        switch (es) {
        case 1: MINMAX(uint8_t); goto cleanup;
        case 2: MINMAX(uint16_t); goto cleanup;
        case 4: MINMAX(uint32_t); goto cleanup;
        case 8: MINMAX(uint64_t); goto cleanup;
        default: break; /* no such unsigned type: MPI's */
        }
    }
    /* elements are an extent apart (the pair types: 16 bytes for MPI_DOUBLE_INT's 12) */
    MPI_Aint lb = 0, ext = es;
    if (n > INT_MAX)
        DMXI_MPI(MPI_Type_get_extent(type, &lb, &ext));
    for (int64_t o = 0; o < n; o += INT_MAX) {
        int64_t m = n - o < INT_MAX ? n - o : INT_MAX;
        DMXI_MPI(MPI_Reduce_local((const char *)in + o * (int64_t)ext,
                                  (char *)inout + o * (int64_t)ext, (int)m, type, op));
    }
cleanup:
    return st;
}
