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
 * than without it. The rule reads only arguments that ScaLAPACK requires to be equal on every
 * process (sizes, TRANS, the descriptors' block sizes), so every process takes the same side.
 *
 * DMX_SCALAPACK_GEMM: auto (default, the rule), dmx (every call through dmx's multiply: the
 * comparison tests use it) or scalapack (every call handed on). */
#define _GNU_SOURCE
#include "sp_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Products below this many multiply-adds (m n k) go to ScaLAPACK. */
#define SP_GEMM_SMALL (1024.0 * 1024.0 * 1024.0)
/* Inner dimensions of at most this many of A's blocks along k go to ScaLAPACK. */
#define SP_GEMM_PANEL_BLOCKS 2

enum { MODE_AUTO, MODE_DMX, MODE_SCALAPACK };

static int mode(void)
{
    static int m = -1;
    if (m < 0) {
        const char *env = dmx_setting_str("DMX_SCALAPACK_GEMM");
        m = MODE_AUTO;
        if (env != NULL && strcmp(env, "dmx") == 0)
            m = MODE_DMX;
        else if (env != NULL && strcmp(env, "scalapack") == 0)
            m = MODE_SCALAPACK;
        else if (env != NULL && *env != '\0' && strcmp(env, "auto") != 0)
            fprintf(stderr,
                    "dmx_scalapack: DMX_SCALAPACK_GEMM=%s is not auto, dmx or scalapack; "
                    "using auto\n",
                    env);
    }
    return m;
}

sp_gemm_fn *sp_gemm_next(sp_type t)
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

/* Why the call goes to ScaLAPACK, or NULL when it stays with dmx. */
static const char *reason(sp_type t, char ta, int m, int n, int k, const int *desca)
{
    int md = mode();
    if (md == MODE_DMX || sp_gemm_next(t) == NULL)
        return NULL;
    if (md == MODE_SCALAPACK)
        return "DMX_SCALAPACK_GEMM=scalapack";
    if ((double)m * (double)n * (double)k < SP_GEMM_SMALL)
        return "a small product";
    /* A's blocking along k: columns (NB) for op N, rows (MB) for T and C. desca[0] (DTYPE) says
     * where they are: 9 integers (1) or the PBLAS' 11 (2, with the first block's sizes first). */
    int kb = desca[0] == 2 ? (ta == 'N' || ta == 'n' ? desca[7] : desca[6])
                           : (ta == 'N' || ta == 'n' ? desca[5] : desca[4]);
    if (kb > 0 && (double)k <= (double)SP_GEMM_PANEL_BLOCKS * kb)
        return "a rank-nb update";
    return NULL;
}

int sp_gemm_to_scalapack(sp_type t, char ta, int m, int n, int k, const int *desca)
{
    const char *why = reason(t, ta, m, n, k, desca);
    if (why == NULL)
        return 0;
    sp_count_gemm_handed();
    if (dmx_setting_int("DMX_PROFILE") > 0) {
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "dmx profile rank %d: P%cGEMM %d x %d x %d: handed to ScaLAPACK (%s)\n",
                rank, "ISDCZ"[t], m, n, k, why);
    }
    return 1;
}
