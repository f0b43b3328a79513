/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation and agreement of a batch of transforms: every rank checks its own arguments, the
 * ranks agree on the outcome, and then agree that they all describe the same transforms (a hash
 * of dtype, op, uplo/diag, scalars, layout descriptions, layout ids and windows). Also the map
 * from a layout's communicator ranks to the plan's ranks. A rank with no layout (so no
 * communicator) goes to the error handler; agreements are bounded waits (dmxi_agree).
 *
 * Cost: O(ntransforms) local work, two one-integer allreduces and one 64-bit agreement
 * (dmxi_agree_same), or none for dmxi_transforms_check, whose caller folds the status and hash
 * into an agreement of its own (the small plans of plan_small.c); the rank map is one group
 * translation of P ranks (O(P) memory, only when a layout's communicator orders the processes
 * differently).
 */
#include "plan.h"

#include <string.h>

static dmx_status check_transform(const dmx_transform *t, int k, MPI_Comm comm0, int need_a_mem)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(t->a && t->b, DMX_ERR_NULL, "transform %d: layout a or b is NULL", k);
    DMXI_CHECK(dmx_dtype_size(t->dtype) > 0, DMX_ERR_ARG, "transform %d: invalid dtype %d", k,
               (int)t->dtype);
    DMXI_CHECK(t->op == DMX_OP_N || t->op == DMX_OP_T || t->op == DMX_OP_C, DMX_ERR_ARG,
               "transform %d: invalid op %d", k, (int)t->op);
    DMXI_CHECK(t->uplo == 0 || strchr("GgUuLl", t->uplo), DMX_ERR_ARG,
               "transform %d: uplo '%c' is not 0, 'G', 'U' or 'L'", k, t->uplo);
    DMXI_CHECK(t->diag == 0 || strchr("NnUu", t->diag), DMX_ERR_ARG,
               "transform %d: diag '%c' is not 0, 'N' or 'U'", k, t->diag);
    /* Every size below (rectangles, offsets, byte counts) is bounded by a layout's bytes: check
     * that they fit int64_t before anything uses them, and before the memory checks, so a
     * description without memory still gets the overflow. */
    for (int s = 0; s < 2; s++) {
        const dmx_layout *L = s ? t->b : t->a;
        int64_t elems = 0, bytes = 0;
        DMXI_CHECK(dmxi_mul64(L->d->m, L->d->n, &elems) == DMX_SUCCESS &&
                       dmxi_mul64(elems, (int64_t)dmx_dtype_size(t->dtype), &bytes) == DMX_SUCCESS,
                   DMX_ERR_OVERFLOW,
                   "transform %d: %s (%lld x %lld elements of %zu bytes) is larger than int64_t "
                   "counts",
                   k, s ? "B" : "A", (long long)L->d->m, (long long)L->d->n,
                   dmx_dtype_size(t->dtype));
    }
    int64_t bm, bn; /* op(B)'s size */
    dmxi_opb_coords(t->op, t->b->m, t->b->n, &bm, &bn);
    DMXI_CHECK(bm == t->a->m && bn == t->a->n, DMX_ERR_LAYOUT,
               "transform %d: op(B) is %lld x %lld but A is %lld x %lld", k, (long long)bm,
               (long long)bn, (long long)t->a->m, (long long)t->a->n);
    int cmp1 = MPI_UNEQUAL, cmp2 = MPI_UNEQUAL;
    DMXI_MPI(MPI_Comm_compare(comm0, t->a->d->comm, &cmp1));
    DMXI_MPI(MPI_Comm_compare(comm0, t->b->d->comm, &cmp2));
    DMXI_CHECK(cmp1 != MPI_UNEQUAL && cmp2 != MPI_UNEQUAL, DMX_ERR_LAYOUT,
               "transform %d: layouts live on communicators of different processes", k);
    for (int s = need_a_mem ? 0 : 1; s < 2; s++) {
        const dmx_layout *L = s ? t->b : t->a;
        DMXI_CHECK(!L->d->cyclic || L->nlocal == 0 || L->m == 0 || L->n == 0 || L->base,
                   DMX_ERR_NULL, "transform %d: the local array of %s is NULL", k, s ? "B" : "A");
    }
cleanup:
    return st;
}

dmx_status dmxi_plan_rank_map(const dmx_plan *p, MPI_Comm comm, int **map)
{
    dmx_status st = DMX_SUCCESS;
    int cmp = MPI_UNEQUAL;
    *map = NULL;
    DMXI_MPI(MPI_Comm_compare(p->comm, comm, &cmp));
    if (cmp != MPI_SIMILAR)
        goto cleanup;
    *map = dmxi_malloc(p->size, sizeof(int));
    DMXI_CHECK(*map, DMX_ERR_ALLOC, "out of memory");
    DMXI_TRY(dmxi_translate_ranks(comm, p->comm, p->size, *map));
cleanup:
    return st;
}

static uint64_t hash_transform(uint64_t h, const dmx_transform *t)
{
    int64_t v[16] = {t->dtype, t->op,    t->uplo, t->diag, (int64_t)t->a->d->hash,
                     t->a->i0, t->a->j0, t->a->m, t->a->n, (int64_t)t->b->d->hash,
                     t->b->i0, t->b->j0, t->b->m, t->b->n, t->a->id,
                     t->b->id};
    h = dmxi_hash(h, v, sizeof v);
    double s[4] = {t->alpha.re, t->alpha.im, t->beta.re, t->beta.im};
    return dmxi_hash(h, s, sizeof s);
}

dmx_status dmxi_transforms_check(int ntransforms, const dmx_transform *transforms,
                                 int need_a_memory, MPI_Comm *comm0, uint64_t *hash,
                                 dmx_status *local)
{
    /* The communicator to agree on comes from the first layout given. A rank that passes no
     * layout at all has none: it cannot tell the others, so it goes to the error handler. */
    if (ntransforms < 1)
        return dmxi_fatal(DMX_ERR_ARG, __FILE__, __LINE__,
                          "ntransforms = %d on this rank (need at least one transform, and the "
                          "first layout's communicator to agree on)",
                          ntransforms);
    if (!transforms)
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "transforms is NULL on this rank, which leaves no communicator to agree "
                          "on");
    const dmx_layout *first = NULL;
    for (int k = 0; k < ntransforms && !first; k++)
        first = transforms[k].a ? transforms[k].a : transforms[k].b;
    if (!first)
        return dmxi_fatal(DMX_ERR_NULL, __FILE__, __LINE__,
                          "every layout of the %d transforms is NULL on this rank, which leaves no "
                          "communicator to agree on",
                          ntransforms);
    *comm0 = first->d->comm;
    *local = DMX_SUCCESS;
    uint64_t h = dmxi_hash(DMXI_HASH_INIT, &ntransforms, sizeof ntransforms);
    for (int k = 0; k < ntransforms && *local == DMX_SUCCESS; k++) {
        *local = check_transform(&transforms[k], k, *comm0, need_a_memory);
        /* unagreed layouts: only dmx_transform_once's path with no agreement (hash NULL) */
        if (*local == DMX_SUCCESS && hash &&
            (transforms[k].a->d->unagreed || transforms[k].b->d->unagreed))
            *local = dmxi_error(DMX_ERR_UNSUPPORTED, __FILE__, __LINE__,
                                "transform %d: a layout made by "
                                "dmx_layout_create_block_cyclic_unagreed is taken only by a "
                                "dmx_transform_once that makes no agreement "
                                "(dmx_transform_once_is_local)",
                                k);
        if (*local == DMX_SUCCESS && hash)
            h = hash_transform(h, &transforms[k]);
    }
    if (*local == DMX_SUCCESS) /* B read where the batch writes other elements (alias.c) */
        *local = dmxi_transforms_overlap(ntransforms, transforms);
    if (hash)
        *hash = h;
    return DMX_SUCCESS;
}

dmx_status dmxi_transforms_validate(int ntransforms, const dmx_transform *transforms,
                                    int need_a_memory)
{
    dmx_status st = DMX_SUCCESS, local = DMX_SUCCESS;
    MPI_Comm comm0 = MPI_COMM_NULL;
    uint64_t h = 0;
    DMXI_TRY(dmxi_transforms_check(ntransforms, transforms, need_a_memory, &comm0, &h, &local));
    DMXI_TRY(dmxi_agree(comm0, local));
    st = dmxi_agree_same(comm0, h, "transforms (dtype, op, scalars, layouts or windows)");
    if (st == DMX_ERR_LAYOUT) /* the transforms differ: an argument error, same text */
        st = DMX_ERR_ARG;
cleanup:
    return st;
}
