/* SPDX-License-Identifier: BSD-3-Clause */
/* Which p?gemm_ calls dmx's multiply takes, and the rest handed to the ScaLAPACK the program
 * links (the next p?gemm_ in the loader's search order: libscalapack after a preloaded or
 * linked-first libdmx_scalapack).
 *
 * dmx's multiply brings A and B into its algorithm's layout, multiplies and brings C back: that
 * pays when the product is large and its inner dimension spans many blocks. ScaLAPACK's own
 * PDGEMM on a rank-nb update (k no more than a couple of blocks: what the trailing updates of
 * PDGETRF, PDPOTRF and the Householder reductions call, many times per factorization) sends each
 * panel once, straight from where it lies, which no redistribution can beat; small products are
 * dominated by dmx's planning. Those go to ScaLAPACK, so a solver is never slower with the drop-in
 * than without it. Except when SUMMA can run on the caller's arrays (sp_gemm_summa.c): then there
 * is no redistribution and no plan to make, panels are sent once from where they lie, as
 * ScaLAPACK sends them, and dmx keeps every product from 256^3 multiply-adds up, rank-nb updates
 * included. The rule reads only arguments that ScaLAPACK requires to be equal on every
 * process (sizes, TRANS, the descriptors' block sizes), so every process takes the same side.
 *
 * DMX_SCALAPACK_GEMM: auto (default, the rule), dmx (every call through dmx's multiply: the
 * comparison tests use it) or scalapack (every call handed on). */
#define _GNU_SOURCE
#include "sp_gemm_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Products below this many multiply-adds (m n k) go to ScaLAPACK. */
#define SP_GEMM_SMALL (1024.0 * 1024.0 * 1024.0)
/* ... or below this many when SUMMA can run on the caller's arrays (measured: bench_sp_gemm at
 * nb = 64 on 1 x 2 and 2 x 2, 2 cores, docs/scalapack.md). */
#define SP_GEMM_SMALL_INPLACE (256.0 * 256.0 * 256.0)
/* Inner dimensions of at most this many of A's blocks along k go to ScaLAPACK. */
#define SP_GEMM_PANEL_BLOCKS 2

enum { MODE_AUTO, MODE_DMX, MODE_SCALAPACK };

const sp_gemm_set *dmxsp_gemm_settings(void)
{
    static sp_gemm_set set;
    static int read;
    if (read)
        return &set;
    const char *env = dmx_setting_str("DMX_SCALAPACK_GEMM"); /* src/core/settings_table.c */
    set.mode = MODE_AUTO;
    if (env != NULL && strcmp(env, "dmx") == 0)
        set.mode = MODE_DMX;
    else if (env != NULL && strcmp(env, "scalapack") == 0)
        set.mode = MODE_SCALAPACK;
    else if (env != NULL && *env != '\0' && strcmp(env, "auto") != 0)
        fprintf(stderr,
                "dmx_scalapack: DMX_SCALAPACK_GEMM=%s is not auto, dmx or scalapack; using auto\n",
                env);
    set.inplace = dmx_setting_int("DMX_SCALAPACK_GEMM_INPLACE") != 0;
    set.capacity = (int)dmx_setting_int("DMX_SCALAPACK_GEMM_CACHE");
    set.profile = dmx_setting_int("DMX_PROFILE") > 0;
    read = 1;
    return &set;
}

sp_gemm_fn *dmxsp_gemm_next(sp_type t)
{
    static const char *const names[5] = {NULL, "psgemm_", "pdgemm_", "pcgemm_", "pzgemm_"};
    static sp_gemm_fn *fn[5];
    static int looked[5];
    if (t < SP_S || t > SP_Z)
        return NULL;
    if (!looked[t]) {
        /* ISO C leaves converting dlsym's object pointer to a function pointer undefined; POSIX
         * requires it to work, written this way. */
        *(void **)(&fn[t]) = dlsym(RTLD_NEXT, names[t]);
        looked[t] = 1;
    }
    /* cppcheck-suppress CastIntegerToAddressAtReturn ; fn holds function pointers (the typedef
     * sp_gemm_fn, which cppcheck takes for an integer) */
    return fn[t];
}

/* Legal enough for dmxsp_gsumma_suits: this process in A's grid (*grid filled), TRANS letters, the
 * origins, sizes and the three descriptors' blocks and sources. The full check comes later
 * (sp_gemm_check.c); an illegal call here just keeps the rule below. */
static int plain(const sp_gemm_args *g, int *grid)
{
    if (!dmxsp_grid_member(g->a.ctxt, &grid[0], &grid[1], &grid[2], &grid[3]) || grid[0] < 1)
        return 0;
    const char *tr = "NnTtCc";
    if (g->m < 0 || g->n < 0 || g->k < 0 || strchr(tr, g->ta) == NULL || g->ta == 0 ||
        strchr(tr, g->tb) == NULL || g->tb == 0)
        return 0;
    const int org[6] = {g->ia, g->ja, g->ib, g->jb, g->ic, g->jc};
    for (int i = 0; i < 6; i++)
        if (org[i] < 1)
            return 0;
    const sp_desc *d[3] = {&g->a, &g->b, &g->c};
    for (int i = 0; i < 3; i++)
        if ((d[i]->dtype != 1 && d[i]->dtype != 2) || d[i]->ctxt != g->a.ctxt || d[i]->imb < 1 ||
            d[i]->inb < 1 || d[i]->mb < 1 || d[i]->nb < 1 || d[i]->rsrc < 0 ||
            d[i]->rsrc >= grid[0] || d[i]->csrc < 0 || d[i]->csrc >= grid[1])
            return 0;
    return 1;
}

/* The part of the rule that reads only the sizes: why the call goes to ScaLAPACK whatever its
 * descriptors hold, or NULL with *keep = 1 when it stays with dmx whatever they hold, or NULL with
 * *keep = 0 when the descriptors decide. Products under 256^3 are small for every layout
 * (negative sizes too: the call is illegal and ScaLAPACK reports it). */
static const char *by_size(sp_type t, double mnk, int *keep)
{
    const int md = dmxsp_gemm_settings()->mode;
    *keep = md == MODE_DMX || dmxsp_gemm_next(t) == NULL;
    if (*keep)
        return NULL;
    if (md == MODE_SCALAPACK)
        return "DMX_SCALAPACK_GEMM=scalapack";
    return mnk < SP_GEMM_SMALL_INPLACE ? "a small product" : NULL;
}

/* Why the call goes to ScaLAPACK, or NULL when it stays with dmx. */
static const char *reason(sp_type t, const sp_gemm_args *g)
{
    const sp_gemm_set *set = dmxsp_gemm_settings();
    const double mnk = (double)g->m * (double)g->n * (double)g->k;
    int keep = 0;
    const char *why = by_size(t, mnk, &keep);
    if (why != NULL || keep)
        return why;
    int grid[4];
    /* SUMMA on the caller's arrays pays no planning and sends each panel once from where it
     * lies, as ScaLAPACK does: it keeps every product but the tiny ones (by_size handed those) */
    if (set->inplace && plain(g, grid) && dmxsp_gsumma_suits(g, grid))
        return NULL;
    if (mnk < SP_GEMM_SMALL)
        return "a small product";
    /* A's blocking along k: columns (NB) for op N, rows (MB) for T and C */
    const int kb = g->ta == 'N' || g->ta == 'n' ? g->a.nb : g->a.mb;
    if (kb > 0 && (double)g->k <= (double)SP_GEMM_PANEL_BLOCKS * kb)
        return "a rank-nb update";
    return NULL;
}

/* Count a call handed to ScaLAPACK, and say why under DMX_PROFILE. Returns 1. */
static int handed(sp_type t, int m, int n, int k, const char *why)
{
    dmxsp_count_gemm_handed();
    if (dmxsp_gemm_settings()->profile) {
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "dmx profile rank %d: P%cGEMM %d x %d x %d: handed to ScaLAPACK (%s)\n",
                rank, "ISDCZ"[t], m, n, k, why);
    }
    return 1;
}

int dmxsp_gemm_one_process_allowed(void)
{
    return dmxsp_gemm_settings()->mode != MODE_SCALAPACK;
}

int dmxsp_gemm_tiny(sp_type t, int m, int n, int k)
{
    int keep = 0;
    const char *why = by_size(t, (double)m * (double)n * (double)k, &keep);
    return why != NULL ? handed(t, m, n, k, why) : 0;
}

int dmxsp_gemm_to_scalapack(sp_type t, const sp_gemm_args *g)
{
    const char *why = reason(t, g);
    return why == NULL ? 0 : handed(t, g->m, g->n, g->k, why);
}
