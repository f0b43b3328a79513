#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tables of scripts/simulate.sh's JSON lines: simulate_table.py MODULE FILE [SVG].
With SVG, the module's charts too (scripts/simulate_plot.py): exchange, time per protocol over P;
coll, AUTO / best over the size per collective; gemm, time over G (SUMMA, Cannon and AUTO as
levels); redist, simulated against predicted gains.

gemm: simulated time per point and the model's, AUTO against the best point, and the
communication ratio SUMMA / best HSUMMA (time minus the flops at one core's rate).
exchange: time per protocol, the best, AUTO / best, and the NBX/PEX crossover P.
coll: AUTO / best simulated algorithm per cell, the share of cells within 1.1x, the worst.
redist: dmx's, MPI_Alltoallv's and relabeled dmx's simulated times (dmx_plan_create_relabeled with
the identity and with the exact sigma), and the relabeling's simulated gain (t_identity / t_exact)
against its predicted one (cost_identity / cost_relabeled).
The last record of a point wins (a file may hold reruns)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simulate_plot  # noqa: E402

CHARTS = []  # what main() writes to the SVG file


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    return rows


# one core's flop rate per platform family (the platform files' speed)
CORE_FLOPS = {"bgp": 3.4e9, "graphene": 10.1e9, "twolevel": 4e10, "latency": 4e10,
              "bandwidth": 4e10}


def us(t):
    return "%.1f" % (t * 1e6)


def exchange(rows):
    cells, walls = {}, {}
    for r in rows:
        if "failed" in r:
            continue
        key = (r["platform"], r["k"], r["pattern"], r["bytes"], r["np"])
        # one AUTO per point whatever it ran: the last record wins (a rerun after a change)
        name = "auto" if r["protocol"].startswith("auto") else r["protocol"]
        cells.setdefault(key, {})[name] = (r["protocol"], r["t_med"])
        walls.setdefault(key, {})[r["protocol"].split(":")[0]] = r.get("sim_wall_s")
    groups = sorted({k[:4] for k in cells})
    protos = ["nbx", "pex", "pcx", "rsx"]
    for g in groups:
        series = {n: [] for n in ("NBX", "PEX", "PCX", "RSX", "AUTO")}
        for key in sorted(k for k in cells if k[:4] == g):
            for name, (_, t) in cells[key].items():
                series[name.upper()].append((key[4], t * 1e6))
        CHARTS.append({"title": "exchange %s, k = %d (%s), %d B" % g, "xlabel": "P (ranks)",
                       "ylabel": "simulated us", "logx": 2, "logy": 10, "series": series})
        print("\n### exchange %s, k = %d (%s), %d B per payload; simulated us" % g)
        print("| P | NBX | PEX | PCX | RSX | best | AUTO (ran) | AUTO/best | "
              "sim wall s (NBX/PEX/PCX/RSX/AUTO) |")
        print("|---|---|---|---|---|---|---|---|---|")
        cross = None
        for key in sorted(k for k in cells if k[:4] == g):
            c = cells[key]
            have = {p: c[p][1] for p in protos if p in c}
            if not have:
                continue
            best = min(have, key=have.get)
            auto = [c["auto"]] if "auto" in c else []
            a = "%s (%s)" % (us(auto[0][1]), auto[0][0][5:]) if auto else "-"
            ratio = "%.2f" % (auto[0][1] / have[best]) if auto else "-"
            if cross is None and "nbx" in have and "pex" in have and have["nbx"] < have["pex"]:
                cross = key[4]
            print("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                key[4], *[us(have[p]) if p in have else "-" for p in protos], best.upper(), a,
                ratio, "/".join(str(walls[key].get(p, "-")) for p in protos + ["auto"])))
        print("\nNBX faster than PEX from P = %s on (smallest P simulated with both)"
              % (cross if cross else "(not in range)"))


def coll(rows):
    cells = {}
    for r in rows:
        if "failed" in r or r.get("bench") != "coll":
            continue
        key = (r["platform"], r["np"], r["coll"], r["bytes"])
        cells.setdefault(key, {})[r["alg"]] = r
    for plat, np_ in sorted({k[:2] for k in cells}):
        print("\n### coll %s, P = %d: simulated us; best dmx algorithm, MPI's (SMPI's ompi) "
              "call, AUTO and its pick" % (plat, np_))
        print("| collective | bytes | best alg | best | mpi | AUTO (pick) | AUTO/best | model pick |")
        print("|---|---|---|---|---|---|---|---|")
        n = within = 0
        worst = (0, None)
        series = {}
        CHARTS.append({"title": "coll %s, P = %d: AUTO / best simulated algorithm" % (plat, np_),
                       "xlabel": "bytes", "ylabel": "AUTO / best", "logx": 8, "logy": 0,
                       "hline": 1.1, "series": series})
        for key in sorted(k for k in cells if k[:2] == (plat, np_)):
            c = cells[key]
            algs = {a: r["t_med"] for a, r in c.items() if a != "auto"}
            if "auto" not in c or not algs:
                continue
            best = min(algs, key=algs.get)
            ratio = c["auto"]["t_med"] / algs[best]
            series.setdefault(key[2], []).append((key[3], ratio))
            n += 1
            within += ratio <= 1.1
            if ratio > worst[0]:
                worst = (ratio, key)
            print("| %s | %d | %s | %s | %s | %s (%s) | %.2f | %s |" % (
                key[2], key[3], best, us(algs[best]), us(algs["mpi"]) if "mpi" in algs else "-",
                us(c["auto"]["t_med"]), c["auto"].get("pick", "?"), ratio,
                c["auto"].get("model_pick", "?")))
        if n:
            print("AUTO within 1.1x of the best in %d of %d cells (%.0f %%); worst %.2fx (%s %d B)"
                  % (within, n, 100.0 * within / n, worst[0], worst[1][2], worst[1][3]))


def panels_full(r):
    """The panels (Cannon: steps) of a whole run of what r ran: SUMMA's and HSUMMA's (outer)
    panels, k cut into pc pieces of ceil(n / pc) and each into panels of the width (simulate.sh
    runs only N that divide evenly, where this is the library's count), Cannon's q steps."""
    pr, pc = (int(x) for x in r["grid"].split("x"))
    if r["alg"] == "cannon":
        return pr
    cap = -(-r["n"] // pc)  # the widest piece of k along the grid's columns
    width = r["b"] if r["alg"] == "summa" else r["B"]
    return pc * -(-cap // min(width, cap))


def extrapolate(rows):
    """SIM_PANELS: the first K of F panels ran (K >= F: a whole run). With one K, the time times
    F / K; where the same point ran with two or more K, the line through the two largest (the
    first panels cost more than the later ones, so the line is nearer a whole run:
    docs/scale.md)."""
    runs = {}
    for r in rows:
        if r.get("bench") == "gemm_sim" and r.get("panels_run"):
            full = panels_full(r)
            if r["panels_run"] < full:
                key = (r["platform"], r["np"], r["n"], r["point"])
                runs.setdefault(key, {})[r["panels_run"]] = (r["t_med"], full)
    out = []
    for r in rows:
        key = (r.get("platform"), r.get("np"), r.get("n"), r.get("point"))
        if r.get("bench") != "gemm_sim" or not r.get("panels_run") or key not in runs:
            out.append(r)
            continue
        ks = sorted(runs[key])
        k2, (t2, full) = ks[-1], runs[key][ks[-1]]
        if r["panels_run"] != k2:
            continue  # folded into the largest K's row
        unit = "steps" if r["alg"] == "cannon" else "panels"
        if len(ks) > 1:
            k1, t1 = ks[-2], runs[key][ks[-2]][0]
            t = t2 + (full - k2) * (t2 - t1) / (k2 - k1)
            how = "%d and %d of %d %s, extrapolated" % (k1, k2, full, unit)
        else:
            t = t2 * full / k2
            how = "%d of %d %s, scaled" % (k2, full, unit)
        out.append(dict(r, t_med=t, point="%s [%s]" % (r["point"], how)))
    return out


def gemm(rows):
    pts = {}
    for r in extrapolate(rows):
        if "failed" in r and "point" in r and r.get("np"):
            # a point whose last run failed shows the failure, not an older success
            for key in [k for k in pts if k[0] == r["platform"] and k[1] == r["np"]]:
                if r["point"] in pts[key]:
                    pts[key][r["point"]] = r
            continue
        if r.get("bench") != "gemm_sim":
            continue
        pts.setdefault((r["platform"], r["np"], r["n"]), {})[r["point"]] = r
    for key in sorted(pts):
        p = pts[key]
        print("\n### gemm %s, P = %d, n = %d: simulated ms (model)" % key)
        print("| point | grid | G | b | B | simulated | model | sim wall s |")
        print("|---|---|---|---|---|---|---|---|")
        for name, r in p.items():
            if "failed" in r:
                print("| %s | failed (%s) | | | | | | %s |" % (
                    name, r["failed"].split(":")[0], r.get("sim_wall_s")))
                continue
            print("| %s | %s | %s | %s | %s | %.3f | %.3f | %s |" % (
                name if not name.startswith("auto") else "**%s: %s**" % (name, r["alg"]),
                r.get("grid"), r.get("G"), r.get("b"), r.get("B"), r["t_med"] * 1e3,
                r["t_model"] * 1e3, r.get("sim_wall_s")))
        forced = {k: v for k, v in p.items() if not k.startswith("auto") and "failed" not in v}
        hs_pts = [(v["G"], v["t_med"] * 1e3) for k, v in forced.items()
                  if k.startswith("hsumma") and k.count(":") == 2]
        if hs_pts:
            gs = [g for g, _ in hs_pts]
            series = {"HSUMMA": hs_pts}
            for name, r in p.items():
                if "failed" not in r and not name.startswith("hsumma"):
                    lab = name if not name.startswith("auto") else "%s: %s" % (name, r["alg"])
                    series[lab] = [(min(gs), r["t_med"] * 1e3), (max(gs), r["t_med"] * 1e3)]
            CHARTS.append({"title": "gemm %s, P = %d, n = %d" % key, "xlabel": "G (groups)",
                           "ylabel": "simulated ms", "logx": 2, "logy": 0, "series": series})
        if forced:
            best = min(forced, key=lambda k: forced[k]["t_med"])
            line = "best point %s %.3f ms" % (best, forced[best]["t_med"] * 1e3)
            for a in sorted(k for k in p if k.startswith("auto") and "failed" not in p[k]):
                line += "; %s %.3f ms = %.3fx the best" % (
                    a, p[a]["t_med"] * 1e3, p[a]["t_med"] / forced[best]["t_med"])
            summa = [v for k, v in forced.items() if k.startswith("summa")]
            hs = [v for k, v in forced.items() if k.startswith("hsumma")]
            if summa and hs:
                s = min(x["t_med"] for x in summa)
                h = min(hs, key=lambda x: x["t_med"])
                # the local multiplies' time: 2 n^3 / P flops at one core's rate (DMX_SIM_FLOPS)
                tc = 2.0 * key[2] ** 3 / key[1] / CORE_FLOPS.get(key[0].split("_")[0], 4e10)
                line += ("; SUMMA / best HSUMMA (G = %s): total %.2fx, communication "
                         "(time - %.3f ms of flops) %.2fx" % (h["G"], s / h["t_med"], tc * 1e3,
                                                              (s - tc) / (h["t_med"] - tc)))
            print(line)


def redist(rows):
    cells = {}
    for r in rows:
        if "failed" in r or "impl" not in r:
            continue
        key = (r["platform"], r["np"], r.get("case_sim"), r["case"], r["op"])
        if r.get("align", 0) != 0:  # the first session's rows ran twice, the second aligned
            continue
        if r["case"] == "same":  # a local copy: free in the simulation (no computation charged)
            continue
        cells.setdefault(key, {})[r["impl"]] = r  # the last record of a point wins
    print("| platform | P | case | m = n | dmx us | alltoallv us | relabeled: identity us | "
          "exact us | roles moved | remote MB (identity -> exact) | simulated gain | "
          "predicted gain: total cost | busiest link | sim wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    series = {"total cost": [], "busiest link": []}
    CHARTS.append({"title": "redist: relabeling's simulated gain against dmx's predictions",
                   "xlabel": "predicted gain", "ylabel": "simulated gain", "logx": 2, "logy": 2,
                   "points": True, "diagonal": True, "series": series})
    for key in sorted(cells, key=lambda k: (k[0], k[1], str(k[2]), k[3], k[4])):
        c = cells[key]

        def t(name):  # the least of the repetitions: SMPI adds a delay to some runs (docs/scale.md)
            r = c.get(name)
            return r["t_min"] if r and r.get("t_min") else None

        td, ta, tr, ti = t("dmx"), t("alltoallv"), t("dmx_relabel"), t("dmx_relabel_identity")
        rel = c.get("dmx_relabel") or {}
        vol = pred = busy = gain = "-"
        if "volume_identity" in rel:
            vol = "%.1f -> %.1f" % (rel["volume_identity"] / 1e6, rel["volume_relabeled"] / 1e6)
            if rel["cost_relabeled"] > 0:
                pred = "%.2fx" % (rel["cost_identity"] / rel["cost_relabeled"])
            if rel.get("busiest_relabeled", 0) > 0:
                busy = "%.2fx" % (rel["busiest_identity"] / rel["busiest_relabeled"])
        if ti and tr:
            gain = "%.2fx" % (ti / tr)
            if pred != "-":
                series["total cost"].append((rel["cost_identity"] / rel["cost_relabeled"], ti / tr))
            if busy != "-":
                series["busiest link"].append((rel["busiest_identity"] / rel["busiest_relabeled"],
                                               ti / tr))
        note = "" if td or "dmx" not in c else " (dmx: %s)" % c["dmx"].get("status")
        anyr = next(iter(c.values()))
        name = key[3] if key[3] == "same" else str(key[2])
        print("| %s | %d | %s | %d | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], name, anyr.get("m", 0), us(td) if td else "-", note,
            us(ta) if ta else "-", us(ti) if ti else "-", us(tr) if tr else "-",
            rel.get("roles_moved", "-"), vol, gain, pred, busy, anyr.get("sim_wall_s")))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: simulate_table.py gemm|exchange|coll|redist FILE [SVG]")
    rows = load(sys.argv[2])
    {"gemm": gemm, "exchange": exchange, "coll": coll, "redist": redist,
     "platforms": lambda rs: [print(json.dumps(r)) for r in rs]}[sys.argv[1]](rows)
    if len(sys.argv) == 4:
        n = simulate_plot.write(sys.argv[3], CHARTS)
        print("\n(%d chart(s) in %s)" % (n, sys.argv[3]))


if __name__ == "__main__":
    main()
