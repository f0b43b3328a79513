/* The measurement engine shared by `dmx bench coll` (bench_coll.c) and `dmx calibrate`
 * (tools/calibrate.c): one collective at one size on MPI_COMM_WORLD, its inputs, MPI's result
 * as the reference, and a timed, verified run of any algorithm. */
#ifndef DMX_BENCH_COLL_H
#define DMX_BENCH_COLL_H

#include "dmx.h"

/* "bytes" is the model's message size m: one rank's block for scatter, gather, allgather,
 * reduce-scatter, alltoall; the whole vector otherwise. Data are MPI_INT (reductions: sum). */
typedef struct bcoll_case {
    dmx_coll_kind kind;
    int64_t bytes, count; /* count = bytes / 4 ints per block or vector */
    int rank, size, root;
    char *in, *out, *ref;
    int64_t in_bytes, out_bytes, cmp_bytes; /* cmp: bytes of out to verify on this rank */
} bcoll_case;

/* Allocate, fill and compute MPI's reference. Returns 0, or -1 if memory is short (every rank
 * agrees). Collective on MPI_COMM_WORLD. */
int bcoll_setup(bcoll_case *c, dmx_coll_kind kind, int64_t bytes);
void bcoll_free(bcoll_case *c);
/* One timed run: barrier, the call, max over ranks of the elapsed time. *wrong = number of ranks
 * whose output differs from the reference (or whose call failed). Collective. */
double bcoll_time(bcoll_case *c, dmx_coll_alg alg, int *wrong);
/* The model's prediction on MPI_COMM_WORLD's node count; -1 if none. */
double bcoll_predict(const bcoll_case *c, dmx_coll_alg alg, dmx_coll_alg *chosen);
/* Nodes spanned by MPI_COMM_WORLD. Collective (first call). */
int bcoll_nodes(void);
/* A comma-separated list of collective names (is_alg 0: dmx_coll_kind_name) or algorithm names
 * (is_alg 1: dmx_coll_alg_name): sel[i] = 1 for each named one of the n, 0 for the others.
 * Returns 0, or -1 if a name is unknown. Local. */
int bcoll_parse_names(const char *s, int *sel, int n, int is_alg);

#endif
