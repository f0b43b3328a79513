/* ScaLAPACK entry points: p?gemr2d, p?trmr2d (C and Fortran conventions) and p?tran*.
 *
 * Each entry point only dereferences its arguments into an sp_call and hands it to the engine
 * glue in sp_engine.c; the five element types differ in nothing but their dmx dtype. */
#include "sp_internal.h"

#include <stddef.h>

static dmx_scalar real_scalar(double re)
{
    dmx_scalar s = {re, 0.0};
    return s;
}

static void redist(const char *name, sp_routine routine, sp_type type, const char *uplo,
                   const char *diag, int m, int n, const void *a, int ia, int ja, const int *desca,
                   void *b, int ib, int jb, const int *descb, int ictxt)
{
    sp_call c;
    c.name = name;
    c.routine = routine;
    c.type = type;
    c.op = DMX_OP_N;
    c.m = m;
    c.n = n;
    c.uplo = uplo != NULL ? *uplo : 0;
    c.diag = diag != NULL ? *diag : 0;
    c.src = a;
    c.isrc = ia;
    c.jsrc = ja;
    c.descsrc = desca;
    c.dst = b;
    c.idst = ib;
    c.jdst = jb;
    c.descdst = descb;
    c.ictxt = ictxt;
    c.alpha = real_scalar(1.0);
    c.beta = real_scalar(0.0);
    DMXSP_INTERNAL(run)(&c);
}

static void tran(const char *name, sp_type type, dmx_op op, int m, int n, dmx_scalar alpha,
                 const void *a, int ia, int ja, const int *desca, dmx_scalar beta, void *c, int ic,
                 int jc, const int *descc)
{
    sp_call k;
    k.name = name;
    k.routine = SP_TRAN;
    k.type = type;
    k.op = op;
    k.m = m;
    k.n = n;
    k.uplo = 0;
    k.diag = 0;
    k.src = a;
    k.isrc = ia;
    k.jsrc = ja;
    k.descsrc = desca;
    k.dst = c;
    k.idst = ic;
    k.jdst = jc;
    k.descdst = descc;
    k.ictxt = descc != NULL ? descc[1] : -1;
    k.alpha = alpha;
    k.beta = beta;
    DMXSP_INTERNAL(run)(&k);
}

#define SP_DEFINE_REDIST(ch, T, TYPE, UPNAME)                                                      \
    void DMX_SCALAPACK_SYM(Cp##ch##gemr2d)(int m, int n, T *a, int ia, int ja, int *desca, T *b,   \
                                           int ib, int jb, int *descb, int ictxt)                  \
    {                                                                                              \
        redist("P" UPNAME "GEMR2D", SP_GEMR2D, TYPE, NULL, NULL, m, n, a, ia, ja, desca, b, ib,    \
               jb, descb, ictxt);                                                                  \
    }                                                                                              \
    void DMX_SCALAPACK_SYM(p##ch##gemr2d_)(const int *m, const int *n, T *a, const int *ia,        \
                                           const int *ja, int *desca, T *b, const int *ib,         \
                                           const int *jb, int *descb, const int *ictxt)            \
    {                                                                                              \
        redist("P" UPNAME "GEMR2D", SP_GEMR2D, TYPE, NULL, NULL, *m, *n, a, *ia, *ja, desca, b,    \
               *ib, *jb, descb, *ictxt);                                                           \
    }                                                                                              \
    void DMX_SCALAPACK_SYM(Cp##ch##trmr2d)(const char *uplo, const char *diag, int m, int n, T *a, \
                                           int ia, int ja, int *desca, T *b, int ib, int jb,       \
                                           int *descb, int ictxt)                                  \
    {                                                                                              \
        redist("P" UPNAME "TRMR2D", SP_TRMR2D, TYPE, uplo, diag, m, n, a, ia, ja, desca, b, ib,    \
               jb, descb, ictxt);                                                                  \
    }                                                                                              \
    void DMX_SCALAPACK_SYM(p##ch##trmr2d_)(const char *uplo, const char *diag, const int *m,       \
                                           const int *n, T *a, const int *ia, const int *ja,       \
                                           int *desca, T *b, const int *ib, const int *jb,         \
                                           int *descb, const int *ictxt)                           \
    {                                                                                              \
        redist("P" UPNAME "TRMR2D", SP_TRMR2D, TYPE, uplo, diag, *m, *n, a, *ia, *ja, desca, b,    \
               *ib, *jb, descb, *ictxt);                                                           \
    }

SP_DEFINE_REDIST(i, int, SP_I, "I")
SP_DEFINE_REDIST(s, float, SP_S, "S")
SP_DEFINE_REDIST(d, double, SP_D, "D")
SP_DEFINE_REDIST(c, void, SP_C, "C")
SP_DEFINE_REDIST(z, void, SP_Z, "Z")

void DMX_SCALAPACK_SYM(pstran_)(const int *m, const int *n, const float *alpha, float *a,
                                const int *ia, const int *ja, int *desca, const float *beta,
                                float *c, const int *ic, const int *jc, int *descc)
{
    tran("PSTRAN", SP_S, DMX_OP_T, *m, *n, real_scalar(*alpha), a, *ia, *ja, desca,
         real_scalar(*beta), c, *ic, *jc, descc);
}

void DMX_SCALAPACK_SYM(pdtran_)(const int *m, const int *n, const double *alpha, double *a,
                                const int *ia, const int *ja, int *desca, const double *beta,
                                double *c, const int *ic, const int *jc, int *descc)
{
    tran("PDTRAN", SP_D, DMX_OP_T, *m, *n, real_scalar(*alpha), a, *ia, *ja, desca,
         real_scalar(*beta), c, *ic, *jc, descc);
}

static dmx_scalar cscalar(const float *v)
{
    dmx_scalar s = {v[0], v[1]};
    return s;
}

static dmx_scalar zscalar(const double *v)
{
    dmx_scalar s = {v[0], v[1]};
    return s;
}

void DMX_SCALAPACK_SYM(pctranu_)(const int *m, const int *n, const void *alpha, void *a,
                                 const int *ia, const int *ja, int *desca, const void *beta,
                                 void *c, const int *ic, const int *jc, int *descc)
{
    tran("PCTRANU", SP_C, DMX_OP_T, *m, *n, cscalar(alpha), a, *ia, *ja, desca, cscalar(beta), c,
         *ic, *jc, descc);
}

void DMX_SCALAPACK_SYM(pctranc_)(const int *m, const int *n, const void *alpha, void *a,
                                 const int *ia, const int *ja, int *desca, const void *beta,
                                 void *c, const int *ic, const int *jc, int *descc)
{
    tran("PCTRANC", SP_C, DMX_OP_C, *m, *n, cscalar(alpha), a, *ia, *ja, desca, cscalar(beta), c,
         *ic, *jc, descc);
}

void DMX_SCALAPACK_SYM(pztranu_)(const int *m, const int *n, const void *alpha, void *a,
                                 const int *ia, const int *ja, int *desca, const void *beta,
                                 void *c, const int *ic, const int *jc, int *descc)
{
    tran("PZTRANU", SP_Z, DMX_OP_T, *m, *n, zscalar(alpha), a, *ia, *ja, desca, zscalar(beta), c,
         *ic, *jc, descc);
}

void DMX_SCALAPACK_SYM(pztranc_)(const int *m, const int *n, const void *alpha, void *a,
                                 const int *ia, const int *ja, int *desca, const void *beta,
                                 void *c, const int *ic, const int *jc, int *descc)
{
    tran("PZTRANC", SP_Z, DMX_OP_C, *m, *n, zscalar(alpha), a, *ia, *ja, desca, zscalar(beta), c,
         *ic, *jc, descc);
}

int DMX_SCALAPACK_SYM(dmx_scalapack_get_stats)(dmx_scalapack_stats *out)
{
    if (out == NULL)
        return 1;
    DMXSP_INTERNAL(stats)(out);
    return 0;
}
