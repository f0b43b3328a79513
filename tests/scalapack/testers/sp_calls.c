/* SPDX-License-Identifier: BSD-3-Clause */
/* A test-harness aid, not part of dmx: preloaded just before libdmx_scalapack.so, it counts the
 * calls that reach each of the drop-in's entry points (p?gemm_, p?gemr2d_/Cp?gemr2d,
 * p?trmr2d_/Cp?trmr2d, p?tran*_) and hands every call on unchanged to the next definition of the
 * name (dlsym RTLD_NEXT: dmx's when it follows in LD_PRELOAD, else ScaLAPACK's own). At
 * MPI_Finalize the counts are summed over MPI_COMM_WORLD and rank 0 prints one line to stderr:
 *   sp_calls: pdgemm_=120 Cpdgemr2d=8 ...   (or "sp_calls: none")
 * scripts/scalapack_testers.sh reads that line to report which ScaLAPACK testers reach dmx.
 *
 * A call made while another counted call is running (an entry point calling another one
 * through the PLT, e.g. a Fortran name forwarding to its C name) is not counted again, so each
 * count is calls from outside, by the tester or by ScaLAPACK's own routines. Every entry point
 * here takes only pointers and ints, passed through as declared. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
#define NAMES(X)                                                                                   \
    X(psgemm_) X(pdgemm_) X(pcgemm_) X(pzgemm_)                                                    \
    X(pigemr2d_) X(psgemr2d_) X(pdgemr2d_) X(pcgemr2d_) X(pzgemr2d_)                               \
    X(Cpigemr2d) X(Cpsgemr2d) X(Cpdgemr2d) X(Cpcgemr2d) X(Cpzgemr2d)                               \
    X(pitrmr2d_) X(pstrmr2d_) X(pdtrmr2d_) X(pctrmr2d_) X(pztrmr2d_)                               \
    X(Cpitrmr2d) X(Cpstrmr2d) X(Cpdtrmr2d) X(Cpctrmr2d) X(Cpztrmr2d)                               \
    X(pstran_) X(pdtran_) X(pctranu_) X(pctranc_) X(pztranu_) X(pztranc_)
/* clang-format on */

#define ENUM(n) I_##n,
enum { NAMES(ENUM) N_NAMES };
#define STR(n) #n,
static const char *const g_names[N_NAMES] = {NAMES(STR)};

static long long g_count[N_NAMES];
static void *g_next[N_NAMES];
static int g_depth;

/* The next definition of entry i; counts the call unless it is nested in a counted one. */
static void *next_of(int i)
{
    if (!g_next[i]) {
        g_next[i] = dlsym(RTLD_NEXT, g_names[i]);
        if (!g_next[i]) {
            fprintf(stderr, "sp_calls: no next definition of %s\n", g_names[i]);
            abort();
        }
    }
    if (g_depth == 0)
        g_count[i]++;
    return g_next[i];
}

typedef void *P;
typedef void (*f_gemm)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P);
typedef void (*f_fgemr)(P, P, P, P, P, P, P, P, P, P, P);
typedef void (*f_cgemr)(int, int, P, int, int, P, P, int, int, P, int);
typedef void (*f_ftrmr)(P, P, P, P, P, P, P, P, P, P, P, P, P);
typedef void (*f_ctrmr)(P, P, int, int, P, int, int, P, P, int, int, P, int);
typedef void (*f_tran)(P, P, P, P, P, P, P, P, P, P, P, P);

#define GEMM(n)                                                                                    \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12, P a13,       \
           P a14, P a15, P a16, P a17, P a18, P a19);                                              \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12, P a13,       \
           P a14, P a15, P a16, P a17, P a18, P a19)                                               \
    {                                                                                              \
        f_gemm f = (f_gemm)next_of(I_##n);                                                         \
        g_depth++;                                                                                 \
        f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19);   \
        g_depth--;                                                                                 \
    }
#define FGEMR(n)                                                                                   \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11);                    \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11)                     \
    {                                                                                              \
        f_fgemr f = (f_fgemr)next_of(I_##n);                                                       \
        g_depth++;                                                                                 \
        f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);                                           \
        g_depth--;                                                                                 \
    }
#define CGEMR(n)                                                                                   \
    void n(int m, int nn, P a, int ia, int ja, P da, P b, int ib, int jb, P db, int ctxt);         \
    void n(int m, int nn, P a, int ia, int ja, P da, P b, int ib, int jb, P db, int ctxt)          \
    {                                                                                              \
        f_cgemr f = (f_cgemr)next_of(I_##n);                                                       \
        g_depth++;                                                                                 \
        f(m, nn, a, ia, ja, da, b, ib, jb, db, ctxt);                                              \
        g_depth--;                                                                                 \
    }
#define FTRMR(n)                                                                                   \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12, P a13);      \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12, P a13)       \
    {                                                                                              \
        f_ftrmr f = (f_ftrmr)next_of(I_##n);                                                       \
        g_depth++;                                                                                 \
        f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13);                                 \
        g_depth--;                                                                                 \
    }
#define CTRMR(n)                                                                                   \
    void n(P up, P dg, int m, int nn, P a, int ia, int ja, P da, P b, int ib, int jb, P db,        \
           int ctxt);                                                                              \
    void n(P up, P dg, int m, int nn, P a, int ia, int ja, P da, P b, int ib, int jb, P db,        \
           int ctxt)                                                                               \
    {                                                                                              \
        f_ctrmr f = (f_ctrmr)next_of(I_##n);                                                       \
        g_depth++;                                                                                 \
        f(up, dg, m, nn, a, ia, ja, da, b, ib, jb, db, ctxt);                                      \
        g_depth--;                                                                                 \
    }
#define TRAN(n)                                                                                    \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12);             \
    void n(P a1, P a2, P a3, P a4, P a5, P a6, P a7, P a8, P a9, P a10, P a11, P a12)              \
    {                                                                                              \
        f_tran f = (f_tran)next_of(I_##n);                                                         \
        g_depth++;                                                                                 \
        f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);                                      \
        g_depth--;                                                                                 \
    }

/* clang-format off */
GEMM(psgemm_) GEMM(pdgemm_) GEMM(pcgemm_) GEMM(pzgemm_)
FGEMR(pigemr2d_) FGEMR(psgemr2d_) FGEMR(pdgemr2d_) FGEMR(pcgemr2d_) FGEMR(pzgemr2d_)
CGEMR(Cpigemr2d) CGEMR(Cpsgemr2d) CGEMR(Cpdgemr2d) CGEMR(Cpcgemr2d) CGEMR(Cpzgemr2d)
FTRMR(pitrmr2d_) FTRMR(pstrmr2d_) FTRMR(pdtrmr2d_) FTRMR(pctrmr2d_) FTRMR(pztrmr2d_)
CTRMR(Cpitrmr2d) CTRMR(Cpstrmr2d) CTRMR(Cpdtrmr2d) CTRMR(Cpctrmr2d) CTRMR(Cpztrmr2d)
TRAN(pstran_) TRAN(pdtran_) TRAN(pctranu_) TRAN(pctranc_) TRAN(pztranu_) TRAN(pztranc_)
    /* clang-format on */

    int MPI_Finalize(void)
{
    long long sum[N_NAMES];
    int rank = 0;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS &&
        PMPI_Reduce(g_count, sum, N_NAMES, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD) ==
            MPI_SUCCESS &&
        rank == 0) {
        char line[2048] = "sp_calls:";
        size_t len = strlen(line);
        for (int i = 0; i < N_NAMES; i++)
            if (sum[i] > 0 && len < sizeof line - 64)
                len +=
                    (size_t)snprintf(line + len, sizeof line - len, " %s=%lld", g_names[i], sum[i]);
        fprintf(stderr, "%s\n", len == strlen("sp_calls:") ? "sp_calls: none" : line);
        fflush(stderr);
    }
    return PMPI_Finalize();
}
