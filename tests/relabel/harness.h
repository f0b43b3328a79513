/* What the solver unit tests share: pass/fail counting and a seeded splitmix64 generator.
 * Define HARNESS_SEED before including to pick a test's own sequence. Header-only: each test is
 * one translation unit. */
#ifndef DMX_TEST_RELABEL_HARNESS_H
#define DMX_TEST_RELABEL_HARNESS_H

#include <stdint.h>
#include <stdio.h>

static int npass, nfail;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            npass++;                                                                               \
        } else {                                                                                   \
            nfail++;                                                                               \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#ifndef HARNESS_SEED
#define HARNESS_SEED 0x9E3779B97F4A7C15u
#endif
static uint64_t rng_state = HARNESS_SEED;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (inclusive). */
static int64_t rnd_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif
