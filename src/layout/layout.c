/* Layouts: block-cyclic, mapped block-cyclic, custom grids and views; validation that every
 * rank agrees on; queries used by the planner. */
#include "layout/layout.h"

#include <string.h>

/* ---- shared description ------------------------------------------------------------------ */

static void desc_release(dmxi_desc *d)
{
    if (!d || --d->refcount > 0)
        return;
    free(d->rsplit);
    free(d->csplit);
    free(d->grid_ranks);
    free(d->owners);
    free(d->blocks);
    free(d->owned);
    free(d);
}

static int64_t find_split(const int64_t *split, int64_t nb, int64_t x)
{
    /* largest k in [0, nb) with split[k] <= x */
    int64_t lo = 0, hi = nb - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (split[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int desc_owner(const dmxi_desc *d, int64_t I, int64_t J)
{
    if (d->cyclic) {
        int pr = (int)((I + d->rsrc) % d->prow), pc = (int)((J + d->csrc) % d->pcol);
        return d->grid_ranks[(int64_t)pr * d->pcol + pc];
    }
    return d->owners[I * d->ncb + J];
}

static int64_t find_lblock(const dmxi_desc *d, int64_t I, int64_t J)
{
    int64_t lo = 0, hi = d->nlocal - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const dmxi_lblock *b = &d->blocks[mid];
        if (b->brow == I && b->bcol == J)
            return mid;
        if (b->brow < I || (b->brow == I && b->bcol < J))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static dmx_status make_splits(int64_t len, int64_t bs, int64_t *nblk, int64_t **split)
{
    dmx_status st = DMX_SUCCESS;
    int64_t nb = len == 0 ? 0 : (len - 1) / bs + 1;
    int64_t *s = dmxi_malloc(nb + 1, sizeof *s);
    DMXI_CHECK(s, DMX_ERR_ALLOC, "out of memory for %lld splits", (long long)nb);
    for (int64_t k = 0; k < nb; k++)
        s[k] = k * bs;
    s[nb] = len;
    *nblk = nb;
    *split = s;
cleanup:
    return st;
}

/* ---- the window --------------------------------------------------------------------------- */

/* Fill the window fields of L for window (i0, j0, m, n) of L->d; enumerate local blocks. */
static dmx_status set_window(dmx_layout *L, int64_t i0, int64_t j0, int64_t m, int64_t n)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_desc *d = L->d;
    L->i0 = i0, L->j0 = j0, L->m = m, L->n = n;
    if (d->local_only) {
        L->bi0 = L->bj0 = 0;
    } else if (m > 0 && n > 0) {
        L->bi0 = find_split(d->rsplit, d->nrb, i0);
        L->nrb = find_split(d->rsplit, d->nrb, i0 + m - 1) - L->bi0 + 1;
        L->bj0 = find_split(d->csplit, d->ncb, j0);
        L->ncb = find_split(d->csplit, d->ncb, j0 + n - 1) - L->bj0 + 1;
    } else {
        /* An empty window keeps its extent along the non-empty dimension for queries. */
        L->bi0 = m > 0 ? find_split(d->rsplit, d->nrb, i0) : 0;
        L->nrb = m > 0 ? find_split(d->rsplit, d->nrb, i0 + m - 1) - L->bi0 + 1 : 0;
        L->bj0 = n > 0 ? find_split(d->csplit, d->ncb, j0) : 0;
        L->ncb = n > 0 ? find_split(d->csplit, d->ncb, j0 + n - 1) - L->bj0 + 1 : 0;
    }
    L->nlocal = 0;
    L->nlr = L->nlc = 0;
    if (d->local_only) { /* no grid; the window is the whole matrix */
        L->nrb = L->ncb = 0;
        L->nlocal = d->nlocal;
        goto cleanup;
    }
    if (L->nrb == 0 || L->ncb == 0 || (d->cyclic && d->myprow < 0))
        goto cleanup;
    if (d->cyclic) {
        int64_t q = ((int64_t)d->myprow - d->rsrc - L->bi0) % d->prow;
        if (q < 0)
            q += d->prow;
        L->first_br = q;
        L->nlr = q < L->nrb ? (L->nrb - 1 - q) / d->prow + 1 : 0;
        q = ((int64_t)d->mypcol - d->csrc - L->bj0) % d->pcol;
        if (q < 0)
            q += d->pcol;
        L->first_bc = q;
        L->nlc = q < L->ncb ? (L->ncb - 1 - q) / d->pcol + 1 : 0;
        L->nlocal = L->nlr * L->nlc;
    } else {
        int64_t cnt = 0;
        for (int64_t k = 0; k < d->nlocal; k++) {
            const dmxi_lblock *b = &d->blocks[k];
            if (b->brow >= L->bi0 && b->brow < L->bi0 + L->nrb && b->bcol >= L->bj0 &&
                b->bcol < L->bj0 + L->ncb)
                cnt++;
        }
        L->lidx = dmxi_malloc(cnt, sizeof *L->lidx);
        DMXI_CHECK(L->lidx, DMX_ERR_ALLOC, "out of memory for %lld local blocks", (long long)cnt);
        for (int64_t k = 0; k < d->nlocal; k++) {
            const dmxi_lblock *b = &d->blocks[k];
            if (b->brow >= L->bi0 && b->brow < L->bi0 + L->nrb && b->bcol >= L->bj0 &&
                b->bcol < L->bj0 + L->ncb)
                L->lidx[L->nlocal++] = k;
        }
    }
cleanup:
    return st;
}

int64_t dmxi_layout_row_start(const dmx_layout *L, int64_t k)
{
    if (k >= L->nrb)
        return L->m;
    int64_t s = L->d->rsplit[L->bi0 + k] - L->i0;
    return s < 0 ? 0 : s;
}

int64_t dmxi_layout_col_start(const dmx_layout *L, int64_t k)
{
    if (k >= L->ncb)
        return L->n;
    int64_t s = L->d->csplit[L->bj0 + k] - L->j0;
    return s < 0 ? 0 : s;
}

int64_t dmxi_layout_row_block(const dmx_layout *L, int64_t r)
{
    const dmxi_desc *d = L->d;
    int64_t I = d->cyclic ? (r + L->i0) / d->mb : find_split(d->rsplit, d->nrb, r + L->i0);
    return I - L->bi0;
}

int64_t dmxi_layout_col_block(const dmx_layout *L, int64_t c)
{
    const dmxi_desc *d = L->d;
    int64_t J = d->cyclic ? (c + L->j0) / d->nb : find_split(d->csplit, d->ncb, c + L->j0);
    return J - L->bj0;
}

int dmxi_layout_block_owner(const dmx_layout *L, int64_t bi, int64_t bj)
{
    return desc_owner(L->d, bi + L->bi0, bj + L->bj0);
}

void dmxi_layout_local_block(const dmx_layout *L, int64_t k, int64_t *bi, int64_t *bj)
{
    if (L->d->cyclic) {
        *bi = L->first_br + (k % L->nlr) * L->d->prow;
        *bj = L->first_bc + (k / L->nlr) * L->d->pcol;
    } else {
        const dmxi_lblock *b = &L->d->blocks[L->lidx[k]];
        *bi = b->brow - L->bi0;
        *bj = b->bcol - L->bj0;
    }
}

void dmxi_layout_local_rect(const dmx_layout *L, int64_t k, int64_t *r0, int64_t *c0, int64_t *rows,
                            int64_t *cols)
{
    if (L->d->local_only) {
        const dmxi_lblock *b = &L->d->blocks[k];
        *r0 = b->brow, *c0 = b->bcol, *rows = b->rows, *cols = b->cols;
        return;
    }
    int64_t bi, bj;
    dmxi_layout_local_block(L, k, &bi, &bj);
    *r0 = dmxi_layout_row_start(L, bi);
    *c0 = dmxi_layout_col_start(L, bj);
    *rows = dmxi_layout_row_start(L, bi + 1) - *r0;
    *cols = dmxi_layout_col_start(L, bj + 1) - *c0;
}

dmx_status dmxi_layout_mem_in_block(const dmx_layout *L, int64_t k, int64_t r, int64_t c,
                                    dmxi_mem *mem)
{
    dmx_status st = DMX_SUCCESS;
    if (!L->d->local_only)
        return dmxi_layout_mem(L, r, c, mem);
    DMXI_CHECK(k >= 0 && k < L->d->nlocal, DMX_ERR_INTERNAL, "local block %lld out of range",
               (long long)k);
    const dmxi_lblock *b = &L->d->blocks[k];
    int64_t dr = r - b->brow, dc = c - b->bcol;
    DMXI_CHECK(dr >= 0 && dr < b->rows && dc >= 0 && dc < b->cols, DMX_ERR_INTERNAL,
               "element (%lld,%lld) not in local block %lld", (long long)r, (long long)c,
               (long long)k);
    mem->lbk = k;
    mem->ld = b->ld;
    mem->order = b->order;
    mem->off = b->order == DMX_COL_MAJOR ? dr + dc * b->ld : dr * b->ld + dc;
cleanup:
    return st;
}

dmx_status dmxi_layout_mem(const dmx_layout *L, int64_t r, int64_t c, dmxi_mem *mem)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_desc *d = L->d;
    int64_t gr = r + L->i0, gc = c + L->j0;
    int64_t I = dmxi_layout_row_block(L, r) + L->bi0, J = dmxi_layout_col_block(L, c) + L->bj0;
    int64_t dr = gr - d->rsplit[I], dc = gc - d->csplit[J];
    if (d->cyclic) {
        DMXI_CHECK(desc_owner(d, I, J) == d->rank, DMX_ERR_INTERNAL, "element not local");
        mem->lbk = -1;
        mem->ld = d->lld;
        mem->order = DMX_COL_MAJOR;
        mem->off = (I / d->prow) * d->mb + dr + ((J / d->pcol) * d->nb + dc) * d->lld;
    } else {
        int64_t k = find_lblock(d, I, J);
        DMXI_CHECK(k >= 0, DMX_ERR_INTERNAL, "element not local");
        const dmxi_lblock *b = &d->blocks[k];
        mem->lbk = k;
        mem->ld = b->ld;
        mem->order = b->order;
        mem->off = b->order == DMX_COL_MAJOR ? dr + dc * b->ld : dr * b->ld + dc;
    }
cleanup:
    return st;
}

/* ---- construction ------------------------------------------------------------------------- */

static dmx_status layout_new(dmxi_desc *d, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_layout *L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = d;
    d->refcount++;
    DMXI_TRY(set_window(L, 0, 0, d->m, d->n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    return st;
}

static dmxi_desc *desc_new(MPI_Comm comm)
{
    dmxi_desc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->refcount = 1; /* the creator's reference, dropped when creation ends */
    d->comm = comm;
    d->myprow = d->mypcol = -1;
    return d;
}

/* The first step of the custom and local constructors (and of clones): clear *out, make a
 * descriptor on comm and note this rank and the size. The status is this rank's alone; the
 * caller agrees on it before anything collective. *dp may be NULL afterwards. */
static dmx_status desc_begin(MPI_Comm comm, dmx_layout **out, dmxi_desc **dp)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_desc *d = desc_new(comm);
    *dp = d;
    if (out)
        *out = NULL;
    DMXI_CHECK(out, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(d, DMX_ERR_ALLOC, "out of memory");
    DMXI_MPI(MPI_Comm_rank(comm, &d->rank));
    DMXI_MPI(MPI_Comm_size(comm, &d->size));
cleanup:
    return st;
}

/* Number of rows of a block-cyclic dimension that process coordinate p holds. */
static int64_t local_extent(int64_t len, int64_t bs, int p, int src, int np)
{
    if (p < 0 || len == 0)
        return 0;
    int64_t nblk = (len - 1) / bs + 1;
    int64_t q = ((int64_t)p - src) % np;
    if (q < 0)
        q += np;
    if (q >= nblk)
        return 0;
    int64_t cnt = (nblk - 1 - q) / np + 1; /* blocks held */
    int64_t rows = cnt * bs;
    if ((nblk - 1) % np == q) /* holds the last, possibly partial block */
        rows -= nblk * bs - len;
    return rows;
}

static dmx_status create_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb,
                                int prow, int pcol, const int *grid_ranks, char grid_order,
                                int rsrc, int csrc, void *local, int64_t lld, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_desc *d = NULL;
    char *seen = NULL;
    int rank = 0, size = 0;
    DMXI_MPI(MPI_Comm_rank(comm, &rank));
    DMXI_MPI(MPI_Comm_size(comm, &size));

    /* Local validation; the first error (if any) is agreed below so no rank is left waiting. */
#define BAD(code, ...)                                                                             \
    do {                                                                                           \
        if (st == DMX_SUCCESS)                                                                     \
            st = dmxi_error((code), __FILE__, __LINE__, __VA_ARGS__);                              \
    } while (0)
    if (out)
        *out = NULL;
    else
        BAD(DMX_ERR_NULL, "out is NULL");
    d = desc_new(comm);
    if (!d)
        BAD(DMX_ERR_ALLOC, "out of memory");
    if (m < 0 || n < 0)
        BAD(DMX_ERR_ARG, "matrix size %lld x %lld is negative", (long long)m, (long long)n);
    if (mb < 1 || nb < 1)
        BAD(DMX_ERR_ARG, "block size %lld x %lld must be positive", (long long)mb, (long long)nb);
    if (st == DMX_SUCCESS && (prow < 1 || pcol < 1 || (int64_t)prow * pcol > size))
        BAD(DMX_ERR_ARG, "process grid %d x %d does not fit %d ranks", prow, pcol, size);
    if (st == DMX_SUCCESS && (rsrc < 0 || rsrc >= prow || csrc < 0 || csrc >= pcol))
        BAD(DMX_ERR_ARG, "rsrc/csrc = %d/%d outside the %d x %d grid", rsrc, csrc, prow, pcol);
    if (!grid_ranks && grid_order != 'R' && grid_order != 'r' && grid_order != 'C' &&
        grid_order != 'c')
        BAD(DMX_ERR_ARG, "grid order '%c' is not 'R' or 'C'", grid_order);
    if (st == DMX_SUCCESS) {
        int64_t np = (int64_t)prow * pcol;
        d->grid_ranks = dmxi_malloc(np, sizeof(int));
        seen = calloc((size_t)size, 1);
        if (!d->grid_ranks || !seen)
            BAD(DMX_ERR_ALLOC, "out of memory");
        for (int pr = 0; st == DMX_SUCCESS && pr < prow; pr++)
            for (int pc = 0; pc < pcol; pc++) {
                int r;
                if (grid_ranks)
                    r = grid_ranks[pr * pcol + pc];
                else if (grid_order == 'R' || grid_order == 'r')
                    r = pr * pcol + pc;
                else
                    r = pr + pc * prow;
                if (r < 0 || r >= size || seen[r]) {
                    BAD(DMX_ERR_ARG, "grid rank %d at (%d,%d) is out of range or repeated", r, pr,
                        pc);
                    break;
                }
                seen[r] = 1;
                d->grid_ranks[pr * pcol + pc] = r;
                if (r == rank)
                    d->myprow = pr, d->mypcol = pc;
            }
    }
    if (st == DMX_SUCCESS) {
        int64_t lr = local_extent(m, mb, d->myprow, rsrc, prow);
        int64_t lc = local_extent(n, nb, d->mypcol, csrc, pcol);
        if (local && lr > 0 && lld < lr)
            BAD(DMX_ERR_ARG, "lld = %lld is smaller than the %lld local rows", (long long)lld,
                (long long)lr);
        int64_t tmp;
        if (local && lr > 0 && lc > 0 && (dmxi_mul64(lld, lc, &tmp) != DMX_SUCCESS))
            BAD(DMX_ERR_OVERFLOW, "local array size overflows");
    }
#undef BAD
    DMXI_TRY(dmxi_agree(comm, st));

    d->rank = rank, d->size = size;
    d->m = m, d->n = n, d->mb = mb, d->nb = nb, d->lld = lld;
    d->prow = prow, d->pcol = pcol, d->rsrc = rsrc, d->csrc = csrc;
    d->cyclic = 1;
    st = make_splits(m, mb, &d->nrb, &d->rsplit);
    if (st == DMX_SUCCESS)
        st = make_splits(n, nb, &d->ncb, &d->csplit);
    DMXI_TRY(dmxi_agree(comm, st));
    {
        int64_t hdr[9] = {1, m, n, mb, nb, prow, pcol, rsrc, csrc};
        uint64_t h = dmxi_hash(DMXI_HASH_INIT, hdr, sizeof hdr);
        d->hash = dmxi_hash(h, d->grid_ranks, (size_t)prow * (size_t)pcol * sizeof(int));
    }
    DMXI_TRY(dmxi_agree_same(comm, d->hash, "block-cyclic layout descriptions"));
    DMXI_TRY(layout_new(d, out));
    (*out)->base = local;
cleanup:
    free(seen);
    desc_release(d);
    return st;
}

dmx_status dmx_layout_create_block_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                          int64_t nb, int prow, int pcol, char grid_order, int rsrc,
                                          int csrc, void *local, int64_t lld, dmx_layout **out)
{
    dmxi_error_clear();
    return create_cyclic(comm, m, n, mb, nb, prow, pcol, NULL, grid_order, rsrc, csrc, local, lld,
                         out);
}

dmx_status dmx_layout_create_block_cyclic_mapped(MPI_Comm comm, int64_t m, int64_t n, int64_t mb,
                                                 int64_t nb, int prow, int pcol,
                                                 const int *grid_ranks, int rsrc, int csrc,
                                                 void *local, int64_t lld, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    /* A NULL map on one rank must not leave the others waiting: agree first. */
    if (out)
        *out = NULL;
    st = dmxi_agree(comm, grid_ranks
                              ? DMX_SUCCESS
                              : dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "grid_ranks is NULL"));
    if (st != DMX_SUCCESS)
        return st;
    return create_cyclic(comm, m, n, mb, nb, prow, pcol, grid_ranks, 'R', rsrc, csrc, local, lld,
                         out);
}

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
    dmx_status st = desc_begin(comm, out, &d);
    if (st == DMX_SUCCESS)
        st = validate_custom(d, m, n, nrb, rowsplits, ncb, colsplits, owners, nlocal, blocks);
    DMXI_TRY(dmxi_agree(comm, st));
    DMXI_TRY(dmxi_agree_same(comm, d->hash, "custom layout descriptions"));
    DMXI_TRY(layout_new(d, out));
cleanup:
    desc_release(d);
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
        DMXI_TRY(dmxi_add64(*area, b->rows * b->cols, area));
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
    dmx_status st = desc_begin(comm, out, &d);
    if (st == DMX_SUCCESS)
        st = validate_local(d, m, n, nlocal, blocks, &area);
    DMXI_TRY(dmxi_agree(comm, st));
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
    DMXI_TRY(layout_new(d, out));
cleanup:
    desc_release(d);
    return st;
}

dmx_status dmx_layout_create_view(const dmx_layout *parent, int64_t i0, int64_t j0, int64_t m,
                                  int64_t n, dmx_layout **out)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_error_clear();
    dmx_layout *L = NULL;
    DMXI_CHECK(parent, DMX_ERR_NULL, "parent is NULL");
    if (out)
        *out = NULL;
    {
        dmx_status local = DMX_SUCCESS;
        if (!out)
            local = dmxi_error(DMX_ERR_NULL, __FILE__, __LINE__, "out is NULL");
        else if (parent->d->local_only)
            local = dmxi_error(DMX_ERR_UNSUPPORTED, __FILE__, __LINE__,
                               "views of layouts known only locally are not supported");
        else if (i0 < 0 || j0 < 0 || m < 0 || n < 0 || i0 > parent->m - m || j0 > parent->n - n)
            local = dmxi_error(DMX_ERR_ARG, __FILE__, __LINE__,
                               "view (%lld,%lld) of size %lld x %lld is outside the %lld x %lld "
                               "matrix",
                               (long long)i0, (long long)j0, (long long)m, (long long)n,
                               (long long)parent->m, (long long)parent->n);
        DMXI_TRY(dmxi_agree(parent->d->comm, local));
        int64_t v[4] = {i0, j0, m, n};
        DMXI_TRY(dmxi_agree_same(parent->d->comm, dmxi_hash(parent->d->hash, v, sizeof v),
                                 "view windows"));
    }
    L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = parent->d;
    L->d->refcount++;
    L->base = parent->base;
    DMXI_TRY(set_window(L, parent->i0 + i0, parent->j0 + j0, m, n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    return st;
}

dmx_status dmxi_layout_clone_on(const dmx_layout *tmpl, MPI_Comm comm, size_t esize,
                                dmx_layout **out)
{
    const dmxi_desc *t = tmpl->d;
    dmxi_desc *d = NULL;
    dmx_layout *L = NULL;
    int64_t n = 0;
    dmx_status st = DMX_SUCCESS;
    DMXI_TRY(desc_begin(comm, out, &d));
    DMXI_CHECK(d->size == t->size, DMX_ERR_LAYOUT, "communicator sizes differ");
    d->m = t->m, d->n = t->n, d->nrb = t->nrb, d->ncb = t->ncb, d->hash = t->hash;
    d->cyclic = t->cyclic;
    d->rsplit = dmxi_malloc(t->nrb + 1, sizeof(int64_t));
    d->csplit = dmxi_malloc(t->ncb + 1, sizeof(int64_t));
    DMXI_CHECK(d->rsplit && d->csplit, DMX_ERR_ALLOC, "out of memory");
    memcpy(d->rsplit, t->rsplit, (size_t)(t->nrb + 1) * sizeof(int64_t));
    memcpy(d->csplit, t->csplit, (size_t)(t->ncb + 1) * sizeof(int64_t));
    if (t->cyclic) {
        d->mb = t->mb, d->nb = t->nb, d->prow = t->prow, d->pcol = t->pcol;
        d->rsrc = t->rsrc, d->csrc = t->csrc;
        int64_t np = (int64_t)t->prow * t->pcol;
        d->grid_ranks = dmxi_malloc(np, sizeof(int));
        DMXI_CHECK(d->grid_ranks, DMX_ERR_ALLOC, "out of memory");
        memcpy(d->grid_ranks, t->grid_ranks, (size_t)np * sizeof(int));
        for (int64_t k = 0; k < np; k++)
            if (d->grid_ranks[k] == d->rank)
                d->myprow = (int)(k / d->pcol), d->mypcol = (int)(k % d->pcol);
        int64_t lr = local_extent(d->m, d->mb, d->myprow, d->rsrc, d->prow);
        int64_t lc = local_extent(d->n, d->nb, d->mypcol, d->csrc, d->pcol);
        d->lld = lr > 1 ? lr : 1;
        DMXI_TRY(dmxi_mul64(lr, lc, &n));
    } else {
        int64_t nblk = t->nrb * t->ncb, cnt = 0;
        d->owners = dmxi_malloc(nblk, sizeof(int));
        DMXI_CHECK(d->owners, DMX_ERR_ALLOC, "out of memory");
        memcpy(d->owners, t->owners, (size_t)nblk * sizeof(int));
        for (int64_t k = 0; k < nblk; k++)
            cnt += d->owners[k] == d->rank;
        d->blocks = dmxi_malloc(cnt, sizeof(dmxi_lblock));
        DMXI_CHECK(d->blocks, DMX_ERR_ALLOC, "out of memory");
        for (int64_t k = 0; k < nblk; k++) {
            if (d->owners[k] != d->rank)
                continue;
            int64_t I = k / d->ncb, J = k % d->ncb;
            int64_t rows = d->rsplit[I + 1] - d->rsplit[I], cols = d->csplit[J + 1] - d->csplit[J];
            d->blocks[d->nlocal++] = (dmxi_lblock){I, J, 0, 0, NULL, rows, DMX_COL_MAJOR};
            DMXI_TRY(dmxi_add64(n, rows * cols, &n));
        }
    }
    d->owned = dmxi_calloc(n, esize);
    DMXI_CHECK(d->owned, DMX_ERR_ALLOC, "out of memory for %lld elements", (long long)n);
    for (int64_t k = 0, off = 0; k < d->nlocal; k++) {
        dmxi_lblock *b = &d->blocks[k];
        b->data = (char *)d->owned + (size_t)off * esize;
        off += b->ld * (d->csplit[b->bcol + 1] - d->csplit[b->bcol]);
    }
    L = calloc(1, sizeof *L);
    DMXI_CHECK(L, DMX_ERR_ALLOC, "out of memory");
    L->d = d;
    d->refcount++;
    L->base = d->cyclic ? d->owned : NULL;
    DMXI_TRY(set_window(L, tmpl->i0, tmpl->j0, tmpl->m, tmpl->n));
    *out = L;
    L = NULL;
cleanup:
    dmx_layout_destroy(&L);
    desc_release(d);
    return st;
}

dmx_status dmx_layout_destroy(dmx_layout **layout)
{
    if (!layout || !*layout)
        return DMX_SUCCESS;
    dmx_layout *L = *layout;
    desc_release(L->d);
    free(L->lidx);
    free(L);
    *layout = NULL;
    return DMX_SUCCESS;
}

dmx_status dmx_layout_get_size(const dmx_layout *layout, int64_t *m, int64_t *n)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    if (m)
        *m = layout->m;
    if (n)
        *n = layout->n;
cleanup:
    return st;
}

dmx_status dmx_layout_get_num_local_blocks(const dmx_layout *layout, int64_t *nlocal)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout && nlocal, DMX_ERR_NULL, "layout or nlocal is NULL");
    *nlocal = layout->nlocal;
cleanup:
    return st;
}

dmx_status dmx_layout_get_local_block(const dmx_layout *layout, int64_t k, dmx_dtype dtype,
                                      int64_t *row0, int64_t *col0, int64_t *rows, int64_t *cols,
                                      void **data, int64_t *ld, dmx_order *order)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    DMXI_CHECK(k >= 0 && k < layout->nlocal, DMX_ERR_ARG, "local block %lld out of range",
               (long long)k);
    size_t es = dmx_dtype_size(dtype);
    DMXI_CHECK(es > 0, DMX_ERR_ARG, "invalid dtype %d", (int)dtype);
    int64_t r0, c0, nr, nc;
    dmxi_layout_local_rect(layout, k, &r0, &c0, &nr, &nc);
    dmxi_mem mem;
    DMXI_TRY(dmxi_layout_mem_in_block(layout, k, r0, c0, &mem));
    if (row0)
        *row0 = r0;
    if (col0)
        *col0 = c0;
    if (rows)
        *rows = nr;
    if (cols)
        *cols = nc;
    if (data)
        *data = dmxi_layout_addr(layout, &mem, es);
    if (ld)
        *ld = mem.ld;
    if (order)
        *order = mem.order;
cleanup:
    return st;
}

dmx_status dmx_layout_rebind(dmx_layout *layout, void *local)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(layout, DMX_ERR_NULL, "layout is NULL");
    DMXI_CHECK(layout->d->cyclic, DMX_ERR_UNSUPPORTED,
               "only block-cyclic layouts (and their views) can be rebound");
    layout->base = local;
cleanup:
    return st;
}

int dmx_layout_owner_of(const dmx_layout *layout, int64_t i, int64_t j)
{
    if (!layout || i < 0 || j < 0 || i >= layout->m || j >= layout->n)
        return -1;
    if (layout->d->local_only) { /* only this rank's own blocks are known */
        for (int64_t k = 0; k < layout->d->nlocal; k++) {
            const dmxi_lblock *b = &layout->d->blocks[k];
            if (i >= b->brow && i < b->brow + b->rows && j >= b->bcol && j < b->bcol + b->cols)
                return layout->d->rank;
        }
        return -1;
    }
    return dmxi_layout_block_owner(layout, dmxi_layout_row_block(layout, i),
                                   dmxi_layout_col_block(layout, j));
}
