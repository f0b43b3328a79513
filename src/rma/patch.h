/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal view of patch windows (patch.c opens them, patch_xfer.c moves data). */
#ifndef DMXI_PATCH_H
#define DMXI_PATCH_H

#include "layout.h"
#include "rma.h"

/* One block of the matrix in the table every rank holds (88 bytes). */
typedef struct pentry {
    int64_t r0, c0, rows, cols, ld; /* rectangle in the layout's coordinates, leading dim */
    int64_t addr;                   /* MPI_Aint of the block's element (0,0) on its owner */
    int32_t owner, order;
    /* the block lies in a dmx_rma heap with a node segment (rma_registry.c): its id (0: no),
     * the owner's rank in the heap and the block's offset there; direct: after the table is
     * gathered, where the block is mapped in this process (0: not mapped) */
    uint64_t heap;
    int64_t hoff;
    int64_t hrank;
    int64_t direct;
} pentry;

struct dmx_patch {
    const dmx_layout *L;
    const void *base; /* L's block-cyclic local array at open: the window exposes that memory */
    MPI_Comm comm;    /* duplicate of the layout's */
    MPI_Comm node;
    int rank, size;
    MPI_Win win; /* dynamic; MPI_WIN_NULL on a single rank */
    size_t esize;
    int real_float, ncomp; /* real component type float?, components per element (1 or 2) */
    MPI_Datatype etype;    /* one element: a real type, or a pair of reals (owned) */
    int64_t nent;
    pentry *ent;
    int64_t *grid;                  /* nrb*ncb entry indices (grid layouts), else NULL */
    dmxi_rma_touched call, pending; /* owners of this call / since the last quiet */
    int cma;            /* direct path to node peers usable (DMX_SHM not 0, not failed yet) */
    int cma_only;       /* no MPI window (MPI has none for user memory): every peer through CMA */
    int direct_pending; /* direct stores into peers' heap memory since the last quiet */
    int *pid;           /* size entries: process id of node peers, 0 for others and this rank */
    int64_t nreg;
    char **reg; /* attached ranges: 2*nreg pointers (begin, end) */
};

/* The part of a patch inside one owner block. */
typedef struct dmxi_patch_piece {
    char *local;    /* buf element of the piece's (0,0) */
    MPI_Aint rdisp; /* remote address of the piece's (0,0) (dynamic window displacement) */
    char *raddr;    /* the same as a pointer in the owner's address space */
    int64_t rows, cols;
    int64_t rs_r, rs_c; /* remote strides (elements) along rows and columns */
    int64_t ls_r, ls_c; /* buf strides */
} dmxi_patch_piece;

/* Direct path to a node peer's memory (patch_cma.c): 1 if done, 0 to use MPI. */
int dmxi_patch_cma(dmx_patch *w, dmxi_rma_kind kind, int owner, const dmxi_patch_piece *p);

/* Whether this rank can read every node peer's memory through CMA: each rank reads a value its
 * right neighbour published (process_vm_readv). *ok = 1 on every rank or 0 on every rank.
 * Collective on w->comm; needs w->pid (node_peers in patch.c). */
dmx_status dmxi_patch_cma_check(dmx_patch *w, int *ok);

dmx_status dmxi_patch_xfer(dmx_patch *w, dmxi_rma_kind kind, int64_t i0, int64_t j0, int64_t m,
                           int64_t n, char *buf, int64_t ld, dmx_op op);

#endif
