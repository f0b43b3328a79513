/* SPDX-License-Identifier: BSD-3-Clause */
/* The argument check of p?gemm, in the PBLAS' order and with their error codes: each process
 * checks its own arguments (LLD is local), the first illegal argument wins, and the code is the
 * PBLAS' INFO: -(position) for a scalar, -(100 x position + entry) for a descriptor entry
 * (entries numbered as in the 11-integer form, which a 9-integer descriptor is read as).
 *
 * Order (PDGEMM and its matrix check): TRANSA, else TRANSB; then for A, B and C in turn: the
 * submatrix's rows and columns >= 0, I and J >= 1, DTYPE 1 or 2 (nothing more of that matrix
 * when not), CTXT the same as A's (likewise), IMB, INB, MB, NB >= 1, RSRC and CSRC -1 or on the
 * grid, then M_ and N_ (>= 0 for an empty submatrix, with LLD >= 1; >= 1 otherwise, and the
 * submatrix inside the matrix), and only when nothing was wrong so far LLD >= the local rows of
 * the whole matrix (>= 1 where the process holds no column). The smallest code found is kept. */
#include "sp_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

typedef struct chk {
    int code; /* smallest code so far: 100 x position (+ entry), INT_MAX when none */
    char *msg;
    size_t len;
} chk;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
flag(chk *c, int code, const char *fmt, ...)
{
    if (code >= c->code)
        return;
    c->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, c->len, fmt, ap);
    va_end(ap);
}

static const char *const entry_name[11] = {"DTYPE", "CTXT", "M",    "N",    "IMB", "INB",
                                           "MB",    "NB",   "RSRC", "CSRC", "LLD"};

/* One matrix: sub(X) is rows x cols (positions rpos, cpos of those counts in the argument list)
 * at 1-based (i, j), descriptor at position dpos (I and J at dpos - 2, dpos - 1). */
static void check_matrix(chk *c, char x, int rows, int rpos, int cols, int cpos, int i, int j,
                         const sp_desc *d, int dpos, int ctxt, const int *grid)
{
    const int nprow = grid[0], npcol = grid[1], myrow = grid[2], mycol = grid[3];
    const int ipos = dpos - 2, jpos = dpos - 1, e0 = dpos * 100 + 1; /* entry e: e0 + e */
    if (rows < 0)
        flag(c, rpos * 100, "parameter %d: sub(%c) has %d rows", rpos, x, rows);
    if (cols < 0)
        flag(c, cpos * 100, "parameter %d: sub(%c) has %d columns", cpos, x, cols);
    if (i < 1)
        flag(c, ipos * 100, "parameter %d: I%c = %d, not >= 1", ipos, x, i);
    if (j < 1)
        flag(c, jpos * 100, "parameter %d: J%c = %d, not >= 1", jpos, x, j);
    if (d->dtype != 1 && d->dtype != 2) {
        flag(c, e0, "parameter %d: DESC%c DTYPE = %d, the PBLAS take 1 or 2", dpos, x, d->dtype);
        return;
    }
    if (d->ctxt != ctxt) {
        flag(c, e0 + 1, "parameter %d: DESC%c CTXT = %d, not A's context %d", dpos, x, d->ctxt,
             ctxt);
        return;
    }
    const int blk[4] = {d->imb, d->inb, d->mb, d->nb};
    for (int e = 0; e < 4; e++)
        if (blk[e] < 1)
            flag(c, e0 + 4 + e, "parameter %d: DESC%c %s = %d, not >= 1", dpos, x,
                 entry_name[4 + e], blk[e]);
    if (d->rsrc < -1 || d->rsrc >= nprow)
        flag(c, e0 + 8, "parameter %d: DESC%c RSRC = %d, not -1 or in [0, %d)", dpos, x, d->rsrc,
             nprow);
    if (d->csrc < -1 || d->csrc >= npcol)
        flag(c, e0 + 9, "parameter %d: DESC%c CSRC = %d, not -1 or in [0, %d)", dpos, x, d->csrc,
             npcol);
    const int lo = rows == 0 || cols == 0 ? 0 : 1; /* an empty submatrix relaxes M_, N_ */
    if (d->m < lo)
        flag(c, e0 + 2, "parameter %d: DESC%c M = %d, not >= %d", dpos, x, d->m, lo);
    if (d->n < lo)
        flag(c, e0 + 3, "parameter %d: DESC%c N = %d, not >= %d", dpos, x, d->n, lo);
    if (lo == 0) {
        if (d->lld < 1)
            flag(c, e0 + 10, "parameter %d: DESC%c LLD = %d, not >= 1", dpos, x, d->lld);
        return;
    }
    if (d->m >= 1 && d->n >= 1) {
        if ((int64_t)i - 1 + rows > d->m)
            flag(c, ipos * 100, "parameter %d: I%c = %d with %d rows passes M = %d", ipos, x, i,
                 rows, d->m);
        if ((int64_t)j - 1 + cols > d->n)
            flag(c, jpos * 100, "parameter %d: J%c = %d with %d columns passes N = %d", jpos, x, j,
                 cols, d->n);
    }
    if (c->code != INT_MAX)
        return;
    const int64_t np = dmxsp_numroc(d->m, d->imb, d->mb, myrow, d->rsrc, nprow);
    if (d->lld >= (np > 1 ? np : 1))
        return;
    const int64_t nq = dmxsp_numroc(d->n, d->inb, d->nb, mycol, d->csrc, npcol);
    if (d->lld < 1 || nq > 0)
        flag(c, e0 + 10, "parameter %d: DESC%c LLD = %d, not >= %lld (local rows)", dpos, x, d->lld,
             (long long)(np > 1 ? np : 1));
}

static int legal_trans(char t)
{
    t = (char)toupper((unsigned char)t);
    return t == 'N' || t == 'T' || t == 'C';
}

int dmxsp_gemm_check(const sp_gemm_args *g, const int *grid, char *msg, size_t len)
{
    chk c = {INT_MAX, msg, len};
    msg[0] = 0;
    if (!legal_trans(g->ta))
        flag(&c, 100, "parameter 1: TRANSA = '%c', not 'N', 'T' or 'C'", g->ta);
    else if (!legal_trans(g->tb))
        flag(&c, 200, "parameter 2: TRANSB = '%c', not 'N', 'T' or 'C'", g->tb);
    const int nota = toupper((unsigned char)g->ta) == 'N';
    const int notb = toupper((unsigned char)g->tb) == 'N';
    const int ctxt = g->a.ctxt;
    if (nota)
        check_matrix(&c, 'A', g->m, 3, g->k, 5, g->ia, g->ja, &g->a, 10, ctxt, grid);
    else
        check_matrix(&c, 'A', g->k, 5, g->m, 3, g->ia, g->ja, &g->a, 10, ctxt, grid);
    if (notb)
        check_matrix(&c, 'B', g->k, 5, g->n, 4, g->ib, g->jb, &g->b, 14, ctxt, grid);
    else
        check_matrix(&c, 'B', g->n, 4, g->k, 5, g->ib, g->jb, &g->b, 14, ctxt, grid);
    check_matrix(&c, 'C', g->m, 3, g->n, 4, g->ic, g->jc, &g->c, 19, ctxt, grid);
    if (c.code == INT_MAX)
        return 0;
    return c.code % 100 == 0 ? -(c.code / 100) : -c.code;
}
