/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies whose destination is written with non-temporal stores (no read of the destination's
 * cache lines first, and the lines do not displace what is in the cache). Used where a large
 * destination is written once and not read again soon: the unpack into A (exec/kernels_copy.c,
 * kernels_transpose.c) and direct one-sided puts and gets between node peers (rma/rma_shm.c). Not
 * installed.
 *
 * Whole cache lines go out 16 bytes at a time; the partial lines at both ends, and blocks
 * shorter than a line, element by element (8- and 4-byte stores on their boundaries). Storing a
 * partial line through the cache instead costs a read of the line from memory before the store
 * can complete, and the other part of such a line is usually written by another piece at another
 * time (or never), so each one is a full memory latency on the core's critical path; on this
 * project's VM (AMD EPYC family 23) those reads were a half of the redistribution's unpack at
 * align 0 (docs/exec.md, "Edge lines"). A non-temporal partial write leaves the merge to the
 * memory side and does not stall the core.
 *
 * Stores become visible to other threads and processes in order only after dmxi_nt_fence()
 * (an sfence). Without SSE2 everything is a memcpy. */
#ifndef DMXI_NTSTORE_H
#define DMXI_NTSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { DMXI_NT_LINE = 64 };

/* n bytes from s to d: 8-byte non-temporal stores on 8-byte boundaries, 4-byte ones on 4-byte
 * boundaries, memcpy for whatever is left (d off a 4-byte boundary). */
static inline void dmxi_nt_edge(char *restrict d, const char *restrict s, size_t n)
{
#if defined(__SSE2__) && defined(__x86_64__)
    if ((uintptr_t)d % 4 == 0) {
        if ((uintptr_t)d % 8 != 0 && n >= 4) {
            int v;
            memcpy(&v, s, 4);
            _mm_stream_si32((int *)(void *)d, v);
            d += 4, s += 4, n -= 4;
        }
        for (; n >= 8; d += 8, s += 8, n -= 8) {
            long long v;
            memcpy(&v, s, 8);
            _mm_stream_si64((long long *)(void *)d, v);
        }
        if (n >= 4) {
            int v;
            memcpy(&v, s, 4);
            _mm_stream_si32((int *)(void *)d, v);
            d += 4, s += 4, n -= 4;
        }
    }
#endif
    if (n)
        memcpy(d, s, n);
}

/* n bytes from s to d, every byte of d written non-temporally where its alignment allows. */
static inline void dmxi_nt_copy(void *restrict dst, const void *restrict src, size_t n)
{
#if defined(__SSE2__)
    char *d = dst;
    const char *s = src;
    size_t head = (DMXI_NT_LINE - (uintptr_t)d % DMXI_NT_LINE) % DMXI_NT_LINE;
    if (head > n)
        head = n;
    dmxi_nt_edge(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= DMXI_NT_LINE; d += DMXI_NT_LINE, s += DMXI_NT_LINE, n -= DMXI_NT_LINE) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        const __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_stream_si128((__m128i *)(void *)d, a);
        _mm_stream_si128((__m128i *)(void *)(d + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + 48), e);
    }
    dmxi_nt_edge(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}

/* Orders earlier non-temporal stores before later stores (a no-op without SSE2). */
static inline void dmxi_nt_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#endif
