/* SPDX-License-Identifier: BSD-3-Clause */
/* AUTO's protocol choice, the DMX_EXCHANGE override and the protocol names. The thresholds
 * live here and only here; docs/exchange.md shows the measurements behind them.
 *
 * Inputs: P, the communicator size, and kmax, the largest number of distinct destinations
 * (self excluded) any rank sends to. AUTO agrees on kmax with one MPI_Allreduce, but only when
 * the rule needs it (P >= NBX_MIN_P); below that the choice is local and free.
 *
 *   P <= PEX_MAX_P                     -> PEX  fastest for payloads up to 512 B and within
 *                                              6% of PCX at 4-64 KiB, at P = 2..16
 *   P < NBX_MIN_P or                   -> PCX  fastest at P = 32 up to 4 KiB and within 2%
 *   kmax >= P / DENSE_DIVISOR                  at 64 KiB (half of PEX's metadata volume);
 *                                              dense patterns move Theta(P) messages per
 *                                              rank whatever the protocol
 *   otherwise                          -> NBX  sparse and large: O(kmax) messages plus an
 *                                              O(log P) consensus instead of Theta(P)
 *                                              metadata per rank
 *
 * The measurements (one node, 2 cores, up to 32 oversubscribed ranks) never showed NBX ahead:
 * its synchronous sends need the receiver scheduled to complete. NBX_MIN_P is therefore not a
 * measured crossover. It follows the seed, whose microbenchmark (6 random neighbors per rank,
 * BlueGene/P and Cray XT-4) shows NBX ahead at large scale where the census's Theta(P) term
 * dominates, and our TCP runs, where NBX's gap to the best shrank from 1.7x at P = 4 to 1.2x at
 * P = 32; it is set at twice the largest size measured. RSX never won (its two fences cost
 * about what PCX's census does, and it needs a window) and is not chosen. Re-tune on a new
 * machine with `dmx bench exchange`. */
#include "exchange.h"

/* The thresholds. */
enum { PEX_MAX_P = 16, NBX_MIN_P = 64, DENSE_DIVISOR = 4 };

int dmxi_exchange_select_needs_kmax(int nproc)
{
    return nproc >= NBX_MIN_P;
}

dmx_exchange_protocol dmxi_exchange_select(int nproc, int64_t kmax)
{
    if (nproc <= PEX_MAX_P)
        return DMX_EXCHANGE_PEX;
    if (nproc < NBX_MIN_P || kmax * DENSE_DIVISOR >= nproc)
        return DMX_EXCHANGE_PCX;
    return DMX_EXCHANGE_NBX;
}

/* ---- protocol names (owned here: the override and the public parser share them) ---- */

const char *dmx_exchange_protocol_name(dmx_exchange_protocol protocol)
{
    switch (protocol) {
    case DMX_EXCHANGE_AUTO: return "auto";
    case DMX_EXCHANGE_NBX: return "nbx";
    case DMX_EXCHANGE_PEX: return "pex";
    case DMX_EXCHANGE_PCX: return "pcx";
    case DMX_EXCHANGE_RSX: return "rsx";
    }
    return NULL;
}

/* Case-insensitive equality with a lower-case name. */
static int is_name(const char *s, const char *lower)
{
    for (; *s && *lower; s++, lower++) {
        char c = (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s;
        if (c != *lower)
            return 0;
    }
    return *s == *lower;
}

dmx_status dmx_exchange_protocol_from_name(const char *name, dmx_exchange_protocol *protocol)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(name != NULL && protocol != NULL, DMX_ERR_NULL, "name or protocol is NULL");
    for (int p = DMX_EXCHANGE_AUTO; p <= DMX_EXCHANGE_RSX; p++) {
        if (is_name(name, dmx_exchange_protocol_name((dmx_exchange_protocol)p))) {
            *protocol = (dmx_exchange_protocol)p;
            goto cleanup;
        }
    }
    DMXI_FAIL(DMX_ERR_ARG, "unknown exchange protocol \"%s\" (auto, nbx, pex, pcx, rsx)", name);
cleanup:
    return st;
}

int dmxi_exchange_env_code(void)
{
    const char *s = dmxi_setting_str(DMXI_SET_EXCHANGE);
    if (!s)
        return 0;
    for (int p = DMX_EXCHANGE_AUTO; p <= DMX_EXCHANGE_RSX; p++)
        if (is_name(s, dmx_exchange_protocol_name((dmx_exchange_protocol)p)))
            return p;
    return DMX_EXCHANGE_RSX + 1;
}
