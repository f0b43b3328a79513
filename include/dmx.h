/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx.h
 * @brief dmx: move distributed dense matrices between layouts, A = alpha*op(B) + beta*A.
 *
 * Conventions used throughout this header:
 *  - Every call returns a ::dmx_status; outputs come last.
 *  - "Collective on comm" means every rank of the communicator must make the call with
 *    arguments that describe the same global object; if any rank finds an error, every rank
 *    returns the same (non-zero) status and nothing is created.
 *  - "Local" calls involve no communication.
 *  - Arrays passed in are copied unless the documentation says "borrowed".
 *  - Destroy functions are NULL-safe and set the handle to NULL.
 *  - Indices are 0-based; sizes and counts are int64_t.
 *
 * This header includes every part of the dmx API; each part also compiles on its own:
 *  - dmx/base.h      status codes, element types, operations, scalars, errors, dmx_version()
 *  - dmx/layout.h    distributed matrix layouts
 *  - dmx/plan.h      transforms and plans
 *  - dmx/relabel.h   communication-optimal process relabeling
 *  - dmx/exchange.h  dynamic sparse data exchange
 *  - dmx/coll.h      collectives with one algorithm per file, a cost model and AUTO, grids
 *  - dmx/rma.h       symmetric heaps, strided one-sided transfers, patches of layouts
 *  - dmx/gemm.h      the multiply (SUMMA, hierarchical SUMMA, Cannon) on any layouts
 * Not included here:
 *  - dmx/expert.h    calls for tools and libraries built on dmx (what dmx keeps with a
 *                    communicator, the table of DMX_* settings, the drop-in's unagreed layouts,
 *                    the cost models' inner choices); may change between minor versions
 *  - dmx/scalapack.h the ScaLAPACK drop-in (libdmx_scalapack; also installed as
 *                    dmx_scalapack.h): it declares ScaLAPACK's own symbols
 */
#ifndef DMX_H
#define DMX_H

#include "dmx/base.h"
#include "dmx/exchange.h"
#include "dmx/layout.h"
#include "dmx/plan.h"
#include "dmx/relabel.h"
#include "dmx/coll.h"
#include "dmx/rma.h"
#include "dmx/gemm.h"

#endif /* DMX_H */
