/* SPDX-License-Identifier: BSD-3-Clause */
/* Package volumes between two layouts of one matrix (block-cyclic or general grids), and the
 * remote volume of a relabeling.
 *
 * Block-cyclic pairs: which source rank sends element (r, c) to which target rank depends on r
 * only through the process rows and on c only through the process columns, so
 *     V((q, s) -> (a, b)) = rows(q -> a) * cols(s -> b)
 * where rows(q -> a) counts the indices r in [0, m) on source process row q and target process
 * row a (for a transpose: target process column), and likewise for columns. Each 1D count is
 * one merge of the two sets of block boundaries. The owner pattern of a dimension repeats
 * every T = lcm(mb*prow, mb'*prow') indices, so only min(L, T) indices are merged and every
 * segment is weighted by how often it recurs in [0, L). The P x P matrix is then the Kronecker
 * product of the two small ones, emitted row (target rank) by row with sources ascending.
 *
 * General grids: the grid overlay (seed section 5) of merged row and column splits; each pair
 * of row and column segments is one overlay block with one source and one target owner.
 */
#include "cyclic_volume.h"

#include <string.h>

/* 1D or 2D limits on work arrays: fail cleanly instead of trying to allocate absurd sizes. */
#define MAX_SEGMENTS (INT64_C(1) << 30)
#define MAX_TRIPLES (INT64_C(1) << 28)
#define MAX_GRID_BLOCKS (INT64_C(1) << 26)
#define MAX_EXTENT (INT64_C(1) << 61)

typedef struct triple {
    int r, c;
    int64_t v;
} triple;

typedef struct pair {
    int c;
    int64_t v;
} pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    return (a->c > b->c) - (a->c < b->c);
}

/* Sort entries [lo, hi) of (idx, val) by idx (indices are distinct). */
static dmx_status sort_row(int *idx, int64_t *val, int64_t lo, int64_t hi)
{
    int64_t len = hi - lo;
    if (len <= 24) {
        for (int64_t a = lo + 1; a < hi; a++) {
            int c = idx[a];
            int64_t v = val[a];
            int64_t b = a;
            while (b > lo && idx[b - 1] > c) {
                idx[b] = idx[b - 1];
                val[b] = val[b - 1];
                b--;
            }
            idx[b] = c;
            val[b] = v;
        }
        return DMX_SUCCESS;
    }
    pair *tmp = dmxi_malloc(len, sizeof *tmp);
    if (!tmp)
        return dmxi_error(DMX_ERR_ALLOC, __FILE__, __LINE__, "out of memory (%lld pairs)",
                          (long long)len);
    for (int64_t k = 0; k < len; k++) {
        tmp[k].c = idx[lo + k];
        tmp[k].v = val[lo + k];
    }
    qsort(tmp, (size_t)len, sizeof *tmp, pair_cmp);
    for (int64_t k = 0; k < len; k++) {
        idx[lo + k] = tmp[k].c;
        val[lo + k] = tmp[k].v;
    }
    free(tmp);
    return DMX_SUCCESS;
}

/* Sum triples (r, c, v) with equal (r, c) into CSR (rows sorted by c): counting sort by row,
 * then a sparse accumulator over the columns of each row. O(nt + nrows + ncols). */
static dmx_status csr_from_triples(int nrows, int ncols, const triple *t, int64_t nt,
                                   int64_t **ptr_out, int **idx_out, int64_t **val_out,
                                   int64_t *nnz_out)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *ptr = dmxi_calloc((int64_t)nrows + 1, sizeof *ptr);
    int *idx = dmxi_malloc(nt, sizeof *idx);
    int64_t *val = dmxi_malloc(nt, sizeof *val);
    int64_t *pos = dmxi_malloc(ncols, sizeof *pos);
    int64_t *next = dmxi_malloc((int64_t)nrows + 1, sizeof *next);
    DMXI_CHECK(ptr && idx && val && pos && next, DMX_ERR_ALLOC, "out of memory (%lld entries)",
               (long long)nt);
    for (int64_t k = 0; k < nt; k++)
        ptr[t[k].r + 1]++;
    for (int r = 0; r < nrows; r++)
        ptr[r + 1] += ptr[r];
    for (int r = 0; r <= nrows; r++)
        next[r] = ptr[r];
    for (int64_t k = 0; k < nt; k++) {
        int64_t at = next[t[k].r]++;
        idx[at] = t[k].c;
        val[at] = t[k].v;
    }
    for (int c = 0; c < ncols; c++)
        pos[c] = -1;
    int64_t out = 0;
    for (int r = 0; r < nrows; r++) {
        int64_t start = out;
        for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) {
            int c = idx[k];
            if (pos[c] >= start) {
                val[pos[c]] += val[k];
            } else {
                pos[c] = out;
                idx[out] = c;
                val[out] = val[k];
                out++;
            }
        }
        ptr[r] = start;
        DMXI_TRY(sort_row(idx, val, start, out));
    }
    ptr[nrows] = out;
    *ptr_out = ptr;
    *idx_out = idx;
    *val_out = val;
    *nnz_out = out;
    ptr = NULL;
    idx = NULL;
    val = NULL;
cleanup:
    free(ptr);
    free(idx);
    free(val);
    free(pos);
    free(next);
    return st;
}

/* 1D overlap counts of a dimension of length len distributed block-cyclically twice: cnt of
 * indices on source coordinate q and target coordinate a, as CSR by a (rows sorted by q). */
typedef struct overlap {
    int64_t *ptr;
    int *idx;
    int64_t *cnt;
    int64_t nnz;
} overlap;

static void overlap_free(overlap *o)
{
    free(o->ptr);
    free(o->idx);
    free(o->cnt);
    memset(o, 0, sizeof *o);
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static dmx_status overlap_1d(int64_t len, int64_t b1, int p1, int s1, int64_t b2, int p2, int s2,
                             overlap *out)
{
    dmx_status st = DMX_SUCCESS;
    triple *t = NULL;
    memset(out, 0, sizeof *out);
    /* Period of the owner pattern; without one (or if it is longer than len) merge it all. */
    int64_t scan = len, reps = 1, rest = 0;
    if (b1 <= INT64_MAX / p1 && b2 <= INT64_MAX / p2) {
        int64_t t1 = b1 * p1, t2 = b2 * p2;
        int64_t q = t1 / gcd64(t1, t2);
        if (q <= INT64_MAX / t2 && q * t2 < len) {
            scan = q * t2;
            reps = len / scan;
            rest = len % scan;
        }
    }
    int64_t nseg = scan / b1 + scan / b2 + 2;
    DMXI_CHECK(nseg <= MAX_SEGMENTS, DMX_ERR_UNSUPPORTED,
               "overlap of %lld segments is too large (blocks %lld and %lld over %lld)",
               (long long)nseg, (long long)b1, (long long)b2, (long long)len);
    t = dmxi_malloc(nseg, sizeof *t);
    DMXI_CHECK(t != NULL, DMX_ERR_ALLOC, "out of memory (%lld segments)", (long long)nseg);
    int64_t nt = 0;
    for (int64_t at = 0; at < scan;) {
        int64_t k1 = at / b1, k2 = at / b2;
        int64_t end = (k1 + 1) * b1;
        if ((k2 + 1) * b2 < end)
            end = (k2 + 1) * b2;
        if (scan < end)
            end = scan;
        int64_t c = reps * (end - at);
        if (rest > at)
            c += (rest < end ? rest : end) - at;
        t[nt].r = (int)((k2 % p2 + s2) % p2);
        t[nt].c = (int)((k1 % p1 + s1) % p1);
        t[nt].v = c;
        nt++;
        at = end;
    }
    DMXI_TRY(csr_from_triples(p2, p1, t, nt, &out->ptr, &out->idx, &out->cnt, &out->nnz));
cleanup:
    free(t);
    return st;
}

static dmx_status check_bc(const dmxi_bc_desc *d, const char *what)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(d != NULL, DMX_ERR_NULL, "%s layout is NULL", what);
    DMXI_CHECK(d->m >= 0 && d->n >= 0 && d->m <= MAX_EXTENT && d->n <= MAX_EXTENT, DMX_ERR_ARG,
               "%s: size %lld x %lld out of range", what, (long long)d->m, (long long)d->n);
    DMXI_CHECK(d->mb >= 1 && d->nb >= 1 && d->mb <= MAX_EXTENT && d->nb <= MAX_EXTENT, DMX_ERR_ARG,
               "%s: block size %lld x %lld out of range", what, (long long)d->mb, (long long)d->nb);
    DMXI_CHECK(d->prow >= 1 && d->pcol >= 1 && d->prow <= INT_MAX / d->pcol, DMX_ERR_ARG,
               "%s: process grid %d x %d invalid", what, d->prow, d->pcol);
    DMXI_CHECK(d->order == 'R' || d->order == 'C' || d->order == 'r' || d->order == 'c',
               DMX_ERR_ARG, "%s: grid order must be R or C", what);
    DMXI_CHECK(d->rsrc >= 0 && d->rsrc < d->prow && d->csrc >= 0 && d->csrc < d->pcol, DMX_ERR_ARG,
               "%s: first block on process (%d, %d) outside the grid", what, d->rsrc, d->csrc);
cleanup:
    return st;
}

static int bc_rank(const dmxi_bc_desc *d, int pr, int pc)
{
    return (d->order == 'R' || d->order == 'r') ? pr * d->pcol + pc : pr + pc * d->prow;
}

void dmxi_cyclic_volume_free(dmxi_volume *v)
{
    if (!v)
        return;
    free(v->rowptr);
    free(v->col);
    free(v->vol);
    memset(v, 0, sizeof *v);
}

dmx_status dmxi_cyclic_volume(const dmxi_bc_desc *src, const dmxi_bc_desc *dst, int transpose,
                              dmxi_volume *out)
{
    dmx_status st = DMX_SUCCESS;
    overlap oa, ob; /* by target row coordinate / by target column coordinate */
    dmxi_volume v;
    memset(&oa, 0, sizeof oa);
    memset(&ob, 0, sizeof ob);
    memset(&v, 0, sizeof v);
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "output is NULL");
    memset(out, 0, sizeof *out);
    DMXI_TRY(check_bc(src, "source"));
    DMXI_TRY(check_bc(dst, "target"));
    int64_t tm = transpose ? src->n : src->m, tn = transpose ? src->m : src->n;
    DMXI_CHECK(dst->m == tm && dst->n == tn, DMX_ERR_LAYOUT,
               "target is %lld x %lld, op(source) is %lld x %lld", (long long)dst->m,
               (long long)dst->n, (long long)tm, (long long)tn);
    int ps = src->prow * src->pcol, pt = dst->prow * dst->pcol;
    v.p = ps > pt ? ps : pt;
    DMXI_TRY(dmxi_mul64(src->m, src->n, &v.total));
    /* oa: target rows against the source dimension of the same length; entries are source
     * process rows (no transpose) or source process columns (transpose). ob likewise. */
    if (!transpose) {
        DMXI_TRY(
            overlap_1d(src->m, src->mb, src->prow, src->rsrc, dst->mb, dst->prow, dst->rsrc, &oa));
        DMXI_TRY(
            overlap_1d(src->n, src->nb, src->pcol, src->csrc, dst->nb, dst->pcol, dst->csrc, &ob));
    } else {
        DMXI_TRY(
            overlap_1d(src->n, src->nb, src->pcol, src->csrc, dst->mb, dst->prow, dst->rsrc, &oa));
        DMXI_TRY(
            overlap_1d(src->m, src->mb, src->prow, src->rsrc, dst->nb, dst->pcol, dst->csrc, &ob));
    }
    int trow = dst->order == 'R' || dst->order == 'r';
    int srow = src->order == 'R' || src->order == 'r';
    v.rowptr = dmxi_calloc((int64_t)v.p + 1, sizeof *v.rowptr);
    DMXI_CHECK(v.rowptr != NULL, DMX_ERR_ALLOC, "out of memory (%d ranks)", v.p);
    for (int j = 0; j < v.p; j++) {
        int64_t cnt = 0;
        if (j < pt) {
            int a = trow ? j / dst->pcol : j % dst->prow;
            int b = trow ? j % dst->pcol : j / dst->prow;
            DMXI_TRY(dmxi_mul64(oa.ptr[a + 1] - oa.ptr[a], ob.ptr[b + 1] - ob.ptr[b], &cnt));
        }
        DMXI_TRY(dmxi_add64(v.rowptr[j], cnt, &v.rowptr[j + 1]));
    }
    v.nnz = v.rowptr[v.p];
    v.col = dmxi_malloc(v.nnz, sizeof *v.col);
    v.vol = dmxi_malloc(v.nnz, sizeof *v.vol);
    DMXI_CHECK(v.col && v.vol, DMX_ERR_ALLOC, "out of memory (%lld volumes)", (long long)v.nnz);
    int64_t sum = 0;
    for (int j = 0; j < pt; j++) {
        int a = trow ? j / dst->pcol : j % dst->prow;
        int b = trow ? j % dst->pcol : j / dst->prow;
        /* source process-row list and process-column list for this target rank */
        const overlap *qr = transpose ? &ob : &oa, *qc = transpose ? &oa : &ob;
        int64_t r0 = transpose ? ob.ptr[b] : oa.ptr[a],
                r1 = transpose ? ob.ptr[b + 1] : oa.ptr[a + 1];
        int64_t c0 = transpose ? oa.ptr[a] : ob.ptr[b],
                c1 = transpose ? oa.ptr[a + 1] : ob.ptr[b + 1];
        int64_t k = v.rowptr[j];
        /* the outer loop runs over the coordinate that dominates the source rank, so each row
         * comes out sorted */
        if (srow) {
            for (int64_t x = r0; x < r1; x++)
                for (int64_t y = c0; y < c1; y++, k++) {
                    v.col[k] = bc_rank(src, qr->idx[x], qc->idx[y]);
                    v.vol[k] = qr->cnt[x] * qc->cnt[y];
                    sum += v.vol[k];
                }
        } else {
            for (int64_t y = c0; y < c1; y++)
                for (int64_t x = r0; x < r1; x++, k++) {
                    v.col[k] = bc_rank(src, qr->idx[x], qc->idx[y]);
                    v.vol[k] = qr->cnt[x] * qc->cnt[y];
                    sum += v.vol[k];
                }
        }
    }
    DMXI_CHECK(sum == v.total, DMX_ERR_INTERNAL, "volumes sum to %lld, expected %lld",
               (long long)sum, (long long)v.total);
    *out = v;
    memset(&v, 0, sizeof v);
cleanup:
    overlap_free(&oa);
    overlap_free(&ob);
    dmxi_cyclic_volume_free(&v);
    return st;
}

/* ---- general grids ---------------------------------------------------------------------- */

static dmx_status check_grid(const dmxi_grid_desc *g, int p, const char *what)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(g != NULL, DMX_ERR_NULL, "%s layout is NULL", what);
    DMXI_CHECK(g->m >= 0 && g->n >= 0, DMX_ERR_ARG, "%s: negative size", what);
    DMXI_CHECK(g->nrb >= 0 && g->ncb >= 0 && (g->nrb > 0) == (g->m > 0) &&
                   (g->ncb > 0) == (g->n > 0),
               DMX_ERR_LAYOUT, "%s: %lld x %lld blocks for a %lld x %lld matrix", what,
               (long long)g->nrb, (long long)g->ncb, (long long)g->m, (long long)g->n);
    DMXI_CHECK(g->rowsplits && g->colsplits && (g->owners || g->nrb * g->ncb == 0), DMX_ERR_NULL,
               "%s: NULL splits or owners", what);
    DMXI_CHECK(g->rowsplits[0] == 0 && g->rowsplits[g->nrb] == g->m && g->colsplits[0] == 0 &&
                   g->colsplits[g->ncb] == g->n,
               DMX_ERR_LAYOUT, "%s: splits must run from 0 to the matrix size", what);
    for (int64_t k = 0; k < g->nrb; k++)
        DMXI_CHECK(g->rowsplits[k] < g->rowsplits[k + 1], DMX_ERR_LAYOUT,
                   "%s: row splits not increasing at %lld", what, (long long)k);
    for (int64_t k = 0; k < g->ncb; k++)
        DMXI_CHECK(g->colsplits[k] < g->colsplits[k + 1], DMX_ERR_LAYOUT,
                   "%s: column splits not increasing at %lld", what, (long long)k);
    DMXI_CHECK(g->nrb <= MAX_GRID_BLOCKS / (g->ncb > 0 ? g->ncb : 1), DMX_ERR_UNSUPPORTED,
               "%s: too many blocks", what);
    for (int64_t k = 0; k < g->nrb * g->ncb; k++)
        DMXI_CHECK(g->owners[k] >= 0 && g->owners[k] < p, DMX_ERR_LAYOUT,
                   "%s: owner %d of block %lld outside [0, %d)", what, g->owners[k], (long long)k,
                   p);
cleanup:
    return st;
}

/* Merge two split lists over [0, len): segment s covers [a_k, b_k) of block ia[s] of the first
 * and ib[s] of the second. */
typedef struct segments {
    int64_t n;
    int64_t *ia, *ib, *len;
} segments;

static void segments_free(segments *s)
{
    free(s->ia);
    free(s->ib);
    free(s->len);
    memset(s, 0, sizeof *s);
}

static dmx_status merge_splits(const int64_t *sa, int64_t na, const int64_t *sb, int64_t nb,
                               segments *out)
{
    dmx_status st = DMX_SUCCESS;
    memset(out, 0, sizeof *out);
    int64_t cap = na + nb;
    out->ia = dmxi_malloc(cap, sizeof *out->ia);
    out->ib = dmxi_malloc(cap, sizeof *out->ib);
    out->len = dmxi_malloc(cap, sizeof *out->len);
    DMXI_CHECK(out->ia && out->ib && out->len, DMX_ERR_ALLOC, "out of memory");
    int64_t i = 0, j = 0, at = 0;
    while (i < na && j < nb) {
        int64_t end = sa[i + 1] < sb[j + 1] ? sa[i + 1] : sb[j + 1];
        out->ia[out->n] = i;
        out->ib[out->n] = j;
        out->len[out->n] = end - at;
        out->n++;
        at = end;
        if (sa[i + 1] == end)
            i++;
        if (sb[j + 1] == end)
            j++;
    }
cleanup:
    if (st != DMX_SUCCESS)
        segments_free(out);
    return st;
}

dmx_status dmxi_cyclic_volume_grid(const dmxi_grid_desc *src, const dmxi_grid_desc *dst,
                                   int transpose, int p, dmxi_volume *out)
{
    dmx_status st = DMX_SUCCESS;
    segments rs, cs;
    triple *t = NULL;
    dmxi_volume v;
    memset(&rs, 0, sizeof rs);
    memset(&cs, 0, sizeof cs);
    memset(&v, 0, sizeof v);
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "output is NULL");
    memset(out, 0, sizeof *out);
    DMXI_CHECK(p >= 1, DMX_ERR_ARG, "p = %d", p);
    DMXI_TRY(check_grid(src, p, "source"));
    DMXI_TRY(check_grid(dst, p, "target"));
    int64_t tm = transpose ? src->n : src->m, tn = transpose ? src->m : src->n;
    DMXI_CHECK(dst->m == tm && dst->n == tn, DMX_ERR_LAYOUT,
               "target is %lld x %lld, op(source) is %lld x %lld", (long long)dst->m,
               (long long)dst->n, (long long)tm, (long long)tn);
    v.p = p;
    DMXI_TRY(dmxi_mul64(src->m, src->n, &v.total));
    /* rs: source rows against the target dimension of length m; cs: source columns (n). */
    if (!transpose) {
        DMXI_TRY(merge_splits(src->rowsplits, src->nrb, dst->rowsplits, dst->nrb, &rs));
        DMXI_TRY(merge_splits(src->colsplits, src->ncb, dst->colsplits, dst->ncb, &cs));
    } else {
        DMXI_TRY(merge_splits(src->rowsplits, src->nrb, dst->colsplits, dst->ncb, &rs));
        DMXI_TRY(merge_splits(src->colsplits, src->ncb, dst->rowsplits, dst->nrb, &cs));
    }
    DMXI_CHECK(rs.n == 0 || cs.n <= MAX_TRIPLES / rs.n, DMX_ERR_UNSUPPORTED,
               "grid overlay of %lld x %lld blocks is too large", (long long)rs.n, (long long)cs.n);
    int64_t nt = rs.n * cs.n;
    t = dmxi_malloc(nt, sizeof *t);
    DMXI_CHECK(t != NULL, DMX_ERR_ALLOC, "out of memory (%lld overlay blocks)", (long long)nt);
    int64_t k = 0;
    for (int64_t a = 0; a < rs.n; a++) {
        for (int64_t b = 0; b < cs.n; b++, k++) {
            int64_t dr = transpose ? cs.ib[b] : rs.ib[a], dc = transpose ? rs.ib[a] : cs.ib[b];
            t[k].r = dst->owners[dr * dst->ncb + dc];
            t[k].c = src->owners[rs.ia[a] * src->ncb + cs.ia[b]];
            t[k].v = rs.len[a] * cs.len[b];
        }
    }
    DMXI_TRY(csr_from_triples(p, p, t, nt, &v.rowptr, &v.col, &v.vol, &v.nnz));
    *out = v;
    memset(&v, 0, sizeof v);
cleanup:
    segments_free(&rs);
    segments_free(&cs);
    free(t);
    dmxi_cyclic_volume_free(&v);
    return st;
}

dmx_status dmxi_cyclic_volume_bc_to_grid(const dmxi_bc_desc *bc, dmxi_grid_desc *grid,
                                         int64_t **rowsplits, int64_t **colsplits, int **owners)
{
    dmx_status st = DMX_SUCCESS;
    int64_t *rsp = NULL, *csp = NULL;
    int *own = NULL;
    DMXI_TRY(check_bc(bc, "block-cyclic"));
    DMXI_CHECK(grid && rowsplits && colsplits && owners, DMX_ERR_NULL, "NULL output");
    int64_t nrb = (bc->m + bc->mb - 1) / bc->mb, ncb = (bc->n + bc->nb - 1) / bc->nb;
    DMXI_CHECK(nrb <= MAX_GRID_BLOCKS / (ncb > 0 ? ncb : 1), DMX_ERR_UNSUPPORTED,
               "%lld x %lld blocks are too many for a grid layout", (long long)nrb, (long long)ncb);
    rsp = dmxi_malloc(nrb + 1, sizeof *rsp);
    csp = dmxi_malloc(ncb + 1, sizeof *csp);
    own = dmxi_malloc(nrb * ncb, sizeof *own);
    DMXI_CHECK(rsp && csp && own, DMX_ERR_ALLOC, "out of memory");
    for (int64_t k = 0; k <= nrb; k++)
        rsp[k] = k * bc->mb < bc->m ? k * bc->mb : bc->m;
    for (int64_t k = 0; k <= ncb; k++)
        csp[k] = k * bc->nb < bc->n ? k * bc->nb : bc->n;
    for (int64_t a = 0; a < nrb; a++)
        for (int64_t b = 0; b < ncb; b++)
            own[a * ncb + b] =
                bc_rank(bc, (int)((a + bc->rsrc) % bc->prow), (int)((b + bc->csrc) % bc->pcol));
    grid->m = bc->m;
    grid->n = bc->n;
    grid->nrb = nrb;
    grid->ncb = ncb;
    grid->rowsplits = rsp;
    grid->colsplits = csp;
    grid->owners = own;
    *rowsplits = rsp;
    *colsplits = csp;
    *owners = own;
    rsp = NULL;
    csp = NULL;
    own = NULL;
cleanup:
    free(rsp);
    free(csp);
    free(own);
    return st;
}

dmx_status dmxi_cyclic_volume_remote(const dmxi_volume *v, const int *sigma, int64_t *remote)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(v != NULL && remote != NULL, DMX_ERR_NULL, "NULL argument");
    int64_t local = 0;
    for (int j = 0; j < v->p; j++) {
        int i = sigma ? sigma[j] : j;
        DMXI_CHECK(i >= 0 && i < v->p, DMX_ERR_ARG, "sigma[%d] = %d out of range", j, i);
        int64_t lo = v->rowptr[j], hi = v->rowptr[j + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (v->col[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < v->rowptr[j + 1] && v->col[lo] == i)
            local += v->vol[lo];
    }
    *remote = v->total - local;
cleanup:
    return st;
}

dmxi_lap_sparse dmxi_cyclic_volume_gains(const dmxi_volume *v)
{
    dmxi_lap_sparse g;
    g.n = v->p;
    g.rowptr = v->rowptr;
    g.col = v->col;
    g.gain = v->vol;
    return g;
}
