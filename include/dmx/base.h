/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/base.h
 * @brief dmx base types: status codes, element types, operations, scalars, errors, version.
 *
 * Conventions used throughout the dmx headers:
 *  - Every call returns a ::dmx_status; outputs come last.
 *  - "Collective on comm" means every rank of the communicator must make the call with
 *    arguments that describe the same global object; if any rank finds an error, every rank
 *    returns the same (non-zero) status and nothing is created. Errors that leave a rank no
 *    communicator to agree on go to the error handler instead (dmx_set_error_handler;
 *    docs/errors.md says which promise holds for which mistake).
 *  - "Local" calls involve no communication.
 *  - Arrays passed in are copied unless the documentation says "borrowed".
 *  - Destroy functions are NULL-safe and set the handle to NULL.
 *  - Indices are 0-based; sizes and counts are int64_t.
 */
#ifndef DMX_BASE_H
#define DMX_BASE_H

/* From C++, mpi.h (included by the dmx headers after this one) would bring MPI's deprecated C++
 * bindings with it, whose symbols live in a library of their own (Open MPI's libmpi_cxx) that a
 * C++ program linking dmx does not otherwise need: they are skipped. Define DMX_KEEP_MPICXX to
 * keep them; a program that includes mpi.h before dmx.h defines these macros itself. */
#if defined(__cplusplus) && !defined(DMX_KEEP_MPICXX)
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#endif

#include <stddef.h>
#include <stdint.h>

/* DMX_VERSION_MAJOR, _MINOR, _PATCH and _STRING: the version of these headers, generated from
 * the project version in CMakeLists.txt; dmx_version() reports the library's. tests/headers
 * checks that both equal it. */
#include "dmx/version.h"
#if defined(DMX_BUILDING_LIBRARY) && defined(__GNUC__)
#define DMX_API __attribute__((visibility("default")))
#else
#define DMX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. Values are pinned and will not change. */
typedef enum dmx_status {
    DMX_SUCCESS = 0,
    DMX_ERR_ARG = 1,         /**< an argument is out of range or inconsistent */
    DMX_ERR_NULL = 2,        /**< a required pointer is NULL */
    DMX_ERR_ALLOC = 3,       /**< memory allocation failed */
    DMX_ERR_STATE = 4,       /**< call not allowed in the object's current state */
    DMX_ERR_LAYOUT = 5,      /**< a layout description is invalid or layouts do not match */
    DMX_ERR_OVERFLOW = 6,    /**< a size or count does not fit the type it must pass through */
    DMX_ERR_MPI = 7,         /**< an MPI call failed */
    DMX_ERR_UNSUPPORTED = 8, /**< valid request that dmx does not implement */
    DMX_ERR_INTERNAL = 9     /**< a bug in dmx; please report it */
} dmx_status;

/** Element types. */
typedef enum dmx_dtype {
    DMX_FLOAT = 0,  /**< float */
    DMX_DOUBLE = 1, /**< double */
    DMX_CFLOAT = 2, /**< float _Complex (two floats, real first) */
    DMX_CDOUBLE = 3 /**< double _Complex (two doubles, real first) */
} dmx_dtype;

/** The operation applied to B. */
typedef enum dmx_op {
    DMX_OP_N = 0, /**< op(B) = B */
    DMX_OP_T = 1, /**< op(B) = B^T */
    DMX_OP_C = 2  /**< op(B) = conj(B)^T; same as DMX_OP_T for real types */
} dmx_op;

/** Storage order of one local block. */
typedef enum dmx_order {
    DMX_COL_MAJOR = 0, /**< element (i,j) at data[i + j*ld] */
    DMX_ROW_MAJOR = 1  /**< element (i,j) at data[i*ld + j] */
} dmx_order;

/** A scalar usable with every dtype: real types use re only; float types round. */
typedef struct dmx_scalar {
    double re;
    double im;
} dmx_scalar;

/** Size in bytes of one element of @p t, 0 for an invalid type. Local. */
DMX_API size_t dmx_dtype_size(dmx_dtype t);

/** A fixed English name for @p st ("DMX_ERR_ARG", ...). Local. */
DMX_API const char *dmx_status_string(dmx_status st);

/** The calling thread's last error as "file:line: message", or "" if none. Local. */
DMX_API const char *dmx_last_error(void);

/**
 * A handler for errors that cannot be agreed between the ranks, so that returning would leave
 * other ranks waiting forever: a collective call given no communicator to agree on (a NULL
 * layout handle, a view of a NULL parent, no transforms), or an agreement that never completes
 * (ranks calling a collective function on different communicators, or one rank never calling
 * it; see DMX_TIMEOUT in docs/settings.md). @p st is the error's status, @p message the same
 * text dmx_last_error() then returns ("file:line: message"). A handler that returns makes the
 * call return @p st (and, after a timeout, leaves the unfinished reduction pending: the
 * communicator involved should not be used again).
 */
typedef void (*dmx_error_handler)(dmx_status st, const char *message);

/**
 * Install @p fn as the handler for errors that cannot be agreed (see ::dmx_error_handler) and
 * return the previous one; NULL restores the default, which prints "dmx: <message> (<status>)"
 * to stderr and calls MPI_Abort(MPI_COMM_WORLD, 1). One handler per process. Local.
 */
DMX_API dmx_error_handler dmx_set_error_handler(dmx_error_handler fn);

/**
 * The version of the library that is running, as "MAJOR.MINOR.PATCH"; the numbers are also
 * stored through @p major, @p minor, @p patch, each of which may be NULL. Compare with the
 * DMX_VERSION_* macros to detect a header / library mismatch. Local.
 */
DMX_API const char *dmx_version(int *major, int *minor, int *patch);

#ifdef __cplusplus
}
#endif

#endif /* DMX_BASE_H */
