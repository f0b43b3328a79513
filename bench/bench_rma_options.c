/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench rma: the command line (see bench_rma.h), parsed by bench/cli.c, and the one-sided
 * component it runs under. Shared by the strided part (bench_rma.c) and the patch part
 * (bench_rma_patch.c). */
#define _POSIX_C_SOURCE 200809L

#include "bench_rma.h"
#include "bench_util.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bench_rma_osc(void)
{
    const char *s = getenv("OMPI_MCA_osc");
    return s && *s ? s : "default";
}

static int parse_blocks(const char *v, void *dest)
{
    bench_rma_opts *o = dest;
    o->nblocks = bench_parse_size_list(v, 1, o->blocks, 16);
    return o->nblocks > 0 ? 0 : -1;
}

static int parse_shm(const char *v, void *dest)
{
    bench_rma_opts *o = dest;
    int64_t tmp[2];
    o->nshm = bench_parse_list(v, tmp, 2);
    for (int k = 0; k < o->nshm; k++) {
        if (tmp[k] > 1)
            return -1;
        o->shm[k] = (int)tmp[k];
    }
    return o->nshm > 0 ? 0 : -1;
}

static int parse_ops(const char *v, void *dest)
{
    bench_rma_opts *o = dest;
    o->nops = 0;
    if (strcmp(v, "put") == 0 || strcmp(v, "put,get") == 0)
        o->ops[o->nops++] = 0;
    if (strcmp(v, "get") == 0 || strcmp(v, "put,get") == 0 || strcmp(v, "get,put") == 0)
        o->ops[o->nops++] = 1;
    if (strcmp(v, "get,put") == 0)
        o->ops[o->nops++] = 0;
    return o->nops > 0 ? 0 : -1;
}

int bench_rma_parse(int argc, char **argv, bench_rma_opts *o)
{
    int no_patch = 0, no_strided = 0;
    cli_opt opts[] = {
        CLI_FLAG_OPT("json", &o->json, "one JSON line per measurement instead of the table"),
        CLI_OPT("mib", CLI_I64, &o->mib, 1, 1 << 20, "MIB",
                "strided: MiB each rank moves; default 8"),
        CLI_FUNC_OPT("blocks", o, parse_blocks, "a comma-separated list of up to 16 counts >= 1",
                     "B[,B...]", "strided: block lengths in doubles; default 1,8,64,512,4096"),
        CLI_OPT("reps", CLI_INT, &o->reps, 1, 0, "R", "strided: timed repetitions; default 5"),
        CLI_OPT("warmup", CLI_INT, &o->warmup, 0, 0, "W", "strided: untimed runs first; default 1"),
        CLI_FUNC_OPT("shm", o, parse_shm, "1, 0, 1,0 or 0,1", "LIST",
                     "strided: dmx heaps with DMX_SHM=1 and/or 0; default 1,0"),
        CLI_FUNC_OPT("ops", o, parse_ops, "put, get or put,get", "LIST",
                     "strided: put, get or both; default put,get"),
        CLI_FLAG_OPT("no-strided", &no_strided, "skip the strided put/get part"),
        CLI_FLAG_OPT("no-patch", &no_patch, "skip the patch fetch part"),
        CLI_OPT("patch-n", CLI_I64, &o->patch_n, 1, 0, "N", "patch: matrix order; default 4096"),
        CLI_OPT("patch-m", CLI_I64, &o->patch_m, 1, 0, "M",
                "patch: patch order, <= --patch-n; default 256"),
        CLI_OPT("patch-nb", CLI_I64, &o->patch_nb, 1, 0, "NB", "patch: block size; default 64"),
        CLI_OPT("patch-reps", CLI_INT, &o->patch_reps, 1, 0, "R",
                "patch: timed repetitions; default 20"),
    };
    cli_spec spec = {
        "bench rma",
        1,
        "[options]",
        "Strided one-sided put and get to rank (r+1) % P, dmx (dmx_aput/dmx_aget) against\n"
        "MPI_Put/MPI_Get per block, with a vector type, and pack + contiguous; then random\n"
        "patch fetches (dmx_patch_get against pdgemr2d). Every result is verified.",
        opts,
        CLI_NOPTS(opts),
        "Exit status: 0 all correct, 1 wrong elements, 2 bad options.\n"};
    int loud = bench_first_process();
    int rc = cli_parse(&spec, argc, argv, loud);
    if (rc != CLI_RUN)
        return rc;
    o->patch = !no_patch;
    o->strided = !no_strided;
    if (o->patch && o->patch_m > o->patch_n) {
        if (loud)
            cli_error(&spec, "--patch-m %lld is larger than --patch-n %lld", (long long)o->patch_m,
                      (long long)o->patch_n);
        return CLI_ERROR;
    }
    return CLI_RUN;
}
