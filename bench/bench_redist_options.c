/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench redist: the command line (see bench_redist.h), parsed by bench/cli.c. */
#include "bench_redist.h"
#include "bench_util.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static int parse_grid(const char *s, grid *g)
{
    int64_t a, b;
    if (bench_parse_pair(s, 'x', &a, &b) != 0 || a > 65536 || b > 65536)
        return -1;
    g->pr = (int)a;
    g->pc = (int)b;
    return 0;
}

/* Comma-separated subset of dmx, scalapack, alltoallv. */
static int parse_impls(const char *s, int use[3])
{
    static const char *const names[3] = {"dmx", "scalapack", "alltoallv"};
    use[0] = use[1] = use[2] = 0;
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int k = 0; k < 3; k++)
            if (strlen(names[k]) == len && strncmp(s, names[k], len) == 0)
                found = use[k] = 1;
        if (!found)
            return -1;
        s += len;
        if (*s == ',')
            s++;
    }
    return use[0] || use[1] || use[2] ? 0 : -1;
}

typedef struct pair {
    int64_t *a, *b;
} pair;

static int parse_pair_opt(const char *v, void *dest)
{
    const pair *p = dest;
    return bench_parse_pair(v, ',', p->a, p->b);
}

static int parse_grid_opt(const char *v, void *dest)
{
    return parse_grid(v, dest);
}

static int parse_impls_opt(const char *v, void *dest)
{
    return parse_impls(v, dest);
}

static int parse_op(const char *v, void *dest)
{
    options *o = dest;
    o->op_n = strcmp(v, "N") == 0 || strcmp(v, "n") == 0 || strcmp(v, "both") == 0;
    o->op_t = strcmp(v, "T") == 0 || strcmp(v, "t") == 0 || strcmp(v, "both") == 0;
    return o->op_n || o->op_t ? 0 : -1;
}

static int parse_case(const char *v, void *dest)
{
    options *o = dest;
    o->case_redist = strcmp(v, "redist") == 0 || strcmp(v, "all") == 0;
    o->case_same = strcmp(v, "same") == 0 || strcmp(v, "all") == 0;
    return o->case_redist || o->case_same ? 0 : -1;
}

static int parse_align(const char *v, void *dest)
{
    int *a = dest;
    if (bench_parse_int(v, 0, a) != 0 || (*a != 0 && (*a < 8 || (*a & (*a - 1)) != 0)))
        return -1;
    return 0;
}

static void defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->m = o->n = 4096;
    o->from_mb = o->from_nb = 32;
    o->to_mb = o->to_nb = 128;
    o->reps = 10;
    o->warmup = 1;
    o->batch = 1;
    o->align = -1;
    o->max_n = 4096;
    o->count = 90;
    o->seq_min = 200;
    o->seq_max = 1000;
    o->op_n = o->op_t = 1;
    o->case_redist = o->case_same = 1;
    o->use[0] = o->use[1] = o->use[2] = 1;
}

static const char about[] =
    "Times A = op(B) between block-cyclic layouts (doubles) for dmx, ScaLAPACK (pdgemr2d /\n"
    "pdtran) and a hand-written MPI_Alltoallv redistribution. Grids: row-major rank order,\n"
    "first block on process (0,0); default 2x2 if P >= 4, 1x2 if P == 2, else 1xP.";

static const char after[] =
    "Exit status: 0 all correct, 1 some implementation produced wrong elements,\n"
    "2 bad options, 3 an implementation failed to run (and none was wrong).\n";

int redist_parse_options(int argc, char **argv, options *o, int loud)
{
    defaults(o);
    pair size = {&o->m, &o->n}, from = {&o->from_mb, &o->from_nb}, to = {&o->to_mb, &o->to_nb};
    grid both = {0, 0};
    cli_opt opts[] = {
        CLI_OPT("m", CLI_I64, &o->m, 1, 0, "M",
                "rows of A (B is M x N for op N, N x M for T);\ndefault 4096"),
        CLI_OPT("n", CLI_I64, &o->n, 1, 0, "N", "columns of A; default 4096"),
        CLI_FUNC_OPT("size", &size, parse_pair_opt, "M,N, both >= 1", "M,N", "--m and --n at once"),
        CLI_FUNC_OPT("from", &from, parse_pair_opt, "MB,NB, both >= 1", "MB,NB",
                     "blocks of B; default 32,32"),
        CLI_OPT("from-mb", CLI_I64, &o->from_mb, 1, 0, "MB", "row blocks of B"),
        CLI_OPT("from-nb", CLI_I64, &o->from_nb, 1, 0, "NB", "column blocks of B"),
        CLI_FUNC_OPT("to", &to, parse_pair_opt, "MB,NB, both >= 1", "MB,NB",
                     "blocks of A; default 128,128"),
        CLI_OPT("to-mb", CLI_I64, &o->to_mb, 1, 0, "MB", "row blocks of A"),
        CLI_OPT("to-nb", CLI_I64, &o->to_nb, 1, 0, "NB", "column blocks of A"),
        CLI_FUNC_OPT("grid", &both, parse_grid_opt, "PRxPC, both in [1, 65536]", "PRxPC",
                     "process grid of both layouts"),
        CLI_FUNC_OPT("from-grid", &o->from_grid, parse_grid_opt, "PRxPC, both in [1, 65536]",
                     "PRxPC", "process grid of B"),
        CLI_FUNC_OPT("to-grid", &o->to_grid, parse_grid_opt, "PRxPC, both in [1, 65536]", "PRxPC",
                     "process grid of A"),
        CLI_FUNC_OPT("op", o, parse_op, "N, T or both", "N|T|both",
                     "copy, transpose or both; default both"),
        CLI_FUNC_OPT("case", o, parse_case, "redist, same or all", "redist|same|all",
                     "redist: the layouts above; same: A's layout for B too;\ndefault all"),
        CLI_OPT("reps", CLI_INT, &o->reps, 1, 0, "R",
                "timed repetitions, median reported; default 10"),
        CLI_OPT("warmup", CLI_INT, &o->warmup, 0, 0, "W",
                "untimed (verified) runs first; default 1"),
        CLI_OPT("batch", CLI_INT, &o->batch, 1, 0, "K",
                "also time dmx on K matrices in one plan, per matrix;\ndefault 1"),
        CLI_FUNC_OPT("align", &o->align, parse_align, "0 or a power of two >= 8", "BYTES",
                     "alignment of every local array, a power of two >= 8,\nor 0 for plain "
                     "malloc (16); default: everything twice,\nwith 0 and with 64"),
        CLI_FLAG_OPT("sweep", &o->sweep,
                     "one-shot calls from 1x1 to --max-n (dmx_transform_once,\na plan made once, "
                     "pdgemr2d/pdtran), ratio per size"),
        CLI_OPT_REQ("max-n", CLI_I64, &o->max_n, 1, 0, "N", "largest size; default 4096", "sweep"),
        CLI_FLAG_OPT("sequence", &o->sequence,
                     "a GEMR2D.dat-style sequence (new shape every call)"),
        CLI_OPT_REQ("count", CLI_INT, &o->count, 1, 0, "C", "tests; default 90", "sequence"),
        CLI_OPT_REQ("seq-min", CLI_I64, &o->seq_min, 1, 0, "M", "smallest matrix size; default 200",
                    "sequence"),
        CLI_OPT_REQ("seq-max", CLI_I64, &o->seq_max, 1, 0, "M", "largest matrix size; default 1000",
                    "sequence"),
        CLI_FUNC_OPT("impl", o->use, parse_impls_opt,
                     "a comma-separated subset of dmx, "
                     "scalapack, alltoallv",
                     "LIST", "subset of dmx,scalapack,alltoallv; default all"),
        CLI_FLAG_OPT("relabel", &o->relabel,
                     "also time dmx with relabeling (dmx_plan_create_relabeled),\n"
                     "with its predicted cost"),
        CLI_OPT_REQ("node-ratio", CLI_DOUBLE, &o->node_ratio, 0, 0, "R",
                    "relabeling cost: across-node bytes cost R times within-node\n"
                    "ones (DMX_COST_NODE); 0: remote volume; default 0",
                    "relabel"),
        CLI_FLAG_OPT("json", &o->json, "one JSON line per measurement instead of the table"),
    };
    cli_spec spec = {"bench redist", 1, "[options]", about, opts, CLI_NOPTS(opts), after};
    int rc = cli_parse(&spec, argc, argv, loud);
    if (rc != CLI_RUN)
        return rc;
    if (cli_given(&spec, "grid")) {
        if (!cli_given(&spec, "from-grid"))
            o->from_grid = both;
        if (!cli_given(&spec, "to-grid"))
            o->to_grid = both;
    }
    if (o->seq_min > o->seq_max) {
        if (loud)
            cli_error(&spec, "--seq-min %lld is larger than --seq-max %lld", (long long)o->seq_min,
                      (long long)o->seq_max);
        return CLI_ERROR;
    }
    return CLI_RUN;
}
