/* Subcommands of the dmx command-line program. Each returns the process exit code. */
#ifndef DMX_TOOL_H
#define DMX_TOOL_H

/* dmx bench redist [options]   (under mpirun) bench/bench_redist.c */
int dmx_cmd_bench_redist(int argc, char **argv);
/* dmx bench exchange [options] (under mpirun) bench/bench_exchange.c */
int dmx_cmd_bench_exchange(int argc, char **argv);
/* dmx bench relabel [options]  (one process)  bench/bench_relabel.c */
int dmx_cmd_bench_relabel(int argc, char **argv);
/* dmx bench rma [options]      (under mpirun) bench/bench_rma.c */
int dmx_cmd_bench_rma(int argc, char **argv);
/* dmx plan [options]           (one process)  tools/plan.c */
int dmx_cmd_plan(int argc, char **argv);

#endif
