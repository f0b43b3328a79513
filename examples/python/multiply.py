# SPDX-License-Identifier: BSD-3-Clause
"""Multiply C = A B with dmx.gemm, A in a block-cyclic layout, B in a custom layout of two
column panels, C block-cyclic; check every element against the formula's sums.

    mpirun -n 4 python3 examples/python/multiply.py
"""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
m, k, n = 120, 90, 70
prow = max(p for p in range(1, size + 1) if size % p == 0 and p * p <= size)
grid = (prow, size // prow)


def bc_indices(shape, block):
    pr, pc = rank // grid[1], rank % grid[1]
    return (np.array([i for i in range(shape[0]) if (i // block[0]) % grid[0] == pr]),
            np.array([j for j in range(shape[1]) if (j // block[1]) % grid[1] == pc]))


fa = lambda i, l: (i + 2 * l) % 7 - 3.0  # noqa: E731  (small integers: exact products)
fb = lambda l, j: (3 * l + j) % 5 - 2.0  # noqa: E731

ra, ca = bc_indices((m, k), (8, 8))
a = np.asfortranarray(fa(ra[:, None], ca[None, :]))
A = dmx.Layout.block_cyclic(comm, (m, k), (8, 8), grid, a)

# B: k x n as two column panels [0, 40) and [40, n), panel j on rank j % size, C-ordered.
split = [0, 40, n]
blocks = {}
for j in range(2):
    if j % size == rank:
        cols = np.arange(split[j], split[j + 1])
        blocks[(0, j)] = np.ascontiguousarray(fb(np.arange(k)[:, None], cols[None, :]))
B = dmx.Layout.custom(comm, (k, n), [0, k], split, [[0, 1 % size]], blocks)

rc, cc = bc_indices((m, n), (16, 16))
c = np.zeros((len(rc), len(cc)), order="F")
C = dmx.Layout.block_cyclic(comm, (m, n), (16, 16), grid, c)
dmx.gemm(C, A, B)

lk = np.arange(k)
want = (fa(rc[:, None, None], lk[None, None, :]) * fb(lk[None, None, :], cc[None, :, None])).sum(2)
bad = comm.allreduce(int(np.count_nonzero(c != want)))
if rank == 0:
    print("multiply %d x %d x %d (block-cyclic A, custom B): %d wrong elements" % (m, k, n, bad))
sys.exit(1 if bad else 0)
