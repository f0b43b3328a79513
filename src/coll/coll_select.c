/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: the choice AUTO makes (the names and which algorithm implements which collective
 * are coll_names.c). Every DMX_* setting of the module is read here (dmxi_coll_settings_read):
 * DMX_MODEL (a model file, loaded by coll_model.c's dmxi_coll_model_env), DMX_COLL_<NAME>=<alg>
 * (forces AUTO's choice for one collective), DMX_COLL_SEGMENTS (forces the pipelined broadcast's
 * segment count), DMX_COLL_CHECK (agree, local or off: what a collective does about its arguments,
 * see coll_api.c) and DMX_COLL_TUNE (AUTO's rounds of measurement, coll_tune.c). They are read
 * once, at the first collective. */
#include "coll_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- settings ----------------------------------------------------------------------------- */

int dmxi_coll_ready = 0;
static dmx_coll_alg forced[DMX_COLL_NKINDS]; /* AUTO: not forced */
static int64_t forced_segments = 0;
static dmxi_coll_check_mode check_mode = DMXI_COLL_CHECK_LOCAL;

dmxi_coll_check_mode dmxi_coll_check(void)
{
    dmxi_coll_model_init();
    return check_mode;
}

/* DMX_COLL_CHECK: agree (or 1), local (the default), off (or 0). */
static dmxi_coll_check_mode parse_check(void)
{
    const char *v = dmxi_setting_str(DMXI_SET_COLL_CHECK);
    if (v == NULL || strcmp(v, "local") == 0)
        return DMXI_COLL_CHECK_LOCAL;
    if (strcmp(v, "agree") == 0 || strcmp(v, "1") == 0)
        return DMXI_COLL_CHECK_AGREE;
    if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
        return DMXI_COLL_CHECK_OFF;
    fprintf(stderr, "dmx: DMX_COLL_CHECK=%s is not agree, local or off; using local\n", v);
    return DMXI_COLL_CHECK_LOCAL;
}

void dmxi_coll_settings_read(void)
{
    if (dmxi_coll_ready)
        return;
    dmxi_coll_ready = 1;
    dmxi_coll_model_env();
    for (int k = 0; k < DMX_COLL_NKINDS; k++) {
        char name[64] = "DMX_COLL_";
        size_t n = strlen(name);
        for (const char *c = dmx_coll_kind_name((dmx_coll_kind)k); *c && n + 1 < sizeof name; c++)
            name[n++] = (char)toupper((unsigned char)*c);
        name[n] = '\0';
        forced[k] = DMX_COLL_AUTO;
        const char *v = dmxi_setting_family_str(DMXI_SET_COLL_ALG, name + sizeof "DMX_COLL_" - 1);
        dmx_coll_alg a = DMX_COLL_AUTO;
        if (v && *v) {
            if (dmx_coll_alg_from_name(v, &a) == DMX_SUCCESS &&
                dmx_coll_alg_valid((dmx_coll_kind)k, a))
                forced[k] = a;
            else
                fprintf(stderr, "dmx: %s=%s is not an algorithm of %s, ignored\n", name, v,
                        dmx_coll_kind_name((dmx_coll_kind)k));
        }
    }
    forced_segments = dmxi_setting_int(DMXI_SET_COLL_SEGMENTS);
    check_mode = parse_check();
    int64_t r = dmxi_setting_int(DMXI_SET_COLL_TUNE); /* never negative (settings.c) */
    if (r > DMXI_COLL_TUNE_MAXR) {
        fprintf(stderr, "dmx: DMX_COLL_TUNE=%lld is above %d; using %d\n", (long long)r,
                DMXI_COLL_TUNE_MAXR, DMXI_COLL_TUNE_MAXR);
        r = DMXI_COLL_TUNE_MAXR;
    }
    dmxi_coll_tune_rounds = (int)r;
}

int dmxi_coll_forced(dmx_coll_kind kind)
{
    dmxi_coll_model_init();
    return forced[kind] != DMX_COLL_AUTO;
}

/* AUTO's recent choices: the model's search (the pipeline's segment scan above all) costs
 * more than a small message, so (kind, p, bytes, nodes) -> alg is kept in a small direct-mapped
 * table, emptied whenever the model changes (dmxi_coll_model_epoch). */
enum { CHOICES = 64 };
static struct choice {
    int kind, p, nodes, alg;
    int64_t bytes;
    unsigned epoch;
} choices[CHOICES];

dmx_coll_alg dmxi_coll_choose(dmx_coll_kind kind, dmx_coll_alg alg, int p, int64_t bytes, int nodes)
{
    dmxi_coll_model_init();
    if (alg != DMX_COLL_AUTO)
        return alg;
    if (forced[kind] != DMX_COLL_AUTO)
        return forced[kind];
    uint64_t h = dmxi_hash(DMXI_HASH_INIT, &bytes, sizeof bytes);
    h = dmxi_hash(h, &p, sizeof p);
    struct choice *c = &choices[(h ^ (uint64_t)kind) % CHOICES];
    if (c->epoch == dmxi_coll_model_epoch && c->kind == (int)kind && c->p == p &&
        c->nodes == nodes && c->bytes == bytes)
        return (dmx_coll_alg)c->alg;
    double t = 0;
    dmx_coll_alg best = DMX_COLL_MPI;
    if (dmx_coll_predict(kind, DMX_COLL_AUTO, p, bytes, nodes, &t, &best) != DMX_SUCCESS)
        return DMX_COLL_MPI;
    *c = (struct choice){(int)kind, p, nodes, (int)best, bytes, dmxi_coll_model_epoch};
    return best;
}

int64_t dmxi_coll_segments(int p, int64_t bytes, int nodes)
{
    static struct {
        int p, nodes;
        int64_t bytes, r;
        unsigned epoch;
    } last;
    dmxi_coll_model_init();
    if (forced_segments > 0)
        return forced_segments;
    if (last.epoch == dmxi_coll_model_epoch && last.p == p && last.nodes == nodes &&
        last.bytes == bytes)
        return last.r;
    int64_t r = 1;
    if (dmx_coll_pipeline_segments(p, bytes, nodes, &r, NULL) != DMX_SUCCESS)
        r = 1;
    last.p = p;
    last.nodes = nodes;
    last.bytes = bytes;
    last.r = r;
    last.epoch = dmxi_coll_model_epoch;
    return r;
}

dmx_status dmx_coll_set_pipeline_segments(int64_t segments)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(segments >= 0, DMX_ERR_ARG, "segment count %lld < 0", (long long)segments);
    dmxi_coll_model_init();
    forced_segments = segments;
cleanup:
    return st;
}

dmx_status dmx_coll_choose(dmx_coll_kind kind, int64_t p, int64_t bytes, int64_t nodes,
                           dmx_coll_alg *alg)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(alg != NULL, DMX_ERR_NULL, "alg is NULL");
    DMXI_CHECK(kind >= 0 && kind < DMX_COLL_NKINDS, DMX_ERR_ARG, "unknown collective %d",
               (int)kind);
    DMXI_CHECK(p >= 1 && p <= INT_MAX && bytes >= 0 && nodes >= 1 && nodes <= p, DMX_ERR_ARG,
               "p = %lld, bytes = %lld, nodes = %lld out of range", (long long)p, (long long)bytes,
               (long long)nodes);
    *alg = dmxi_coll_choose(kind, DMX_COLL_AUTO, (int)p, bytes, (int)nodes);
cleanup:
    return st;
}
