/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives, internal: the arguments every algorithm receives, the cached communicator, the
 * shared helpers of coll_common.c and coll_types.c and the algorithm entry points. Not installed.
 */
#ifndef DMXI_COLL_INTERNAL_H
#define DMXI_COLL_INTERNAL_H

#include "dmx/coll.h"
#include "dmxi.h"

#include <stddef.h>
#include <stdint.h>

/* Tags on the private duplicate. Collectives are blocking and every rank runs them in the same
 * order, and no receive uses MPI_ANY_SOURCE: messages between one pair match in order, so one
 * tag per phase suffices (distinct phases get distinct tags only to make traces readable). */
enum { DMXI_COLL_TAG = 7100, DMXI_COLL_TAG2 = 7101, DMXI_COLL_TAG3 = 7102 };

/* AUTO's last choice for one collective on one communicator: small collectives repeat their
 * size, and this makes the repeat a compare instead of a model evaluation. */
typedef struct dmxi_cmemo {
    int64_t bytes;
    unsigned epoch; /* dmxi_coll_model_epoch when made; 0: empty */
    int alg;
} dmxi_cmemo;

/* AUTO's tuning entries of one communicator (coll_tune.c). */
typedef struct dmxi_ctune dmxi_ctune;

/* The cache attached to a user communicator. */
typedef struct dmxi_ccomm {
    MPI_Comm dup;        /* private duplicate, MPI_ERRORS_RETURN */
    MPI_Comm grow, gcol; /* internal near-square grid (made by the first GRID algorithm) */
    int gr, gc;          /* its dimensions: gr * gc = p, gr the largest divisor <= sqrt p */
    int nodes;           /* shared-memory nodes spanned (for the model), 0 until known */
    int rank, size;      /* in dup */
    dmxi_cmemo memo[DMX_COLL_NKINDS];
    dmxi_ctune *tune; /* AUTO's tuning table (one block), made by the first AUTO call that
                       * tunes, freed with the cache */
} dmxi_ccomm;

/* What an algorithm gets. Buffers are already normalized by the front end (coll_api*.c):
 *  bcast      buf = rbuf (count elements, input at root)
 *  scatter    sbuf at root (p blocks), rbuf block (root's own block already delivered)
 *  gather     sbuf own block (non-root), rbuf at root (root's own block already in place)
 *  allgather  rbuf p blocks, own block already in place
 *  reduce, allreduce, scan, exscan: rbuf = acc, writable, holds own input; result there
 *  reduce_scatter: work = writable p*count input; result to rbuf (count elements)
 *  alltoall   sbuf (never aliasing rbuf), rbuf
 *  shift      sbuf (never aliasing rbuf), rbuf, k normalized to 0 <= k < p
 * "count" is per block where the collective has blocks, bytes = count * esize. */
typedef struct dmxi_cargs {
    dmxi_ccomm *cc;
    MPI_Comm comm; /* cc->dup */
    int rank, size;
    const void *sbuf;
    void *rbuf;
    void *work;
    int64_t count;
    MPI_Datatype type;
    int64_t esize;
    MPI_Op op;
    int root;
    int64_t k;
    int64_t nseg; /* pipeline segments (0: let the model choose) */
    int noncomm;  /* op is not commutative: combine in rank order (dmxi_coll_keeps_order) */
} dmxi_cargs;

typedef dmx_status (*dmxi_coll_fn)(const dmxi_cargs *a);

/* ---- coll_common.c ---------------------------------------------------------------------- */
/* The cache of comm, made on first use (collective then; local afterwards). The last
 * communicator looked up is remembered (dmxi_ccomm_last*, cleared when its cache is deleted),
 * so a repeat costs one compare instead of MPI_Comm_get_attr: use dmxi_ccomm_fast. */
dmx_status dmxi_ccomm_get(MPI_Comm comm, dmxi_ccomm **out);
extern MPI_Comm dmxi_ccomm_last_comm;
extern dmxi_ccomm *dmxi_ccomm_last;
static inline dmx_status dmxi_ccomm_fast(MPI_Comm comm, dmxi_ccomm **out)
{
    if (comm == dmxi_ccomm_last_comm && dmxi_ccomm_last != NULL) {
        *out = dmxi_ccomm_last;
        return DMX_SUCCESS;
    }
    return dmxi_ccomm_get(comm, out);
}
/* Make the internal grid communicators of cc (collective on cc->dup). */
dmx_status dmxi_ccomm_grid(dmxi_ccomm *cc);

/* Offset of block i of n elements split in p nearly equal blocks (first n % p get one more). */
int64_t dmxi_blk_off(int64_t n, int p, int i);
static inline int64_t dmxi_blk_len(int64_t n, int p, int i)
{
    return dmxi_blk_off(n, p, i + 1) - dmxi_blk_off(n, p, i);
}
static inline int dmxi_mod(int64_t a, int p)
{
    int64_t r = a % p;
    return (int)(r < 0 ? r + p : r);
}
/* Largest power of two <= p (p >= 1). */
int dmxi_pow2_floor(int p);
/* Binomial tree on relative ranks 0..p-1 rooted at 0: the lowest set bit of v (v > 0), the
 * distance to v's parent v - low; for v = 0 the least power of two >= p. v's subtree is
 * v .. min(v + low, p) - 1 and its children are v + mask for mask = low/2, low/4, ..., 1. */
int dmxi_binomial_low(int v, int p);
/* dst block j = src block (j + shift) % p, for p blocks of m bytes (0 <= shift <= p; dst and
 * src do not overlap). Rotates root-relative block order into rank order and back. */
void dmxi_rotate_blocks(void *dst, const void *src, int p, int shift, int64_t m);

/* Point to point in bytes of any length: pieces of at most DMXI_COLL_CHUNK bytes. dest or src
 * may be MPI_PROC_NULL (that side is skipped). */
#define DMXI_COLL_CHUNK ((int64_t)1 << 30)
extern int64_t dmxi_coll_chunk; /* DMXI_COLL_CHUNK; tests lower it to exercise the pieces */
dmx_status dmxi_c_send(const void *buf, int64_t bytes, int dest, int tag, MPI_Comm comm);
dmx_status dmxi_c_recv(void *buf, int64_t bytes, int src, int tag, MPI_Comm comm);
dmx_status dmxi_c_sendrecv(const void *sbuf, int64_t sbytes, int dest, void *rbuf, int64_t rbytes,
                           int src, int tag, MPI_Comm comm);

/* ---- coll_types.c: which (datatype, op) a reduction takes, the local reduction ------------ */
/* op is one of MPI's predefined ops (MPI_REPLACE and MPI_NO_OP included). */
int dmxi_c_op_predefined(MPI_Op op);
/* "MPI_SUM", ..., or "a user-defined op". */
const char *dmxi_c_op_name(MPI_Op op);
/* The predefined op is defined on the predefined datatype (the MPI standard's table). */
int dmxi_c_op_valid(MPI_Datatype type, MPI_Op op);
/* dmx does (type, op)'s arithmetic itself, not MPI_Reduce_local: unsigned MAX/MIN
 * (dmxi_c_unsigned_minmax) and MPI_SUM/MPI_PROD on 8- and 16-bit integers, which Open MPI 4.1.4
 * saturates instead of wrapping. AUTO keeps such reductions off the library's call. */
int dmxi_c_own_arith(MPI_Datatype type, MPI_Op op);
/* Algorithm alg of reduction kind combines the p ranks' inputs in rank order, as a
 * non-commutative op needs (the MPI library's call does). */
int dmxi_coll_keeps_order(dmx_coll_kind kind, dmx_coll_alg alg, int p);
/* inout = in op inout on n elements (pieces of at most INT_MAX elements). MPI_MAX and MPI_MIN
 * on unsigned integer types are computed here, not by MPI_Reduce_local (see the next). */
dmx_status dmxi_c_reduce_local(const void *in, void *inout, int64_t n, MPI_Datatype type,
                               MPI_Op op);
/* Whether (type, op) is MPI_MAX or MPI_MIN on an unsigned integer type: MPI libraries compare
 * those as signed in places (MPICH 4.0.2 every unsigned type, pmodels/mpich#6083; Open MPI
 * 4.1.4 MPI_UNSIGNED_LONG, open-mpi/ompi#10525; both are Debian 12's), in MPI_Reduce_local as in
 * their collectives. dmx does that arithmetic itself, and AUTO keeps such reductions off the MPI
 * library's call. Local. */
int dmxi_c_unsigned_minmax(MPI_Datatype type, MPI_Op op);

/* ---- coll_select.c: settings, AUTO ------------------------------------------------------ */
/* The algorithm to run: alg itself, or for AUTO the DMX_COLL_<NAME> override or the model's
 * choice. Deterministic given (kind, p, bytes, nodes), so every rank picks the same. */
dmx_coll_alg dmxi_coll_choose(dmx_coll_kind kind, dmx_coll_alg alg, int p, int64_t bytes,
                              int nodes);
/* The model's pipeline segment count (DMX_COLL_SEGMENTS overrides). */
int64_t dmxi_coll_segments(int p, int64_t bytes, int nodes);
/* DMX_COLL_CHECK: what a collective does about its arguments (coll_api.c). */
typedef enum dmxi_coll_check_mode {
    DMXI_COLL_CHECK_OFF = 0,   /* off, 0: local checks, the status returned on that rank */
    DMXI_COLL_CHECK_LOCAL = 1, /* local (default): local checks, a failure calls the handler */
    DMXI_COLL_CHECK_AGREE = 2  /* agree, 1: local checks, then one allreduce agrees on them */
} dmxi_coll_check_mode;
dmxi_coll_check_mode dmxi_coll_check(void);
/* Bumped by coll_model.c whenever the parameters change (invalidates AUTO's cached choices). */
extern unsigned dmxi_coll_model_epoch;
/* Load the model file DMX_MODEL names, once (coll_model.c; a message on stderr if it fails). */
void dmxi_coll_model_env(void);
/* Read the settings and load DMX_MODEL once (on first use); dmxi_coll_ready says it is done. */
extern int dmxi_coll_ready;
void dmxi_coll_settings_read(void);
static inline void dmxi_coll_model_init(void)
{
    if (!dmxi_coll_ready)
        dmxi_coll_settings_read();
}
/* Is AUTO's choice for kind forced by DMX_COLL_<NAME>? */
int dmxi_coll_forced(dmx_coll_kind kind);

/* ---- coll_mpi.c: the MPI library's own call ------------------------------------------- */
/* The largest count one MPI call takes (INT_MAX), and the chunk in bytes (1 GiB) in which a call
 * of more goes (run_mpi_large). Variables so that a test can lower both and cover the chunked
 * calls with small buffers. */
extern int64_t dmxi_coll_mpi_count_max, dmxi_coll_mpi_chunk_bytes;

/* One collective call as the front end holds it (coll_api.c). */
typedef struct dmxi_ccall {
    dmx_coll_kind kind;
    const void *sbuf;
    void *rbuf;
    int64_t count;
    MPI_Datatype type;
    MPI_Op op;
    int root;
    int64_t k; /* shift */
    MPI_Comm comm;
    dmx_coll_alg alg;
} dmxi_ccall;

/* ---- coll_stage.c: datatypes whose elements are not contiguous bytes ------------------- */
/* A datatype with gaps (the padded pairs such as MPI_DOUBLE_INT: 12 bytes of data every 16;
 * vectors and other derived types) goes through the dmx algorithms in temporaries: packed bytes
 * (MPI_BYTE) for the collectives that only move data, elements an extent apart (the datatype
 * itself, for MPI_Reduce_local) for reductions. dmxi_coll_stage makes them and the call on
 * them (inner, *esize its element size); dmxi_coll_unstage writes the result into the caller's
 * receive buffer (only the datatype's bytes, never its gaps) and frees them. */
typedef struct dmxi_cstage {
    void *tin, *tout, *pack; /* temporaries: input, output, packed copy */
    void *user_out;          /* the caller's receive buffer */
    int64_t nback;           /* elements of it the collective writes on this rank */
    int self;                /* temporaries hold elements of the datatype (else packed bytes) */
    MPI_Datatype type;
    int64_t size, ext;
} dmxi_cstage;
dmx_status dmxi_coll_stage(const dmxi_ccall *c, const dmxi_ccomm *cc, int self, dmxi_cstage *s,
                           dmxi_ccall *inner, int64_t *esize);
/* Writes back when write is nonzero; always frees. */
dmx_status dmxi_coll_unstage(dmxi_cstage *s, const dmxi_ccomm *cc, int write);

/* The MPI library's own call for c on cc's duplicate, counts above dmxi_coll_mpi_count_max in
 * chunks (coll_mpi.c). */
dmx_status dmxi_coll_run_mpi(const dmxi_ccall *c, const dmxi_ccomm *cc);

/* ---- coll_tune.c: AUTO's tuning by measurement ------------------------------------------ */
enum { DMXI_COLL_TUNE_MAXR = 5 };
/* DMX_COLL_TUNE: rounds over the candidates (0: off), read with the other settings. */
extern int dmxi_coll_tune_rounds;
/* Test hook: rank 0 sleeps this long in every call of this algorithm (-1: none). */
extern int dmxi_coll_test_slow_alg;
extern double dmxi_coll_test_slow_s;
void dmxi_coll_test_slow_wait(void);
/* The algorithm an AUTO call of the model's byte count bytes runs on cc. *trial is set when the
 * call is a tuning trial: time it and pass the time to dmxi_coll_tune_record; otherwise the
 * choice is settled and may be remembered. */
dmx_status dmxi_coll_tune_pick(dmxi_ccomm *cc, dmx_coll_kind kind, int64_t bytes, dmx_coll_alg *alg,
                               dmxi_ctune **trial);
/* Record a trial's time on this rank; the class's last trial makes the one allreduce (on
 * cc->dup) that settles it. Collective in that case. */
dmx_status dmxi_coll_tune_record(dmxi_ccomm *cc, dmxi_ctune *s, double seconds);

/* Bit a of dmxi_coll_valid_mask[k]: algorithm a (AUTO and MPI included) implements k
 * (coll_names.c). */
extern const unsigned dmxi_coll_valid_mask[DMX_COLL_NKINDS];

/* ---- algorithms: dmxi_<coll>_<alg> in <coll>_<alg>.c ------------------------------------ */
dmx_status dmxi_bcast_flat(const dmxi_cargs *a);
dmx_status dmxi_bcast_ring(const dmxi_cargs *a);
dmx_status dmxi_bcast_pipeline(const dmxi_cargs *a);
dmx_status dmxi_bcast_binomial(const dmxi_cargs *a);
dmx_status dmxi_bcast_scatter_ag(const dmxi_cargs *a);
dmx_status dmxi_bcast_grid(const dmxi_cargs *a);

dmx_status dmxi_scatter_flat(const dmxi_cargs *a);
dmx_status dmxi_scatter_pipeline(const dmxi_cargs *a);
dmx_status dmxi_scatter_binomial(const dmxi_cargs *a);
dmx_status dmxi_gather_flat(const dmxi_cargs *a);
dmx_status dmxi_gather_pipeline(const dmxi_cargs *a);
dmx_status dmxi_gather_binomial(const dmxi_cargs *a);

dmx_status dmxi_allgather_ring(const dmxi_cargs *a);
dmx_status dmxi_allgather_recdbl(const dmxi_cargs *a);
dmx_status dmxi_allgather_bruck(const dmxi_cargs *a);
dmx_status dmxi_allgather_grid(const dmxi_cargs *a);

dmx_status dmxi_reduce_binomial(const dmxi_cargs *a);
dmx_status dmxi_reduce_rs_gather(const dmxi_cargs *a);
dmx_status dmxi_allreduce_recdbl(const dmxi_cargs *a);
dmx_status dmxi_allreduce_ring(const dmxi_cargs *a);
dmx_status dmxi_allreduce_binomial(const dmxi_cargs *a);

dmx_status dmxi_redscat_ring(const dmxi_cargs *a);
dmx_status dmxi_redscat_halving(const dmxi_cargs *a);

dmx_status dmxi_alltoall_pairwise(const dmxi_cargs *a);
dmx_status dmxi_alltoall_hypercube(const dmxi_cargs *a);
dmx_status dmxi_alltoall_bruck(const dmxi_cargs *a);
dmx_status dmxi_alltoall_grid(const dmxi_cargs *a);

dmx_status dmxi_scan_hypercube(const dmxi_cargs *a, int exclusive);
dmx_status dmxi_scan_ring(const dmxi_cargs *a, int exclusive);

dmx_status dmxi_shift_ring(const dmxi_cargs *a);
dmx_status dmxi_shift_grid(const dmxi_cargs *a);

/* Ring reduce-scatter over nearly equal blocks of n elements (dmxi_blk_off) of the writable
 * vector work: afterwards block (rank + 1) mod p... see redscat_ring.c. Used by the ring
 * allreduce and reduce. Block b ends up complete on rank b. in, if not NULL, is the input work
 * was copied from, and the first step sends from it (see dmxi_own_src). */
dmx_status dmxi_ring_reduce_scatter_v(const dmxi_cargs *a, void *work, int64_t n, const void *in);
/* Ring allgather of nearly equal blocks of n elements of buf, block b starting on rank b. own,
 * if not NULL, holds the same bytes as this rank's block and is sent in its place (see
 * dmxi_own_src). */
dmx_status dmxi_ring_allgather_v(const dmxi_cargs *a, void *buf, int64_t n, const void *own);

/* Where a send of this rank's own input goes from while the input is still untouched: the
 * caller's send buffer when there is one, else copy, the copy the front end made (in the result,
 * the accumulator or the work vector). The two hold the same bytes, but the copy was written just
 * before the send, and a peer on the same node that reads lines this core has just written is
 * slow: at np 2, one 256 KiB exchange sent from the fresh copy took 47-52 us in back-to-back
 * calls against 27-29 us from the send buffer, and the ring allgather of 2 x 2 MiB went from
 * ~1160 us to ~225 us when it sent from the send buffer (docs/coll.md). */
static inline const void *dmxi_own_src(const dmxi_cargs *a, const void *copy)
{
    return a->sbuf != NULL && a->sbuf != MPI_IN_PLACE ? a->sbuf : copy;
}

#endif /* DMXI_COLL_INTERNAL_H */
