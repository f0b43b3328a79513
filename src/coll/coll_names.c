/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives' names: of the algorithms and of the collectives, and which algorithm implements
 * which collective. A leaf: the choice (coll_select.c), the model (coll_model.c), the tuning
 * and the entry points read these tables and nothing here calls back. */
#include "coll_internal.h"

#include <string.h>

static const char *const alg_names[DMX_COLL_NALGS] = {
    "auto", "mpi",    "flat",  "ring",      "pipeline", "binomial", "scatter_ag",
    "grid", "recdbl", "bruck", "rs_gather", "halving",  "pairwise", "hypercube"};

static const char *const kind_names[DMX_COLL_NKINDS] = {
    "bcast",          "scatter",  "gather", "allgather", "reduce", "allreduce",
    "reduce_scatter", "alltoall", "scan",   "exscan",    "shift"};

/* Bit a set in dmxi_coll_valid_mask[k]: algorithm a implements collective k (AUTO and MPI
 * implement all). */
#define B(a) (1u << (a))
#define ANY (B(DMX_COLL_AUTO) | B(DMX_COLL_MPI))
const unsigned dmxi_coll_valid_mask[DMX_COLL_NKINDS] = {
    [DMX_COLL_BCAST] = ANY | B(DMX_COLL_FLAT) | B(DMX_COLL_RING) | B(DMX_COLL_PIPELINE) |
                       B(DMX_COLL_BINOMIAL) | B(DMX_COLL_SCATTER_AG) | B(DMX_COLL_GRID),
    [DMX_COLL_SCATTER] = ANY | B(DMX_COLL_FLAT) | B(DMX_COLL_PIPELINE) | B(DMX_COLL_BINOMIAL),
    [DMX_COLL_GATHER] = ANY | B(DMX_COLL_FLAT) | B(DMX_COLL_PIPELINE) | B(DMX_COLL_BINOMIAL),
    [DMX_COLL_ALLGATHER] = B(DMX_COLL_AUTO) | B(DMX_COLL_MPI) | B(DMX_COLL_RING) |
                           B(DMX_COLL_RECDBL) | B(DMX_COLL_BRUCK) | B(DMX_COLL_GRID),
    [DMX_COLL_REDUCE] = ANY | B(DMX_COLL_BINOMIAL) | B(DMX_COLL_RS_GATHER),
    [DMX_COLL_ALLREDUCE] = ANY | B(DMX_COLL_BINOMIAL) | B(DMX_COLL_RECDBL) | B(DMX_COLL_RING),
    [DMX_COLL_REDUCE_SCATTER] = ANY | B(DMX_COLL_RING) | B(DMX_COLL_HALVING),
    [DMX_COLL_ALLTOALL] = B(DMX_COLL_AUTO) | B(DMX_COLL_MPI) | B(DMX_COLL_PAIRWISE) |
                          B(DMX_COLL_HYPERCUBE) | B(DMX_COLL_BRUCK) | B(DMX_COLL_GRID),
    [DMX_COLL_SCAN] = ANY | B(DMX_COLL_HYPERCUBE) | B(DMX_COLL_RING),
    [DMX_COLL_EXSCAN] = ANY | B(DMX_COLL_HYPERCUBE) | B(DMX_COLL_RING),
    [DMX_COLL_SHIFT] = ANY | B(DMX_COLL_RING) | B(DMX_COLL_GRID),
};
#undef ANY
#undef B

const char *dmx_coll_alg_name(dmx_coll_alg alg)
{
    return (alg >= 0 && alg < DMX_COLL_NALGS) ? alg_names[alg] : NULL;
}

dmx_status dmx_coll_alg_from_name(const char *name, dmx_coll_alg *alg)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(name != NULL && alg != NULL, DMX_ERR_NULL, "name or alg is NULL");
    for (int a = 0; a < DMX_COLL_NALGS; a++)
        if (strcmp(name, alg_names[a]) == 0) {
            *alg = (dmx_coll_alg)a;
            goto cleanup;
        }
    DMXI_FAIL(DMX_ERR_ARG, "unknown collective algorithm \"%s\"", name);
cleanup:
    return st;
}

const char *dmx_coll_kind_name(dmx_coll_kind kind)
{
    return (kind >= 0 && kind < DMX_COLL_NKINDS) ? kind_names[kind] : NULL;
}

int dmx_coll_alg_valid(dmx_coll_kind kind, dmx_coll_alg alg)
{
    if (kind < 0 || kind >= DMX_COLL_NKINDS || alg < 0 || alg >= DMX_COLL_NALGS)
        return 0;
    return (dmxi_coll_valid_mask[kind] >> alg) & 1u;
}
