#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SVG charts for scripts/simulate_table.py: line or point charts stacked in one file, axes
linear or logarithmic, no dependencies. A chart is a dict: title, xlabel, ylabel, logx, logy
(bases, or 0 for linear), series {name: [(x, y), ...]}, and optional points (series drawn as
markers only), hline (a dashed horizontal line at that y), diagonal (the line y = x)."""
import math

W, H = 720, 380            # one chart
ML, MR, MT, MB = 70, 170, 40, 50
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22"]


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _range(vals, log):
    lo, hi = min(vals), max(vals)
    if log:
        lo, hi = math.log(lo, log), math.log(hi, log)
        lo, hi = math.floor(lo), math.ceil(hi)
        return (lo, hi if hi > lo else lo + 1)
    if hi == lo:
        hi = lo + 1
    pad = (hi - lo) * 0.05
    return (lo - pad if lo - pad > 0 or lo < 0 else 0, hi + pad)


def _ticks(rng, log):
    lo, hi = rng
    if log:
        step = max(1, int((hi - lo) / 8) + ((hi - lo) % 8 > 0))
        return [(e, ("%g" % (log ** e))) for e in range(int(lo), int(hi) + 1, step)]
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / 5))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-12:
        out.append((t, "%g" % round(t, 10)))
        t += step
    return out


def _chart(c, y0, colors):
    pts = [p for s in c["series"].values() for p in s if p[0] > 0 or not c.get("logx")]
    if not pts:
        return ""
    lx, ly = c.get("logx", 0), c.get("logy", 0)
    xs = [p[0] for p in pts] + ([p[1] for p in pts] if c.get("diagonal") else [])
    ys = [p[1] for p in pts] + ([c["hline"]] if c.get("hline") else []) + \
         ([p[0] for p in pts] if c.get("diagonal") else [])
    xr, yr = _range([x for x in xs if x > 0 or not lx], lx), _range([y for y in ys if y > 0 or not ly], ly)

    def X(x):
        v = math.log(x, lx) if lx else x
        return ML + (v - xr[0]) / (xr[1] - xr[0]) * (W - ML - MR)

    def Y(y):
        v = math.log(y, ly) if ly else y
        return y0 + H - MB - (v - yr[0]) / (yr[1] - yr[0]) * (H - MT - MB)

    o = ['<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>' % (ML, y0 + 22, esc(c["title"]))]
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (
        ML, y0 + MT, W - ML - MR, H - MT - MB))
    for v, lab in _ticks(xr, lx):
        x = ML + (v - xr[0]) / (xr[1] - xr[0]) * (W - ML - MR)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, y0 + MT, x, y0 + H - MB))
        o.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>' % (x, y0 + H - MB + 15, lab))
    for v, lab in _ticks(yr, ly):
        y = y0 + H - MB - (v - yr[0]) / (yr[1] - yr[0]) * (H - MT - MB)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ML, y, W - MR, y))
        o.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>' % (ML - 5, y + 4, lab))
    o.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">%s</text>' % (
        (ML + W - MR) / 2, y0 + H - 12, esc(c["xlabel"])))
    o.append('<text x="16" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>' % (
        y0 + (MT + H - MB) / 2, y0 + (MT + H - MB) / 2, esc(c["ylabel"])))
    if c.get("hline"):
        y = Y(c["hline"])
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888" stroke-dasharray="5,4"/>' % (ML, y, W - MR, y))
    if c.get("diagonal"):
        a, b = max(xr[0], yr[0]), min(xr[1], yr[1])
        a, b = (lx ** a, lx ** b) if lx else (a, b)
        o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="5,4"/>' % (
            X(a), Y(a), X(b), Y(b)))
    i = -1
    for name, s in c["series"].items():
        col = colors.setdefault(name, COLORS[len(colors) % len(COLORS)])
        s = sorted(p for p in s if (p[0] > 0 or not lx) and (p[1] > 0 or not ly))
        if not s:
            continue
        i += 1
        if not c.get("points") and len(s) > 1:
            o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
                col, " ".join("%.1f,%.1f" % (X(x), Y(y)) for x, y in s)))
        for x, y in s:
            o.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' % (X(x), Y(y), col))
        ly_ = y0 + MT + 14 + 18 * i
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (W - MR + 12, ly_ - 10, col))
        o.append('<text x="%d" y="%d" font-size="12">%s</text>' % (W - MR + 30, ly_, esc(name)))
    return "\n".join(o)


def write(path, charts):
    charts = [c for c in charts if any(c["series"].values())]
    colors = {}  # one colour per series name in every chart of the file
    body = [_chart(c, i * H, colors) for i, c in enumerate(charts)]
    with open(path, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'font-family="sans-serif">\n<rect width="100%%" height="100%%" fill="white"/>\n'
                % (W, H * max(1, len(charts))))
        f.write("\n".join(body))
        f.write("\n</svg>\n")
    return len(charts)
