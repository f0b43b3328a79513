/* SPDX-License-Identifier: BSD-3-Clause */
/* The directory's records on the wire: an outbox of records with their destinations, packed
 * into sparse-exchange sends, and the records of a received message. A leaf under directory.c
 * and directory_match.c. Local. */
#include "directory.h"

#include <string.h>

dmx_status dmxi_dir_outbox_add(outbox *ob, int64_t dest, const void *rec)
{
    dmx_status st = DMX_SUCCESS;
    int64_t w = ob->words + 1, need;
    DMXI_TRY(dmxi_mul64(ob->n + 1, w, &need));
    DMXI_TRY(dmxi_reserve((void **)&ob->v, &ob->cap, need, sizeof(int64_t)));
    ob->v[ob->n * w] = dest;
    memcpy(&ob->v[ob->n * w + 1], rec, (size_t)ob->words * sizeof(int64_t));
    ob->n++;
cleanup:
    return st;
}

static int cmp_dest(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Sort by destination, compact the records in place (dropping the destinations) and describe
 * one exchange entry per destination (more only if a payload would exceed INT_MAX bytes). */
dmx_status dmxi_dir_outbox_pack(outbox *ob)
{
    dmx_status st = DMX_SUCCESS;
    int64_t w = ob->words + 1, rbytes = ob->words * (int64_t)sizeof(int64_t);
    int64_t per = INT_MAX / rbytes; /* records per payload */
    int64_t nsend = 0;
    if (ob->n > 1)
        qsort(ob->v, (size_t)ob->n, (size_t)w * sizeof(int64_t), cmp_dest);
    for (int64_t i = 0, run = 0; i < ob->n; i++) {
        run = (i > 0 && ob->v[i * w] == ob->v[(i - 1) * w]) ? run + 1 : 0;
        nsend += run % per == 0;
    }
    ob->sends = dmxi_malloc(nsend, sizeof *ob->sends);
    DMXI_CHECK(ob->sends, DMX_ERR_ALLOC, "out of memory for %lld directory messages",
               (long long)nsend);
    /* Entries first (they read the destinations), recording record offsets in .data. */
    nsend = 0;
    for (int64_t i = 0, run = 0; i < ob->n; i++) {
        run = (i > 0 && ob->v[i * w] == ob->v[(i - 1) * w]) ? run + 1 : 0;
        if (run % per == 0) {
            DMXI_TRY(dmxi_to_int(ob->v[i * w], &ob->sends[nsend].dest, "directory rank"));
            ob->sends[nsend].data = NULL;
            ob->sends[nsend].bytes = (int64_t)i; /* first record, turned into bytes below */
            nsend++;
        }
    }
    for (int64_t i = 0; i < ob->n; i++) /* destination i*w+1 >= record i*words: moves left */
        memmove(&ob->v[i * ob->words], &ob->v[i * w + 1], (size_t)rbytes);
    for (int64_t s = 0; s < nsend; s++) {
        int64_t first = ob->sends[s].bytes;
        int64_t last = s + 1 < nsend ? ob->sends[s + 1].bytes : ob->n;
        ob->sends[s].data = &ob->v[first * ob->words];
        ob->sends[s].bytes = (last - first) * rbytes;
    }
    ob->nsend = nsend;
cleanup:
    return st;
}

void dmxi_dir_outbox_free(outbox *ob)
{
    free(ob->v);
    free(ob->sends);
    ob->v = NULL, ob->sends = NULL;
    ob->n = ob->cap = ob->nsend = 0;
}

/* Records of one exchange result, checked for whole records. */
dmx_status dmxi_dir_records(const dmx_exchange_result *res, int64_t i, size_t rsize, int *source,
                            const unsigned char **data, int64_t *count)
{
    dmx_status st = DMX_SUCCESS;
    const void *d = NULL;
    int64_t bytes = 0;
    DMXI_TRY(dmx_exchange_result_get(res, i, source, &d, &bytes));
    DMXI_CHECK(bytes % (int64_t)rsize == 0, DMX_ERR_INTERNAL,
               "directory message of %lld bytes from rank %d is not whole records",
               (long long)bytes, *source);
    *data = d;
    *count = bytes / (int64_t)rsize;
cleanup:
    return st;
}
