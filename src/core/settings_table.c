/* SPDX-License-Identifier: BSD-3-Clause */
/* The rows of the DMX_* settings table: name, default, tier (user / tuning / test), scope
 * (local / must-match / agreed), a one-line meaning for `dmx settings` and the longer text of
 * docs/settings.md, which `dmx settings --markdown` writes from these rows (the docs_settings
 * test fails when the checked-in page differs). A new setting is a row here and a name in
 * dmxi_setting (settings.h); settings.c reads them.
 *
 * Tiers: user (at most 8; README.md lists them), tuning (choices the defaults make), test
 * (exists to exercise a path or to measure). Scopes: local (may differ per rank), must-match
 * (the same on every rank, not checked: a difference may hang or fail), agreed (dmx reduces or
 * compares it over the ranks where it matters). */
#include "dmxi.h"

#define ROW(id, nm, d, ds, t, sc, tx, m, dc)                                                       \
    [id] = {.name = nm,                                                                            \
            .dflt = d,                                                                             \
            .dflt_s = ds,                                                                          \
            .tier = DMX_SETTING_##t,                                                               \
            .scope = DMX_SETTING_##sc,                                                             \
            .text = tx,                                                                            \
            .meaning = m,                                                                          \
            .doc = dc}

const dmxi_setting_row dmxi_setting_rows[DMXI_NSETTINGS] = {
    /* ---- user ---------------------------------------------------------------------------- */
    ROW(DMXI_SET_TIMEOUT, "DMX_TIMEOUT", 600, "600", USER, LOCAL, 0,
        "seconds without progress after which a waiting dmx call gives up (0: wait forever)",
        "seconds without progress after which a waiting dmx call gives up (`0`: wait forever); a "
        "plan execution that sees no chunk, message or local work complete for that long (a peer "
        "died or never entered it) returns `DMX_ERR_MPI` with a message naming the wait; it also "
        "bounds the agreements of collective calls (below)"),
    ROW(DMXI_SET_PROFILE, "DMX_PROFILE", 0, "0", USER, LOCAL, 0,
        "1: print the phase times of every plan execution to stderr",
        "`1`: print the phase times of every plan execution to stderr (CPU time per phase, ring "
        "chunks, wall time), and a line per `p?gemm_` call of `libdmx_scalapack` (algorithm, "
        "operands in place, plan and multiply times, or why it went to ScaLAPACK; "
        "[scalapack.md](scalapack.md))"),
    ROW(DMXI_SET_COLL_CHECK, "DMX_COLL_CHECK", 0, "local", USER, MUST_MATCH, 1,
        "collectives' argument checks: local (a failing rank calls the error handler), agree "
        "(or 1: one allreduce, every rank returns the same status) or off (or 0)",
        "what a collective (`dmx_coll_*`, `dmx_grid_*`) does about its arguments "
        "([coll.md](coll.md)): `local` checks on each rank, and a rank whose check fails calls "
        "the error handler (the default prints the message and ends the job, so no rank is left "
        "waiting); `agree` (or `1`) adds one small allreduce per call so every rank returns the "
        "same status; `off` (or `0`) returns the status on that rank only, as MPI's own calls "
        "with `MPI_ERRORS_RETURN` do (the others may then wait)"),
    ROW(DMXI_SET_PLAN_CHECK, "DMX_PLAN_CHECK", 0, "local", USER, MUST_MATCH, 1,
        "one-shot calls' and block-cyclic layouts' argument checks: local (no agreement where "
        "each rank can check alone; a failing rank calls the error handler) or agree (one "
        "reduction, every rank returns the same status)",
        "argument checks of one-shot calls (`dmx_transform_once`, `dmx_transform_once_ex`) and "
        "of block-cyclic layout constructors: with `local` and the default handler a "
        "block-cyclic layout agrees only when it is the first on its communicator (or every "
        "65536th), the others take an id of the range reserved then, with no collective "
        "([errors.md](errors.md)); for one-shot calls `local` with dmx's default error handler "
        "skips the agreement when every rank can plan alone (layouts known globally, 2 x A's "
        "bytes at most `DMX_ONCE_BYTES`): no collective at all (a kept duplicate of the "
        "communicator carries the messages; the plans of the last one-shot calls are kept for "
        "later calls with the same layouts, dtype, op and trapezoid, `DMX_ONCE_KEEP`); a rank "
        "whose check fails calls the error handler, which ends the job. With a handler that may "
        "return (installed by `dmx_set_error_handler`) the call agrees as under `agree`: one "
        "reduction, every rank returns the same status. `dmx_transform_once_is_local(dtype, m, "
        "n)` tells whether a call takes that path; libdmx_scalapack's `p?gemr2d`/`p?tran*` "
        "calls within that bound take it through layouts made with no communication "
        "(`dmx_layout_create_block_cyclic_unagreed`, [scalapack.md](scalapack.md))"),
    ROW(DMXI_SET_MODEL, "DMX_MODEL", 0, "unset", USER, MUST_MATCH, 1,
        "file of collective cost-model parameters written by `dmx calibrate`; unset: built-in "
        "defaults",
        "file of collective cost-model parameters written by `dmx calibrate`, read at the first "
        "collective ([coll.md](coll.md)); a malformed file is reported on stderr and the "
        "built-in defaults stay"),
    ROW(DMXI_SET_GEMM_MODEL, "DMX_GEMM_MODEL", 0, "unset", USER, MUST_MATCH, 1,
        "file of the local multiply's rate by panel width, written by `dmx calibrate gemm -o`",
        "file of `rate = width MFLOPS` lines (and optionally `ibcast = ALG` or `ibcast = "
        "concurrent`): the local multiply's rate by panel width and the library's `MPI_Ibcast` "
        "for the multiply's model; `dmx calibrate gemm -o FILE` writes it ([gemm.md](gemm.md))"),
    ROW(DMXI_SET_SCALAPACK_GEMM, "DMX_SCALAPACK_GEMM", 0, "auto", USER, MUST_MATCH, 1,
        "the drop-in's p?gemm_: auto (rank-nb and small products to ScaLAPACK, the rest to dmx), "
        "dmx or scalapack",
        "where `libdmx_scalapack`'s `p?gemm_` sends a product: `auto` hands rank-nb updates and "
        "products under a 1024-cube to the linked ScaLAPACK and runs the rest on dmx's "
        "multiply; `dmx` or `scalapack` sends every call to that side "
        "([scalapack.md](scalapack.md)); read by that library itself, once"),
    /* ---- tuning -------------------------------------------------------------------------- */
    ROW(DMXI_SET_EXCHANGE, "DMX_EXCHANGE", 0, "auto", TUNING, AGREED, 1,
        "sparse-exchange protocol: auto, nbx, pex, pcx or rsx",
        "sparse-exchange protocol: `auto`, `nbx`, `pex`, `pcx` or `rsx` (case-insensitive); a "
        "value that differs between ranks fails the exchange with `DMX_ERR_ARG` on all of them"),
    ROW(DMXI_SET_CACHE_BYTES, "DMX_CACHE_BYTES", (int64_t)64 << 20, "67108864", TUNING, MUST_MATCH,
        0,
        "bytes of plans dmx keeps per communicator on each rank for later one-shot and "
        "ScaLAPACK drop-in calls, least recently used out",
        "bytes of plans dmx keeps per communicator on each rank between calls, least recently "
        "used out: the plans of one-shot calls (`dmx_transform_once`) and of "
        "`libdmx_scalapack`'s `p?gemr2d`/`p?trmr2d`/`p?tran*` calls, in one cache "
        "(docs/architecture.md, \"The plan cache\"). A plan counts its engine's buffers and its "
        "piece lists (`dmx_plan_info`'s `buffer_bytes` + `plan_bytes`), a drop-in call also its "
        "layouts; a plan every rank made together counts the largest rank's bytes on every rank, "
        "so that all ranks let it go at the same call. The newest plan stays even when it alone "
        "is larger (`0`: only the newest). Freed when the communicator is freed or at "
        "`MPI_Finalize`"),
    ROW(DMXI_SET_SHM, "DMX_SHM", 1, "1", TUNING, AGREED, 0,
        "0: packages to ranks of the same node go through MPI messages instead of rings in a "
        "shared window",
        "`0`: packages between ranks of one node go through MPI messages instead of rings in a "
        "shared window (every rank must allow the window for it to be used); also turns off the "
        "direct node path of one-sided calls ([rma.md](rma.md))"),
    ROW(DMXI_SET_STREAM, "DMX_STREAM", -1, "unset", TUNING, LOCAL, 0,
        "0/1 force A's writes through the caches / past them; unset: past them from 8 MiB",
        "`0` / `1` force A's writes through the caches / past them with non-temporal stores; "
        "unset: past them when a rank writes 8 MiB or more of A per execution. Also direct "
        "one-sided puts and gets between node peers (`dmx_aput`, `dmx_aget`, [rma.md](rma.md)): "
        "unset, they stream from 1 MiB in blocks of 64 bytes or more"),
    ROW(DMXI_SET_SMALL_BYTES, "DMX_SMALL_BYTES", 262144, "262144", TUNING, MUST_MATCH, 0,
        "plans in which every rank exchanges at most this many bytes are made with one agreement "
        "and run by plain messages; 0: never",
        "plans (both layouts known globally) in which every rank sends plus receives at most "
        "this many bytes to and from other ranks are created with one agreement and run by plain "
        "MPI messages, with no shared window (src/plan/plan_small.c, src/exec/engine_small.c); "
        "`0`: never. In a plan a difference between ranks falls back to the general path; a "
        "one-shot call with no agreement uses each rank's own value"),
    ROW(DMXI_SET_THREADS, "DMX_THREADS", -1, "unset", TUNING, LOCAL, 0,
        "OpenMP threads of dmx's own loops; unset: OMP_NUM_THREADS if set, within the rank's "
        "CPUs, else 1",
        "OpenMP threads of dmx's own loops (packing, unpacking, local transforms), whatever the "
        "program's own OpenMP threads are; read once. Unset: `1` unless `OMP_NUM_THREADS` is "
        "set, then that many, but no more than the CPUs the rank may run on and, where the "
        "node's ranks share its CPUs (ranks unbound, as under MPICH's defaults), than its share "
        "of them: threads beyond that wait at every barrier for one the system put aside "
        "([exec.md](exec.md), \"Threads capped\"). Set, it is used as given (an application "
        "that runs 8 threads of its own and wants dmx's loops on 2, or ranks in cpusets the "
        "library cannot see)"),
    ROW(DMXI_SET_RUNS, "DMX_RUNS", -1, "unset", TUNING, MUST_MATCH, 0,
        "0/1: plan block-cyclic transforms as rectangles / as runs; unset: runs for overlay "
        "rectangles under 1024 elements",
        "`1`: plan every transform between two block-cyclic layouts without a trapezoid as runs "
        "([exec.md](exec.md), \"Run-compressed plans\"); `0`: never (one rectangle per pair of "
        "blocks); unset: as runs when the overlay's rectangles average under 1024 elements "
        "(sender and receiver lay out a package alike only when they decide alike)"),
    ROW(DMXI_SET_GEMM, "DMX_GEMM", 0, "auto", TUNING, MUST_MATCH, 1,
        "multiply algorithm for DMX_GEMM_AUTO plans: auto, summa, hsumma or cannon",
        "multiply algorithm for `DMX_GEMM_AUTO` plans: `auto`, `summa`, `hsumma` or `cannon` "
        "(options of a plan override it)"),
    ROW(DMXI_SET_GEMM_MFLOPS, "DMX_GEMM_MFLOPS", 50000, "50000", TUNING, MUST_MATCH, 0,
        "one rank's wide-panel local multiply rate in MFLOP/s for the multiply's model",
        "one rank's wide-panel local multiply rate in MFLOP/s; the multiply's model uses the "
        "built-in curve (72 % of it at panel width 32, 97 % at 256, 100 % from 2048) scaled to "
        "it, unless `DMX_GEMM_MODEL` is loaded"),
    ROW(DMXI_SET_COLL_TUNE, "DMX_COLL_TUNE", 2, "2", TUNING, MUST_MATCH, 0,
        "rounds (0..5) of AUTO's timed trials per size class; 0: the model's choice only",
        "rounds (0-5) of AUTO's trials: the first AUTO calls of each size class on a "
        "communicator try MPI's call and the algorithms the model predicts within 4x of its best "
        "(each twice in a row, the second timed), then one small allreduce keeps the fastest for "
        "the communicator's life; cells predicted under 20 us are not tried; `0`: the model's "
        "choice only ([coll.md](coll.md))"),
    ROW(DMXI_SET_COLL_ALG, "DMX_COLL_<NAME>", 0, "unset", TUNING, MUST_MATCH, 1,
        "DMX_COLL_BCAST=ring etc.: the algorithm DMX_COLL_AUTO runs for that collective",
        "`DMX_COLL_BCAST=ring` etc.: the algorithm `DMX_COLL_AUTO` runs for that collective "
        "(names in [coll.md](coll.md)); an unknown name is reported and ignored"),
    ROW(DMXI_SET_RMA_PROBE, "DMX_RMA_PROBE", 1, "1", TUNING, AGREED, 0,
        "1: time the one-sided message-path methods when a heap is made; 0: built-in rules; 2: "
        "as 1 and print the times",
        "`1`: when a heap is made, time the message-path methods on its window (under 1 ms) and "
        "choose by the result ([rma.md](rma.md)); `0`: built-in rules; `2`: as `1` and print the "
        "times and choices from rank 0 to stderr; the probe runs only when every rank asks for "
        "it"),
    ROW(DMXI_SET_SCALAPACK_DIRECT, "DMX_SCALAPACK_DIRECT", 1, "1", TUNING, MUST_MATCH, 0,
        "0: no in-place path for tiny drop-in calls whose elements all stay on their process",
        "`0` turns off `libdmx_scalapack`'s in-place path for tiny calls whose every element "
        "stays on its process ([scalapack.md](scalapack.md); the path makes no collective); "
        "read by that library itself, once"),
    /* ---- test ---------------------------------------------------------------------------- */
    ROW(DMXI_SET_MAX_MESSAGE_BYTES, "DMX_MAX_MESSAGE_BYTES", (int64_t)1 << 30, "1073741824", TEST,
        MUST_MATCH, 0,
        "largest MPI message in bytes (1..INT_MAX); lower it to exercise split messages",
        "largest MPI message in bytes (1..INT_MAX, smallest over the ranks in a plan; each "
        "rank's own in a one-shot call with no agreement); lower it to exercise packages split "
        "into several messages"),
    ROW(DMXI_SET_SHM_CHUNK_BYTES, "DMX_SHM_CHUNK_BYTES", (int64_t)128 * 1024, "131072", TEST,
        MUST_MATCH, 0,
        "bytes per shared-window ring chunk (64..2^30); lower it to exercise wrapping rings",
        "bytes per shared-window ring chunk and largest piece (64..2^30, smallest over the ranks "
        "in a plan; each rank's own in a one-shot call with no agreement); lower it to exercise "
        "cut pieces and rings that wrap around"),
    ROW(DMXI_SET_RMA, "DMX_RMA", 0, "auto", TEST, LOCAL, 1,
        "one-sided transfer path: auto, shm, vector, blocks, pack or span",
        "one-sided transfer path: `auto`, `shm`, `vector`, `blocks`, `pack` or `span` "
        "([rma.md](rma.md)); forcing one is for tests and measurements"),
    ROW(DMXI_SET_RMA_PIECES, "DMX_RMA_PIECES", -1, "unset", TEST, LOCAL, 0,
        "one-sided vector and pack operations: 0 whole, 1 pieces of 32768 blocks; unset: probe",
        "one-sided vector and pack operations (`dmx_aput`/`dmx_aget` on the message path, "
        "[rma.md](rma.md)): `0` one MPI call per transfer, `1` pieces of 32768 blocks; unset: "
        "whole where the heap's probe found MPI's datatype engine fast (osc rdma, sm), pieces "
        "elsewhere (osc ucx)"),
    ROW(DMXI_SET_COLL_SEGMENTS, "DMX_COLL_SEGMENTS", 0, "0", TEST, MUST_MATCH, 0,
        "segments of the pipelined ring broadcast (0: the model's choice)",
        "segments of the pipelined ring broadcast (`0`: the model's choice)"),
    ROW(DMXI_SET_COMM_CACHE, "DMX_COMM_CACHE", 4, "4", TEST, MUST_MATCH, 0,
        "private duplicates of a communicator kept for its plans (0: every plan makes its own)",
        "private duplicates of a communicator kept (in dmx's record of it, docs/architecture.md) "
        "for the plans made on "
        "it, each with its node communicator and shared window, so that creating and destroying "
        "a plan makes no `MPI_Comm_dup`, `MPI_Comm_split_type`, `MPI_Win_allocate_shared` or "
        "`MPI_Win_free` after the first plans; freed when the communicator is freed or at "
        "`MPI_Finalize` (`0`: every plan duplicates and frees its own); the one-shot duplicate "
        "stays whatever this says"),
    ROW(DMXI_SET_SIM_PANELS, "DMX_SIM_PANELS", 0, "0", TEST, MUST_MATCH, 0,
        "simulation builds only: the multiply runs its first n panels or steps (0: all)",
        "read only by the SimGrid build of `scripts/simulate.sh` (`-DDMX_SIM_FLOPS`; its "
        "`SIM_PANELS`): SUMMA and HSUMMA run their first n (outer) panels, Cannon its first n "
        "steps, the same messages as a whole run's first n, and the script extrapolates the time "
        "([scale.md](scale.md)); `0`: all. Other builds ignore it"),
    ROW(DMXI_SET_SHM_CACHE_BYTES, "DMX_SHM_CACHE_BYTES", (int64_t)16 << 20, "16777216", TEST,
        MUST_MATCH, 0, "largest shared window (bytes per rank) a kept duplicate holds",
        "largest shared window, in bytes per rank, that a kept duplicate holds for the next plan "
        "(it grows to the largest need up to this); a plan whose rings need more gets a window "
        "of its own, freed with the plan"),
    ROW(DMXI_SET_SCALAPACK_CACHE, "DMX_SCALAPACK_CACHE", 16, "16", TEST, MUST_MATCH, 0,
        "test override: at most this many drop-in plans per process group, under DMX_CACHE_BYTES "
        "(0: none)",
        "test override: `libdmx_scalapack` keeps at most this many calls' plans per process group "
        "(each of its two kinds: plans made together, calls made alone) in the plan cache, "
        "within `DMX_CACHE_BYTES`, least recently used out (`0`: build and destroy a plan per "
        "call); read by that library itself, once"),
    ROW(DMXI_SET_SCALAPACK_GEMM_CACHE, "DMX_SCALAPACK_GEMM_CACHE", 8, "8", TEST, MUST_MATCH, 0,
        "test override: at most this many p?gemm_ plans per grid, under DMX_CACHE_BYTES (0: none)",
        "test override: `libdmx_scalapack` keeps at most this many `p?gemm_` calls' plans (SUMMA "
        "on "
        "the caller's arrays or a `dmx_gemm` plan) per grid in the plan cache, within "
        "`DMX_CACHE_BYTES`, least recently used out (`0`: none); read by that library itself, "
        "once"),
    ROW(DMXI_SET_SCALAPACK_GEMM_INPLACE, "DMX_SCALAPACK_GEMM_INPLACE", 1, "1", TEST, MUST_MATCH, 0,
        "0: libdmx_scalapack's p?gemm_ never runs SUMMA on the caller's arrays",
        "`0`: `libdmx_scalapack`'s `p?gemm_` never runs SUMMA directly on the caller's arrays "
        "(every call it keeps goes through `dmx_gemm`), for comparisons "
        "([scalapack.md](scalapack.md))"),
    ROW(DMXI_SET_ONCE_BYTES, "DMX_ONCE_BYTES", (int64_t)16 << 20, "16777216", TEST, MUST_MATCH, 0,
        "one-shot calls with 2 x A's bytes at most this are planned on each rank alone; also "
        "the kept one-shot plans' bound",
        "one-shot calls on the no-agreement path (`DMX_PLAN_CHECK=local`, default error "
        "handler, layouts known globally) are planned on each rank alone and run by plain "
        "messages (no shared window) while 2 x A's bytes are at most this many; the bound used "
        "is never below `DMX_SMALL_BYTES`, and `DMX_SMALL_BYTES=0` turns the path off. It "
        "bounds the temporary buffers of such a call (each rank sends at most op(B)'s bytes and "
        "receives at most A's); the kept plans are bounded by `DMX_CACHE_BYTES`"),
    ROW(DMXI_SET_ONCE_KEEP, "DMX_ONCE_KEEP", 4, "4", TEST, LOCAL, 0,
        "test override: at most this many one-shot plans (0..16) per communicator, under "
        "DMX_CACHE_BYTES",
        "test override: at most this many one-shot plans (0-16) a communicator keeps (in the plan "
        "cache, within `DMX_CACHE_BYTES`) for later calls with the same layouts, "
        "dtype, op and trapezoid, most recently used first, until it is freed: a call that finds "
        "its plan takes it back with no planning. A call with a new transform "
        "destroys the least recently used plans beyond those limits and takes their buffers when "
        "large enough. `libdmx_scalapack`'s `p?trmr2d` (a band and a triangle, two one-shot "
        "calls) needs 2 per call shape. `0`: nothing kept (every call plans)"),
};

const dmxi_setting_row *dmxi_setting_info(dmxi_setting s)
{
    return &dmxi_setting_rows[s];
}
