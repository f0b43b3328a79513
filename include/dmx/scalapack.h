/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/scalapack.h
 * @brief ScaLAPACK-compatible redistribution and transposition on the dmx engine.
 *
 * libdmx_scalapack exports ScaLAPACK's own symbols, so a program built against ScaLAPACK uses
 * dmx for these routines when it is linked with -ldmx_scalapack before -lscalapack-openmpi or
 * when libdmx_scalapack.so is preloaded. Arguments, descriptors (9 integers, DTYPE = 1) and
 * results are exactly ScaLAPACK's; see docs/scalapack.md.
 *
 *  - p?gemr2d: copy sub(A) (m x n at ia, ja) into sub(B) (at ib, jb). A and B may live on
 *    different BLACS grids; ictxt is a grid containing every process of both, and every process
 *    of ictxt must call. A process outside A's (B's) grid passes CTXT = -1 in desca (descb).
 *  - p?trmr2d: the same for the upper (uplo 'U') or lower trapezoid of sub(A); diag 'U' leaves
 *    the diagonal out. The trapezoid is ScaLAPACK's: for 'U' with m > n the diagonal ends at the
 *    bottom-right corner, for 'L' with n > m it starts at the top-left corner shifted n - m
 *    columns right.
 *  - p?tran*: sub(C) = beta*sub(C) + alpha*op(sub(A)), sub(C) m x n, sub(A) n x m, op = T
 *    (ptran, p?tranu) or conjugate transpose (p?tranc); A and C share one grid, whose processes
 *    all call.
 *
 * The C entry points take scalars by value, the Fortran ones (trailing underscore) everything
 * by reference. Complex arrays and scalars are interleaved (re, im) pairs.
 *
 * Collective on ictxt (p?gemr2d, p?trmr2d) or on the grid of A and C (p?tran*). Not
 * thread-safe: call from one thread per process, as the BLACS require.
 *
 * Installed as dmx/scalapack.h and, for existing code, as dmx_scalapack.h (which includes it).
 * Not included by dmx.h.
 */
#ifndef DMX_SCALAPACK_H
#define DMX_SCALAPACK_H

#include <stdint.h>

/* The tests build a second copy of the library whose symbols carry a prefix, so one program can
 * call both dmx's and ScaLAPACK's routines. Users never define these. */
#ifndef DMX_SCALAPACK_SYM
#ifdef DMX_SCALAPACK_TEST_NAMES
#define DMX_SCALAPACK_SYM(name) dmxsp_test_##name
#else
#define DMX_SCALAPACK_SYM(name) name
#endif
#endif

#if defined(DMX_SCALAPACK_BUILDING) && defined(__GNUC__)
#define DMX_SCALAPACK_API __attribute__((visibility("default")))
#else
#define DMX_SCALAPACK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- p?gemr2d: C entry points --------------------------------------------------------------- */
#define DMXSP_DECL_CGEMR2D(ch, T)                                                                  \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(Cp##ch##gemr2d)(int m, int n, T *a, int ia, int ja,   \
                                                             int *desca, T *b, int ib, int jb,     \
                                                             int *descb, int ictxt);
/* ---- p?gemr2d: Fortran entry points --------------------------------------------------------- */
#define DMXSP_DECL_FGEMR2D(ch, T)                                                                  \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##gemr2d_)(                                      \
        const int *m, const int *n, T *a, const int *ia, const int *ja, int *desca, T *b,          \
        const int *ib, const int *jb, int *descb, const int *ictxt);
/* ---- p?trmr2d ------------------------------------------------------------------------------- */
#define DMXSP_DECL_CTRMR2D(ch, T)                                                                  \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(Cp##ch##trmr2d)(                                      \
        const char *uplo, const char *diag, int m, int n, T *a, int ia, int ja, int *desca, T *b,  \
        int ib, int jb, int *descb, int ictxt);
#define DMXSP_DECL_FTRMR2D(ch, T)                                                                  \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(p##ch##trmr2d_)(                                      \
        const char *uplo, const char *diag, const int *m, const int *n, T *a, const int *ia,       \
        const int *ja, int *desca, T *b, const int *ib, const int *jb, int *descb,                 \
        const int *ictxt);
/* ---- p?tran* (PBLAS, Fortran calling convention only) --------------------------------------- */
#define DMXSP_DECL_TRAN(name, T)                                                                   \
    DMX_SCALAPACK_API void DMX_SCALAPACK_SYM(name)(                                                \
        const int *m, const int *n, const T *alpha, T *a, const int *ia, const int *ja,            \
        int *desca, const T *beta, T *c, const int *ic, const int *jc, int *descc);

DMXSP_DECL_CGEMR2D(i, int)
DMXSP_DECL_CGEMR2D(s, float)
DMXSP_DECL_CGEMR2D(d, double)
DMXSP_DECL_CGEMR2D(c, void)
DMXSP_DECL_CGEMR2D(z, void)
DMXSP_DECL_FGEMR2D(i, int)
DMXSP_DECL_FGEMR2D(s, float)
DMXSP_DECL_FGEMR2D(d, double)
DMXSP_DECL_FGEMR2D(c, void)
DMXSP_DECL_FGEMR2D(z, void)
DMXSP_DECL_CTRMR2D(i, int)
DMXSP_DECL_CTRMR2D(s, float)
DMXSP_DECL_CTRMR2D(d, double)
DMXSP_DECL_CTRMR2D(c, void)
DMXSP_DECL_CTRMR2D(z, void)
DMXSP_DECL_FTRMR2D(i, int)
DMXSP_DECL_FTRMR2D(s, float)
DMXSP_DECL_FTRMR2D(d, double)
DMXSP_DECL_FTRMR2D(c, void)
DMXSP_DECL_FTRMR2D(z, void)
DMXSP_DECL_TRAN(pstran_, float)
DMXSP_DECL_TRAN(pdtran_, double)
DMXSP_DECL_TRAN(pctranu_, void)
DMXSP_DECL_TRAN(pctranc_, void)
DMXSP_DECL_TRAN(pztranu_, void)
DMXSP_DECL_TRAN(pztranc_, void)

#undef DMXSP_DECL_CGEMR2D
#undef DMXSP_DECL_FGEMR2D
#undef DMXSP_DECL_CTRMR2D
#undef DMXSP_DECL_FTRMR2D
#undef DMXSP_DECL_TRAN

/** Counters of this process's plan cache (see docs/scalapack.md). */
typedef struct dmx_scalapack_stats {
    int64_t calls;     /**< calls that moved data (m, n > 0) */
    int64_t hits;      /**< calls that reused a cached plan */
    int64_t misses;    /**< calls that built a plan */
    int64_t evictions; /**< cached plans destroyed to make room */
    int64_t entries;   /**< plans cached now */
    int64_t contexts;  /**< process groups (communicators) cached now */
    /** calls (counted in calls) that took the path with no collective (small p?gemr2d and p?tran*
     * calls, docs/scalapack.md) */
    int64_t local_calls;
    /** calls (counted in calls) that took the path with one collective, a gather of the keys
     * (small p?gemr2d calls whose grids miss some process of the context, docs/scalapack.md) */
    int64_t gathered_calls;
    /** calls (counted in local_calls) done in place with no plan: at most 1024 elements, both
     * descriptors on one grid, every element staying on its process (docs/scalapack.md) */
    int64_t direct_calls;
    /** calls (counted in calls) of p?gemm_ that ran dmx's multiply or scaled C (not counted:
     * quick returns, M or N = 0, alpha = 0 or K = 0 with beta = 1, illegal arguments) */
    int64_t gemm_calls;
    /** calls of p?gemm_ handed to the linked ScaLAPACK's own p?gemm_ (rank-nb updates and small
     * products, docs/scalapack.md; not counted in calls) */
    int64_t gemm_scalapack_calls;
} dmx_scalapack_stats;

/** Fill @p out with this process's counters. Local. Returns 0, or 1 if out is NULL. */
DMX_SCALAPACK_API int DMX_SCALAPACK_SYM(dmx_scalapack_get_stats)(dmx_scalapack_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* DMX_SCALAPACK_H */
