/* Subcommands of the dmx command-line program. Each returns the process exit code. */
#ifndef DMX_TOOL_H
#define DMX_TOOL_H

/* dmx bench redist [options]   (under mpirun) bench/bench_redist.c */
int dmx_cmd_bench_redist(int argc, char **argv);
/* dmx bench exchange [options] (under mpirun) bench/bench_exchange.c */
int dmx_cmd_bench_exchange(int argc, char **argv);
/* dmx bench relabel [options]  (one process)  bench/bench_relabel.c */
int dmx_cmd_bench_relabel(int argc, char **argv);
/* dmx bench coll [options]     (under mpirun) bench/bench_coll.c */
int dmx_cmd_bench_coll(int argc, char **argv);
/* dmx calibrate [options]      (under mpirun) tools/calibrate.c */
int dmx_cmd_calibrate(int argc, char **argv);
/* dmx model coll [options]     (one process)  tools/model_coll.c */
int dmx_cmd_model_coll(int argc, char **argv);
/* dmx plan [options]           (one process)  tools/plan.c */
int dmx_cmd_plan(int argc, char **argv);

#endif
