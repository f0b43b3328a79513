/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx plan: argument parsing, JSON and sigma output (see plan_tool.h). */
#include "plan_tool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double plan_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double plan_percent(int64_t before, int64_t after)
{
    return before > 0 ? 100.0 * (double)(before - after) / (double)before : 0.0;
}

/* ---- argument parsing --------------------------------------------------------------------- */

int plan_parse_i64(const char *s, int64_t *out)
{
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
    *out = (int64_t)v;
    return 0;
}

int plan_split_commas(char *buf, char **fields, int max)
{
    int k = 0;
    char *p = buf;
    while (k < max) {
        fields[k++] = p;
        char *c = strchr(p, ',');
        if (!c)
            return k;
        *c = '\0';
        p = c + 1;
    }
    return k + 1; /* too many */
}

int plan_parse_size(const char *arg, int64_t *m, int64_t *n)
{
    char buf[128];
    char *f[3];
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    if (plan_split_commas(buf, f, 2) != 2 || plan_parse_i64(f[0], m) || plan_parse_i64(f[1], n) ||
        *m < 0 || *n < 0)
        return -1;
    return 0;
}

void plan_json_string(FILE *out, const char *str)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void plan_print_sigma(FILE *out, const int *sigma, int p, int json)
{
    if (json) {
        fprintf(out, ",\"sigma\":[");
        for (int j = 0; j < p; j++)
            fprintf(out, "%s%d", j ? "," : "", sigma[j]);
        fprintf(out, "]");
        return;
    }
    fprintf(out, "sigma (target rank j is played by process sigma[j]):\n");
    for (int j = 0; j < p; j++)
        fprintf(out, "%d%s", sigma[j], (j + 1) % 20 == 0 || j + 1 == p ? "\n" : " ");
}
