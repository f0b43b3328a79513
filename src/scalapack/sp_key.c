/* SPDX-License-Identifier: BSD-3-Clause */
/* ScaLAPACK calls as keys: what each process contributes (its grid coordinates, descriptors,
 * indices, sizes, routine), the validation of a gathered key exactly as ScaLAPACK would check
 * the arguments, and the pieces (with trapezoid masks) one call becomes. Local, deterministic:
 * every process reaches the same verdict from the same gathered key. */
#include "sp_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- keys ------------------------------------------------------------------------------------ */
/* Whether this process is in the BLACS grid ctxt, with its shape and coordinates. */
int dmxsp_grid_member(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol)
{
    *nprow = *npcol = *myrow = *mycol = -1;
    if (ctxt < 0)
        return 0;
    Cblacs_gridinfo(ctxt, nprow, npcol, myrow, mycol);
    return *nprow >= 1 && *npcol >= 1 && *myrow >= 0 && *mycol >= 0 && *myrow < *nprow &&
           *mycol < *npcol;
}

/* Where ScaLAPACK reads DTYPE: the PBLAS (p?tran*) do, the REDIST routines (p?gemr2d,
 * p?trmr2d) do not; dmxsp_desc_read (sp_desc.c) applies the rule. The side is stored normalized:
 * DTYPE 1 when valid (the raw value otherwise, for the message), IMB/INB = MB/NB for 9 integers. */
static int is_pblas(sp_routine routine)
{
    return routine == SP_TRAN;
}

static void fill_side(int *s, sp_routine routine, const int *desc, int i, int j, int ictxt,
                      const int *grid)
{
    int nprow = grid[0], npcol = grid[1], myrow = grid[2], mycol = grid[3];
    memset(s, 0, SIDE_LEN * sizeof *s);
    if (desc == NULL ||
        (desc[1] != ictxt && !dmxsp_grid_member(desc[1], &nprow, &npcol, &myrow, &mycol)))
        return;
    sp_desc d;
    dmxsp_desc_read(desc, is_pblas(routine), &d);
    s[F_IN] = 1;
    s[F_NPROW] = nprow;
    s[F_NPCOL] = npcol;
    s[F_MYROW] = myrow;
    s[F_MYCOL] = mycol;
    s[F_DTYPE] = d.dtype == 2 ? 1 : d.dtype; /* both accepted forms validate as 1 */
    s[F_M] = d.m;
    s[F_N] = d.n;
    s[F_I] = i;
    s[F_J] = j;
    s[F_IMB] = d.imb;
    s[F_INB] = d.inb;
    s[F_MB] = d.mb;
    s[F_NB] = d.nb;
    s[F_RSRC] = d.rsrc;
    s[F_CSRC] = d.csrc;
    s[F_LLD] = d.lld;
}

/* The address of a side's array where the side needs a custom layout (see K_SRCPTR). */
static void fill_pointer(int *k, sp_routine routine, const int *desc, const void *local)
{
    k[0] = k[1] = 0;
    if (desc == NULL)
        return;
    sp_desc d;
    dmxsp_desc_read(desc, is_pblas(routine), &d);
    if (d.imb == d.mb && d.inb == d.nb)
        return;
    uint64_t v = (uint64_t)(uintptr_t)local;
    k[0] = (int)(uint32_t)(v & 0xffffffffu);
    k[1] = (int)(uint32_t)(v >> 32);
}

void dmxsp_build_key(const sp_call *c, const int *grid, int *key)
{
    memset(key, 0, KEY_LEN * sizeof *key);
    key[K_ROUTINE] = (int)c->routine;
    key[K_TYPE] = (int)c->type;
    key[K_OP] = (int)c->op;
    key[K_M] = c->m;
    key[K_N] = c->n;
    if (c->routine == SP_TRMR2D) {
        /* ScaLAPACK: uplo 'U' is upper, anything else lower; for upper, diag 'N' copies the
         * diagonal and anything else does not; for lower, diag 'U' leaves it out and anything
         * else copies it. */
        int upper = toupper((unsigned char)c->uplo) == 'U';
        int d = toupper((unsigned char)c->diag);
        key[K_UPPER] = upper;
        key[K_WITHDIAG] = upper ? d == 'N' : d != 'U';
    }
    if (c->routine == SP_TRAN && c->descsrc != NULL && c->descdst != NULL &&
        c->descsrc[1] != c->descdst[1])
        key[K_CTXTMISMATCH] = 1;
    fill_side(key + K_SRC, c->routine, c->descsrc, c->isrc, c->jsrc, c->ictxt, grid);
    fill_side(key + K_DST, c->routine, c->descdst, c->idst, c->jdst, c->ictxt, grid);
    if (key[K_SRC + F_IN])
        fill_pointer(key + K_SRCPTR, c->routine, c->descsrc, c->src);
    if (key[K_DST + F_IN])
        fill_pointer(key + K_DSTPTR, c->routine, c->descdst, c->dst);
}

/* ---- validation of a gathered key ------------------------------------------------------------ */

static const char *const side_field_name[SIDE_LEN] = {"",  "NPROW", "NPCOL", "",    "",     "DTYPE",
                                                      "M", "N",     "MB",    "NB",  "RSRC", "CSRC",
                                                      "",  "I",     "J",     "IMB", "INB"};

/* Decode one side of the gathered key; returns 0, or 1 with a message. Deterministic: every
 * process reaches the same verdict. rows x cols is the submatrix size on this side. */
int dmxsp_decode_side(const int *gkey, int size, int off, const char *mat, int rows, int cols,
                      sp_side *s, char *msg, size_t len)
{
    const int *ref = NULL;
    for (int r = 0; r < size && ref == NULL; r++)
        if (gkey[(size_t)r * KEY_LEN + off + F_IN])
            ref = gkey + (size_t)r * KEY_LEN + off;
    if (ref == NULL) {
        snprintf(msg, len, "no process of the context is in the grid of %s (CTXT_%s = -1 on all)",
                 mat, mat);
        return 1;
    }
    s->nprow = ref[F_NPROW];
    s->npcol = ref[F_NPCOL];
    if ((int64_t)s->nprow * s->npcol > size) {
        snprintf(msg, len, "the %d x %d grid of %s has more processes than the context (%d)",
                 s->nprow, s->npcol, mat, size);
        return 1;
    }
    s->grid_ranks =
        dmxsp_xcalloc((size_t)s->nprow * (size_t)s->npcol, sizeof(int), "dmx_scalapack");
    for (int k = 0; k < s->nprow * s->npcol; k++)
        s->grid_ranks[k] = -1;
    for (int r = 0; r < size; r++) {
        const int *f = gkey + (size_t)r * KEY_LEN + off;
        if (!f[F_IN])
            continue;
        for (int q = F_NPROW; q < SIDE_LEN; q++) {
            if (q == F_MYROW || q == F_MYCOL || q == F_LLD || f[q] == ref[q])
                continue;
            snprintf(msg, len, "processes disagree on %s of %s (%d and %d)", side_field_name[q],
                     mat, ref[q], f[q]);
            return 1;
        }
        int slot = f[F_MYROW] * s->npcol + f[F_MYCOL];
        if (s->grid_ranks[slot] != -1) {
            snprintf(msg, len, "two processes are at (%d, %d) of the grid of %s", f[F_MYROW],
                     f[F_MYCOL], mat);
            return 1;
        }
        s->grid_ranks[slot] = r;
    }
    for (int k = 0; k < s->nprow * s->npcol; k++) {
        if (s->grid_ranks[k] < 0) {
            snprintf(msg, len, "process (%d, %d) of the grid of %s is not in the context",
                     k / s->npcol, k % s->npcol, mat);
            return 1;
        }
    }
    if (ref[F_DTYPE] != 1) {
        snprintf(msg, len,
                 "DTYPE_%s = %d; the PBLAS accept 1 (BLOCK_CYCLIC_2D) and 2 (BLOCK_CYCLIC_INB_2D)",
                 mat, ref[F_DTYPE]);
        return 1;
    }
    s->m = ref[F_M];
    s->n = ref[F_N];
    s->mb = ref[F_MB];
    s->nb = ref[F_NB];
    s->rsrc = ref[F_RSRC];
    s->csrc = ref[F_CSRC];
    s->imb = ref[F_IMB];
    s->inb = ref[F_INB];
    s->custom = s->imb != s->mb || s->inb != s->nb;
    if (s->m < 0 || s->n < 0 || s->mb < 1 || s->nb < 1 || s->imb < 1 || s->inb < 1) {
        snprintf(msg, len, "bad descriptor of %s: M=%d N=%d MB=%d NB=%d IMB=%d INB=%d", mat, s->m,
                 s->n, s->mb, s->nb, s->imb, s->inb);
        return 1;
    }
    if (s->rsrc < 0 || s->rsrc >= s->nprow || s->csrc < 0 || s->csrc >= s->npcol) {
        snprintf(msg, len, "bad first process coordinates of %s: RSRC=%d CSRC=%d on a %d x %d grid",
                 mat, s->rsrc, s->csrc, s->nprow, s->npcol);
        return 1;
    }
    int i = ref[F_I], j = ref[F_J];
    if (i < 1 || j < 1 || (int64_t)i - 1 + rows > s->m || (int64_t)j - 1 + cols > s->n) {
        snprintf(msg, len, "bad submatrix of %s: I=%d J=%d, %d x %d in a %d x %d matrix", mat, i, j,
                 rows, cols, s->m, s->n);
        return 1;
    }
    s->i0 = i - 1;
    s->j0 = j - 1;
    s->rows = rows;
    s->cols = cols;
    return 0;
}

/* ---- pieces of a call ------------------------------------------------------------------------ */

/* ScaLAPACK's trapezoid (REDIST pxtrmr2d): for 'U' with m > n the top m - n rows are copied
 * whole and the bottom n x n square is upper triangular; for 'L' with n > m the left n - m
 * columns are copied whole and the right m x m square is lower triangular. Otherwise it is the
 * usual trapezoid anchored at the top-left corner. */
int dmxsp_make_pieces(const int *key, sp_piece *p)
{
    int m = key[K_M], n = key[K_N];
    sp_piece all = {0, 0, m, n, 0, 0};
    if (key[K_ROUTINE] != SP_TRMR2D) {
        p[0] = all;
        return 1;
    }
    char diag = key[K_WITHDIAG] ? 'N' : 'U';
    int np = 0;
    if (key[K_UPPER]) {
        if (m > n) {
            sp_piece band = {0, 0, m - n, n, 0, 0};
            p[np++] = band;
            sp_piece tri = {m - n, 0, n, n, 'U', diag};
            p[np++] = tri;
        } else {
            sp_piece tri = {0, 0, m, n, 'U', diag};
            p[np++] = tri;
        }
    } else {
        if (n > m) {
            sp_piece band = {0, 0, m, n - m, 0, 0};
            p[np++] = band;
            sp_piece tri = {0, n - m, m, m, 'L', diag};
            p[np++] = tri;
        } else {
            sp_piece tri = {0, 0, m, n, 'L', diag};
            p[np++] = tri;
        }
    }
    return np;
}
