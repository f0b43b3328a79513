/* SPDX-License-Identifier: BSD-3-Clause */
/* AUTO's protocol choice, the DMX_EXCHANGE override and the protocol names. The thresholds
 * live here and only here; docs/exchange.md shows the measurements behind them.
 *
 * The inputs are P, the communicator size, and the number of nodes it spans (counted once per
 * communicator, at its first exchange, with the cached duplicate), which every rank has: AUTO
 * needs no agreement and costs nothing beyond the chosen protocol.
 *
 *   more than one node                 -> NBX  at every P: in the SimGrid runs (BG/P torus,
 *                                              4 ranks a node, docs/scale.md) NBX was ahead of
 *                                              PEX and PCX at every P from 2 to 512, by 1.5x at
 *                                              8 ranks (2 nodes) and 1.9-2.9x at 16-32, where the
 *                                              one-node rule below ran PEX and PCX
 * on one node:
 *
 *   P <= PEX_MAX_P                     -> PEX  fastest for payloads up to 512 B and within
 *                                              6% of PCX at 4-64 KiB, at P = 2..16
 *   P < NBX_MIN_P                      -> PCX  fastest at P = 32 up to 4 KiB and within 2%
 *                                              at 64 KiB (half of PEX's metadata volume)
 *   otherwise                          -> NBX  O(k) messages plus an O(log P) consensus
 *                                              instead of Theta(P) metadata per rank
 *
 * An earlier rule also chose PCX at P >= NBX_MIN_P for dense patterns (largest neighbour count
 * kmax >= P/4), which needed an allreduce of kmax before the exchange: log P rounds, as many as
 * NBX's own consensus, so AUTO cost 1.36-1.65x NBX in the SimGrid runs of docs/scale.md (BG/P
 * torus, 64-256 ranks, 6 neighbours). A dense pattern does not need PCX either: its k >= P/4
 * payload messages per rank are Theta(P) whatever the protocol, and NBX adds only the log P
 * consensus to them where PCX adds a reduce-scatter of P counts (simulated at P = 64, k = 26:
 * NBX 152 us, PEX 366 us, PCX slower still; docs/scale.md).
 *
 * The one-node thresholds: the measurements (one node, 2 cores, up to 32 oversubscribed ranks;
 * and 2 ranks on 2 cores, not oversubscribed: PEX 2.0 us, NBX 5.0 us at 8 B) never showed NBX
 * ahead:
 * its synchronous sends need the receiver scheduled to complete. NBX_MIN_P is therefore not a
 * measured crossover on this machine. It follows the seed, whose microbenchmark (6 random
 * neighbors per rank, BlueGene/P and Cray XT-4) shows NBX ahead at large scale where the
 * census's Theta(P) term dominates, our TCP runs, where NBX's gap to the best shrank from 1.7x
 * at P = 4 to 1.2x at P = 32, and the simulated BG/P torus, where NBX is the fastest protocol at
 * every P simulated (16-512). RSX never won (its two fences cost about what PCX's census does,
 * and it needs a window) and is not chosen.
 *
 * The machine's own answer on one node: a model file (DMX_MODEL, the collectives' file) may say
 * `exchange = nbx|pex|pcx`, per np section like the collectives' factors; `dmx calibrate`
 * measures the three protocols at its P and writes the fastest. On one node that answer replaces
 * the thresholds above for the P its section covers (nearest in log2). The simulated BG/P node
 * is why: there NBX beat PEX at 2 and 4 ranks (8.5 against 9.0 us, 21.6 against 25.0), where
 * this machine's 2 cores run PEX 2.5x faster than NBX; only a measurement on the machine tells. */
#include "exchange.h"

#include "choice.h"

#include <math.h>
#include <stdio.h>

/* The thresholds. */
enum { PEX_MAX_P = 16, NBX_MIN_P = 64 };

dmx_exchange_protocol dmxi_exchange_select(int nproc, int nodes)
{
    if (nodes > 1)
        return DMX_EXCHANGE_NBX;
    dmx_exchange_protocol measured = DMX_EXCHANGE_AUTO; /* the model file's, dmx/expert.h */
    if (dmx_model_exchange(nproc, &measured) == DMX_SUCCESS && measured != DMX_EXCHANGE_AUTO)
        return measured;
    if (nproc <= PEX_MAX_P)
        return DMX_EXCHANGE_PEX;
    if (nproc < NBX_MIN_P)
        return DMX_EXCHANGE_PCX;
    return DMX_EXCHANGE_NBX;
}

/* ---- the choice explained (dmx model exchange) ------------------------------------------- */

/* The rule's text for one protocol: which P it covers. */
static void rule_of(dmx_exchange_protocol p, char *buf, size_t n)
{
    switch (p) {
    case DMX_EXCHANGE_PEX: snprintf(buf, n, "rule: P <= %d", PEX_MAX_P); break;
    case DMX_EXCHANGE_PCX: snprintf(buf, n, "rule: %d < P < %d", PEX_MAX_P, NBX_MIN_P); break;
    case DMX_EXCHANGE_NBX: snprintf(buf, n, "rule: P >= %d", NBX_MIN_P); break;
    default: snprintf(buf, n, "never chosen by the rule (needs a window; forced only)"); break;
    }
}

dmx_status dmx_exchange_explain(int64_t p, dmx_exchange_protocol protocol, dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "out is NULL");
    DMXI_CHECK(p >= 1 && p <= INT_MAX, DMX_ERR_ARG, "p = %lld out of range", (long long)p);
    DMXI_CHECK(protocol >= DMX_EXCHANGE_AUTO && protocol <= DMX_EXCHANGE_RSX, DMX_ERR_ARG,
               "invalid exchange protocol %d", (int)protocol);
    int env = dmxi_exchange_env_code();
    const char *set = dmxi_setting_str(DMXI_SET_EXCHANGE);
    dmx_exchange_protocol measured = DMX_EXCHANGE_AUTO;
    dmxi_choice_init(out, "exchange", "p=%lld protocol=%s DMX_EXCHANGE=%s", (long long)p,
                     dmx_exchange_protocol_name(protocol), set ? set : "unset");
    for (int q = DMX_EXCHANGE_NBX; q <= DMX_EXCHANGE_RSX; q++) {
        char rule[96];
        rule_of((dmx_exchange_protocol)q, rule, sizeof rule);
        dmxi_choice_add(out, dmx_exchange_protocol_name((dmx_exchange_protocol)q), NAN, 1, "%s",
                        rule);
    }
    /* the order of exchange_common.c's begin_on and choose_auto */
    if (protocol != DMX_EXCHANGE_AUTO) {
        dmxi_choice_pick(out, dmxi_choice_find(out, dmx_exchange_protocol_name(protocol)),
                         "passed by the caller");
    } else if (env == 0 && dmx_model_exchange(p, &measured) == DMX_SUCCESS &&
               measured != DMX_EXCHANGE_AUTO) { /* what dmxi_exchange_select runs on one node */
        const char *name = dmx_exchange_protocol_name(measured);
        int64_t np = 0;
        (void)dmx_coll_model_section(p, &np);
        dmxi_choice_pick(out, dmxi_choice_find(out, name),
                         "measured on this machine: the model file's exchange = %s (section np "
                         "= %lld; P = %lld on one node; on more than one node nbx at every P)",
                         name, (long long)np, (long long)p);
    } else if (env == 0) {
        dmx_exchange_protocol q = dmxi_exchange_select((int)p, 1);
        char rule[96];
        rule_of(q, rule, sizeof rule);
        dmxi_choice_pick(out, dmxi_choice_find(out, dmx_exchange_protocol_name(q)),
                         "%s -> %s (P = %lld on one node; on more than one node nbx at every "
                         "P; neither sizes nor neighbours enter the rule)",
                         rule, dmx_exchange_protocol_name(q), (long long)p);
    } else if (env > DMX_EXCHANGE_RSX) {
        dmxi_choice_pick(out, -1, "DMX_EXCHANGE=%s is no protocol: the exchange fails", set);
    } else {
        const char *name = dmx_exchange_protocol_name((dmx_exchange_protocol)env);
        dmxi_choice_pick(out, dmxi_choice_find(out, name), "forced by DMX_EXCHANGE=%s", set);
    }
cleanup:
    return st;
}
