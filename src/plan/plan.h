/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal plan: what this rank sends and receives, computed once from the layouts (the grid
 * overlay of A and op(B), restricted to this rank's blocks, or the directory for layouts known
 * only locally) and grouped into packages. The planner fills the engine's contract
 * (exec/exec.h) and runs the plan through the engine's ops table; it never moves data itself.
 *
 * Files: validate.c (arguments and agreement), overlay.c (grid overlay), directory.c (partner
 * discovery for local-only layouts), packages.c (cut, order and lay out packages), plan.c (the
 * public calls), plan_object.c (a plan's info and destruction), plan_comm.c (its duplicates),
 * plan_small.c (plans that exchange few bytes, made with one agreement; one-shot plans),
 * plan_cache.c (the plans kept between calls). */
#ifndef DMXI_PLAN_H
#define DMXI_PLAN_H

#include "exec.h"

typedef struct dmxi_comm_pool dmxi_comm_pool;

/* Integers identifying a one-shot call's transform and the settings its plan depends on. */
#define DMXI_ONCE_KEY 17

struct dmx_plan {
    MPI_Comm comm;        /* private duplicate, from pool's slot (or its own when slot < 0) */
    dmxi_comm_pool *pool; /* plan_comm.c */
    int slot;
    int rank, size;
    int nt;
    dmxi_xform *xf;
    dmxi_exec ex; /* the packages and the engine that runs them (owned) */
    dmx_plan_info info;
    int64_t key[DMXI_ONCE_KEY]; /* a one-shot plan's key (plan_small.c), else zeros */
    int64_t scap, rcap;         /* a one-shot plan's buffer capacities (>= ex.sbytes, rbytes) */
};

/* Growable lists the planner fills. */
typedef struct dmxi_piece_list {
    dmxi_piece *v;
    int64_t n, cap;
} dmxi_piece_list;

typedef struct dmxi_local_list {
    dmxi_local *v;
    int64_t n, cap;
} dmxi_local_list;

typedef struct dmxi_seg_list {
    dmxi_seg *v;
    int64_t n, cap;
} dmxi_seg_list;

/* Append one item (packages.c). */
dmx_status dmxi_piece_push(dmxi_piece_list *l, const dmxi_piece *pc);
dmx_status dmxi_local_push(dmxi_local_list *l, const dmxi_local *lp);

/* ---- plan_object.c --------------------------------------------------------------------- */

/* p->info from p->ex's packages, peers and buffers (element counts checked against overflow:
 * DMX_ERR_OVERFLOW). Local; callers agree on the status. */
dmx_status dmxi_plan_info_fill(dmx_plan *p);

/* ---- plan_cache.c ---------------------------------------------------------------------- */

/* The plans kept between calls on one communicator, under DMX_CACHE_BYTES (plan_cache.c has the
 * rules). Kinds: whose keys an entry has. */
enum {
    DMXI_CACHE_ONCE,
    DMXI_CACHE_DROPIN,
    DMXI_CACHE_DROPIN_ALONE,
    DMXI_CACHE_GEMM,
    DMXI_CACHE_GEMM_GRID,
    DMXI_CACHE_KINDS
};
typedef struct dmxi_cache dmxi_cache;
/* Frees a kept object (collective for an agreed entry); returns 0, or nonzero on a failure. */
typedef int (*dmxi_cache_free_fn)(void *obj);
/* Sees an entry about to be evicted (before its free function), with the caller's ctx. */
typedef void (*dmxi_cache_evict_fn)(void *ctx, void *obj);

/* comm's cache (in its record, slot DMXI_SLOT_CACHE), made when make and none exists yet; NULL
 * when none (or comm is being freed). Local. */
dmx_status dmxi_cache_get(MPI_Comm comm, int make, dmxi_cache **out);
/* The object kept with this key, moved to the front, or NULL. Local. */
void *dmxi_cache_find(dmxi_cache *c, int kind, const void *key, size_t len);
/* Whether an object is kept with this key (nothing moves). Local. */
int dmxi_cache_has(const dmxi_cache *c, int kind, const void *key, size_t len);
/* Remove the entry with this key and hand its object to the caller (local entries). Local. */
void *dmxi_cache_take(dmxi_cache *c, int kind, const void *key, size_t len);
/* The object kept with this key, moved to the front and pinned (make_room passes it by until
 * dmxi_cache_unpin), or NULL. Pins count: each pin needs its unpin. Local, no allocation. */
void *dmxi_cache_pin(dmxi_cache *c, int kind, const void *key, size_t len);
/* Undo one dmxi_cache_pin of obj (nothing when obj is not kept pinned). Local. */
void dmxi_cache_unpin(dmxi_cache *c, const void *obj);
/* The most recently used object of kind, or NULL. Local. */
void *dmxi_cache_front(const dmxi_cache *c, int kind);
/* Make room for a new entry of kind holding bytes: evict least recently used entries beyond
 * max_count of kind, then local ones while the total plus bytes exceeds DMX_CACHE_BYTES, then,
 * when agreed (every rank calls here at the same call, with the same bytes), agreed ones while
 * the agreed total plus bytes exceeds it. hook (may be NULL) sees each evicted object first.
 * Local for local entries; collective when it evicts agreed ones. */
dmx_status dmxi_cache_make_room(dmxi_cache *c, int kind, int agreed, int max_count, int64_t bytes,
                                dmxi_cache_evict_fn hook, void *ctx);
/* Keep obj at the front with a copy of its key (call dmxi_cache_make_room first). Local. */
dmx_status dmxi_cache_add(dmxi_cache *c, int kind, int agreed, const void *key, size_t len,
                          void *obj, int64_t bytes, dmxi_cache_free_fn free_fn);
/* A local entry's object now holds bytes (its buffers changed hands). Local. */
void dmxi_cache_set_bytes(dmxi_cache *c, const void *obj, int64_t bytes);
/* The objects of kind, most recently used first (up to max); returns how many there are. */
int dmxi_cache_list(const dmxi_cache *c, int kind, void **objs, int max);
/* For each entry of kind, most recently used first (up to max): whether its key is this one;
 * returns how many entries of kind there are. Local. */
int dmxi_cache_match(const dmxi_cache *c, int kind, const void *key, size_t len, int *match,
                     int max);
/* The i-th object of kind in the order of dmxi_cache_match, moved to the front. Local. */
void *dmxi_cache_take_nth(dmxi_cache *c, int kind, int i);
/* What a cache holds (c may be NULL) and what every cache of this process holds. Local. */
typedef struct dmxi_cache_info {
    int64_t entries, bytes, agreed_bytes, evictions;
    int64_t live_bytes; /* every cache of this process */
} dmxi_cache_info;
void dmxi_cache_stats(const dmxi_cache *c, dmxi_cache_info *info);

/* ---- plan_comm.c ----------------------------------------------------------------------- */

/* Agree on `local` over comm (every rank returns the worst status, as dmxi_agree) and, when all
 * succeeded, hand out a private duplicate of comm (MPI_ERRORS_RETURN) for one plan: a free one
 * kept on comm (*pool, *slot) or a new one. Collective on comm. */
dmx_status dmxi_plan_comm_acquire(MPI_Comm comm, dmx_status local, MPI_Comm *dup,
                                  dmxi_comm_pool **pool, int *slot);

/* The two halves of dmxi_plan_comm_acquire, for a caller that agrees in a reduction of its
 * own (plan_small.c): choose is local (this rank's pool of comm and its choice of slot, -1 for
 * none); take, called on every rank with agreed = "every rank made the same choice", hands out
 * the kept duplicate or makes one (MPI_Comm_dup, collective on comm). */
dmx_status dmxi_plan_comm_choose(MPI_Comm comm, dmxi_comm_pool **pool, int64_t *choice);
dmx_status dmxi_plan_comm_take(MPI_Comm comm, dmxi_comm_pool *p, int64_t choice, int agreed,
                               MPI_Comm *dup, dmxi_comm_pool **pool, int *slot);

/* What a communicator's pool keeps for the one-shot calls (plan_small.c); their plans are kept
 * in the communicator's plan cache (plan_cache.c). */
#define DMXI_ONCE_KEEP_MAX 16
typedef struct dmxi_once_state {
    int busy;                   /* a one-shot plan is out, between create and finish */
    int64_t key[DMXI_ONCE_KEY]; /* the key of the last one-shot call whose checks passed */
    int checked;                /* key is set */
    int64_t made, hits;         /* plans made, kept plans taken back (for tests) */
} dmxi_once_state;

/* The one-shot calls' state on comm's pool (dmx_transform_once's plans, plan_small.c): the
 * duplicate of comm reserved for them, made on the first call (MPI_Comm_dup, collective on
 * comm: every rank makes its first one-shot call on comm at the same call), and *once, where
 * the last one-shot plans are kept for the next calls. Consecutive one-shot
 * calls share the duplicate: each one's messages match in MPI's non-overtaking order because
 * every rank makes the same calls in the same order and a call completes its sends and
 * receives before it returns. Local after the first call, and then no MPI call either when comm
 * is the communicator of the last pool looked up (the common case: one-shot calls on one
 * communicator in a row; MPI_Comm_get_attr otherwise). */
dmx_status dmxi_plan_comm_once_state(MPI_Comm comm, dmxi_comm_pool **pool, dmxi_once_state **once);

/* The one-shot state of comm's pool when its one-shot duplicate exists, else NULL; never makes
 * the duplicate (a call that does not take the one-shot path must not). Local, and no MPI call
 * when comm is the communicator of the pool looked up last. */
dmxi_once_state *dmxi_plan_comm_once_peek(MPI_Comm comm);

/* Hand the one-shot duplicate to a new plan (*slot = DMXI_SLOT_ONCE; kept plans share it) and
 * mark a one-shot call running (once->busy); DMX_ERR_STATE while one runs. Local. */
#define DMXI_SLOT_ONCE (-2)

/* Where pool keeps its one-shot plans, NULL when the pool is detached (its communicator is
 * being freed). Local. */
dmxi_once_state *dmxi_plan_comm_once_kept(dmxi_comm_pool *pool);
dmx_status dmxi_plan_comm_once_take(dmxi_comm_pool *pool, MPI_Comm *dup, int *slot);

/* Give the duplicate back: kept for the next plan when keep and the pool is still attached,
 * else freed (MPI_Comm_free). Sets *dup to MPI_COMM_NULL. Local when kept. */
dmx_status dmxi_plan_comm_release(MPI_Comm *dup, dmxi_comm_pool *pool, int slot, int keep);

/* ---- validate.c ------------------------------------------------------------------------- */

/* Validate a batch of transforms on every rank and agree on the result. Collective on the
 * first target's communicator. need_a_memory = 0 accepts targets without memory. */
dmx_status dmxi_transforms_validate(int n, const dmx_transform *t, int need_a_memory);

/* The local half of dmxi_transforms_validate: *local gets this rank's verdict, *comm0 the
 * communicator to agree on and *hash the hash every rank must share (hash NULL: not computed,
 * for a caller that does not agree); the caller agrees. Returns
 * an error (from dmxi_fatal) only when there is no communicator to agree on. Local. */
dmx_status dmxi_transforms_check(int n, const dmx_transform *t, int need_a_memory, MPI_Comm *comm0,
                                 uint64_t *hash, dmx_status *local);

/* ---- alias.c ------------------------------------------------------------------------------ */

/* DMX_ERR_ARG when some transform's B shares memory on this rank with a target A that the batch
 * writes for other elements (an in-place transpose, views that overlap, one transform's A read
 * as another's B); identical positions (A = alpha A + beta A, a transpose's diagonal onto
 * itself) and disjoint parts of one array pass. Local. */
dmx_status dmxi_transforms_overlap(int n, const dmx_transform *t);

/* If comm orders the plan's processes differently, *map[r] = plan rank of comm's rank r (else
 * *map = NULL). Local (group translation). */
dmx_status dmxi_plan_rank_map(const dmx_plan *p, MPI_Comm comm, int **map);

/* ---- plan_small.c ---------------------------------------------------------------------- */

/* dmx_plan_create's first try: with one agreement, a plan run by the small engine when every
 * rank exchanges at most DMX_SMALL_BYTES. *done = 1: the result is final (a plan in *out, or
 * an agreed error); *done = 0: every rank takes the general path. Collective on the first
 * layout's communicator. once = 1 (dmx_transform_once): under DMX_PLAN_CHECK=local with the
 * default error handler, a failed check calls the handler instead of agreeing, and a plan every
 * rank can make alone (layouts known globally, A's bytes within half of DMX_ONCE_BYTES) is
 * made with no agreement on the one-shot duplicate (dmxi_plan_comm_once). */
dmx_status dmxi_plan_create_small(int n, const dmx_transform *t, int once, dmx_plan **out,
                                  int *done);

/* End of a one-shot call (dmx_transform_once) whose execution returned st: a plan made by the
 * one-shot path is kept on its communicator's pool, most recently used first, for the next
 * calls (a call with the same layouts, dtype, op and trapezoid takes it back instead of
 * planning; scalars may differ); the least recently used kept plans are destroyed beyond
 * DMX_ONCE_KEEP plans or DMX_ONCE_BYTES of memory (the newest is always kept). Any other plan is
 * destroyed. Sets *p to NULL. Local for plans of the one-shot path, else as dmx_plan_destroy. */
dmx_status dmxi_plan_once_finish(dmx_plan **p, dmx_status st);

/* ---- overlay.c -------------------------------------------------------------------------- */

/* Plan transform t (both layouts known globally): append this rank's receive pieces, local
 * rectangles and send pieces, as runs (overlay_runs.c, their runs appended to segs) when the
 * transform qualifies, else as rectangles. Local. */
dmx_status dmxi_overlay_transform(const dmx_plan *p, int t, dmxi_piece_list *recv,
                                  dmxi_local_list *loc, dmxi_piece_list *send, dmxi_seg_list *segs);

/* ---- overlay_runs.c --------------------------------------------------------------------- */

/* Plan transform t as runs when it qualifies (both layouts block-cyclic, no trapezoid, small
 * overlay rectangles or DMX_RUNS=1: the same answer on every rank): sets p->xf[t].runs, appends
 * the pieces (already cut to p->ex.chunk_bytes) and their runs, *done = 1. Else *done = 0 and
 * nothing is appended. Local. */
dmx_status dmxi_overlay_runs(const dmx_plan *p, int t, dmxi_piece_list *recv, dmxi_local_list *loc,
                             dmxi_piece_list *send, dmxi_seg_list *segs, int *done);

/* Walk this rank's blocks of B (as op(B) rectangles) cut by A's grid, calling visit(ctx, owner,
 * r0, c0, rows, cols) for each rectangle that meets the trapezoid; owner is the A owner as a
 * rank of the plan (through x->amap when set). Local. */
dmx_status dmxi_walk_source(const dmxi_xform *x,
                            dmx_status (*visit)(void *ctx, int owner, int64_t r0, int64_t c0,
                                                int64_t rows, int64_t cols),
                            void *ctx);

/* ---- directory.c ------------------------------------------------------------------------ */

/* Plan transform t when A or B is known only locally. Collective on p->comm. Every rank
 * registers its rectangles of A and of op(B) (both in A's coordinates) with an
 * assumed-partition directory of A's index space; each directory rank intersects what it
 * received and tells the owners their pieces. Appends to recv, loc and send what the global
 * planner would produce (rectangles may be cut further at directory boundaries; both sides get
 * identical rectangles, so package order still agrees). Fails with DMX_ERR_LAYOUT on every rank
 * if the blocks of a layout overlap or leave a gap. Uses tags DMXI_DIR_TAG.. on p->comm. */
#define DMXI_DIR_TAG 0x4D00
dmx_status dmxi_plan_directory(const dmx_plan *p, int t, dmxi_piece_list *recv,
                               dmxi_local_list *loc, dmxi_piece_list *send);

/* ---- packages.c ------------------------------------------------------------------------- */

/* How a piece of rows x cols elements of es bytes, of a transform with op, is cut so that no
 * sub-piece is larger than max_bytes: *rows_per x *cols_per sub-pieces (the last ones in each
 * direction smaller), *count of them (1: not cut). Op N cuts whole columns (runs of one column
 * when a column alone is too large); op T and C cut tiles about square, with sides rounded to
 * multiples of 16 elements, so neither B's reads nor A's writes degrade to one element per
 * column however large the matrix. Local; DMX_ERR_OVERFLOW if the count overflows. */
dmx_status dmxi_piece_cut_shape(dmx_op op, int64_t rows, int64_t cols, int64_t es,
                                int64_t max_bytes, int64_t *rows_per, int64_t *cols_per,
                                int64_t *count);

/* Cut the pieces to at most e->chunk_bytes, sort them into packages and make e's send and
 * receive peers with the pieces' byte offsets (the lists are replaced by the cut ones). Local. */
dmx_status dmxi_packages_make(const dmxi_xform *xf, dmxi_piece_list *send, dmxi_piece_list *recv,
                              dmxi_exec *e);

/* Order the local rectangles the way the engine applies them. Local. */
void dmxi_packages_sort_local(dmxi_local *v, int64_t n);

#endif
