/* dmx bench redist: the command line (see bench_redist.h). */
#include "bench_redist.h"
#include "bench_util.h"

#include <stdio.h>
#include <string.h>

void redist_usage(FILE *f)
{
    fprintf(f, "usage: mpirun -n P dmx bench redist [options]\n"
               "Times A = op(B) between block-cyclic layouts (doubles) for dmx, ScaLAPACK\n"
               "(pdgemr2d / pdtran) and a hand-written MPI_Alltoallv redistribution.\n"
               "  --m M, --n N          size of A (B is M x N for op N, N x M for op T)\n"
               "                        (default 4096 x 4096; also --size M,N)\n"
               "  --from MB,NB          blocks of B (default 32,32); or --from-mb, --from-nb\n"
               "  --to MB,NB            blocks of A (default 128,128); or --to-mb, --to-nb\n"
               "  --grid PRxPC          process grid of both layouts; --from-grid, --to-grid set\n"
               "                        one each (default 2x2 if P >= 4, 1x2 if P == 2, else 1xP;\n"
               "                        row-major rank order, first block on process (0,0))\n"
               "  --op N|T|both         copy, transpose or both (default both)\n"
               "  --case redist|same|all  redist: the layouts above; same: A's layout for B too\n"
               "                        (default all)\n"
               "  --reps R              timed repetitions, median reported (default 10)\n"
               "  --warmup W            untimed (verified) runs first (default 1)\n"
               "  --batch K             also time dmx on K matrices in one plan, per matrix\n"
               "  --align BYTES         alignment of every local array, a power of two >= 8,\n"
               "                        or 0 for plain malloc (malloc gives 16; 64 is one cache\n"
               "                        line, as posix_memalign or MKL's allocator give); the\n"
               "                        default runs everything twice, with 0 and with 64\n"
               "  --sweep               one-shot calls from 1x1 to 4096^2 (dmx_transform_once,\n"
               "                        a plan made once, pdgemr2d/pdtran), ratio per size\n"
               "  --max-n N             --sweep: largest size (default 4096)\n"
               "  --sequence            a GEMR2D.dat-style sequence (new shape every call)\n"
               "  --count C             --sequence: tests (default 90)\n"
               "  --seq-min M, --seq-max M  --sequence: matrix sizes (default 200, 1000)\n"
               "  --impl LIST           comma-separated subset of dmx,scalapack,alltoallv (all)\n"
               "  --json                one JSON line per measurement instead of the table\n"
               "  --help                this text\n"
               "Exit status: 0 all correct, 1 some implementation produced wrong elements,\n"
               "2 bad options, 3 an implementation failed to run (and none was wrong).\n");
}

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

int redist_parse_options(int argc, char **argv, options *o, int loud)
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
    const char *badarg = NULL;
    for (int k = 1; k < argc; k++) {
        char name[64];
        const char *arg = argv[k], *val = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq != NULL && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            val = eq + 1;
        } else if (strlen(arg) < sizeof name) {
            strcpy(name, arg);
        } else {
            badarg = arg;
            goto bad;
        }
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
            return 1;
        if (strcmp(name, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(name, "--sweep") == 0 || strcmp(name, "--sequence") == 0) {
            *(name[3] == 'w' ? &o->sweep : &o->sequence) = 1;
            continue;
        }
        static const char *const known[] = {
            "--m",       "--n",      "--size",  "--from",    "--to",        "--from-mb",
            "--from-nb", "--to-mb",  "--to-nb", "--grid",    "--from-grid", "--to-grid",
            "--reps",    "--warmup", "--batch", "--op",      "--case",      "--impl",
            "--align",   "--max-n",  "--count", "--seq-min", "--seq-max"};
        int is_known = 0;
        for (size_t q = 0; q < sizeof known / sizeof known[0]; q++)
            is_known |= strcmp(name, known[q]) == 0;
        if (!is_known) {
            badarg = arg;
            goto bad;
        }
        if (val == NULL) {
            if (k + 1 >= argc) {
                if (loud)
                    fprintf(stderr, "dmx bench redist: %s needs a value\n", name);
                return 2;
            }
            val = argv[++k];
        }
        int ok;
        if (strcmp(name, "--m") == 0)
            ok = bench_parse_i64(val, 1, &o->m);
        else if (strcmp(name, "--n") == 0)
            ok = bench_parse_i64(val, 1, &o->n);
        else if (strcmp(name, "--size") == 0)
            ok = bench_parse_pair(val, ',', &o->m, &o->n);
        else if (strcmp(name, "--from") == 0)
            ok = bench_parse_pair(val, ',', &o->from_mb, &o->from_nb);
        else if (strcmp(name, "--to") == 0)
            ok = bench_parse_pair(val, ',', &o->to_mb, &o->to_nb);
        else if (strcmp(name, "--from-mb") == 0)
            ok = bench_parse_i64(val, 1, &o->from_mb);
        else if (strcmp(name, "--from-nb") == 0)
            ok = bench_parse_i64(val, 1, &o->from_nb);
        else if (strcmp(name, "--to-mb") == 0)
            ok = bench_parse_i64(val, 1, &o->to_mb);
        else if (strcmp(name, "--to-nb") == 0)
            ok = bench_parse_i64(val, 1, &o->to_nb);
        else if (strcmp(name, "--grid") == 0) {
            ok = parse_grid(val, &o->from_grid);
            o->to_grid = o->from_grid;
        } else if (strcmp(name, "--from-grid") == 0)
            ok = parse_grid(val, &o->from_grid);
        else if (strcmp(name, "--to-grid") == 0)
            ok = parse_grid(val, &o->to_grid);
        else if (strcmp(name, "--reps") == 0)
            ok = bench_parse_int(val, 1, &o->reps);
        else if (strcmp(name, "--warmup") == 0)
            ok = bench_parse_int(val, 0, &o->warmup);
        else if (strcmp(name, "--max-n") == 0)
            ok = bench_parse_i64(val, 1, &o->max_n);
        else if (strcmp(name, "--count") == 0)
            ok = bench_parse_int(val, 1, &o->count);
        else if (strcmp(name, "--seq-min") == 0)
            ok = bench_parse_i64(val, 1, &o->seq_min);
        else if (strcmp(name, "--seq-max") == 0)
            ok = bench_parse_i64(val, 1, &o->seq_max);
        else if (strcmp(name, "--batch") == 0)
            ok = bench_parse_int(val, 1, &o->batch);
        else if (strcmp(name, "--align") == 0) {
            ok = bench_parse_int(val, 0, &o->align);
            if (ok == 0 && o->align != 0 && (o->align < 8 || (o->align & (o->align - 1)) != 0))
                ok = -1;
        } else if (strcmp(name, "--op") == 0) {
            ok = 0;
            o->op_n = strcmp(val, "N") == 0 || strcmp(val, "n") == 0 || strcmp(val, "both") == 0;
            o->op_t = strcmp(val, "T") == 0 || strcmp(val, "t") == 0 || strcmp(val, "both") == 0;
            if (!o->op_n && !o->op_t)
                ok = -1;
        } else if (strcmp(name, "--case") == 0) {
            ok = 0;
            o->case_redist = strcmp(val, "redist") == 0 || strcmp(val, "all") == 0;
            o->case_same = strcmp(val, "same") == 0 || strcmp(val, "all") == 0;
            if (!o->case_redist && !o->case_same)
                ok = -1;
        } else if (strcmp(name, "--impl") == 0) {
            ok = parse_impls(val, o->use);
        } else {
            badarg = arg;
            goto bad;
        }
        if (ok != 0) {
            if (loud)
                fprintf(stderr, "dmx bench redist: bad value for %s: '%s'\n", name, val);
            return 2;
        }
    }
    return 0;
bad:
    if (loud)
        fprintf(stderr, "dmx bench redist: unknown option '%s' (try --help)\n", badarg);
    return 2;
}
