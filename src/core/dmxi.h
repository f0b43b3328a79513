/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal core helpers shared by every dmx source file: error reporting, checked casts,
 * checked MPI calls, allocation. Not installed. */
#ifndef DMXI_H
#define DMXI_H

#include "dmx.h"
#include "dmx/expert.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Record an error message for dmx_last_error() and return st. */
dmx_status dmxi_error(dmx_status st, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* An error that cannot be agreed between the ranks (no communicator to agree on, or an
 * agreement that never completes): record it like dmxi_error, then call the user's error
 * handler (dmx_set_error_handler; the default prints it and aborts). Returns st if the handler
 * returns. */
dmx_status dmxi_fatal(dmx_status st, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* dmxi_fatal for the error already recorded (dmx_last_error() as it stands, its location kept
 * and no second one added): a check that failed with dmxi_error and turns out to be fatal. */
dmx_status dmxi_fatal_recorded(dmx_status st);

/* 1 when the error handler is dmx's default (prints and aborts: it never returns), 0 when the
 * user installed one (which may return). Lets a collective call skip its agreement when a rank
 * whose local check fails cannot return (plan_small.c's one-shot path). Local. */
int dmxi_error_handler_is_default(void);

/* Wait for *req (a nonblocking collective or message) with MPI_Test in a loop that yields the
 * processor, giving up after DMX_TIMEOUT seconds without completion (0: never): then it calls
 * dmxi_fatal with DMX_ERR_MPI and a message naming `what` and the likely cause (ranks on
 * different communicators, or a rank that never called), and returns DMX_ERR_MPI if the handler
 * returns (the request stays pending; it cannot be cancelled). Local (wait.c). */
dmx_status dmxi_wait_bounded(MPI_Request *req, const char *what);

/* MPI_Wait by MPI_Test and sched_yield, without a time limit: MPICH's blocking calls spin
 * without yielding, which costs a scheduler time slice per collective when ranks outnumber cores
 * (200 allreduces at 3 ranks on 2 cores: 2.3 s blocking, 0.15 s nonblocking with this loop).
 * Returns MPI's code (wrap in DMXI_MPI). Local (wait.c). */
int dmxi_wait_yield(MPI_Request *req);

/* Clear the calling thread's last error. */
void dmxi_error_clear(void);

/* Functions using these macros declare `dmx_status st = DMX_SUCCESS;` and a `cleanup:` label. */
#define DMXI_FAIL(code, ...)                                                                       \
    do {                                                                                           \
        st = dmxi_error((code), __FILE__, __LINE__, __VA_ARGS__);                                  \
        goto cleanup;                                                                              \
    } while (0)

#define DMXI_CHECK(cond, code, ...)                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            DMXI_FAIL((code), __VA_ARGS__);                                                        \
    } while (0)

#define DMXI_TRY(expr)                                                                             \
    do {                                                                                           \
        dmx_status dmxi_try_st_ = (expr);                                                          \
        if (dmxi_try_st_ != DMX_SUCCESS) {                                                         \
            st = dmxi_try_st_;                                                                     \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Checked MPI call: on failure records the MPI error string and jumps to cleanup. The
 * communicators dmx uses are set to MPI_ERRORS_RETURN so failures come back here. */
dmx_status dmxi_mpi_error(int rc, const char *call, const char *file, int line);
#define DMXI_MPI(call)                                                                             \
    do {                                                                                           \
        int dmxi_mpi_rc_ = (call);                                                                 \
        if (dmxi_mpi_rc_ != MPI_SUCCESS) {                                                         \
            st = dmxi_mpi_error(dmxi_mpi_rc_, #call, __FILE__, __LINE__);                          \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Checked MPI call in a release path, which frees everything even after a failure: the first
 * failure becomes st (recorded as DMXI_MPI does) and the path goes on. A release that runs
 * because its caller already failed starts with st set to that failure, so nothing is recorded
 * over the caller's message. */
#define DMXI_MPI_ALL(call)                                                                         \
    do {                                                                                           \
        int dmxi_mpi_rc_ = (call);                                                                 \
        if (dmxi_mpi_rc_ != MPI_SUCCESS && st == DMX_SUCCESS)                                      \
            st = dmxi_mpi_error(dmxi_mpi_rc_, #call, __FILE__, __LINE__);                          \
    } while (0)

/* An info object holding the n hints kv[2i] = kv[2i+1], for a collective call that makes a window
 * or a communicator; the caller frees it unless it is MPI_INFO_NULL. When MPI cannot make it,
 * MPI_INFO_NULL (the call then goes without the hints) and the failure is kept in *st unless *st
 * already holds one: the caller still makes the collective call its peers make, and agrees on
 * *st after it. Local. */
MPI_Info dmxi_info_hints(dmx_status *st, const char *const *kv, int n);

/* MPI_Testall / MPI_Waitall with MPI_STATUSES_IGNORE, returning MPI's code (wrap in DMXI_MPI).
 * One place holds the compiler exemption that MPICH's headers need (util.c). */
int dmxi_testall(int n, MPI_Request *req, int *flag);
int dmxi_waitall(int n, MPI_Request *req);

/* int64_t -> int for counts that reach MPI; fails with DMX_ERR_OVERFLOW instead of wrapping. */
dmx_status dmxi_to_int(int64_t v, int *out, const char *what);

/* a*b and a+b with overflow detection (nonnegative operands). */
dmx_status dmxi_mul64(int64_t a, int64_t b, int64_t *out);
dmx_status dmxi_add64(int64_t a, int64_t b, int64_t *out);

/* malloc/calloc of n items of size sz with overflow check; n == 0 returns a valid pointer. */
void *dmxi_malloc(int64_t n, size_t sz);
void *dmxi_calloc(int64_t n, size_t sz);
/* Grow *arr (capacity *cap items of size sz) to hold at least need items. */
dmx_status dmxi_reserve(void **arr, int64_t *cap, int64_t need, size_t sz);

/* Collective agreement (agree.c): every rank passes its local status; all ranks return the
 * status code any rank had (DMX_SUCCESS if all succeeded). A rank whose own status was success
 * but another rank failed gets an error message naming the failing code. Collective on comm:
 * one MPI_Iallreduce of an int waited for by dmxi_wait_bounded, so a rank that calls on another
 * communicator (or never calls) ends in the error handler after DMX_TIMEOUT, not in a hang. */
dmx_status dmxi_agree(MPI_Comm comm, dmx_status local);

/* MPI_Iallreduce (returns MPI's code). In simulation builds (DMX_SIM_WAIT) a blocking
 * MPI_Allreduce instead, and *req = MPI_REQUEST_NULL, so the caller's wait returns at once:
 * SimGrid 3.32's MPI_Iallreduce posts a message between every pair of ranks (p^2), its blocking
 * one is logarithmic (agree.c). */
int dmxi_iallreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Request *req);

/* dmxi_agree that also agrees on the largest *value over the ranks (one reduction): on return
 * *value holds the maximum (also when the status is an error). Collective on comm. */
dmx_status dmxi_agree_max(MPI_Comm comm, dmx_status local, int64_t *value);

/* dmxi_agree folded with the minima of n <= DMXI_AGREE_MAX_VALUES values (one reduction): on
 * return v[k] holds the smallest v[k] of any rank (also when the status is an error). A
 * maximum is the minimum of the negated values; "all equal" is min(v) and min(~v) both
 * matching (see dmxi_agree_same). Lets a caller put every agreement of a step into one
 * reduction. Collective on comm, waited for like dmxi_agree. */
#define DMXI_AGREE_MAX_VALUES 15
dmx_status dmxi_agree_min(MPI_Comm comm, dmx_status local, int64_t *v, int n);

/* 64-bit FNV-1a hash, continued from h (start with DMXI_HASH_INIT). */
#define DMXI_HASH_INIT UINT64_C(1469598103934665603)
uint64_t dmxi_hash(uint64_t h, const void *data, size_t len);

/* Agree that every rank holds the same 64-bit value (e.g. a hash of a global description).
 * Returns DMX_SUCCESS if all equal, otherwise DMX_ERR_LAYOUT on every rank. Collective (one
 * MPI_Iallreduce of two integers, waited for like dmxi_agree). */
dmx_status dmxi_agree_same(MPI_Comm comm, uint64_t value, const char *what);

/* Rank translation (ranks.c): out[k] = the rank in `to` of `from`'s rank k, k < n (n at most
 * from's size; MPI_UNDEFINED for a process not in `to`). Local. */
dmx_status dmxi_translate_ranks(MPI_Comm from, MPI_Comm to, int n, int *out);

/* The ranks of comm on this rank's node, ordered as in comm (MPI_COMM_TYPE_SHARED). Collective
 * on comm; *node is MPI_COMM_NULL on failure. */
dmx_status dmxi_node_split(MPI_Comm comm, MPI_Comm *node);

/* The DMX_* settings table (settings.c). */
#include "settings.h"

#endif /* DMXI_H */
