/* dmx plan: usage text, argument parsing, JSON and sigma output (see plan_tool.h). */
#include "plan_tool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void plan_usage(FILE *f)
{
    fprintf(f,
            "usage:\n"
            "  dmx plan --size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [options]\n"
            "  dmx plan --custom-from FILE --custom-to FILE [options]\n"
            "  dmx plan --fig3 [--csv FILE] [--svg FILE] [--json]\n"
            "Layouts: block-cyclic with MB x NB blocks on a PR x PC process grid whose ranks are\n"
            "numbered row-major (ORD = R: rank = pr*PC + pc) or column-major (C: pr + pc*PR).\n"
            "The target has size M x N, or N x M with --transpose (op = T). Either side can be a\n"
            "custom grid layout read from a file (--custom-from / --custom-to; --size is then\n"
            "optional). P = the larger rank count; extra ranks own nothing.\n"
            "options:\n"
            "  --transpose    target holds the transpose of the source\n"
            "  --sigma        also print the relabeling: role (target rank) j -> process sigma[j]\n"
            "  --json         print one JSON object instead of text\n"
            "  --fig3         the COSTA Figure 3 sweep: 1e5 x 1e5, 10 x 10 grid, R -> C, target\n"
            "                 blocks 1e4, source blocks 1 .. 1e4\n"
            "  --csv FILE     (with --fig3) write the curve as CSV\n"
            "  --svg FILE     (with --fig3) write the curve as an SVG line plot\n"
            "custom layout file (whitespace separated, '#' starts a comment):\n"
            "  size M N\n"
            "  rowsplits 0 r1 ... M      (nrb + 1 increasing values)\n"
            "  colsplits 0 c1 ... N      (ncb + 1 increasing values)\n"
            "  procs P                   (optional; default 1 + the largest owner)\n"
            "  owners                    followed by nrb * ncb ranks, block row by block row\n");
}

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
