/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmx program's one SVG line-plot writer (dependency-free): panels with axes, ticks and
 * tick labels, axis labels, log or linear scales, a legend, and one style per series (colour,
 * dash pattern and marker shape all differ, and markers of different series sit at staggered
 * points), so a line that coincides with another stays visible. Used by dmx plan --fig3,
 * dmx model coll and dmx model gemm. */
#ifndef DMX_SVGPLOT_H
#define DMX_SVGPLOT_H

enum { SVGP_MAX_SERIES = 12 };

/* How tick labels of an axis are written. */
typedef enum svgp_unit {
    SVGP_PLAIN,   /* 1, 10, 100, 1e+06 */
    SVGP_BYTES,   /* 8 B, 1 KiB, 64 MiB; log ticks at powers of 2 */
    SVGP_SECONDS, /* 1 us, 10 ms, 2 s */
    SVGP_PERCENT  /* 0 %, 20 % */
} svgp_unit;

typedef struct svgp_series {
    const char *name; /* legend text (and the <title> of its line) */
    int n;
    const double *x, *y; /* points with y <= 0 on a log axis, or non-finite y, are skipped */
    int mark;            /* index of a point to ring and label, or -1 */
    const char *mark_label;
    int points_only; /* 1: no line, a ring at every point (e.g. "the chosen configuration") */
} svgp_series;

typedef struct svgp_panel {
    const char *title, *xlabel, *ylabel;
    int xlog, ylog;
    svgp_unit xunit, yunit;
    double ymin, ymax; /* both 0: from the data */
    int nseries;
    svgp_series s[SVGP_MAX_SERIES];
} svgp_panel;

/* Writes the panels (cols per row) under one title and subtitle (subtitle may be NULL) to path.
 * Returns 0, or -1 after "dmx: who: cannot write PATH: reason" on stderr. */
int svgp_write(const char *path, const char *who, const char *title, const char *subtitle,
               const svgp_panel *panels, int npanels, int cols);

#endif /* DMX_SVGPLOT_H */
