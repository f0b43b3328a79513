/* SPDX-License-Identifier: BSD-3-Clause */
/* Small calls with no collective: which calls take that path, and the gathered key each process
 * makes alone for them.
 *
 * Algorithm: a call of p?gemr2d, p?trmr2d or p?tran* takes the path when every process can tell
 * alone that every process takes it: dmx_transform_once_is_local(dtype, M, N)
 * (DMX_PLAN_CHECK=local, dmx's default error handler, 2 x M x N x element size <= DMX_ONCE_BYTES:
 * global arguments and settings equal everywhere), this process is in both grids, each grid has as
 * many processes as the context (a grid lies inside the context, so then every process of the
 * context is in both, and each one sees the same), and neither side has first-block sizes (IMB !=
 * MB: a custom layout, made with an agreement). Those are facts every process of a correct call
 * shares; LLD, the one descriptor entry a process may choose alone, plays no part. A p?trmr2d call
 * is one or two pieces (a band and a triangle), each run by its own one-shot call; dmx keeps the
 * plans of the last few one-shot calls (DMX_ONCE_KEEP), so a repeated call plans neither piece
 * again.
 *
 * The key the group would gather is then made locally: every process's row is this process's own
 * key with that process's grid coordinates, which follow from the grids' communicators
 * (MPI_Group_translate_ranks from each grid's communicator, whose rank is prow * NPCOL + pcol,
 * to the context's). Only the descriptor entries every process shares and this process's own LLD
 * are read from it, so the plan each process builds from it addresses its own memory correctly
 * whatever LLD the others pass. The validation of that key (dmxsp_decode_side) is then this
 * process's own check of the arguments, and a failure ends the job from here.
 *
 * A small p?gemr2d or p?trmr2d call whose grids do not both hold every process of the context
 * (each process sees that alone: it is outside a grid, or in one with fewer processes) cannot be
 * decided alone: outside a grid a descriptor holds only CTXT = -1. It gets eligibility 2: the
 * engine allgathers the keys (one collective) and then runs it as above from the gathered key.
 *
 * Preconditions: the call passed sp_engine.c's early checks (M, N > 0, descriptors not NULL, this
 * process in the context). Cost: local, O(P) to translate the ranks and fill the key (P processes
 * in the context); memory: P x KEY_LEN integers (the context's gather buffer).
 */
#include "sp_internal.h"

#include <stdlib.h>
#include <string.h>

/* The context ranks of the processes of the grid of BLACS context gctxt (ranks[prow * npcol +
 * pcol]), np of them; the grid is ictxt's own when gctxt == ictxt. Returns 0 on success. */
static int grid_ranks(int gctxt, int ictxt, MPI_Group cgroup, int np, int *ranks)
{
    if (gctxt == ictxt) {
        for (int k = 0; k < np; k++)
            ranks[k] = k;
        return 0;
    }
    int handle = -1;
    Cblacs_get(gctxt, 10, &handle);
    MPI_Comm gcomm = Cblacs2sys_handle(handle);
    MPI_Group g = MPI_GROUP_NULL;
    if (gcomm == MPI_COMM_NULL || MPI_Comm_group(gcomm, &g) != MPI_SUCCESS)
        return 1;
    int gsize = 0, rc = MPI_Group_size(g, &gsize);
    if (rc == MPI_SUCCESS && gsize != np)
        rc = MPI_ERR_GROUP;
    /* The grid ranks 0..np-1 in an array of their own: MPI forbids passing one array as both
     * the ranks to translate and the result (MPICH writes the result while reading, Open MPI
     * happened not to). */
    int *idx = rc == MPI_SUCCESS ? malloc(sizeof(int) * (size_t)np) : NULL;
    if (rc == MPI_SUCCESS && idx == NULL)
        rc = MPI_ERR_NO_MEM;
    for (int k = 0; k < np && rc == MPI_SUCCESS; k++)
        idx[k] = k;
    if (rc == MPI_SUCCESS)
        rc = MPI_Group_translate_ranks(g, np, idx, cgroup, ranks);
    free(idx);
    for (int k = 0; k < np && rc == MPI_SUCCESS; k++)
        if (ranks[k] == MPI_UNDEFINED)
            rc = MPI_ERR_GROUP;
    const int frc = MPI_Group_free(&g);
    return rc != MPI_SUCCESS || frc != MPI_SUCCESS;
}

int dmxsp_small_eligible(const sp_call *c, const int *key, dmx_dtype dtype, int size)
{
    if (c->routine != SP_GEMR2D && c->routine != SP_TRMR2D && c->routine != SP_TRAN)
        return 0;
    if (!dmx_transform_once_is_local(dtype, c->m, c->n))
        return 0;
    int custom = 0;
    for (int side = 0; side < 2; side++) {
        const int *s = key + (side ? K_DST : K_SRC);
        if (!s[F_IN] || (int64_t)s[F_NPROW] * s[F_NPCOL] != size) /* every process sees it */
            return c->routine != SP_TRAN ? 2 : 0;
        custom |= s[F_IMB] != s[F_MB] || s[F_INB] != s[F_NB];
    }
    return custom ? 0 : 1;
}

int dmxsp_small_gkey(const sp_call *c, const int *key, MPI_Group cgroup, int size, int *ranks,
                     int *gkey)
{
    for (int r = 0; r < size; r++)
        memcpy(gkey + (size_t)r * KEY_LEN, key, KEY_LEN * sizeof *key);
    for (int side = 0; side < 2; side++) {
        const int off = side ? K_DST : K_SRC;
        const int gctxt = side ? c->descdst[1] : c->descsrc[1];
        const int npcol = key[off + F_NPCOL];
        int *rk = ranks + (size_t)side * (size_t)size;
        if (grid_ranks(gctxt, c->ictxt, cgroup, size, rk))
            return 1;
        for (int g = 0; g < size; g++) {
            int *row = gkey + (size_t)rk[g] * KEY_LEN + off;
            row[F_MYROW] = g / npcol;
            row[F_MYCOL] = g % npcol;
        }
    }
    return 0;
}
