/* SPDX-License-Identifier: BSD-3-Clause */
/* Subcommands of the dmx command-line program that live in tools/ (the benchmarks' are in
 * bench/bench.h). Each returns the process exit code. */
#ifndef DMX_TOOL_H
#define DMX_TOOL_H

#include <stddef.h>

/* dmx plan [options]           (one process)  tools/plan.c */
int dmx_cmd_plan(int argc, char **argv);

/* mpirun -n P dmx calibrate [options]  tools/calibrate.c */
int dmx_cmd_calibrate(int argc, char **argv);
/* dmx calibrate's sparse-exchange step (tools/calibrate_exchange.c): on a job of one node,
 * NBX, PEX and PCX timed and the fastest written to line as `exchange = NAME` with a comment
 * (line empty on more than one node or one rank). Collective on MPI_COMM_WORLD. NULL, or why
 * every rank stops. */
const char *dmx_calibrate_exchange(char *line, size_t len, int p, int nodes);
/* mpirun -n P dmx calibrate gemm [options]  tools/calibrate_gemm.c */
int dmx_cmd_calibrate_gemm(int argc, char **argv);
/* A collectives model file's np sections (tools/model_sections.c): whether the file at path
 * has `np = N` lines; and the text of that file with its section np replaced by (or, if it has
 * none, given) section, the others kept in place and their N listed in kept; a file without
 * sections, or none at path, becomes header + section. NULL when out of memory (malloc'ed). */
int dmx_model_has_sections(const char *path);
char *dmx_model_merge_section(const char *path, const char *header, const char *section,
                              long long np, char *kept, size_t kept_size);
/* dmx model coll [options]     (one process)  tools/model_coll.c */
int dmx_cmd_model_coll(int argc, char **argv);
/* dmx model gemm [options]     (one process)  tools/model_gemm.c */
int dmx_cmd_model_gemm(int argc, char **argv);

/* dmx model exchange | rma | redist [options]  (one process)  tools/model_explain.c */
int dmx_cmd_model_exchange(int argc, char **argv);
int dmx_cmd_model_rma(int argc, char **argv);
int dmx_cmd_model_redist(int argc, char **argv);
/* Print a module's explained choice (--json: one line), or the explain call's error; the exit
 * code. */
struct dmx_choice;
int dmx_model_print_choice(const char *cmd, int st, const struct dmx_choice *c, int json);

/* --dtype's value for the model commands: d, s, c or z into a dmx_dtype at @p dest; -1 otherwise.
 */
int dmx_model_parse_dtype(const char *v, void *dest);

/* dmx settings [--all] [--markdown]  (one process)  tools/settings.c */
int dmx_cmd_settings(int argc, char **argv);

#endif
