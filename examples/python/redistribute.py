# SPDX-License-Identifier: BSD-3-Clause
"""Redistribute an m x n matrix of doubles from 32 x 32 blocks to 128 x 128 blocks on a 2-D
grid (the C benchmark's default case, smaller), check every element, and time the plan.

    mpirun -n 4 python3 examples/python/redistribute.py [m] [reps]
"""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
m = n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
prow = max(p for p in range(1, size + 1) if size % p == 0 and p * p <= size)
grid = (prow, size // prow)


def global_indices(shape, block):
    """This rank's global rows and columns of a block-cyclic layout on grid ('R' order)."""
    pr, pc = rank // grid[1], rank % grid[1]
    rows = np.array([i for i in range(shape[0]) if (i // block[0]) % grid[0] == pr])
    cols = np.array([j for j in range(shape[1]) if (j // block[1]) % grid[1] == pc])
    return rows, cols


def value(i, j):
    return i * 1e4 + j


# B: 32 x 32 blocks, filled by the formula; A: 128 x 128 blocks, to be filled by dmx.
b = np.zeros(dmx.local_shape(comm, (m, n), (32, 32), grid), order="F")
a = np.full(dmx.local_shape(comm, (m, n), (128, 128), grid), np.nan, order="F")
rb, cb = global_indices((m, n), (32, 32))
b[...] = value(rb[:, None], cb[None, :])
B = dmx.Layout.block_cyclic(comm, (m, n), (32, 32), grid, b)
A = dmx.Layout.block_cyclic(comm, (m, n), (128, 128), grid, a)

with dmx.Plan(A, B) as plan:
    plan.execute()  # warm-up
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = MPI.Wtime()
        plan.execute()
        times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))

ra, ca = global_indices((m, n), (128, 128))
bad = comm.allreduce(int(np.count_nonzero(a != value(ra[:, None], ca[None, :]))))
if rank == 0:
    print("redistribute %d x %d, 32 -> 128 blocks, %d x %d grid: %d wrong elements, "
          "median %.3g s per execution" % (m, n, grid[0], grid[1], bad, np.median(times)))
sys.exit(1 if bad else 0)
