/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx/settings.h
 * @brief The table of DMX_* environment settings, read-only: for the dmx program (`dmx
 * settings`, which also writes docs/settings.md from it) and for libdmx_scalapack, which sees
 * the public headers only and reads its settings through the same table. Conventions: see
 * dmx/base.h. Every call here is local.
 */
#ifndef DMX_SETTINGS_H
#define DMX_SETTINGS_H

#include "dmx/base.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Who a setting is for. Values are pinned. */
typedef enum dmx_setting_tier {
    DMX_SETTING_USER = 0,   /**< what a user may want to set (README.md lists these) */
    DMX_SETTING_TUNING = 1, /**< choices and model inputs that the defaults make well */
    DMX_SETTING_TEST = 2    /**< exists to exercise code paths in tests and measurements */
} dmx_setting_tier;

/** Whether ranks may hold different values. Values are pinned. */
typedef enum dmx_setting_scope {
    DMX_SETTING_LOCAL = 0,      /**< may differ per rank */
    DMX_SETTING_MUST_MATCH = 1, /**< must be the same on every rank; dmx does not check it */
    DMX_SETTING_AGREED = 2      /**< dmx agrees on it over the ranks (smallest, or an error) */
} dmx_setting_scope;

/** One row of the table. The strings are static. */
typedef struct dmx_setting_desc {
    const char *name;        /**< the variable; a family's ends in <NAME> (DMX_COLL_<NAME>) */
    dmx_setting_tier tier;   /**< who it is for */
    dmx_setting_scope scope; /**< whether ranks may differ */
    const char *dflt;        /**< the default as documented ("unset" when none) */
    const char *meaning;     /**< one line */
    const char *doc;         /**< the longer markdown text of docs/settings.md */
    int text;                /**< 1: a word or a path; 0: a nonnegative integer */
} dmx_setting_desc;

/** Number of rows of the table. */
DMX_API int dmx_setting_count(void);

/** Row @p i (0 .. dmx_setting_count() - 1) into @p out; DMX_ERR_ARG when out of range. */
DMX_API dmx_status dmx_setting_describe(int i, dmx_setting_desc *out);

/**
 * The current raw value of setting @p name (as the library reads it: NULL when unset or
 * empty), or NULL when @p name is no row of the table; a member of a family
 * (DMX_COLL_BCAST) is found through its family's row.
 */
DMX_API const char *dmx_setting_str(const char *name);

/**
 * The current value of integer setting @p name: its nonnegative decimal value, else the row's
 * default (a malformed value is reported once on stderr); -1 when @p name is no integer row.
 */
DMX_API int64_t dmx_setting_int(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* DMX_SETTINGS_H */
