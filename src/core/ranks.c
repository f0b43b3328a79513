/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank translation between communicators of the same processes, and the node split: the one
 * home of what the planner (a layout's ranks as plan ranks), the engine (node peers) and
 * relabeling (node numbers for the node-aware cost) each did for themselves.
 * Cost: dmxi_translate_ranks is local, O(n) time and memory (two groups); dmxi_node_split is
 * one MPI_Comm_split_type (collective). */
#include "dmxi.h"

dmx_status dmxi_translate_ranks(MPI_Comm from, MPI_Comm to, int n, int *out)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Group gf = MPI_GROUP_NULL, gt = MPI_GROUP_NULL;
    int *idx = dmxi_malloc(n, sizeof *idx);
    DMXI_CHECK(idx, DMX_ERR_ALLOC, "out of memory");
    for (int k = 0; k < n; k++)
        idx[k] = k;
    DMXI_MPI(MPI_Comm_group(from, &gf));
    DMXI_MPI(MPI_Comm_group(to, &gt));
    DMXI_MPI(MPI_Group_translate_ranks(gf, n, idx, gt, out));
cleanup:
    if (gf != MPI_GROUP_NULL)
        DMXI_MPI_ALL(MPI_Group_free(&gf));
    if (gt != MPI_GROUP_NULL)
        DMXI_MPI_ALL(MPI_Group_free(&gt));
    free(idx);
    return st;
}

dmx_status dmxi_node_split(MPI_Comm comm, MPI_Comm *node)
{
    dmx_status st = DMX_SUCCESS;
    int rank = 0;
    *node = MPI_COMM_NULL;
    DMXI_MPI(MPI_Comm_rank(comm, &rank));
    DMXI_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node));
    int n = 1;
    DMXI_MPI(MPI_Comm_size(*node, &n));
    dmxi_threads_node_ranks(n); /* caps dmxi_threads where the node's ranks share its CPUs */
cleanup:
    return st;
}
