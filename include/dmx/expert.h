/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/expert.h
 * @brief Calls for tools and libraries built on dmx; may change between minor versions.
 *
 * What is here serves dmx's own `dmx` program, its benchmarks and the ScaLAPACK drop-in
 * (libdmx_scalapack, which sees the public headers only), and any other library that sits on
 * dmx the same way: the record dmx keeps with a communicator, the table of DMX_* settings,
 * the layouts and the test behind the drop-in's small calls, and the cost models' inner
 * choices. A program that only moves, multiplies or exchanges data needs none of it. dmx.h does
 * not include this header; include it after (or instead of) dmx.h. Conventions: see dmx/base.h.
 * Compiles on its own.
 */
#ifndef DMX_EXPERT_H
#define DMX_EXPERT_H

#include "dmx/base.h"
#include "dmx/coll.h"
#include "dmx/exchange.h"
#include "dmx/gemm.h"
#include "dmx/layout.h"
#include "dmx/relabel.h"
#include "dmx/rma.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* What dmx keeps with a communicator                                                           */
/* ------------------------------------------------------------------------------------------ */

/*
 * dmx keeps one record per communicator it works on, attached as an attribute: one inner
 * duplicate of the communicator, its node communicator, and each module's state; all of it is
 * freed when the communicator is freed, or at MPI_Finalize (docs/architecture.md, "What dmx
 * attaches to your communicator"). The calls below let one library on top of dmx (the drop-in)
 * keep one state of its own there too, freed the same way.
 */

/** Frees a state kept with dmx_comm_set_state(). Called inside MPI_Comm_free of the
 * communicator (so collectively: it may destroy dmx plans and layouts) or in MPI_Finalize. */
typedef void (*dmx_comm_state_free)(void *state);

/** dmx's inner duplicate of @p comm (MPI_ERRORS_RETURN), made on the first call: collective on
 * @p comm then, local afterwards. Borrowed: freed with @p comm, never by the caller. */
DMX_API dmx_status dmx_comm_inner(MPI_Comm comm, MPI_Comm *inner);

/** The state kept with @p comm by dmx_comm_set_state(), or NULL. Local. */
DMX_API dmx_status dmx_comm_state(MPI_Comm comm, void **state);

/** Keep @p state with @p comm (none kept yet; NULL clears it without calling @p fn); @p fn
 * frees it when @p comm is freed or at MPI_Finalize. Local. */
DMX_API dmx_status dmx_comm_set_state(MPI_Comm comm, void *state, dmx_comm_state_free fn);

/* ------------------------------------------------------------------------------------------ */
/* The table of DMX_* settings, read-only                                                       */
/* ------------------------------------------------------------------------------------------ */

/* For the dmx program (`dmx settings`, which also writes docs/settings.md from it) and for
 * libdmx_scalapack, which reads its settings through the same table. Every call here is local. */

/** Who a setting is for. Values are pinned. */
typedef enum dmx_setting_tier {
    DMX_SETTING_USER = 0,   /**< what a user may want to set (README.md lists these) */
    DMX_SETTING_TUNING = 1, /**< choices and model inputs that the defaults make well */
    DMX_SETTING_TEST = 2    /**< exists to exercise code paths in tests and measurements */
} dmx_setting_tier;

/** Whether ranks may hold different values. Values are pinned. */
typedef enum dmx_setting_scope {
    DMX_SETTING_LOCAL = 0,      /**< may differ per rank */
    DMX_SETTING_MUST_MATCH = 1, /**< must be the same on every rank; dmx does not check it */
    DMX_SETTING_AGREED = 2      /**< dmx agrees on it over the ranks (smallest, or an error) */
} dmx_setting_scope;

/** One row of the table. The strings are static. */
typedef struct dmx_setting_desc {
    const char *name;        /**< the variable; a family's ends in <NAME> (DMX_COLL_<NAME>) */
    dmx_setting_tier tier;   /**< who it is for */
    dmx_setting_scope scope; /**< whether ranks may differ */
    const char *dflt;        /**< the default as documented ("unset" when none) */
    const char *meaning;     /**< one line */
    const char *doc;         /**< the longer markdown text of docs/settings.md */
    int text;                /**< 1: a word or a path; 0: a nonnegative integer */
} dmx_setting_desc;

/** Number of rows of the table. */
DMX_API int dmx_setting_count(void);

/** Row @p i (0 .. dmx_setting_count() - 1) into @p out; DMX_ERR_ARG when out of range. */
DMX_API dmx_status dmx_setting_describe(int i, dmx_setting_desc *out);

/**
 * The current raw value of setting @p name (as the library reads it: NULL when unset or
 * empty), or NULL when @p name is no row of the table; a member of a family
 * (DMX_COLL_BCAST) is found through its family's row.
 */
DMX_API const char *dmx_setting_str(const char *name);

/**
 * The current value of integer setting @p name: its nonnegative decimal value, else the row's
 * default (a malformed value is reported once on stderr); -1 when @p name is no integer row.
 */
DMX_API int64_t dmx_setting_int(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* One-shot transforms with no agreement (the drop-in's small calls, docs/scalapack.md)         */
/* ------------------------------------------------------------------------------------------ */

/**
 * As dmx_layout_create_block_cyclic_mapped, with no communication: each rank makes its own
 * layout, whose id is its own, so the ranks cannot check that they describe the same matrix (they
 * must). Its views (dmx_layout_create_view) are made alone too. Only dmx_transform_once takes it,
 * and only for a call that makes no agreement (dmx_transform_once_is_local); any other use is
 * DMX_ERR_UNSUPPORTED. A failed check calls the error handler (no rank hears of it). Local.
 */
DMX_API dmx_status dmx_layout_create_block_cyclic_unagreed(MPI_Comm comm, int64_t m, int64_t n,
                                                           int64_t mb, int64_t nb, int prow,
                                                           int pcol, const int *grid_ranks,
                                                           int rsrc, int csrc, void *local,
                                                           int64_t lld, dmx_layout **out);

/** Whether dmx_transform_once with an m x n A of dtype between layouts known globally makes no
 *  agreement (no collective at all once the communicator's one-shot duplicate exists) under the
 *  current settings and error handler: DMX_PLAN_CHECK=local, dmx's default error handler, and
 *  2 x A's bytes <= DMX_ONCE_BYTES (never below DMX_SMALL_BYTES; DMX_SMALL_BYTES=0: never) and
 *  A's bytes <= DMX_MAX_MESSAGE_BYTES. The same answer on every rank
 *  when the settings are equal. Local. */
DMX_API int dmx_transform_once_is_local(dmx_dtype dtype, int64_t m, int64_t n);

/* ------------------------------------------------------------------------------------------ */
/* Inside the cost models (dmx model, dmx calibrate, the benchmarks)                            */
/* ------------------------------------------------------------------------------------------ */

/** The model's choice for DMX_COLL_AUTO for @p kind on @p p ranks, @p bytes as for
 *  dmx_coll_predict and @p nodes nodes: the forced one (DMX_COLL_<NAME>) or the model's
 *  cheapest. What AUTO runs with DMX_COLL_TUNE=0; with tuning, where its trials start. Local. */
DMX_API dmx_status dmx_coll_choose(dmx_coll_kind kind, int64_t p, int64_t bytes, int64_t nodes,
                                   dmx_coll_alg *alg);

/** Which section of the loaded model file a prediction for @p p ranks uses: *@p np = the N of
 *  its `np = N` line (the section nearest to p in log2, ties to the smaller N), or 0 when the
 *  model has no sections (a file without np lines, or the built-in defaults). Local. */
DMX_API dmx_status dmx_coll_model_section(int64_t p, int64_t *np);

/** The sparse exchange's protocol the loaded model file measured for @p p ranks on one node
 *  (`exchange = nbx|pex|pcx` in the section a prediction for p uses, which dmx calibrate
 *  writes), or DMX_EXCHANGE_AUTO when the file sets none: then AUTO's built-in rule decides.
 *  AUTO on a communicator of one node runs this protocol. Local. */
DMX_API dmx_status dmx_model_exchange(int64_t p, dmx_exchange_protocol *protocol);

/** Segment count the model picks for the pipelined ring broadcast, and the textbook optimum
 *  sqrt(m (p-2) beta / alpha) for comparison (either may be NULL). Local. */
DMX_API dmx_status dmx_coll_pipeline_segments(int64_t p, int64_t bytes, int64_t nodes,
                                              int64_t *model_best, double *textbook);

/** Force the pipelined broadcast's segment count for later calls of this process (@p segments
 *  0: back to the model's or DMX_COLL_SEGMENTS's choice). For measurements. Local. */
DMX_API dmx_status dmx_coll_set_pipeline_segments(int64_t segments);

/**
 * The model's time in seconds for an m x n x k product of @p dtype by @p alg on @p p ranks
 * spread over @p nodes nodes (as in dmx_coll_predict), with the grid, G and panels of
 * @p options where set (NULL or 0: the cheapest choice; with @p alg AUTO also the cheapest
 * algorithm). *chosen receives the choice in the fields of dmx_gemm_info (alg, grid, groups,
 * panels, predicted_seconds, compute_seconds). Uses dmx_coll_predict and the local multiply
 * rate (DMX_GEMM_MFLOPS). Above 4096 ranks only the most square grid is searched. Local.
 */
DMX_API dmx_status dmx_gemm_predict(dmx_gemm_alg alg, dmx_dtype dtype, int64_t m, int64_t n,
                                    int64_t k, int64_t p, int64_t nodes,
                                    const dmx_gemm_options *options, dmx_gemm_info *chosen);

/* ------------------------------------------------------------------------------------------ */
/* The plan cache                                                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * dmx keeps the plans of one-shot calls in one cache per communicator, under one budget
 * (DMX_CACHE_BYTES; docs/architecture.md, "The plan cache"). A library built on dmx (the
 * ScaLAPACK drop-in) keeps its own objects that hold dmx plans there too, under the same budget,
 * with the rules of src/plan/plan_cache.c.
 */

/** Whose keys: the drop-in's calls planned together (agreed) and made alone (local), and its
 * multiply's plans and grids (agreed). */
typedef enum dmx_cache_kind {
    DMX_CACHE_DROPIN = 1,
    DMX_CACHE_DROPIN_ALONE = 2,
    DMX_CACHE_GEMM = 3,
    DMX_CACHE_GEMM_GRID = 4
} dmx_cache_kind;

/** Frees a kept object (collective on the communicator for an agreed entry); returns 0 when it
 * succeeded. Called when the cache lets the object go, when the communicator is freed
 * (MPI_Comm_free) or at MPI_Finalize. */
typedef int (*dmx_cache_free_fn)(void *obj);

/** The object kept on @p comm with this key, moved to the front; NULL when none. Local. */
DMX_API void *dmx_cache_find(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len);

/** Remove the entry with this key from @p comm's cache and hand its object to the caller (who
 * keeps it again with dmx_cache_keep, or frees it; for an agreed kind every rank takes it at
 * the same call); NULL when none. Local. */
DMX_API void *dmx_cache_take(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len);

/** The object kept on @p comm with this key, moved to the front and pinned: until
 * dmx_cache_unpin, the cache does not let it go (a call that runs dmx_transform_once may make
 * the cache let local entries go while the caller runs the object). NULL when none. Local; no
 * allocation. */
DMX_API void *dmx_cache_pin(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len);

/** Undo one dmx_cache_pin of @p obj on @p comm; the next call that makes room may let it go.
 * Local. */
DMX_API void dmx_cache_unpin(MPI_Comm comm, const void *obj);

/** For each entry of @p kind on @p comm, most recently used first (the first @p max): 1 when
 * its key is this one, else 0. Returns how many entries of @p kind there are (-1: an error,
 * dmx_last_error). Every rank holds the same agreed entries in the same order, so a reduction
 * of these flags agrees on a hit. Local. */
DMX_API int dmx_cache_match(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len,
                            int *match, int max);

/** The @p i th entry of @p kind in dmx_cache_match's order, moved to the front. Local. */
DMX_API void *dmx_cache_take_nth(MPI_Comm comm, dmx_cache_kind kind, int i);

/** Keep @p obj on @p comm with a copy of its key, counted as @p bytes against DMX_CACHE_BYTES,
 * after letting the least recently used entries go: of @p kind beyond @p max_count - 1, then
 * local ones over the budget, then (@p agreed) agreed ones over it. @p agreed: every rank of
 * @p comm calls this at the same call with the same @p bytes (then it is collective when it
 * frees agreed entries); else local. @p free_fn frees it later. On an error the object is not
 * kept (the caller frees it). */
DMX_API dmx_status dmx_cache_keep(MPI_Comm comm, dmx_cache_kind kind, int agreed, int max_count,
                                  const void *key, size_t len, void *obj, int64_t bytes,
                                  dmx_cache_free_fn free_fn);

/** What the cache of @p comm holds: entries, bytes; and *live_bytes: all caches of this
 * process (any of the three may be NULL). Local. */
DMX_API dmx_status dmx_cache_get_info(MPI_Comm comm, int64_t *entries, int64_t *bytes,
                                      int64_t *live_bytes);

/* ------------------------------------------------------------------------------------------ */
/* How dmx chooses: candidates, cost, choice, reason (dmx model <module>)                       */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every module that chooses an algorithm or a path (the exchange's protocol, a one-sided
 * transfer's path, a collective's algorithm, the multiply's algorithm and grid, a
 * redistribution's engine) explains its choice in one shape: the candidates it weighs, each with
 * its predicted time (or "not priced" when the module chooses by a rule, stated in the note),
 * whether it can run and why not, and the one it takes with a one-line reason. Each
 * dmx_*_explain call fills it through the code the library runs, from the runtime facts passed
 * as arguments and the current DMX_* settings, so it runs offline, on one process (docs/
 * architecture.md, "How dmx chooses"). All of them are local.
 */

enum { DMX_CHOICE_MAX = 24 };

/** One candidate. */
typedef struct dmx_choice_candidate {
    char name[24];  /**< as the module's names print it ("pcx", "binomial", "summa") */
    double seconds; /**< predicted time; NaN when the module does not price it */
    int feasible;   /**< 0: it cannot run with these inputs (the note says why) */
    char note[128]; /**< why not feasible, the rule, or the configuration priced */
} dmx_choice_candidate;

/** A module's choice, explained. */
typedef struct dmx_choice {
    char module[16];  /**< "exchange", "rma", "coll", "gemm", "redist" */
    char inputs[256]; /**< the facts the choice took, as "name=value" words */
    int n;            /**< candidates in cand */
    dmx_choice_candidate cand[DMX_CHOICE_MAX];
    int chosen;       /**< index into cand, -1 when none */
    char reason[192]; /**< one line: "least predicted cost", "rule: P >= 64 -> nbx", ... */
} dmx_choice;

/** Print @p c to @p f: a table (one row per candidate, the chosen one marked '*', then the
 * choice and its reason) or, with @p json, one JSON line with the same fields. */
DMX_API dmx_status dmx_choice_print(const dmx_choice *c, FILE *f, int json);

/** The exchange's protocol for @p protocol (as passed to dmx_exchange; AUTO: the rule from the
 * communicator size @p p, or DMX_EXCHANGE when set). */
DMX_API dmx_status dmx_exchange_explain(int64_t p, dmx_exchange_protocol protocol, dmx_choice *out);

/** DMX_COLL_AUTO's choice for @p kind as dmx_coll_predict and dmx_coll_choose take it: each
 * algorithm's predicted time, MPI's call, the forced one (DMX_COLL_<NAME>). With DMX_COLL_TUNE
 * above 0 and p > 1 this is where AUTO's timed trials start (the reason says so). */
DMX_API dmx_status dmx_coll_explain(dmx_coll_kind kind, int64_t p, int64_t bytes, int64_t nodes,
                                    dmx_choice *out);

/** The multiply's choice, as dmx_gemm_plan_create makes it on @p p ranks over @p nodes nodes
 * with @p options (NULL: defaults; DMX_GEMM applies as in the plan): each algorithm's best
 * configuration and predicted time. */
DMX_API dmx_status dmx_gemm_explain(dmx_dtype dtype, int64_t m, int64_t n, int64_t k, int64_t p,
                                    int64_t nodes, const dmx_gemm_options *options,
                                    dmx_choice *out);

/** Where a multiply's operands are, for the redistribution term of its choice: A as the caller
 * stores it (m x k, or k x m when @p transa is not DMX_OP_N), B likewise (k x n or n x k), C
 * (m x n), each described over the multiply's ranks as dmx_relabel_volume_create takes them
 * (dmx/relabel.h); NULL: not known, not priced. Borrowed by the call. */
typedef struct dmx_gemm_operands {
    dmx_op transa, transb;
    const dmx_relabel_desc *a, *b, *c;
} dmx_gemm_operands;

/** dmx_gemm_explain with the operands where @p operands says (NULL: as dmx_gemm_explain): each
 * algorithm's best configuration with its multiply and redistribution times, and, with any
 * operand known, the best configuration on each grid; the choice is dmx_gemm_plan_create's on
 * layouts so described. */
DMX_API dmx_status dmx_gemm_explain_operands(dmx_dtype dtype, int64_t m, int64_t n, int64_t k,
                                             int64_t p, int64_t nodes,
                                             const dmx_gemm_options *options,
                                             const dmx_gemm_operands *operands, dmx_choice *out);

/** A redistribution's engine for an m x n A of @p dtype between layouts known globally: the
 * one-shot path with no agreement (@p once: a dmx_transform_once call), the small engine (one
 * agreement, plain messages) or the general engine. @p rank_bytes: the largest bytes any rank
 * sends plus receives to and from other ranks; @p peer_bytes: the largest bytes between two
 * ranks (both from the package volumes, e.g. dmx_relabel_volume_*; -1: unknown). */
DMX_API dmx_status dmx_transform_explain(dmx_dtype dtype, int64_t m, int64_t n, int once,
                                         int64_t rank_bytes, int64_t peer_bytes, dmx_choice *out);

/** A strided one-sided transfer as dmx_rma_put/get/accumulate describe it. */
typedef struct dmx_rma_explain_args {
    char op;          /**< 'p' put, 'g' get, 'a' accumulate */
    int64_t count;    /**< blocks */
    int64_t blocklen; /**< elements per block */
    int64_t stride;   /**< remote stride in elements */
    int64_t esize;    /**< bytes per element */
    int nbi;          /**< 1: the nonblocking form */
    int ranks;        /**< without a heap: ranks of the heap (1: local copies) */
    int same_node;    /**< without a heap: the target's segment is mapped here */
} dmx_rma_explain_args;

/** The path of one strided transfer to @p pe on @p heap (its probe and settings), or, with a
 * NULL @p heap, on a heap described by @p a's ranks and same_node, not probed, under the
 * current settings. */
DMX_API dmx_status dmx_rma_explain(const dmx_rma_heap *heap, int pe, const dmx_rma_explain_args *a,
                                   dmx_choice *out);

#ifdef __cplusplus
}
#endif

#endif /* DMX_EXPERT_H */
