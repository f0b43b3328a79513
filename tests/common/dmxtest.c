/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared test helpers: see dmxtest.h. */
#define _POSIX_C_SOURCE 200809L

#include "dmxtest.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------- */
/* Formula and element access                                                               */
/* ---------------------------------------------------------------------------------------- */

void dmxt_formula(int k, int64_t i, int64_t j, double *re, double *im)
{
    if (k < 0) {
        *re = NAN;
        *im = NAN;
        return;
    }
    double base = (double)k * 262144.0;
    *re = base + (double)(i * DMXT_MAX_INDEX + j) + 1.0;
    *im = -(base + (double)(j * DMXT_MAX_INDEX + i) + 0.5);
}

void dmxt_get(dmx_dtype dtype, const void *data, int64_t pos, double *re, double *im)
{
    *re = 0.0;
    *im = 0.0;
    switch (dtype) {
    case DMX_FLOAT:
        *re = ((const float *)data)[pos];
        *im = 0.0;
        break;
    case DMX_DOUBLE:
        *re = ((const double *)data)[pos];
        *im = 0.0;
        break;
    case DMX_CFLOAT:
        *re = ((const float *)data)[2 * pos];
        *im = ((const float *)data)[2 * pos + 1];
        break;
    case DMX_CDOUBLE:
        *re = ((const double *)data)[2 * pos];
        *im = ((const double *)data)[2 * pos + 1];
        break;
    }
}

void dmxt_set(dmx_dtype dtype, void *data, int64_t pos, double re, double im)
{
    switch (dtype) {
    case DMX_FLOAT: ((float *)data)[pos] = (float)re; break;
    case DMX_DOUBLE: ((double *)data)[pos] = re; break;
    case DMX_CFLOAT:
        ((float *)data)[2 * pos] = (float)re;
        ((float *)data)[2 * pos + 1] = (float)im;
        break;
    case DMX_CDOUBLE:
        ((double *)data)[2 * pos] = re;
        ((double *)data)[2 * pos + 1] = im;
        break;
    }
}

const char *dmxt_dtype_name(dmx_dtype t)
{
    switch (t) {
    case DMX_FLOAT: return "float";
    case DMX_DOUBLE: return "double";
    case DMX_CFLOAT: return "cfloat";
    case DMX_CDOUBLE: return "cdouble";
    }
    return "?";
}

const char *dmxt_op_name(dmx_op op)
{
    switch (op) {
    case DMX_OP_N: return "N";
    case DMX_OP_T: return "T";
    case DMX_OP_C: return "C";
    }
    return "?";
}

static int is_complex(dmx_dtype t)
{
    return t == DMX_CFLOAT || t == DMX_CDOUBLE;
}

void dmxt_append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------------------- */
/* Test matrices                                                                            */
/* ---------------------------------------------------------------------------------------- */

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "dmxtest: out of memory (%zu bytes)\n", bytes);
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "dmxtest: out of memory\n");
        dmxt_flush_before_abort();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static const unsigned char SENTINEL = 0xA5;

static void matrix_base(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n)
{
    memset(M, 0, sizeof *M);
    M->comm = comm;
    MPI_Comm_rank(comm, &M->rank);
    MPI_Comm_size(comm, &M->size);
    M->dtype = dtype;
    M->m = m;
    M->n = n;
    M->myrow = M->mycol = -1;
}

void dmxt_matrix_bc(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                    int64_t mb, int64_t nb, int prow, int pcol, char grid_order,
                    const int *grid_ranks, int rsrc, int csrc, int64_t lld_pad)
{
    matrix_base(M, comm, dtype, m, n);
    M->kind = grid_ranks ? DMXT_MAPPED : DMXT_BC;
    M->mb = mb;
    M->nb = nb;
    M->prow = prow;
    M->pcol = pcol;
    M->grid_order = grid_order;
    M->rsrc = rsrc;
    M->csrc = csrc;
    M->lld_pad = lld_pad;
    int np = prow * pcol;
    M->grid_ranks = xmalloc(sizeof(int) * (size_t)np);
    for (int pr = 0; pr < prow; pr++) {
        for (int pc = 0; pc < pcol; pc++) {
            int r;
            if (grid_ranks)
                r = grid_ranks[pr * pcol + pc];
            else if (grid_order == 'R' || grid_order == 'r')
                r = pr * pcol + pc;
            else
                r = pr + pc * prow;
            M->grid_ranks[pr * pcol + pc] = r;
            if (r == M->rank) {
                M->myrow = pr;
                M->mycol = pc;
            }
        }
    }
    if (M->myrow >= 0) {
        M->lrows = dmxt_numroc(m, mb, M->myrow, rsrc, prow);
        M->lcols = dmxt_numroc(n, nb, M->mycol, csrc, pcol);
    }
    M->lld = (M->lrows > 1 ? M->lrows : 1) + lld_pad;
    if (grid_ranks) {
        snprintf(M->desc, sizeof M->desc, "mapped %lldx%lld mb=%lld nb=%lld grid=%dx%d ranks=[",
                 (long long)m, (long long)n, (long long)mb, (long long)nb, prow, pcol);
        for (int i = 0; i < np; i++)
            dmxt_append(M->desc, sizeof M->desc, "%s%d", i ? "," : "", grid_ranks[i]);
        dmxt_append(M->desc, sizeof M->desc, "] src=(%d,%d) lldpad=%lld", rsrc, csrc,
                    (long long)lld_pad);
    } else {
        snprintf(M->desc, sizeof M->desc,
                 "bc %lldx%lld mb=%lld nb=%lld grid=%dx%d'%c' src=(%d,%d) lldpad=%lld",
                 (long long)m, (long long)n, (long long)mb, (long long)nb, prow, pcol, grid_order,
                 rsrc, csrc, (long long)lld_pad);
    }
}

void dmxt_matrix_custom(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                        int64_t nrb, const int64_t *rsplits, int64_t ncb, const int64_t *csplits,
                        const int *owners, const dmx_order *orders, const int64_t *ld_pads)
{
    matrix_base(M, comm, dtype, m, n);
    M->kind = DMXT_CUSTOM;
    M->nrb = nrb;
    M->ncb = ncb;
    size_t nb = (size_t)(nrb * ncb);
    M->rsplits = xmalloc(sizeof(int64_t) * (size_t)(nrb + 1));
    M->csplits = xmalloc(sizeof(int64_t) * (size_t)(ncb + 1));
    memcpy(M->rsplits, rsplits, sizeof(int64_t) * (size_t)(nrb + 1));
    memcpy(M->csplits, csplits, sizeof(int64_t) * (size_t)(ncb + 1));
    M->owners = xmalloc(sizeof(int) * nb);
    M->orders = xmalloc(sizeof(dmx_order) * nb);
    M->ld_pads = xmalloc(sizeof(int64_t) * nb);
    for (size_t b = 0; b < nb; b++) {
        M->owners[b] = owners[b];
        M->orders[b] = orders ? orders[b] : DMX_COL_MAJOR;
        M->ld_pads[b] = ld_pads ? ld_pads[b] : 0;
    }
    snprintf(M->desc, sizeof M->desc, "custom %lldx%lld rows=[", (long long)m, (long long)n);
    for (int64_t i = 0; i <= nrb; i++)
        dmxt_append(M->desc, sizeof M->desc, "%s%lld", i ? "," : "", (long long)rsplits[i]);
    dmxt_append(M->desc, sizeof M->desc, "] cols=[");
    for (int64_t i = 0; i <= ncb; i++)
        dmxt_append(M->desc, sizeof M->desc, "%s%lld", i ? "," : "", (long long)csplits[i]);
    dmxt_append(M->desc, sizeof M->desc, "] owners/order/ldpad=[");
    for (size_t b = 0; b < nb; b++)
        dmxt_append(M->desc, sizeof M->desc, "%s%d%c%lld", b ? "," : "", M->owners[b],
                    M->orders[b] == DMX_COL_MAJOR ? 'C' : 'R', (long long)M->ld_pads[b]);
    dmxt_append(M->desc, sizeof M->desc, "]");
}

void dmxt_matrix_local_tiles(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                             int64_t nrect, const int64_t *rects, const int *owners,
                             const dmx_order *orders, const int64_t *ld_pads)
{
    matrix_base(M, comm, dtype, m, n);
    M->kind = DMXT_LOCAL;
    M->nrect = nrect;
    size_t nr = (size_t)nrect;
    M->rects = xmalloc(sizeof(int64_t) * 4 * nr);
    memcpy(M->rects, rects, sizeof(int64_t) * 4 * nr);
    M->owners = xmalloc(sizeof(int) * nr);
    M->orders = xmalloc(sizeof(dmx_order) * nr);
    M->ld_pads = xmalloc(sizeof(int64_t) * nr);
    for (size_t b = 0; b < nr; b++) {
        M->owners[b] = owners[b];
        M->orders[b] = orders ? orders[b] : DMX_COL_MAJOR;
        M->ld_pads[b] = ld_pads ? ld_pads[b] : 0;
    }
    snprintf(M->desc, sizeof M->desc, "local %lldx%lld tiles(r0,c0,rows,cols:owner order ldpad)=[",
             (long long)m, (long long)n);
    for (size_t b = 0; b < nr; b++)
        dmxt_append(M->desc, sizeof M->desc, "%s%lld,%lld,%lld,%lld:%d%c%lld", b ? " " : "",
                    (long long)rects[4 * b], (long long)rects[4 * b + 1],
                    (long long)rects[4 * b + 2], (long long)rects[4 * b + 3], M->owners[b],
                    M->orders[b] == DMX_COL_MAJOR ? 'C' : 'R', (long long)M->ld_pads[b]);
    dmxt_append(M->desc, sizeof M->desc, "]");
}

/* A random guillotine tiling of m x n into at most maxr rectangles. */
static int64_t random_tiles(dmxt_rng *rng, int64_t m, int64_t n, int64_t maxr, int64_t **out)
{
    int64_t *r = xmalloc(sizeof(int64_t) * 4 * (size_t)(maxr ? maxr : 1));
    int64_t nr = 0;
    if (m > 0 && n > 0) {
        r[0] = 0, r[1] = 0, r[2] = m, r[3] = n;
        nr = 1;
        int64_t target = dmxt_rng_int(rng, 1, maxr);
        for (int tries = 0; nr < target && tries < 100; tries++) {
            int64_t k = dmxt_rng_int(rng, 0, nr - 1);
            int64_t *t = &r[4 * k];
            int horiz = dmxt_rng_chance(rng, 50);
            if (t[2] < 2 && t[3] < 2)
                continue;
            if (t[2] < 2)
                horiz = 0;
            if (t[3] < 2)
                horiz = 1;
            int64_t *u = &r[4 * nr];
            if (horiz) { /* split rows */
                int64_t cut = dmxt_rng_int(rng, 1, t[2] - 1);
                u[0] = t[0] + cut, u[1] = t[1], u[2] = t[2] - cut, u[3] = t[3];
                t[2] = cut;
            } else {
                int64_t cut = dmxt_rng_int(rng, 1, t[3] - 1);
                u[0] = t[0], u[1] = t[1] + cut, u[2] = t[2], u[3] = t[3] - cut;
                t[3] = cut;
            }
            nr++;
        }
    }
    *out = r;
    return nr;
}

static int64_t random_block_size(dmxt_rng *rng, int64_t extent, int64_t min_block)
{
    static const int64_t sizes[] = {1, 1, 2, 3, 4, 5, 7, 8, 16, 32, 50, 64};
    if (extent > 0 && dmxt_rng_chance(rng, 12))
        return extent + dmxt_rng_int(rng, 0, 9); /* block as large as or larger than matrix */
    int64_t b;
    do
        b = sizes[dmxt_rng_int(rng, 0, (int64_t)(sizeof sizes / sizeof sizes[0]) - 1)];
    while (b < min_block);
    return b;
}

static void random_grid(dmxt_rng *rng, int P, int *prow, int *pcol)
{
    int cand[16][2];
    int nc = 0;
    cand[nc][0] = 1, cand[nc][1] = 1, nc++;
    cand[nc][0] = 1, cand[nc][1] = P, nc++;
    cand[nc][0] = P, cand[nc][1] = 1, nc++;
    if (P >= 2) {
        cand[nc][0] = 1, cand[nc][1] = 2, nc++;
        cand[nc][0] = 2, cand[nc][1] = 1, nc++;
    }
    if (P >= 4) {
        cand[nc][0] = 2, cand[nc][1] = 2, nc++;
    }
    if (P >= 6) {
        cand[nc][0] = 2, cand[nc][1] = 3, nc++;
        cand[nc][0] = 3, cand[nc][1] = 2, nc++;
    }
    int pr = (int)dmxt_rng_int(rng, 1, P);
    cand[nc][0] = pr, cand[nc][1] = (int)dmxt_rng_int(rng, 1, P / pr), nc++;
    int c = (int)dmxt_rng_int(rng, 0, nc - 1);
    *prow = cand[c][0];
    *pcol = cand[c][1];
}

static void random_splits(dmxt_rng *rng, int64_t extent, int64_t *nblocks, int64_t **splits)
{
    if (extent == 0) {
        *nblocks = 0;
        *splits = xmalloc(sizeof(int64_t));
        (*splits)[0] = 0;
        return;
    }
    int64_t maxb = extent < 7 ? extent : 7;
    int64_t nbk = dmxt_rng_int(rng, 1, maxb);
    int64_t *s = xmalloc(sizeof(int64_t) * (size_t)(nbk + 1));
    /* choose nbk-1 distinct cut points in (0, extent) by rejection */
    s[0] = 0;
    int64_t have = 1;
    while (have < nbk) {
        int64_t c = dmxt_rng_int(rng, 1, extent - 1);
        int dup = 0;
        for (int64_t t = 1; t < have; t++)
            dup |= s[t] == c;
        if (!dup)
            s[have++] = c;
    }
    for (int64_t a = 1; a < nbk; a++) /* insertion sort */
        for (int64_t b = a; b > 1 && s[b - 1] > s[b]; b--) {
            int64_t t = s[b];
            s[b] = s[b - 1];
            s[b - 1] = t;
        }
    s[nbk] = extent;
    *nblocks = nbk;
    *splits = s;
}

void dmxt_matrix_random(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                        int kind, dmxt_rng *rng)
{
    dmxt_matrix_random_ex(M, comm, dtype, m, n, kind, 1, rng);
}

void dmxt_matrix_random_ex(dmxt_matrix *M, MPI_Comm comm, dmx_dtype dtype, int64_t m, int64_t n,
                           int kind, int64_t min_block, dmxt_rng *rng)
{
    int P;
    MPI_Comm_size(comm, &P);
    if (kind < 0) {
        int64_t x = dmxt_rng_int(rng, 0, 99);
        kind = x < 45 ? DMXT_BC : x < 65 ? DMXT_MAPPED : DMXT_CUSTOM;
    }
    if (kind == DMXT_LOCAL) {
        int64_t *rects, nr = random_tiles(rng, m, n, 12, &rects);
        int *owners = xmalloc(sizeof(int) * (size_t)(nr ? nr : 1));
        dmx_order *ord = xmalloc(sizeof(dmx_order) * (size_t)(nr ? nr : 1));
        int64_t *pads = xmalloc(sizeof(int64_t) * (size_t)(nr ? nr : 1));
        int nsub = dmxt_rng_chance(rng, 30) ? (int)dmxt_rng_int(rng, 1, P) : P;
        for (int64_t b = 0; b < nr; b++) {
            owners[b] = (int)dmxt_rng_int(rng, 0, nsub - 1);
            ord[b] = dmxt_rng_chance(rng, 50) ? DMX_ROW_MAJOR : DMX_COL_MAJOR;
            pads[b] = dmxt_rng_chance(rng, 50) ? 0 : dmxt_rng_int(rng, 1, 3);
        }
        dmxt_matrix_local_tiles(M, comm, dtype, m, n, nr, rects, owners, ord, pads);
        M->shuffle = dmxt_rng_chance(rng, 50);
        free(rects);
        free(owners);
        free(ord);
        free(pads);
        return;
    }
    if (kind == DMXT_BC || kind == DMXT_MAPPED) {
        int64_t mb = random_block_size(rng, m, min_block);
        int64_t nb = random_block_size(rng, n, min_block);
        int prow, pcol;
        random_grid(rng, P, &prow, &pcol);
        static const char orders[] = {'R', 'C', 'r', 'c'};
        char go = orders[dmxt_rng_int(rng, 0, 3)];
        int rsrc = dmxt_rng_chance(rng, 50) ? 0 : (int)dmxt_rng_int(rng, 0, prow - 1);
        int csrc = dmxt_rng_chance(rng, 50) ? 0 : (int)dmxt_rng_int(rng, 0, pcol - 1);
        int64_t pad = dmxt_rng_chance(rng, 50) ? 0 : dmxt_rng_int(rng, 1, 3);
        int *ranks = NULL;
        if (kind == DMXT_MAPPED) {
            int *perm = xmalloc(sizeof(int) * (size_t)P);
            for (int i = 0; i < P; i++)
                perm[i] = i;
            dmxt_rng_shuffle(rng, perm, P);
            ranks = perm; /* the first prow*pcol entries: a random subset in random order */
        }
        dmxt_matrix_bc(M, comm, dtype, m, n, mb, nb, prow, pcol, go, ranks, rsrc, csrc, pad);
        free(ranks);
        return;
    }
    int64_t nrb, ncb, *rs, *cs;
    random_splits(rng, m, &nrb, &rs);
    random_splits(rng, n, &ncb, &cs);
    int64_t nb = nrb * ncb;
    int *owners = xmalloc(sizeof(int) * (size_t)(nb ? nb : 1));
    dmx_order *ord = xmalloc(sizeof(dmx_order) * (size_t)(nb ? nb : 1));
    int64_t *pads = xmalloc(sizeof(int64_t) * (size_t)(nb ? nb : 1));
    /* owners: all ranks, a random subset (some ranks own nothing), or a single rank */
    int64_t mode = dmxt_rng_int(rng, 0, 9);
    int nsub = mode < 5 ? P : mode < 8 ? (int)dmxt_rng_int(rng, 1, P) : 1;
    int *perm = xmalloc(sizeof(int) * (size_t)P);
    for (int i = 0; i < P; i++)
        perm[i] = i;
    dmxt_rng_shuffle(rng, perm, P);
    int rowmajor_pct = (int)dmxt_rng_int(rng, 0, 2) * 50;
    for (int64_t b = 0; b < nb; b++) {
        owners[b] = perm[dmxt_rng_int(rng, 0, nsub - 1)];
        ord[b] = dmxt_rng_chance(rng, rowmajor_pct) ? DMX_ROW_MAJOR : DMX_COL_MAJOR;
        pads[b] = dmxt_rng_chance(rng, 50) ? 0 : dmxt_rng_int(rng, 1, 3);
    }
    dmxt_matrix_custom(M, comm, dtype, m, n, nrb, rs, ncb, cs, owners, ord, pads);
    M->shuffle = dmxt_rng_chance(rng, 50);
    free(perm);
    free(owners);
    free(ord);
    free(pads);
    free(rs);
    free(cs);
}

static void add_block(dmxt_matrix *M, int64_t *cap, dmxt_block b)
{
    if (M->nblk == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        dmxt_block *nbk = realloc(M->blk, sizeof(dmxt_block) * (size_t)*cap);
        if (!nbk) {
            fprintf(stderr, "dmxtest: out of memory\n");
            dmxt_flush_before_abort();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        M->blk = nbk;
    }
    M->blk[M->nblk++] = b;
}

/* Recompute block data pointers of a block-cyclic matrix from allocs[0]. */
static void bc_blocks(dmxt_matrix *M)
{
    size_t esz = dmx_dtype_size(M->dtype);
    int64_t cap = 0;
    free(M->blk);
    M->blk = NULL;
    M->nblk = 0;
    if (M->lrows == 0 || M->lcols == 0)
        return;
    unsigned char *base = M->allocs[0];
    for (int64_t r0 = 0; r0 < M->m; r0 += M->mb) {
        if (dmxt_indxg2p(r0, M->mb, M->rsrc, M->prow) != M->myrow)
            continue;
        for (int64_t c0 = 0; c0 < M->n; c0 += M->nb) {
            if (dmxt_indxg2p(c0, M->nb, M->csrc, M->pcol) != M->mycol)
                continue;
            dmxt_block b;
            b.row0 = r0;
            b.col0 = c0;
            b.rows = M->m - r0 < M->mb ? M->m - r0 : M->mb;
            b.cols = M->n - c0 < M->nb ? M->n - c0 : M->nb;
            int64_t off =
                dmxt_indxg2l(r0, M->mb, M->prow) + dmxt_indxg2l(c0, M->nb, M->pcol) * M->lld;
            b.data = base + (size_t)off * esz;
            b.ld = M->lld;
            b.order = DMX_COL_MAJOR;
            b.alloc = 0;
            add_block(M, &cap, b);
        }
    }
}

static int64_t find_split(const int64_t *s, int64_t nb, int64_t x);

static void fill_sentinel(void *p, int64_t elems, size_t esz)
{
    if (p)
        memset(p, SENTINEL, (size_t)elems * esz);
}

void dmxt_matrix_alloc(dmxt_matrix *M)
{
    if (M->allocs)
        return;
    size_t esz = dmx_dtype_size(M->dtype);
    if (M->kind == DMXT_BC || M->kind == DMXT_MAPPED) {
        M->nalloc = 1;
        M->allocs = xcalloc(1, sizeof(void *));
        M->alloc_elems = xcalloc(1, sizeof(int64_t));
        if (M->lrows > 0 && M->lcols > 0) {
            M->alloc_elems[0] = M->lld * M->lcols;
            M->allocs[0] = xmalloc((size_t)M->alloc_elems[0] * esz);
            fill_sentinel(M->allocs[0], M->alloc_elems[0], esz);
        }
        bc_blocks(M);
        return;
    }
    int64_t nb = M->kind == DMXT_LOCAL ? M->nrect : M->nrb * M->ncb, mine = 0;
    for (int64_t b = 0; b < nb; b++)
        mine += M->owners[b] == M->rank;
    M->nalloc = (int)mine;
    M->allocs = xcalloc((size_t)mine, sizeof(void *));
    M->alloc_elems = xcalloc((size_t)mine, sizeof(int64_t));
    int64_t cap = 0;
    int local = M->kind == DMXT_LOCAL;
    for (int64_t bi = 0; bi < (local ? 1 : M->nrb); bi++) {
        for (int64_t bj = 0; bj < (local ? M->nrect : M->ncb); bj++) {
            int64_t b = local ? bj : bi * M->ncb + bj;
            if (M->owners[b] != M->rank)
                continue;
            dmxt_block k;
            if (local) {
                k.row0 = M->rects[4 * b];
                k.col0 = M->rects[4 * b + 1];
                k.rows = M->rects[4 * b + 2];
                k.cols = M->rects[4 * b + 3];
            } else {
                k.row0 = M->rsplits[bi];
                k.col0 = M->csplits[bj];
                k.rows = M->rsplits[bi + 1] - k.row0;
                k.cols = M->csplits[bj + 1] - k.col0;
            }
            k.order = M->orders[b];
            k.ld = (k.order == DMX_COL_MAJOR ? k.rows : k.cols) + M->ld_pads[b];
            k.alloc = (int)M->nblk;
            int64_t elems = k.ld * (k.order == DMX_COL_MAJOR ? k.cols : k.rows);
            M->alloc_elems[k.alloc] = elems;
            M->allocs[k.alloc] = xmalloc((size_t)elems * esz);
            fill_sentinel(M->allocs[k.alloc], elems, esz);
            k.data = M->allocs[k.alloc];
            add_block(M, &cap, k);
        }
    }
}

int64_t dmxt_matrix_user_blocks(const dmxt_matrix *M, dmx_block **out)
{
    int64_t nb = M->nblk;
    dmx_block *ub = xmalloc(sizeof(dmx_block) * (size_t)(nb ? nb : 1));
    int *perm = xmalloc(sizeof(int) * (size_t)(nb ? nb : 1));
    for (int64_t t = 0; t < nb; t++)
        perm[t] = (int)t;
    if (M->shuffle && nb > 1) {
        dmxt_rng r;
        dmxt_rng_seed(&r, (uint64_t)M->rank, (uint64_t)nb);
        dmxt_rng_shuffle(&r, perm, (int)nb);
    }
    for (int64_t t = 0; t < nb; t++) {
        const dmxt_block *k = &M->blk[perm[t]];
        ub[t].brow = find_split(M->rsplits, M->nrb, k->row0);
        ub[t].bcol = find_split(M->csplits, M->ncb, k->col0);
        ub[t].data = k->data;
        ub[t].ld = k->ld;
        ub[t].order = k->order;
    }
    free(perm);
    *out = ub;
    return nb;
}

int64_t dmxt_matrix_local_blocks(const dmxt_matrix *M, dmx_local_block **out)
{
    int64_t nb = M->nblk;
    dmx_local_block *lb = xmalloc(sizeof(dmx_local_block) * (size_t)(nb ? nb : 1));
    int *perm = xmalloc(sizeof(int) * (size_t)(nb ? nb : 1));
    for (int64_t t = 0; t < nb; t++)
        perm[t] = (int)t;
    if (M->shuffle && nb > 1) {
        dmxt_rng r;
        dmxt_rng_seed(&r, (uint64_t)M->rank + 99, (uint64_t)nb);
        dmxt_rng_shuffle(&r, perm, (int)nb);
    }
    for (int64_t t = 0; t < nb; t++) {
        const dmxt_block *k = &M->blk[perm[t]];
        lb[t].row0 = k->row0;
        lb[t].col0 = k->col0;
        lb[t].rows = k->rows;
        lb[t].cols = k->cols;
        lb[t].data = k->data;
        lb[t].ld = k->ld;
        lb[t].order = k->order;
    }
    free(perm);
    *out = lb;
    return nb;
}

dmx_status dmxt_matrix_create(dmxt_matrix *M)
{
    dmx_status st;
    dmxt_matrix_alloc(M);
    if (M->kind == DMXT_BC)
        return dmx_layout_create_block_cyclic(M->comm, M->m, M->n, M->mb, M->nb, M->prow, M->pcol,
                                              M->grid_order, M->rsrc, M->csrc, M->allocs[0], M->lld,
                                              &M->layout);
    if (M->kind == DMXT_MAPPED)
        return dmx_layout_create_block_cyclic_mapped(M->comm, M->m, M->n, M->mb, M->nb, M->prow,
                                                     M->pcol, M->grid_ranks, M->rsrc, M->csrc,
                                                     M->allocs[0], M->lld, &M->layout);
    if (M->kind == DMXT_LOCAL) {
        dmx_local_block *lb = NULL;
        int64_t nl = dmxt_matrix_local_blocks(M, &lb);
        st = dmx_layout_create_local(M->comm, M->m, M->n, nl, lb, &M->layout);
        free(lb);
        return st;
    }
    dmx_block *ub = NULL;
    int64_t nb = dmxt_matrix_user_blocks(M, &ub);
    st = dmx_layout_create_custom(M->comm, M->m, M->n, M->nrb, M->rsplits, M->ncb, M->csplits,
                                  M->owners, nb, ub, &M->layout);
    free(ub);
    return st;
}

void dmxt_matrix_free(dmxt_matrix *M)
{
    if (M->layout)
        dmx_layout_destroy(&M->layout);
    for (int a = 0; a < M->nalloc; a++)
        free(M->allocs[a]);
    free(M->allocs);
    free(M->alloc_elems);
    free(M->blk);
    free(M->grid_ranks);
    free(M->rsplits);
    free(M->csplits);
    free(M->owners);
    free(M->orders);
    free(M->ld_pads);
    free(M->rects);
    memset(M, 0, sizeof *M);
}

static int64_t find_split(const int64_t *s, int64_t nb, int64_t x)
{
    int64_t lo = 0, hi = nb - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (s[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int dmxt_matrix_owner(const dmxt_matrix *M, int64_t i, int64_t j)
{
    if (i < 0 || j < 0 || i >= M->m || j >= M->n)
        return -1;
    if (M->kind == DMXT_CUSTOM) {
        int64_t bi = find_split(M->rsplits, M->nrb, i), bj = find_split(M->csplits, M->ncb, j);
        return M->owners[bi * M->ncb + bj];
    }
    if (M->kind == DMXT_LOCAL) {
        for (int64_t b = 0; b < M->nrect; b++) {
            const int64_t *t = &M->rects[4 * b];
            if (i >= t[0] && i < t[0] + t[2] && j >= t[1] && j < t[1] + t[3])
                return M->owners[b];
        }
        return -1;
    }
    int pr = dmxt_indxg2p(i, M->mb, M->rsrc, M->prow);
    int pc = dmxt_indxg2p(j, M->nb, M->csrc, M->pcol);
    return M->grid_ranks[pr * M->pcol + pc];
}

void *dmxt_matrix_addr(const dmxt_matrix *M, int64_t i, int64_t j)
{
    if (dmxt_matrix_owner(M, i, j) != M->rank)
        return NULL;
    size_t esz = dmx_dtype_size(M->dtype);
    if (M->kind == DMXT_CUSTOM || M->kind == DMXT_LOCAL) {
        for (int64_t t = 0; t < M->nblk; t++) {
            const dmxt_block *k = &M->blk[t];
            if (i >= k->row0 && i < k->row0 + k->rows && j >= k->col0 && j < k->col0 + k->cols) {
                int64_t r = i - k->row0, c = j - k->col0;
                int64_t pos = k->order == DMX_COL_MAJOR ? r + c * k->ld : r * k->ld + c;
                return (unsigned char *)k->data + (size_t)pos * esz;
            }
        }
        return NULL;
    }
    int64_t off = dmxt_indxg2l(i, M->mb, M->prow) + dmxt_indxg2l(j, M->nb, M->pcol) * M->lld;
    return (unsigned char *)M->allocs[0] + (size_t)off * esz;
}

void *dmxt_matrix_new_local(const dmxt_matrix *M)
{
    if (M->kind == DMXT_CUSTOM || M->kind == DMXT_LOCAL || M->alloc_elems[0] == 0)
        return NULL;
    size_t esz = dmx_dtype_size(M->dtype);
    void *p = xmalloc((size_t)M->alloc_elems[0] * esz);
    fill_sentinel(p, M->alloc_elems[0], esz);
    return p;
}

void *dmxt_matrix_swap_local(dmxt_matrix *M, void *local)
{
    void *old = M->allocs[0];
    M->allocs[0] = local;
    bc_blocks(M);
    return old;
}

void *dmxt_matrix_local(const dmxt_matrix *M)
{
    return (M->kind == DMXT_CUSTOM || M->kind == DMXT_LOCAL) ? NULL : M->allocs[0];
}

void dmxt_fill(const dmxt_matrix *M, int k)
{
    size_t esz = dmx_dtype_size(M->dtype);
    for (int a = 0; a < M->nalloc; a++)
        fill_sentinel(M->allocs[a], M->alloc_elems[a], esz);
    for (int64_t t = 0; t < M->nblk; t++) {
        const dmxt_block *b = &M->blk[t];
        for (int64_t c = 0; c < b->cols; c++)
            for (int64_t r = 0; r < b->rows; r++) {
                double re, im;
                dmxt_formula(k, b->row0 + r, b->col0 + c, &re, &im);
                int64_t pos = b->order == DMX_COL_MAJOR ? r + c * b->ld : r * b->ld + c;
                dmxt_set(M->dtype, b->data, pos, re, im);
            }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Reference and checks                                                                     */
/* ---------------------------------------------------------------------------------------- */

int dmxt_in_trapezoid(char uplo, char diag, int64_t i, int64_t j)
{
    if (uplo == 'U' || uplo == 'u') {
        if (j < i)
            return 0;
    } else if (uplo == 'L' || uplo == 'l') {
        if (i < j)
            return 0;
    } else {
        return 1;
    }
    if ((diag == 'U' || diag == 'u') && i == j)
        return 0;
    return 1;
}

double dmxt_tolerance(dmx_dtype t)
{
    return (t == DMX_FLOAT || t == DMX_CFLOAT) ? 1e-5 : 1e-12;
}

void dmxt_reference(const dmxt_expect *e, int64_t i, int64_t j, double *re, double *im, int *exact,
                    double *scale)
{
    int cplx = is_complex(e->dtype);
    double ar = e->alpha.re, ai = cplx ? e->alpha.im : 0.0;
    double br = e->beta.re, bi = cplx ? e->beta.im : 0.0;
    double xr = 0, xi = 0, yr = 0, yi = 0;
    int use_b = ar != 0.0 || ai != 0.0, use_a = br != 0.0 || bi != 0.0;
    if (use_b) {
        if (e->op == DMX_OP_N)
            dmxt_formula(e->kb, e->bi0 + i, e->bj0 + j, &xr, &xi);
        else
            dmxt_formula(e->kb, e->bi0 + j, e->bj0 + i, &xr, &xi);
        if (!cplx)
            xi = 0.0;
        else if (e->op == DMX_OP_C)
            xi = -xi;
    }
    if (use_a) {
        dmxt_formula(e->ka, e->ai0 + i, e->aj0 + j, &yr, &yi);
        if (!cplx)
            yi = 0.0;
    }
    *re = 0.0;
    *im = 0.0;
    if (use_b) {
        *re += ar * xr - ai * xi;
        *im += ar * xi + ai * xr;
    }
    if (use_a) {
        *re += br * yr - bi * yi;
        *im += br * yi + bi * yr;
    }
    *exact = (ar == 1.0 && ai == 0.0 && !use_a) || (!use_b && br == 1.0 && bi == 0.0) ||
             (!use_b && !use_a);
    *scale = (use_b ? hypot(ar, ai) * hypot(xr, xi) : 0.0) +
             (use_a ? hypot(br, bi) * hypot(yr, yi) : 0.0) + 1e-300;
}

static int part_ok(dmx_dtype t, double got, double want, int exact, double tol)
{
    if (isnan(want))
        return isnan(got);
    if (exact) {
        if (t == DMX_FLOAT || t == DMX_CFLOAT)
            return got == (double)(float)want;
        return got == want;
    }
    return fabs(got - want) <= tol;
}

/* Mark payload positions of allocation a; returns a calloc'ed mark array. */
static unsigned char *payload_marks(const dmxt_matrix *M, int a)
{
    unsigned char *mark = xcalloc((size_t)M->alloc_elems[a], 1);
    size_t esz = dmx_dtype_size(M->dtype);
    for (int64_t t = 0; t < M->nblk; t++) {
        const dmxt_block *b = &M->blk[t];
        if (b->alloc != a)
            continue;
        int64_t off = (int64_t)(((unsigned char *)b->data - (unsigned char *)M->allocs[a]) / esz);
        for (int64_t c = 0; c < b->cols; c++)
            for (int64_t r = 0; r < b->rows; r++)
                mark[off + (b->order == DMX_COL_MAJOR ? r + c * b->ld : r * b->ld + c)] = 1;
    }
    return mark;
}

static int64_t check_padding(const dmxt_matrix *M, char *msg, size_t len, int64_t bad)
{
    size_t esz = dmx_dtype_size(M->dtype);
    for (int a = 0; a < M->nalloc; a++) {
        if (!M->allocs[a])
            continue;
        unsigned char *mark = payload_marks(M, a);
        const unsigned char *p = M->allocs[a];
        for (int64_t e = 0; e < M->alloc_elems[a]; e++) {
            if (mark[e])
                continue;
            for (size_t q = 0; q < esz; q++) {
                if (p[(size_t)e * esz + q] != SENTINEL) {
                    if (bad++ == 0)
                        snprintf(msg, len, "padding element %lld of local array %d was written",
                                 (long long)e, a);
                    break;
                }
            }
        }
        free(mark);
    }
    return bad;
}

static void fmt_value(char *buf, size_t len, dmx_dtype t, double re, double im)
{
    if (is_complex(t))
        snprintf(buf, len, "(%.9g,%.9g)", re, im);
    else
        snprintf(buf, len, "%.9g", re);
}

int64_t dmxt_check_result(const dmxt_matrix *A, const dmxt_expect *e, char *msg, size_t len)
{
    int64_t bad = 0;
    double tol = dmxt_tolerance(A->dtype);
    int cplx = is_complex(A->dtype);
    for (int64_t t = 0; t < A->nblk; t++) {
        const dmxt_block *b = &A->blk[t];
        for (int64_t c = 0; c < b->cols; c++) {
            for (int64_t r = 0; r < b->rows; r++) {
                int64_t gi = b->row0 + r, gj = b->col0 + c, vi = gi - e->ai0, vj = gj - e->aj0;
                int64_t pos = b->order == DMX_COL_MAJOR ? r + c * b->ld : r * b->ld + c;
                double gr, gim, wr, wi, scale = 1.0;
                int exact = 1, inside = vi >= 0 && vj >= 0 && vi < e->am && vj < e->an &&
                                        dmxt_in_trapezoid(e->uplo, e->diag, vi, vj);
                dmxt_get(A->dtype, b->data, pos, &gr, &gim);
                if (inside)
                    dmxt_reference(e, vi, vj, &wr, &wi, &exact, &scale);
                else
                    dmxt_formula(e->ka, gi, gj, &wr, &wi);
                int ok = part_ok(A->dtype, gr, wr, exact, tol * scale) &&
                         (!cplx || part_ok(A->dtype, gim, wi, exact, tol * scale));
                if (!ok && bad++ == 0) {
                    char g[64], w[64];
                    fmt_value(g, sizeof g, A->dtype, gr, gim);
                    fmt_value(w, sizeof w, A->dtype, wr, wi);
                    snprintf(msg, len, "A(%lld,%lld) [%s, window (%lld,%lld)] = %s, expected %s%s",
                             (long long)gi, (long long)gj, inside ? "updated" : "must be untouched",
                             (long long)vi, (long long)vj, g, w, exact ? " exactly" : "");
                }
            }
        }
    }
    return check_padding(A, msg, len, bad);
}

int64_t dmxt_check_fill(const dmxt_matrix *M, int k, char *msg, size_t len)
{
    int64_t bad = 0;
    int cplx = is_complex(M->dtype);
    for (int64_t t = 0; t < M->nblk; t++) {
        const dmxt_block *b = &M->blk[t];
        for (int64_t c = 0; c < b->cols; c++) {
            for (int64_t r = 0; r < b->rows; r++) {
                int64_t pos = b->order == DMX_COL_MAJOR ? r + c * b->ld : r * b->ld + c;
                double gr, gim, wr, wi;
                dmxt_get(M->dtype, b->data, pos, &gr, &gim);
                dmxt_formula(k, b->row0 + r, b->col0 + c, &wr, &wi);
                int ok = part_ok(M->dtype, gr, wr, 1, 0.0) &&
                         (!cplx || part_ok(M->dtype, gim, wi, 1, 0.0));
                if (!ok && bad++ == 0) {
                    char g[64], w[64];
                    fmt_value(g, sizeof g, M->dtype, gr, gim);
                    fmt_value(w, sizeof w, M->dtype, wr, wi);
                    snprintf(msg, len, "element (%lld,%lld) changed: %s, expected %s",
                             (long long)(b->row0 + r), (long long)(b->col0 + c), g, w);
                }
            }
        }
    }
    return check_padding(M, msg, len, bad);
}

/* ---------------------------------------------------------------------------------------- */
/* Driver                                                                                   */
/* ---------------------------------------------------------------------------------------- */

static char current_case[1024];
static char watchdog_prefix[96];

static void watchdog(int sig)
{
    (void)sig;
    ssize_t w = write(2, watchdog_prefix, strlen(watchdog_prefix));
    w = write(2, current_case, strnlen(current_case, sizeof current_case));
    w = write(2, "\n", 1);
    (void)w;
    _exit(124);
}

void dmxt_set_current(const char *desc)
{
    snprintf(current_case, sizeof current_case, "%s", desc);
}

int64_t dmxt_env_int(const char *name, int64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end = NULL;
    long long v = strtoll(s, &end, 0);
    if (end == s || *end != '\0')
        return dflt;
    return (int64_t)v;
}

int64_t dmxt_cases(const char *name, int64_t dflt)
{
    int64_t n = dmxt_env_int(name, dflt);
    const char *s = getenv("DMX_TEST_SCALE");
    if (!s || !*s || n <= 0)
        return n;
    char *end = NULL;
    double f = strtod(s, &end);
    if (end == s || *end != '\0' || !(f > 0.0))
        return n;
    double scaled = (double)n * f + 0.5;
    return scaled < 1.0 ? 1 : (int64_t)scaled;
}

static void init_after_mpi(dmxt_ctx *ctx, const char *name);

void dmxt_init(dmxt_ctx *ctx, int *argc, char ***argv, const char *name)
{
    MPI_Init(argc, argv);
    init_after_mpi(ctx, name);
}

int dmxt_init_thread(dmxt_ctx *ctx, int *argc, char ***argv, const char *name, int required)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, required, &provided);
    init_after_mpi(ctx, name);
    return provided;
}

static void init_after_mpi(dmxt_ctx *ctx, const char *name)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->comm = MPI_COMM_WORLD;
    ctx->name = name;
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->size);
    unsigned long long seed = 20240611ULL;
    const char *s = getenv("DMX_TEST_SEED");
    if (s && *s)
        seed = strtoull(s, NULL, 0);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm);
    ctx->seed = seed;
    int64_t timeout = dmxt_env_int("DMX_TEST_TIMEOUT", 300);
    snprintf(watchdog_prefix, sizeof watchdog_prefix,
             "%s: rank %d: watchdog: still running after %lld s (hang?), current case: ", name,
             ctx->rank, (long long)timeout);
    snprintf(current_case, sizeof current_case, "startup");
    if (timeout > 0) {
        signal(SIGALRM, watchdog);
        alarm((unsigned)timeout);
    }
    if (ctx->rank == 0) {
        printf("%s: %d ranks, seed %llu (set DMX_TEST_SEED to reproduce)\n", name, ctx->size, seed);
        fflush(stdout);
    }
}

int dmxt_case_end(dmxt_ctx *ctx, int64_t local_bad, const char *local_msg, const char *desc)
{
    int64_t total = 0;
    MPI_Allreduce(&local_bad, &total, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    if (total == 0) {
        ctx->count.passed++;
        return 1;
    }
    ctx->count.failed++;
    enum { LEN = 400 };
    char mine[LEN];
    mine[0] = '\0';
    if (local_bad > 0)
        snprintf(mine, LEN, "rank %d: %lld problem(s), first: %s", ctx->rank, (long long)local_bad,
                 local_msg ? local_msg : "");
    char *all = NULL;
    if (ctx->rank == 0)
        all = xmalloc((size_t)LEN * (size_t)ctx->size);
    MPI_Gather(mine, LEN, MPI_CHAR, all, LEN, MPI_CHAR, 0, ctx->comm);
    if (ctx->rank == 0) {
        printf("FAIL [%s np=%d seed=%llu] %s\n", ctx->name, ctx->size,
               (unsigned long long)ctx->seed, desc);
        for (int r = 0; r < ctx->size; r++)
            if (all[(size_t)r * LEN])
                printf("    %.*s\n", LEN, all + (size_t)r * LEN);
        fflush(stdout);
        free(all);
    }
    return 0;
}

int64_t dmxt_expect_status(dmxt_ctx *ctx, dmx_status got, dmx_status want, const char *what,
                           char *msg, size_t len)
{
    int v[2] = {(int)got, -(int)got}, r[2];
    MPI_Allreduce(v, r, 2, MPI_INT, MPI_MAX, ctx->comm);
    if (got != want) {
        snprintf(msg, len, "%s returned %s, expected %s (last error: \"%s\")", what,
                 dmx_status_string(got), dmx_status_string(want), dmx_last_error());
        return 1;
    }
    if (r[0] != -r[1]) {
        snprintf(msg, len, "%s: status differs between ranks (%s .. %s)", what,
                 dmx_status_string((dmx_status)-r[1]), dmx_status_string((dmx_status)r[0]));
        return 1;
    }
    return 0;
}

int dmxt_finish(dmxt_ctx *ctx)
{
    alarm(0);
    if (ctx->rank == 0)
        dmxt_count_print(&ctx->count);
    MPI_Finalize();
    return dmxt_count_exit_code(&ctx->count);
}

void dmxt_fail(dmxt_checker *C, const char *fmt, ...)
{
    if (C->bad++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(C->msg, sizeof C->msg, fmt, ap);
        va_end(ap);
    }
}

int dmxt_mpi_user_windows(MPI_Comm comm)
{
    MPI_Comm c = MPI_COMM_NULL;
    int ok = 0, all = 0;
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS)
        return 0;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    char *mem = malloc(64);
    MPI_Win w = MPI_WIN_NULL;
    if (mem && MPI_Win_create(mem, 64, 1, MPI_INFO_NULL, c, &w) == MPI_SUCCESS) {
        MPI_Win_free(&w);
        ok = 1;
    }
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, c, &w) == MPI_SUCCESS)
        MPI_Win_free(&w);
    else
        ok = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS)
        all = 0;
    free(mem);
    MPI_Comm_free(&c);
    return all;
}

void *dmxt_heap_base(const dmx_rma_heap *heap)
{
    void *base = NULL;
    return dmx_rma_get_base(heap, &base) == DMX_SUCCESS ? base : NULL;
}
