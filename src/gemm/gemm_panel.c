/* SPDX-License-Identifier: BSD-3-Clause */
/* What SUMMA and hierarchical SUMMA share: the panels of k (cuts common to A's and B's splits
 * and the part holding an index) and the counted panel broadcast. A leaf under the algorithm
 * files, so they do not call back into the plan (gemm_plan.c) that calls them. */
#include "dmx/gemm.h"
#include "gemm_internal.h"

int dmxi_gemm_part(const int64_t *x, int nparts, int64_t i)
{
    int lo = 0, hi = nparts - 1;
    while (lo < hi) { /* last part with x[part] <= i that is nonempty */
        int mid = (lo + hi + 1) / 2;
        if (x[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo < nparts - 1 && x[lo + 1] <= i)
        lo++;
    while (lo > 0 && x[lo] > i)
        lo--;
    return lo;
}

dmx_status dmxi_gemm_cuts(const int64_t *x, int nx, const int64_t *y, int ny, int64_t **cuts,
                          int *n)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *c = dmxi_malloc(nx + ny + 2, sizeof(int64_t));
    DMXI_CHECK(c != NULL, DMX_ERR_ALLOC, "out of memory for panel cuts");
    int i = 0, j = 0, k = 0;
    while (i <= nx || j <= ny) {
        int64_t v = (j > ny || (i <= nx && x[i] <= y[j])) ? x[i] : y[j];
        if (i <= nx && x[i] == v)
            i++;
        if (j <= ny && y[j] == v)
            j++;
        if (k == 0 || c[k - 1] != v)
            c[k++] = v;
    }
    *cuts = c;
    *n = k - 1;
cleanup:
    return st;
}

dmx_status dmxi_gemm_bcast_start(dmx_gemm_plan *g, void *buf, int64_t count, int root,
                                 MPI_Comm comm, MPI_Request *req)
{
    dmx_status st = DMX_SUCCESS;
    int size = 1, cnt = 0;
    *req = MPI_REQUEST_NULL;
    DMXI_MPI(MPI_Comm_size(comm, &size));
    if (size < 2)
        goto cleanup;
    g->info.bcasts++;
    g->info.bcast_bytes += count * (int64_t)g->esz;
    if (g->overlap) {
        DMXI_TRY(dmxi_to_int(count, &cnt, "panel broadcast count"));
        DMXI_MPI(MPI_Ibcast(buf, cnt, dmxi_gemm_mpi_type(g->dtype), root, comm, req));
    } else {
        DMXI_TRY(
            dmx_coll_bcast(buf, count, dmxi_gemm_mpi_type(g->dtype), root, comm, DMX_COLL_AUTO));
    }
cleanup:
    return st;
}
