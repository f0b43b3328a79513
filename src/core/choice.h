/* SPDX-License-Identifier: BSD-3-Clause */
/* One shape for "which algorithm, and why" (choice.c): every module that chooses between
 * algorithms or paths fills a dmx_choice (dmx/expert.h) from the same code that makes the
 * choice at run time, and `dmx model <module>` prints it with dmx_choice_print. Local. */
#ifndef DMXI_CHOICE_H
#define DMXI_CHOICE_H

#include "dmxi.h"

/* Empty @p c for @p module; the inputs line is formatted like printf. */
void dmxi_choice_init(dmx_choice *c, const char *module, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Append a candidate (silently dropped beyond DMX_CHOICE_MAX): @p seconds its predicted time
 * (NAN: not priced), @p feasible 0 when it cannot run here, the note formatted like printf (why
 * not feasible, or the rule that prices it). Returns its index, -1 when dropped. */
int dmxi_choice_add(dmx_choice *c, const char *name, double seconds, int feasible, const char *fmt,
                    ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Index of the candidate named @p name, -1 when none. */
int dmxi_choice_find(const dmx_choice *c, const char *name);

/* Mark candidate @p i chosen, with the one-line reason formatted like printf. */
void dmxi_choice_pick(dmx_choice *c, int i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
