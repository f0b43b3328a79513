/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmx layout of one side (source or target) of a ScaLAPACK call.
 *
 * A 9-integer descriptor (and an 11-integer one whose first blocks are full: IMB = MB, INB = NB)
 * is ScaLAPACK's block-cyclic distribution: dmx's mapped block-cyclic layout, cut off after the
 * submatrix's last row and column (local offsets do not depend on M or N).
 *
 * An 11-integer descriptor (DTYPE 2, the PBLAS' BLOCK_CYCLIC_INB_2D) with IMB != MB or INB != NB
 * is not block-cyclic: global rows are cut at IMB, IMB + MB, IMB + 2 MB, ...; row block b lives on
 * process row (RSRC + b) mod NPROW, and on that process the blocks follow each other in the
 * column-major local array (the first one IMB rows high, the rest MB). Likewise for columns. It
 * becomes a dmx custom layout of the submatrix alone: its row splits are the block boundaries that
 * fall inside the submatrix, the owners follow the cycle, and each local block points into the
 * local array at its local row and column offset. Memory, on every process of the group: the
 * splits (row blocks + column blocks of the submatrix) and the owner map (their product) as
 * integers, and on each process its own blocks; all of it is copied by dmx and freed here.
 */
#include "sp_internal.h"

#include <stdint.h>
#include <stdlib.h>

/* Block of global index i when the first block has `first` entries and the others `bs`. */
static int64_t block_of(int64_t i, int64_t first, int64_t bs)
{
    return i < first ? 0 : 1 + (i - first) / bs;
}

/* First global index of block b. */
static int64_t block_start(int64_t b, int64_t first, int64_t bs)
{
    return b == 0 ? 0 : first + (b - 1) * bs;
}

/* Local offset of block b on the process that owns it (blocks dealt over np processes, block 0
 * first): the blocks b - np, b - 2 np, ... >= 0 come before it, block 0 among them with `first`
 * entries when b is a multiple of np. */
static int64_t block_local(int64_t b, int64_t first, int64_t bs, int64_t np)
{
    if (b == 0)
        return 0;
    int64_t off = (b / np) * bs;
    if (b % np == 0)
        off -= bs - first;
    return off;
}

/* Number of global indices in [0, n) that process p owns (the PBLAS' numroc with a first block). */
static int64_t local_count(int64_t n, int64_t first, int64_t bs, int64_t p, int64_t src, int64_t np)
{
    if (n <= 0)
        return 0;
    int64_t last = block_of(n - 1, first, bs);
    int64_t mine = ((p - src) % np + np) % np; /* first block index p owns */
    if (mine > last)
        return 0;
    int64_t count = 0;
    if (mine == 0) {
        count += n < first ? n : first;
        mine += np;
    }
    if (mine > last)
        return count;
    int64_t nblocks = (last - mine) / np + 1; /* blocks mine, mine + np, ..., <= last */
    count += nblocks * bs;
    int64_t lastmine = mine + (nblocks - 1) * np;
    if (lastmine == last) /* the matrix's last block may be short */
        count -= block_start(last, first, bs) + bs - n;
    return count;
}

/* Splits of the window [i0, i0 + len) at block boundaries (relative to i0). */
static void window_splits(int64_t i0, int64_t len, int64_t first, int64_t bs, int64_t b0,
                          int64_t nblocks, int64_t *splits)
{
    splits[0] = 0;
    for (int64_t k = 1; k < nblocks; k++)
        splits[k] = block_start(b0 + k, first, bs) - i0;
    splits[nblocks] = len;
}

static dmx_status custom_layout(MPI_Comm comm, const sp_side *s, int in, int myrow, int mycol,
                                const void *local, int lld, dmx_dtype dtype, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    const int64_t i0 = s->i0, j0 = s->j0, rows = s->rows, cols = s->cols;
    const int64_t rb0 = block_of(i0, s->imb, s->mb);
    const int64_t cb0 = block_of(j0, s->inb, s->nb);
    const int64_t nrb = block_of(i0 + rows - 1, s->imb, s->mb) - rb0 + 1;
    const int64_t ncb = block_of(j0 + cols - 1, s->inb, s->nb) - cb0 + 1;
    const size_t esize = dmx_dtype_size(dtype);
    int64_t *rs = NULL, *cs = NULL;
    int *owners = NULL;
    dmx_block *blocks = NULL;
    int64_t nlocal = 0;

    if (in) {
        /* the PBLAS' own check of the local leading dimension */
        int64_t locr = local_count(s->m, s->imb, s->mb, myrow, s->rsrc, s->nprow);
        if (lld < 1 || lld < locr)
            return DMX_ERR_LAYOUT;
    }
    if ((uint64_t)nrb > SIZE_MAX / sizeof(int) / (uint64_t)ncb)
        return DMX_ERR_ALLOC;
    rs = malloc((size_t)(nrb + 1) * sizeof *rs);
    cs = malloc((size_t)(ncb + 1) * sizeof *cs);
    owners = malloc((size_t)nrb * (size_t)ncb * sizeof *owners);
    if (rs == NULL || cs == NULL || owners == NULL) {
        st = DMX_ERR_ALLOC;
        goto cleanup;
    }
    window_splits(i0, rows, s->imb, s->mb, rb0, nrb, rs);
    window_splits(j0, cols, s->inb, s->nb, cb0, ncb, cs);

    int64_t myrb = 0, mycb = 0; /* this process's block rows / columns in the window */
    for (int64_t bi = 0; bi < nrb; bi++) {
        int pr = (int)((s->rsrc + rb0 + bi) % s->nprow);
        myrb += in && pr == myrow;
        for (int64_t bj = 0; bj < ncb; bj++) {
            int pc = (int)((s->csrc + cb0 + bj) % s->npcol);
            owners[bi * ncb + bj] = s->grid_ranks[pr * s->npcol + pc];
        }
    }
    for (int64_t bj = 0; bj < ncb; bj++)
        mycb += in && (int)((s->csrc + cb0 + bj) % s->npcol) == mycol;
    nlocal = myrb * mycb;
    blocks = calloc(nlocal > 0 ? (size_t)nlocal : 1, sizeof *blocks);
    if (blocks == NULL) {
        st = DMX_ERR_ALLOC;
        goto cleanup;
    }
    int64_t k = 0;
    for (int64_t bi = 0; bi < nrb && myrb > 0; bi++) {
        int64_t b = rb0 + bi;
        if ((int)((s->rsrc + b) % s->nprow) != myrow)
            continue;
        /* local row of the window's first row in this block */
        int64_t gi = i0 + rs[bi];
        int64_t lr = block_local(b, s->imb, s->mb, s->nprow) + gi - block_start(b, s->imb, s->mb);
        for (int64_t bj = 0; bj < ncb; bj++) {
            int64_t c = cb0 + bj;
            if ((int)((s->csrc + c) % s->npcol) != mycol)
                continue;
            int64_t gj = j0 + cs[bj];
            int64_t lc =
                block_local(c, s->inb, s->nb, s->npcol) + gj - block_start(c, s->inb, s->nb);
            blocks[k].brow = bi;
            blocks[k].bcol = bj;
            blocks[k].data =
                local == NULL ? NULL : (char *)local + (size_t)(lr + lc * (int64_t)lld) * esize;
            blocks[k].ld = lld;
            blocks[k].order = DMX_COL_MAJOR;
            k++;
        }
    }
    st = dmx_layout_create_custom(comm, rows, cols, nrb, rs, ncb, cs, owners, nlocal, blocks, out);
cleanup:
    free(rs);
    free(cs);
    free(owners);
    free(blocks);
    return st;
}

dmx_status dmxsp_side_layout(MPI_Comm comm, const sp_side *s, int in, int myrow, int mycol,
                             const void *local, int lld, dmx_dtype dtype, int alone,
                             dmx_layout **out, int64_t *oi, int64_t *oj)
{
    if (s->custom) {
        *oi = *oj = 0;
        return custom_layout(comm, s, in, myrow, mycol, local, lld, dtype, out);
    }
    *oi = s->i0;
    *oj = s->j0;
    if (alone)
        return dmx_layout_create_block_cyclic_unagreed(
            comm, s->i0 + s->rows, s->j0 + s->cols, s->mb, s->nb, s->nprow, s->npcol, s->grid_ranks,
            s->rsrc, s->csrc, in ? (void *)local : NULL, in ? lld : 1, out);
    return dmx_layout_create_block_cyclic_mapped(
        comm, s->i0 + s->rows, s->j0 + s->cols, s->mb, s->nb, s->nprow, s->npcol, s->grid_ranks,
        s->rsrc, s->csrc, in ? (void *)local : NULL, in ? lld : 1, out);
}
