/* ScaLAPACK calls as keys: what each process contributes (its grid coordinates, descriptors,
 * indices, sizes, routine), the validation of a gathered key exactly as ScaLAPACK would check
 * the arguments, and the pieces (with trapezoid masks) one call becomes. Local, deterministic:
 * every process reaches the same verdict from the same gathered key. */
#include "sp_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- keys ------------------------------------------------------------------------------------ */
/* Whether this process is in the BLACS grid ctxt, with its shape and coordinates. */
int sp_grid_member(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol)
{
    *nprow = *npcol = *myrow = *mycol = -1;
    if (ctxt < 0)
        return 0;
    Cblacs_gridinfo(ctxt, nprow, npcol, myrow, mycol);
    return *nprow >= 1 && *npcol >= 1 && *myrow >= 0 && *mycol >= 0 && *myrow < *nprow &&
           *mycol < *npcol;
}

static void fill_side(int *s, const int *desc, int i, int j)
{
    int nprow, npcol, myrow, mycol;
    memset(s, 0, SIDE_LEN * sizeof *s);
    if (desc == NULL || !sp_grid_member(desc[1], &nprow, &npcol, &myrow, &mycol))
        return;
    s[F_IN] = 1;
    s[F_NPROW] = nprow;
    s[F_NPCOL] = npcol;
    s[F_MYROW] = myrow;
    s[F_MYCOL] = mycol;
    s[F_DTYPE] = desc[0];
    s[F_M] = desc[2];
    s[F_N] = desc[3];
    s[F_MB] = desc[4];
    s[F_NB] = desc[5];
    s[F_RSRC] = desc[6];
    s[F_CSRC] = desc[7];
    s[F_LLD] = desc[8];
    s[F_I] = i;
    s[F_J] = j;
}

void sp_build_key(const sp_call *c, int *key)
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
    fill_side(key + K_SRC, c->descsrc, c->isrc, c->jsrc);
    fill_side(key + K_DST, c->descdst, c->idst, c->jdst);
}

/* ---- validation of a gathered key ------------------------------------------------------------ */

static const char *const side_field_name[SIDE_LEN] = {
    "", "NPROW", "NPCOL", "", "", "DTYPE", "M", "N", "MB", "NB", "RSRC", "CSRC", "", "I", "J"};

/* Decode one side of the gathered key; returns 0, or 1 with a message. Deterministic: every
 * process reaches the same verdict. rows x cols is the submatrix size on this side. */
int sp_decode_side(const int *gkey, int size, int off, const char *mat, int rows, int cols,
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
    s->grid_ranks = sp_xcalloc((size_t)s->nprow * (size_t)s->npcol, sizeof(int), "dmx_scalapack");
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
        snprintf(msg, len, "DTYPE_%s = %d; only 1 (BLOCK_CYCLIC_2D) is supported", mat,
                 ref[F_DTYPE]);
        return 1;
    }
    s->m = ref[F_M];
    s->n = ref[F_N];
    s->mb = ref[F_MB];
    s->nb = ref[F_NB];
    s->rsrc = ref[F_RSRC];
    s->csrc = ref[F_CSRC];
    if (s->m < 0 || s->n < 0 || s->mb < 1 || s->nb < 1) {
        snprintf(msg, len, "bad descriptor of %s: M=%d N=%d MB=%d NB=%d", mat, s->m, s->n, s->mb,
                 s->nb);
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
int sp_make_pieces(const int *key, sp_piece *p)
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
