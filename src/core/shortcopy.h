/* Copies of many short runs (at most DMXI_SHORT_RUN bytes each) with one stride per side: the
 * columns of a tile of small blocks (block-cyclic blocks of a few elements, as ScaLAPACK codes
 * and its REDIST tester use). A memcpy call per run costs its call, its size dispatch and its
 * tail handling for a handful of bytes; here the run length is the same for every run, so the
 * size class is chosen once and each run is two fixed-size moves (which may overlap; the
 * compiler turns them into one load and one store each). Not installed.
 *
 * Measured where it was introduced (docs/exec.md, "Short runs"): the GEMR2D-style sequence, whose
 * blocks are 1 to m/30 elements: one-shot calls went from 0.85x to 0.97-1.02x ScaLAPACK's speed. */
#ifndef DMXI_SHORTCOPY_H
#define DMXI_SHORTCOPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { DMXI_SHORT_RUN = 64 };

#if defined(__GNUC__)
#define DMXI_SHORT_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define DMXI_SHORT_PREFETCH(p) ((void)(p))
#endif

#define DMXI_SHORT_LOOP(W)                                                                         \
    for (int64_t j_ = 0; j_ < cols; j_++) {                                                        \
        if (pf > 0 && j_ + pf < cols) {                                                            \
            DMXI_SHORT_PREFETCH(s + (j_ + pf) * lds);                                              \
            DMXI_SHORT_PREFETCH(s + (j_ + pf) * lds + n - 1);                                      \
        }                                                                                          \
        memcpy(d + j_ * ldd, s + j_ * lds, (W));                                                   \
        memcpy(d + j_ * ldd + n - (W), s + j_ * lds + n - (W), (W));                               \
    }

/* cols runs of n bytes (4 <= n <= DMXI_SHORT_RUN, a multiple of 4): run j from s + j*lds to
 * d + j*ldd (strides in bytes; runs of one side do not overlap those of the other). With pf > 0
 * the (at most two) lines of source run j + pf are prefetched while run j is copied; the caller
 * prefetches the first pf runs. */
static inline void dmxi_copy_short_runs(char *d, int64_t ldd, const char *s, int64_t lds, size_t n,
                                        int64_t cols, int64_t pf)
{
    if (n >= 32) {
        DMXI_SHORT_LOOP(32)
    } else if (n >= 16) {
        DMXI_SHORT_LOOP(16)
    } else if (n >= 8) {
        DMXI_SHORT_LOOP(8)
    } else {
        for (int64_t j_ = 0; j_ < cols; j_++)
            memcpy(d + j_ * ldd, s + j_ * lds, 4);
    }
}

#undef DMXI_SHORT_LOOP

#endif
