# SPDX-License-Identifier: BSD-3-Clause
"""dmx from Python: distributed dense matrices moved between layouts (A = alpha op(B) + beta A)
and multiplied, over the C library libdmx, with mpi4py communicators and NumPy local arrays.

    import numpy as np, dmx
    from mpi4py import MPI
    lr, lc = dmx.local_shape(MPI.COMM_WORLD, (m, n), (32, 32), (2, 2))
    b = np.zeros((lr, lc), order='F')
    B = dmx.Layout.block_cyclic(MPI.COMM_WORLD, (m, n), (32, 32), (2, 2), b)
    ...
    dmx.transform(A, B, op='T')

Indices are 0-based; errors raise dmx.Error (docs/python.md).
"""

import ctypes

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import lib, Scalar, Transform, Block, LocalBlock

__all__ = ["Error", "Layout", "Plan", "GemmPlan", "local_shape", "transform", "gemm", "relabel",
           "errors_return", "__version__",
           "SUCCESS", "ERR_ARG", "ERR_NULL", "ERR_ALLOC", "ERR_STATE", "ERR_LAYOUT",
           "ERR_OVERFLOW", "ERR_MPI", "ERR_UNSUPPORTED", "ERR_INTERNAL"]

(SUCCESS, ERR_ARG, ERR_NULL, ERR_ALLOC, ERR_STATE, ERR_LAYOUT, ERR_OVERFLOW, ERR_MPI,
 ERR_UNSUPPORTED, ERR_INTERNAL) = range(10)

_DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1,
           np.dtype(np.complex64): 2, np.dtype(np.complex128): 3}
_NP = {v: k for k, v in _DTYPES.items()}
_OPS = {"N": 0, "T": 1, "C": 2, "n": 0, "t": 1, "c": 2}

__version__ = lib.dmx_version(None, None, None).decode()


class Error(RuntimeError):
    """A dmx call failed: status (int), name ("DMX_ERR_ARG", ...) and dmx's message."""

    def __init__(self, status, message):
        self.status = status
        self.name = lib.dmx_status_string(status).decode()
        self.message = message
        super().__init__("%s: %s" % (self.name, message))


def _check(st):
    if st != SUCCESS:
        raise Error(st, lib.dmx_last_error().decode())


# ---- errors that dmx would end the job for --------------------------------------------------

@_lib.HANDLER
def _return_handler(st, msg):
    pass


_errors_return = False


def errors_return(on=True):
    """on (the default at import): errors dmx's default handler would end the job for are
    returned (raised as dmx.Error) and collective calls agree on every failure, so every rank
    raises. off: dmx's default handler (print the message, MPI_Abort). Set it alike on every
    rank (docs/errors.md)."""
    global _errors_return
    _errors_return = bool(on)
    lib.dmx_set_error_handler(_return_handler if on else _lib.HANDLER())


errors_return(True)


def _local_failure(message):
    """A check of this package failed on this rank. Errors returned: keep the message for the
    caller to raise after poisoning its C call (so every rank fails alike); otherwise end the
    job with the message, as dmx's default handler does."""
    if not _errors_return:
        import sys
        sys.stderr.write("dmx: %s (DMX_ERR_ARG)\n" % message)
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)
    return message


# ---- helpers ------------------------------------------------------------------------------------

_SCALARS = {}  # the C scalars of values seen (up to 64 of them), built once


def _scalar(x):
    try:
        return _SCALARS[x]
    except (KeyError, TypeError):
        pass
    c = complex(x)
    s = Scalar(c.real, c.imag)
    if len(_SCALARS) < 64:
        try:
            _SCALARS[x] = s
        except TypeError:
            pass
    return s


def _op(op):
    o = _OPS.get(op) if isinstance(op, str) else None
    if o is None:
        raise Error(ERR_ARG, "op %r is not 'N', 'T' or 'C'" % (op,))
    return o


def _numroc(n, nb, p, src, np_):
    """ScaLAPACK's NUMROC: elements of n (blocks of nb) on process p of np_, first block on src."""
    dist = (p - src) % np_
    nblocks = n // nb
    num = (nblocks // np_) * nb
    extra = nblocks % np_
    if dist < extra:
        num += nb
    elif dist == extra:
        num += n % nb
    return num


def _grid_pos(rank, grid, order):
    prow, pcol = grid
    if rank >= prow * pcol:
        return None
    if order in ("R", "r"):
        return rank // pcol, rank % pcol
    return rank % prow, rank // prow


def local_shape(comm, shape, block, grid, order="R", src=(0, 0)):
    """(rows, cols) of this rank's local array of a block-cyclic layout (ScaLAPACK's NUMROC),
    (0, 0) for a rank outside the grid. comm may also be a rank number. Local."""
    rank = comm if isinstance(comm, int) else comm.Get_rank()
    pos = _grid_pos(rank, grid, order)
    if pos is None:
        return (0, 0)
    return (_numroc(shape[0], block[0], pos[0], src[0], grid[0]),
            _numroc(shape[1], block[1], pos[1], src[1], grid[1]))


def _check_array(a, what):
    """None, or why a cannot be local memory of a layout."""
    if not isinstance(a, np.ndarray):
        return "%s must be a NumPy array, not %s" % (what, type(a).__name__)
    if a.dtype not in _DTYPES:
        return "%s has dtype %s; dmx takes float32, float64, complex64, complex128" % (
            what, a.dtype)
    if a.ndim != 2:
        return "%s has %d dimensions, not 2" % (what, a.ndim)
    if not a.flags.writeable:
        return "%s is read-only" % what
    return None


# ---- layouts ------------------------------------------------------------------------------------

class Layout:
    """A distributed matrix layout (the C dmx_layout). Keeps the local arrays it describes alive.
    Make it with Layout.block_cyclic, Layout.custom or layout.view."""

    def __init__(self, handle, comm, shape, dtype, keep):
        self._h = handle
        self.comm = comm
        self.shape = tuple(shape)
        self.dtype = dtype
        self._code = _DTYPES[dtype] if dtype is not None else None  # dmx_dtype, or None
        self._keep = keep

    @classmethod
    def block_cyclic(cls, comm, shape, block, grid, local=None, order="R", src=(0, 0),
                     dtype=None):
        """ScaLAPACK-style block-cyclic layout of an m x n matrix in mb x nb blocks on a
        prow x pcol grid (ranks in 'R'ow- or 'C'olumn-major order), first block on process
        src = (rsrc, csrc). local: this rank's Fortran-ordered array of at least local_shape
        rows and columns (its rows are the lld), or None for a description without memory
        (then dtype may name the element type). Collective on comm."""
        m, n = shape
        why = None
        lld = 1
        if local is not None:
            why = _check_array(local, "local")
            if why is None:
                lr, lc = local_shape(comm, shape, block, grid, order, src) if (
                    min(block) > 0 and min(grid) > 0) else (0, 0)
                if lr > 0 and lc > 0 and not local.flags.f_contiguous:
                    why = "local must be Fortran-ordered (np.zeros(shape, order='F')), as " \
                          "ScaLAPACK stores it"
                elif local.shape[0] < lr or local.shape[1] < lc:
                    why = "local has shape %s; this rank's part is %d x %d" % (
                        local.shape, lr, lc)
                lld = max(1, local.shape[0])
                dtype = local.dtype
        mm = m
        if why is not None:
            _local_failure(why)
            mm = -1  # every rank then fails alike in dmx's agreement
        out = ctypes.c_void_p()
        ptr = local.ctypes.data if (local is not None and why is None and local.size) else None
        st = lib.dmx_layout_create_block_cyclic(
            _lib.comm_handle(comm), mm, n, block[0], block[1], grid[0], grid[1],
            order.encode(), src[0], src[1], ptr, lld, ctypes.byref(out))
        if why is not None:
            raise Error(st or ERR_ARG, why)
        _check(st)
        return cls(out, comm, shape, np.dtype(dtype) if dtype is not None else None, [local])

    @classmethod
    def custom(cls, comm, shape, rowsplits, colsplits, owners, blocks, dtype=None):
        """Grid layout: block (i, j) covers rows rowsplits[i]:rowsplits[i+1] and columns
        colsplits[j]:colsplits[j+1] and belongs to rank owners[i][j]; blocks maps (i, j) to this
        rank's array for each block it owns (Fortran- or C-ordered, exactly the block's shape
        or larger). Collective on comm."""
        rs = np.ascontiguousarray(rowsplits, dtype=np.int64)
        cs = np.ascontiguousarray(colsplits, dtype=np.int64)
        ow = np.ascontiguousarray(owners, dtype=np.intc).reshape(-1)
        why = None
        cblocks = (Block * max(1, len(blocks)))()
        keep = []
        for k, ((bi, bj), arr) in enumerate(sorted(blocks.items())):
            why = why or _check_array(arr, "block (%d, %d)" % (bi, bj))
            if why:
                continue
            if dtype is None:
                dtype = arr.dtype
            if arr.dtype != np.dtype(dtype):
                why = "block (%d, %d) has dtype %s, not %s" % (bi, bj, arr.dtype, dtype)
                continue
            if not (0 <= bi < len(rs) - 1 and 0 <= bj < len(cs) - 1):
                continue  # dmx reports it
            rows, cols = rs[bi + 1] - rs[bi], cs[bj + 1] - cs[bj]
            if arr.shape[0] < rows or arr.shape[1] < cols:
                why = "block (%d, %d) has shape %s, the block is %d x %d" % (
                    bi, bj, arr.shape, rows, cols)
            elif arr.flags.f_contiguous:
                cblocks[k] = Block(bi, bj, arr.ctypes.data, max(1, arr.shape[0]), 0)
            elif arr.flags.c_contiguous:
                cblocks[k] = Block(bi, bj, arr.ctypes.data, max(1, arr.shape[1]), 1)
            else:
                why = "block (%d, %d) is neither C- nor Fortran-contiguous" % (bi, bj)
            keep.append(arr)
        m = shape[0]
        if why is not None:
            _local_failure(why)
            m = -1
        out = ctypes.c_void_p()
        i64p = ctypes.POINTER(ctypes.c_int64)
        st = lib.dmx_layout_create_custom(
            _lib.comm_handle(comm), m, shape[1], len(rs) - 1, rs.ctypes.data_as(i64p),
            len(cs) - 1, cs.ctypes.data_as(i64p), ow.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
            len(blocks), cblocks, ctypes.byref(out))
        if why is not None:
            raise Error(st or ERR_ARG, why)
        _check(st)
        return cls(out, comm, shape, np.dtype(dtype) if dtype is not None else None, keep)

    @classmethod
    def local(cls, comm, shape, blocks, dtype=None):
        """Layout known only locally: blocks is this rank's list of (row0, col0, array), each a
        rectangle of the matrix at global (row0, col0) of the array's shape, C- or
        Fortran-ordered; together the ranks' blocks tile the matrix. Collective on comm."""
        why = None
        cblocks = (LocalBlock * max(1, len(blocks)))()
        keep = []
        for k, (r0, c0, arr) in enumerate(blocks):
            what = "block %d at (%d, %d)" % (k, r0, c0)
            why = why or _check_array(arr, what)
            if why:
                continue
            dtype = arr.dtype if dtype is None else np.dtype(dtype)
            if arr.dtype != dtype:
                why = "%s has dtype %s, not %s" % (what, arr.dtype, dtype)
            elif arr.flags.f_contiguous:
                cblocks[k] = LocalBlock(r0, c0, arr.shape[0], arr.shape[1], arr.ctypes.data,
                                        max(1, arr.shape[0]), 0)
            elif arr.flags.c_contiguous:
                cblocks[k] = LocalBlock(r0, c0, arr.shape[0], arr.shape[1], arr.ctypes.data,
                                        max(1, arr.shape[1]), 1)
            else:
                why = "%s is neither C- nor Fortran-contiguous" % what
            keep.append(arr)
        m = shape[0]
        if why is not None:
            _local_failure(why)
            m = -1
        out = ctypes.c_void_p()
        st = lib.dmx_layout_create_local(_lib.comm_handle(comm), m, shape[1], len(blocks),
                                         cblocks, ctypes.byref(out))
        if why is not None:
            raise Error(st or ERR_ARG, why)
        _check(st)
        return cls(out, comm, shape, np.dtype(dtype) if dtype is not None else None, keep)

    def view(self, i0, j0, shape):
        """The shape[0] x shape[1] submatrix whose element (0, 0) is this layout's (i0, j0)
        (0-based). Shares the memory. Collective."""
        out = ctypes.c_void_p()
        _check(lib.dmx_layout_create_view(self._h, i0, j0, shape[0], shape[1],
                                          ctypes.byref(out)))
        return Layout(out, self.comm, shape, self.dtype, [self._keep])

    def local_blocks(self):
        """This rank's blocks as [(row0, col0, array)]: 0-based global origins and NumPy views
        of the layout's memory (column- or row-major as stored). Local."""
        if self.dtype is None:
            raise Error(ERR_ARG, "the layout has no element type")
        n = ctypes.c_int64()
        _check(lib.dmx_layout_get_num_local_blocks(self._h, ctypes.byref(n)))
        res = []
        for k in range(n.value):
            v = [ctypes.c_int64() for _ in range(4)]
            data, ld, order = ctypes.c_void_p(), ctypes.c_int64(), ctypes.c_int()
            _check(lib.dmx_layout_get_local_block(self._h, k, _DTYPES[self.dtype],
                                                  *[ctypes.byref(x) for x in v],
                                                  ctypes.byref(data), ctypes.byref(ld),
                                                  ctypes.byref(order)))
            r0, c0, rows, cols = (x.value for x in v)
            if rows * cols == 0 or not data.value:
                res.append((r0, c0, np.zeros((rows, cols), self.dtype)))
                continue
            isz = self.dtype.itemsize
            if order.value == 0:
                buf = (ctypes.c_char * (isz * (ld.value * (cols - 1) + rows))).from_address(
                    data.value)
                arr = np.ndarray((rows, cols), self.dtype, buf, strides=(isz, isz * ld.value))
            else:
                buf = (ctypes.c_char * (isz * (ld.value * (rows - 1) + cols))).from_address(
                    data.value)
                arr = np.ndarray((rows, cols), self.dtype, buf, strides=(isz * ld.value, isz))
            res.append((r0, c0, arr))
        return res

    def destroy(self):
        """Free the layout (destroy plans on it first). Local; also done when it is collected."""
        if self._h is not None and self._h.value:
            lib.dmx_layout_destroy(ctypes.byref(self._h))
        self._h = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()


# ---- transforms and plans ---------------------------------------------------------------------

def _pair_dtype(a, b):
    if a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
        raise Error(ERR_ARG, "A has dtype %s but B %s" % (a.dtype, b.dtype))
    dt = a.dtype if a.dtype is not None else b.dtype
    if dt is None:
        raise Error(ERR_ARG, "neither A nor B has memory, so no element type")
    return dt


def _transform(a, b, op, alpha, beta, uplo=None, diag=None):
    for x, name in ((a, "A"), (b, "B")):
        if not isinstance(x, Layout):
            raise Error(ERR_ARG, "%s must be a dmx.Layout, not %s" % (name, type(x).__name__))
    o = _op(op)
    want = b.shape if o == 0 else b.shape[::-1]
    if tuple(a.shape) != tuple(want):
        raise Error(ERR_LAYOUT, "A is %d x %d but op(B) is %d x %d" % (a.shape + tuple(want)))
    dt = _pair_dtype(a, b)
    return Transform(_DTYPES[dt], o, _scalar(alpha), _scalar(beta), b._h, a._h,
                     (uplo or "\0").encode(), (diag or "\0").encode())


def transform(a, b, op="N", alpha=1, beta=0):
    """A = alpha op(B) + beta A once (plan, execute, free). Collective."""
    # The checks of _transform, in the order that costs least for the common case: this call
    # is the one a user makes per small matrix (docs/python.md gives its overhead).
    o = _OPS.get(op) if type(op) is str else None
    if type(a) is not Layout or type(b) is not Layout or o is None:
        t = _transform(a, b, op, alpha, beta)  # subclasses, or the errors with their messages
        _check(lib.dmx_transform_once(t.dtype, t.op, t.alpha, t.b, t.beta, t.a))
        return
    ash, bsh = a.shape, b.shape
    if (ash != bsh) if o == 0 else (ash[0] != bsh[1] or ash[1] != bsh[0]):
        _transform(a, b, op, alpha, beta)  # raises with the message
    dt = a._code
    if dt is None or dt != b._code:
        dt = _DTYPES[_pair_dtype(a, b)]
    st = lib.dmx_transform_once(dt, o, _scalar(alpha), b._h, _scalar(beta), a._h)
    if st:
        _check(st)


class Plan:
    """A plan of one or more transforms, executed as often as needed. Plan(a, b, op, alpha,
    beta) for one; Plan([(a, b), (a2, b2, 'T', 2.0), ...]) for a batch (one message per peer).
    Use it as a context manager, or call close() on every rank (collective)."""

    def __init__(self, a, b=None, op="N", alpha=1, beta=0):
        batch = a if b is None else [(a, b, op, alpha, beta)]
        ts = (Transform * len(batch))()
        for k, item in enumerate(batch):
            ts[k] = _transform(*item)
        self._layouts = [x for item in batch for x in item[:2]]
        self._h = ctypes.c_void_p()
        _check(lib.dmx_plan_create(len(batch), ts, ctypes.byref(self._h)))

    def execute(self):
        """Run every transform once. Collective."""
        st = lib.dmx_plan_execute(self._h)
        if st:
            _check(st)

    def set_scalars(self, alpha, beta, k=0):
        """alpha and beta of transform k for later executions. Local (set alike on all ranks)."""
        _check(lib.dmx_plan_set_scalars(self._h, k, _scalar(alpha), _scalar(beta)))

    def close(self):
        """Free the plan. Collective."""
        if self._h is not None and self._h.value and not MPI.Is_finalized():
            lib.dmx_plan_destroy(ctypes.byref(self._h))
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _gemm_args(c, a, b, transa, transb):
    ta, tb = _op(transa), _op(transb)
    am, ak = a.shape if ta == 0 else a.shape[::-1]
    bk, bn = b.shape if tb == 0 else b.shape[::-1]
    if ak != bk or tuple(c.shape) != (am, bn):
        raise Error(ERR_LAYOUT, "op(A) is %d x %d, op(B) %d x %d, C %d x %d" % (
            am, ak, bk, bn, c.shape[0], c.shape[1]))
    dt = _pair_dtype(c, a)
    _pair_dtype(c, b)
    _pair_dtype(a, b)
    return _DTYPES[dt], ta, tb


def gemm(c, a, b, transa="N", transb="N", alpha=1, beta=0, comm=None):
    """C = alpha op(A) op(B) + beta C on any layouts. Collective on comm (default: C's)."""
    dt, ta, tb = _gemm_args(c, a, b, transa, transb)
    _check(lib.dmx_gemm(_lib.comm_handle(comm or c.comm), dt, ta, tb, _scalar(alpha),
                        a._h, b._h, _scalar(beta), c._h, None))


class GemmPlan:
    """C = alpha op(A) op(B) + beta C planned once (dmx_gemm_plan_create, default options) and
    executed with execute(), as often as needed. A context manager; close() is collective."""

    def __init__(self, c, a, b, transa="N", transb="N", alpha=1, beta=0, comm=None):
        dt, ta, tb = _gemm_args(c, a, b, transa, transb)
        self._layouts = [c, a, b]
        self._h = ctypes.c_void_p()
        _check(lib.dmx_gemm_plan_create(_lib.comm_handle(comm or c.comm), dt, ta, tb,
                                        _scalar(alpha), a._h, b._h, _scalar(beta), c._h, None,
                                        ctypes.byref(self._h)))

    def execute(self):
        """Run the multiply once with the layouts' current memory. Collective."""
        _check(lib.dmx_gemm_plan_execute(self._h))

    def close(self):
        """Free the plan. Collective."""
        if self._h is not None and self._h.value and not MPI.Is_finalized():
            lib.dmx_gemm_plan_destroy(ctypes.byref(self._h))
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def relabel(target, b, op="N", alpha=1):
    """Move B into a layout like target (a description, memory not used) on the relabeled
    communicator that moves the least data. Returns (sigma, newcomm, layout, plan): sigma[j] the
    old rank playing role j, newcomm the relabeled communicator (mpi4py; free it), layout the
    target on newcomm with memory dmx allocated (layout.local_blocks()), plan the move (execute
    it). Collective."""
    t = (Transform * 1)(_transform(target, b, op, alpha, 0))
    size = b.comm.Get_size()
    sigma = (ctypes.c_int * size)()
    newcomm = MPI.Intracomm()
    out = ctypes.c_void_p()
    plan = Plan.__new__(Plan)
    plan._h = ctypes.c_void_p()
    _check(lib.dmx_plan_create_relabeled(1, t, None, sigma, MPI._addressof(newcomm),
                                         ctypes.byref(out), ctypes.byref(plan._h), None))
    layout = Layout(out, newcomm, target.shape, _NP[t[0].dtype], [])
    plan._layouts = [b, layout]
    return list(sigma), newcomm, layout, plan


# ---- the collectives, the sparse exchange and one-sided patches ---------------------------------

from ._coll import (IN_PLACE, ALGORITHMS, bcast, scatter, gather, allgather, reduce,  # noqa: E402
                    allreduce, reduce_scatter, alltoall, scan, exscan, shift)
from ._exchange import exchange, Patch  # noqa: E402

__all__ += ["IN_PLACE", "ALGORITHMS", "bcast", "scatter", "gather", "allgather", "reduce",
            "allreduce", "reduce_scatter", "alltoall", "scan", "exscan", "shift", "exchange",
            "Patch"]
