/* SPDX-License-Identifier: BSD-3-Clause */
/* Random assignment instances and brute-force references; see lap_instances.h. */
#include "lap_instances.h"

#include <stdlib.h>
#include <string.h>

void lapt_instance_make(lapt_instance *in, dmxt_rng *rng, int n, int permille, int64_t gmax,
                        int diag)
{
    size_t nn = (size_t)n * (size_t)n + 1; /* + 1: no zero-byte allocations at n = 0 */
    in->n = n;
    in->rowptr = calloc((size_t)n + 1, sizeof *in->rowptr);
    in->col = malloc(nn * sizeof *in->col);
    in->gain = malloc(nn * sizeof *in->gain);
    in->dense = calloc(nn, sizeof *in->dense);
    int *perm = malloc(((size_t)n + 1) * sizeof *perm);
    int64_t k = 0;
    for (int x = 0; x < n; x++) {
        for (int y = 0; y < n; y++)
            perm[y] = y;
        dmxt_rng_shuffle(rng, perm, n);
        for (int t = 0; t < n; t++) {
            int y = perm[t];
            int present =
                dmxt_rng_int(rng, 0, 999) < permille || (diag && y == x && dmxt_rng_next(rng) % 2);
            if (!present)
                continue;
            in->col[k] = y;
            in->gain[k] = dmxt_rng_int(rng, 0, gmax);
            in->dense[(size_t)x * (size_t)n + (size_t)y] = in->gain[k];
            k++;
        }
        in->rowptr[x + 1] = k;
    }
    free(perm);
}

void lapt_instance_free(lapt_instance *in)
{
    free(in->rowptr);
    free(in->col);
    free(in->gain);
    free(in->dense);
    memset(in, 0, sizeof *in);
}

int64_t lapt_instance_total(const lapt_instance *in, const int *sigma)
{
    int64_t s = 0;
    for (int x = 0; x < in->n; x++)
        s += in->dense[(size_t)x * (size_t)in->n + (size_t)sigma[x]];
    return s;
}

int64_t lapt_instance_total_fn(const void *ctx, const int *perm)
{
    return lapt_instance_total(ctx, perm);
}

int lapt_is_permutation(const int *s, int n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = seen != NULL;
    for (int x = 0; x < n && ok; x++) {
        if (s[x] < 0 || s[x] >= n || seen[s[x]])
            ok = 0;
        else
            seen[s[x]] = 1;
    }
    free(seen);
    return ok;
}

/* Fix positions 0..pos-1 and try every remaining element at pos (swap in, recurse, swap back). */
static int64_t best_rec(int *perm, int pos, int n, lapt_perm_fn f, const void *ctx)
{
    if (pos == n)
        return f(ctx, perm);
    int64_t best = INT64_MIN;
    for (int k = pos; k < n; k++) {
        int t = perm[pos];
        perm[pos] = perm[k];
        perm[k] = t;
        int64_t v = best_rec(perm, pos + 1, n, f, ctx);
        if (v > best)
            best = v;
        perm[k] = perm[pos];
        perm[pos] = t;
    }
    return best;
}

int64_t lapt_best_over_permutations(int n, lapt_perm_fn f, const void *ctx)
{
    int perm[8] = {0};
    for (int k = 0; k < n; k++)
        perm[k] = k;
    return best_rec(perm, 0, n, f, ctx);
}
