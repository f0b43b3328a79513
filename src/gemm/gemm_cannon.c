/* SPDX-License-Identifier: BSD-3-Clause */
/* Cannon's algorithm (Cannon, 1969) on a q x q grid, q = floor(sqrt(p)).
 *
 * Algorithm
 *   m, n and k are each split into q near-equal parts. The plan's redistribution places the
 *   blocks already skewed: rank (i, j) starts with A(i, (i+j) mod q) and B((i+j) mod q, j), so
 *   the preskew costs no separate step. Then q steps: rank (i, j) multiplies its two blocks into
 *   C(i, j), sends its A block to (i, j-1) and its B block to (i-1, j), and receives the next
 *   ones from (i, j+1) and (i+1, j) (all mod q). The next step's shifts (MPI_Irecv/MPI_Isend on
 *   the row and column communicators) are started before the multiply, into second buffers,
 *   so they run under it; there is no shift after the last step.
 *
 * Preconditions: ranks beyond q*q sit idle (own no blocks).
 *
 * Cost (n x n x n, p = q^2): q - 1 rounds of two shifts of n^2/p elements:
 *   2 (q-1) (alpha + n^2/p beta)  +  2 n^3/p gamma, the shifts hidden under the multiplies as far
 *   as they are shorter; plus the redistribution that skews A and B (not modelled here).
 * Messages per rank: 2 (q-1) sends. Temporary memory: two A blocks (m/q x ceil(k/q)) and two B
 *   blocks (ceil(k/q) x n/q), the first pair being the redistributed operands. */
#include "dmx/gemm.h"
#include "gemm_internal.h"

dmx_status dmxi_gemm_cannon(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    *updated = 0;
    if (g->myr < 0)
        goto cleanup;
    int q = g->pr, i = g->myr, j = g->myc;
    MPI_Datatype t = dmxi_gemm_mpi_type(g->dtype);
    int64_t ml = g->rows[i + 1] - g->rows[i], nl = g->cols[j + 1] - g->cols[j];
    void *abuf[2] = {g->a, g->work[0]}, *bbuf[2] = {g->b, g->work[2]};
    const int steps = (int)dmxi_gemm_sim_panels(q); /* q, or a simulation's first K */
    for (int s = 0; s < steps; s++) {
        int cur = s % 2, kx = (i + j + s) % q, kn = (i + j + s + 1) % q;
        int64_t w = g->ka[kx + 1] - g->ka[kx], wn = g->ka[kn + 1] - g->ka[kn];
        if (s + 1 < steps) {
            int ca, cb, na, nb;
            DMXI_TRY(dmxi_to_int(ml * w, &ca, "Cannon's A block"));
            DMXI_TRY(dmxi_to_int(w * nl, &cb, "Cannon's B block"));
            DMXI_TRY(dmxi_to_int(ml * wn, &na, "Cannon's A block"));
            DMXI_TRY(dmxi_to_int(wn * nl, &nb, "Cannon's B block"));
            DMXI_MPI(MPI_Irecv(abuf[1 - cur], na, t, (j + 1) % q, 1, g->row, &req[0]));
            DMXI_MPI(MPI_Irecv(bbuf[1 - cur], nb, t, (i + 1) % q, 2, g->col, &req[1]));
            DMXI_MPI(MPI_Isend(abuf[cur], ca, t, (j - 1 + q) % q, 1, g->row, &req[2]));
            DMXI_MPI(MPI_Isend(bbuf[cur], cb, t, (i - 1 + q) % q, 2, g->col, &req[3]));
            g->info.shifts += 2;
            g->info.shift_bytes += (ca + (int64_t)cb) * (int64_t)g->esz;
        }
        if (w > 0) { /* k < q leaves some k blocks empty */
            dmxi_gemm_local(g->dtype, ml, nl, w, g->alpha, abuf[cur], ml > 0 ? ml : 1, bbuf[cur], w,
                            *updated ? (dmx_scalar){1.0, 0.0} : first_beta, g->c, g->ldc);
            g->info.local_gemms += ml > 0 && nl > 0;
            *updated = 1;
        }
        DMXI_MPI(dmxi_waitall(4, req));
    }
cleanup:
    if (st != DMX_SUCCESS)
        dmxi_waitall(4, req);
    return st;
}
