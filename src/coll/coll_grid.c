/* SPDX-License-Identifier: BSD-3-Clause */
/* The public 2D process grid (dmx_grid): a prow x pcol arrangement of a communicator's ranks
 * with one communicator per grid row and per grid column, for row and column collectives. */
#include "coll_internal.h"

#include <ctype.h>

struct dmx_grid {
    MPI_Comm dup;      /* duplicate of the user's communicator */
    MPI_Comm row, col; /* MPI_COMM_NULL outside the grid */
    int prow, pcol, myrow, mycol;
};

dmx_status dmx_grid_create(MPI_Comm comm, int prow, int pcol, char order, dmx_grid **grid)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    dmx_grid *g = NULL;
    int rank = 0, size = 0;
    DMXI_CHECK(grid != NULL, DMX_ERR_NULL, "grid is NULL");
    *grid = NULL;
    DMXI_CHECK(comm != MPI_COMM_NULL, DMX_ERR_ARG, "communicator is MPI_COMM_NULL");
    g = calloc(1, sizeof *g);
    DMXI_CHECK(g != NULL, DMX_ERR_ALLOC, "out of memory (grid)");
    g->dup = g->row = g->col = MPI_COMM_NULL;
    DMXI_MPI(MPI_Comm_dup(comm, &g->dup));
    DMXI_MPI(MPI_Comm_set_errhandler(g->dup, MPI_ERRORS_RETURN));
    DMXI_MPI(MPI_Comm_rank(g->dup, &rank));
    DMXI_MPI(MPI_Comm_size(g->dup, &size));
    char o = (char)toupper((unsigned char)order);
    if (prow < 1 || pcol < 1 || (int64_t)prow * pcol > size)
        local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__, "grid %d x %d does not fit %d ranks",
                           prow, pcol, size);
    else if (o != 'R' && o != 'C')
        local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__, "grid order must be 'R' or 'C'");
    DMXI_TRY(dmxi_agree(g->dup, local));
    g->prow = prow;
    g->pcol = pcol;
    g->myrow = g->mycol = -1;
    if (rank < prow * pcol) {
        g->myrow = o == 'R' ? rank / pcol : rank % prow;
        g->mycol = o == 'R' ? rank % pcol : rank / prow;
    }
    int in = g->myrow >= 0;
    DMXI_MPI(MPI_Comm_split(g->dup, in ? g->myrow : MPI_UNDEFINED, g->mycol, &g->row));
    DMXI_MPI(MPI_Comm_split(g->dup, in ? g->mycol : MPI_UNDEFINED, g->myrow, &g->col));
    *grid = g;
    g = NULL;
cleanup:
    if (g) {
        if (g->row != MPI_COMM_NULL)
            DMXI_MPI_ALL(MPI_Comm_free(&g->row));
        if (g->col != MPI_COMM_NULL)
            DMXI_MPI_ALL(MPI_Comm_free(&g->col));
        if (g->dup != MPI_COMM_NULL)
            DMXI_MPI_ALL(MPI_Comm_free(&g->dup));
        free(g);
    }
    return st;
}

dmx_status dmx_grid_destroy(dmx_grid **grid)
{
    dmx_status st = DMX_SUCCESS;
    if (grid == NULL || *grid == NULL)
        goto cleanup;
    dmx_grid *g = *grid;
    *grid = NULL;
    /* every free is made even after a failure (they are collective: skipping one on one rank
     * would leave the others waiting); the first failure is returned */
    if (g->row != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&g->row));
    if (g->col != MPI_COMM_NULL)
        DMXI_MPI_ALL(MPI_Comm_free(&g->col));
    DMXI_MPI_ALL(MPI_Comm_free(&g->dup));
    free(g);
cleanup:
    return st;
}

dmx_status dmx_grid_coords(const dmx_grid *grid, int *prow, int *pcol, int *myrow, int *mycol)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(grid != NULL, DMX_ERR_NULL, "grid is NULL");
    if (prow)
        *prow = grid->prow;
    if (pcol)
        *pcol = grid->pcol;
    if (myrow)
        *myrow = grid->myrow;
    if (mycol)
        *mycol = grid->mycol;
cleanup:
    return st;
}

dmx_status dmx_grid_comm(const dmx_grid *grid, dmx_grid_dir dir, MPI_Comm *comm)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(grid != NULL && comm != NULL, DMX_ERR_NULL, "grid or comm is NULL");
    DMXI_CHECK(dir == DMX_GRID_ROW || dir == DMX_GRID_COL, DMX_ERR_ARG, "bad grid direction");
    *comm = dir == DMX_GRID_ROW ? grid->row : grid->col;
cleanup:
    return st;
}

dmx_status dmx_grid_bcast(const dmx_grid *grid, dmx_grid_dir dir, void *buf, int64_t count,
                          MPI_Datatype type, int root, dmx_coll_alg alg)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm c = MPI_COMM_NULL;
    DMXI_TRY(dmx_grid_comm(grid, dir, &c));
    if (c != MPI_COMM_NULL)
        DMXI_TRY(dmx_coll_bcast(buf, count, type, root, c, alg));
cleanup:
    return st;
}

dmx_status dmx_grid_allreduce(const dmx_grid *grid, dmx_grid_dir dir, const void *sendbuf,
                              void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                              dmx_coll_alg alg)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm c = MPI_COMM_NULL;
    DMXI_TRY(dmx_grid_comm(grid, dir, &c));
    if (c != MPI_COMM_NULL)
        DMXI_TRY(dmx_coll_allreduce(sendbuf, recvbuf, count, type, op, c, alg));
cleanup:
    return st;
}

dmx_status dmx_grid_allgather(const dmx_grid *grid, dmx_grid_dir dir, const void *sendbuf,
                              void *recvbuf, int64_t count, MPI_Datatype type, dmx_coll_alg alg)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Comm c = MPI_COMM_NULL;
    DMXI_TRY(dmx_grid_comm(grid, dir, &c));
    if (c != MPI_COMM_NULL)
        DMXI_TRY(dmx_coll_allgather(sendbuf, recvbuf, count, type, c, alg));
cleanup:
    return st;
}
