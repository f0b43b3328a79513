/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx settings [--all] [--markdown]: the table of DMX_* environment settings (dmx/expert.h,
 * rows in src/core/settings_table.c) with each setting's tier, scope, default, the value this
 * process's environment gives it and its meaning. By default the user tier only, plus every
 * other setting that is set; --all every row. --markdown prints the generated part of
 * docs/settings.md (every row, no current values); the docs_settings test compares the page
 * with it. DMX_* variables that are no setting are named on stderr (a misspelt name is
 * otherwise ignored without a word). One process, no MPI. */
#include "cli.h"
#include "dmx/expert.h"
#include "dmx_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ; /* POSIX */

static const char *const tier_names[] = {"user", "tuning", "test"};
static const char *const scope_names[] = {"local", "must-match", "agreed"};

/* Length of a family row's name before "<NAME>", 0 for other rows. */
static size_t family_prefix(const dmx_setting_desc *d)
{
    const char *at = strstr(d->name, "<NAME>");
    return at ? (size_t)(at - d->name) : 0;
}

/* The rows, by tier and then by name. */
static int by_tier_name(const void *a, const void *b)
{
    const dmx_setting_desc *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int load_rows(dmx_setting_desc **rows)
{
    const int n = dmx_setting_count();
    *rows = calloc((size_t)(n > 0 ? n : 1), sizeof **rows);
    if (!*rows)
        return -1;
    for (int i = 0; i < n; i++)
        if (dmx_setting_describe(i, &(*rows)[i]) != DMX_SUCCESS)
            return -1;
    qsort(*rows, (size_t)n, sizeof **rows, by_tier_name);
    return n;
}

/* The "NAME=value" entries of the environment that belong to family row d, comma-separated,
 * into buf ("" when none). Members are the names that extend its prefix and are no row. */
static void family_current(const dmx_setting_desc *d, const dmx_setting_desc *rows, int n,
                           char *buf, size_t cap)
{
    const size_t pre = family_prefix(d);
    size_t used = 0;
    buf[0] = '\0';
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, d->name, pre) != 0 || eq == *e + pre || eq[1] == '\0')
            continue;
        int row = 0;
        for (int i = 0; i < n && !row; i++)
            row = strlen(rows[i].name) == (size_t)(eq - *e) &&
                  strncmp(rows[i].name, *e, (size_t)(eq - *e)) == 0;
        if (row)
            continue;
        int w = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", *e);
        if (w < 0 || (size_t)w >= cap - used)
            return;
        used += (size_t)w;
    }
}

/* The current value of row d as this process's environment gives it, into buf; "-" unset. */
static void current(const dmx_setting_desc *d, const dmx_setting_desc *rows, int n, char *buf,
                    size_t cap)
{
    if (family_prefix(d) > 0) {
        family_current(d, rows, n, buf, cap);
    } else {
        const char *v = dmx_setting_str(d->name);
        snprintf(buf, cap, "%s", v ? v : "");
        if (v && !d->text) {
            errno = 0;
            char *end = NULL;
            long long x = strtoll(v, &end, 10);
            if (errno != 0 || end == v || *end != '\0' || x < 0)
                snprintf(buf, cap, "%s (bad: %s used)", v, d->dflt);
        }
    }
    if (buf[0] == '\0')
        snprintf(buf, cap, "-");
}

/* Names DMX_* variables of the environment that are no row and no family member. */
static void unknown_variables(const dmx_setting_desc *rows, int n)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "DMX_", 4) != 0 || !eq)
            continue;
        const size_t len = (size_t)(eq - *e);
        int known = 0;
        for (int i = 0; i < n && !known; i++) {
            const size_t pre = family_prefix(&rows[i]);
            known = pre > 0 ? len > pre && strncmp(*e, rows[i].name, pre) == 0
                            : strlen(rows[i].name) == len && strncmp(*e, rows[i].name, len) == 0;
        }
        if (!known)
            fprintf(stderr, "dmx: settings: %.*s is set but is no dmx setting (ignored)\n",
                    (int)len, *e);
    }
}

static int print_table(const dmx_setting_desc *rows, int n, int all)
{
    printf("%-22s %-6s %-10s %-10s %-12s %s\n", "NAME", "TIER", "SCOPE", "DEFAULT", "CURRENT",
           "MEANING");
    int hidden = 0;
    for (int i = 0; i < n; i++) {
        char cur[512];
        current(&rows[i], rows, n, cur, sizeof cur);
        if (!all && rows[i].tier != DMX_SETTING_USER && strcmp(cur, "-") == 0) {
            hidden++;
            continue;
        }
        printf("%-22s %-6s %-10s %-10s %-12s %s\n", rows[i].name, tier_names[rows[i].tier],
               scope_names[rows[i].scope], rows[i].dflt, cur, rows[i].meaning);
    }
    if (hidden > 0)
        printf("(%d tuning and test settings not set and not shown: dmx settings --all)\n", hidden);
    unknown_variables(rows, n);
    return 0;
}

/* Markdown text s with '|' escaped, for a table cell. */
static void md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

static int print_markdown(const dmx_setting_desc *rows, int n)
{
    static const char *const heads[] = {
        "## User settings\n\nWhat a program or its user may want to set.",
        "## Tuning settings\n\nChoices the defaults make well; for measurements, and for "
        "machines where a default is wrong.",
        "## Test settings\n\nThey exist to exercise code paths in the tests and to measure; "
        "not for production runs."};
    printf("<!-- Generated by `dmx settings --markdown` from src/core/settings_table.c; edit the "
           "rows there, not this part. -->\n");
    for (int t = DMX_SETTING_USER; t <= DMX_SETTING_TEST; t++) {
        printf("\n%s\n\n| name | scope | default | meaning |\n|---|---|---|---|\n", heads[t]);
        for (int i = 0; i < n; i++) {
            if ((int)rows[i].tier != t)
                continue;
            printf("| `%s` | %s | ", rows[i].name, scope_names[rows[i].scope]);
            printf(strcmp(rows[i].dflt, "unset") == 0 ? "%s" : "`%s`", rows[i].dflt);
            printf(" | ");
            md_cell(rows[i].doc);
            printf(" |\n");
        }
    }
    return 0;
}

int dmx_cmd_settings(int argc, char **argv)
{
    int all = 0, markdown = 0;
    cli_opt opts[] = {
        CLI_FLAG_OPT("all", &all,
                     "every setting (user, tuning, test); default: the user tier\nand the "
                     "settings that are set"),
        CLI_FLAG_OPT("markdown", &markdown,
                     "print docs/settings.md's generated part (every setting,\nno current "
                     "values) instead"),
    };
    cli_spec spec = {"settings",
                     0,
                     "[--all] [--markdown]",
                     "The DMX_* environment settings: name, tier (user, tuning, test), scope "
                     "(local: may\ndiffer per rank; must-match: must be the same on every rank; "
                     "agreed: dmx agrees\non it), default, the value in this environment, "
                     "meaning. DMX_* variables that\nare no setting are named on stderr. "
                     "docs/settings.md has the full text.",
                     opts,
                     CLI_NOPTS(opts),
                     "Exit status: 0 success, 1 no memory, 2 a bad argument.\n"};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    dmx_setting_desc *rows = NULL;
    const int n = load_rows(&rows);
    int rc = 1;
    if (n >= 0)
        rc = markdown ? print_markdown(rows, n) : print_table(rows, n, all);
    else
        fprintf(stderr, "dmx: settings: cannot read the table\n");
    free(rows);
    return rc;
}
