/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx plan, shared by its files: plan.c (planning runs, Figure 3 sweep, the subcommand),
 * plan_text.c (argument parsing, JSON and sigma output) and plan_figure.c (the SVG plot of
 * Figure 3). */
#ifndef DMX_TOOLS_PLAN_TOOL_H
#define DMX_TOOLS_PLAN_TOOL_H

#include <stdint.h>
#include <stdio.h>

/* Wall-clock seconds. */
double plan_now(void);

/* Reduction from before to after in percent of before (0 if before is 0). */
double plan_percent(int64_t before, int64_t after);

/* A whole decimal integer (any sign). Returns 0, or -1 if s is not one. */
int plan_parse_i64(const char *s, int64_t *out);

/* Split a comma list into at most max fields (modifies buf). Returns the field count. */
int plan_split_commas(char *buf, char **fields, int max);

/* "MB,NB,PR,PC,ORD" (ORD R or C) into a block-cyclic description (m, n left 0). Returns 0 or
 * -1. (plan.c; dmx model redist takes the same form.) */
struct dmx_relabel_desc;
int plan_parse_bc(const char *arg, struct dmx_relabel_desc *d);

/* "M,N" with M, N >= 0. Returns 0 or -1. */
int plan_parse_size(const char *arg, int64_t *m, int64_t *n);

/* A JSON string literal (quotes, backslashes and control characters escaped). */
void plan_json_string(FILE *out, const char *str);

/* The relabeling sigma[0..p), as a JSON member (",\"sigma\":[...]") or as text. */
void plan_print_sigma(FILE *out, const int *sigma, int p, int json);

/* One point of the Figure 3 sweep. */
typedef struct fig3_point {
    int64_t block;
    int64_t vol_identity, vol_exact, vol_greedy;
    double red_exact, red_greedy, t_exact, t_greedy;
} fig3_point;

/* Write the Figure 3 curve as an SVG line plot. Returns 0, or 1 (message on stderr). */
int plan_write_svg(const char *path, const fig3_point *pt, int np);

#endif /* DMX_TOOLS_PLAN_TOOL_H */
