/* SPDX-License-Identifier: BSD-3-Clause */
/* Cpdgemr2d called the way ScaLAPACK's REDIST test drivers (xdgemr with GEMR2D.dat) call it,
 * through the exported names (dmx linked before libscalapack-openmpi).
 *
 * Debian ships no REDIST drivers, so this program reproduces their calling pattern: a global
 * context is a "R" nprocs x 1 grid; per test two "R" grids p0 x q0 and p1 x q1 (processes beyond
 * them get context -1); rank 0 reads the parameters and so never sets DTYPE in its descriptors
 * (here: garbage), the other ranks set it to 1; LLD is exactly the local row count; processes
 * outside a grid pass a descriptor whose other fields and whose array pointer are never set
 * (here: garbage and a guarded dummy). Each test moves sub(A) from grid 0 to grid 1 and back, as
 * the drivers do, and checks against a serial reference: after the first call every element of
 * grid 1's array is the formula value of its source element or (outside sub(B)) untouched, after
 * the second grid 0's fresh array holds sub(A) again and nothing else.
 *
 * Usage: test_redist_drv (no arguments).
 */
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <string.h>

static int me, np;

/* m n | M0 N0 sr0 sc0 ia ja p0 q0 mb0 nb0 | M1 N1 sr1 sc1 ib jb p1 q1 mb1 nb1 */
static const int tests[][22] = {
    {40, 40, 40, 40, 0, 0, 1, 1, 1, 4, 3, 6, 40, 40, 0, 0, 1, 1, 2, 2, 5, 3},
    {37, 29, 40, 33, 1, 0, 3, 4, 2, 2, 4, 5, 45, 30, 0, 1, 8, 2, 1, 3, 7, 2},
    {50, 20, 60, 20, 0, 0, 11, 1, 4, 1, 7, 9, 50, 25, 2, 0, 1, 6, 3, 1, 4, 9},
    {25, 31, 25, 31, 1, 1, 1, 1, 2, 2, 6, 3, 30, 40, 0, 2, 6, 10, 1, 3, 1, 1},
    {64, 64, 64, 64, 0, 0, 1, 1, 2, 2, 64, 64, 64, 64, 0, 0, 1, 1, 1, 4, 8, 16},
    {3, 5, 3, 5, 0, 0, 1, 1, 2, 1, 4, 2, 7, 5, 1, 0, 5, 1, 2, 2, 1, 1},    /* empty process row */
    {12, 9, 20, 9, 0, 0, 9, 1, 2, 2, 5, 5, 12, 9, 0, 0, 1, 1, 1, 1, 2, 2}, /* grid 1 is 1 x 1 */
    {31, 17, 31, 17, 0, 0, 1, 1, 1, 2, 1, 17, 31, 17, 0, 0, 1, 1, 2, 1, 31, 1},
};

static double value(int gi, int gj)
{
    return 1000.0 * gi + gj + 0.25;
}

int main(int argc, char **argv)
{
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    Cblacs_pinfo(&me, &np);
    int gctx;
    Cblacs_get(0, 0, &gctx);
    Cblacs_gridinit(&gctx, "R", np, 1);
    dmxt_count count = {0, 0};
    double dummy[4] = {-7.0, -7.0, -7.0, -7.0};

    const int ntests = (int)(sizeof tests / sizeof tests[0]);
    for (int t = 0; t < ntests; t++) {
        const int *q = tests[t];
        int m = q[0], n = q[1];
        int p0 = q[8], q0 = q[9], p1 = q[18], q1 = q[19];
        if (p0 * q0 > np || p1 * q1 > np)
            continue;
        int ia = q[6], ja = q[7], ib = q[16], jb = q[17];
        int c0, c1, r0, k0, r1, k1, d;
        Cblacs_get(0, 0, &c0);
        Cblacs_gridinit(&c0, "R", p0, q0);
        Cblacs_get(0, 0, &c1);
        Cblacs_gridinit(&c1, "R", p1, q1);
        Cblacs_gridinfo(c0, &d, &d, &r0, &k0);
        Cblacs_gridinfo(c1, &d, &d, &r1, &k1);
        int in0 = r0 >= 0 && r0 < p0 && k0 >= 0 && k0 < q0;
        int in1 = r1 >= 0 && r1 < p1 && k1 >= 0 && k1 < q1;

        /* descriptors as the drivers fill them: everything but DTYPE on rank 0 */
        int desca[9], descb[9];
        for (int k = 0; k < 9; k++)
            desca[k] = descb[k] = 0x5EED0000 + 17 * k + me; /* "never set" */
        if (me != 0)
            desca[0] = descb[0] = 1;
        desca[1] = in0 ? c0 : -1;
        descb[1] = in1 ? c1 : -1;
        int64_t lr0 = 0, lc0 = 0, lr1 = 0, lc1 = 0;
        if (in0) {
            desca[2] = q[2];
            desca[3] = q[3];
            desca[4] = q[10];
            desca[5] = q[11];
            desca[6] = q[4];
            desca[7] = q[5];
            lr0 = dmxt_numroc(q[2], q[10], r0, q[4], p0);
            lc0 = dmxt_numroc(q[3], q[11], k0, q[5], q0);
            desca[8] = (int)lr0; /* the drivers' LLD: the local row count, even 0 */
        }
        if (in1) {
            descb[2] = q[12];
            descb[3] = q[13];
            descb[4] = q[20];
            descb[5] = q[21];
            descb[6] = q[14];
            descb[7] = q[15];
            lr1 = dmxt_numroc(q[12], q[20], r1, q[14], p1);
            lc1 = dmxt_numroc(q[13], q[21], k1, q[15], q1);
            descb[8] = (int)lr1;
        }
        size_t na = (size_t)(lr0 * lc0), nb = (size_t)(lr1 * lc1);
        double *a = in0 ? malloc((na ? na : 1) * sizeof *a) : dummy;
        double *back = in0 ? malloc((na ? na : 1) * sizeof *back) : dummy;
        double *b = in1 ? malloc((nb ? nb : 1) * sizeof *b) : dummy;
        if ((in0 && (a == NULL || back == NULL)) || (in1 && b == NULL)) {
            fprintf(stderr, "test_redist_drv: out of memory\n");
            dmxt_flush_before_abort();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (int64_t c = 0; c < lc0; c++)
            for (int64_t r = 0; r < lr0; r++) {
                int gi = (int)dmxt_indxl2g(r, q[10], r0, q[4], p0);
                int gj = (int)dmxt_indxl2g(c, q[11], k0, q[5], q0);
                a[r + c * lr0] = value(gi, gj);
                back[r + c * lr0] = -1.0;
            }
        for (size_t k = 0; k < nb; k++)
            b[k] = -2.0;

        Cpdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, gctx);
        long bad = 0;
        for (int64_t c = 0; c < lc1; c++)
            for (int64_t r = 0; r < lr1; r++) {
                int gi = (int)dmxt_indxl2g(r, q[20], r1, q[14], p1) - (ib - 1);
                int gj = (int)dmxt_indxl2g(c, q[21], k1, q[15], q1) - (jb - 1);
                int inside = gi >= 0 && gj >= 0 && gi < m && gj < n;
                double want = inside ? value(gi + ia - 1, gj + ja - 1) : -2.0;
                bad += b[r + c * lr1] != want;
            }
        Cpdgemr2d(m, n, b, ib, jb, descb, back, ia, ja, desca, gctx);
        for (int64_t c = 0; c < lc0; c++)
            for (int64_t r = 0; r < lr0; r++) {
                int gi = (int)dmxt_indxl2g(r, q[10], r0, q[4], p0) - (ia - 1);
                int gj = (int)dmxt_indxl2g(c, q[11], k0, q[5], q0) - (ja - 1);
                int inside = gi >= 0 && gj >= 0 && gi < m && gj < n;
                bad += back[r + c * lr0] != (inside ? a[r + c * lr0] : -1.0);
            }
        for (int k = 0; k < 4; k++)
            bad += dummy[k] != -7.0;
        long total = 0;
        SPT_CHECK_MPI(MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        if (me == 0)
            DMXT_EXPECT(&count, total == 0, "test %d: %ld wrong elements", t, total);
        if (in0) {
            free(a);
            free(back);
            Cblacs_gridexit(c0);
        }
        if (in1) {
            free(b);
            Cblacs_gridexit(c1);
        }
    }
    /* the calls must have gone to dmx */
    dmx_scalapack_stats st;
    dmx_scalapack_get_stats(&st);
    long calls = (long)st.calls, all = 0;
    SPT_CHECK_MPI(MPI_Allreduce(&calls, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0) {
        DMXT_EXPECT(&count, all > 0, "no call reached dmx");
        dmxt_count_print(&count);
    }
    int rc = me == 0 ? dmxt_count_exit_code(&count) : 0;
    SPT_CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
    Cblacs_gridexit(gctx);
    SPT_CHECK_MPI(MPI_Finalize());
    return rc;
}
