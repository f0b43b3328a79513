# SPDX-License-Identifier: BSD-3-Clause
"""Relabel: move a block-cyclic matrix into a layout with another grid order on the ranks that
keep the most of it in place. dmx returns the relabeled communicator and the target's memory;
check every element there.

    mpirun -n 4 python3 examples/python/relabel.py
"""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
m, n = 200, 160
prow = max(p for p in range(1, size + 1) if size % p == 0 and p * p <= size)
grid = (prow, size // prow)

pr, pc = rank // grid[1], rank % grid[1]
rows = np.array([i for i in range(m) if (i // 10) % grid[0] == pr])
cols = np.array([j for j in range(n) if (j // 10) % grid[1] == pc])
b = np.asfortranarray(rows[:, None] * 1000.0 + cols[None, :])
B = dmx.Layout.block_cyclic(comm, (m, n), (10, 10), grid, b)
# The target: a description only (no memory), grid in column-major rank order.
T = dmx.Layout.block_cyclic(comm, (m, n), (10, 10), grid, None, order="C")

sigma, newcomm, R, plan = dmx.relabel(T, B)
with plan:
    plan.execute()
bad = 0
for r0, c0, x in R.local_blocks():
    want = np.arange(r0, r0 + x.shape[0])[:, None] * 1000.0 + np.arange(c0, c0 + x.shape[1])
    bad += int(np.count_nonzero(x != want))
bad = comm.allreduce(bad)
if rank == 0:
    print("relabel %d x %d: sigma = %s, %d wrong elements" % (m, n, sigma, bad))
R.destroy()
newcomm.Free()
sys.exit(1 if bad else 0)
