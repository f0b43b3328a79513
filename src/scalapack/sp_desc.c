/* SPDX-License-Identifier: BSD-3-Clause */
/* The one descriptor reader of the drop-in: every entry point (p?gemr2d, p?trmr2d, p?tran*,
 * p?gemm) turns its descriptors into an sp_desc here, so they all read DTYPE, the 9- and the
 * 11-integer forms alike.
 *
 * ScaLAPACK has two rules, and so does this reader:
 * - REDIST (p?gemr2d, p?trmr2d) never looks at DTYPE: the descriptor is always the 9 integers
 *   (DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD), whatever DTYPE holds (its own test drivers leave
 *   DTYPE unset on some processes).
 * - The PBLAS (p?tran*, p?gemm) read DTYPE: 1 is the same 9 integers; 2 (BLOCK_CYCLIC_2D_INB) is
 *   11 integers with first-block sizes (DTYPE, CTXT, M, N, IMB, INB, MB, NB, RSRC, CSRC, LLD).
 *   Any other value keeps DTYPE and CTXT and leaves neutral values in the rest (an empty matrix of
 *   1 x 1 blocks), which the callers' checks then refuse on DTYPE, as the PBLAS do. */
#include "sp_internal.h"

void dmxsp_desc_read(const int *desc, int pblas, sp_desc *d)
{
    d->dtype = desc[0];
    d->ctxt = desc[1];
    if (pblas && desc[0] == 2) {
        d->m = desc[2];
        d->n = desc[3];
        d->imb = desc[4];
        d->inb = desc[5];
        d->mb = desc[6];
        d->nb = desc[7];
        d->rsrc = desc[8];
        d->csrc = desc[9];
        d->lld = desc[10];
        return;
    }
    if (pblas && desc[0] != 1) {
        d->m = d->n = 0;
        d->imb = d->inb = d->mb = d->nb = 1;
        d->rsrc = d->csrc = 0;
        d->lld = 1;
        return;
    }
    if (!pblas)
        d->dtype = 1;
    d->m = desc[2];
    d->n = desc[3];
    d->imb = d->mb = desc[4];
    d->inb = d->nb = desc[5];
    d->rsrc = desc[6];
    d->csrc = desc[7];
    d->lld = desc[8];
}

int64_t dmxsp_numroc(int64_t n, int64_t first, int64_t bs, int p, int src, int np)
{
    if (n <= 0)
        return 0;
    if (src < 0) /* replicated: every process holds all of it */
        return n;
    if (first > n)
        first = n;
    const int64_t mine = ((int64_t)(p - src) % np + np) % np; /* first block index p owns */
    int64_t count = 0, next = mine;
    if (mine == 0) {
        count = first;
        next = np;
    }
    const int64_t rest = n - first; /* entries after the first block, in blocks of bs */
    if (rest <= 0)
        return count;
    const int64_t nfull = rest / bs, tail = rest % bs; /* blocks 1 .. nfull full, then tail */
    /* blocks next, next + np, ... among 1 .. nfull (+1 if tail) */
    const int64_t last = nfull + (tail > 0);
    if (next > last)
        return count;
    const int64_t nb = (last - next) / np + 1;
    count += nb * bs;
    if (tail > 0 && next + (nb - 1) * np == last)
        count -= bs - tail;
    return count;
}

int64_t dmxsp_local_index(int64_t g, int64_t first, int64_t bs, int src, int np, int me)
{
    if (src < 0)
        return g;
    const int64_t b = g < first ? 0 : 1 + (g - first) / bs;
    if ((int)((src + b) % np) != me)
        return -1;
    if (b == 0)
        return g;
    /* blocks b - np, b - 2 np, ... >= 0 precede it here, block 0 (first entries) among them
     * when b is a multiple of np */
    int64_t off = (b / np) * bs;
    if (b % np == 0)
        off -= bs - first;
    return off + (g - (first + (b - 1) * bs));
}
