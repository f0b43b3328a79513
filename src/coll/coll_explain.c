/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: AUTO's choice explained (dmx model coll --explain). The candidates are every
 * algorithm of the collective and MPI's call, priced by dmx_coll_predict (coll_model.c); the
 * choice is dmxi_coll_choose's (coll_select.c), the one AUTO runs with DMX_COLL_TUNE=0 and
 * where its timed trials start otherwise (coll_tune.c). */
#include "choice.h"
#include "coll_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* "DMX_COLL_BCAST" for a kind. */
static void setting_name(dmx_coll_kind kind, char *buf, size_t n)
{
    size_t i = (size_t)snprintf(buf, n, "DMX_COLL_");
    for (const char *c = dmx_coll_kind_name(kind); *c && i + 1 < n; c++)
        buf[i++] = (char)toupper((unsigned char)*c);
    buf[i < n ? i : n - 1] = '\0';
}

dmx_status dmx_coll_explain(dmx_coll_kind kind, int64_t p, int64_t bytes, int64_t nodes,
                            dmx_choice *out)
{
    dmx_status st = DMX_SUCCESS;
    dmx_coll_alg alg = DMX_COLL_MPI;
    DMXI_CHECK(out != NULL, DMX_ERR_NULL, "out is NULL");
    DMXI_TRY(dmx_coll_choose(kind, p, bytes, nodes, &alg)); /* checks the arguments */
    dmxi_choice_init(out, "coll", "kind=%s p=%lld bytes=%lld nodes=%lld", dmx_coll_kind_name(kind),
                     (long long)p, (long long)bytes, (long long)nodes);
    int best = -1;
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
        if (!dmx_coll_alg_valid(kind, (dmx_coll_alg)a))
            continue;
        double t = NAN;
        DMXI_TRY(dmx_coll_predict(kind, (dmx_coll_alg)a, p, bytes, nodes, &t, NULL));
        int i = 0;
        if (a == DMX_COLL_PIPELINE && kind == DMX_COLL_BCAST) {
            int64_t r = 1;
            DMXI_TRY(dmx_coll_pipeline_segments(p, bytes, nodes, &r, NULL));
            i = dmxi_choice_add(out, dmx_coll_alg_name((dmx_coll_alg)a), t, 1,
                                "model, %lld segments", (long long)r);
        } else {
            i = dmxi_choice_add(out, dmx_coll_alg_name((dmx_coll_alg)a), t, 1, "%s",
                                a == DMX_COLL_MPI ? "model: the best dmx time x calibrated mpi "
                                                    "factor"
                                                  : "model");
        }
        if (i >= 0 && a != DMX_COLL_MPI && (best < 0 || t < out->cand[best].seconds))
            best = i;
    }
    int ci = dmxi_choice_find(out, dmx_coll_alg_name(alg));
    char name[64];
    setting_name(kind, name, sizeof name);
    if (dmxi_coll_forced(kind))
        dmxi_choice_pick(out, ci, "forced by %s=%s", name, dmx_coll_alg_name(alg));
    else if (alg == DMX_COLL_MPI && best >= 0 && out->cand[best].seconds < out->cand[ci].seconds)
        dmxi_choice_pick(out, ci,
                         "MPI's call kept: %s is predicted faster, but not by more than AUTO's "
                         "margin",
                         out->cand[best].name);
    else
        dmxi_choice_pick(out, ci, "least predicted cost");
    if (dmxi_coll_tune_rounds > 0 && !dmxi_coll_forced(kind) && p > 1 && bytes > 0) {
        size_t l = strlen(out->reason);
        snprintf(out->reason + l, sizeof out->reason - l,
                 "; with DMX_COLL_TUNE=%d AUTO times candidates at run time, starting here",
                 dmxi_coll_tune_rounds);
    }
cleanup:
    return st;
}
