/* SPDX-License-Identifier: BSD-3-Clause */
/* Two halves of the world exchanging at the same time (issue 14, Open MPI issue 9492).
 *
 * Under Open MPI 4.x, one-sided windows of communicators split from one parent at the same time
 * could share one shared-memory segment, so RSX's message counts of one half leaked into the
 * other (wrong counts, or a hang waiting for messages that never come). This test splits the
 * world into two halves (and, at 4+ ranks, into interleaved quarters too) again and again, and
 * every part runs rounds of exchanges at once with the protocol forced (RSX first, then each
 * other protocol in turn). Each rank knows from a seeded RNG common to
 * its part what every member sends to whom, so it checks its count of received entries, their
 * sources and every payload byte against that independent expectation.
 *
 * A watchdog (alarm, DMX_TEST_TIMEOUT seconds, default 60) turns a hang into a failure.
 * Settings: DMX_TEST_SEED (default 20241124). Prints "N passed, N failed" from rank 0. */
#define _POSIX_C_SOURCE 200809L

#include "dmx.h"
#include "dmxt_util.h"

#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAXK = 4, ROUNDS = 12, SPLITS = 6 };

static unsigned char byte_of(int src, int dst, int round, int j, int64_t b)
{
    uint64_t x = (uint64_t)src * 1000003u + (uint64_t)dst * 7919u + (uint64_t)round * 104729u +
                 (uint64_t)j * 31u + (uint64_t)b;
    return (unsigned char)(dmxt_splitmix64(&x) & 0xff);
}

/* The pattern of one round in a part of n ranks: rank s sends cnt[s] payloads, to dst[s][j] of
 * len[s][j] bytes. Drawn from an RNG seeded alike on every member. */
typedef struct pattern {
    int cnt[64];
    int dst[64][MAXK];
    int64_t len[64][MAXK];
} pattern;

static void draw(pattern *p, int n, uint64_t seed, int round, int color)
{
    dmxt_rng g;
    dmxt_rng_seed(&g, seed, (uint64_t)round * 16u + (uint64_t)color);
    for (int s = 0; s < n; s++) {
        p->cnt[s] = (int)dmxt_rng_int(&g, 0, MAXK);
        for (int j = 0; j < p->cnt[s]; j++) {
            p->dst[s][j] = (int)dmxt_rng_int(&g, 0, n - 1);
            p->len[s][j] = dmxt_rng_int(&g, 0, 3) == 0 ? 0 : dmxt_rng_int(&g, 1, 300);
        }
    }
}

/* One round on part comm (rank me of n); returns the failures seen on this rank. */
static int one_round(MPI_Comm comm, dmx_exchange_protocol proto, int me, int n, uint64_t seed,
                     int round, int color)
{
    static pattern p;
    int fails = 0;
    draw(&p, n, seed, round, color);
    dmx_exchange_send sends[MAXK];
    unsigned char *bufs[MAXK] = {0};
    for (int j = 0; j < p.cnt[me]; j++) {
        bufs[j] = malloc((size_t)p.len[me][j] + 1);
        for (int64_t b = 0; b < p.len[me][j]; b++)
            bufs[j][b] = byte_of(me, p.dst[me][j], round, j, b);
        sends[j].dest = p.dst[me][j];
        sends[j].data = bufs[j];
        sends[j].bytes = p.len[me][j];
    }
    dmx_exchange_result *res = NULL;
    dmx_status st = dmx_exchange(comm, proto, p.cnt[me], sends, &res);
    if (st != DMX_SUCCESS) {
        fprintf(stderr, "FAIL part %d rank %d round %d: %s (%s)\n", color, me, round,
                dmx_status_string(st), dmx_last_error());
        fails++;
        goto out;
    }
    /* expected entries: by source, then in send order */
    int64_t count = -1, k = 0;
    dmx_exchange_result_get_count(res, &count);
    int64_t want = 0;
    for (int s = 0; s < n; s++)
        for (int j = 0; j < p.cnt[s]; j++)
            want += p.dst[s][j] == me;
    if (count != want) {
        fprintf(stderr, "FAIL part %d rank %d round %d: %lld entries, expected %lld\n", color, me,
                round, (long long)count, (long long)want);
        fails++;
        goto out;
    }
    for (int s = 0; s < n; s++) {
        for (int j = 0; j < p.cnt[s]; j++) {
            if (p.dst[s][j] != me)
                continue;
            int src = -1;
            const void *data = NULL;
            int64_t bytes = -1;
            dmx_exchange_result_get(res, k++, &src, &data, &bytes);
            int bad = src != s || bytes != p.len[s][j];
            for (int64_t b = 0; !bad && b < bytes; b++)
                bad = ((const unsigned char *)data)[b] != byte_of(s, me, round, j, b);
            if (bad) {
                fprintf(stderr, "FAIL part %d rank %d round %d: entry %lld wrong (source %d)\n",
                        color, me, round, (long long)(k - 1), src);
                fails++;
            }
        }
    }
out:
    dmx_exchange_result_destroy(&res);
    for (int j = 0; j < MAXK; j++)
        free(bufs[j]);
    return fails;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *to = getenv("DMX_TEST_TIMEOUT");
    dmxt_watchdog(to ? (unsigned)atoi(to) : 60u, 2,
                  "FAIL: watchdog expired (hang in split exchanges)\n");
    const char *sd = getenv("DMX_TEST_SEED");
    uint64_t seed = sd ? strtoull(sd, NULL, 10) : 20241124u;
    const int nproto = 4;
    static const dmx_exchange_protocol protos[4] = {DMX_EXCHANGE_RSX, DMX_EXCHANGE_NBX,
                                                    DMX_EXCHANGE_PEX, DMX_EXCHANGE_PCX};
    int64_t passed = 0, failed = 0;
    for (int pi = 0; pi < nproto; pi++) {
        for (int sp = 0; sp < SPLITS; sp++) {
            /* halves (low/high), or at 4+ ranks on odd splits interleaved quarters */
            int parts = size >= 4 && (sp & 1) ? 4 : 2;
            int color = parts == 2 ? rank * 2 / size : rank % 4;
            MPI_Comm part;
            MPI_Comm_split(MPI_COMM_WORLD, color, rank, &part);
            int me = 0, n = 1;
            MPI_Comm_rank(part, &me);
            MPI_Comm_size(part, &n);
            int f = 0;
            for (int r = 0; r < ROUNDS; r++)
                f += one_round(part, protos[pi], me, n, seed + (uint64_t)sp, r, color);
            int tot = 0;
            MPI_Allreduce(&f, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (tot) {
                failed++;
                if (rank == 0)
                    printf("FAIL protocol %s split %d (%d parts): %d failures\n",
                           dmx_exchange_protocol_name(protos[pi]), sp, parts, tot);
            } else {
                passed++;
            }
            MPI_Comm_free(&part);
        }
    }
    if (rank == 0)
        printf("%lld passed, %lld failed\n", (long long)passed, (long long)failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
