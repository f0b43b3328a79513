/* SPDX-License-Identifier: BSD-3-Clause */
/* For the p?gemm_ tests that link the drop-in's test build (dmx_scalapack_testnames, symbols
 * prefixed dmxsp_test_) beside Debian's ScaLAPACK: both sets of prototypes, one call of either
 * for the four types, and the comparison of two local arrays. */
#ifndef DMX_SP_GEMM_TEST_H
#define DMX_SP_GEMM_TEST_H

#include "sp_test.h"

#include <math.h>

#define SPT_DECL_GEMM(name, T)                                                                     \
    void name(const char *ta, const char *tb, const int *m, const int *n, const int *k,            \
              const T *alpha, T *a, const int *ia, const int *ja, const int *desca, T *b,          \
              const int *ib, const int *jb, const int *descb, const T *beta, T *c, const int *ic,  \
              const int *jc, const int *descc);
SPT_DECL_GEMM(psgemm_, float)
SPT_DECL_GEMM(pdgemm_, double)
SPT_DECL_GEMM(pcgemm_, float)
SPT_DECL_GEMM(pzgemm_, double)
SPT_DECL_GEMM(dmxsp_test_psgemm_, float)
SPT_DECL_GEMM(dmxsp_test_pdgemm_, double)
SPT_DECL_GEMM(dmxsp_test_pcgemm_, float)
SPT_DECL_GEMM(dmxsp_test_pzgemm_, double)
#undef SPT_DECL_GEMM

/* One operand: local array, 1-based origin, descriptor. */
typedef struct spt_operand {
    void *d;
    int i, j;
    const int *desc;
} spt_operand;

/* C = alpha op(A) op(B) + beta C through p<t>gemm_ of Debian (real = 1) or of dmx's test build;
 * alpha and beta point to the type's own scalars (float pairs for c). */
#define SPT_GEMM_CALL(fn, T)                                                                       \
    fn(&ta, &tb, &m, &n, &k, (const T *)alpha, a.d, &a.i, &a.j, a.desc, b.d, &b.i, &b.j, b.desc,   \
       (const T *)beta, c.d, &c.i, &c.j, c.desc)
static inline void spt_gemm(int real, int t, char ta, char tb, int m, int n, int k,
                            const void *alpha, spt_operand a, spt_operand b, const void *beta,
                            spt_operand c)
{
    switch (t * 2 + !real) {
    case 0: SPT_GEMM_CALL(psgemm_, float); break;
    case 1: SPT_GEMM_CALL(dmxsp_test_psgemm_, float); break;
    case 2: SPT_GEMM_CALL(pdgemm_, double); break;
    case 3: SPT_GEMM_CALL(dmxsp_test_pdgemm_, double); break;
    case 4: SPT_GEMM_CALL(pcgemm_, float); break;
    case 5: SPT_GEMM_CALL(dmxsp_test_pcgemm_, float); break;
    case 6: SPT_GEMM_CALL(pzgemm_, double); break;
    default: SPT_GEMM_CALL(dmxsp_test_pzgemm_, double); break;
    }
}
#undef SPT_GEMM_CALL

/* The largest difference between two local arrays of nc elements of type t, relative; a NaN on
 * one side only is infinite (beta = 0 must overwrite NaN; padding keeps it on both). */
static inline double spt_worst_diff(int t, const void *x, const void *y, size_t nc)
{
    double worst = 0;
    for (size_t e = 0; e < nc; e++) {
        double r1, i1, r2, i2;
        spt_get(t, x, e, &r1, &i1);
        spt_get(t, y, e, &r2, &i2);
        const int n1 = isnan(r1) || isnan(i1), n2 = isnan(r2) || isnan(i2);
        if (n1 != n2)
            return INFINITY;
        if (n1)
            continue;
        const double d = hypot(r1 - r2, i1 - i2) / (1.0 + hypot(r1, i1));
        worst = d > worst ? d : worst;
    }
    return worst;
}

#endif /* DMX_SP_GEMM_TEST_H */
