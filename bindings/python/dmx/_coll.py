# SPDX-License-Identifier: BSD-3-Clause
"""The collectives of dmx (include/dmx/coll.h) on NumPy arrays: dmx.bcast, dmx.allreduce, ...

Arguments follow the C calls (MPI's order) without count and datatype, which come from the
arrays; the communicator (default MPI.COMM_WORLD) and the algorithm ("auto", "mpi", "ring",
... as dmx_coll_alg_name prints them) come last. sendbuf may be dmx.IN_PLACE where MPI allows
MPI_IN_PLACE. Buffers are contiguous NumPy arrays (C or Fortran order) of float32, float64,
complex64, complex128, int32 or int64; a receive buffer must be writable.
"""

import ctypes

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import lib

IN_PLACE = MPI.IN_PLACE

_MPITYPES = {np.dtype(np.float32): MPI.FLOAT, np.dtype(np.float64): MPI.DOUBLE,
             np.dtype(np.complex64): MPI.C_FLOAT_COMPLEX,
             np.dtype(np.complex128): MPI.C_DOUBLE_COMPLEX,
             np.dtype(np.int32): MPI.INT32_T, np.dtype(np.int64): MPI.INT64_T}
_MPIOPS = {"sum": MPI.SUM, "prod": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN}

# MPI_IN_PLACE's value in C: (void *) 1 in Open MPI, (void *) -1 in MPICH and its relatives.
_IN_PLACE_C = 1 if MPI.get_vendor()[0] == "Open MPI" else -1

if MPI._sizeof(MPI.Datatype) == ctypes.sizeof(ctypes.c_void_p):
    _type_t = ctypes.c_void_p
else:
    _type_t = ctypes.c_int
if MPI._sizeof(MPI.Op) == ctypes.sizeof(ctypes.c_void_p):
    _op_t = ctypes.c_void_p
else:
    _op_t = ctypes.c_int

_i64, _ci, _vp, _ct = ctypes.c_int64, ctypes.c_int, ctypes.c_void_p, _lib.comm_t
_protos = {
    "bcast": [_vp, _i64, _type_t, _ci, _ct, _ci],
    "scatter": [_vp, _vp, _i64, _type_t, _ci, _ct, _ci],
    "gather": [_vp, _vp, _i64, _type_t, _ci, _ct, _ci],
    "allgather": [_vp, _vp, _i64, _type_t, _ct, _ci],
    "reduce": [_vp, _vp, _i64, _type_t, _op_t, _ci, _ct, _ci],
    "allreduce": [_vp, _vp, _i64, _type_t, _op_t, _ct, _ci],
    "reduce_scatter": [_vp, _vp, _i64, _type_t, _op_t, _ct, _ci],
    "alltoall": [_vp, _vp, _i64, _type_t, _ct, _ci],
    "scan": [_vp, _vp, _i64, _type_t, _op_t, _ct, _ci],
    "exscan": [_vp, _vp, _i64, _type_t, _op_t, _ct, _ci],
    "shift": [_vp, _vp, _i64, _type_t, _i64, _ct, _ci],
}
_C = {}
for _name, _args in _protos.items():
    _f = getattr(lib, "dmx_coll_" + _name)
    _f.restype, _f.argtypes = _ci, _args
    _C[_name] = _f
lib.dmx_coll_alg_from_name.restype = _ci
lib.dmx_coll_alg_from_name.argtypes = [ctypes.c_char_p, ctypes.POINTER(_ci)]

ALGORITHMS = ("auto", "mpi", "flat", "ring", "pipeline", "binomial", "scatter_ag", "grid",
              "recdbl", "bruck", "rs_gather", "halving", "pairwise", "hypercube")


class _Call:
    """One collective call being prepared: the first reason this rank cannot make it (a
    message), and the pieces of the C call."""

    def __init__(self, comm, alg):
        self.why = None
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.dtype = None
        code = _ci(-1)
        if not isinstance(alg, str) or lib.dmx_coll_alg_from_name(alg.encode(),
                                                                  ctypes.byref(code)):
            self.fail("alg %r is not one of %s" % (alg, ", ".join(ALGORITHMS)))
        self.alg = code.value

    def fail(self, why):
        if self.why is None:
            self.why = why

    def buf(self, a, what, write=False, optional=False):
        """The C address of array a (0 for None where allowed, MPI_IN_PLACE for IN_PLACE)."""
        if a is IN_PLACE:
            return _IN_PLACE_C
        if a is None and optional:
            return None
        if not isinstance(a, np.ndarray):
            self.fail("%s must be a NumPy array, not %s" % (what, type(a).__name__))
            return None
        if a.dtype not in _MPITYPES:
            self.fail("%s has dtype %s; dmx's collectives take %s" % (
                what, a.dtype, ", ".join(str(d) for d in _MPITYPES)))
            return None
        if self.dtype is not None and a.dtype != self.dtype:
            self.fail("%s has dtype %s, the other buffer %s" % (what, a.dtype, self.dtype))
            return None
        self.dtype = a.dtype
        if not (a.flags.c_contiguous or a.flags.f_contiguous):
            self.fail("%s is not contiguous" % what)
        elif write and not a.flags.writeable:
            self.fail("%s is read-only" % what)
        return a.ctypes.data if a.size else None

    def need(self, a, what, count):
        """Check that array a (not IN_PLACE or None) holds at least count elements."""
        if isinstance(a, np.ndarray) and a.size < count:
            self.fail("%s has %d elements; this call needs %d" % (what, a.size, count))

    def op(self, op):
        o = _MPIOPS.get(op) if isinstance(op, str) else op
        if not isinstance(o, MPI.Op):
            self.fail("op %r is not an mpi4py MPI.Op or one of %s" % (op, ", ".join(_MPIOPS)))
            return _op_t(MPI._handleof(MPI.OP_NULL))
        return _op_t(MPI._handleof(o))

    def run(self, name, *args):
        """The C call; a count poisoned to -1 on a rank that failed a check here, so that
        every rank fails alike (the package runs the collectives with DMX_COLL_CHECK=agree)."""
        from . import Error, ERR_ARG, _check, _local_failure
        dt = _MPITYPES.get(self.dtype, MPI.BYTE)
        args = list(args)
        if self.why is not None:
            _local_failure(self.why)
            args[[i for i, a in enumerate(args) if a is _COUNT][0]] = -1
        args = [self.count if a is _COUNT else _type_t(MPI._handleof(dt)) if a is _TYPE else a
                for a in args]
        st = _C[name](*args, _lib.comm_handle(self.comm), self.alg)
        if self.why is not None:
            raise Error(st or ERR_ARG, self.why)
        _check(st)


_COUNT, _TYPE = object(), object()


def bcast(buf, root=0, comm=None, alg="auto"):
    """root's buf to every rank's buf (the same size everywhere). Collective."""
    c = _Call(comm, alg)
    p = c.buf(buf, "buf", write=True)
    c.count = buf.size if isinstance(buf, np.ndarray) else 0
    c.run("bcast", p, _COUNT, _TYPE, root)


def scatter(sendbuf, recvbuf, root=0, comm=None, alg="auto"):
    """Block i (recvbuf.size elements) of root's sendbuf to rank i's recvbuf; sendbuf matters at
    root only (None elsewhere); recvbuf may be IN_PLACE at root. Collective."""
    c = _Call(comm, alg)
    me, p = c.comm.Get_rank(), c.comm.Get_size()
    r = c.buf(recvbuf, "recvbuf", write=True)
    s = c.buf(sendbuf, "sendbuf", optional=me != root)
    c.count = (sendbuf.size // p if recvbuf is IN_PLACE and isinstance(sendbuf, np.ndarray)
               else getattr(recvbuf, "size", 0))
    if me == root:
        c.need(sendbuf, "sendbuf", p * c.count)
    c.run("scatter", s, r, _COUNT, _TYPE, root)


def gather(sendbuf, recvbuf, root=0, comm=None, alg="auto"):
    """Rank i's sendbuf to block i of root's recvbuf (None elsewhere); sendbuf may be IN_PLACE
    at root. Collective."""
    c = _Call(comm, alg)
    me, p = c.comm.Get_rank(), c.comm.Get_size()
    s = c.buf(sendbuf, "sendbuf")
    r = c.buf(recvbuf, "recvbuf", write=True, optional=me != root)
    c.count = (recvbuf.size // p if sendbuf is IN_PLACE and isinstance(recvbuf, np.ndarray)
               else getattr(sendbuf, "size", 0))
    if me == root:
        c.need(recvbuf, "recvbuf", p * c.count)
    c.run("gather", s, r, _COUNT, _TYPE, root)


def _two(name, sendbuf, recvbuf, comm, alg, per_rank_send, per_rank_recv, extra=()):
    """The calls of two buffers on every rank: count from sendbuf (per block when it holds one
    per rank), or from recvbuf with IN_PLACE."""
    c = _Call(comm, alg)
    p = c.comm.Get_size()
    s = c.buf(sendbuf, "sendbuf")
    r = c.buf(recvbuf, "recvbuf", write=True)
    if sendbuf is IN_PLACE:
        c.count = getattr(recvbuf, "size", 0) // (p if per_rank_recv else 1)
    else:
        c.count = getattr(sendbuf, "size", 0) // (p if per_rank_send else 1)
        c.need(recvbuf, "recvbuf", c.count * (p if per_rank_recv else 1))
    if sendbuf is not IN_PLACE and per_rank_send:
        c.need(sendbuf, "sendbuf", c.count * p)
    c.run(name, s, r, _COUNT, _TYPE, *[c.op(x) if i == 0 and name not in ("shift",) else x
                                        for i, x in enumerate(extra)])


def allgather(sendbuf, recvbuf, comm=None, alg="auto"):
    """Every rank's sendbuf to block i of every rank's recvbuf (IN_PLACE: own block already in
    recvbuf). Collective."""
    _two("allgather", sendbuf, recvbuf, comm, alg, False, True)


def alltoall(sendbuf, recvbuf, comm=None, alg="auto"):
    """Block j of rank i's sendbuf to block i of rank j's recvbuf. Collective."""
    _two("alltoall", sendbuf, recvbuf, comm, alg, True, True)


def allreduce(sendbuf, recvbuf, op="sum", comm=None, alg="auto"):
    """Element-wise reduction (op "sum", "prod", "max", "min" or an MPI.Op) to every rank.
    Collective."""
    _two("allreduce", sendbuf, recvbuf, comm, alg, False, False, (op,))


def reduce_scatter(sendbuf, recvbuf, op="sum", comm=None, alg="auto"):
    """Reduce p blocks; block i of the result to rank i (MPI_Reduce_scatter_block). IN_PLACE:
    the input in recvbuf (p blocks). Collective."""
    _two("reduce_scatter", sendbuf, recvbuf, comm, alg, True, sendbuf is IN_PLACE, (op,))


def scan(sendbuf, recvbuf, op="sum", comm=None, alg="auto"):
    """Inclusive prefix reduction over ranks 0..i. Collective."""
    _two("scan", sendbuf, recvbuf, comm, alg, False, False, (op,))


def exscan(sendbuf, recvbuf, op="sum", comm=None, alg="auto"):
    """Exclusive prefix reduction over ranks 0..i-1 (rank 0's recvbuf unchanged). Collective."""
    _two("exscan", sendbuf, recvbuf, comm, alg, False, False, (op,))


def shift(sendbuf, recvbuf, k=1, comm=None, alg="auto"):
    """Rank i's sendbuf to rank (i + k) mod p's recvbuf. Collective."""
    _two("shift", sendbuf, recvbuf, comm, alg, False, False, (k,))


def reduce(sendbuf, recvbuf, op="sum", root=0, comm=None, alg="auto"):
    """Element-wise reduction to root's recvbuf (None elsewhere; sendbuf IN_PLACE at root: the
    input in recvbuf). Collective."""
    c = _Call(comm, alg)
    me = c.comm.Get_rank()
    s = c.buf(sendbuf, "sendbuf")
    r = c.buf(recvbuf, "recvbuf", write=True, optional=me != root)
    c.count = getattr(recvbuf if sendbuf is IN_PLACE else sendbuf, "size", 0)
    if me == root:
        c.need(recvbuf, "recvbuf", c.count)
    c.run("reduce", s, r, _COUNT, _TYPE, c.op(op), root)
