# SPDX-License-Identifier: BSD-3-Clause
"""dmx's collectives, sparse exchange and one-sided patches from Python at 1-4 ranks, for
float32, float64, complex64 and complex128 (and int32/int64 for the collectives): every result
against mpi4py's call of the MPI library on the same data (the exchange and patches against
values computed here), with several algorithms, IN_PLACE, and the error paths (dmx.Error with
the message on every rank, no crash, no hang)."""
import sys

import numpy as np
from mpi4py import MPI

import dmx

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
results = []
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def expect(ok, what):
    results.append(bool(ok))
    if not ok:
        print("FAIL (rank %d): %s" % (rank, what), flush=True)


def data(dt, n, seed):
    """n values of this rank, exact in every dtype (small integers, imaginary parts too)."""
    i = np.arange(n)
    v = ((rank + 1) * 7 + i * 3 + seed) % 23 - 11.0
    if np.dtype(dt).kind == "c":
        return (v + 1j * (((rank + 2) * 5 + i + seed) % 19 - 9)).astype(dt)
    return v.astype(dt)


def t_bcast(dt, alg):
    n = 37
    a = data(dt, n, 1) if rank == size - 1 else np.zeros(n, dt)
    ref = a.copy()
    dmx.bcast(a, size - 1, alg=alg)
    comm.Bcast(ref, root=size - 1)
    expect(np.array_equal(a, ref), "bcast %s %s" % (np.dtype(dt), alg))


def t_reductions(dt, alg):
    n = 29
    s = data(dt, n, 2)
    for name, mop in (("sum", MPI.SUM), ("prod", MPI.PROD)):
        r, ref = np.zeros(n, dt), np.zeros(n, dt)
        dmx.allreduce(s, r, name, alg=alg)
        comm.Allreduce(s, ref, op=mop)
        expect(np.array_equal(r, ref), "allreduce %s %s %s" % (name, np.dtype(dt), alg))
    r = s.copy()
    dmx.allreduce(dmx.IN_PLACE, r, alg=alg)
    ref = np.zeros(n, dt)
    comm.Allreduce(s, ref)
    expect(np.array_equal(r, ref), "allreduce IN_PLACE %s %s" % (np.dtype(dt), alg))
    r, ref = np.zeros(n, dt), np.zeros(n, dt)
    dmx.reduce(s, r if rank == 0 else None, root=0)
    comm.Reduce(s, ref, root=0)
    expect(rank != 0 or np.array_equal(r, ref), "reduce %s" % np.dtype(dt))
    for fn, mfn in ((dmx.scan, comm.Scan), (dmx.exscan, comm.Exscan)):
        r, ref = np.zeros(n, dt), np.zeros(n, dt)
        fn(s, r)
        mfn(s, ref)
        expect(rank == 0 and fn is dmx.exscan or np.array_equal(r, ref),
               "%s %s" % (fn.__name__, np.dtype(dt)))
    s2 = data(dt, 3 * size, 3)
    r, ref = np.zeros(3, dt), np.zeros(3, dt)
    dmx.reduce_scatter(s2, r)
    comm.Reduce_scatter_block(s2, ref)
    expect(np.array_equal(r, ref), "reduce_scatter %s" % np.dtype(dt))


def t_moves(dt, alg):
    n = 5
    s = data(dt, n, 4)
    r, ref = np.zeros(n * size, dt), np.zeros(n * size, dt)
    dmx.allgather(s, r, alg=alg)
    comm.Allgather(s, ref)
    expect(np.array_equal(r, ref), "allgather %s %s" % (np.dtype(dt), alg))
    s = data(dt, n * size, 5)
    r, ref = np.zeros(n * size, dt), np.zeros(n * size, dt)
    dmx.alltoall(s, r)
    comm.Alltoall(s, ref)
    expect(np.array_equal(r, ref), "alltoall %s" % np.dtype(dt))
    r, ref = np.zeros(n, dt), np.zeros(n, dt)
    dmx.scatter(s if rank == 0 else None, r, 0)
    comm.Scatter(s, ref, root=0)
    expect(np.array_equal(r, ref), "scatter %s" % np.dtype(dt))
    s = data(dt, n, 6)
    r, ref = np.zeros(n * size, dt), np.zeros(n * size, dt)
    dmx.gather(s, r if rank == 0 else None, 0)
    comm.Gather(s, ref, root=0)
    expect(rank != 0 or np.array_equal(r, ref), "gather %s" % np.dtype(dt))
    r, ref = np.zeros(n, dt), np.zeros(n, dt)
    dmx.shift(s, r, 1)
    comm.Sendrecv(s, (rank + 1) % size, recvbuf=ref, source=(rank - 1) % size)
    expect(np.array_equal(r, ref), "shift %s" % np.dtype(dt))


def t_exchange(dt, proto):
    # rank r sends to r+1 and r+2 (mod p) an array of r+d+1 values that name sender and slot
    sends = []
    for d in (1, 2):
        dest = (rank + d) % size
        sends.append((dest, (np.arange(rank + d + 1) + 100 * rank + 10 * d).astype(dt)))
    got = dmx.exchange(sends, protocol=proto, dtype=dt)
    want = []
    for src in range(size):
        for d in (1, 2):
            if (src + d) % size == rank:
                want.append((src, (np.arange(src + d + 1) + 100 * src + 10 * d).astype(dt)))
    ok = len(got) == len(want) and all(
        gs == ws and ga.dtype == np.dtype(dt) and np.array_equal(ga, wa)
        for (gs, ga), (ws, wa) in zip(got, want))
    expect(ok, "exchange %s %s" % (np.dtype(dt), proto))


def t_patch(dt):
    m, n = 13, 11
    g = (1, size)
    lr, lc = dmx.local_shape(comm, (m, n), (3, 2), g)
    a = np.zeros((lr, lc), dt, order="F")
    A = dmx.Layout.block_cyclic(comm, (m, n), (3, 2), g, a)
    full = (np.arange(m)[:, None] * 100 + np.arange(n)[None, :]).astype(dt)
    with dmx.Patch(A) as w:
        if rank == 0:
            w.put(0, 0, np.asfortranarray(full[:, :6]))
            w.put(0, 6, np.ascontiguousarray(full[:, 6:]))  # C order: op T
        w.barrier()
        sub = w.get(2, 3, (7, 5))
        expect(np.array_equal(sub, full[2:9, 3:8]), "patch put/get %s" % np.dtype(dt))
        subc = w.get(1, 1, out=np.zeros((4, 6), dt))
        expect(np.array_equal(subc, full[1:5, 1:7]), "patch get C order %s" % np.dtype(dt))
        w.barrier()
        w.acc(0, 0, np.ones((m, n), dt, order="F"))
        w.barrier()
        sub = w.get(0, 0, (m, n))
        expect(np.array_equal(sub, full + size), "patch acc %s" % np.dtype(dt))
        w.barrier()


def raises(fn, what, bad=True):
    """fn must raise dmx.Error on every rank: with the message on the failing rank."""
    try:
        fn()
        expect(False, "%s: no error" % what)
    except dmx.Error as e:
        expect(e.status != 0, "%s: status" % what)
        if bad:
            expect(e.message, "%s: message" % what)
        return e


def t_errors():
    x = np.zeros(4)
    e = raises(lambda: dmx.allreduce(x, np.zeros(4), alg="no-such"), "unknown algorithm")
    expect("no-such" in e.message, "algorithm named: %s" % e.message)
    # a too-small receive buffer on the last rank only: every rank fails, none waits
    small = np.zeros(2 if rank == size - 1 else 4)
    e = raises(lambda: dmx.allreduce(x, small), "short recvbuf on one rank")
    if rank == size - 1:
        expect("recvbuf has 2 elements" in e.message, "recvbuf message: %s" % e.message)
    e = raises(lambda: dmx.bcast(x.astype(np.int8), 0), "int8 buffer")
    expect("dtype int8" in e.message, "dtype message: %s" % e.message)
    raises(lambda: dmx.allreduce(x, np.zeros(4, np.float32)), "mixed dtypes")
    raises(lambda: dmx.allreduce(x.astype(np.complex128), np.zeros(4, np.complex128), "max"),
           "max on complex")
    raises(lambda: dmx.bcast(x, size), "root out of range")
    raises(lambda: dmx.allreduce(x, np.zeros((4, 4))[:, 0]), "non-contiguous recvbuf")
    ro = np.zeros(4)
    ro.flags.writeable = False
    raises(lambda: dmx.bcast(ro), "read-only buffer")
    sends = [(size, np.zeros(3))] if rank == 0 else []
    raises(lambda: dmx.exchange(sends), "exchange to a rank out of range")
    sends = [(0, [1, 2])] if rank == size - 1 else []
    e = raises(lambda: dmx.exchange(sends), "exchange of a list")
    if rank == size - 1:
        expect("not a contiguous NumPy array" in e.message, "exchange message: %s" % e.message)
    raises(lambda: dmx.exchange([], protocol="xyz"), "exchange protocol")
    lr, lc = dmx.local_shape(comm, (4, 4), (2, 2), (1, size))
    A = dmx.Layout.block_cyclic(comm, (4, 4), (2, 2), (1, size), np.zeros((lr, lc), order="F"))
    with dmx.Patch(A) as w:
        raises(lambda: w.get(3, 3, (2, 2)), "patch outside the matrix")
        raises(lambda: w.put(0, 0, np.zeros((2, 2), np.float32)), "patch dtype")
        w.barrier()
    x = np.arange(4.0)
    dmx.allreduce(x, np.zeros(4))  # the communicator still works after the failures
    expect(True, "after errors")


for dt in DTYPES:
    for alg in ("auto", "mpi", "ring", "binomial"):
        if alg in ("auto", "binomial"):
            t_bcast(dt, alg)
        if alg != "binomial" or dt is np.float64:
            t_reductions(dt, alg)
        t_moves(dt, "ring" if alg == "binomial" else alg)
    for proto in ("auto", "nbx", "pex", "pcx", "rsx"):
        t_exchange(dt, proto)
    t_patch(dt)
for dt in (np.int32, np.int64):
    t_bcast(dt, "auto")
    t_reductions(dt, "ring")
    t_moves(dt, "auto")
t_errors()

passed = comm.allreduce(sum(results))
failed = comm.allreduce(len(results) - sum(results))
if rank == 0:
    print("%d passed, %d failed" % (passed, failed), flush=True)
sys.exit(1 if failed else 0)
