/* SPDX-License-Identifier: BSD-3-Clause */
/* The common shape of a module's choice (choice.h) and its printer: a text table or one JSON
 * line, the same for every module, so `dmx model <module>` explains every choice alike. */
#include "choice.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vput(char *dst, size_t n, const char *fmt, va_list ap)
{
    if (fmt == NULL) {
        dst[0] = '\0';
        return;
    }
    vsnprintf(dst, n, fmt, ap);
}

void dmxi_choice_init(dmx_choice *c, const char *module, const char *fmt, ...)
{
    va_list ap;
    memset(c, 0, sizeof *c);
    snprintf(c->module, sizeof c->module, "%s", module);
    c->chosen = -1;
    va_start(ap, fmt);
    vput(c->inputs, sizeof c->inputs, fmt, ap);
    va_end(ap);
}

int dmxi_choice_add(dmx_choice *c, const char *name, double seconds, int feasible, const char *fmt,
                    ...)
{
    va_list ap;
    if (c->n >= DMX_CHOICE_MAX)
        return -1;
    dmx_choice_candidate *d = &c->cand[c->n];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->seconds = seconds;
    d->feasible = feasible != 0;
    va_start(ap, fmt);
    vput(d->note, sizeof d->note, fmt, ap);
    va_end(ap);
    return c->n++;
}

int dmxi_choice_find(const dmx_choice *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->cand[i].name, name) == 0)
            return i;
    return -1;
}

void dmxi_choice_pick(dmx_choice *c, int i, const char *fmt, ...)
{
    va_list ap;
    c->chosen = i >= 0 && i < c->n ? i : -1;
    va_start(ap, fmt);
    vput(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

/* ---- the printer -------------------------------------------------------------------------- */

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void print_json(const dmx_choice *c, FILE *f)
{
    fprintf(f, "{\"module\":");
    json_str(f, c->module);
    fprintf(f, ",\"inputs\":");
    json_str(f, c->inputs);
    fprintf(f, ",\"candidates\":[");
    for (int i = 0; i < c->n; i++) {
        const dmx_choice_candidate *d = &c->cand[i];
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_str(f, d->name);
        if (isnan(d->seconds))
            fprintf(f, ",\"seconds\":null");
        else
            fprintf(f, ",\"seconds\":%.6g", d->seconds);
        fprintf(f, ",\"feasible\":%s,\"note\":", d->feasible ? "true" : "false");
        json_str(f, d->note);
        fprintf(f, "}");
    }
    fprintf(f, "],\"chosen\":");
    if (c->chosen >= 0)
        json_str(f, c->cand[c->chosen].name);
    else
        fprintf(f, "null");
    fprintf(f, ",\"reason\":");
    json_str(f, c->reason);
    fprintf(f, "}\n");
}

static void print_text(const dmx_choice *c, FILE *f)
{
    int w = 9;
    for (int i = 0; i < c->n; i++) {
        int l = (int)strlen(c->cand[i].name);
        w = l > w ? l : w;
    }
    fprintf(f, "%s: %s\n", c->module, c->inputs);
    fprintf(f, "  %-*s  %12s  %-8s  %s\n", w, "candidate", "predicted_s", "feasible", "note");
    for (int i = 0; i < c->n; i++) {
        const dmx_choice_candidate *d = &c->cand[i];
        char t[32];
        if (isnan(d->seconds))
            snprintf(t, sizeof t, "not priced");
        else
            snprintf(t, sizeof t, "%.4g", d->seconds);
        fprintf(f, "%c %-*s  %12s  %-8s  %s\n", i == c->chosen ? '*' : ' ', w, d->name, t,
                d->feasible ? "yes" : "no", d->note);
    }
    fprintf(f, "chosen: %s (%s)\n", c->chosen >= 0 ? c->cand[c->chosen].name : "none", c->reason);
}

dmx_status dmx_choice_print(const dmx_choice *c, FILE *f, int json)
{
    dmx_status st = DMX_SUCCESS;
    DMXI_CHECK(c != NULL && f != NULL, DMX_ERR_NULL, "choice or file is NULL");
    DMXI_CHECK(c->n >= 0 && c->n <= DMX_CHOICE_MAX && c->chosen < c->n, DMX_ERR_ARG,
               "choice with %d candidates, chosen %d", c->n, c->chosen);
    if (json)
        print_json(c, f);
    else
        print_text(c, f);
cleanup:
    return st;
}
