/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact dense linear assignment for relabeling with a general cost function.
 *
 * Algorithm: the Hungarian method in its shortest-augmenting-path form. Costs c(x, y) =
 * -gain(x, y); column potentials v start at 0. Rows are added one at a time; for row f,
 * Dijkstra over reduced costs c(i, y) - u(i) - v(y) >= 0 (u(i) = c(i, x_i) - v(x_i) for
 * matched rows) runs on the full matrix with an array instead of a heap: each step finalizes
 * the closest unfinished column and, if it is matched, relaxes its row against every unfinished
 * column. The first free column finalized ends the search; finalized columns get
 * v(y) += d(y) - mu, which keeps reduced costs >= 0 and matched edges tight, then the path is
 * flipped. Free columns keep v = 0, so all endpoints are compared on equal terms and each step
 * leaves the matching optimal for the rows added so far.
 *
 * Preconditions: n <= DMXI_LAP_DENSE_MAX_N, all gains finite (any sign). Cost: O(n^2) per row,
 * O(n^3) time in total, O(n) extra memory; the n x n input is borrowed. With floating-point
 * gains the optimum is exact up to rounding of the potentials (exact for integer gains below
 * 2^50); the result is deterministic for a given binary and input.
 */
#include "lap.h"

#include <math.h>

/* Is column y closer than column b? Ties: free columns first (the search ends sooner), then the
 * lower index. */
static int closer(const double *d, const int *col_row, int y, int b)
{
    if (d[y] != d[b])
        return d[y] < d[b];
    int fy = col_row[y] < 0, fb = col_row[b] < 0;
    if (fy != fb)
        return fy;
    return y < b;
}

dmx_status dmxi_lap_dense(int n, const double *gain, int *sigma, double *total_gain)
{
    dmx_status st = DMX_SUCCESS;
    double *v = NULL, *d = NULL;
    int *row_col = NULL, *col_row = NULL, *pred = NULL, *todo = NULL, *scanned = NULL;
    DMXI_CHECK(n >= 0, DMX_ERR_ARG, "n = %d is negative", n);
    DMXI_CHECK(n <= DMXI_LAP_DENSE_MAX_N, DMX_ERR_UNSUPPORTED,
               "dense assignment of size %d exceeds the limit %d", n, DMXI_LAP_DENSE_MAX_N);
    DMXI_CHECK(n == 0 || (gain != NULL && sigma != NULL), DMX_ERR_NULL, "NULL argument");
    for (int64_t k = 0; k < (int64_t)n * n; k++)
        DMXI_CHECK(isfinite(gain[k]), DMX_ERR_ARG, "gain[%lld] is not finite", (long long)k);
    v = dmxi_calloc(n, sizeof *v);
    d = dmxi_malloc(n, sizeof *d);
    row_col = dmxi_malloc(n, sizeof *row_col);
    col_row = dmxi_malloc(n, sizeof *col_row);
    pred = dmxi_malloc(n, sizeof *pred);
    todo = dmxi_malloc(n, sizeof *todo);
    scanned = dmxi_malloc(n, sizeof *scanned);
    DMXI_CHECK(v && d && row_col && col_row && pred && todo && scanned, DMX_ERR_ALLOC,
               "out of memory (dense assignment of size %d)", n);
    for (int y = 0; y < n; y++) {
        row_col[y] = -1;
        col_row[y] = -1;
    }
    for (int f = 0; f < n; f++) {
        const double *gf = gain + (int64_t)f * n;
        int ntodo = n, nscanned = 0, end = -1;
        for (int y = 0; y < n; y++) {
            d[y] = -gf[y] - v[y];
            pred[y] = f;
            todo[y] = y;
        }
        int bt = 0;
        for (int t = 1; t < ntodo; t++)
            if (closer(d, col_row, todo[t], todo[bt]))
                bt = t;
        for (;;) {
            int y0 = todo[bt];
            todo[bt] = todo[--ntodo];
            scanned[nscanned++] = y0;
            if (col_row[y0] < 0) {
                end = y0;
                break;
            }
            /* relax row i against the unfinished columns and find the next closest */
            int i = col_row[y0];
            const double *gi = gain + (int64_t)i * n;
            double base = d[y0] + gi[y0] + v[y0]; /* d(y0) - u(i), u(i) = -g(i, y0) - v(y0) */
            bt = 0;
            for (int t = 0; t < ntodo; t++) {
                int y = todo[t];
                double nd = base - gi[y] - v[y];
                if (nd < d[y]) {
                    d[y] = nd;
                    pred[y] = i;
                }
                if (t > 0 && closer(d, col_row, y, todo[bt]))
                    bt = t;
            }
        }
        double mu = d[end];
        for (int t = 0; t < nscanned; t++)
            v[scanned[t]] += d[scanned[t]] - mu;
        for (int y = end;;) {
            int i = pred[y];
            int next = row_col[i];
            col_row[y] = i;
            row_col[i] = y;
            if (i == f)
                break;
            y = next;
        }
    }
    double sum = 0;
    for (int x = 0; x < n; x++) {
        sigma[x] = row_col[x];
        sum += gain[(int64_t)x * n + row_col[x]];
    }
    if (total_gain)
        *total_gain = sum;
cleanup:
    free(v);
    free(d);
    free(row_col);
    free(col_row);
    free(pred);
    free(todo);
    free(scanned);
    return st;
}
