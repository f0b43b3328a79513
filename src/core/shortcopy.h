/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies of many short runs (at most DMXI_SHORT_RUN bytes each, all of one length) with one
 * stride per side: the columns of a tile of small blocks in the redistribution's copy kernel
 * (exec/kernels_copy.c; block-cyclic blocks of a few elements, as ScaLAPACK codes and its REDIST
 * tester use) and the blocks of a strided one-sided transfer (rma/rma_ops.c). A memcpy call per run
 * costs its call, its size dispatch and its tail handling for a handful of bytes; here the size
 * class is chosen once and each run is two fixed-size moves that may overlap (the compiler turns
 * each into loads and stores of that width). Not installed.
 *
 * Measured (docs/exec.md, "Short runs"): the GEMR2D-style sequence, whose blocks are 1 to m/30
 * elements, went from 0.85x to 0.97-1.02x ScaLAPACK's speed in one-shot calls; one-sided blocks
 * had used fixed-length copies for the sizes 4, 8, ..., 128 bytes (8-element double blocks: a
 * memcpy call per block cost 10 % of a strided 8 MiB copy), which this generalizes. */
#ifndef DMXI_SHORTCOPY_H
#define DMXI_SHORTCOPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { DMXI_SHORT_RUN = 128 };

#if defined(__GNUC__)
#define DMXI_SHORT_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define DMXI_SHORT_PREFETCH(p) ((void)(p))
#endif

/* Runs of n bytes, W <= n <= 2 W: the first W bytes, and the last W when n > W (TWO). */
#define DMXI_SHORT_LOOP(W, TWO)                                                                    \
    for (int64_t j_ = 0; j_ < cols; j_++) {                                                        \
        if (pf > 0 && j_ + pf < cols) {                                                            \
            DMXI_SHORT_PREFETCH(s + (j_ + pf) * lds);                                              \
            DMXI_SHORT_PREFETCH(s + (j_ + pf) * lds + n - 1);                                      \
        }                                                                                          \
        memcpy(d + j_ * ldd, s + j_ * lds, (W));                                                   \
        if (TWO)                                                                                   \
            memcpy(d + j_ * ldd + n - (W), s + j_ * lds + n - (W), (W));                           \
    }
#define DMXI_SHORT_CLASS(W)                                                                        \
    do {                                                                                           \
        if (n == (W)) {                                                                            \
            DMXI_SHORT_LOOP(W, 0)                                                                  \
        } else {                                                                                   \
            DMXI_SHORT_LOOP(W, 1)                                                                  \
        }                                                                                          \
    } while (0)

/* cols runs of n bytes (1 <= n <= DMXI_SHORT_RUN): run j from s + j*lds to d + j*ldd (strides
 * in bytes; no run of one side overlaps a run of the other). With pf > 0 the first and the last
 * line of source run j + pf are prefetched while run j is copied (a run of over 64 bytes may
 * cross a third line, not prefetched); the caller prefetches the first pf runs. */
static inline void dmxi_copy_short_runs(char *d, int64_t ldd, const char *s, int64_t lds, size_t n,
                                        int64_t cols, int64_t pf)
{
    if (n >= 64) {
        DMXI_SHORT_CLASS(64);
    } else if (n >= 32) {
        DMXI_SHORT_CLASS(32);
    } else if (n >= 16) {
        DMXI_SHORT_CLASS(16);
    } else if (n >= 8) {
        DMXI_SHORT_CLASS(8);
    } else if (n >= 4) {
        DMXI_SHORT_CLASS(4);
    } else if (n >= 2) {
        DMXI_SHORT_CLASS(2);
    } else {
        DMXI_SHORT_CLASS(1);
    }
}

#undef DMXI_SHORT_CLASS
#undef DMXI_SHORT_LOOP

#endif
