/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx_cache.h
 * @brief The plan cache for a library built on dmx (the ScaLAPACK drop-in): keep objects that
 * hold dmx plans with a communicator, under dmx's one budget (DMX_CACHE_BYTES), next to
 * dmx_transform_once's kept plans. Exported by libdmx (plan/plan_cache.c has the rules); not
 * installed: it belongs with the calls for tools and the drop-in (include/dmx/expert.h, issue
 * 34 item 6) and moves there with them. Compiles on its own.
 */
#ifndef DMX_CACHE_H
#define DMX_CACHE_H

#include "dmx/base.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Whose keys: the drop-in's calls planned together (agreed) and made alone (local). */
typedef enum dmx_cache_kind { DMX_CACHE_DROPIN = 1, DMX_CACHE_DROPIN_ALONE = 2 } dmx_cache_kind;

/** Frees a kept object (collective on the communicator for an agreed entry); returns 0 when it
 * succeeded. Called when the cache lets the object go, when the communicator is freed
 * (MPI_Comm_free) or at MPI_Finalize. */
typedef int (*dmx_cache_free_fn)(void *obj);

/** The object kept on @p comm with this key, moved to the front; NULL when none. Local. */
DMX_API void *dmx_cache_find(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len);

/** Remove the entry of a local kind with this key from @p comm's cache and hand its object to
 * the caller (who keeps it again with dmx_cache_keep, or frees it); NULL when none. While the
 * caller holds it, the cache cannot let it go (a call that runs dmx_transform_once may make the
 * cache let local entries go). Local. */
DMX_API void *dmx_cache_take(MPI_Comm comm, dmx_cache_kind kind, const void *key, size_t len);

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

#ifdef __cplusplus
}
#endif

#endif /* DMX_CACHE_H */
