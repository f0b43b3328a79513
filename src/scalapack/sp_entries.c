/* SPDX-License-Identifier: BSD-3-Clause */
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
    dmxsp_run(&c);
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
    dmxsp_run(&k);
}

/* Scalars of p?tran*: real types pass one number, complex types two. */
static dmx_scalar scalar_s(const float *v)
{
    return real_scalar(*v);
}
static dmx_scalar scalar_d(const double *v)
{
    return real_scalar(*v);
}
static dmx_scalar scalar_c(const void *v)
{
    const float *f = v;
    dmx_scalar s = {f[0], f[1]};
    return s;
}
static dmx_scalar scalar_z(const void *v)
{
    const double *d = v;
    dmx_scalar s = {d[0], d[1]};
    return s;
}

/* One p?tran* entry point (Fortran convention only): p<ch>tran<suffix>_, op T or C. */
#define SP_DEFINE_TRAN(ch, T, TYPE, UPNAME, suffix, UPSUFFIX, OP)                                  \
    void DMX_SCALAPACK_SYM(p##ch##tran##suffix##_)(                                                \
        const int *m, const int *n, const T *alpha, T *a, const int *ia, const int *ja,            \
        int *desca, const T *beta, T *c, const int *ic, const int *jc, int *descc)                 \
    {                                                                                              \
        tran("P" UPNAME "TRAN" UPSUFFIX, TYPE, OP, *m, *n, scalar_##ch(alpha), a, *ia, *ja, desca, \
             scalar_##ch(beta), c, *ic, *jc, descc);                                               \
    }

/* Every entry point of one element type: p?gemr2d and p?trmr2d in both conventions, then the
 * type's p?tran* list (TRANS: SP_DEFINE_TRAN lines, empty for integers). */
#define SP_DEFINE_ENTRIES(ch, T, TYPE, UPNAME, TRANS)                                              \
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
    }                                                                                              \
    TRANS

SP_DEFINE_ENTRIES(i, int, SP_I, "I", /* no p?tran for integers */)
SP_DEFINE_ENTRIES(s, float, SP_S, "S", SP_DEFINE_TRAN(s, float, SP_S, "S", , "", DMX_OP_T))
SP_DEFINE_ENTRIES(d, double, SP_D, "D", SP_DEFINE_TRAN(d, double, SP_D, "D", , "", DMX_OP_T))
SP_DEFINE_ENTRIES(c, void, SP_C, "C",
                  SP_DEFINE_TRAN(c, void, SP_C, "C", u, "U", DMX_OP_T)
                      SP_DEFINE_TRAN(c, void, SP_C, "C", c, "C", DMX_OP_C))
SP_DEFINE_ENTRIES(z, void, SP_Z, "Z",
                  SP_DEFINE_TRAN(z, void, SP_Z, "Z", u, "U", DMX_OP_T)
                      SP_DEFINE_TRAN(z, void, SP_Z, "Z", c, "C", DMX_OP_C))

int DMX_SCALAPACK_SYM(dmx_scalapack_get_stats)(dmx_scalapack_stats *out)
{
    if (out == NULL)
        return 1;
    dmxsp_stats(out);
    return 0;
}
