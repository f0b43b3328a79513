/* SPDX-License-Identifier: BSD-3-Clause */
/* Subcommands of the dmx command-line program that live in tools/ (the benchmarks' are in
 * bench/bench.h). Each returns the process exit code. */
#ifndef DMX_TOOL_H
#define DMX_TOOL_H

/* dmx plan [options]           (one process)  tools/plan.c */
int dmx_cmd_plan(int argc, char **argv);

/* mpirun -n P dmx calibrate [options]  tools/calibrate.c */
int dmx_cmd_calibrate(int argc, char **argv);
/* mpirun -n P dmx calibrate gemm [options]  tools/calibrate_gemm.c */
int dmx_cmd_calibrate_gemm(int argc, char **argv);
/* dmx model coll [options]     (one process)  tools/model_coll.c */
int dmx_cmd_model_coll(int argc, char **argv);
/* dmx model gemm [options]     (one process)  tools/model_gemm.c */
int dmx_cmd_model_gemm(int argc, char **argv);

/* dmx settings [--all] [--markdown]  (one process)  tools/settings.c */
int dmx_cmd_settings(int argc, char **argv);

#endif
