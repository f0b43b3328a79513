#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Collectives' model factors measured in the simulator: simulate_calibrate.py [--repredict DMX
RAW NODES] FILE PLATFORM NP [MODEL]; or the sparse exchange's protocol on one node:
simulate_calibrate.py --exchange FILE PLATFORM NP MODEL.

FILE holds `dmx bench coll --json` lines from scripts/simulate.sh (run with the platform's model
file without measured factors, so that t_pred is the formula's own). For each collective and
size, as dmx calibrate computes them: corr.<coll>.<alg> = simulated / predicted, and
mpi.<coll> = the MPI call's simulated time / the best dmx algorithm's, one line per measured
size, valid up to the geometric midpoint to the next size. Printed as the section `np = NP`
(docs/coll.md: a prediction for p uses the section nearest to p in log2), or with MODEL written
into that model file after the line MARK: the section np = NP replaced or added, the sections of
other np below MARK kept, sorted by np (factors below MARK outside any section, from before
sections existed, are dropped; the line MARK is added if missing). The last record of a cell
wins. A collective measured at a single size is left out (its factor would stand for every
size).

--repredict: FILE's cells may come from a run with any model file (a check run of the coll
module: every dmx algorithm's and MPI's simulated cell is the same whatever the model, only
AUTO's differs), and each algorithm's predicted time is recomputed with the model file RAW
(the platform's file without measured factors) by `DMX model coll --explain --json --nodes
NODES`, DMX being the command that runs the dmx program (under smpirun -np 1 for the simulated
build).

--exchange: FILE holds `dmx bench exchange --json` lines from scripts/simulate.sh; the protocol
of NBX, PEX and PCX with the least simulated time at NP on PLATFORM (the last record of each
wins) is written as `exchange = NAME` into the section np = NP of MODEL below MARK (dmx
calibrate's exchange step, docs/exchange.md), the section's other lines kept, the section added
if missing."""
import json
import math
import re
import shlex
import subprocess
import sys

MARK = "# ---- measured in the simulator (scripts/simulate.sh calibrate); do not edit below"


def predictions(dmx, raw, nodes, coll, np, sizes):
    """{bytes: {alg: seconds}} of the raw model, through dmx model coll --explain --json."""
    cmd = shlex.split(dmx) + ["model", "coll", "--explain", "--json", "--p", str(np), "--bytes",
                              ",".join(str(b) for b in sizes), "--coll", coll, "--nodes",
                              str(nodes), "--model", raw]
    out = {}
    for line in subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split("\n"):
        if line.startswith("{"):
            r = json.loads(line)
            b = int(re.search(r"bytes=(\d+)", r["inputs"]).group(1))
            out[b] = {c["name"]: c["seconds"] for c in r["candidates"]}
    return out


def factors(path, plat, np, repredict=None):
    cells = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if (r.get("platform") != plat or r.get("np") != np or r.get("bench") != "coll"
                    or r.get("alg") == "auto" or r.get("wrong", 0) or "t_med" not in r):
                continue
            cells.setdefault(r["coll"], {}).setdefault(r["bytes"], {})[r["alg"]] = r
    out = []
    for coll in sorted(cells):
        sizes = sorted(cells[coll])
        if len(sizes) < 2:  # its one factor would stand for every size
            print("simulate_calibrate: %s at np %d measured at one size only: left out" % (coll, np),
                  file=sys.stderr)
            continue
        if repredict:
            pred = predictions(*repredict, coll, np, sizes)
            for s in sizes:
                for a, r in cells[coll][s].items():
                    if a != "mpi":
                        r["t_pred"] = pred[s][a]
        upto = {s: (math.sqrt(s * sizes[i + 1]) if i + 1 < len(sizes) else 1e30)
                for i, s in enumerate(sizes)}
        algs = sorted({a for s in sizes for a in cells[coll][s]})
        for a in algs:
            for s in sizes:
                c = cells[coll][s]
                if a not in c:
                    continue
                if a == "mpi":
                    best = min(r["t_med"] for b, r in c.items() if b != "mpi")
                    f = c[a]["t_med"] / best
                    out.append("mpi.%s = %.4g %.4g" % (coll, upto[s], f))
                elif c[a].get("t_pred", 0) > 0:
                    f = c[a]["t_med"] / c[a]["t_pred"]
                    out.append("corr.%s.%s = %.4g %.4g" % (coll, a, upto[s], f))
    return out


def read_sections(model):
    """MODEL's lines above MARK, and its sections below MARK by np (each a list of lines)."""
    with open(model) as f:
        old = f.read().split("\n")
    keep = old[:old.index(MARK)] if MARK in old else [l for l in old if l != ""]
    sections, cur = {}, None
    for l in old[old.index(MARK) + 1:] if MARK in old else []:
        m = re.match(r"\s*np\s*=\s*(\d+)", l)
        if m:
            cur = int(m.group(1))
            sections[cur] = []
        if cur is not None and l != "":
            sections[cur].append(l)
    return keep, sections


def write_sections(model, keep, sections):
    with open(model, "w") as f:
        f.write("\n".join(keep + [MARK] + [l for n in sorted(sections) for l in sections[n]]) + "\n")


def exchange(path, plat, np, model):
    best = {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("platform") == plat and r.get("np") == np and r.get("protocol") in ("nbx", "pex", "pcx"):
            best[r["protocol"]] = r
    if not best:
        sys.exit("simulate_calibrate: no nbx, pex or pcx records for %s at np %d in %s" % (plat, np, path))
    name = min(best, key=lambda p: best[p]["t_med"])
    keep, sections = read_sections(model)
    sec = [l for l in sections.get(np, ["np = %d" % np]) if not re.match(r"\s*exchange\s*=", l)
           and not l.startswith("# exchange:")]
    sec += ["# exchange: simulated us " + ", ".join("%s %.1f" % (p, 1e6 * best[p]["t_med"])
                                                     for p in sorted(best)),
            "exchange = %s" % name]
    sections[np] = sec
    write_sections(model, keep, sections)
    print("simulate_calibrate: %s np %d: exchange = %s" % (plat, np, name))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--exchange":
        exchange(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    repredict = None
    if len(sys.argv) > 4 and sys.argv[1] == "--repredict":
        repredict = (sys.argv[2], sys.argv[3], int(sys.argv[4]))
        del sys.argv[1:5]
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    path, plat, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = factors(path, plat, np, repredict)
    if not lines:
        sys.exit("simulate_calibrate: no coll records for %s at np %d in %s" % (plat, np, path))
    sec = ["np = %d" % np,
           "# from %s, np %d: corr = simulated / predicted, mpi = MPI's call / the best dmx "
           "algorithm, per size (dmx calibrate's rule)" % (plat, np)] + lines
    if len(sys.argv) == 4:
        print("\n".join(sec))
        return
    keep, sections = read_sections(sys.argv[4])
    old_exchange = [l for l in sections.get(np, []) if re.match(r"\s*exchange\s*=", l)
                    or l.startswith("# exchange:")]
    sections[np] = sec + old_exchange  # the exchange's measured protocol stays
    write_sections(sys.argv[4], keep, sections)


main()
