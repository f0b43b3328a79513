/* SPDX-License-Identifier: BSD-3-Clause */
/* The directory's partition of A's index space (directory.c's header comment): D <= P regions,
 * a pr x pc grid of near-square rectangles, region k kept by plan rank floor(k*P/D). A leaf
 * under the registration and driver (directory.c) and the sweep (directory_match.c). Local. */
#include "directory.h"

#include <math.h>
#include <string.h>

void dmxi_dir_geom_init(dir_geom *g, int64_t m, int64_t n, int size)
{
    memset(g, 0, sizeof *g);
    g->m = m, g->n = n, g->size = size;
    if (m == 0 || n == 0)
        return;
    int64_t pr = (int64_t)llround(sqrt((double)size * (double)m / (double)n));
    int64_t maxr = m < size ? m : size;
    pr = pr < 1 ? 1 : pr > maxr ? maxr : pr;
    int64_t pc = size / pr;
    pc = pc < 1 ? 1 : pc > n ? n : pc;
    pr = size / pc < m ? size / pc : m;
    g->pr = pr, g->pc = pc, g->nreg = pr * pc;
    g->rbase = m / pr, g->rrem = m % pr;
    g->cbase = n / pc, g->crem = n % pc;
}

/* Start of part i of an extent cut into parts of base (+1 for the first rem) elements. */
static int64_t part_start(int64_t base, int64_t rem, int64_t i)
{
    return i * base + (i < rem ? i : rem);
}

int64_t dmxi_dir_part_of(int64_t base, int64_t rem, int64_t x)
{
    int64_t big = rem * (base + 1);
    return x < big ? x / (base + 1) : rem + (x - big) / base;
}

int dmxi_dir_owner(const dir_geom *g, int64_t k)
{
    return (int)(k * g->size / g->nreg);
}

/* floor(k*P/D) is strictly increasing since D <= P. */
int64_t dmxi_dir_region_of(const dir_geom *g, int rank)
{
    if (g->nreg == 0)
        return -1;
    int64_t k = ((int64_t)rank * g->nreg + g->size - 1) / g->size;
    return k < g->nreg && dmxi_dir_owner(g, k) == rank ? k : -1;
}

void dmxi_dir_region(const dir_geom *g, int64_t k, int64_t *r0, int64_t *c0, int64_t *r1,
                     int64_t *c1)
{
    int64_t i = k / g->pc, j = k % g->pc;
    *r0 = part_start(g->rbase, g->rrem, i);
    *r1 = part_start(g->rbase, g->rrem, i + 1);
    *c0 = part_start(g->cbase, g->crem, j);
    *c1 = part_start(g->cbase, g->crem, j + 1);
}
