/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx model exchange | rma | redist: how a module chooses, explained offline, on one process.
 *
 *   dmx model exchange --p P [--protocol NAME] [--neighbours K] [--bytes B] [--json]
 *   dmx model rma --op put|get|acc --count N --blocklen L --stride S [options] [--json]
 *   dmx model redist --size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [options] [--json]
 *
 * Each prints the module's candidates, their predicted cost (or the rule), whether they can run,
 * and the choice with its reason, through the library's dmx_*_explain calls (dmx/expert.h) and
 * dmx_choice_print: the same table, or JSON line, as `dmx model coll --explain` and
 * `dmx model gemm --explain`. The current DMX_* settings apply, as in the library. */
#include "cli.h"
#include "dmx.h"
#include "dmx/expert.h"
#include "dmx_tool.h"
#include "plan_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print @p c (or report the explain call's failure). Returns the exit code. */
int dmx_model_print_choice(const char *cmd, int st, const struct dmx_choice *c, int json)
{
    if (st != DMX_SUCCESS) {
        fprintf(stderr, "dmx: %s: %s\n", cmd, dmx_last_error());
        return st == DMX_ERR_ARG || st == DMX_ERR_UNSUPPORTED ? 2 : 1;
    }
    dmx_choice_print(c, stdout, json);
    return 0;
}

static int parse_protocol(const char *v, void *dest)
{
    return dmx_exchange_protocol_from_name(v, dest) == DMX_SUCCESS ? 0 : -1;
}

int dmx_cmd_model_exchange(int argc, char **argv)
{
    int64_t p = 0, k = -1, bytes = -1;
    int json = 0;
    dmx_exchange_protocol proto = DMX_EXCHANGE_AUTO;
    cli_opt opts[] = {
        CLI_OPT("p", CLI_SIZE, &p, 1, 2147483647, "P", "ranks of the communicator (required)"),
        CLI_FUNC_OPT("protocol", &proto, parse_protocol, "auto, nbx, pex, pcx or rsx", "NAME",
                     "protocol passed to dmx_exchange; default auto"),
        CLI_OPT("neighbours", CLI_I64, &k, 0, 0, "K",
                "messages per rank (shown; AUTO's rule does not use it)"),
        CLI_OPT("bytes", CLI_SIZE, &bytes, 0, 0, "B",
                "bytes per message (shown; AUTO's rule does not use it)"),
        CLI_FLAG_OPT("json", &json, "one JSON line instead of the table"),
    };
    cli_spec spec = {"model exchange",
                     0,
                     "--p P [options]",
                     "The sparse exchange's protocol choice explained: the protocols, the rule "
                     "that\npicks one from P (or DMX_EXCHANGE), and why. Runs nothing.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (p == 0) {
        cli_error(&spec, "--p is required");
        return 2;
    }
    dmx_choice c;
    dmx_status st = dmx_exchange_explain(p, proto, &c);
    if (st == DMX_SUCCESS && (k >= 0 || bytes >= 0)) {
        size_t l = strlen(c.inputs);
        snprintf(c.inputs + l, sizeof c.inputs - l, " neighbours=%lld bytes=%lld", (long long)k,
                 (long long)bytes);
    }
    return dmx_model_print_choice("model exchange", st, &c, json);
}

static int parse_op(const char *v, void *dest)
{
    char *op = dest;
    if (strcmp(v, "put") == 0 || strcmp(v, "get") == 0 || strcmp(v, "acc") == 0) {
        *op = v[0];
        return 0;
    }
    return -1;
}

int dmx_cmd_model_rma(int argc, char **argv)
{
    dmx_rma_explain_args a = {'\0', 0, 0, -1, 8, 0, 2, 0};
    int64_t ranks = 2;
    int json = 0;
    cli_opt opts[] = {
        CLI_FUNC_OPT("op", &a.op, parse_op, "put, get or acc", "put|get|acc",
                     "the transfer (required)"),
        CLI_OPT("count", CLI_SIZE, &a.count, 1, 0, "N", "blocks (required)"),
        CLI_OPT("blocklen", CLI_SIZE, &a.blocklen, 1, 0, "L", "elements per block (required)"),
        CLI_OPT("stride", CLI_SIZE, &a.stride, 0, 0, "S",
                "remote stride in elements; default the block length"),
        CLI_OPT("esize", CLI_I64, &a.esize, 1, 64, "E", "bytes per element; default 8"),
        CLI_OPT("ranks", CLI_I64, &ranks, 1, 2147483647, "P",
                "ranks of the heap (1: local copies); default 2"),
        CLI_FLAG_OPT("same-node", &a.same_node,
                     "the target's segment is mapped here (a shared heap on\none node)"),
        CLI_FLAG_OPT("nbi", &a.nbi, "the nonblocking form"),
        CLI_FLAG_OPT("json", &json, "one JSON line instead of the table"),
    };
    cli_spec spec = {"model rma",
                     0,
                     "--op put|get|acc --count N --blocklen L [options]",
                     "A strided one-sided transfer's path explained, on a heap that was not "
                     "probed\n(the built-in rules, DMX_RMA, DMX_SHM). Runs nothing.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (!a.op || a.count == 0 || a.blocklen == 0) {
        cli_error(&spec, "--op, --count and --blocklen are required");
        return 2;
    }
    if (a.stride < 0)
        a.stride = a.blocklen;
    a.ranks = (int)ranks;
    dmx_choice c;
    return dmx_model_print_choice("model rma", dmx_rma_explain(NULL, 0, &a, &c), &c, json);
}

static int parse_bc_arg(const char *v, void *dest)
{
    return plan_parse_bc(v, dest);
}

static int parse_size_arg(const char *v, void *dest)
{
    int64_t *mn = dest;
    return plan_parse_size(v, &mn[0], &mn[1]);
}

int dmx_model_parse_dtype(const char *v, void *dest)
{
    if (strlen(v) != 1 || !strchr("dscz", v[0]))
        return -1;
    *(dmx_dtype *)dest = v[0] == 's'   ? DMX_FLOAT
                         : v[0] == 'c' ? DMX_CFLOAT
                         : v[0] == 'z' ? DMX_CDOUBLE
                                       : DMX_DOUBLE;
    return 0;
}

/* The largest bytes one rank sends plus receives to and from other ranks, and the largest
 * between two ranks, from the package volumes (no relabeling). Returns 0, or -1 after a
 * message. */
static int volumes(const dmx_relabel_desc *from, const dmx_relabel_desc *to, int transpose,
                   int64_t esize, int64_t *rank_bytes, int64_t *peer_bytes)
{
    dmx_relabel_volume *v = NULL;
    dmx_relabel_gains g;
    int p = 0;
    if (dmx_relabel_volume_create(from, to, transpose, 0, &v) != DMX_SUCCESS ||
        dmx_relabel_volume_get_info(v, &p, NULL, NULL) != DMX_SUCCESS ||
        dmx_relabel_volume_get_gains(v, &g) != DMX_SUCCESS) {
        fprintf(stderr, "dmx: model redist: %s\n", dmx_last_error());
        dmx_relabel_volume_destroy(&v);
        return -1;
    }
    int64_t *sum = calloc((size_t)p, sizeof *sum);
    if (!sum) {
        fprintf(stderr, "dmx: model redist: out of memory\n");
        dmx_relabel_volume_destroy(&v);
        return -1;
    }
    *peer_bytes = 0;
    for (int j = 0; j < g.n; j++)
        for (int64_t x = g.rowptr[j]; x < g.rowptr[j + 1]; x++) {
            int i = g.col[x];
            if (i == j)
                continue;        /* kept on its rank: no message */
            sum[i] += g.gain[x]; /* i sends */
            sum[j] += g.gain[x]; /* j receives */
            *peer_bytes = g.gain[x] * esize > *peer_bytes ? g.gain[x] * esize : *peer_bytes;
        }
    *rank_bytes = 0;
    for (int r = 0; r < p; r++)
        *rank_bytes = sum[r] * esize > *rank_bytes ? sum[r] * esize : *rank_bytes;
    free(sum);
    dmx_relabel_volume_destroy(&v);
    return 0;
}

int dmx_cmd_model_redist(int argc, char **argv)
{
    int64_t size[2] = {-1, -1};
    dmx_relabel_desc from, to;
    dmx_dtype t = DMX_DOUBLE;
    int json = 0, once = 0, transpose = 0;
    memset(&from, 0, sizeof from);
    memset(&to, 0, sizeof to);
    cli_opt opts[] = {
        CLI_FUNC_OPT("size", size, parse_size_arg, "M,N", "M,N", "A's size (required)"),
        CLI_FUNC_OPT("from", &from, parse_bc_arg, "MB,NB,PR,PC,ORD with ORD R or C",
                     "MB,NB,PR,PC,ORD", "B's block-cyclic layout (required)"),
        CLI_FUNC_OPT("to", &to, parse_bc_arg, "MB,NB,PR,PC,ORD with ORD R or C", "MB,NB,PR,PC,ORD",
                     "A's block-cyclic layout (required)"),
        CLI_FUNC_OPT("dtype", &t, dmx_model_parse_dtype, "d, s, c or z", "d|s|c|z",
                     "element type; default d"),
        CLI_FLAG_OPT("transpose", &transpose, "op(B) = B^T (B is N x M)"),
        CLI_FLAG_OPT("once", &once, "a dmx_transform_once call (default: dmx_plan_create)"),
        CLI_FLAG_OPT("json", &json, "one JSON line instead of the table"),
    };
    cli_spec spec = {"model redist",
                     0,
                     "--size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD",
                     "A redistribution's engine explained: one-shot with no agreement, the small "
                     "engine\nor the general one, from the package volumes (no relabeling) and "
                     "the DMX_*\nsettings. Runs nothing.",
                     opts,
                     CLI_NOPTS(opts),
                     NULL};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    if (size[0] < 0 || from.mb == 0 || to.mb == 0) {
        cli_error(&spec, "--size, --from and --to are required");
        return 2;
    }
    to.m = size[0], to.n = size[1];
    from.m = transpose ? size[1] : size[0];
    from.n = transpose ? size[0] : size[1];
    int64_t rank_bytes = 0, peer_bytes = 0;
    if (volumes(&from, &to, transpose, dmx_dtype_size(t), &rank_bytes, &peer_bytes) != 0)
        return 2;
    dmx_choice c;
    dmx_status st = dmx_transform_explain(t, size[0], size[1], once, rank_bytes, peer_bytes, &c);
    return dmx_model_print_choice("model redist", st, &c, json);
}
