/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx plan: the plot of the Figure 3 sweep (see plan_tool.h), drawn by tools/svgplot.c. */
#include "plan_tool.h"
#include "svgplot.h"

#include <stdint.h>
#include <string.h>

enum { MAXPT = 64 };

int plan_write_svg(const char *path, const fig3_point *pt, int np)
{
    double x[MAXPT], ye[MAXPT], yg[MAXPT];
    np = np < MAXPT ? np : MAXPT;
    for (int k = 0; k < np; k++) {
        x[k] = (double)pt[k].block;
        ye[k] = pt[k].red_exact;
        yg[k] = pt[k].red_greedy;
    }
    svgp_panel pan;
    memset(&pan, 0, sizeof pan);
    pan.xlabel = "initial block size (final block size 10000)";
    pan.ylabel = "communication-volume reduction";
    pan.xlog = 1;
    pan.xunit = SVGP_PLAIN;
    pan.yunit = SVGP_PERCENT;
    pan.ymin = 0;
    pan.ymax = 100;
    pan.nseries = 2;
    pan.s[0] = (svgp_series){"exact (optimal relabeling)", np, x, ye, -1, NULL, 0};
    pan.s[1] = (svgp_series){"greedy", np, x, yg, -1, NULL, 0};
    return svgp_write(path, "plan",
                      "Communication-volume reduction by process relabeling (COSTA Fig. 3)",
                      "1e5 x 1e5 matrix, 10 x 10 grid, row-major -> column-major ranks, final "
                      "blocks 1e4",
                      &pan, 1, 1) != 0;
}
