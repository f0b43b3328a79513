# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m dmx bench: the Python calls against the C calls on the same plan and layouts.

The default case is `dmx bench redist`'s (run.sh): a 4096 x 4096 double matrix B in 32 x 32
blocks becomes A in 128 x 128 blocks, both block-cyclic on the same grid (2 x 2 at 4 ranks or
more, 1 x 2 at 2, else 1 x P; row-major ranks, first block on process (0, 0)). Four variants
run round-robin in every repetition, each between a barrier and a maximum over the ranks:

  py plan   dmx.Plan.execute()                       (Python)
  C plan    dmx_plan_execute on the same plan handle  (C, _dmx_pybench.so)
  py once   dmx.transform(A, B)                       (Python)
  C once    dmx_transform_once on the same layouts    (C)

A is filled with NaN before every run and checked element by element after it (untimed); the
order of the four alternates between repetitions.
Then a 1 x 1 matrix: loops of --loop one-shot calls, Python's and C's alternating, and the
per-call difference (the Python overhead of one small dmx.transform); the same for a plan's
execute() (the overhead the large case's plan ratio hides in its noise).
"""

import argparse
import ctypes
import os

import numpy as np
from mpi4py import MPI

import dmx
from . import _lib


def _helper():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_dmx_pybench.so")
    h = ctypes.CDLL(path)
    dp = ctypes.POINTER(ctypes.c_double)
    S, vp, ci = _lib.Scalar, ctypes.c_void_p, ctypes.c_int
    h.dmxpy_plan_execute_timed.argtypes = [vp, _lib.comm_t, dp]
    h.dmxpy_transform_once_timed.argtypes = [ci, ci, S, vp, S, vp, _lib.comm_t, dp]
    h.dmxpy_transform_once_loop.argtypes = [ci, ci, S, vp, S, vp, ctypes.c_int64, dp]
    h.dmxpy_plan_execute_loop.argtypes = [vp, ctypes.c_int64, dp]
    for f in (h.dmxpy_plan_execute_timed, h.dmxpy_transform_once_timed,
              h.dmxpy_transform_once_loop, h.dmxpy_plan_execute_loop):
        f.restype = ci
    return h


def _default_grid(size):
    if size >= 4:
        return (2, 2)
    return (1, 2) if size == 2 else (1, size)


class _Matrix:
    """A block-cyclic m x n double matrix of this benchmark: layout, array, global indices."""

    def __init__(self, comm, shape, block, grid, fill):
        rank = comm.Get_rank()
        self.a = np.zeros(dmx.local_shape(comm, shape, block, grid), order="F")
        if rank < grid[0] * grid[1]:
            pr, pc = rank // grid[1], rank % grid[1]
            rows = np.arange(shape[0])[(np.arange(shape[0]) // block[0]) % grid[0] == pr]
            cols = np.arange(shape[1])[(np.arange(shape[1]) // block[1]) % grid[1] == pc]
        else:
            rows = cols = np.zeros(0, np.int64)
        self.want = (rows[:, None] * shape[1] + cols[None, :] + 1).astype(np.float64)
        if fill:
            self.a[...] = self.want
        self.layout = dmx.Layout.block_cyclic(comm, shape, block, grid, self.a)


def _parse(argv):
    ap = argparse.ArgumentParser(prog="python3 -m dmx bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=4096, help="m = n (default 4096)")
    ap.add_argument("--from", dest="frm", type=int, default=32, help="B's blocks (32)")
    ap.add_argument("--to", type=int, default=128, help="A's blocks (128)")
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions (10)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed repetitions (1)")
    ap.add_argument("--loop", type=int, default=200, help="1 x 1 calls per timed loop (200)")
    ap.add_argument("--loop-reps", type=int, default=15, help="timed loops of each (15)")
    ap.add_argument("--errors-abort", action="store_true",
                    help="dmx's default error handler (as a C program has) instead of the "
                         "package's returning one; both sides run under the same handler")
    return ap.parse_args(argv)


def _redist(comm, h, o, out):
    """The large case: the four variants round-robin, checked, medians and ratios."""
    grid = _default_grid(comm.Get_size())
    shape = (o.size, o.size)
    B = _Matrix(comm, shape, (o.frm, o.frm), grid, True)
    A = _Matrix(comm, shape, (o.to, o.to), grid, False)
    ch = _lib.comm_handle(comm)
    t = ctypes.c_double()
    one, zero = _lib.Scalar(1, 0), _lib.Scalar(0, 0)
    names = ["py plan", "C plan", "py once", "C once"]
    times = {k: [] for k in names}
    wrong = 0
    with dmx.Plan(A.layout, B.layout) as plan:
        def py_plan():
            comm.Barrier()
            t0 = MPI.Wtime()
            plan.execute()
            return comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)

        def c_plan():
            dmx._check(h.dmxpy_plan_execute_timed(plan._h, ch, ctypes.byref(t)))
            return t.value

        def py_once():
            comm.Barrier()
            t0 = MPI.Wtime()
            dmx.transform(A.layout, B.layout)
            return comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)

        def c_once():
            dmx._check(h.dmxpy_transform_once_timed(1, 0, one, B.layout._h, zero, A.layout._h,
                                                    ch, ctypes.byref(t)))
            return t.value

        fns = [py_plan, c_plan, py_once, c_once]
        for rep in range(o.warmup + o.reps):
            order = list(zip(names, fns))
            for name, fn in (order if rep % 2 == 0 else order[::-1]):
                A.a.fill(np.nan)
                dt = fn()
                wrong = max(wrong, comm.allreduce(int(np.count_nonzero(A.a != A.want))))
                if rep >= o.warmup:
                    times[name].append(dt)
    med = {k: float(np.median(v)) for k, v in times.items()}
    out("python3 -m dmx bench: %d x %d doubles, %d x %d -> %d x %d blocks, %d x %d grid, "
        "np %d, %d reps (median of max over ranks), wrong elements: %d"
        % (o.size, o.size, o.frm, o.frm, o.to, o.to, grid[0], grid[1], comm.Get_size(),
           o.reps, wrong))
    for k in names:
        out("  %-8s median %9.3f ms   min %9.3f ms" % (k, 1e3 * med[k], 1e3 * min(times[k])))
    out("  ratio Python/C: plan %.3f, one-shot %.3f"
        % (med["py plan"] / med["C plan"], med["py once"] / med["C once"]))
    return wrong


def _loops(comm, o, py_call, c_loop):
    """Medians per call of loops of o.loop calls: Python's and C's alternating."""
    def py_loop():
        comm.Barrier()
        t0 = MPI.Wtime()
        for _ in range(o.loop):
            py_call()
        return comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX) / o.loop

    def c_timed():
        comm.Barrier()
        return comm.allreduce(c_loop(), op=MPI.MAX) / o.loop

    py, c = [], []
    for rep in range(o.loop_reps + 1):
        if rep % 2 == 0:
            tp, tc = py_loop(), c_timed()
        else:
            tc, tp = c_timed(), py_loop()
        if rep > 0:
            py.append(tp)
            c.append(tc)
    return float(np.median(py)), float(np.median(c))


def _small(comm, h, o, out):
    """1 x 1 matrices: loops of one-shot calls, then of a plan's executions."""
    grid = _default_grid(comm.Get_size())
    B = _Matrix(comm, (1, 1), (1, 1), grid, True)
    A = _Matrix(comm, (1, 1), (1, 1), grid, False)
    t = ctypes.c_double()
    one, zero = _lib.Scalar(1, 0), _lib.Scalar(0, 0)

    def c_once():
        dmx._check(h.dmxpy_transform_once_loop(1, 0, one, B.layout._h, zero, A.layout._h,
                                               o.loop, ctypes.byref(t)))
        return t.value

    mp, mc = _loops(comm, o, lambda: dmx.transform(A.layout, B.layout), c_once)
    wrong = comm.allreduce(int(np.count_nonzero(A.a != A.want)))
    out("  1 x 1 one-shot (%d loops of %d calls, per call, median): Python %.2f us, C %.2f us, "
        "Python overhead %.2f us (%.2fx); wrong elements: %d"
        % (o.loop_reps, o.loop, 1e6 * mp, 1e6 * mc, 1e6 * (mp - mc), mp / mc, wrong))
    A.a.fill(0)
    with dmx.Plan(A.layout, B.layout) as plan:
        def c_plan():
            dmx._check(h.dmxpy_plan_execute_loop(plan._h, o.loop, ctypes.byref(t)))
            return t.value

        mp, mc = _loops(comm, o, plan.execute, c_plan)
    bad = comm.allreduce(int(np.count_nonzero(A.a != A.want)))
    out("  1 x 1 plan execute (same loops): Python %.2f us, C %.2f us, Python overhead "
        "%.2f us; wrong elements: %d" % (1e6 * mp, 1e6 * mc, 1e6 * (mp - mc), bad))
    return wrong + bad


def main(argv):
    o = _parse(argv)
    comm = MPI.COMM_WORLD
    if o.errors_abort:
        dmx.errors_return(False)
    h = _helper()

    def out(s):
        if comm.Get_rank() == 0:
            print(s, flush=True)

    out("error handler: %s" % ("dmx's default (abort)" if o.errors_abort
                               else "the package's (errors returned, one-shot calls agree)"))
    wrong = _redist(comm, h, o, out)
    wrong += _small(comm, h, o, out)
    return 1 if wrong else 0
