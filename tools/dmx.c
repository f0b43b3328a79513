/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmx command-line program: benchmarks, the offline relabeling planner, models, settings.
 *
 * Every subcommand is one row of the table below: its words, its argument synopsis, a one-line
 * help, the function that runs it and whether it runs under mpirun. Usage is printed from the
 * table, so adding a subcommand is adding a row (and declaring its function in bench/bench.h or
 * tools/dmx_tool.h). The function gets argv starting at the subcommand's last word. */
#include "bench.h"
#include "dmx.h"
#include "dmx_tool.h"

#include <stdio.h>
#include <string.h>

typedef struct subcommand {
    const char *name; /* one or more words, separated by single spaces: "bench redist" */
    const char *args; /* argument synopsis shown in the usage */
    const char *help; /* one line */
    int (*run)(int argc, char **argv);
    int needs_mpirun; /* 1: run as "mpirun -n P dmx ..."; 0: one process, no mpirun */
} subcommand;

static const subcommand commands[] = {
    {"bench redist", "[--json] [options]", "redistribution benchmark", dmx_cmd_bench_redist, 1},
    {"bench exchange", "[--json] [options]", "sparse exchange benchmark", dmx_cmd_bench_exchange,
     1},
    {"bench rma", "[--json] [options]", "one-sided (strided put/get, patches) benchmark",
     dmx_cmd_bench_rma, 1},
    {"bench coll", "[--json] [options]", "collectives: every algorithm, auto and MPI's own",
     dmx_cmd_bench_coll, 1},
    {"bench gemm", "[--json] [options]", "multiply: dmx (auto, each algorithm) vs pdgemm",
     dmx_cmd_bench_gemm, 1},
    {"calibrate gemm", "[-o FILE] [options]", "local multiply rate by panel width",
     dmx_cmd_calibrate_gemm, 1},
    {"calibrate", "[-o FILE] [options]", "measure the collectives' cost model parameters",
     dmx_cmd_calibrate, 1},
    {"model coll", "--p P[,P...] --bytes B[,B...] [options]", "predicted collective times at any P",
     dmx_cmd_model_coll, 0},
    {"model gemm", "--p P[,P...] --n N [options]", "predicted multiply times, best G (HSUMMA)",
     dmx_cmd_model_gemm, 0},
    {"model exchange", "--p P [options]", "the exchange's protocol choice, explained",
     dmx_cmd_model_exchange, 0},
    {"model rma", "--op OP --count N --blocklen L [options]",
     "a one-sided transfer's path, explained", dmx_cmd_model_rma, 0},
    {"model redist", "--size M,N --from ... --to ... [options]",
     "a redistribution's engine, explained", dmx_cmd_model_redist, 0},
    {"bench relabel", "[--json] [options]", "relabeling solver benchmark", dmx_cmd_bench_relabel,
     0},
    {"plan", "--size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [options]",
     "offline relabeling planner", dmx_cmd_plan, 0},
    {"settings", "[--all] [--markdown]", "the DMX_* environment settings and their values",
     dmx_cmd_settings, 0},
};
enum { NCOMMANDS = (int)(sizeof commands / sizeof commands[0]), HELP_COLUMN = 51 };

static void usage(FILE *f)
{
    fprintf(f, "usage:\n");
    for (int c = 0; c < NCOMMANDS; c++) {
        char line[256];
        snprintf(line, sizeof line, "  %sdmx %s %s", commands[c].needs_mpirun ? "mpirun -n P " : "",
                 commands[c].name, commands[c].args);
        int len = (int)strlen(line);
        if (len <= HELP_COLUMN)
            fprintf(f, "%-*s %s\n", HELP_COLUMN, line, commands[c].help);
        else
            fprintf(f, "%s\n%-*s %s\n", line, HELP_COLUMN, "", commands[c].help);
    }
    fprintf(f, "  %-*s %s\n  %-*s %s\n", HELP_COLUMN - 2,
            "dmx help SUBCOMMAND, dmx SUBCOMMAND --help", "its options and their defaults",
            HELP_COLUMN - 2, "dmx --version", "the version of dmx");
    fprintf(f, "Exit status: 0 success, 2 a bad argument (named on stderr); a subcommand's\n"
               "--help gives its other codes.\n");
}

/* Number of words of @p name that argv[1..] spells, or 0 if it does not match. */
static int matches(const char *name, int argc, char **argv)
{
    int word = 1;
    const char *p = name;
    while (*p) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (word >= argc || strlen(argv[word]) != len || strncmp(argv[word], p, len) != 0)
            return 0;
        word++;
        p += len;
        if (*p == ' ')
            p++;
    }
    return word - 1;
}

/* dmx help [SUBCOMMAND...]: the subcommand's --help, or the list. */
static int help(int argc, char **argv)
{
    for (int c = 0; c < NCOMMANDS && argc > 2; c++) {
        int words = matches(commands[c].name, argc - 1, argv + 1);
        if (words > 0 && words == argc - 2) {
            char *sub[3] = {argv[argc - 1], "--help", NULL};
            return commands[c].run(2, sub);
        }
    }
    if (argc > 2) {
        fprintf(stderr, "dmx: help: unknown subcommand '%s'\n", argv[2]);
        usage(stderr);
        return 2;
    }
    usage(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    for (int c = 0; c < NCOMMANDS; c++) {
        int words = matches(commands[c].name, argc, argv);
        if (words > 0)
            return commands[c].run(argc - words, argv + words);
    }
    if (argc >= 2 && strcmp(argv[1], "help") == 0)
        return help(argc, argv);
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("dmx %s\n", dmx_version(NULL, NULL, NULL));
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2)
        fprintf(stderr, "dmx: unknown %s '%s'\n", argv[1][0] == '-' ? "option" : "subcommand",
                argv[1]);
    usage(stderr);
    return 2;
}
