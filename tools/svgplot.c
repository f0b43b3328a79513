/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmx program's SVG line-plot writer (see svgplot.h). */
#include "svgplot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PLOT_W = 430, PANEL_H = 380, MAX_TICKS = 40 };
static const double ML = 78, MR = 16, MT = 30, MB = 48; /* plot margins inside a panel */

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                     "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                     "#7f7f7f", "#bcbd22", "#000000", "#aa6600"};
static const char *const dashes[] = {"", "8 4", "2 3", "10 3 2 3"};

typedef struct axis {
    double lo, hi; /* in data units (log: > 0) */
    int log;
    double base; /* log axes: ticks at powers of base (2 for bytes and short plain ranges) */
    svgp_unit unit;
    double p0, p1; /* pixel positions of lo and hi */
} axis;

static double map(const axis *a, double v)
{
    double t =
        a->log ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo)) : (v - a->lo) / (a->hi - a->lo);
    return a->p0 + t * (a->p1 - a->p0);
}

static int usable(const axis *a, double v)
{
    return isfinite(v) && (!a->log || v > 0);
}

static void put_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

static void text(FILE *f, double x, double y, const char *anchor, int size, const char *extra,
                 const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s>", x, y, anchor,
            size, extra ? extra : "");
    put_text(f, s);
    fputs("</text>\n", f);
}

static void label_raw(char *buf, size_t cap, double v, svgp_unit u)
{
    static const char *const bu[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    static const char *const su[] = {"ns", "us", "ms", "s"};
    int k = 0;
    switch (u) {
    case SVGP_BYTES:
        while (k < 4 && fabs(v) >= 1024) {
            v /= 1024;
            k++;
        }
        snprintf(buf, cap, "%g %s", v, bu[k]);
        return;
    case SVGP_SECONDS:
        if (v == 0) {
            snprintf(buf, cap, "0");
            return;
        }
        v *= 1e9;
        while (k < 3 && fabs(v) >= 1000 * (1 - 1e-9)) {
            v /= 1000;
            k++;
        }
        snprintf(buf, cap, "%.4g %s", v, su[k]);
        return;
    case SVGP_PERCENT: snprintf(buf, cap, "%g %%", v); return;
    default: snprintf(buf, cap, "%g", v);
    }
}

/* "1e+06" -> "1e6", "2.5e-07" -> "2.5e-7" (in place). */
static void tidy_exponent(char *buf)
{
    char *e = strchr(buf, 'e');
    if (!e)
        return;
    char *src = e + 1, *dst = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        *dst++ = *src++;
    while (*src == '0' && src[1] >= '0' && src[1] <= '9')
        src++;
    memmove(dst, src, strlen(src) + 1);
}

static void label(char *buf, size_t cap, double v, svgp_unit u)
{
    label_raw(buf, cap, v, u);
    tidy_exponent(buf);
}

/* A range that holds [lo, hi] and starts and ends on a tick. */
static void nice_range(axis *a, double lo, double hi)
{
    if (!(lo <= hi)) {
        lo = a->log ? 1 : 0;
        hi = a->log ? 10 : 1;
    }
    if (a->log) {
        double base = a->unit == SVGP_BYTES || (a->unit == SVGP_PLAIN && hi / lo < 1000) ? 2 : 10;
        a->base = base;
        double l = floor(log(lo) / log(base) + 1e-9), h = ceil(log(hi) / log(base) - 1e-9);
        if (h <= l)
            h = l + 1;
        a->lo = pow(base, l);
        a->hi = pow(base, h);
        return;
    }
    if (hi == lo)
        hi = lo + 1;
    double step = pow(10, floor(log10((hi - lo) / 5)));
    if ((hi - lo) / step > 10)
        step *= (hi - lo) / step > 25 ? 5 : 2;
    a->lo = floor(lo / step + 1e-9) * step;
    a->hi = ceil(hi / step - 1e-9) * step;
}

/* Tick values of a into t[]; returns the count. */
static int ticks(const axis *a, double *t)
{
    int n = 0;
    if (a->log) {
        double base = a->base;
        int l = (int)lround(log(a->lo) / log(base)), h = (int)lround(log(a->hi) / log(base));
        int step = 1;
        while ((h - l) / step > 10)
            step++;
        if (base == 2 && step > 1) /* 1 B, 1 KiB, 1 MiB when it can */
            step = step <= 2 ? 2 : step <= 5 ? 5 : 10;
        for (int e = l; e <= h && n < MAX_TICKS; e++)
            if ((e - l) % step == 0)
                t[n++] = pow(base, e);
        return n;
    }
    double step = pow(10, floor(log10((a->hi - a->lo) / 5)));
    if ((a->hi - a->lo) / step > 10)
        step *= (a->hi - a->lo) / step > 25 ? 5 : 2;
    for (double v = a->lo; v <= a->hi + step * 1e-6 && n < MAX_TICKS; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* Data range of one coordinate over the panel's usable points. */
static void data_range(const svgp_panel *p, int which_y, const axis *a, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int s = 0; s < p->nseries; s++)
        for (int i = 0; i < p->s[s].n; i++) {
            double v = which_y ? p->s[s].y[i] : p->s[s].x[i];
            if (usable(a, v)) {
                *lo = fmin(*lo, v);
                *hi = fmax(*hi, v);
            }
        }
}

static void marker(FILE *f, int shape, double x, double y, const char *c)
{
    switch (shape % 5) {
    case 0: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x, y, c); break;
    case 1:
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"white\" "
                "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x - 3.5, y - 3.5, c);
        break;
    case 2:
        fprintf(f, "<path d=\"M%.1f %.1f l4.5 7.5 h-9 z\" fill=\"%s\"/>\n", x, y - 4.5, c);
        break;
    case 3:
        fprintf(f,
                "<path d=\"M%.1f %.1f l4.5 4.5 l-4.5 4.5 l-4.5 -4.5 z\" fill=\"white\" "
                "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 4.5, c);
        break;
    default:
        fprintf(f, "<path d=\"M%.1f %.1f l8 8 m0 -8 l-8 8\" stroke=\"%s\" stroke-width=\"1.8\"/>\n",
                x - 4, y - 4, c);
    }
}

static void ring(FILE *f, double x, double y, const char *c)
{
    fprintf(f,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"2\"/>\n",
            x, y, c);
}

static void draw_axes(FILE *f, const svgp_panel *p, const axis *ax, const axis *ay, double ox,
                      double oy)
{
    double t[MAX_TICKS];
    char buf[48];
    int n = ticks(ax, t);
    for (int i = 0; i < n; i++) {
        double x = map(ax, t[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                x, ay->p1, x, ay->p0 + 5);
        label(buf, sizeof buf, t[i], ax->unit);
        text(f, x, ay->p0 + 18, "middle", 11, NULL, buf);
    }
    n = ticks(ay, t);
    for (int i = 0; i < n; i++) {
        double y = map(ay, t[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                ax->p0 - 5, y, ax->p1, y);
        label(buf, sizeof buf, t[i], ay->unit);
        text(f, ax->p0 - 8, y + 4, "end", 11, NULL, buf);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            ax->p0, ay->p1, ax->p1 - ax->p0, ay->p0 - ay->p1);
    char xl[160], yl[160];
    snprintf(xl, sizeof xl, "%s%s", p->xlabel ? p->xlabel : "", p->xlog ? " (log scale)" : "");
    snprintf(yl, sizeof yl, "%s%s", p->ylabel ? p->ylabel : "", p->ylog ? " (log scale)" : "");
    text(f, (ax->p0 + ax->p1) / 2, oy + PANEL_H - 8, "middle", 12, NULL, xl);
    char rot[80];
    double cy = (ay->p0 + ay->p1) / 2;
    snprintf(rot, sizeof rot, " transform=\"rotate(-90 %.1f %.1f)\"", ox + 16, cy);
    text(f, ox + 16, cy, "middle", 12, rot, yl);
    if (p->title)
        text(f, (ax->p0 + ax->p1) / 2, oy + 20, "middle", 13, " font-weight=\"bold\"", p->title);
}

static void draw_series(FILE *f, const svgp_series *s, int k, const axis *ax, const axis *ay)
{
    const char *c = colors[k % SVGP_MAX_SERIES], *d = dashes[k % 4];
    fprintf(f, "<g class=\"series\"><title>");
    put_text(f, s->name);
    fprintf(f, "</title>\n");
    if (s->points_only) {
        for (int i = 0; i < s->n; i++)
            if (usable(ax, s->x[i]) && usable(ay, s->y[i]))
                ring(f, map(ax, s->x[i]), map(ay, s->y[i]), c);
        fprintf(f, "</g>\n");
        return;
    }
    fprintf(f,
            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s "
            "points=\"",
            c, k == 0 ? "2.5" : "1.8", *d ? " stroke-dasharray=\"" : "", d, *d ? "\"" : "");
    for (int i = 0; i < s->n; i++)
        if (usable(ax, s->x[i]) && usable(ay, s->y[i]))
            fprintf(f, "%.1f,%.1f ", map(ax, s->x[i]), map(ay, s->y[i]));
    fprintf(f, "\"/>\n");
    /* markers: every point if few, else about 12 per line, shifted per series */
    int step = s->n <= 24 ? 1 : s->n / 12;
    for (int i = step > 1 ? (k * step / 5) % step : 0; i < s->n; i += step)
        if (usable(ax, s->x[i]) && usable(ay, s->y[i]))
            marker(f, k, map(ax, s->x[i]), map(ay, s->y[i]), c);
    if (s->mark >= 0 && s->mark < s->n && usable(ax, s->x[s->mark]) && usable(ay, s->y[s->mark])) {
        double x = map(ax, s->x[s->mark]), y = map(ay, s->y[s->mark]);
        ring(f, x, y, c);
        if (s->mark_label)
            text(f, x + 10, y - 10, "start", 11, NULL, s->mark_label);
    }
    fprintf(f, "</g>\n");
}

static void draw_legend(FILE *f, const svgp_panel *p, double x, double y)
{
    for (int k = 0; k < p->nseries; k++) {
        const char *c = colors[k % SVGP_MAX_SERIES], *d = dashes[k % 4];
        double yy = y + 18 * k;
        if (p->s[k].points_only) {
            ring(f, x + 17, yy, c);
            text(f, x + 40, yy + 4, "start", 11, NULL, p->s[k].name);
            continue;
        }
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"%s\"%s%s%s/>\n",
                x, yy, x + 34, yy, c, k == 0 ? "2.5" : "1.8", *d ? " stroke-dasharray=\"" : "", d,
                *d ? "\"" : "");
        marker(f, k, x + 17, yy, c);
        text(f, x + 40, yy + 4, "start", 11, NULL, p->s[k].name);
    }
}

static void draw_panel(FILE *f, const svgp_panel *p, double ox, double oy)
{
    axis ax = {0, 0, p->xlog, 10, p->xunit, ox + ML, ox + ML + PLOT_W};
    axis ay = {0, 0, p->ylog, 10, p->yunit, oy + PANEL_H - MB, oy + MT};
    double lo, hi;
    data_range(p, 0, &ax, &lo, &hi);
    nice_range(&ax, lo, hi);
    data_range(p, 1, &ay, &lo, &hi);
    if (p->ymin != 0 || p->ymax != 0) {
        lo = p->ymin;
        hi = p->ymax;
    }
    nice_range(&ay, lo, hi);
    draw_axes(f, p, &ax, &ay, ox, oy);
    for (int k = p->nseries - 1; k >= 0; k--) /* the first series drawn last, on top */
        draw_series(f, &p->s[k], k, &ax, &ay);
    draw_legend(f, p, ax.p1 + 14, ay.p1 + 10);
}

int svgp_write(const char *path, const char *who, const char *title, const char *subtitle,
               const svgp_panel *panels, int npanels, int cols)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmx: %s: cannot write %s: %s\n", who, path, strerror(errno));
        return -1;
    }
    cols = cols < 1 ? 1 : cols > npanels ? (npanels > 0 ? npanels : 1) : cols;
    int rows = (npanels + cols - 1) / cols;
    size_t longest = 0; /* the legend's width: 6.5 px per character of the longest name */
    for (int i = 0; i < npanels; i++)
        for (int k = 0; k < panels[i].nseries; k++)
            if (panels[i].s[k].name && strlen(panels[i].s[k].name) > longest)
                longest = strlen(panels[i].s[k].name);
    double pw = ML + PLOT_W + MR + 60 + 6.5 * (double)longest;
    double head = subtitle ? 52 : 34, W = cols * pw, H = head + rows * PANEL_H;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    text(f, W / 2, 22, "middle", 15, NULL, title);
    if (subtitle)
        text(f, W / 2, 42, "middle", 12, " fill=\"#444444\"", subtitle);
    for (int i = 0; i < npanels; i++)
        draw_panel(f, &panels[i], (i % cols) * pw, head + (i / cols) * PANEL_H);
    fprintf(f, "</svg>\n");
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "dmx: %s: error writing %s\n", who, path);
        return -1;
    }
    return 0;
}
