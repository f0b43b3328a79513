/* Placeholder until this subcommand is written. */
#include "dmx_tool.h"

#include <stdio.h>

int dmx_cmd_bench_exchange(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dmx: this subcommand is not built yet\n");
    return 2;
}
