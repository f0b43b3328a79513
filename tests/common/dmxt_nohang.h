/* SPDX-License-Identifier: BSD-3-Clause */
/* A harness for "one rank's bad argument must not leave the others waiting" tests of the
 * modules (rma, patch, gemm), in the style of tests/core/test_nohang.c. Compile dmxt_nohang.c
 * into the test program itself (not through an archive): it replaces MPI_Abort for the whole
 * program, dmx's default handler's call included.
 *
 * A program runs one MODE per launch (argv[1]; argv[2] = "default" keeps dmx's own error
 * handler). Rank 0 makes the mistake, the others make the valid call. DMX_TIMEOUT is unset, so
 * the test runs under default settings: a bound that only DMX_TIMEOUT provides (600 s) fails
 * it through ctest's timeout. Two outcomes are accepted, each mode says which one it expects:
 *  - handler: rank 0 reaches the error handler. The test handler checks the message (non-empty,
 *    equal to dmx_last_error(), holding the mode's expected words), that every watched output
 *    handle is still NULL and that it came within DMXT_NOHANG_SECONDS, prints
 *    "nohang OK [MODE] ..." (or "nohang FAIL [MODE] ...") and the closing line, and aborts the
 *    job. A call that returns on rank 0 instead is a failure (dmxt_nohang_returned).
 *  - agreed: every rank returns the expected status within DMXT_NOHANG_SECONDS
 *    (dmxt_nohang_agreed); the outcome is gathered on a duplicate of MPI_COMM_WORLD made before
 *    the call, with a bounded wait, so a rank stuck in the call turns into "nohang FAIL" on the
 *    others instead of a hang. */
#ifndef DMXT_NOHANG_H
#define DMXT_NOHANG_H

#include "dmxtest.h"

/* The bound the modules promise: every rank ends within this many seconds. */
#define DMXT_NOHANG_SECONDS 10.0

/* MPI_Init (through dmxt_init), the mode, the test handler (unless "default"), DMX_TIMEOUT
 * unset, the gathering communicator. Returns the mode. */
const char *dmxt_nohang_init(dmxt_ctx *ctx, int *argc, char ***argv, const char *name);

/* The words rank 0's message must hold (handler outcome; NULL: any message). */
void dmxt_nohang_expect_words(const char *words);

/* An output handle that must still be NULL when the handler runs. */
void dmxt_nohang_watch_handle(void **h);

/* Start the clock, right before the call under test. */
void dmxt_nohang_start(void);

/* Handler outcome: the call under test returned st. On rank 0 that is a failure (it should
 * have reached the handler); the others wait for rank 0's abort and fail if it has not ended
 * the job within 30 s. Never returns. */
void dmxt_nohang_returned(dmx_status st);

/* Agreed outcome: every rank must have returned `want`, within the bound. Prints the OK or
 * FAIL line and the closing line on rank 0; returns 0 iff every rank passed. Collective (with a
 * bounded wait). */
int dmxt_nohang_agreed(dmx_status st, dmx_status want);

#endif
