/* SPDX-License-Identifier: BSD-3-Clause */
/* Entry points of the benchmarks, run by the dmx program (tools/dmx.c lists them in its table of
 * subcommands). Each gets argv starting at its own name and returns the process exit code. */
#ifndef DMX_BENCH_H
#define DMX_BENCH_H

/* dmx bench redist [options]   (under mpirun) bench/bench_redist.c */
int dmx_cmd_bench_redist(int argc, char **argv);
/* dmx bench exchange [options] (under mpirun) bench/bench_exchange.c */
int dmx_cmd_bench_exchange(int argc, char **argv);
/* dmx bench relabel [options]  (one process)  bench/bench_relabel.c */
int dmx_cmd_bench_relabel(int argc, char **argv);
/* dmx bench rma [options]      (under mpirun) bench/bench_rma.c */
int dmx_cmd_bench_rma(int argc, char **argv);
/* dmx bench coll [options]     (under mpirun) bench/bench_coll.c */
int dmx_cmd_bench_coll(int argc, char **argv);
/* mpirun -n P dmx bench gemm [options]  bench/bench_gemm.c */
int dmx_cmd_bench_gemm(int argc, char **argv);

#endif
