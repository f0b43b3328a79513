/* SPDX-License-Identifier: BSD-3-Clause */
/* The one command-line parser of the dmx program (glibc's getopt_long behind a table).
 *
 * A subcommand describes its options as an array of cli_opt (name, kind, where the value goes,
 * its bounds, a help line that states the default) and calls cli_parse. The parser prints the
 * help (--help, -h), names a bad option or value ("dmx: bench gemm: bad value for --reps:
 * 'abc' (a whole number >= 1)"), checks that an option which needs another one got it, and
 * returns what the subcommand should do. Under mpirun every rank parses the same argv before
 * MPI_Init, so every rank takes the same exit; only the first process prints. */
#ifndef DMX_CLI_H
#define DMX_CLI_H

#include <stdint.h>
#include <stdio.h>

typedef enum cli_kind {
    CLI_FLAG,   /* no value; *(int *)dest = 1 */
    CLI_INT,    /* int in [lo, hi] (hi 0: 10^9) */
    CLI_I64,    /* int64_t in [lo, hi] (hi 0: no upper bound) */
    CLI_SIZE,   /* int64_t with an optional k/M/G suffix (binary), in [lo, hi] */
    CLI_DOUBLE, /* finite double >= lo */
    CLI_STR,    /* const char *; the argv string itself */
    CLI_FUNC    /* parse(value, dest) returns 0 or -1; what (below) says what it expects */
} cli_kind;

typedef struct cli_opt {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 or a letter: -o FILE */
    cli_kind kind;
    void *dest;
    int64_t lo, hi;
    const char *meta;     /* value placeholder in the help: "N", "FILE" */
    const char *help;     /* one or more lines separated by '\n'; states the default */
    const char *requires; /* another option's name that must be given with this one, or NULL */
    int (*parse)(const char *value, void *dest); /* CLI_FUNC */
    const char *what; /* CLI_FUNC: what a valid value looks like, for the error message */
    int seen;         /* written by cli_parse: how many times it was given */
} cli_opt;

typedef struct cli_spec {
    const char *name;  /* "bench gemm" */
    int mpirun;        /* 1: usage shows "mpirun -n P dmx ..." */
    const char *args;  /* synopsis after the name, e.g. "[options]" */
    const char *about; /* paragraph printed after the usage line, may be NULL */
    cli_opt *opts;
    int nopts;
    const char *after; /* text after the option list (exit status, examples), may be NULL */
} cli_spec;

/* Table rows (designated initializers: the fields not named are zero). */
#define CLI_OPT(nm, k, d, l, h, mt, hl)                                                            \
    {                                                                                              \
        .name = (nm), .kind = (k), .dest = (d), .lo = (l), .hi = (h), .meta = (mt), .help = (hl)   \
    }
#define CLI_OPT_REQ(nm, k, d, l, h, mt, hl, rq)                                                    \
    {                                                                                              \
        .name = (nm), .kind = (k), .dest = (d), .lo = (l), .hi = (h), .meta = (mt), .help = (hl),  \
        .requires = (rq)                                                                           \
    }
#define CLI_FLAG_OPT(nm, d, hl)                                                                    \
    {                                                                                              \
        .name = (nm), .kind = CLI_FLAG, .dest = (d), .help = (hl)                                  \
    }
#define CLI_FLAG_REQ(nm, d, hl, rq)                                                                \
    {                                                                                              \
        .name = (nm), .kind = CLI_FLAG, .dest = (d), .help = (hl), .requires = (rq)                \
    }
#define CLI_STR_OPT(nm, d, mt, hl)                                                                 \
    {                                                                                              \
        .name = (nm), .kind = CLI_STR, .dest = (d), .meta = (mt), .help = (hl)                     \
    }
#define CLI_FUNC_OPT(nm, d, fn, wh, mt, hl)                                                        \
    {                                                                                              \
        .name = (nm), .kind = CLI_FUNC, .dest = (d), .parse = (fn), .what = (wh), .meta = (mt),    \
        .help = (hl)                                                                               \
    }
#define CLI_NOPTS(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { CLI_RUN = 0, CLI_HELP = 1, CLI_ERROR = 2 };

/* Parses argv[1..argc) against spec. Returns CLI_RUN, CLI_HELP (the help was printed on stdout
 * if loud) or CLI_ERROR (the message and a usage line were printed on stderr if loud). Every
 * opts[k].seen is set. Positional arguments are an error. */
int cli_parse(cli_spec *spec, int argc, char **argv, int loud);

/* Prints the full help of spec on f. */
void cli_help(const cli_spec *spec, FILE *f);

/* Was the option called name given? (After cli_parse.) */
int cli_given(const cli_spec *spec, const char *name);

/* Prints "dmx: NAME: " and the formatted message and a line pointing to --help on stderr. For
 * checks a subcommand makes after cli_parse (e.g. two values that do not fit together). */
void cli_error(const cli_spec *spec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Progress on stderr for long runs: "dmx: NAME: [step/total] what" on its own line, flushed.
 * Prints nothing when quiet is set (non-root ranks). */
void cli_progress(int quiet, const char *name, int step, int total, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif /* DMX_CLI_H */
