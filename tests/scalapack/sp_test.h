/* Helpers shared by the ScaLAPACK compatibility tests: BLACS and ScaLAPACK prototypes (Debian's
 * libscalapack-openmpi ships no C header), descriptors, a seeded generator. */
#ifndef DMX_SP_TEST_H
#define DMX_SP_TEST_H

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

/* Rows (or columns) of an n-long dimension in nb-blocks that process coordinate p of np owns when
 * the first block sits on src (ScaLAPACK's NUMROC). */
static inline int spt_numroc(int n, int nb, int p, int src, int np)
{
    int dist = (p - src + np) % np;
    int nblocks = n / nb;
    int loc = (nblocks / np) * nb;
    int extra = nblocks % np;
    if (dist < extra)
        loc += nb;
    else if (dist == extra)
        loc += n % nb;
    return loc;
}

/* ---- generator (splitmix64) ------------------------------------------------------------------ */
typedef struct spt_rng {
    uint64_t s;
} spt_rng;

static inline uint64_t spt_next(spt_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int spt_int(spt_rng *r, int lo, int hi)
{
    return lo + (int)(spt_next(r) % (uint64_t)(hi - lo + 1));
}

static inline double spt_unit(spt_rng *r)
{
    return (double)(spt_next(r) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

static inline spt_rng spt_seed(uint64_t a, uint64_t b, uint64_t c)
{
    spt_rng r = {a * UINT64_C(0x100000001B3) ^ (b << 20) ^ (c << 40) ^ UINT64_C(0x5EED)};
    spt_next(&r);
    return r;
}

#define SPT_CHECK_MPI(call)                                                                        \
    do {                                                                                           \
        int spt_rc_ = (call);                                                                      \
        if (spt_rc_ != MPI_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, spt_rc_);        \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

#endif /* DMX_SP_TEST_H */
