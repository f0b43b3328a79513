/* SPDX-License-Identifier: BSD-3-Clause */
/* Random collectives against the MPI library's own calls.
 *
 * Each case draws a communicator (MPI_COMM_WORLD, or halves of a split with the ranks in
 * another order: both halves run the case at once), a collective, a datatype (every predefined
 * one, pair types included, or a derived contiguous / vector / resized vector of one), an op
 * (every predefined op the datatype takes, a commutative and a non-commutative user op, and now
 * and then one the datatype does not take), an algorithm (every dmx algorithm of the
 * collective, AUTO and MPI's), a root, MPI_IN_PLACE or not, and a count (0, 1, primes, and
 * rarely over 1 MiB). dmx's result is compared byte for byte with the MPI call's on the same
 * inputs, receive buffers prefilled alike and followed by a guard, so a write into a gap of the
 * datatype or past the buffer shows too. Where the libraries are known wrong (unsigned MAX/MIN,
 * 8/16-bit SUM/PROD under Open MPI 4.1.4) the reference is a serial computation instead.
 * Invalid (datatype, op) pairs, predefined ops on derived types and a non-commutative op forced
 * on an algorithm that cannot keep rank order must return DMX_ERR_ARG on every rank.
 *
 * `test_coll_fuzz pairs|noncomm|wrap|invalid` runs a fixed sweep instead: every algorithm of
 * every collective on the padded pair types with MINLOC/MAXLOC; a non-commutative user op on
 * every reduction algorithm (rank order or DMX_ERR_ARG); 8/16-bit SUM/PROD over 131 elements;
 * (datatype, op) pairs MPI's table refuses (DMX_ERR_ARG, no abort).
 *
 * Settings: DMX_COLL_FUZZ_CASES (default 120) and DMX_COLL_FUZZ_SEED, or arguments
 * `test_coll_fuzz [cases [seed]]`; DMX_COLL_FUZZ_BIG=0 leaves out the counts over 1 MiB;
 * DMX_TEST_TIMEOUT (tests/common). Prints "N passed, N failed" from rank 0. */
#include "dmxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- datatypes ------------------------------------------------------------------------ */
enum vclass { V_INT, V_UINT, V_FLT, V_CPLX, V_BOOL, V_PAIR, V_BYTES };
enum {
    O_MAX,
    O_MIN,
    O_SUM,
    O_PROD,
    O_LAND,
    O_LOR,
    O_LXOR,
    O_BAND,
    O_BOR,
    O_BXOR,
    O_MAXLOC,
    O_MINLOC,
    O_REPLACE,
    O_NOOP,
    O_UADD,
    O_UAFFINE,
    O_NOPS
};

typedef struct ttype {
    MPI_Datatype t;
    const char *name;
    int cls;
    int w;   /* component width in bytes (pairs: the value's) */
    int sig; /* significant bytes of a component (long double: 10 of 16) */
    int ops; /* bits of O_* the MPI standard allows */
    int iw;  /* pairs: index width and offset */
    int ioff;
} ttype;

#define ARITH ((1 << O_MAX) | (1 << O_MIN) | (1 << O_SUM) | (1 << O_PROD))
#define LOGIC ((1 << O_LAND) | (1 << O_LOR) | (1 << O_LXOR))
#define BITS ((1 << O_BAND) | (1 << O_BOR) | (1 << O_BXOR))
#define LOC ((1 << O_MAXLOC) | (1 << O_MINLOC))
#define CINT (ARITH | LOGIC | BITS)
#define CPLXOPS ((1 << O_SUM) | (1 << O_PROD))

static ttype types[64];
static int ntypes = 0;

static void add(MPI_Datatype t, const char *name, int cls, int w, int sig, int ops, int iw,
                int ioff)
{
    if (t == MPI_DATATYPE_NULL)
        return;
    types[ntypes++] = (ttype){t, name, cls, w, sig, ops, iw, ioff};
}

static void make_types(void)
{
    const int ld = (int)sizeof(long double), lds = ld >= 16 ? 10 : ld;
    add(MPI_CHAR, "char", V_BYTES, 1, 1, 0, 0, 0);
    add(MPI_WCHAR, "wchar", V_BYTES, (int)sizeof(wchar_t), (int)sizeof(wchar_t), 0, 0, 0);
    add(MPI_PACKED, "packed", V_BYTES, 1, 1, 0, 0, 0);
    add(MPI_BYTE, "byte", V_BYTES, 1, 1, BITS, 0, 0);
    add(MPI_SIGNED_CHAR, "signed char", V_INT, 1, 1, CINT, 0, 0);
    add(MPI_UNSIGNED_CHAR, "unsigned char", V_UINT, 1, 1, CINT, 0, 0);
    add(MPI_SHORT, "short", V_INT, 2, 2, CINT, 0, 0);
    add(MPI_UNSIGNED_SHORT, "unsigned short", V_UINT, 2, 2, CINT, 0, 0);
    add(MPI_INT, "int", V_INT, 4, 4, CINT, 0, 0);
    add(MPI_UNSIGNED, "unsigned", V_UINT, 4, 4, CINT, 0, 0);
    add(MPI_LONG, "long", V_INT, (int)sizeof(long), (int)sizeof(long), CINT, 0, 0);
    add(MPI_UNSIGNED_LONG, "unsigned long", V_UINT, (int)sizeof(long), (int)sizeof(long), CINT, 0,
        0);
    add(MPI_LONG_LONG, "long long", V_INT, 8, 8, CINT, 0, 0);
    add(MPI_UNSIGNED_LONG_LONG, "unsigned long long", V_UINT, 8, 8, CINT, 0, 0);
    add(MPI_INT8_T, "int8_t", V_INT, 1, 1, CINT, 0, 0);
    add(MPI_INT16_T, "int16_t", V_INT, 2, 2, CINT, 0, 0);
    add(MPI_INT32_T, "int32_t", V_INT, 4, 4, CINT, 0, 0);
    add(MPI_INT64_T, "int64_t", V_INT, 8, 8, CINT, 0, 0);
    add(MPI_UINT8_T, "uint8_t", V_UINT, 1, 1, CINT, 0, 0);
    add(MPI_UINT16_T, "uint16_t", V_UINT, 2, 2, CINT, 0, 0);
    add(MPI_UINT32_T, "uint32_t", V_UINT, 4, 4, CINT, 0, 0);
    add(MPI_UINT64_T, "uint64_t", V_UINT, 8, 8, CINT, 0, 0);
    add(MPI_AINT, "MPI_Aint", V_INT, (int)sizeof(MPI_Aint), (int)sizeof(MPI_Aint), ARITH | BITS, 0,
        0);
    add(MPI_OFFSET, "MPI_Offset", V_INT, (int)sizeof(MPI_Offset), (int)sizeof(MPI_Offset),
        ARITH | BITS, 0, 0);
    add(MPI_COUNT, "MPI_Count", V_INT, (int)sizeof(MPI_Count), (int)sizeof(MPI_Count), ARITH | BITS,
        0, 0);
    add(MPI_FLOAT, "float", V_FLT, 4, 4, ARITH, 0, 0);
    add(MPI_DOUBLE, "double", V_FLT, 8, 8, ARITH, 0, 0);
    add(MPI_LONG_DOUBLE, "long double", V_FLT, ld, lds, ARITH, 0, 0);
    add(MPI_C_BOOL, "C bool", V_BOOL, 1, 1, LOGIC, 0, 0);
    add(MPI_CXX_BOOL, "C++ bool", V_BOOL, 1, 1, LOGIC, 0, 0);
    add(MPI_C_FLOAT_COMPLEX, "float complex", V_CPLX, 4, 4, CPLXOPS, 0, 0);
    add(MPI_C_DOUBLE_COMPLEX, "double complex", V_CPLX, 8, 8, CPLXOPS, 0, 0);
    add(MPI_C_LONG_DOUBLE_COMPLEX, "long double complex", V_CPLX, ld, lds, CPLXOPS, 0, 0);
    add(MPI_FLOAT_INT, "MPI_FLOAT_INT", V_PAIR, 4, 4, LOC, 4, 4);
    add(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", V_PAIR, 8, 8, LOC, 4, 8);
    add(MPI_LONG_INT, "MPI_LONG_INT", V_PAIR, (int)sizeof(long), (int)sizeof(long), LOC, 4,
        (int)sizeof(long));
    add(MPI_2INT, "MPI_2INT", V_PAIR, 4, 4, LOC, 4, 4);
    add(MPI_SHORT_INT, "MPI_SHORT_INT", V_PAIR, 2, 2, LOC, 4, 4);
    add(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", V_PAIR, ld, lds, LOC, 4, ld);
    add(MPI_INTEGER, "INTEGER", V_INT, 4, 4, ARITH | BITS, 0, 0);
    add(MPI_REAL, "REAL", V_FLT, 4, 4, ARITH, 0, 0);
    add(MPI_DOUBLE_PRECISION, "DOUBLE PRECISION", V_FLT, 8, 8, ARITH, 0, 0);
    add(MPI_LOGICAL, "LOGICAL", V_BOOL, 4, 4, LOGIC, 0, 0);
    add(MPI_COMPLEX, "COMPLEX", V_CPLX, 4, 4, CPLXOPS, 0, 0);
    add(MPI_DOUBLE_COMPLEX, "DOUBLE COMPLEX", V_CPLX, 8, 8, CPLXOPS, 0, 0);
    add(MPI_2INTEGER, "2INTEGER", V_PAIR, 4, 4, LOC, 4, 4);
    add(MPI_2REAL, "2REAL", V_PAIR, 4, 4, LOC, -4, 4);
    add(MPI_2DOUBLE_PRECISION, "2DOUBLE PRECISION", V_PAIR, 8, 8, LOC, -8, 8);
}

static const MPI_Op *op_handle(int o)
{
    static MPI_Op h[O_NOPS];
    h[O_MAX] = MPI_MAX, h[O_MIN] = MPI_MIN, h[O_SUM] = MPI_SUM, h[O_PROD] = MPI_PROD;
    h[O_LAND] = MPI_LAND, h[O_LOR] = MPI_LOR, h[O_LXOR] = MPI_LXOR, h[O_BAND] = MPI_BAND;
    h[O_BOR] = MPI_BOR, h[O_BXOR] = MPI_BXOR, h[O_MAXLOC] = MPI_MAXLOC, h[O_MINLOC] = MPI_MINLOC;
    h[O_REPLACE] = MPI_REPLACE, h[O_NOOP] = MPI_NO_OP;
    return &h[o];
}
static const char *op_names[O_NOPS] = {
    "MAX", "MIN",  "SUM",    "PROD",   "LAND",    "LOR",   "LXOR",     "BAND",
    "BOR", "BXOR", "MAXLOC", "MINLOC", "REPLACE", "NO_OP", "user-add", "user-affine"};

/* ---- a case's element layout: base type, vector of c blocks of bl, stride st, extent ext
 * (all in base extents); a predefined type is c = bl = st = ext = 1 ------------------------- */
typedef struct lay {
    const ttype *b;
    int c, bl, st, ext;
    MPI_Aint bext;
    MPI_Datatype t; /* the datatype passed (derived ones freed after the case) */
    int derived;
} lay;

static lay cur; /* the user ops read the layout from here (MPI and dmx pass the same type) */

/* The uint32 data words of element e: word q (0 <= q < c*bl) at this index. */
static int64_t word(int64_t e, int q)
{
    const int per = (int)(cur.bext / 4); /* uint32 words per base element */
    int64_t blk = q / (cur.bl * per), in = q % (cur.bl * per);
    return e * cur.ext * per + blk * cur.st * per + in;
}

static void uadd(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint32_t *x = in;
    uint32_t *y = inout;
    const int nw = cur.c * cur.bl * (int)(cur.bext / 4);
    for (int64_t e = 0; e < *len; e++)
        for (int q = 0; q < nw; q++)
            y[word(e, q)] += x[word(e, q)];
}

/* Pairs (a, b) of words stand for t -> a t + b; y = x o y (x applied after y): associative, not
 * commutative. */
static void uaffine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint32_t *x = in;
    uint32_t *y = inout;
    const int nw = cur.c * cur.bl * (int)(cur.bext / 4);
    for (int64_t e = 0; e < *len; e++)
        for (int q = 0; q + 1 < nw; q += 2) {
            int64_t ia = word(e, q), ib = word(e, q + 1);
            uint32_t a = x[ia] * y[ia], b = x[ia] * y[ib] + x[ib];
            y[ia] = a;
            y[ib] = b;
        }
}

static MPI_Op user_add, user_affine;

/* ---- values ----------------------------------------------------------------------------- */
static void put_small(unsigned char *p, int is_flt, int w, int v)
{
    memset(p, 0, (size_t)w);
    if (!is_flt) {
        int64_t x = v; /* little endian: the low bytes carry the value and its sign */
        memcpy(p, &x, (size_t)(w < 8 ? w : 8));
        if (v < 0)
            memset(p + (w < 8 ? w : 8), 0xff, (size_t)(w > 8 ? w - 8 : 0));
    } else if (w == 4) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (w == 8) {
        double d = v;
        memcpy(p, &d, 8);
    } else {
        long double l = v;
        memcpy(p, &l, sizeof l < (size_t)w ? sizeof l : (size_t)w);
    }
}

/* One base element at p from the random r: raw bytes for the collectives that move data, else a
 * value fitting the op (small numbers: floating-point results exact in any order). */
static void put_val(const ttype *b, unsigned char *p, uint64_t r, int op, int reduce)
{
    const int small = (int)(r % 9) - 4; /* -4..4 */
    if (!reduce || b->cls == V_BYTES) {
        for (int i = 0; i < b->w; i++)
            p[i] = (unsigned char)(r >> (8 * (i % 8)));
        return;
    }
    switch (b->cls) {
    case V_INT:
    case V_UINT:
        if (op == O_LAND || op == O_LOR || op == O_LXOR)
            r = r % 3 == 0 ? 0 : r;  /* zeros and non-zeros */
        memcpy(p, &r, (size_t)b->w); /* the low bytes: any value, wrapping sums included */
        return;
    case V_BOOL: put_small(p, 0, b->w, (int)(r & 1)); return;
    case V_FLT: put_small(p, 1, b->w, small); return;
    case V_CPLX:
        put_small(p, 1, b->w, small);
        put_small(p + b->w, 1, b->w, (int)((r >> 8) % 9) - 4);
        return;
    default: { /* pair: a small value (ties happen), an index 0..5 */
        const int flt_val = b->t != MPI_2INT && b->t != MPI_2INTEGER && b->t != MPI_SHORT_INT &&
                            b->t != MPI_LONG_INT;
        const int idx = (int)((r >> 16) % 6);
        put_small(p, flt_val, b->w, small);
        put_small(p + b->ioff, b->iw < 0, b->iw < 0 ? -b->iw : b->iw, idx);
        return;
    }
    }
}

/* Whether byte k of a base element is compared: its significant bytes, not the padding of a
 * pair type or of long double (MPI may leave or write those). */
static int sig_byte(const ttype *b, int k)
{
    if (b->cls == V_PAIR)
        return k < b->sig || (k >= b->ioff && k < b->ioff + (b->iw < 0 ? -b->iw : b->iw));
    if (b->cls == V_CPLX)
        return k < 2 * b->w && k % b->w < b->sig;
    return k < b->sig;
}

/* Whether byte i of a buffer is compared: a gap of a derived type always (nobody may write
 * it), a base element's significant bytes. */
static int cmp_byte(int64_t i)
{
    const int64_t off = i % (cur.ext * cur.bext), unit = off / cur.bext;
    if (unit / cur.st >= cur.c || unit % cur.st >= cur.bl)
        return 1;
    return sig_byte(cur.b, (int)(off % cur.bext));
}

/* ---- the case --------------------------------------------------------------------------- */
typedef struct fcase {
    dmx_coll_kind kind;
    dmx_coll_alg alg;
    int op, root, inplace;
    int64_t count, k;
    uint64_t vseed;
} fcase;

static int is_red(dmx_coll_kind k)
{
    return k == DMX_COLL_REDUCE || k == DMX_COLL_ALLREDUCE || k == DMX_COLL_REDUCE_SCATTER ||
           k == DMX_COLL_SCAN || k == DMX_COLL_EXSCAN;
}

/* The algorithms that combine in rank order (what a non-commutative op needs). */
static int order_ok(dmx_coll_kind k, dmx_coll_alg a, int p)
{
    if (a == DMX_COLL_AUTO || a == DMX_COLL_MPI || p == 1)
        return 1;
    if (k == DMX_COLL_SCAN || k == DMX_COLL_EXSCAN)
        return 1;
    if (k == DMX_COLL_REDUCE || k == DMX_COLL_ALLREDUCE)
        return a == DMX_COLL_BINOMIAL || (a == DMX_COLL_RECDBL && (p & (p - 1)) == 0);
    return 0;
}

/* Elements of the send and receive buffers; the input is nin elements (the send buffer's, or
 * the receive buffer's in place). */
static void sizes(const fcase *f, int p, int64_t *ns, int64_t *nr)
{
    const int64_t n = f->count, all = n * p;
    switch (f->kind) {
    case DMX_COLL_SCATTER: *ns = all, *nr = n; return;
    case DMX_COLL_GATHER:
    case DMX_COLL_ALLGATHER: *ns = n, *nr = all; return;
    case DMX_COLL_ALLTOALL:
    case DMX_COLL_REDUCE_SCATTER: *ns = all, *nr = f->kind == DMX_COLL_ALLTOALL ? all : n; return;
    default: *ns = n, *nr = n; return;
    }
}

static int64_t ebytes(void)
{
    return (int64_t)cur.ext * cur.bext;
}

/* n input elements of rank r (every byte of the extent random, gaps too). */
static void fill(const fcase *f, int r, unsigned char *buf, int64_t n)
{
    dmxt_rng g;
    dmxt_rng_seed(&g, f->vseed, (uint64_t)r);
    for (int64_t i = 0; i < n * ebytes(); i++)
        buf[i] = (unsigned char)dmxt_rng_next(&g);
    for (int64_t e = 0; e < n; e++)
        for (int i = 0; i < cur.c; i++)
            for (int j = 0; j < cur.bl; j++)
                put_val(cur.b, buf + (e * cur.ext + (int64_t)i * cur.st + j) * cur.bext,
                        dmxt_rng_next(&g), f->op, is_red(f->kind));
}

/* The pairs the MPI libraries get wrong (reference: serial): unsigned MAX/MIN, 8/16-bit SUM and
 * PROD. */
static int serial_ref(const fcase *f)
{
    if (!is_red(f->kind))
        return 0;
    if (f->op >= O_UADD)
        return 2; /* user ops: serial too (MPICH 4.0.2 was found wrong, see below) */
    if (cur.derived)
        return 0;
    const ttype *b = cur.b;
    if ((f->op == O_MAX || f->op == O_MIN) && b->cls == V_UINT)
        return 1;
    return (f->op == O_SUM || f->op == O_PROD) && (b->cls == V_INT || b->cls == V_UINT) &&
           b->w <= 2;
}

static void combine(const fcase *f, const unsigned char *x, unsigned char *y, int64_t n)
{
    const int w = cur.b->w;
    for (int64_t i = 0; i < n; i++) {
        uint64_t a = 0, c = 0, r = 0;
        memcpy(&a, x + i * w, (size_t)w);
        memcpy(&c, y + i * w, (size_t)w);
        switch (f->op) {
        case O_MAX: r = a > c ? a : c; break;
        case O_MIN: r = a < c ? a : c; break;
        case O_SUM: r = a + c; break;
        default: r = a * c; break;
        }
        memcpy(y + i * w, &r, (size_t)w);
    }
}

/* The serial result of ranks [0, r1) into out (nin elements each; block blk of n if >= 0). */
static void serial(const fcase *f, int r1, int64_t nin, int blk, unsigned char *out)
{
    unsigned char *x = malloc((size_t)(nin * ebytes() + 1)), *acc = NULL;
    const int64_t n = f->count, off = blk >= 0 ? blk * n * ebytes() : 0;
    acc = malloc((size_t)(nin * ebytes() + 1));
    for (int r = 0; r < r1; r++) {
        fill(f, r, r == 0 ? acc : x, nin);
        if (r > 0 && f->op < O_UADD) {
            combine(f, x, acc, nin);
        } else if (r > 0) { /* acc = acc op x, in rank order */
            int len = (int)nin;
            MPI_Datatype t = cur.t;
            (f->op == O_UADD ? uadd : uaffine)(acc, x, &len, &t);
            memcpy(acc, x, (size_t)(nin * ebytes()));
        }
    }
    /* the data bytes only: the gaps of the receive buffer keep what they held */
    for (int64_t i = 0; r1 > 0 && i < (blk >= 0 ? n : nin) * ebytes(); i++) {
        const int64_t unit = i % ebytes() / cur.bext;
        if (unit / cur.st < cur.c && unit % cur.st < cur.bl)
            out[i] = acc[off + i];
    }
    free(x);
    free(acc);
}

static MPI_Op mpi_op(int o)
{
    return o == O_UADD ? user_add : o == O_UAFFINE ? user_affine : *op_handle(o);
}

static int mpi_call(const fcase *f, const void *s, void *r, MPI_Comm comm, int rank, int p)
{
    const int n = (int)f->count;
    MPI_Datatype t = cur.t;
    MPI_Op op = is_red(f->kind) ? mpi_op(f->op) : MPI_OP_NULL;
    switch (f->kind) {
    case DMX_COLL_BCAST: return MPI_Bcast(r, n, t, f->root, comm);
    case DMX_COLL_SCATTER: return MPI_Scatter(s, n, t, r, n, t, f->root, comm);
    case DMX_COLL_GATHER: return MPI_Gather(s, n, t, r, n, t, f->root, comm);
    case DMX_COLL_ALLGATHER: return MPI_Allgather(s, n, t, r, n, t, comm);
    case DMX_COLL_ALLTOALL: return MPI_Alltoall(s, n, t, r, n, t, comm);
    case DMX_COLL_REDUCE: return MPI_Reduce(s, r, n, t, op, f->root, comm);
    case DMX_COLL_ALLREDUCE: return MPI_Allreduce(s, r, n, t, op, comm);
    case DMX_COLL_REDUCE_SCATTER: return MPI_Reduce_scatter_block(s, r, n, t, op, comm);
    case DMX_COLL_SCAN: return MPI_Scan(s, r, n, t, op, comm);
    case DMX_COLL_EXSCAN: return MPI_Exscan(s, r, n, t, op, comm);
    default: {
        int kk = (int)(((f->k % p) + p) % p), to = (rank + kk) % p, from = (rank - kk + p) % p;
        if (s == MPI_IN_PLACE)
            return MPI_Sendrecv_replace(r, n, t, to, 5, from, 5, comm, MPI_STATUS_IGNORE);
        return MPI_Sendrecv(s, n, t, to, 5, r, n, t, from, 5, comm, MPI_STATUS_IGNORE);
    }
    }
}

static dmx_status dmx_call(const fcase *f, const void *s, void *r, MPI_Comm comm)
{
    const int64_t n = f->count;
    MPI_Datatype t = cur.t;
    MPI_Op op = is_red(f->kind) ? mpi_op(f->op) : MPI_OP_NULL;
    switch (f->kind) {
    case DMX_COLL_BCAST: return dmx_coll_bcast(r, n, t, f->root, comm, f->alg);
    case DMX_COLL_SCATTER: return dmx_coll_scatter(s, r, n, t, f->root, comm, f->alg);
    case DMX_COLL_GATHER: return dmx_coll_gather(s, r, n, t, f->root, comm, f->alg);
    case DMX_COLL_ALLGATHER: return dmx_coll_allgather(s, r, n, t, comm, f->alg);
    case DMX_COLL_ALLTOALL: return dmx_coll_alltoall(s, r, n, t, comm, f->alg);
    case DMX_COLL_REDUCE: return dmx_coll_reduce(s, r, n, t, op, f->root, comm, f->alg);
    case DMX_COLL_ALLREDUCE: return dmx_coll_allreduce(s, r, n, t, op, comm, f->alg);
    case DMX_COLL_REDUCE_SCATTER: return dmx_coll_reduce_scatter(s, r, n, t, op, comm, f->alg);
    case DMX_COLL_SCAN: return dmx_coll_scan(s, r, n, t, op, comm, f->alg);
    case DMX_COLL_EXSCAN: return dmx_coll_exscan(s, r, n, t, op, comm, f->alg);
    default: return dmx_coll_shift(s, r, n, t, f->k, comm, f->alg);
    }
}

/* The status dmx must return: DMX_ERR_ARG for an op the datatype does not take, a predefined
 * op on a derived type, a non-commutative op forced on an algorithm out of rank order. */
static dmx_status want_status(const fcase *f, int p)
{
    if (!is_red(f->kind))
        return DMX_SUCCESS;
    if (f->op == O_UAFFINE && !order_ok(f->kind, f->alg, p))
        return DMX_ERR_ARG;
    if (f->op < O_UADD && (cur.derived || !((cur.b->ops >> f->op) & 1)))
        return DMX_ERR_ARG;
    return DMX_SUCCESS;
}

static const int GUARD = 64;

/* -0 to +0 in the floating-point results of a reduction: complex products reach zero in one
 * order and minus zero in another, both right. */
static void unsign_zeros(unsigned char *buf, int64_t n)
{
    const ttype *b = cur.b;
    if (b->cls != V_FLT && b->cls != V_CPLX)
        return;
    for (int64_t e = 0; e < n; e++)
        for (int i = 0; i < cur.c; i++)
            for (int j = 0; j < cur.bl; j++)
                for (int k = 0; k < (b->cls == V_CPLX ? 2 : 1); k++) {
                    unsigned char *q =
                        buf + (e * cur.ext + (int64_t)i * cur.st + j) * cur.bext + k * b->w;
                    int zero = 0;
                    if (b->w == 4) {
                        float x;
                        memcpy(&x, q, 4);
                        zero = x == 0;
                    } else if (b->w == 8) {
                        double x;
                        memcpy(&x, q, 8);
                        zero = x == 0;
                    } else {
                        long double x;
                        memcpy(&x, q, sizeof x);
                        zero = x == 0;
                    }
                    if (zero)
                        put_small(q, 1, b->w, 0);
                }
}

/* Run one case on comm (every rank of it), compare; returns the problems found here. */
static void run_case(const fcase *f, MPI_Comm comm, dmxt_checker *C, int64_t *skipped)
{
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int64_t ns = 0, nr = 0;
    sizes(f, p, &ns, &nr);
    const int64_t eb = ebytes(), nin = f->kind == DMX_COLL_BCAST ? f->count : ns;
    const int root_here = rank == f->root;
    const int rooted =
        f->kind == DMX_COLL_GATHER || f->kind == DMX_COLL_REDUCE || f->kind == DMX_COLL_SCATTER;
    const int ip = f->inplace && f->kind != DMX_COLL_BCAST && (!rooted || root_here);
    const int64_t rlen = (f->kind == DMX_COLL_REDUCE_SCATTER && ip ? ns : nr) * eb;
    unsigned char *in = malloc((size_t)(nin * eb + 1)), *rd = malloc((size_t)(rlen + GUARD)),
                  *rm = malloc((size_t)(rlen + GUARD)), *sd = malloc((size_t)(nin * eb + 1)),
                  *sm = malloc((size_t)(nin * eb + 1));
    if (!in || !rd || !rm || !sd || !sm) {
        dmxt_fail(C, "out of memory");
        goto done;
    }
    fill(f, rank, in, nin);
    memcpy(sd, in, (size_t)(nin * eb));
    memcpy(sm, in, (size_t)(nin * eb));
    memset(rd, 0xa5, (size_t)(rlen + GUARD));
    memset(rm, 0xa5, (size_t)(rlen + GUARD));
    const void *sdp = sd, *smp = sm;
    void *rdp = rd, *rmp = rm;
    if (f->kind == DMX_COLL_BCAST && root_here) {
        memcpy(rd, in, (size_t)(nin * eb));
        memcpy(rm, in, (size_t)(nin * eb));
    } else if (ip && f->kind == DMX_COLL_SCATTER) {
        rdp = rmp = MPI_IN_PLACE;
    } else if (ip) {
        int64_t at = f->kind == DMX_COLL_GATHER      ? (int64_t)f->root * f->count
                     : f->kind == DMX_COLL_ALLGATHER ? (int64_t)rank * f->count
                                                     : 0;
        memcpy(rd + at * eb, in, (size_t)(nin * eb));
        memcpy(rm + at * eb, in, (size_t)(nin * eb));
        sdp = smp = MPI_IN_PLACE;
    }
    const dmx_status want = want_status(f, p);
    const dmx_status got = dmx_call(f, sdp, rdp, comm);
    if (got != want) {
        dmxt_fail(C, "rank %d: dmx returned %s, want %s (%s)", rank, dmx_status_string(got),
                  dmx_status_string(want), got != DMX_SUCCESS ? dmx_last_error() : "");
        goto done;
    }
    if (want != DMX_SUCCESS)
        goto done;
    if (memcmp(sd, in, (size_t)(nin * eb)) != 0)
        dmxt_fail(C, "rank %d: dmx wrote into the send buffer", rank);
    int64_t cmp_len = rlen; /* bytes compared before the guard */
    if (f->kind == DMX_COLL_EXSCAN && rank == 0)
        cmp_len = 0; /* undefined there */
    if (f->kind == DMX_COLL_REDUCE_SCATTER)
        cmp_len = f->count * eb; /* in place: the rest is undefined */
    if (serial_ref(f) == 1 && f->alg == DMX_COLL_MPI)
        goto done; /* the library's call, its bugs included (docs/coll.md) */
    if (serial_ref(f)) {
        const int r1 = f->kind == DMX_COLL_SCAN ? rank + 1 : f->kind == DMX_COLL_EXSCAN ? rank : p;
        if (f->kind != DMX_COLL_REDUCE || root_here)
            serial(f, r1, nin, f->kind == DMX_COLL_REDUCE_SCATTER ? rank : -1, rm);
    } else {
        int rc = mpi_call(f, smp, rmp, comm, rank, p);
        int bad = rc != MPI_SUCCESS, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) {
            ++*skipped; /* the MPI library refuses the case: nothing to compare with */
            goto done;
        }
    }
    if (is_red(f->kind) && cmp_len > 0) {
        unsign_zeros(rd, cmp_len / eb);
        unsign_zeros(rm, cmp_len / eb);
    }
    for (int64_t i = 0; i < rlen + GUARD; i++) {
        if (i < rlen && (i >= cmp_len || !cmp_byte(i)))
            continue;
        if (rd[i] != rm[i]) {
            dmxt_fail(C, "rank %d: byte %lld (element %lld) is 0x%02x, want 0x%02x%s", rank,
                      (long long)i, (long long)(i / eb), rd[i], rm[i],
                      i >= rlen ? " (past the buffer)" : "");
            break;
        }
    }
done:
    free(in);
    free(rd);
    free(rm);
    free(sd);
    free(sm);
}

/* ---- drawing a case --------------------------------------------------------------------- */
static const ttype *find_type(MPI_Datatype t)
{
    for (int i = 0; i < ntypes; i++)
        if (types[i].t == t)
            return &types[i];
    return &types[0];
}

/* The layout: a predefined type, or a contiguous / vector / resized vector of base. */
static void make_layout(dmxt_rng *g, const ttype *base, int derived, int even)
{
    MPI_Aint lb = 0;
    cur = (lay){base, 1, 1, 1, 1, 0, base->t, derived};
    MPI_Type_get_extent(base->t, &lb, &cur.bext);
    if (!derived)
        return;
    if (dmxt_rng_chance(g, 40)) { /* contiguous */
        cur.bl = cur.st = cur.ext = (int)dmxt_rng_int(g, 1, 4);
        if (even && cur.bl % 2)
            cur.bl = cur.st = cur.ext = cur.bl + 1;
        MPI_Type_contiguous(cur.bl, base->t, &cur.t);
    } else {
        cur.c = (int)dmxt_rng_int(g, 1, 3);
        cur.bl = (int)dmxt_rng_int(g, 1, 3);
        if (even && (cur.c * cur.bl) % 2)
            cur.bl++;
        cur.st = cur.bl + (int)dmxt_rng_int(g, 0, 2);
        MPI_Datatype v;
        MPI_Type_vector(cur.c, cur.bl, cur.st, base->t, &v);
        cur.ext = (cur.c - 1) * cur.st + cur.bl;
        if (dmxt_rng_chance(g, 50)) { /* a gap after each element too */
            cur.ext = cur.c * cur.st + 1;
            MPI_Type_create_resized(v, 0, cur.ext * cur.bext, &cur.t);
            MPI_Type_free(&v);
        } else {
            cur.t = v;
        }
    }
    MPI_Type_commit(&cur.t);
}

static int pick_op(dmxt_rng *g, const ttype *b)
{
    int valid[O_NOPS], n = 0;
    for (int o = 0; o < O_UADD; o++)
        if ((b->ops >> o) & 1)
            valid[n++] = o;
    if (n == 0 || dmxt_rng_chance(g, 8))
        return (int)dmxt_rng_int(g, 0, O_UADD - 1); /* maybe one it does not take */
    return valid[dmxt_rng_int(g, 0, n - 1)];
}

static void draw(dmxt_rng *g, fcase *f, int p, int big)
{
    static const int64_t counts[] = {0, 1, 2, 3, 5, 7, 13, 31, 61, 127, 257, 1021};
    memset(f, 0, sizeof *f);
    f->kind = (dmx_coll_kind)dmxt_rng_int(g, 0, DMX_COLL_NKINDS - 1);
    const int red = is_red(f->kind);
    const int derived = dmxt_rng_chance(g, 25);
    const ttype *base = &types[dmxt_rng_int(g, 0, ntypes - 1)];
    f->op = -1;
    if (red) {
        int u = derived ? !dmxt_rng_chance(g, 15) : dmxt_rng_chance(g, 15);
        if (u) {
            f->op = dmxt_rng_chance(g, 50) ? O_UADD : O_UAFFINE;
            base = find_type(derived || f->op == O_UADD ? MPI_UINT32_T : MPI_2INT);
        } else {
            while (!derived && base->ops == 0 && !dmxt_rng_chance(g, 5))
                base = &types[dmxt_rng_int(g, 0, ntypes - 1)];
            f->op = pick_op(g, base);
        }
    }
    make_layout(g, base, derived, f->op == O_UAFFINE);
    f->root = (int)dmxt_rng_int(g, 0, p - 1);
    f->inplace = f->kind != DMX_COLL_BCAST && dmxt_rng_chance(g, 30);
    f->k = dmxt_rng_int(g, -2 * p, 2 * p);
    f->count = counts[dmxt_rng_int(g, 0, (int64_t)(sizeof counts / sizeof counts[0]) - 1)];
    if (big && dmxt_rng_chance(g, 4)) /* over 1 MiB (per block where there are blocks) */
        f->count = ((int64_t)1 << 20) / ebytes() + 3;
    /* the algorithms: AUTO, MPI's, each dmx one of the collective */
    dmx_coll_alg algs[DMX_COLL_NALGS] = {DMX_COLL_AUTO};
    int na = 0;
    for (int a = 0; a < DMX_COLL_NALGS; a++)
        if (dmx_coll_alg_valid(f->kind, (dmx_coll_alg)a))
            algs[na++] = (dmx_coll_alg)a;
    f->alg = dmxt_rng_chance(g, 15) ? DMX_COLL_AUTO : algs[dmxt_rng_int(g, 0, na - 1)];
    f->vseed = dmxt_rng_next(g);
}

/* ---- focused sweeps (one per defect the random cases found) ------------------------------ */
static int64_t focus_skipped = 0;

static void one(dmxt_ctx *ctx, fcase *f, const ttype *b, int derived)
{
    dmxt_rng g;
    dmxt_rng_seed(&g, 99, (uint64_t)f->kind * 1000 + (uint64_t)f->alg);
    make_layout(&g, b, derived, f->op == O_UAFFINE);
    f->vseed = dmxt_rng_next(&g);
    char desc[300];
    snprintf(desc, sizeof desc, "%s alg=%s type=%s%s op=%s count=%lld root=%d inplace=%d np=%d",
             dmx_coll_kind_name(f->kind), dmx_coll_alg_name(f->alg), b->name,
             derived ? " derived" : "", f->op >= 0 ? op_names[f->op] : "-", (long long)f->count,
             f->root, f->inplace, ctx->size);
    dmxt_set_current(desc);
    dmxt_checker C = {ctx, 0, ""};
    run_case(f, ctx->comm, &C, &focus_skipped);
    dmxt_case_end(ctx, C.bad, C.msg, desc);
    if (cur.derived)
        MPI_Type_free(&cur.t);
}

/* Every algorithm (AUTO and MPI's included) of every collective kind allows, in place or not,
 * roots 0 and p-1, with ops from ops[] (reductions) on base. */
static void sweep(dmxt_ctx *ctx, const ttype *const *bs, int nb, const int *ops, int nops,
                  int red_only, int64_t count)
{
    for (int k = 0; k < DMX_COLL_NKINDS; k++) {
        if (red_only && !is_red((dmx_coll_kind)k))
            continue;
        for (int a = 0; a < DMX_COLL_NALGS; a++) {
            if (!dmx_coll_alg_valid((dmx_coll_kind)k, (dmx_coll_alg)a))
                continue;
            for (int v = 0; v < 4; v++) {
                fcase f;
                memset(&f, 0, sizeof f);
                f.kind = (dmx_coll_kind)k;
                f.alg = (dmx_coll_alg)a;
                f.op = is_red(f.kind) ? ops[v % nops] : -1;
                f.inplace = v & 1;
                f.root = v & 2 ? ctx->size - 1 : 0;
                f.k = v + 1;
                f.count = count + (a + v) % 2 * 30;
                one(ctx, &f, bs[(a + v) % nb], 0); /* the types take turns */
            }
        }
    }
}

static int focus(dmxt_ctx *ctx, const char *what)
{
    if (strcmp(what, "pairs") == 0) { /* padded pairs: extent, MAXLOC/MINLOC, scans */
        const int ops[] = {O_MAXLOC, O_MINLOC};
        const ttype *t[] = {find_type(MPI_DOUBLE_INT), find_type(MPI_LONG_INT),
                            find_type(MPI_SHORT_INT), find_type(MPI_LONG_DOUBLE_INT),
                            find_type(MPI_FLOAT_INT)};
        sweep(ctx, t, 5, ops, 2, 0, 7);
    } else if (strcmp(what, "noncomm") == 0) { /* rank order, or DMX_ERR_ARG */
        const int ops[] = {O_UAFFINE};
        const ttype *t[] = {find_type(MPI_2INT)};
        sweep(ctx, t, 1, ops, 1, 1, 7);
    } else if (strcmp(what, "wrap") == 0) { /* 8/16-bit sums wrap (saturated from 64 elements) */
        const int ops[] = {O_SUM, O_PROD};
        const ttype *t[] = {find_type(MPI_UNSIGNED_CHAR), find_type(MPI_SIGNED_CHAR),
                            find_type(MPI_SHORT),         find_type(MPI_UNSIGNED_SHORT),
                            find_type(MPI_INT8_T),        find_type(MPI_UINT16_T)};
        sweep(ctx, t, 6, ops, 2, 1, 131);
    } else if (strcmp(what, "invalid") == 0) { /* refused by name, nothing aborts */
        const struct {
            MPI_Datatype t;
            int op, derived;
        } bad[] = {{MPI_DOUBLE, O_BAND, 0},
                   {MPI_INT, O_REPLACE, 0},
                   {MPI_INT, O_NOOP, 0},
                   {MPI_INT, O_MAXLOC, 0},
                   {MPI_C_FLOAT_COMPLEX, O_MAX, 0},
                   {MPI_C_BOOL, O_SUM, 0},
                   {MPI_CHAR, O_SUM, 0},
                   {MPI_DOUBLE_INT, O_SUM, 0},
                   {MPI_FLOAT, O_LXOR, 0},
                   {MPI_BYTE, O_SUM, 0},
                   {MPI_DOUBLE, O_SUM, 1},
                   {MPI_DOUBLE_INT, O_MAXLOC, 1}};
        const dmx_coll_alg algs[] = {DMX_COLL_AUTO, DMX_COLL_MPI, DMX_COLL_RING, DMX_COLL_BINOMIAL};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            for (int a = 0; a < 4; a++) {
                fcase f;
                memset(&f, 0, sizeof f);
                f.kind = a == 3 ? DMX_COLL_REDUCE : DMX_COLL_ALLREDUCE;
                f.alg = algs[a];
                f.op = bad[i].op;
                f.count = 3;
                one(ctx, &f, find_type(bad[i].t), bad[i].derived);
            }
    } else {
        return 0;
    }
    return 1;
}

static void quiet(dmx_status st, const char *msg)
{
    (void)st;
    (void)msg; /* the test checks the statuses */
}

int main(int argc, char **argv)
{
    dmxt_ctx ctx;
    dmxt_init(&ctx, &argc, &argv, "coll_fuzz");
    int64_t cases = dmxt_cases("DMX_COLL_FUZZ_CASES", 120);
    uint64_t seed = (uint64_t)dmxt_env_int("DMX_COLL_FUZZ_SEED", (int64_t)ctx.seed);
    const int big = (int)dmxt_env_int("DMX_COLL_FUZZ_BIG", 1);
    const char *what = argc > 1 && argv[1][0] >= 'a' && argv[1][0] <= 'z' ? argv[1] : NULL;
    if (argc > 1 && what == NULL)
        cases = atoll(argv[1]);
    if (argc > 2)
        seed = (uint64_t)atoll(argv[2]);
    dmx_set_error_handler(quiet);
    make_types();
    MPI_Op_create(uadd, 1, &user_add);
    MPI_Op_create(uaffine, 0, &user_affine);
    /* communicators: the world; halves by parity with the ranks reversed; halves in order */
    MPI_Comm comms[3] = {ctx.comm, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Comm_split(ctx.comm, ctx.rank % 2, -ctx.rank, &comms[1]);
    MPI_Comm_split(ctx.comm, ctx.rank < ctx.size / 2, ctx.rank, &comms[2]);
    for (int c = 0; c < 3; c++)
        MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);
    if (what != NULL) {
        if (!focus(&ctx, what) && ctx.rank == 0)
            printf("coll_fuzz: unknown sweep %s\n", what);
        cases = 0;
    }
    if (ctx.rank == 0 && what == NULL)
        printf("coll_fuzz: %lld cases, seed %llu, %d ranks\n", (long long)cases,
               (unsigned long long)seed, ctx.size);
    int64_t skipped = 0;
    for (int64_t i = 0; i < cases; i++) {
        dmxt_rng g;
        dmxt_rng_seed(&g, seed, (uint64_t)i);
        const int ci = dmxt_rng_chance(&g, 70) ? 0 : (int)dmxt_rng_int(&g, 1, 2);
        int p = 1;
        MPI_Comm_size(comms[ci], &p);
        fcase f;
        draw(&g, &f, p, big);
        char desc[400];
        snprintf(desc, sizeof desc,
                 "case %lld (seed %llu): %s alg=%s type=%s%s (c %d bl %d st %d ext %d) op=%s "
                 "count=%lld root=%d inplace=%d k=%lld comm=%d np=%d",
                 (long long)i, (unsigned long long)seed, dmx_coll_kind_name(f.kind),
                 dmx_coll_alg_name(f.alg), cur.b->name, cur.derived ? " derived" : "", cur.c,
                 cur.bl, cur.st, cur.ext, f.op >= 0 ? op_names[f.op] : "-", (long long)f.count,
                 f.root, f.inplace, (long long)f.k, ci, p);
        dmxt_set_current(desc);
        dmxt_checker C = {&ctx, 0, ""};
        run_case(&f, comms[ci], &C, &skipped);
        dmxt_case_end(&ctx, C.bad, C.msg, desc);
        if (cur.derived)
            MPI_Type_free(&cur.t);
    }
    int64_t sk = 0;
    skipped += focus_skipped;
    MPI_Reduce(&skipped, &sk, 1, MPI_INT64_T, MPI_SUM, 0, ctx.comm);
    if (ctx.rank == 0 && sk > 0)
        printf("coll_fuzz: %lld rank-cases where the MPI library refused the call (not compared)\n",
               (long long)sk);
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    MPI_Op_free(&user_add);
    MPI_Op_free(&user_affine);
    return dmxt_finish(&ctx);
}
