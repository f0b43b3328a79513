/* The dmx command-line program: benchmarks and the offline relabeling planner. */
#include "dmx_tool.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage:\n"
               "  mpirun -n 4 dmx bench redist [--json] [options]  redistribution benchmark\n"
               "  mpirun -n P dmx bench exchange [--json] [options] sparse exchange benchmark\n"
               "  dmx bench relabel [--json] [options]             relabeling solver benchmark\n"
               "  mpirun -n P dmx bench coll [--json] [options]     collectives benchmark\n"
               "  mpirun -n P dmx calibrate [-o FILE] [options]    collectives model calibration\n"
               "  dmx model coll --p P --bytes B[,B...] [--svg F]  collectives cost model\n"
               "  dmx plan --size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [options]\n"
               "                                                   offline relabeling planner\n"
               "Run a subcommand with --help for its options.\n");
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "bench") == 0) {
        if (strcmp(argv[2], "redist") == 0)
            return dmx_cmd_bench_redist(argc - 2, argv + 2);
        if (strcmp(argv[2], "exchange") == 0)
            return dmx_cmd_bench_exchange(argc - 2, argv + 2);
        if (strcmp(argv[2], "relabel") == 0)
            return dmx_cmd_bench_relabel(argc - 2, argv + 2);
        if (strcmp(argv[2], "coll") == 0)
            return dmx_cmd_bench_coll(argc - 2, argv + 2);
    } else if (argc >= 2 && strcmp(argv[1], "calibrate") == 0) {
        return dmx_cmd_calibrate(argc - 1, argv + 1);
    } else if (argc >= 3 && strcmp(argv[1], "model") == 0 && strcmp(argv[2], "coll") == 0) {
        return dmx_cmd_model_coll(argc - 2, argv + 2);
    } else if (argc >= 2 && strcmp(argv[1], "plan") == 0) {
        return dmx_cmd_plan(argc - 1, argv + 1);
    } else if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
