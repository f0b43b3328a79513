/* SPDX-License-Identifier: BSD-3-Clause */
/* One illegal argument to one ScaLAPACK entry point, on 2 or more processes: the job must end
 * with a message naming the routine, within the test's timeout (no process left waiting). Built
 * twice: linked with libdmx_scalapack first (dmx's entry points) and with Debian's ScaLAPACK
 * alone, so the two messages can be set side by side (the test's PASS_REGULAR_EXPRESSION).
 *
 * Usage: test_sp_illegal CASE, CASE one of
 *   gemr2d-sub    Cpdgemr2d, a submatrix past the matrix's last row
 *   gemr2d-src    pzgemr2d_ (Fortran), RSRC of B outside the grid
 *   trmr2d-sub    Cpstrmr2d, a submatrix past the matrix's last column
 *   tran-dtype    pdtran_, DTYPE 3 in C's descriptor
 *   tranc-src11   pctranc_, an 11-integer descriptor of A with RSRC outside the grid
 *   gemm-trans    pdgemm_, TRANSA = 'X'
 *   gemm-lld1     pzgemm_, LLD of C = 0 on process 0 only (the others have legal arguments)
 *   gemm-lld1-one pzgemm_ with every operand in one block of process 0 (the drop-in then
 *                 multiplies there alone and the others return at once, with no message), LLD
 *                 of C = 0 on process 0 only
 *   gemm-overlap-one (dmx build only) pdgemm_ with every operand in one block of process 0 and
 *                 sub(C) = A(2:3, 2:3) of the array that holds sub(A) = A(1:2, 1:2): ScaLAPACK
 *                 leaves that undefined, dmx must end the job with its message
 *   gemm-stats    (dmx build only) legal pdgemm_ calls: the product checked against a serial one,
 *                 and dmx_scalapack_get_stats counting the multiply and the scaling, not the
 *                 quick return; prints "gemm-stats OK"
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "sp_test.h"
#ifdef SPT_DMX
#include "dmx/scalapack.h"
#endif

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Every abort of this test goes through here (ScaLAPACK's Cblacs_abort and dmx's default handler
 * call MPI_Abort): MPICH's launcher may drop output still in flight from the ranks when one
 * aborts (scalapack_illegal_real_gemm-trans lost ScaLAPACK's "Illegal TRANSA" line under
 * MPICH), so the message is flushed and given a second before the job ends, as core_nohang
 * does. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    fflush(stdout);
    fflush(stderr);
    nanosleep(&(struct timespec){1, 0}, NULL);
    return PMPI_Abort(comm, errorcode);
}

void pzgemr2d_(const int *m, const int *n, void *a, const int *ia, const int *ja, int *desca,
               void *b, const int *ib, const int *jb, int *descb, const int *ictxt);
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb,
               int *descb, int ictxt);
void Cpstrmr2d(const char *uplo, const char *diag, int m, int n, float *a, int ia, int ja,
               int *desca, float *b, int ib, int jb, int *descb, int ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, double *a, const int *ia,
             const int *ja, int *desca, const double *beta, double *c, const int *ic, const int *jc,
             int *descc);
void pctranc_(const int *m, const int *n, const void *alpha, void *a, const int *ia, const int *ja,
              int *desca, const void *beta, void *c, const int *ic, const int *jc, int *descc);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, double *a, const int *ia, const int *ja, const int *desca,
             double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);
void pzgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, double *a, const int *ia, const int *ja, const int *desca,
             double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);

#ifdef SPT_DMX
/* gemm-stats on the 1 x np grid of 4 x 4 matrices in 1 x 1 blocks (global column j is local
 * column j / np of process j % np). Returns the number of failed checks on this process. */
static int gemm_stats(int ctxt, int np, int mycol)
{
    static double a[16], b[16], c[16];
    int d[9] = {1, ctxt, 4, 4, 1, 1, 0, 0, 4}, bad = 0;
    const int zero = 0, one = 1, four = 4;
    for (int j = mycol; j < 4; j += np)
        for (int i = 0; i < 4; i++) {
            a[i + 4 * (j / np)] = i + 10 * j;
            b[i + 4 * (j / np)] = i - j + 1;
            c[i + 4 * (j / np)] = 1;
        }
    dmx_scalapack_stats s0, s1, s2, s3;
    dmx_scalapack_get_stats(&s0);
    const double al = 2, be = 3, al0 = 0;
    pdgemm_("N", "T", &four, &four, &four, &al, a, &one, &one, d, b, &one, &one, d, &be, c, &one,
            &one, d); /* C = 2 A B^T + 3 */
    dmx_scalapack_get_stats(&s1);
    pdgemm_("N", "N", &zero, &four, &four, &al, a, &one, &one, d, b, &one, &one, d, &be, c, &one,
            &one, d); /* quick return */
    dmx_scalapack_get_stats(&s2);
    pdgemm_("N", "N", &four, &four, &four, &al0, a, &one, &one, d, b, &one, &one, d, &be, c, &one,
            &one, d); /* C = 3 C */
    dmx_scalapack_get_stats(&s3);
    for (int j = mycol; j < 4; j += np)
        for (int i = 0; i < 4; i++) {
            double want = 3;
            for (int l = 0; l < 4; l++)
                want += 2.0 * (i + 10 * l) * (j - l + 1); /* B^T(l, j) = B(j, l) = j - l + 1 */
            want *= 3;
            if (c[i + 4 * (j / np)] != want) {
                printf("check FAIL: C(%d, %d) = %g, want %g\n", i, j, c[i + 4 * (j / np)], want);
                bad++;
            }
        }
    const int64_t g[3] = {s1.gemm_calls - s0.gemm_calls, s2.gemm_calls - s1.gemm_calls,
                          s3.gemm_calls - s2.gemm_calls};
    if (g[0] != 1 || g[1] != 0 || g[2] != 1 || s3.calls - s0.calls != 2) {
        printf("check FAIL: gemm_calls +%lld +%lld +%lld (want 1 0 1), calls +%lld (want 2)\n",
               (long long)g[0], (long long)g[1], (long long)g[2], (long long)(s3.calls - s0.calls));
        bad++;
    }
    return bad;
}
#endif

int main(int argc, char **argv)
{
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    const char *cs = argc > 1 ? argv[1] : "";
    int me, np, ctxt, nprow, npcol, myrow, mycol;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", 1, np); /* 1 x P: every process holds 4 x (4 / P or so) */
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    static double a[64], b[64], c[64]; /* 4 x 4 matrices in 1 x 1 blocks: LLD 4 everywhere */
    int d[9] = {1, ctxt, 4, 4, 1, 1, 0, 0, 4}, e[9], f[9];
    memcpy(e, d, sizeof d);
    memcpy(f, d, sizeof d);
    int d11[11] = {2, ctxt, 4, 4, 1, 1, 1, 1, 0, 0, 4};
    const int one = 1, two = 2, four = 4;
    const double al[2] = {1, 0}, be[2] = {0, 0};
    const float fal[2] = {1, 0}, fbe[2] = {0, 0};
    if (strcmp(cs, "gemr2d-sub") == 0) {
        Cpdgemr2d(4, 4, a, 2, 1, d, b, 1, 1, e, ctxt);
    } else if (strcmp(cs, "gemr2d-src") == 0) {
        e[6] = nprow;
        pzgemr2d_(&four, &four, a, &one, &one, d, b, &one, &one, e, &ctxt);
    } else if (strcmp(cs, "trmr2d-sub") == 0) {
        /* cppcheck-suppress invalidPointerCast ; the call is refused before any element is read */
        Cpstrmr2d("U", "N", 4, 4, (float *)a, 1, 1, d, (float *)b, 1, 2, e, ctxt);
    } else if (strcmp(cs, "tran-dtype") == 0) {
        e[0] = 3;
        pdtran_(&four, &four, al, a, &one, &one, d, be, c, &one, &one, e);
    } else if (strcmp(cs, "tranc-src11") == 0) {
        d11[8] = nprow;
        /* cppcheck-suppress invalidPointerCast ; the call is refused before any element is read */
        pctranc_(&four, &four, fal, (float *)a, &one, &one, d11, fbe, (float *)c, &one, &one, e);
    } else if (strcmp(cs, "gemm-trans") == 0) {
        pdgemm_("X", "N", &four, &four, &four, al, a, &one, &one, d, b, &one, &one, e, be, c, &one,
                &one, f);
    } else if (strcmp(cs, "gemm-lld1-one") == 0) {
        for (int i = 0; i < 9; i++)
            d[i] = e[i] = f[i] = (int[9]){1, ctxt, 4, 4, 4, 4, 0, 0, 4}[i];
        f[8] = me == 0 ? 0 : 4;
        pzgemm_("N", "N", &two, &two, &two, al, a, &one, &one, d, b, &one, &one, e, be, c, &one,
                &one, f);
#ifdef SPT_DMX
    } else if (strcmp(cs, "gemm-overlap-one") == 0) {
        for (int i = 0; i < 9; i++)
            d[i] = e[i] = (int[9]){1, ctxt, 4, 4, 4, 4, 0, 0, 4}[i];
        pdgemm_("N", "N", &two, &two, &two, al, a, &one, &one, d, b, &one, &one, e, be, a, &two,
                &two, d);
#endif
    } else if (strcmp(cs, "gemm-lld1") == 0) {
        f[8] = me == 0 ? 0 : 4;
        pzgemm_("N", "N", &two, &two, &two, al, a, &one, &one, d, b, &one, &one, e, be, c, &one,
                &one, f);
#ifdef SPT_DMX
    } else if (strcmp(cs, "gemm-stats") == 0) {
        int bad = gemm_stats(ctxt, np, mycol), sum = 0;
        SPT_CHECK_MPI(MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (me == 0 && sum == 0)
            printf("gemm-stats OK\n");
        MPI_Finalize();
        return sum != 0;
#endif
    } else {
        fprintf(stderr, "test_sp_illegal: unknown case '%s'\n", cs);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* gemm-lld1, gemm-lld1-one and gemm-overlap-one: the processes other than 0 return (after
     * gemm-lld1 they know that process 0 did not; after the -one cases they have nothing to do) */
    if ((strcmp(cs, "gemm-lld1") != 0 && strcmp(cs, "gemm-lld1-one") != 0 &&
         strcmp(cs, "gemm-overlap-one") != 0) ||
        me == 0)
        printf("check FAIL: process %d returned from the illegal call (%s)\n", me, cs);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 1;
}
