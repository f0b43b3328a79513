/* SPDX-License-Identifier: BSD-3-Clause */
/* What the local kernels' files share (not a header for other modules): the normalized problem
 * (kjob), the element operations and the typed element function stamped out per dtype.
 *   kernels.c            dispatch: normalize, classify alpha/beta, pick a kernel, split threads
 *   kernels_copy.c       copy-like tiles (D and S both unit-stride along D's columns) and the
 *                        operations that read only D
 *   kernels_transpose.c  transpose-like tiles (S unit-stride along D's rows)
 *   kernels_avx.c        register transposes with AVX, for kernels_transpose.c
 * kernels.c calls the other two; they call nothing back (only this header's inline code). */
#ifndef DMXI_KERNELS_IMPL_H
#define DMXI_KERNELS_IMPL_H

#include "dmx.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bytes of one cache line. */
#define CACHE_LINE 64

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Software prefetch: the hardware prefetchers do not follow a transposing walk, and a store
 * that misses stalls the store buffer, so lines of S and D are requested this many micro-blocks
 * ahead. A prefetch is only a hint: it reads nothing (beta = 0 may prefetch D). */
#if defined(__GNUC__)
#define PREFETCH_R(p) __builtin_prefetch((p), 0, 3)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_R(p) ((void)(p))
#define PREFETCH_W(p) ((void)(p))
#endif

#ifdef _OPENMP
#define SIMD_LOOP _Pragma("omp simd")
#else
#define SIMD_LOOP
#endif

#define MIN64(a, b) ((a) < (b) ? (a) : (b))

/* Element operations. */
enum kop {
    KOP_COPY = 0, /* D = S bit for bit (with conjugation: D = conj(S)) */
    KOP_SCAL,     /* D = alpha*S */
    KOP_ADD,      /* D = S + D */
    KOP_AXPY,     /* D = alpha*S + D */
    KOP_AXPBY,    /* D = alpha*S + beta*D */
    KOP_COUNT
};

typedef struct kjob kjob;

/* A typed kernel: the m x n canonical sub-tile at s, d (strides and scalars from the job). */
typedef void (*kfn)(const kjob *job, int64_t m, int64_t n, const void *s, void *d);

/* The normalized problem: D(i,j) at d[i + j*ldd], op(S)(i,j) at s[i*sri + j*scj] (element
 * units); sri == 1 (copy-like) or scj == 1 (transpose-like). */
struct kjob {
    kfn fn;
    size_t esz;
    int64_t m, n;
    int64_t ldd;
    int64_t sri, scj;
    int transposed;
    int stream;            /* DMXI_KERNEL_STREAM */
    int conj;              /* op C on a complex dtype */
    int kind, op;          /* tl_op_avx: element kind (0 s, 1 d, 2 c, 3 z) and enum kop */
    kfn staged;            /* tl_staged: the cached kernel that fills its buffer */
    kfn fallback;          /* the ordinary kernel, for what a specialized one leaves over */
    double ar, ai, br, bi; /* alpha and beta, already rounded to the dtype */
    const char *s;         /* NULL when the operation does not read S */
    char *d;
};

/* One element: dc = f(sc, dc) for operation OP, conjugating S if CJ. R is the real type, NC the
 * number of R per element (1 real, 2 complex). OP, CJ and NC are constants at every call, so the
 * switch and the branches fold away. */
#define DEFINE_ELEM(ch, R, NC)                                                                     \
    static ALWAYS_INLINE void ch##_elem(int op, int cj, const R *sc, R *dc, R ar, R ai, R br,      \
                                        R bi)                                                      \
    {                                                                                              \
        if (op == KOP_COPY) {                                                                      \
            if (NC == 2 && cj) {                                                                   \
                dc[0] = sc[0];                                                                     \
                dc[1] = -sc[1];                                                                    \
            } else {                                                                               \
                memcpy(dc, sc, sizeof(R) * NC);                                                    \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        const R sr = sc[0];                                                                        \
        const R si = NC == 2 ? (cj ? -sc[1] : sc[1]) : (R)0;                                       \
        if (NC == 1) {                                                                             \
            switch (op) {                                                                          \
            case KOP_SCAL: dc[0] = ar * sr; break;                                                 \
            case KOP_ADD: dc[0] = dc[0] + sr; break;                                               \
            case KOP_AXPY: dc[0] = dc[0] + ar * sr; break;                                         \
            default: dc[0] = ar * sr + br * dc[0]; break;                                          \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        switch (op) {                                                                              \
        case KOP_SCAL:                                                                             \
            dc[0] = ar * sr - ai * si;                                                             \
            dc[1] = ar * si + ai * sr;                                                             \
            break;                                                                                 \
        case KOP_ADD:                                                                              \
            dc[0] = dc[0] + sr;                                                                    \
            dc[1] = dc[1] + si;                                                                    \
            break;                                                                                 \
        case KOP_AXPY:                                                                             \
            dc[0] = dc[0] + (ar * sr - ai * si);                                                   \
            dc[1] = dc[1] + (ar * si + ai * sr);                                                   \
            break;                                                                                 \
        default: {                                                                                 \
            const R dr = dc[0], di = dc[1];                                                        \
            dc[0] = (ar * sr - ai * si) + (br * dr - bi * di);                                     \
            dc[1] = (ar * si + ai * sr) + (br * di + bi * dr);                                     \
        } break;                                                                                   \
        }                                                                                          \
    }

/* The copy-like kernel of dtype dt (DMX_FLOAT..DMX_CDOUBLE) for operation k, conjugating S if
 * conj (kernels_copy.c). */
kfn dmxi_kernel_copy_fn(dmx_dtype dt, enum kop k, int conj);

/* The kernel of dtype dt for operations that read only D: zero fill (beta = 0) or D = beta*D
 * (kernels_copy.c). */
kfn dmxi_kernel_donly_fn(dmx_dtype dt, int zero);

/* The transpose-like kernel of dtype dt for operation k, conjugating S if conj, chosen for the
 * job (its element size, streaming, alignment, CPU); may set job->fallback and job->avx
 * (kernels_transpose.c). */
kfn dmxi_kernel_transpose_fn(kjob *job, dmx_dtype dt, enum kop k, int conj);

#endif
