/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives, the public entry points: argument checks, what happens when one fails
 * (DMX_COLL_CHECK), buffer normalization (MPI_IN_PLACE, own blocks, writable accumulators) and
 * dispatch to the chosen algorithm or to the MPI library's own call.
 *
 * DMX_COLL_CHECK (read once, coll_select.c) decides what a failed local check does:
 *  local (default): the check calls the dmx error handler (dmxi_fatal) on that rank, then the
 *    call returns the status there. The default handler prints the message and aborts the
 *    job, so the ranks that passed their checks and wait in the collective are not left
 *    hanging: the promise MPI_ERRORS_ARE_FATAL gives. Costs nothing when the checks pass.
 *  agree (or 1): one MPI_Allreduce (MAX) of nine int64 values: the local status, count,
 *    -count, root, -root, alg, -alg, k, -k. A status above zero on any rank fails every rank
 *    with it; a max that differs from minus the max of the negation means ranks passed
 *    different values (DMX_ERR_ARG everywhere). Nothing else is sent before it. It doubles the
 *    time of a small collective.
 *  off (or 0): the status is returned on that rank, nothing else (the others may then wait).
 *
 * Per-call cost when the checks pass: the communicator's cache is found by one compare when it
 * is the last one used (dmxi_ccomm_fast), the datatype and op checks remember the last valid
 * ones, and AUTO's choice is remembered per communicator and collective for the last size. A
 * repeat that goes to the MPI library's own call skips the rest (run, below).
 *
 * Temporary memory made here (the algorithms' own is in their files and docs/coll.md):
 *  reduce: count elements on non-root ranks (the accumulator); reduce-scatter: p*count
 *  elements unless in place; scan and exscan: count elements when in place; alltoall: p*count
 *  elements when in place; shift: count elements when in place. */
#include "coll_internal.h"

#include <math.h>
#include <string.h>

/* How a failed check is recorded: dmxi_error, or dmxi_fatal (which also calls the error
 * handler) when DMX_COLL_CHECK=local. Set by run() before any check. */
typedef dmx_status (*fail_fn)(dmx_status, const char *, int, const char *, ...);
static fail_fn fail = dmxi_error;
#define CCHECK(cond, code, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            st = fail((code), __FILE__, __LINE__, __VA_ARGS__);                                    \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

static int is_rooted(dmx_coll_kind k)
{
    return k == DMX_COLL_BCAST || k == DMX_COLL_SCATTER || k == DMX_COLL_GATHER ||
           k == DMX_COLL_REDUCE;
}

static int is_reduction(dmx_coll_kind k)
{
    return k == DMX_COLL_REDUCE || k == DMX_COLL_ALLREDUCE || k == DMX_COLL_REDUCE_SCATTER ||
           k == DMX_COLL_SCAN || k == DMX_COLL_EXSCAN;
}

/* The root is a rank of the p (or the collective has none). */
static int root_ok(dmx_coll_kind k, int root, int p)
{
    return !is_rooted(k) || (root >= 0 && root < p);
}

/* The last datatype and (datatype, op) pair found valid: small collectives repeat them, and the
 * checks cost a noticeable part of a sub-microsecond call. Predefined handles never change. */
static MPI_Datatype ok_type = MPI_DATATYPE_NULL, ok_op_type = MPI_DATATYPE_NULL;
static int64_t ok_esize = 0;
static MPI_Op ok_op = MPI_OP_NULL;
static int ok_own_arith = 0; /* dmxi_c_own_arith(ok_op_type, ok_op) */

/* What the checks found out about the datatype and op of a call. */
typedef struct tinfo {
    int64_t esize; /* the extent: elements are this many bytes apart */
    int simple;    /* contiguous bytes (size = extent, no gaps): no staging */
    int derived;
    int noncomm; /* a user op that is not commutative */
} tinfo;

/* Only predefined datatypes are remembered (a freed derived type's handle may come back as
 * another type). Elements are an extent apart: MPI_DOUBLE_INT has 12 bytes of data every 16. */
static dmx_status check_type(MPI_Datatype type, tinfo *ti)
{
    dmx_status st = DMX_SUCCESS;
    int ni = 0, na = 0, nd = 0, comb = 0, sz = 0;
    MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
    if (type == ok_type && type != MPI_DATATYPE_NULL) {
        ti->esize = ok_esize;
        ti->simple = 1;
        goto cleanup;
    }
    CCHECK(type != MPI_DATATYPE_NULL, DMX_ERR_ARG, "datatype is MPI_DATATYPE_NULL");
    DMXI_MPI(MPI_Type_get_envelope(type, &ni, &na, &nd, &comb));
    DMXI_MPI(MPI_Type_size(type, &sz));
    CCHECK(sz > 0, DMX_ERR_ARG, "datatype has size 0");
    DMXI_MPI(MPI_Type_get_extent(type, &lb, &ext));
    DMXI_MPI(MPI_Type_get_true_extent(type, &tlb, &text));
    CCHECK(tlb >= 0 && text <= ext - tlb, DMX_ERR_UNSUPPORTED,
           "datatype's data (true lower bound %lld, true extent %lld) does not lie within one "
           "extent (%lld) from the element's start: consecutive elements would overlap",
           (long long)tlb, (long long)text, (long long)ext);
    ti->esize = ext;
    ti->derived = comb != MPI_COMBINER_NAMED;
    ti->simple = sz == ext && tlb == 0 && text == ext;
    if (!ti->derived && ti->simple) {
        ok_type = type;
        ok_esize = ext;
    }
cleanup:
    return st;
}

/* Whether op may reduce type: a predefined op by the MPI standard's table (coll_types.c), on
 * predefined datatypes only; a user op on any datatype, its commutativity noted. Looked up, not
 * tried: MPI_Reduce_local on a pair MPI refuses ends the job in the library's error handler. */
static dmx_status check_op(MPI_Datatype type, MPI_Op op, tinfo *ti)
{
    dmx_status st = DMX_SUCCESS;
    if (op == ok_op && type == ok_op_type && op != MPI_OP_NULL)
        goto cleanup;
    CCHECK(op != MPI_OP_NULL, DMX_ERR_ARG, "op is MPI_OP_NULL");
    if (!dmxi_c_op_predefined(op)) {
        int commute = 1;
        DMXI_MPI(MPI_Op_commutative(op, &commute));
        ti->noncomm = !commute;
        goto cleanup;
    }
    CCHECK(!ti->derived, DMX_ERR_ARG,
           "%s on a derived datatype: MPI defines predefined ops in reductions on predefined "
           "datatypes only (use a user-defined op, or the element type)",
           dmxi_c_op_name(op));
    if (!dmxi_c_op_valid(type, op)) {
        char name[MPI_MAX_OBJECT_NAME] = "?";
        int len = 0;
        DMXI_MPI(MPI_Type_get_name(type, name, &len));
        CCHECK(0, DMX_ERR_ARG,
               "%s is not defined on %s (the MPI standard's table of ops and "
               "datatypes%s)",
               dmxi_c_op_name(op), len > 0 ? name : "this datatype",
               op == MPI_REPLACE || op == MPI_NO_OP ? "; it is for one-sided accumulates only"
                                                    : "");
    }
    ok_op = op;
    ok_op_type = type;
    ok_own_arith = dmxi_c_own_arith(type, op);
cleanup:
    return st;
}

typedef dmxi_ccall call;

/* *out = a * b for a, b >= 0; 0 if that overflows int64_t. */
static inline int mul_ok(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__)
    return !__builtin_mul_overflow(a, b, out);
#else
    if (b != 0 && a > INT64_MAX / b)
        return 0;
    *out = a * b;
    return 1;
#endif
}

/* Whether the send and receive buffers share a byte (neither MPI_IN_PLACE, both significant
 * here; bytes per block and per p blocks). MPI forbids aliased buffers, and dmx's ring exscan
 * and shift returned wrong data for them. */
static inline int overlap(const call *c, uint64_t bytes, uint64_t total)
{
    if (c->kind == DMX_COLL_BCAST || c->sbuf == MPI_IN_PLACE || c->rbuf == MPI_IN_PLACE)
        return 0;
    int sp = c->kind == DMX_COLL_SCATTER || c->kind == DMX_COLL_REDUCE_SCATTER ||
             c->kind == DMX_COLL_ALLTOALL;
    int rp =
        c->kind == DMX_COLL_GATHER || c->kind == DMX_COLL_ALLGATHER || c->kind == DMX_COLL_ALLTOALL;
    uintptr_t s0 = (uintptr_t)c->sbuf, r0 = (uintptr_t)c->rbuf;
    uint64_t sn = sp ? total : bytes, rn = rp ? total : bytes; /* [s0, s0 + sn) and [r0, ..) */
    return bytes > 0 && (s0 < r0 ? r0 - s0 < sn : s0 - r0 < rn);
}

static dmx_status local_checks(const call *c, int rank, int p, tinfo *ti, int64_t *bytes)
{
    int64_t *esize = &ti->esize;
    dmx_status st = DMX_SUCCESS;
    CCHECK(c->count >= 0, DMX_ERR_ARG, "negative count %lld", (long long)c->count);
    CCHECK((unsigned)c->alg < DMX_COLL_NALGS && ((dmxi_coll_valid_mask[c->kind] >> c->alg) & 1u),
           DMX_ERR_ARG, "algorithm %d is not one of %s's", (int)c->alg,
           dmx_coll_kind_name(c->kind));
    CCHECK(root_ok(c->kind, c->root, p), DMX_ERR_ARG, "root %d out of range [0, %d)", c->root, p);
    DMXI_TRY(check_type(c->type, ti));
    if (is_reduction(c->kind)) {
        DMXI_TRY(check_op(c->type, c->op, ti));
        CCHECK(!ti->noncomm || c->alg == DMX_COLL_AUTO || dmxi_coll_keeps_order(c->kind, c->alg, p),
               DMX_ERR_ARG,
               "%s %s does not combine in rank order at %d ranks, and the op is not commutative "
               "(MPI_Op_commutative): use DMX_COLL_AUTO or DMX_COLL_MPI",
               dmx_coll_kind_name(c->kind), dmx_coll_alg_name(c->alg), p);
    }
    int64_t total = 0;
    CCHECK(mul_ok(c->count, *esize, bytes) && mul_ok(*bytes, p, &total), DMX_ERR_OVERFLOW,
           "%lld elements of %lld bytes on %d ranks overflow int64_t", (long long)c->count,
           (long long)*esize, p);
    if (c->count > 0) {
        int root_here = is_rooted(c->kind) && rank == c->root;
        int need_s = c->kind != DMX_COLL_BCAST && (c->kind != DMX_COLL_SCATTER || root_here);
        int need_r = c->kind == DMX_COLL_BCAST ||
                     ((c->kind != DMX_COLL_GATHER && c->kind != DMX_COLL_REDUCE) || root_here);
        CCHECK(!need_s || c->sbuf != NULL, DMX_ERR_NULL, "send buffer is NULL");
        CCHECK(!need_r || c->rbuf != NULL, DMX_ERR_NULL, "receive buffer is NULL");
        CCHECK(!(need_s && need_r && overlap(c, (uint64_t)*bytes, (uint64_t)total)), DMX_ERR_ARG,
               "the send and receive buffers overlap (MPI forbids aliased buffers; pass "
               "MPI_IN_PLACE as the send buffer for an in-place %s)",
               dmx_coll_kind_name(c->kind));
    }
cleanup:
    return st;
}

static dmx_status agree(MPI_Comm comm, dmx_status local, const call *c)
{
    dmx_status st = DMX_SUCCESS;
    int64_t root = is_rooted(c->kind) ? c->root : 0;
    int64_t v[9] = {(int64_t)local,  c->count,         -c->count, root, -root,
                    (int64_t)c->alg, -(int64_t)c->alg, c->k,      -c->k};
    int64_t m[9];
    DMXI_MPI(MPI_Allreduce(v, m, 9, MPI_INT64_T, MPI_MAX, comm));
    if (m[0] != 0) {
        if (local != DMX_SUCCESS)
            st = local; /* this rank's own message stays */
        else
            st = dmxi_error((dmx_status)m[0], __FILE__, __LINE__,
                            "another rank failed with %s (see its error message)",
                            dmx_status_string((dmx_status)m[0]));
        goto cleanup;
    }
    DMXI_CHECK(m[1] == -m[2] && m[3] == -m[4] && m[5] == -m[6] && m[7] == -m[8], DMX_ERR_ARG,
               "ranks passed different count, root, algorithm or shift to %s",
               dmx_coll_kind_name(c->kind));
cleanup:
    return st;
}

static dmx_status scan_hc(const dmxi_cargs *a)
{
    return dmxi_scan_hypercube(a, 0);
}
static dmx_status scan_ring(const dmxi_cargs *a)
{
    return dmxi_scan_ring(a, 0);
}
static dmx_status exscan_hc(const dmxi_cargs *a)
{
    return dmxi_scan_hypercube(a, 1);
}
static dmx_status exscan_ring(const dmxi_cargs *a)
{
    return dmxi_scan_ring(a, 1);
}

static dmxi_coll_fn lookup(dmx_coll_kind kind, dmx_coll_alg alg)
{
#define A(K, G, F)                                                                                 \
    if (kind == (K) && alg == (G))                                                                 \
    return F
    A(DMX_COLL_BCAST, DMX_COLL_FLAT, dmxi_bcast_flat);
    A(DMX_COLL_BCAST, DMX_COLL_RING, dmxi_bcast_ring);
    A(DMX_COLL_BCAST, DMX_COLL_PIPELINE, dmxi_bcast_pipeline);
    A(DMX_COLL_BCAST, DMX_COLL_BINOMIAL, dmxi_bcast_binomial);
    A(DMX_COLL_BCAST, DMX_COLL_SCATTER_AG, dmxi_bcast_scatter_ag);
    A(DMX_COLL_BCAST, DMX_COLL_GRID, dmxi_bcast_grid);
    A(DMX_COLL_SCATTER, DMX_COLL_FLAT, dmxi_scatter_flat);
    A(DMX_COLL_SCATTER, DMX_COLL_PIPELINE, dmxi_scatter_pipeline);
    A(DMX_COLL_SCATTER, DMX_COLL_BINOMIAL, dmxi_scatter_binomial);
    A(DMX_COLL_GATHER, DMX_COLL_FLAT, dmxi_gather_flat);
    A(DMX_COLL_GATHER, DMX_COLL_PIPELINE, dmxi_gather_pipeline);
    A(DMX_COLL_GATHER, DMX_COLL_BINOMIAL, dmxi_gather_binomial);
    A(DMX_COLL_ALLGATHER, DMX_COLL_RING, dmxi_allgather_ring);
    A(DMX_COLL_ALLGATHER, DMX_COLL_RECDBL, dmxi_allgather_recdbl);
    A(DMX_COLL_ALLGATHER, DMX_COLL_BRUCK, dmxi_allgather_bruck);
    A(DMX_COLL_ALLGATHER, DMX_COLL_GRID, dmxi_allgather_grid);
    A(DMX_COLL_REDUCE, DMX_COLL_BINOMIAL, dmxi_reduce_binomial);
    A(DMX_COLL_REDUCE, DMX_COLL_RS_GATHER, dmxi_reduce_rs_gather);
    A(DMX_COLL_ALLREDUCE, DMX_COLL_BINOMIAL, dmxi_allreduce_binomial);
    A(DMX_COLL_ALLREDUCE, DMX_COLL_RECDBL, dmxi_allreduce_recdbl);
    A(DMX_COLL_ALLREDUCE, DMX_COLL_RING, dmxi_allreduce_ring);
    A(DMX_COLL_REDUCE_SCATTER, DMX_COLL_RING, dmxi_redscat_ring);
    A(DMX_COLL_REDUCE_SCATTER, DMX_COLL_HALVING, dmxi_redscat_halving);
    A(DMX_COLL_ALLTOALL, DMX_COLL_PAIRWISE, dmxi_alltoall_pairwise);
    A(DMX_COLL_ALLTOALL, DMX_COLL_HYPERCUBE, dmxi_alltoall_hypercube);
    A(DMX_COLL_ALLTOALL, DMX_COLL_BRUCK, dmxi_alltoall_bruck);
    A(DMX_COLL_ALLTOALL, DMX_COLL_GRID, dmxi_alltoall_grid);
    A(DMX_COLL_SCAN, DMX_COLL_HYPERCUBE, scan_hc);
    A(DMX_COLL_SCAN, DMX_COLL_RING, scan_ring);
    A(DMX_COLL_EXSCAN, DMX_COLL_HYPERCUBE, exscan_hc);
    A(DMX_COLL_EXSCAN, DMX_COLL_RING, exscan_ring);
    A(DMX_COLL_SHIFT, DMX_COLL_RING, dmxi_shift_ring);
    A(DMX_COLL_SHIFT, DMX_COLL_GRID, dmxi_shift_grid);
#undef A
    return NULL;
}

/* Copy n bytes unless the source is the destination. */
static void copy(void *dst, const void *src, int64_t n)
{
    if (n > 0 && dst != src)
        memcpy(dst, src, (size_t)n);
}

/* AUTO's remembered choice on cc for this collective and byte count, or -1. */
static int memo_get(const dmxi_ccomm *cc, dmx_coll_kind kind, int64_t bytes)
{
    const dmxi_cmemo *m = &cc->memo[kind];
    return m->epoch == dmxi_coll_model_epoch && m->bytes == bytes ? m->alg : -1;
}

/* Set by run_full once DMX_COLL_CHECK is known not to be agree: only then may a repeat skip
 * the checks (agree mode exchanges them every call). */
static int fast_allowed = 0;

static dmx_status run_full(const call *c);

/* A repeat of a call already checked in full and sent to the MPI library's own call: the same
 * communicator as the last call (so the same p), the same valid datatype (and op), a
 * remembered AUTO choice of MPI for the same byte count (or MPI named), a root in range and
 * non-NULL buffers. Everything else run_full checks was true when that choice was made and
 * cannot have changed. It skips the checks and the normalized arguments: the front end's cost
 * on an 8-byte bcast at np 2 (~85 ns) went from ~10 ns to 5-8 ns (docs/coll.md). */
static dmx_status run(const call *c)
{
    dmxi_ccomm *cc = dmxi_ccomm_last;
    if (!fast_allowed || c->comm != dmxi_ccomm_last_comm || cc == NULL || c->type != ok_type ||
        c->count < 0 || c->count > dmxi_coll_mpi_count_max || c->rbuf == NULL ||
        (c->sbuf == NULL && c->kind != DMX_COLL_BCAST) || !root_ok(c->kind, c->root, cc->size) ||
        (is_reduction(c->kind) && (c->op != ok_op || c->type != ok_op_type)))
        return run_full(c);
    if (c->alg != DMX_COLL_MPI &&
        (c->alg != DMX_COLL_AUTO || memo_get(cc, c->kind, c->count * ok_esize) != DMX_COLL_MPI ||
         (is_reduction(c->kind) && ok_own_arith)))
        return run_full(c);
    /* buffers that may overlap (on a rank where one of them does not count, too): the checks
     * decide; the product saturates */
    uint64_t b = (uint64_t)c->count * (uint64_t)ok_esize, ps = (uint64_t)cc->size;
    if (overlap(c, b, b > UINT64_MAX / ps ? UINT64_MAX : b * ps))
        return run_full(c);
    return dmxi_coll_run_mpi(c, cc);
}

/* Normalize the buffers (the table in coll_internal.h) and run dmx algorithm alg. */
static dmx_status run_alg(const call *c, dmxi_ccomm *cc, dmx_coll_alg alg, int64_t esize,
                          int64_t bytes, int noncomm)
{
    dmx_status st = DMX_SUCCESS;
    void *tmp = NULL;
    int rank = cc->rank, p = cc->size;
    dmxi_coll_fn fn = lookup(c->kind, alg);
    DMXI_CHECK(fn != NULL, DMX_ERR_INTERNAL, "no implementation of %s for %s",
               dmx_coll_alg_name(alg), dmx_coll_kind_name(c->kind));

    dmxi_cargs a = {cc,      cc->dup, rank,  p,       c->sbuf, c->rbuf, NULL,   c->count,
                    c->type, esize,   c->op, c->root, 0,       0,       noncomm};
    int in_place = c->sbuf == MPI_IN_PLACE;
    switch (c->kind) {
    case DMX_COLL_BCAST: break;
    case DMX_COLL_SCATTER:
        if (rank == c->root && c->rbuf != MPI_IN_PLACE)
            copy(c->rbuf, (const char *)c->sbuf + (int64_t)c->root * bytes, bytes);
        break;
    case DMX_COLL_GATHER:
        if (rank == c->root && !in_place)
            copy((char *)c->rbuf + (int64_t)c->root * bytes, c->sbuf, bytes);
        break;
    case DMX_COLL_ALLGATHER:
        if (!in_place)
            copy((char *)c->rbuf + (int64_t)rank * bytes, c->sbuf, bytes);
        break;
    case DMX_COLL_REDUCE:
        if (rank == c->root) {
            if (!in_place)
                copy(c->rbuf, c->sbuf, bytes);
        } else {
            tmp = dmxi_malloc(bytes, 1);
            DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (reduce accumulator)");
            copy(tmp, c->sbuf, bytes);
            a.rbuf = tmp;
        }
        break;
    case DMX_COLL_ALLREDUCE:
        if (!in_place)
            copy(c->rbuf, c->sbuf, bytes);
        break;
    case DMX_COLL_REDUCE_SCATTER:
        if (in_place) {
            a.work = c->rbuf;
        } else {
            tmp = dmxi_malloc(bytes * p, 1);
            DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (reduce-scatter work)");
            copy(tmp, c->sbuf, bytes * p);
            a.work = tmp;
        }
        break;
    case DMX_COLL_SCAN:
    case DMX_COLL_EXSCAN:
    case DMX_COLL_SHIFT:
    case DMX_COLL_ALLTOALL:
        if (in_place) {
            int64_t n = c->kind == DMX_COLL_ALLTOALL ? bytes * p : bytes;
            tmp = dmxi_malloc(n, 1);
            DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (in-place copy)");
            copy(tmp, c->rbuf, n);
            a.sbuf = tmp;
        }
        if (c->kind == DMX_COLL_SHIFT)
            a.k = dmxi_mod(c->k, p);
        break;
    default: DMXI_FAIL(DMX_ERR_INTERNAL, "unknown collective %d", (int)c->kind);
    }
    if (c->kind == DMX_COLL_BCAST && alg == DMX_COLL_PIPELINE)
        a.nseg = dmxi_coll_segments(p, bytes, cc->nodes);
    DMXI_TRY(fn(&a));
cleanup:
    free(tmp);
    return st;
}

/* The model's fastest dmx algorithm for kind (the MPI library's call left out). Every reduction
 * has some. */
static dmx_coll_alg best_own(dmx_coll_kind kind, int p, int64_t bytes, int nodes)
{
    dmx_coll_alg best = DMX_COLL_NALGS;
    double bt = INFINITY;
    for (int a = DMX_COLL_FLAT; a < DMX_COLL_NALGS; a++) {
        double t = INFINITY;
        if (!dmx_coll_alg_valid(kind, (dmx_coll_alg)a))
            continue;
        if (best == DMX_COLL_NALGS)
            best = (dmx_coll_alg)a; /* the first valid one, should no prediction succeed */
        if (dmx_coll_predict(kind, (dmx_coll_alg)a, p, bytes, nodes, &t, NULL) == DMX_SUCCESS &&
            t < bt) {
            bt = t;
            best = (dmx_coll_alg)a;
        }
    }
    return best;
}

/* A dmx algorithm on a datatype with gaps: on staged temporaries (coll_stage.c), packed bytes
 * for the collectives that move data, elements an extent apart for reductions. */
static dmx_status run_staged(const call *c, dmxi_ccomm *cc, dmx_coll_alg alg, int noncomm)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_cstage s;
    call in;
    int64_t es = 0;
    DMXI_TRY(dmxi_coll_stage(c, cc, is_reduction(c->kind), &s, &in, &es));
    st = run_alg(&in, cc, alg, es, in.count * es, noncomm);
    dmx_status st2 = dmxi_coll_unstage(&s, cc, st == DMX_SUCCESS);
    if (st == DMX_SUCCESS)
        st = st2;
cleanup:
    return st;
}

/* Reduce-scatter of a non-commutative op for AUTO (no reduce-scatter algorithm keeps rank
 * order): a binomial reduce of the p blocks to rank 0 (in rank order), then a scatter. Cost:
 * ceil(log2 p)(alpha + p m (beta + gamma)) + (p-1) t(m); temporary memory p m on rank 0. */
static dmx_status redscat_in_order(const call *c)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_ccomm *cc = NULL;
    void *all = NULL;
    MPI_Aint lb = 0, ext = 0;
    DMXI_TRY(dmxi_ccomm_fast(c->comm, &cc));
    DMXI_MPI(MPI_Type_get_extent(c->type, &lb, &ext));
    const int64_t n = c->count * cc->size;
    const void *in = c->sbuf == MPI_IN_PLACE ? c->rbuf : c->sbuf;
    if (cc->rank == 0) {
        all = dmxi_malloc(n * (int64_t)ext, 1);
        DMXI_CHECK(all != NULL, DMX_ERR_ALLOC, "out of memory (in-order reduce-scatter)");
    }
    DMXI_TRY(dmx_coll_reduce(in, all, n, c->type, c->op, 0, c->comm, DMX_COLL_BINOMIAL));
    DMXI_TRY(dmx_coll_scatter(all, c->rbuf, c->count, c->type, 0, c->comm, DMX_COLL_AUTO));
cleanup:
    free(all);
    return st;
}

static dmx_status run_full(const call *c)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    dmxi_ccomm *cc = NULL;
    dmxi_ctune *trial = NULL;
    int p = 0;
    int64_t bytes = 0;
    tinfo ti = {0, 0, 0, 0};
    dmxi_coll_check_mode mode = dmxi_coll_check(); /* reads the settings once */
    fail = mode == DMXI_COLL_CHECK_LOCAL ? dmxi_fatal : dmxi_error;
    fast_allowed = mode != DMXI_COLL_CHECK_AGREE;
    /* A rank without the communicator cannot take part in the agreement either: in agree mode
     * as in local mode the handler is called (the default one ends the job with the message
     * within the time MPI_Abort takes), so the other ranks never wait for it. */
    if (c->comm == MPI_COMM_NULL) {
        st = (mode == DMXI_COLL_CHECK_OFF ? dmxi_error : dmxi_fatal)(
            DMX_ERR_ARG, __FILE__, __LINE__, "communicator is MPI_COMM_NULL (in %s)",
            dmx_coll_kind_name(c->kind));
        goto cleanup;
    }
    DMXI_TRY(dmxi_ccomm_fast(c->comm, &cc));
    p = cc->size;
    local = local_checks(c, cc->rank, p, &ti, &bytes);
    if (mode == DMXI_COLL_CHECK_AGREE)
        DMXI_TRY(agree(cc->dup, local, c));
    else
        DMXI_TRY(local); /* local mode: the handler has seen it already */

    /* bytes is the model's m: one block for blocked collectives, the vector otherwise. AUTO's
     * settled choice for the last size of this collective on this communicator is remembered;
     * while its size class is being tuned (coll_tune.c) the call is a timed trial. */
    dmx_coll_alg alg = c->alg;
    const int blocks = c->kind == DMX_COLL_SCATTER || c->kind == DMX_COLL_GATHER ||
                       c->kind == DMX_COLL_ALLGATHER || c->kind == DMX_COLL_ALLTOALL;
    if (alg == DMX_COLL_AUTO && ti.noncomm) {
        /* a non-commutative op: a dmx algorithm that keeps rank order at any p. Not the
         * library's call: MPICH 4.0.2's MPI_Reduce_scatter_block combined a non-commutative
         * op on a resized vector type wrongly, and differently from one call to the next */
        if (c->kind == DMX_COLL_REDUCE_SCATTER)
            return redscat_in_order(c);
        alg = c->kind == DMX_COLL_SCAN || c->kind == DMX_COLL_EXSCAN ? DMX_COLL_HYPERCUBE
                                                                     : DMX_COLL_BINOMIAL;
    } else if (alg == DMX_COLL_AUTO && !dmxi_coll_forced(c->kind) &&
               ((is_reduction(c->kind) && dmxi_c_own_arith(c->type, c->op)) ||
                (blocks && c->count > dmxi_coll_mpi_count_max))) {
        /* AUTO stays off the library's call where that call is wrong (unsigned max and min,
         * 8/16-bit sums and products) or
         * would need blocks of more than 2^31 elements: MPICH 4.0.2 misplaces data at
         * displacements beyond 4 GiB (a 2^31 + 5 byte allgather on 2 ranks lost a byte) */
        alg = best_own(c->kind, p, bytes, cc->nodes); /* not the MPI library's (coll_internal.h) */
    } else if (alg == DMX_COLL_AUTO) {
        int known = memo_get(cc, c->kind, bytes);
        if (known >= 0) {
            alg = (dmx_coll_alg)known;
        } else {
            DMXI_TRY(dmxi_coll_tune_pick(cc, c->kind, bytes, &alg, &trial));
            if (trial == NULL)
                cc->memo[c->kind] = (dmxi_cmemo){bytes, dmxi_coll_model_epoch, (int)alg};
        }
    }
    double t0 = trial != NULL ? MPI_Wtime() : 0;
    if ((int)alg == dmxi_coll_test_slow_alg && cc->rank == 0)
        dmxi_coll_test_slow_wait();
    if (alg == DMX_COLL_MPI)
        DMXI_TRY(dmxi_coll_run_mpi(c, cc));
    else if (!ti.simple && c->count > 0)
        DMXI_TRY(run_staged(c, cc, alg, ti.noncomm));
    else
        DMXI_TRY(run_alg(c, cc, alg, ti.esize, bytes, ti.noncomm));
    if (trial != NULL)
        DMXI_TRY(dmxi_coll_tune_record(cc, trial, MPI_Wtime() - t0));
cleanup:
    return st;
}

dmx_status dmx_coll_bcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                          dmx_coll_alg alg)
{
    call c = {DMX_COLL_BCAST, NULL, buf, count, type, MPI_OP_NULL, root, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                            int root, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_SCATTER, sendbuf, recvbuf, count, type, MPI_OP_NULL, root, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_gather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                           int root, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_GATHER, sendbuf, recvbuf, count, type, MPI_OP_NULL, root, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                              MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_ALLGATHER, sendbuf, recvbuf, count, type, MPI_OP_NULL, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_reduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                           MPI_Op op, int root, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_REDUCE, sendbuf, recvbuf, count, type, op, root, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_allreduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_reduce_scatter(const void *sendbuf, void *recvbuf, int64_t count,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_REDUCE_SCATTER, sendbuf, recvbuf, count, type, op, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_alltoall(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                             MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_ALLTOALL, sendbuf, recvbuf, count, type, MPI_OP_NULL, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_scan(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_SCAN, sendbuf, recvbuf, count, type, op, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_exscan(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_EXSCAN, sendbuf, recvbuf, count, type, op, 0, 0, comm, alg};
    return run(&c);
}

dmx_status dmx_coll_shift(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                          int64_t k, MPI_Comm comm, dmx_coll_alg alg)
{
    call c = {DMX_COLL_SHIFT, sendbuf, recvbuf, count, type, MPI_OP_NULL, 0, k, comm, alg};
    return run(&c);
}
