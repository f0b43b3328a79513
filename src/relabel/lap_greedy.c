/* SPDX-License-Identifier: BSD-3-Clause */
/* Greedy assignment for process relabeling: a baseline to compare the exact solver with.
 *
 * Edges in order of gain descending (ties in CSR order: role ascending, then the order within
 * the row, so the result is deterministic), each taken when its role and process are both still
 * free; zero gains are skipped; then the remaining roles are completed by dmxi_lap_complete()
 * (identity first). The taken edges form a maximal matching whose every edge is at least as
 * heavy as the optimum edges it blocks, so the gain is at least half the optimum.
 *
 * The order comes from a stable least-significant-digit radix sort on 16-bit digits of
 * (max gain - gain), skipping the digits above the largest key: O(nnz) per digit, at most four
 * digits (gains <= 2^60), typically two. Memory O(n + nnz).
 */
#include "lap.h"

#include <string.h>

typedef struct edge {
    uint64_t key; /* max gain - gain: ascending key = descending gain */
    int x, y;
} edge;

#define DIGIT_BITS 16
#define DIGIT_VALUES (1 << DIGIT_BITS)

/* Stable sort of e[0..n) by key; tmp has room for n edges. Returns the array holding the result
 * (e or tmp). */
static edge *radix_sort(edge *e, edge *tmp, int64_t n, uint64_t kmax, int64_t *count)
{
    for (int shift = 0; shift < 64 && (kmax >> shift) != 0; shift += DIGIT_BITS) {
        memset(count, 0, DIGIT_VALUES * sizeof *count);
        for (int64_t k = 0; k < n; k++)
            count[(e[k].key >> shift) & (DIGIT_VALUES - 1)]++;
        int64_t sum = 0;
        for (int d = 0; d < DIGIT_VALUES; d++) {
            int64_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (int64_t k = 0; k < n; k++)
            tmp[count[(e[k].key >> shift) & (DIGIT_VALUES - 1)]++] = e[k];
        edge *t = e;
        e = tmp;
        tmp = t;
    }
    return e;
}

dmx_status dmxi_lap_greedy(const dmxi_lap_sparse *g, int *sigma, int64_t *total_gain)
{
    dmx_status st = DMX_SUCCESS;
    edge *e = NULL, *tmp = NULL;
    int64_t *count = NULL;
    char *used = NULL;
    DMXI_TRY(dmxi_lap_sparse_check(g));
    DMXI_CHECK(sigma != NULL || g->n == 0, DMX_ERR_NULL, "sigma is NULL");
    int n = g->n;
    int64_t nnz = n > 0 ? g->rowptr[n] : 0;
    e = dmxi_malloc(nnz, sizeof *e);
    tmp = dmxi_malloc(nnz, sizeof *tmp);
    count = dmxi_malloc(DIGIT_VALUES, sizeof *count);
    used = dmxi_calloc(n, 1);
    DMXI_CHECK(e && tmp && count && used, DMX_ERR_ALLOC, "out of memory (%lld edges)",
               (long long)nnz);
    int64_t gmax = 0;
    for (int64_t k = 0; k < nnz; k++)
        if (g->gain[k] > gmax)
            gmax = g->gain[k];
    int64_t ne = 0;
    for (int x = 0; x < n; x++) {
        for (int64_t k = g->rowptr[x]; k < g->rowptr[x + 1]; k++) {
            if (g->gain[k] > 0) {
                e[ne].key = (uint64_t)(gmax - g->gain[k]);
                e[ne].x = x;
                e[ne].y = g->col[k];
                ne++;
            }
        }
    }
    edge *sorted = radix_sort(e, tmp, ne, (uint64_t)gmax, count);
    for (int x = 0; x < n; x++)
        sigma[x] = -1;
    for (int64_t k = 0; k < ne; k++) {
        if (sigma[sorted[k].x] < 0 && !used[sorted[k].y]) {
            sigma[sorted[k].x] = sorted[k].y;
            used[sorted[k].y] = 1;
        }
    }
    DMXI_TRY(dmxi_lap_complete(n, sigma));
    if (total_gain)
        DMXI_TRY(dmxi_lap_sparse_gain(g, sigma, total_gain));
cleanup:
    free(e);
    free(tmp);
    free(count);
    free(used);
    return st;
}
