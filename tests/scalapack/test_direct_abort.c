/* SPDX-License-Identifier: BSD-3-Clause */
/* A tiny all-local call (src/scalapack/sp_direct.c) with a wrong argument on one process only:
 * a 1 x 1 pdtran_ on a 1 x P grid whose one element sits on process 0, which passes LLD = 0 for
 * the target. The other processes are done with the call (it needs nothing from them); process
 * 0 must print the message and end the job, so the barrier below is never passed.
 *
 * Usage: test_direct_abort   (checked by the test's PASS_REGULAR_EXPRESSION)
 */
#include "dmx/scalapack.h"
#include "sp_test.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, ctxt, nprow, npcol, myrow, mycol;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", 1, np);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int m = 1, n = 1, one = 1;
    int desca[9] = {1, ctxt, 1, 1, 1, 1, 0, 0, 1};
    int descc[9] = {1, ctxt, 1, 1, 1, 1, 0, 0, me == 0 ? 0 : 1};
    double a = 2.0, c = 0.0, alpha = 1.0, beta = 0.0;
    pdtran_(&m, &n, &alpha, &a, &one, &one, desca, &beta, &c, &one, &one, descc);
    if (me == 0)
        printf("check FAIL: the call with LLD = 0 returned\n");
    MPI_Barrier(MPI_COMM_WORLD);
    printf("check FAIL: process %d got past the call\n", me);
    MPI_Finalize();
    return 1;
}
