/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx calibrate's sparse-exchange step: which protocol AUTO should run on this machine when a
 * communicator sits on one node.
 *
 * Across nodes AUTO runs NBX at every P (src/exchange/exchange_select.c). On one node the
 * answer belongs to the machine: on this project's 2-core VMs PEX is 2.5x ahead of NBX at 2
 * ranks, on the simulated BG/P node NBX is ahead at 2 and 4 (docs/scale.md). So calibrate times
 * NBX, PEX and PCX on its whole job, when the job is one node: every rank sends 8 bytes to its
 * next min(6, P - 1) ranks (a small fixed neighbourhood, the protocols' intended use), rounds
 * interleaved (each round every protocol once, starting with the next), a sample a batch of
 * CALLS back-to-back exchanges after a barrier, the slowest rank's time per exchange; the
 * protocol with the least median over ROUNDS samples is written as `exchange = NAME` into the
 * section np = P. Cost: 3 x (ROUNDS + 1) x CALLS exchanges, a few milliseconds; no memory beyond
 * the payloads of one exchange. */
#include "dmx/exchange.h"
#include "dmx_tool.h"

#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { ROUNDS = 9, CALLS = 50, MAXK = 6 };

/* Seconds per exchange of one batch of @p proto, the slowest rank's; < 0 when a call failed on
 * any rank. */
static double batch(dmx_exchange_protocol proto, const dmx_exchange_send *s, int k)
{
    int ok = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int c = 0; c < CALLS && ok; c++) {
        dmx_exchange_result *res = NULL;
        ok = dmx_exchange(MPI_COMM_WORLD, proto, k, s, &res) == DMX_SUCCESS;
        dmx_exchange_result_destroy(&res);
    }
    double t = ok ? (MPI_Wtime() - t0) / CALLS : -1.0, most = 0;
    MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all ? most : -1.0;
}

const char *dmx_calibrate_exchange(char *line, size_t len, int p, int nodes)
{
    line[0] = '\0';
    if (p < 2 || nodes > 1)
        return NULL;
    static const dmx_exchange_protocol proto[3] = {DMX_EXCHANGE_NBX, DMX_EXCHANGE_PEX,
                                                   DMX_EXCHANGE_PCX};
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int k = p - 1 < MAXK ? p - 1 : MAXK;
    char pay[MAXK][8];
    dmx_exchange_send s[MAXK];
    for (int i = 0; i < k; i++) {
        memset(pay[i], rank + i, sizeof pay[i]);
        s[i] = (dmx_exchange_send){(rank + 1 + i) % p, pay[i], (int64_t)sizeof pay[i]};
    }
    double t[3][ROUNDS];
    for (int r = -1; r < ROUNDS; r++) /* round -1: warm-up (connections, the cached duplicate) */
        for (int j = 0; j < 3; j++) {
            int i = (j + (r < 0 ? 0 : r)) % 3;
            double x = batch(proto[i], s, k);
            if (x < 0)
                return "a sparse exchange failed";
            if (r >= 0)
                t[i][r] = x;
        }
    int best = 0;
    double med[3];
    for (int i = 0; i < 3; i++) {
        med[i] = bench_median(t[i], ROUNDS);
        best = med[i] < med[best] ? i : best;
    }
    snprintf(line, len,
             "# sparse exchange on one node, 8 B to %d neighbours: nbx %.3g, pex %.3g, pcx %.3g "
             "us\nexchange = %s\n",
             k, 1e6 * med[0], 1e6 * med[1], 1e6 * med[2], dmx_exchange_protocol_name(proto[best]));
    return NULL;
}
