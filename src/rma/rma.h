/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal view of the one-sided module: the heap, the paths a strided transfer can take, and
 * the datatype helpers they share. Not installed. */
#ifndef DMXI_RMA_H
#define DMXI_RMA_H

#include "dmx/rma.h"
#include "dmxi.h"

/* Implementation paths of one strided transfer (rma_select.c picks one per call). */
typedef enum dmxi_rma_path {
    DMXI_RMA_AUTO = 0,   /* let rma_select.c decide */
    DMXI_RMA_SHM = 1,    /* direct strided copy through the node's shared segment (rma_shm.c) */
    DMXI_RMA_VECTOR = 2, /* one MPI_Put/Get with cached vector datatypes (rma_vector.c) */
    DMXI_RMA_BLOCKS = 3, /* one contiguous MPI_Put/Get per block (rma_blocks.c) */
    DMXI_RMA_PACK = 4,   /* pack locally, one put with a contiguous origin (rma_pack.c) */
    DMXI_RMA_SPAN = 5    /* get: fetch the whole span contiguously, unpack here (rma_span.c) */
} dmxi_rma_path;

typedef enum dmxi_rma_kind { DMXI_RMA_PUT = 0, DMXI_RMA_GET = 1, DMXI_RMA_ACC = 2 } dmxi_rma_kind;

/* The module's settings from the environment (read in rma_select.c only). */
typedef struct dmxi_rma_settings {
    int shm;             /* DMX_SHM != 0 */
    dmxi_rma_path force; /* DMX_RMA, or DMXI_RMA_AUTO */
    int stream;          /* DMX_STREAM: -1 direct puts stream by size, 0 never, 1 always */
    int pieces;          /* DMX_RMA_PIECES: -1 as probed, 0 whole, 1 pieces */
} dmxi_rma_settings;
dmx_status dmxi_rma_read_settings(dmxi_rma_settings *s);

/* What the probe at heap creation measured on the message window (rma_probe.c), per kind
 * (0 put, 1 get): the faster of vector and blocks for small and for large blocks, the cost per
 * block of the small-block winner (vector, blocks or pack) and the cost per byte of a contiguous
 * get. probed = 0: the built-in rules of rma_select.c apply. Identical on every rank of the heap.
 */
typedef struct dmxi_rma_tune {
    int probed;
    dmxi_rma_path small[2], large[2];
    double small_block[2]; /* seconds per block (1-element blocks) */
    double span_byte;      /* seconds per byte of a contiguous get */
    int whole;             /* 1: vector operations are not cut into DMXI_RMA_PIECE_BLOCKS pieces */
} dmxi_rma_tune;

/* ---- Thresholds of the path choice, all here (rma_select.c states the rules, docs/rma.md
 * the measurements behind them). ---------------------------------------------------------- */
/* Without a probe: blocks at least this large go one MPI operation per block. */
#define DMXI_RMA_BLOCKS_MIN_BYTES ((int64_t)16384)
/* Blocks up to this size follow the probe's small-block result, larger ones its large-block one
 * (the probe times 8-byte and 8 KiB blocks; this is about their geometric mean). */
#define DMXI_RMA_SMALL_BLOCK_BYTES ((int64_t)256)
/* A get may fetch its whole span when the span is at most this many times the data, and when the
 * probe's estimate for the span times SPAN_MARGIN is still below the strided winner's: the probe
 * runs in cache, while a large span moves twice the data plus an unpack through memory. Under
 * osc rdma and sm (strided get 2.2 ns per 1-element block in the probe, span 0.6 ns) the span
 * measured 3-8x slower than the vector at 8 MiB; under osc ucx (23 ns against 0.6) 6x faster. */
#define DMXI_RMA_SPAN_DENSITY 4
#define DMXI_RMA_SPAN_MARGIN 8.0
/* The probe replaces the vector by another method only if that took less than this fraction of
 * the vector's time (ties keep one MPI call). */
#define DMXI_RMA_PROBE_WIN 0.8
/* Direct puts of at least this many bytes in blocks of at least a cache line stream past the
 * caches (rma_shm.c; DMX_STREAM=0/1 forces). */
#define DMXI_RMA_STREAM_MIN_BYTES ((int64_t)1 << 20)
/* The vector and pack paths issue at most this many blocks per MPI operation: osc ucx (Open MPI
 * 4.1) expands a datatype into a list of every contiguous piece on both sides before it moves
 * anything, and a vector put or get of 10^6 1-element blocks took twice as long as the same
 * blocks in pieces of 4096 or 32768 (noisy, 3 runs); 32 operations per 8 MiB cost the other
 * components nothing measurable. */
#define DMXI_RMA_PIECE_BLOCKS ((int64_t)32768)
/* ... but only where MPI's datatype engine is that slow: a probed heap whose vector get of
 * 1-element blocks took less than PIECE_RATIO times the contiguous get of the same span issues
 * one operation per transfer, as a user's own vector call would (osc rdma and sm: ratio 3.7,
 * and 32 pieces per 8 MiB of 1-element blocks cost them 12% (min of 41, noisy); osc ucx: 38). */
#define DMXI_RMA_PIECE_RATIO 10.0

/* Blocks per vector or pack operation on heap h (rma.h thresholds above). */
#define DMXI_RMA_PIECE(h)                                                                          \
    ((h)->set.pieces == 0 || ((h)->set.pieces < 0 && (h)->tune.whole) ? (int64_t)INT_MAX           \
                                                                      : DMXI_RMA_PIECE_BLOCKS)

/* Cache of committed vector datatypes, keyed by (base type, count, blocklen, stride). */
enum { DMXI_RMA_TYPE_CACHE = 16 };
typedef struct dmxi_rma_type_entry {
    MPI_Datatype base, type;
    int count, blocklen;
    MPI_Aint stride; /* bytes */
    uint64_t used;   /* last use (for eviction) */
} dmxi_rma_type_entry;

/* Targets with operations issued since the last completion. Completion flushes each of them
 * with MPI_Win_flush(_local): Open MPI 4.1's osc ucx MPI_Win_flush_all does not wait for
 * gets, so the per-target form is what works everywhere. P flags + P ints per set. */
typedef struct dmxi_rma_touched {
    unsigned char *flag;
    int *list;
    int n;
} dmxi_rma_touched;
dmx_status dmxi_rma_touched_init(dmxi_rma_touched *t, int size);
void dmxi_rma_touched_free(dmxi_rma_touched *t);
static inline void dmxi_rma_touch(dmxi_rma_touched *t, int pe)
{
    if (!t->flag[pe]) {
        t->flag[pe] = 1;
        t->list[t->n++] = pe;
    }
}
/* Flush every touched target (local completion only if local_only) and clear the set. */
dmx_status dmxi_rma_flush_touched(dmxi_rma_touched *t, MPI_Win win, int local_only);

struct dmx_rma_heap {
    MPI_Comm comm; /* duplicate of the user's */
    int rank, size;
    MPI_Win win; /* over comm, displacement unit 1 byte */
    char *base;
    int64_t bytes;
    int64_t *sizes; /* heap bytes of every rank */
    int kind;       /* 0 attached user memory, 1 MPI_Alloc_mem, 2 shared window, 3 MPI_Win_allocate,
                      4 POSIX shared memory */
    /* the node's shared segment (kind 2) */
    MPI_Comm node;
    MPI_Win shwin;
    char **peer; /* size entries: rank r's base as mapped here, NULL if not reachable */
    char *seg;   /* the node segment from POSIX shared memory (kind 4), and its length */
    int64_t seglen;
    dmxi_rma_settings set;
    dmxi_rma_tune tune;       /* message-path probe (rma_probe.c) */
    uint64_t id;              /* the same on every rank; 0: not registered (rma_registry.c) */
    int direct_pending;       /* direct stores since the last quiet */
    dmxi_rma_touched pending; /* targets of MPI operations since the last quiet */
    dmxi_rma_type_entry cache[DMXI_RMA_TYPE_CACHE];
    uint64_t clock;
    dmxi_rma_path last_path; /* the path of the last strided transfer (for tests) */
};

/* One strided transfer after validation: remote displacement (bytes from the target's base),
 * local pointer, strides in elements, element type. */
typedef struct dmxi_rma_xfer {
    dmxi_rma_kind kind;
    int nbi;
    size_t esize;
    MPI_Datatype mtype; /* predefined MPI type of one element */
    char *local;        /* origin buffer: src of a put/acc, dst of a get */
    MPI_Aint rdisp;     /* remote byte displacement */
    int64_t lstride, rstride, blockelems, blockcount;
    int pe;
} dmxi_rma_xfer;

/* The path for one transfer (thresholds live here). */
dmxi_rma_path dmxi_rma_select(const dmx_rma_heap *h, const dmxi_rma_xfer *x);

dmx_status dmxi_rma_shm(dmx_rma_heap *h, const dmxi_rma_xfer *x);
dmx_status dmxi_rma_vector(dmx_rma_heap *h, const dmxi_rma_xfer *x);
dmx_status dmxi_rma_blocks(dmx_rma_heap *h, const dmxi_rma_xfer *x);
dmx_status dmxi_rma_pack(dmx_rma_heap *h, const dmxi_rma_xfer *x);
dmx_status dmxi_rma_span(dmx_rma_heap *h, const dmxi_rma_xfer *x);

/* Time the message-path methods on the heap's window and fill h->tune (rma_probe.c).
 * Collective on h->comm; writes (and zeroes again) the heap only if writable (allocated). */
dmx_status dmxi_rma_probe(dmx_rma_heap *h, int writable);

/* Strided copy of blockcount blocks of blockelems elements of esize bytes (local memory). */
void dmxi_rma_copy(char *dst, const char *src, int64_t dst_stride, int64_t src_stride,
                   int64_t blockelems, int64_t blockcount, size_t esize);

/* A committed (h)vector type of count blocks of blocklen elements of base at stride bytes, from
 * the heap's cache (do not free it). */
dmx_status dmxi_rma_vector_type(dmx_rma_heap *h, MPI_Datatype base, int count, int blocklen,
                                MPI_Aint stride, MPI_Datatype *out);

/* Issue one MPI operation of kind on the heap's window (contiguous or typed). */
dmx_status dmxi_rma_issue(dmx_rma_heap *h, dmxi_rma_kind kind, void *local, int lcount,
                          MPI_Datatype ltype, int pe, MPI_Aint rdisp, int rcount,
                          MPI_Datatype rtype);

/* After issuing a transfer: blocking forms wait for local (put/acc) or remote (get) completion
 * at the target. */
dmx_status dmxi_rma_complete(dmx_rma_heap *h, const dmxi_rma_xfer *x);

/* Serialise window creation on each node (rma_winlock.c): take the node lock before creating
 * windows on comm, release it after. Collective on comm; node is comm split by shared memory. */
dmx_status dmxi_rma_node_lock(MPI_Comm comm, MPI_Comm node, int *fd);
void dmxi_rma_node_unlock(int *fd);

/* The status for a failed MPI_Win_create / MPI_Win_create_dynamic (rc, call): an MPI_ERR_WIN
 * class error means this MPI has no one-sided component for windows over memory it did not
 * allocate (Open MPI 4.1 with only the tcp btl: osc rdma needs an RDMA-capable btl, osc sm a
 * window of MPI's own), DMX_ERR_UNSUPPORTED saying so; anything else is DMX_ERR_MPI. Local. */
dmx_status dmxi_rma_win_error(int rc, const char *call, const char *file, int line);

/* The node segment from POSIX shared memory when MPI has no shared windows (rma_posixshm.c):
 * *ok = 1 and kind 4 on success on every rank, else *ok = 0 everywhere. Collective on comm. */
dmx_status dmxi_rma_posix_segment(dmx_rma_heap *h, int64_t bytes, int *ok);
void dmxi_rma_posix_unmap(dmx_rma_heap *h);
/* Zero this rank's heap and fill this process's page tables for the node peers' heaps (kinds 2
 * and 4; rma_posixshm.c says why and when it is skipped). Collective on h->node. */
dmx_status dmxi_rma_prefault(dmx_rma_heap *h, int64_t bytes);

/* Registry of heaps whose node peers are mapped here (rma_registry.c). register: draw the
 * heap's id (collective on h->comm) and list it; unregister: remove it (local). */
dmx_status dmxi_rma_register(dmx_rma_heap *h);
void dmxi_rma_unregister(dmx_rma_heap *h);
/* The registered heap of this process holding [p, p+len): 1 and its id, this rank's rank in
 * it and the offset of p; 0 if none. Local. */
int dmxi_rma_heap_find(const void *p, int64_t len, uint64_t *id, int *rank, int64_t *off);
/* Where [off, off+len) of rank's part of heap id is mapped in this process, or NULL (not a heap
 * of this process, rank not a node peer, or out of range). Local. */
char *dmxi_rma_heap_peer(uint64_t id, int rank, int64_t off, int64_t len);

/* Predefined MPI type of one element of dtype (MPI_BYTE for DMX_RMA_BYTE). */
MPI_Datatype dmxi_rma_mpi_type(dmx_dtype t);

#endif
