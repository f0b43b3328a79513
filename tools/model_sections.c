/* SPDX-License-Identifier: BSD-3-Clause */
/* A collectives model file's `np = N` sections on disk (format: docs/coll.md): dmx calibrate at
 * np P replaces the section np = P of its output file and keeps the others, so one file holds
 * the factors measured at every job size calibrated. Text in, text out; rank 0 only. */
#include "dmx_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether line (up to its newline) is an `np = N` line; N in *np. */
static int np_line(const char *line, long long *np)
{
    const char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "np", 2) != 0)
        return 0;
    s += 2;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '=')
        return 0;
    *np = strtoll(s + 1, NULL, 10);
    return 1;
}

/* The whole file, NUL-terminated (malloc'ed), or NULL when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *t = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 && (t = malloc((size_t)n + 1))) {
        if (fread(t, 1, (size_t)n, f) != (size_t)n) {
            free(t);
            t = NULL;
        } else {
            t[n] = '\0';
        }
    }
    if (f)
        fclose(f);
    return t;
}

/* Whether text t (may be NULL) has an `np = N` line. */
static int has_sections(const char *t)
{
    long long np = 0;
    int has = 0;
    for (const char *l = t; l && *l && !has;) {
        has = np_line(l, &np);
        const char *e = strchr(l, '\n');
        l = e ? e + 1 : "";
    }
    return has;
}

int dmx_model_has_sections(const char *path)
{
    char *t = slurp(path);
    const int has = has_sections(t);
    free(t);
    return has;
}

/* Appends n bytes of s to the growing text *out (length *len, capacity *cap); 0 or -1. */
static int put(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = 2 * (*len + n + 1);
        char *g = realloc(*out, c);
        if (!g)
            return -1;
        *out = g;
        *cap = c;
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = '\0';
    return 0;
}

char *dmx_model_merge_section(const char *path, const char *header, const char *section,
                              long long np, char *kept, size_t kept_size)
{
    char *old = slurp(path), *out = NULL;
    size_t len = 0, cap = 0;
    int ok = 0, placed = 0, in_old = 0; /* in_old: inside a section being replaced */
    if (kept_size)
        kept[0] = '\0';
    if (!has_sections(old)) { /* new, or the old format: replaced */
        ok = put(&out, &len, &cap, header, strlen(header)) == 0 &&
             put(&out, &len, &cap, section, strlen(section)) == 0;
        free(old);
        return ok ? out : (free(out), NULL);
    }
    ok = put(&out, &len, &cap, "", 0) == 0;
    for (const char *l = old; ok && *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        long long v = 0;
        if (np_line(l, &v)) {
            in_old = v == np;
            if (!placed && v >= np) { /* the new section before the first at or above np */
                ok = put(&out, &len, &cap, section, strlen(section)) == 0;
                placed = 1;
            }
            if (!in_old && kept_size > strlen(kept) + 24)
                snprintf(kept + strlen(kept), kept_size - strlen(kept), "%s%lld",
                         kept[0] ? ", " : "", v);
        }
        if (ok && !in_old) {
            ok = put(&out, &len, &cap, l, n) == 0;
            if (ok && n > 0 && l[n - 1] != '\n') /* a last line without its newline */
                ok = put(&out, &len, &cap, "\n", 1) == 0;
        }
        l += n;
    }
    if (ok && !placed)
        ok = put(&out, &len, &cap, section, strlen(section)) == 0;
    free(old);
    return ok ? out : (free(out), NULL);
}
