/* SPDX-License-Identifier: BSD-3-Clause */
/* The one command-line parser of the dmx program (see cli.h). */
#include "cli.h"

#include "bench_util.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { HELP_COL = 28, VAL_BASE = 256 };

static void print_usage_line(const cli_spec *s, FILE *f)
{
    fprintf(f, "usage: %sdmx %s %s\n", s->mpirun ? "mpirun -n P " : "", s->name,
            s->args ? s->args : "[options]");
}

static void print_opt(const cli_opt *o, FILE *f)
{
    char head[96];
    int len;
    if (o->short_name)
        len = snprintf(head, sizeof head, "  -%c, --%s", o->short_name, o->name);
    else
        len = snprintf(head, sizeof head, "  --%s", o->name);
    if (o->kind != CLI_FLAG && len > 0 && len < (int)sizeof head)
        snprintf(head + len, sizeof head - (size_t)len, " %s", o->meta ? o->meta : "VALUE");
    fputs(head, f);
    len = (int)strlen(head);
    const char *p = o->help ? o->help : "";
    int first = 1;
    do {
        size_t n = strcspn(p, "\n");
        if (first && len < HELP_COL - 1)
            fprintf(f, "%*s", HELP_COL - len, "");
        else
            fprintf(f, "\n%*s", HELP_COL, "");
        fwrite(p, 1, n, f);
        p += n;
        if (*p == '\n')
            p++;
        first = 0;
    } while (*p != '\0');
    if (o->requires)
        fprintf(f, "\n%*s(only with --%s)", HELP_COL, "", o->requires);
    fputc('\n', f);
}

void cli_help(const cli_spec *s, FILE *f)
{
    print_usage_line(s, f);
    if (s->about)
        fprintf(f, "%s\n", s->about);
    fprintf(f, "options:\n");
    for (int k = 0; k < s->nopts; k++)
        print_opt(&s->opts[k], f);
    fprintf(f, "  -h, --help%*sthis text\n", HELP_COL - 12, "");
    if (s->after)
        fprintf(f, "%s", s->after);
}

static void hint(const cli_spec *s)
{
    print_usage_line(s, stderr);
    fprintf(stderr, "(dmx %s --help lists every option)\n", s->name);
}

void cli_error(const cli_spec *s, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dmx: %s: ", s->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    hint(s);
}

void cli_progress(int quiet, const char *name, int step, int total, const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    fprintf(stderr, "dmx: %s: [%d/%d] ", name, step, total);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

int cli_given(const cli_spec *s, const char *name)
{
    for (int k = 0; k < s->nopts; k++)
        if (strcmp(s->opts[k].name, name) == 0)
            return s->opts[k].seen > 0;
    return 0;
}

/* What a valid value of o looks like, for the error message. */
static void describe(const cli_opt *o, char *buf, size_t cap)
{
    switch (o->kind) {
    case CLI_INT:
    case CLI_I64:
    case CLI_SIZE:
        snprintf(buf, cap, "a whole number%s >= %lld",
                 o->kind == CLI_SIZE ? " (suffix k, M or G allowed)" : "", (long long)o->lo);
        if (o->hi > 0) {
            size_t l = strlen(buf);
            snprintf(buf + l, cap - l, " and <= %lld", (long long)o->hi);
        }
        break;
    case CLI_DOUBLE: snprintf(buf, cap, "a number >= %lld", (long long)o->lo); break;
    default: snprintf(buf, cap, "%s", o->what ? o->what : "see --help");
    }
}

/* Stores value into o->dest. Returns 0 or -1. */
static int store(const cli_opt *o, const char *v)
{
    int64_t x;
    switch (o->kind) {
    case CLI_FLAG: *(int *)o->dest = 1; return 0;
    case CLI_INT:
        if (bench_parse_i64(v, o->lo, &x) != 0 || x > (o->hi > 0 ? o->hi : 1000000000))
            return -1;
        *(int *)o->dest = (int)x;
        return 0;
    case CLI_I64:
    case CLI_SIZE:
        if ((o->kind == CLI_I64 ? bench_parse_i64(v, o->lo, &x) : bench_parse_size(v, o->lo, &x)) !=
                0 ||
            (o->hi > 0 && x > o->hi))
            return -1;
        *(int64_t *)o->dest = x;
        return 0;
    case CLI_DOUBLE: return bench_parse_double(v, (double)o->lo, (double *)o->dest);
    case CLI_STR:
        if (*v == '\0')
            return -1;
        *(const char **)o->dest = v;
        return 0;
    case CLI_FUNC: return o->parse(v, o->dest);
    }
    return -1;
}

/* The option whose getopt value is val, or NULL. */
static cli_opt *by_val(cli_spec *s, int val)
{
    for (int k = 0; k < s->nopts; k++)
        if (val == VAL_BASE + k || (s->opts[k].short_name && val == s->opts[k].short_name))
            return &s->opts[k];
    return NULL;
}

/* If word ("--abc" or "--abc=v") abbreviates two or more options, says which; returns 1 then. */
static int report_ambiguous(const cli_spec *s, const char *word)
{
    if (strncmp(word, "--", 2) != 0)
        return 0;
    size_t len = strcspn(word + 2, "=");
    char list[256] = "";
    int n = 0;
    for (int k = 0; k < s->nopts; k++)
        if (strncmp(s->opts[k].name, word + 2, len) == 0) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s--%s", n ? ", " : "", s->opts[k].name);
            n++;
        }
    if (n < 2)
        return 0;
    cli_error(s, "ambiguous option '%.*s' (%s)", (int)len + 2, word, list);
    return 1;
}

/* The message for getopt's '?' or ':' (argv[optind - 1] is the offending word). */
static void report_getopt(cli_spec *s, int c, const char *word)
{
    cli_opt *o = optopt ? by_val(s, optopt) : NULL;
    if (c == ':' && o)
        cli_error(s, "option '--%s' needs a value (%s)", o->name, o->meta ? o->meta : "VALUE");
    else if (o && o->kind == CLI_FLAG)
        cli_error(s, "option '--%s' takes no value", o->name);
    else if (optopt && !o)
        cli_error(s, "unknown option '-%c'", optopt);
    else if (!report_ambiguous(s, word))
        cli_error(s, "unknown option '%s'", word);
}

static int check_requires(cli_spec *s, int loud)
{
    for (int k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (o->seen && o->requires && !cli_given(s, o->requires)) {
            if (loud)
                cli_error(s, "--%s needs --%s", o->name, o->requires);
            return CLI_ERROR;
        }
    }
    return CLI_RUN;
}

/* Builds getopt_long's tables into lo (nopts + 2 entries) and sh (3 * nopts + 3 chars). */
static void tables(const cli_spec *s, struct option *lo, char *sh)
{
    int n = 0, q = 0;
    sh[q++] = ':';
    sh[q++] = 'h';
    for (int k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        lo[n].name = o->name;
        lo[n].has_arg = o->kind == CLI_FLAG ? no_argument : required_argument;
        lo[n].flag = NULL;
        lo[n].val = o->short_name ? o->short_name : VAL_BASE + k;
        n++;
        if (o->short_name) {
            sh[q++] = o->short_name;
            if (o->kind != CLI_FLAG)
                sh[q++] = ':';
        }
    }
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){NULL, 0, NULL, 0};
    sh[q] = '\0';
}

int cli_parse(cli_spec *s, int argc, char **argv, int loud)
{
    struct option *lo = calloc((size_t)s->nopts + 2, sizeof *lo);
    char *sh = malloc(3 * (size_t)s->nopts + 3);
    if (!lo || !sh) {
        free(lo);
        free(sh);
        if (loud)
            fprintf(stderr, "dmx: %s: out of memory\n", s->name);
        return CLI_ERROR;
    }
    tables(s, lo, sh);
    for (int k = 0; k < s->nopts; k++)
        s->opts[k].seen = 0;
    int rc = CLI_RUN, c;
    opterr = 0;
    optind = 0; /* glibc: start over (each subcommand parses once, some twice) */
    while (rc == CLI_RUN && (c = getopt_long(argc, argv, sh, lo, NULL)) != -1) {
        const char *word = argv[optind - 1];
        cli_opt *o = NULL;
        if (c == 'h') {
            if (loud)
                cli_help(s, stdout);
            rc = CLI_HELP;
        } else if (c == '?' || c == ':' || (o = by_val(s, c)) == NULL) {
            if (loud)
                report_getopt(s, c, word);
            rc = CLI_ERROR;
        } else if (store(o, optarg) != 0) {
            if (loud) {
                char what[128];
                describe(o, what, sizeof what);
                cli_error(s, "bad value for --%s: '%s' (%s)", o->name, optarg, what);
            }
            rc = CLI_ERROR;
        } else {
            o->seen++;
        }
    }
    if (rc == CLI_RUN && optind < argc) {
        if (loud)
            cli_error(s, "unexpected argument '%s'", argv[optind]);
        rc = CLI_ERROR;
    }
    if (rc == CLI_RUN)
        rc = check_requires(s, loud);
    free(lo);
    free(sh);
    return rc;
}
