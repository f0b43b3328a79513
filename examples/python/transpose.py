# SPDX-License-Identifier: BSD-3-Clause
"""Transpose a complex matrix between two block-cyclic layouts, conjugated and scaled:
A = 2 conj(B)^T, in one call; check every element.

    mpirun -n 4 python3 examples/python/transpose.py
"""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
m, n = 300, 200
grid = (1, size)  # one process row, every rank a column of blocks


def indices(count, block, p, np_):
    return np.array([i for i in range(count) if (i // block) % np_ == p])


b = np.zeros(dmx.local_shape(comm, (m, n), (16, 16), grid), np.complex128, order="F")
rows, cols = indices(m, 16, 0, 1), indices(n, 16, rank, size)
b[...] = rows[:, None] + 1j * cols[None, :]
a = np.zeros(dmx.local_shape(comm, (n, m), (10, 30), grid), np.complex128, order="F")
B = dmx.Layout.block_cyclic(comm, (m, n), (16, 16), grid, b)
A = dmx.Layout.block_cyclic(comm, (n, m), (10, 30), grid, a)
dmx.transform(A, B, op="C", alpha=2)

ra, ca = indices(n, 10, 0, 1), indices(m, 30, rank, size)
want = 2 * (ca[None, :] - 1j * ra[:, None])
bad = comm.allreduce(int(np.count_nonzero(a != want)))
if rank == 0:
    print("transpose %d x %d -> %d x %d (op C, alpha 2): %d wrong elements" % (m, n, n, m, bad))
sys.exit(1 if bad else 0)
