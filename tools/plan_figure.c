/* dmx plan: the SVG line plot of the Figure 3 sweep (see plan_tool.h). */
#include "plan_tool.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *s)
{
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-family=\"sans-serif\" "
            "font-size=\"%d\">%s</text>\n",
            x, y, anchor, size, s);
}

int plan_write_svg(const char *path, const fig3_point *pt, int np)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmx plan: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    const double W = 720, H = 460, L = 80, R = 30, T = 62, B = 58;
    const double pw = W - L - R, ph = H - T - B;
    const double xmin = 0.0, xmax = 4.0; /* log10 of the block size */
#define SX(b) (L + pw * (log10((double)(b)) - xmin) / (xmax - xmin))
#define SY(p) (T + ph * (1.0 - (p) / 100.0))
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"460\" "
               "viewBox=\"0 0 720 460\">\n"
               "<rect x=\"0\" y=\"0\" width=\"720\" height=\"460\" fill=\"white\"/>\n");
    svg_text(f, W / 2, 24, "middle", 15,
             "Communication-volume reduction by process relabeling (COSTA Fig. 3)");
    svg_text(f, W / 2, 44, "middle", 11,
             "1e5 x 1e5 matrix, 10 x 10 grid, row-major -> column-major ranks, final blocks 1e4");
    /* grid lines and tick labels */
    char lab[64];
    for (int e = 0; e <= 4; e++) {
        double x = SX(pow(10.0, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cccccc\"/>\n",
                x, T, x, T + ph);
        for (int k = 2; k <= 9 && e < 4; k++) {
            double xm = SX(k * pow(10.0, e));
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>\n",
                    xm, T, xm, T + ph);
        }
        snprintf(lab, sizeof lab, "%.0f", pow(10.0, e));
        svg_text(f, x, T + ph + 20, "middle", 12, lab);
    }
    for (int p = 0; p <= 100; p += 20) {
        double y = SY(p);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cccccc\"/>\n",
                L, y, L + pw, y);
        snprintf(lab, sizeof lab, "%d", p);
        svg_text(f, L - 8, y + 4, "end", 12, lab);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            L, T, pw, ph);
    svg_text(f, L + pw / 2, H - 16, "middle", 13,
             "initial block size (log scale); final block size 10000");
    fprintf(f,
            "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" font-family=\"sans-serif\" "
            "font-size=\"13\" transform=\"rotate(-90 22 %.1f)\">volume reduction (%%)</text>\n",
            T + ph / 2, T + ph / 2);
    /* the two curves */
    const char *color[2] = {"#1f77b4", "#d62728"};
    for (int c = 0; c < 2; c++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
                color[c], c ? "1.5" : "3", c ? " stroke-dasharray=\"6 4\"" : "");
        for (int k = 0; k < np; k++)
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", SX(pt[k].block),
                    SY(c ? pt[k].red_greedy : pt[k].red_exact));
        fprintf(f, "\"/>\n");
        for (int k = 0; k < np; k++) {
            double x = SX(pt[k].block), y = SY(c ? pt[k].red_greedy : pt[k].red_exact);
            if (c == 0)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x, y,
                        color[c]);
            else
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"none\" "
                        "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                        x - 3, y - 3, color[c]);
        }
    }
    /* legend, top left inside the plot */
    double lx = L + 16, ly = T + 20;
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"230\" height=\"50\" fill=\"white\" "
            "stroke=\"#999999\"/>\n",
            lx - 8, ly - 14);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"3\"/>\n",
            lx, ly, lx + 30, ly, color[0]);
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", lx + 15, ly, color[0]);
    svg_text(f, lx + 40, ly + 4, "start", 12, "exact (optimal relabeling)");
    ly += 22;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
            lx, ly, lx + 30, ly, color[1]);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"1.5\"/>\n",
            lx + 12, ly - 3, color[1]);
    svg_text(f, lx + 40, ly + 4, "start", 12, "greedy");
    fprintf(f, "</svg>\n");
#undef SX
#undef SY
    if (fclose(f) != 0) {
        fprintf(stderr, "dmx plan: error writing %s\n", path);
        return -1;
    }
    return 0;
}
