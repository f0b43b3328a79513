/* SPDX-License-Identifier: BSD-3-Clause */
/* The sparse exchange's protocol names, in one place: dmx_exchange_protocol_name and its
 * inverse (case-insensitive), and DMX_EXCHANGE read as a code. A leaf: AUTO's choice
 * (exchange_select.c) reads the collectives' model file, whose `exchange = NAME` line is parsed
 * with these names (coll_model.c), so the names live apart from the choice. */
#include "exchange.h"

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
