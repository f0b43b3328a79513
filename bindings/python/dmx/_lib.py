# SPDX-License-Identifier: BSD-3-Clause
"""Loading libdmx and declaring the C functions the package calls (ctypes)."""

import ctypes
import ctypes.util
import os

from mpi4py import MPI


def _library_path():
    """DMX_LIBRARY if set, else the library this package was built or installed with, else the
    system's search path."""
    env = os.environ.get("DMX_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _paths

        path = _paths.LIBRARY
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(here, path))
        if os.path.exists(path):
            return path
    except ImportError:
        pass
    found = ctypes.util.find_library("dmx")
    if not found:
        raise ImportError("dmx: libdmx.so not found (set DMX_LIBRARY to its path)")
    return found


# The package raises errors instead of ending the job (errors_return): its collectives then
# agree on every failure so that a bad argument on one rank fails every rank (docs/python.md).
# An explicit DMX_COLL_CHECK wins.
os.environ.setdefault("DMX_COLL_CHECK", "agree")

lib = ctypes.CDLL(_library_path(), mode=ctypes.RTLD_GLOBAL)

# MPI_Comm is a pointer in Open MPI and an int in MPICH: take mpi4py's word for its size.
if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p):
    comm_t = ctypes.c_void_p
else:
    comm_t = ctypes.c_int

i64 = ctypes.c_int64
c_int = ctypes.c_int
vp = ctypes.c_void_p
pvp = ctypes.POINTER(ctypes.c_void_p)


class Scalar(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


class Transform(ctypes.Structure):
    _fields_ = [("dtype", c_int), ("op", c_int), ("alpha", Scalar), ("beta", Scalar),
                ("b", vp), ("a", vp), ("uplo", ctypes.c_char), ("diag", ctypes.c_char)]


class Block(ctypes.Structure):
    _fields_ = [("brow", i64), ("bcol", i64), ("data", vp), ("ld", i64), ("order", c_int)]


class LocalBlock(ctypes.Structure):
    _fields_ = [("row0", i64), ("col0", i64), ("rows", i64), ("cols", i64), ("data", vp),
                ("ld", i64), ("order", c_int)]


HANDLER = ctypes.CFUNCTYPE(None, c_int, ctypes.c_char_p)

_protos = {
    "dmx_status_string": (ctypes.c_char_p, [c_int]),
    "dmx_last_error": (ctypes.c_char_p, []),
    "dmx_version": (ctypes.c_char_p, [ctypes.POINTER(c_int)] * 3),
    "dmx_set_error_handler": (vp, [HANDLER]),
    "dmx_layout_create_block_cyclic": (c_int, [comm_t, i64, i64, i64, i64, c_int, c_int,
                                               ctypes.c_char, c_int, c_int, vp, i64, pvp]),
    "dmx_layout_create_custom": (c_int, [comm_t, i64, i64, i64, ctypes.POINTER(i64), i64,
                                         ctypes.POINTER(i64), ctypes.POINTER(c_int), i64,
                                         ctypes.POINTER(Block), pvp]),
    "dmx_layout_create_local": (c_int, [comm_t, i64, i64, i64, ctypes.POINTER(LocalBlock), pvp]),
    "dmx_gemm_plan_create": (c_int, [comm_t, c_int, c_int, c_int, Scalar, vp, vp, Scalar, vp, vp,
                                     pvp]),
    "dmx_gemm_plan_execute": (c_int, [vp]),
    "dmx_gemm_plan_destroy": (c_int, [pvp]),
    "dmx_layout_create_view": (c_int, [vp, i64, i64, i64, i64, pvp]),
    "dmx_layout_destroy": (c_int, [pvp]),
    "dmx_layout_get_num_local_blocks": (c_int, [vp, ctypes.POINTER(i64)]),
    "dmx_layout_get_local_block": (c_int, [vp, i64, c_int] + [ctypes.POINTER(i64)] * 4
                                   + [pvp, ctypes.POINTER(i64), ctypes.POINTER(c_int)]),
    "dmx_plan_create": (c_int, [c_int, ctypes.POINTER(Transform), pvp]),
    "dmx_plan_execute": (c_int, [vp]),
    "dmx_plan_set_scalars": (c_int, [vp, c_int, Scalar, Scalar]),
    "dmx_plan_destroy": (c_int, [pvp]),
    "dmx_transform_once": (c_int, [c_int, c_int, Scalar, vp, Scalar, vp]),
    "dmx_gemm": (c_int, [comm_t, c_int, c_int, c_int, Scalar, vp, vp, Scalar, vp, vp]),
    "dmx_plan_create_relabeled": (c_int, [c_int, ctypes.POINTER(Transform), vp,
                                          ctypes.POINTER(c_int), vp, pvp, pvp, vp]),
}
for _name, (_res, _args) in _protos.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def comm_handle(comm):
    """The C handle of an mpi4py communicator."""
    if not isinstance(comm, MPI.Comm):
        raise TypeError("dmx: comm must be an mpi4py communicator, not %s" % type(comm).__name__)
    return comm_t(MPI._handleof(comm))
