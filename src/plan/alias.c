/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether a batch of transforms reads, through some B, memory that an A writes for another
 * element: then the result would depend on the order in which the engine reads and writes (an
 * in-place transpose came back with a third of its elements wrong), so planning refuses it.
 *
 * Two cases:
 *  1. B and A store the same global matrix the same way on every rank: one description, or two
 *     block-cyclic descriptions with the same blocking, grid, sources, lld and local array
 *     (views of one matrix, the drop-in's two descriptors of one array). Element (r, c) of both
 *     is the same memory, so the check is exact in global coordinates: the elements B's
 *     transform reads and the elements A's transform writes are each a "diagonal box" (a row
 *     range, a column range and a range of c - r, which a trapezoid adds), and two boxes meet
 *     when their three ranges do. Within one transform an element that is read and written for
 *     the same position of A is harmless (A = 2A, or the diagonal of a transpose onto itself):
 *     those are exactly the elements of one c - r value, left out. O(ntransforms^2).
 *  2. Otherwise the local memory itself is compared, rank by rank: every local block within the
 *     window is a run list (base, stride, run length, count; layout/layout_alias.c); the lists
 *     of the Bs and of the As are sorted by address, and any two whose spans meet are compared
 *     run by run. Separate allocations, or blocks of one arena interleaved, pass. O(b log b) for b
 * blocks, plus the runs of blocks whose spans meet. Case 1 needs the two transforms' element sizes
 * equal too. Every transform is checked, alpha = 0 included (dmx_plan_set_scalars may change it
 * later). Temporary memory: one region per local block (one per layout for block-cyclic ones). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

/* ---- case 1: the same storage, in global coordinates ------------------------------------- */

typedef struct dbox {
    int64_t r0, r1, c0, c1; /* inclusive */
    int64_t d0, d1;         /* c - r, inclusive */
} dbox;

/* No bound on c - r: beyond any |c - r| of a matrix that fits int64_t bytes (elements of 4 or
 * more bytes keep every index below 2^61). */
#define DMXI_DINF (INT64_MAX / 2)

/* Trapezoid of a transform as a range of j - i in A's coordinates. */
static void trapezoid(const dmx_transform *t, int64_t *lo, int64_t *hi)
{
    int64_t u = (t->diag == 'U' || t->diag == 'u') ? 1 : 0;
    *lo = -DMXI_DINF, *hi = DMXI_DINF;
    if (t->uplo == 'U' || t->uplo == 'u')
        *lo = u;
    else if (t->uplo == 'L' || t->uplo == 'l')
        *hi = -u;
}

/* The elements of A's description that transform t writes. */
static dbox write_box(const dmx_transform *t)
{
    const dmx_layout *A = t->a;
    int64_t lo, hi, s = A->j0 - A->i0;
    trapezoid(t, &lo, &hi);
    return (dbox){A->i0,
                  A->i0 + A->m - 1,
                  A->j0,
                  A->j0 + A->n - 1,
                  lo == -DMXI_DINF ? lo : s + lo,
                  hi == DMXI_DINF ? hi : s + hi};
}

/* The elements of B's description that transform t reads: position (i, j) of A reads B's
 * (i, j), or (j, i) under a transpose, so j - i = d becomes c - r = s - d there. */
static dbox read_box(const dmx_transform *t)
{
    const dmx_layout *B = t->b;
    int64_t lo, hi, s = B->j0 - B->i0;
    trapezoid(t, &lo, &hi);
    dbox x = {B->i0, B->i0 + B->m - 1, B->j0, B->j0 + B->n - 1, -DMXI_DINF, DMXI_DINF};
    if (!dmxi_op_swaps(t->op)) {
        x.d0 = lo == -DMXI_DINF ? lo : s + lo;
        x.d1 = hi == DMXI_DINF ? hi : s + hi;
    } else {
        x.d0 = hi == DMXI_DINF ? -DMXI_DINF : s - hi;
        x.d1 = lo == -DMXI_DINF ? DMXI_DINF : s - lo;
    }
    return x;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The values of c - r that the two boxes share ([*d0, *d1], empty when *d0 > *d1). */
static void meet(const dbox *x, const dbox *y, int64_t *d0, int64_t *d1)
{
    int64_t r0 = max64(x->r0, y->r0), r1 = min64(x->r1, y->r1);
    int64_t c0 = max64(x->c0, y->c0), c1 = min64(x->c1, y->c1);
    *d0 = 1, *d1 = 0;
    if (r0 > r1 || c0 > c1)
        return;
    *d0 = max64(max64(x->d0, y->d0), c0 - r1);
    *d1 = min64(min64(x->d1, y->d1), c1 - r0);
}

/* Whether transform k's reads meet transform j's writes of other positions (same storage). */
static int global_conflict(const dmx_transform *tk, const dmx_transform *tj, int self)
{
    dbox r = read_box(tk), w = write_box(tj);
    int64_t d0, d1;
    meet(&r, &w, &d0, &d1);
    if (d0 > d1)
        return 0;
    if (!self)
        return 1;
    const dmx_layout *A = tj->a, *B = tk->b;
    if (!dmxi_op_swaps(tk->op)) /* every shared element is its own position, or none is */
        return !(A->i0 == B->i0 && A->j0 == B->j0);
    /* A transpose reads position (i, j) of A at its own memory only on the line
     * j - i = A.i0 - B.i0 = B.j0 - A.j0, which is c - r = A.j0 - B.i0 in the description. */
    if (A->i0 - B->i0 != B->j0 - A->j0)
        return 1;
    int64_t fix = A->j0 - B->i0;
    return !(d0 == fix && d1 == fix);
}

/* ---- case 2: local memory, run by run ----------------------------------------------------- */

/* Pairs (B of k, A of j) that case 1 compares; case 2 takes the others. */
static int global_pair(const dmx_transform *tv, int k, int j)
{
    return dmx_dtype_size(tv[k].dtype) == dmx_dtype_size(tv[j].dtype) &&
           dmxi_layout_same_storage(tv[k].b, tv[j].a);
}

static int memory_pair(const dmx_transform *tv, int k, int j)
{
    return !global_pair(tv, k, j);
}

/* dmxi_regions_find's filter: B region x and A region y belong to a pair case 2 compares. */
static int keep_pair(const dmxi_region *x, const dmxi_region *y, const void *ctx)
{
    return memory_pair(ctx, x->k, y->k);
}

static dmx_status memory_conflict(int nt, const dmx_transform *tv, int *kk, int *jj)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_region *rb = NULL, *ra = NULL;
    int64_t nb = 0, na = 0, capb = 0, capa = 0;
    uintptr_t *pmax = NULL;
    for (int k = 0; k < nt; k++) {
        size_t es = dmx_dtype_size(tv[k].dtype);
        int useb = 0, usea = 0;
        for (int j = 0; j < nt; j++) {
            useb |= memory_pair(tv, k, j);
            usea |= memory_pair(tv, j, k);
        }
        if (useb)
            DMXI_TRY(dmxi_layout_regions(tv[k].b, es, k, &rb, &nb, &capb));
        if (usea)
            DMXI_TRY(dmxi_layout_regions(tv[k].a, es, k, &ra, &na, &capa));
    }
    if (nb == 0 || na == 0)
        goto cleanup;
    pmax = dmxi_regions_index(ra, na);
    DMXI_CHECK(pmax, DMX_ERR_ALLOC, "out of memory");
    for (int64_t i = 0; i < nb && *kk < 0; i++) {
        int64_t j = dmxi_regions_find(&rb[i], ra, pmax, na, keep_pair, tv);
        if (j >= 0)
            *kk = rb[i].k, *jj = ra[j].k;
    }
cleanup:
    free(rb);
    free(ra);
    free(pmax);
    return st;
}

dmx_status dmxi_transforms_overlap(int nt, const dmx_transform *tv)
{
    dmx_status st = DMX_SUCCESS;
    int kk = -1, jj = -1;
    for (int k = 0; k < nt && kk < 0; k++)
        for (int j = 0; j < nt && kk < 0; j++)
            if (global_pair(tv, k, j) && global_conflict(&tv[k], &tv[j], k == j))
                kk = k, jj = j;
    if (kk < 0)
        DMXI_TRY(memory_conflict(nt, tv, &kk, &jj));
    if (kk >= 0) {
        if (kk == jj)
            DMXI_FAIL(DMX_ERR_ARG,
                      "transform %d: B and A share memory on this rank that the transform both "
                      "reads and writes for different elements (in-place transforms are not "
                      "supported: copy B first, or pass disjoint parts)",
                      kk);
        DMXI_FAIL(DMX_ERR_ARG,
                  "transform %d's B shares memory on this rank with transform %d's A (a batch "
                  "must not write what another of its transforms reads)",
                  kk, jj);
    }
cleanup:
    return st;
}
