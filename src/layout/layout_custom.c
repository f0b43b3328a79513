/* SPDX-License-Identifier: BSD-3-Clause */
/* Layouts from explicit grids (dmx_layout_create_custom) and from local rectangles only
 * (dmx_layout_create_local), with the validation every rank agrees on. */
#include "layout_impl.h"

#include <string.h>

static int cmp_lblock(const void *a, const void *b)
{
    const dmxi_lblock *x = a, *y = b;
    if (x->brow != y->brow)
        return x->brow < y->brow ? -1 : 1;
    if (x->bcol != y->bcol)
        return x->bcol < y->bcol ? -1 : 1;
    return 0;
}

static dmx_status check_splits(const int64_t *s, int64_t nb, int64_t len, const char *what)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(nb >= 0, DMX_ERR_LAYOUT, "%s: negative number of blocks", what);
    DMXI_CHECK(len > 0 || nb == 0, DMX_ERR_LAYOUT, "%s: an empty dimension has no blocks", what);
    DMXI_CHECK(len == 0 || nb > 0, DMX_ERR_LAYOUT, "%s: no blocks for %lld elements", what,
               (long long)len);
    if (nb == 0)
        goto cleanup;
    DMXI_CHECK(s, DMX_ERR_NULL, "%s is NULL", what);
    DMXI_CHECK(s[0] == 0, DMX_ERR_LAYOUT, "%s must start at 0", what);
    for (int64_t k = 0; k < nb; k++)
        DMXI_CHECK(s[k] < s[k + 1], DMX_ERR_LAYOUT, "%s not strictly increasing at %lld", what,
                   (long long)k);
    DMXI_CHECK(s[nb] == len, DMX_ERR_LAYOUT, "%s must end at %lld, ends at %lld", what,
               (long long)len, (long long)s[nb]);
cleanup:
    return st;
}

static dmx_status validate_custom(dmxi_desc *d, int64_t m, int64_t n, int64_t nrb,
                                  const int64_t *rowsplits, int64_t ncb, const int64_t *colsplits,
                                  const int *owners, int64_t nlocal, const dmx_block *blocks)
{
    dmx_status st = DMX_SUCCESS;
    int64_t nblk = 0, mine = 0;
    DMXI_CHECK(m >= 0 && n >= 0, DMX_ERR_ARG, "matrix size %lld x %lld is negative", (long long)m,
               (long long)n);
    DMXI_TRY(check_splits(rowsplits, nrb, m, "rowsplits"));
    DMXI_TRY(check_splits(colsplits, ncb, n, "colsplits"));
    DMXI_TRY(dmxi_mul64(nrb, ncb, &nblk));
    DMXI_CHECK(nblk == 0 || owners, DMX_ERR_NULL, "owners is NULL");
    for (int64_t k = 0; k < nblk; k++) {
        DMXI_CHECK(owners[k] >= 0 && owners[k] < d->size, DMX_ERR_LAYOUT,
                   "owner %d of block (%lld,%lld) is not a rank of the communicator", owners[k],
                   (long long)(k / ncb), (long long)(k % ncb));
        mine += owners[k] == d->rank;
    }
    DMXI_CHECK(nlocal >= 0, DMX_ERR_ARG, "nlocal is negative");
    DMXI_CHECK(nlocal == 0 || blocks, DMX_ERR_NULL, "blocks is NULL");
    DMXI_CHECK(nlocal == mine, DMX_ERR_LAYOUT,
               "this rank owns %lld blocks but passed %lld (missing or extra blocks)",
               (long long)mine, (long long)nlocal);
    d->rsplit = dmxi_malloc(nrb + 1, sizeof(int64_t));
    d->csplit = dmxi_malloc(ncb + 1, sizeof(int64_t));
    d->owners = dmxi_malloc(nblk, sizeof(int));
    d->blocks = dmxi_malloc(nlocal, sizeof(dmxi_lblock));
    DMXI_CHECK(d->rsplit && d->csplit && d->owners && d->blocks, DMX_ERR_ALLOC, "out of memory");
    if (nrb > 0)
        memcpy(d->rsplit, rowsplits, (size_t)(nrb + 1) * sizeof(int64_t));
    else
        d->rsplit[0] = 0;
    if (ncb > 0)
        memcpy(d->csplit, colsplits, (size_t)(ncb + 1) * sizeof(int64_t));
    else
        d->csplit[0] = 0;
    if (nblk > 0)
        memcpy(d->owners, owners, (size_t)nblk * sizeof(int));
    for (int64_t k = 0; k < nlocal; k++) {
        const dmx_block *b = &blocks[k];
        DMXI_CHECK(b->brow >= 0 && b->brow < nrb && b->bcol >= 0 && b->bcol < ncb, DMX_ERR_LAYOUT,
                   "local block %lld: index (%lld,%lld) outside the %lld x %lld grid", (long long)k,
                   (long long)b->brow, (long long)b->bcol, (long long)nrb, (long long)ncb);
        DMXI_CHECK(owners[b->brow * ncb + b->bcol] == d->rank, DMX_ERR_LAYOUT,
                   "local block (%lld,%lld) is owned by rank %d, not this rank %d",
                   (long long)b->brow, (long long)b->bcol, owners[b->brow * ncb + b->bcol],
                   d->rank);
        DMXI_CHECK(b->order == DMX_COL_MAJOR || b->order == DMX_ROW_MAJOR, DMX_ERR_LAYOUT,
                   "local block (%lld,%lld): invalid order", (long long)b->brow,
                   (long long)b->bcol);
        int64_t rows = rowsplits[b->brow + 1] - rowsplits[b->brow];
        int64_t cols = colsplits[b->bcol + 1] - colsplits[b->bcol];
        int64_t need = b->order == DMX_COL_MAJOR ? rows : cols;
        DMXI_CHECK(b->ld >= need && b->ld >= 1, DMX_ERR_LAYOUT,
                   "local block (%lld,%lld): ld %lld < %lld", (long long)b->brow,
                   (long long)b->bcol, (long long)b->ld, (long long)need);
        DMXI_CHECK(b->data, DMX_ERR_LAYOUT, "local block (%lld,%lld): data is NULL",
                   (long long)b->brow, (long long)b->bcol);
        int64_t span = 0; /* the block's memory span must be addressable in int64_t */
        DMXI_TRY(dmxi_mul64(b->ld, b->order == DMX_COL_MAJOR ? cols : rows, &span));
        d->blocks[k] = (dmxi_lblock){b->brow, b->bcol, 0, 0, b->data, b->ld, b->order};
    }
    qsort(d->blocks, (size_t)nlocal, sizeof(dmxi_lblock), cmp_lblock);
    for (int64_t k = 1; k < nlocal; k++)
        DMXI_CHECK(cmp_lblock(&d->blocks[k - 1], &d->blocks[k]) != 0, DMX_ERR_LAYOUT,
                   "local block (%lld,%lld) passed twice", (long long)d->blocks[k].brow,
                   (long long)d->blocks[k].bcol);
    d->m = m, d->n = n, d->nrb = nrb, d->ncb = ncb, d->nlocal = nlocal;
    {
        int64_t hdr[5] = {2, m, n, nrb, ncb};
        uint64_t h = dmxi_hash(DMXI_HASH_INIT, hdr, sizeof hdr);
        h = dmxi_hash(h, d->rsplit, (size_t)(nrb + 1) * sizeof(int64_t));
        h = dmxi_hash(h, d->csplit, (size_t)(ncb + 1) * sizeof(int64_t));
        d->hash = dmxi_hash(h, d->owners, (size_t)nblk * sizeof(int));
    }
cleanup:
    return st;
}

dmx_status dmx_layout_create_custom(MPI_Comm comm, int64_t m, int64_t n, int64_t nrb,
                                    const int64_t *rowsplits, int64_t ncb, const int64_t *colsplits,
                                    const int *owners, int64_t nlocal, const dmx_block *blocks,
                                    dmx_layout **out)
{
    dmxi_desc *d = NULL;
    dmxi_error_clear();
    if (comm == MPI_COMM_NULL) { /* no communicator: the others cannot be told */
        if (out)
            *out = NULL;
        return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                          "the communicator is MPI_COMM_NULL on this rank");
    }
    dmx_status st = dmxi_desc_begin(comm, out, &d);
    if (st == DMX_SUCCESS)
        st = validate_custom(d, m, n, nrb, rowsplits, ncb, colsplits, owners, nlocal, blocks);
    int64_t id = 0;
    DMXI_TRY(dmxi_layout_agree_id(comm, st, &id));
    DMXI_TRY(dmxi_agree_same(comm, d->hash, "custom layout descriptions"));
    DMXI_TRY(dmxi_layout_new(d, out));
    (*out)->id = id;
cleanup:
    dmxi_desc_release(d);
    return st;
}

static int cmp_rect(const void *a, const void *b)
{
    const dmxi_lblock *x = a, *y = b;
    if (x->brow != y->brow)
        return x->brow < y->brow ? -1 : 1;
    return x->bcol < y->bcol ? -1 : x->bcol > y->bcol;
}

static dmx_status validate_local(dmxi_desc *d, int64_t m, int64_t n, int64_t nlocal,
                                 const dmx_local_block *blocks, int64_t *area)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(m >= 0 && n >= 0, DMX_ERR_ARG, "matrix size %lld x %lld is negative", (long long)m,
               (long long)n);
    DMXI_CHECK(nlocal >= 0, DMX_ERR_ARG, "nlocal is negative");
    DMXI_CHECK(nlocal == 0 || blocks, DMX_ERR_NULL, "blocks is NULL");
    d->blocks = dmxi_malloc(nlocal, sizeof(dmxi_lblock));
    DMXI_CHECK(d->blocks, DMX_ERR_ALLOC, "out of memory");
    *area = 0;
    for (int64_t k = 0; k < nlocal; k++) {
        const dmx_local_block *b = &blocks[k];
        DMXI_CHECK(b->rows >= 1 && b->cols >= 1 && b->row0 >= 0 && b->col0 >= 0 &&
                       b->row0 <= m - b->rows && b->col0 <= n - b->cols,
                   DMX_ERR_LAYOUT, "block %lld (%lld,%lld) of %lld x %lld is outside the matrix",
                   (long long)k, (long long)b->row0, (long long)b->col0, (long long)b->rows,
                   (long long)b->cols);
        DMXI_CHECK(b->order == DMX_COL_MAJOR || b->order == DMX_ROW_MAJOR, DMX_ERR_LAYOUT,
                   "block %lld: invalid order", (long long)k);
        int64_t need = b->order == DMX_COL_MAJOR ? b->rows : b->cols;
        DMXI_CHECK(b->ld >= need, DMX_ERR_LAYOUT, "block %lld: ld %lld < %lld", (long long)k,
                   (long long)b->ld, (long long)need);
        DMXI_CHECK(b->data, DMX_ERR_LAYOUT, "block %lld: data is NULL", (long long)k);
        d->blocks[k] = (dmxi_lblock){b->row0, b->col0, b->rows, b->cols, b->data, b->ld, b->order};
        int64_t a = 0, span = 0;
        DMXI_TRY(dmxi_mul64(b->rows, b->cols, &a));
        DMXI_TRY(dmxi_add64(*area, a, area));
        /* the block's memory span ld * (other extent) must be addressable in int64_t */
        DMXI_TRY(dmxi_mul64(b->ld, b->order == DMX_COL_MAJOR ? b->cols : b->rows, &span));
    }
    /* A rank's own blocks must be disjoint: sort by row, then compare each with the blocks that
     * start above its last row (a sweep; quadratic only for pathological tall-thin sets). */
    qsort(d->blocks, (size_t)nlocal, sizeof *d->blocks, cmp_rect);
    for (int64_t k = 0; k < nlocal; k++) {
        const dmxi_lblock *x = &d->blocks[k];
        for (int64_t q = k + 1; q < nlocal && d->blocks[q].brow < x->brow + x->rows; q++) {
            const dmxi_lblock *y = &d->blocks[q];
            DMXI_CHECK(y->bcol >= x->bcol + x->cols || x->bcol >= y->bcol + y->cols, DMX_ERR_LAYOUT,
                       "blocks at (%lld,%lld) and (%lld,%lld) overlap", (long long)x->brow,
                       (long long)x->bcol, (long long)y->brow, (long long)y->bcol);
        }
    }
    d->m = m, d->n = n, d->nlocal = nlocal;
    d->local_only = 1;
    int64_t hdr[3] = {3, m, n};
    d->hash = dmxi_hash(DMXI_HASH_INIT, hdr, sizeof hdr);
cleanup:
    return st;
}

dmx_status dmx_layout_create_local(MPI_Comm comm, int64_t m, int64_t n, int64_t nlocal,
                                   const dmx_local_block *blocks, dmx_layout **out)
{
    dmxi_desc *d = NULL;
    int64_t area = 0, total = 0;
    dmxi_error_clear();
    if (comm == MPI_COMM_NULL) { /* no communicator: the others cannot be told */
        if (out)
            *out = NULL;
        return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                          "the communicator is MPI_COMM_NULL on this rank");
    }
    dmx_status st = dmxi_desc_begin(comm, out, &d);
    if (st == DMX_SUCCESS)
        st = validate_local(d, m, n, nlocal, blocks, &area);
    int64_t id = 0;
    DMXI_TRY(dmxi_layout_agree_id(comm, st, &id));
    DMXI_TRY(dmxi_agree_same(comm, d->hash, "matrix sizes"));
    DMXI_MPI(MPI_Allreduce(&area, &total, 1, MPI_INT64_T, MPI_SUM, comm));
    int64_t mn = 0;
    DMXI_TRY(dmxi_mul64(m, n, &mn)); /* same on every rank: the sizes were agreed */
    DMXI_CHECK(total == mn, DMX_ERR_LAYOUT,
               "the blocks of all ranks cover %lld elements, the matrix has %lld", (long long)total,
               (long long)mn);
    d->rsplit = dmxi_calloc(1, sizeof(int64_t));
    d->csplit = dmxi_calloc(1, sizeof(int64_t));
    DMXI_TRY(dmxi_agree(comm, d->rsplit && d->csplit ? DMX_SUCCESS
                                                     : dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__,
                                                                  "out of memory")));
    DMXI_TRY(dmxi_layout_new(d, out));
    (*out)->id = id;
cleanup:
    dmxi_desc_release(d);
    return st;
}
