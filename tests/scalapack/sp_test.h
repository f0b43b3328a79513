/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the ScaLAPACK compatibility tests: BLACS and ScaLAPACK prototypes (Debian's
 * libscalapack-openmpi ships no C header), descriptors, random draws and numroc from the common
 * test harness (tests/common/dmxt_util.h). */
#ifndef DMX_SP_TEST_H
#define DMX_SP_TEST_H

#include "dmxt_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- BLACS ----------------------------------------------------------------------------------- */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *ctxt, int *usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_barrier(int ctxt, const char *scope);

/* ---- the real ScaLAPACK (libscalapack-openmpi) ------------------------------------------------
 */
#define SPT_DECL_REAL(ch, T)                                                                       \
    void Cp##ch##gemr2d(int m, int n, T *a, int ia, int ja, int *desca, T *b, int ib, int jb,      \
                        int *descb, int ictxt);                                                    \
    void p##ch##gemr2d_(const int *m, const int *n, T *a, const int *ia, const int *ja,            \
                        int *desca, T *b, const int *ib, const int *jb, int *descb,                \
                        const int *ictxt);                                                         \
    void Cp##ch##trmr2d(const char *uplo, const char *diag, int m, int n, T *a, int ia, int ja,    \
                        int *desca, T *b, int ib, int jb, int *descb, int ictxt);                  \
    void p##ch##trmr2d_(const char *uplo, const char *diag, const int *m, const int *n, T *a,      \
                        const int *ia, const int *ja, int *desca, T *b, const int *ib,             \
                        const int *jb, int *descb, const int *ictxt);
#define SPT_DECL_REAL_TRAN(name, T)                                                                \
    void name(const int *m, const int *n, const T *alpha, T *a, const int *ia, const int *ja,      \
              int *desca, const T *beta, T *c, const int *ic, const int *jc, int *descc);

/* ---- descriptors ----------------------------------------------------------------------------- */
enum { SPT_DTYPE, SPT_CTXT, SPT_M, SPT_N, SPT_MB, SPT_NB, SPT_RSRC, SPT_CSRC, SPT_LLD };

/* Random draws for the cases, from the tests' one generator (tests/common/dmxt_util.h). */
static inline dmxt_rng spt_seed(uint64_t seed, uint64_t ncase, uint64_t stream)
{
    dmxt_rng r;
    dmxt_rng_seed(&r, seed, ncase * UINT64_C(0x100000001B3) ^ (stream << 40));
    return r;
}

/* Uniform integer in [lo, hi]. */
static inline int spt_int(dmxt_rng *r, int lo, int hi)
{
    return (int)dmxt_rng_int(r, lo, hi);
}

/* Uniform double in [-1, 1). */
static inline double spt_unit(dmxt_rng *r)
{
    return dmxt_rng_unit(r) * 2.0 - 1.0;
}

/* Elements of the four ScaLAPACK types s, d, c, z (t = 0..3) as (re, im) doubles: size, store,
 * load. Complex elements are interleaved pairs. */
static inline size_t spt_esize(int t)
{
    return t == 0 ? 4 : t == 1 ? 8 : t == 2 ? 8 : 16;
}

static inline void spt_put(int t, void *d, size_t k, double re, double im)
{
    switch (t) {
    case 0: ((float *)d)[k] = (float)re; break;
    case 1: ((double *)d)[k] = re; break;
    case 2: ((float *)d)[2 * k] = (float)re, ((float *)d)[2 * k + 1] = (float)im; break;
    default: ((double *)d)[2 * k] = re, ((double *)d)[2 * k + 1] = im; break;
    }
}

static inline void spt_get(int t, const void *d, size_t k, double *re, double *im)
{
    *im = 0;
    switch (t) {
    case 0: *re = ((const float *)d)[k]; break;
    case 1: *re = ((const double *)d)[k]; break;
    case 2: *re = ((const float *)d)[2 * k], *im = ((const float *)d)[2 * k + 1]; break;
    default: *re = ((const double *)d)[2 * k], *im = ((const double *)d)[2 * k + 1]; break;
    }
}

/* Every grid shape pr x pc with pr * pc <= np (at most 16), each a BLACS context in row order
 * over the first pr * pc processes (-1 on the others); returns how many. */
static inline int spt_all_grids(int np, int ctxts[16], int shapes[16][2])
{
    int ng = 0;
    for (int pr = 1; pr <= np && ng < 16; pr++)
        for (int pc = 1; pr * pc <= np && ng < 16; pc++) {
            Cblacs_get(0, 0, &ctxts[ng]);
            Cblacs_gridinit(&ctxts[ng], "Row", pr, pc);
            shapes[ng][0] = pr, shapes[ng][1] = pc;
            ng++;
        }
    return ng;
}

#define SPT_CHECK_MPI(call)                                                                        \
    do {                                                                                           \
        int spt_rc_ = (call);                                                                      \
        if (spt_rc_ != MPI_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, spt_rc_);        \
            dmxt_flush_before_abort();                                                             \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

/* End of a test over spt_all_grids' contexts: sums bad and checks over the ranks, prints
 * "N passed, N failed" on rank 0, leaves the grids, finalizes MPI; returns the exit status. */
static inline int spt_finish(long bad, long checks, const int *ctxts, int ng, int me)
{
    long tot[2] = {bad, checks}, sum[2];
    SPT_CHECK_MPI(MPI_Allreduce(tot, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0)
        printf("%ld passed, %ld failed\n", sum[1] - sum[0], sum[0]);
    for (int q = 0; q < ng; q++)
        if (ctxts[q] >= 0)
            Cblacs_gridexit(ctxts[q]);
    SPT_CHECK_MPI(MPI_Finalize());
    return sum[0] == 0 ? 0 : 1;
}

/* test_sp_small's PMPI interposition (sp_count.c): collectives counted while spt_counting. */
extern int spt_counting;
extern long spt_ncoll;

#endif /* DMX_SP_TEST_H */
