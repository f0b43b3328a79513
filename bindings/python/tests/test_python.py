# SPDX-License-Identifier: BSD-3-Clause
"""The Python package dmx at 1-4 ranks: plans, one-shot transposes, views, custom layouts, the
multiply and relabeling for float32, float64, complex64 and complex128, and the error paths
(dmx.Error with the message, every rank alike, no crash). Every check compares this rank's
elements with a closed formula of the global indices, computed here, not by dmx."""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
results = []


def expect(ok, what):
    """Record a check; the failing rank prints it at once. One reduction at the end."""
    results.append(bool(ok))
    if not ok:
        print("FAIL (rank %d): %s" % (rank, what), flush=True)


def f(k, i, j, dt):
    """Element (i, j) (0-based, arrays allowed) of test matrix k, exact in every dtype."""
    re = k * 100000 + i * 300 + j + 1.0
    im = -(k * 100000 + j * 300 + i + 0.5)
    return (re + 1j * im if np.dtype(dt).kind == "c" else re + 0 * im).astype(dt)


def grid(swap=False):
    p = int(size ** 0.5)
    while size % p:
        p -= 1
    return (size // p, p) if swap else (p, size // p)


def owned(n, nb, p, src, np_):
    """Global indices this process row/column holds, in local order (by counting)."""
    return np.array([i for i in range(n) if (i // nb + src) % np_ == p], dtype=np.int64)


class BC:
    """A block-cyclic test matrix: its description, this rank's global rows and columns."""

    def __init__(self, shape, block, g, order="R", src=(0, 0)):
        self.shape, self.block, self.grid, self.order = shape, block, g, order
        self.src = (min(src[0], g[0] - 1), min(src[1], g[1] - 1))
        if rank < g[0] * g[1]:
            pr, pc = (rank // g[1], rank % g[1]) if order == "R" else (rank % g[0], rank // g[0])
            self.rows = owned(shape[0], block[0], pr, self.src[0], g[0])
            self.cols = owned(shape[1], block[1], pc, self.src[1], g[1])
        else:
            self.rows = self.cols = np.zeros(0, np.int64)

    def array(self, dt, k=None, fill=-7):
        a = np.full((len(self.rows), len(self.cols)), fill, dtype=dt, order="F")
        if k is not None:
            a[...] = f(k, self.rows[:, None], self.cols[None, :], dt)
        return a

    def layout(self, a):
        return dmx.Layout.block_cyclic(comm, self.shape, self.block, self.grid, a, self.order,
                                       self.src)


def t_plan(dt):
    gb, ga = BC((37, 29), (4, 3), grid()), BC((37, 29), (5, 7), grid(True), "C", (1, 0))
    b, a = gb.array(dt, 1), ga.array(dt)
    B, A = gb.layout(b), ga.layout(a)
    with dmx.Plan(A, B) as p:
        p.execute()
        expect(np.array_equal(a, ga.array(dt, 1)), "%s plan: A = B" % dt)
        p.set_scalars(2, 1)
        p.execute()
        expect(np.array_equal(a, 3 * ga.array(dt, 1)), "%s plan: A = 2 B + A" % dt)


def t_transpose(dt):
    gb, ga = BC((23, 31), (3, 4), grid()), BC((31, 23), (4, 2), grid())
    b, a = gb.array(dt, 2), ga.array(dt)
    B, A = gb.layout(b), ga.layout(a)
    for op in "TC":
        a[...] = -1
        dmx.transform(A, B, op=op)
        want = f(2, ga.cols[None, :], ga.rows[:, None], dt)
        if op == "C":
            want = np.conj(want)
        expect(np.array_equal(a, want), "%s transform op %s" % (dt, op))
    a[...] = 1
    dmx.transform(A, B, op="T", alpha=2, beta=-1)
    expect(np.array_equal(a, 2 * f(2, ga.cols[None, :], ga.rows[:, None], dt) - 1),
           "%s transform alpha = 2, beta = -1" % dt)


def t_view(dt):
    gb, gd = BC((20, 20), (3, 3), grid()), BC((10, 8), (2, 2), grid())
    b, d = gb.array(dt, 3), gd.array(dt)
    B, D = gb.layout(b), gd.layout(d)
    V = B.view(2, 1, (10, 8))
    dmx.transform(D, V)
    expect(np.array_equal(d, f(3, gd.rows[:, None] + 2, gd.cols[None, :] + 1, dt)),
           "%s view: D = B[2:12, 1:9]" % dt)


def t_custom(dt):
    rs, cs = [0, 10, 25, 37], [0, 13, 29]
    owners = [[(bi * 2 + bj) * 5 % size for bj in range(2)] for bi in range(3)]
    blocks = {}
    for bi in range(3):
        for bj in range(2):
            if owners[bi][bj] == rank:
                shape = (rs[bi + 1] - rs[bi], cs[bj + 1] - cs[bj])
                blocks[(bi, bj)] = np.full(shape, -3, dt, order="F" if (bi + bj) % 2 else "C")
    gb = BC((37, 29), (4, 3), grid())
    b = gb.array(dt, 4)
    B = gb.layout(b)
    C = dmx.Layout.custom(comm, (37, 29), rs, cs, owners, blocks)
    dmx.transform(C, B)
    ok = all(np.array_equal(x, f(4, np.arange(rs[bi], rs[bi + 1])[:, None],
                                 np.arange(cs[bj], cs[bj + 1])[None, :], dt))
             for (bi, bj), x in blocks.items())
    expect(ok, "%s custom: C = B, C- and Fortran-ordered blocks" % dt)


def t_gemm(dt):
    m, n, k = 19, 23, 17
    ga_, gb_, gc = BC((m, k), (4, 3), grid()), BC((k, n), (2, 5), grid(), "C"), \
        BC((m, n), (3, 3), grid(True))
    a = (np.mod(ga_.rows[:, None] + 2 * ga_.cols[None, :], 5) - 2).astype(dt, order="F")
    b = (np.mod(3 * gb_.rows[:, None] + gb_.cols[None, :], 7) - 3).astype(dt, order="F")
    c = gc.array(dt, fill=1)
    A, B, C = ga_.layout(a), gb_.layout(b), gc.layout(c)
    dmx.gemm(C, A, B, alpha=2, beta=-1)
    gi, gj, l = gc.rows[:, None, None], gc.cols[None, :, None], np.arange(k)[None, None, :]
    want = -1 + 2 * ((np.mod(gi + 2 * l, 5) - 2) * (np.mod(3 * l + gj, 7) - 3)).sum(axis=2)
    expect(np.array_equal(c, want.astype(dt)), "%s gemm: C = 2 A B - C" % dt)
    with dmx.GemmPlan(C, A, B, alpha=2) as plan:
        for _ in range(2):
            c[...] = -5
            plan.execute()
            expect(np.array_equal(c, (want + 1).astype(dt)), "%s gemm plan: C = 2 A B" % dt)


def t_local(dt):
    """B (block-cyclic) into a layout known only locally: rank r holds row stripe r of the
    matrix, as two column pieces (one C-, one Fortran-ordered)."""
    m, n = 33, 21
    gb = BC((m, n), (4, 5), grid())
    b = gb.array(dt, 6)
    B = gb.layout(b)
    r0, r1 = rank * m // size, (rank + 1) * m // size
    pieces = [(r0, 0, np.full((r1 - r0, 8), -1, dt, order="C")),
              (r0, 8, np.full((r1 - r0, n - 8), -1, dt, order="F"))]
    pieces = [p for p in pieces if p[2].size]
    L = dmx.Layout.local(comm, (m, n), pieces)
    dmx.transform(L, B)
    ok = all(np.array_equal(x, f(6, np.arange(i0, i0 + x.shape[0])[:, None],
                                 np.arange(j0, j0 + x.shape[1])[None, :], dt))
             for i0, j0, x in pieces)
    expect(ok, "%s local: L = B, one row stripe per rank" % dt)


def t_relabel(dt):
    gb = BC((30, 26), (4, 4), grid())
    b = gb.array(dt, 5)
    B = gb.layout(b)
    T = dmx.Layout.block_cyclic(comm, (30, 26), (4, 4), grid(), None, "C")
    sigma, newcomm, R, plan = dmx.relabel(T, B)
    with plan:
        plan.execute()
        ok = sorted(sigma) == list(range(size))
        for r0, c0, x in R.local_blocks():
            ok = ok and np.array_equal(x, f(5, np.arange(r0, r0 + x.shape[0])[:, None],
                                            np.arange(c0, c0 + x.shape[1])[None, :], dt))
        expect(ok, "%s relabel: target = B on the relabeled communicator" % dt)
    R.destroy()
    newcomm.Free()


def raises(fn, status, part):
    try:
        fn()
    except dmx.Error as e:
        return e.status == status and part in e.message, str(e)
    return False, "no error"


def t_errors():
    g = BC((16, 16), (2, 2), grid())
    b = g.array(np.float64)
    # rank 0's array is too small: every rank raises, rank 0 with the reason
    arr = b[:, :1].copy(order="F") if rank == 0 else b
    ok, msg = raises(lambda: g.layout(arr), dmx.ERR_ARG, "this rank's part" if rank == 0 else "")
    expect(ok, "errors: wrong shape on rank 0: " + msg)
    ok, msg = raises(lambda: g.layout(np.ascontiguousarray(b) if b.shape[1] > 1 and b.shape[0]
                                      > 1 else b.T.copy()), dmx.ERR_ARG, "")
    expect(ok or min(b.shape) <= 1, "errors: C-ordered local array: " + msg)
    ok, msg = raises(lambda: g.layout(b.astype(np.int32)), dmx.ERR_ARG, "dtype int32")
    expect(ok, "errors: int32 array: " + msg)
    ok, msg = raises(lambda: dmx.Layout.block_cyclic(comm, (16, 16), (0, 2), g.grid, b),
                     dmx.ERR_ARG, "block size")
    expect(ok, "errors: mb = 0 gives dmx's message: " + msg)
    B = g.layout(b)
    a4 = g.array(np.float32)
    A4 = g.layout(a4)
    ok, msg = raises(lambda: dmx.transform(A4, B), dmx.ERR_ARG, "dtype")
    expect(ok, "errors: mixed dtypes: " + msg)
    g2 = BC((16, 15), (2, 2), grid())
    A2 = g2.layout(g2.array(np.float64))
    ok, msg = raises(lambda: dmx.transform(A2, B), dmx.ERR_LAYOUT, "15")
    expect(ok, "errors: shapes differ: " + msg)
    ok, msg = raises(lambda: dmx.transform(A2, B, op="X"), dmx.ERR_ARG, "op")
    expect(ok, "errors: bad op: " + msg)
    ok, msg = raises(lambda: dmx.gemm(A2, B, B), dmx.ERR_LAYOUT, "C 16 x 15")
    expect(ok, "errors: gemm shapes: " + msg)
    expect(dmx.__version__.count(".") == 2, "dmx.__version__ = " + dmx.__version__)


for dt in (np.float32, np.float64, np.complex64, np.complex128):
    name = np.dtype(dt).name
    for t in (t_plan, t_transpose, t_view, t_custom, t_local, t_relabel):
        t(np.dtype(dt))
    try:
        t_gemm(np.dtype(dt))
    except dmx.Error as e:
        expect(False, "%s gemm: %s" % (name, e))
t_errors()
agreed = np.array(results, dtype=np.intc)
comm.Allreduce(MPI.IN_PLACE, agreed, op=MPI.MIN)
passed = int(np.count_nonzero(agreed))
failed = len(results) - passed
if rank == 0:
    print("%d passed, %d failed" % (passed, failed), flush=True)
sys.exit(1 if failed else 0)
