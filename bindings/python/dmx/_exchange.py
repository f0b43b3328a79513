# SPDX-License-Identifier: BSD-3-Clause
"""The sparse data exchange (include/dmx/exchange.h) and one-sided patches of a layout
(dmx_patch_*, include/dmx/rma.h) on NumPy arrays: dmx.exchange and dmx.Patch."""

import ctypes

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import lib

_i64, _ci, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_void_p
_pvp, _pi64 = ctypes.POINTER(_vp), ctypes.POINTER(_i64)


class _Send(ctypes.Structure):
    _fields_ = [("dest", _ci), ("data", _vp), ("bytes", _i64)]


_protos = {
    "dmx_exchange": (_ci, [_lib.comm_t, _ci, _i64, ctypes.POINTER(_Send), _pvp]),
    "dmx_exchange_result_get_count": (_ci, [_vp, _pi64]),
    "dmx_exchange_result_get": (_ci, [_vp, _i64, ctypes.POINTER(_ci), _pvp, _pi64]),
    "dmx_exchange_result_destroy": (_ci, [_pvp]),
    "dmx_exchange_protocol_from_name": (_ci, [ctypes.c_char_p, ctypes.POINTER(_ci)]),
    "dmx_patch_open": (_ci, [_vp, _ci, _pvp]),
    "dmx_patch_get": (_ci, [_vp, _i64, _i64, _i64, _i64, _vp, _i64, _ci]),
    "dmx_patch_put": (_ci, [_vp, _i64, _i64, _i64, _i64, _vp, _i64, _ci]),
    "dmx_patch_acc": (_ci, [_vp, _i64, _i64, _i64, _i64, _vp, _i64, _ci]),
    "dmx_patch_quiet": (_ci, [_vp]),
    "dmx_patch_barrier": (_ci, [_vp]),
    "dmx_patch_close": (_ci, [_pvp]),
}
for _name, (_res, _args) in _protos.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args


def exchange(sends, comm=None, protocol="auto", dtype=np.uint8):
    """Sparse data exchange: sends is this rank's list of (dest, array), each array contiguous
    (any dtype, sent as its bytes); several entries may name one destination, and this rank.
    Returns the received [(source, array)], ordered by source and, within one source, as it
    listed them; each array a new 1-D array of dtype (its bytes reinterpreted; uint8 by
    default). protocol: "auto", "nbx", "pex", "pcx" or "rsx", the same on every rank.
    Collective on comm (default MPI.COMM_WORLD)."""
    from . import Error, ERR_ARG, _check, _local_failure
    comm = MPI.COMM_WORLD if comm is None else comm
    proto = _ci(-1)
    why = None
    if not isinstance(protocol, str) or lib.dmx_exchange_protocol_from_name(
            protocol.encode(), ctypes.byref(proto)):
        why = "protocol %r is not auto, nbx, pex, pcx or rsx" % (protocol,)
    dtype = np.dtype(dtype)
    entries = (_Send * max(1, len(sends)))()
    keep = []
    for k, item in enumerate(sends):
        try:
            dest, arr = item
        except (TypeError, ValueError):
            why = why or "send %d is not a (dest, array) pair" % k
            continue
        if not isinstance(arr, np.ndarray) or not (arr.flags.c_contiguous
                                                   or arr.flags.f_contiguous):
            why = why or "send %d's payload is not a contiguous NumPy array" % k
            continue
        if not isinstance(dest, (int, np.integer)):
            why = why or "send %d's destination %r is not a rank" % (k, dest)
            continue
        entries[k] = _Send(int(dest), arr.ctypes.data if arr.nbytes else None, arr.nbytes)
        keep.append(arr)
    n = len(sends)
    if why is not None:
        _local_failure(why)
        entries[0] = _Send(0, None, -1)  # dmx fails every rank alike on a negative size
        n = max(n, 1)
    res = _vp()
    st = lib.dmx_exchange(_lib.comm_handle(comm), max(proto.value, 0), n, entries,
                          ctypes.byref(res))
    if why is not None:
        lib.dmx_exchange_result_destroy(ctypes.byref(res))
        raise Error(st or ERR_ARG, why)
    _check(st)
    try:
        count = _i64()
        _check(lib.dmx_exchange_result_get_count(res, ctypes.byref(count)))
        out = []
        src, data, nbytes = _ci(), _vp(), _i64()
        for i in range(count.value):
            _check(lib.dmx_exchange_result_get(res, i, ctypes.byref(src), ctypes.byref(data),
                                               ctypes.byref(nbytes)))
            if nbytes.value % dtype.itemsize:
                raise Error(ERR_ARG, "a payload of %d bytes from rank %d is not a whole number "
                            "of %s" % (nbytes.value, src.value, dtype))
            a = np.empty(nbytes.value // dtype.itemsize, dtype)
            if nbytes.value:
                ctypes.memmove(a.ctypes.data, data.value, nbytes.value)
            out.append((src.value, a))
        return out
    finally:
        lib.dmx_exchange_result_destroy(ctypes.byref(res))


class Patch:
    """A layout's local blocks opened for one-sided access (dmx_patch_open): any rank gets,
    puts or adds any submatrix without the owners taking part. Collective to open and close;
    a context manager. get/put/acc are local; the owners see puts and adds after barrier()."""

    def __init__(self, layout):
        from . import Error, ERR_ARG, _check
        if layout.dtype is None:
            raise Error(ERR_ARG, "the layout has no element type (no memory)")
        self.layout = layout
        self.dtype = layout.dtype
        self._h = _vp()
        _check(lib.dmx_patch_open(layout._h, layout._code, ctypes.byref(self._h)))

    def _buf(self, a, what, write):
        """(pointer, ld, op) of array a: Fortran order as op N, C order as op T."""
        from . import Error, ERR_ARG
        if not isinstance(a, np.ndarray) or a.ndim != 2 or a.dtype != self.dtype:
            raise Error(ERR_ARG, "%s must be a 2-D NumPy array of %s" % (what, self.dtype))
        if write and not a.flags.writeable:
            raise Error(ERR_ARG, "%s is read-only" % what)
        if a.flags.f_contiguous:
            return a.ctypes.data, max(1, a.shape[0]), 0
        if a.flags.c_contiguous:
            return a.ctypes.data, max(1, a.shape[1]), 1
        raise Error(ERR_ARG, "%s is neither C- nor Fortran-contiguous" % what)

    def get(self, i0, j0, shape=None, out=None):
        """The shape[0] x shape[1] submatrix at global (i0, j0) (0-based), into out (C- or
        Fortran-ordered) or a new Fortran-ordered array. Local."""
        from . import _check
        if out is None:
            out = np.empty(shape, self.dtype, order="F")
        p, ld, op = self._buf(out, "out", True)
        _check(lib.dmx_patch_get(self._h, i0, j0, out.shape[0], out.shape[1], p, ld, op))
        return out

    def put(self, i0, j0, a):
        """Write a into the submatrix at (i0, j0). Local; complete after quiet()/barrier()."""
        from . import _check
        p, ld, op = self._buf(a, "a", False)
        _check(lib.dmx_patch_put(self._h, i0, j0, a.shape[0], a.shape[1], p, ld, op))

    def acc(self, i0, j0, a):
        """Add a into the submatrix at (i0, j0), atomically per element. Local."""
        from . import _check
        p, ld, op = self._buf(a, "a", False)
        _check(lib.dmx_patch_acc(self._h, i0, j0, a.shape[0], a.shape[1], p, ld, op))

    def quiet(self):
        """Complete this rank's puts and adds at their owners. Local."""
        from . import _check
        _check(lib.dmx_patch_quiet(self._h))

    def barrier(self):
        """Quiet on every rank, then a barrier. Collective."""
        from . import _check
        _check(lib.dmx_patch_barrier(self._h))

    def close(self):
        """Close the window. Collective."""
        if self._h is not None and self._h.value and not MPI.Is_finalized():
            lib.dmx_patch_close(ctypes.byref(self._h))
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
