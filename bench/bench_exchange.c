/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx bench exchange: time the sparse data exchange protocols against each other.
 *
 *   mpirun -n P dmx bench exchange [options]      (--help lists them with their defaults)
 *
 * Every rank sends one payload of the given size to each of k random distinct other ranks
 * (k = min(--k, P-1)); the pattern is drawn once from a seed common to all ranks and is the
 * same for every protocol and size, so the protocols do the same work. With --pattern stencil
 * the k neighbours are a periodic stencil's instead: k = 4 or 8 on a 2D grid (faces; faces and
 * corners), k = 6 or 26 on a 3D grid (faces; faces, edges and corners), the grid from
 * MPI_Dims_create, every dimension at least 3 so that the neighbours are distinct. Each
 * configuration is warmed up, then timed rep by rep: MPI_Barrier, MPI_Wtime around one
 * dmx_exchange(), the maximum over ranks; t_med is the median of those maxima. Every rank checks it
 * received what the pattern says (count and sizes).
 *
 * messages: messages sent per rank per exchange, metadata included (dmx_exchange_info):
 * p2p = point-to-point payload sends and RSX accumulates, counted where they are issued
 * (mean over ranks); coll = the estimated messages of the busiest rank inside the collectives,
 * P-1 for an all-to-all or a reduce-scatter (Open MPI's libnbc scatters the reduced vector
 * from one root), ceil(log2 P) for an allreduce, barrier or fence. messages = p2p + coll.
 * Output: a table, or with --json one JSON line per measurement. */
#include "bench.h"
#include "bench_util.h"
#include "cli.h"

#include "dmx.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 32, MAX_PROTOS = 5 };

typedef struct opts {
    int json, k, reps, warmup, nsizes, nprotos, stencil;
    int64_t sizes[MAX_SIZES];
    dmx_exchange_protocol protos[MAX_PROTOS];
    uint64_t seed;
} opts;

static int parse_protocols(const char *s, dmx_exchange_protocol *out, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max || dmx_exchange_protocol_from_name(tok, &out[n]) != DMX_SUCCESS)
            return -1;
        n++;
    }
    return n;
}

typedef struct proto_list {
    dmx_exchange_protocol *v;
    int *n;
} proto_list;

static int parse_protos_opt(const char *v, void *dest)
{
    const proto_list *l = dest;
    *l->n = parse_protocols(v, l->v, MAX_PROTOS);
    return *l->n > 0 ? 0 : -1;
}

static int parse_sizes_opt(const char *v, void *dest)
{
    opts *o = dest;
    o->nsizes = bench_parse_size_list(v, 0, o->sizes, MAX_SIZES);
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > INT32_MAX)
            return -1;
    return o->nsizes > 0 ? 0 : -1;
}

/* CLI_RUN, CLI_HELP or CLI_ERROR (printed by the first process). */
static int parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){0, 6, 30, 3, 5, 5, 0, {8, 64, 512, 4096, 65536}, {0}, 1};
    o->protos[0] = DMX_EXCHANGE_NBX;
    o->protos[1] = DMX_EXCHANGE_PEX;
    o->protos[2] = DMX_EXCHANGE_PCX;
    o->protos[3] = DMX_EXCHANGE_RSX;
    o->protos[4] = DMX_EXCHANGE_AUTO;
    int64_t seed = 1;
    proto_list pl = {o->protos, &o->nprotos};
    cli_opt opts_[] = {
        CLI_FLAG_OPT("json", &o->json, "one JSON line per measurement instead of the table"),
        CLI_OPT("k", CLI_INT, &o->k, 0, 0, "N",
                "distinct random neighbors per rank (at most P-1);\ndefault 6"),
        CLI_FUNC_OPT("bytes", o, parse_sizes_opt,
                     "a comma-separated list of up to 32 sizes in [0, 2^31)", "B[,B...]",
                     "payload sizes in bytes; default 8,64,512,4096,65536"),
        CLI_OPT("reps", CLI_INT, &o->reps, 1, 0, "R",
                "timed exchanges per configuration; default 30"),
        CLI_OPT("warmup", CLI_INT, &o->warmup, 0, 0, "W", "untimed exchanges first; default 3"),
        CLI_FUNC_OPT("protocols", &pl, parse_protos_opt, "names from nbx, pex, pcx, rsx, auto",
                     "LIST", "from nbx,pex,pcx,rsx,auto; default all five"),
        CLI_OPT("seed", CLI_I64, &seed, 0, 0, "S", "seed of the random pattern; default 1"),
        CLI_FLAG_OPT("stencil", &o->stencil,
                     "a periodic stencil's neighbours instead of random ones:\n"
                     "k = 4, 8 (2D) or 6, 26 (3D)"),
    };
    cli_spec spec = {"bench exchange",
                     1,
                     "[options]",
                     "Times the sparse data exchange protocols: every rank sends one payload to "
                     "each of k\nrandom other ranks (the same pattern for every protocol); "
                     "receipts are checked.",
                     opts_,
                     CLI_NOPTS(opts_),
                     NULL};
    int rc = cli_parse(&spec, argc, argv, bench_first_process());
    o->seed = (uint64_t)seed;
    return rc;
}

/* dest[r*k + i]: the i-th neighbor of rank r; k distinct ranks other than r. */
static int *make_pattern(int P, int k, uint64_t seed)
{
    int *dest = malloc((size_t)P * (size_t)(k > 0 ? k : 1) * sizeof *dest);
    int *perm = malloc((size_t)P * sizeof *perm);
    if (!dest || !perm) {
        free(dest);
        free(perm);
        return NULL;
    }
    uint64_t s = seed;
    for (int r = 0; r < P; r++) {
        /* partial Fisher-Yates over the other ranks */
        for (int i = 0; i < P - 1; i++)
            perm[i] = i < r ? i : i + 1;
        for (int i = 0; i < k; i++) {
            int j = i + (int)(bench_random_next(&s) % (uint64_t)(P - 1 - i));
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            dest[r * k + i] = perm[i];
        }
    }
    free(perm);
    return dest;
}

/* dest[r*k + i]: the i-th neighbour of rank r on a periodic 2D (k = 4, 8) or 3D (k = 6, 26)
 * grid of P ranks (row-major); NULL if k is none of those or a dimension is below 3. */
static int *make_stencil(int P, int k)
{
    int nd = k == 4 || k == 8 ? 2 : k == 6 || k == 26 ? 3 : 0, dims[3] = {0, 0, 0};
    if (nd == 0 || MPI_Dims_create(P, nd, dims) != MPI_SUCCESS)
        return NULL;
    for (int d = 0; d < nd; d++)
        if (dims[d] < 3)
            return NULL;
    int *dest = malloc((size_t)P * (size_t)k * sizeof *dest);
    if (!dest)
        return NULL;
    int full = k == 8 || k == 26; /* every offset in {-1,0,1}^nd, or only the faces */
    for (int r = 0; r < P; r++) {
        int c[3] = {0, 0, 0}, rest = r, n = 0;
        for (int d = nd - 1; d >= 0; d--) {
            c[d] = rest % dims[d];
            rest /= dims[d];
        }
        int noff = nd == 2 ? 9 : 27;
        for (int o = 0; o < noff; o++) {
            int off[3] = {o % 3 - 1, o / 3 % 3 - 1, o / 9 - 1}, nz = 0, to = 0;
            for (int d = 0; d < nd; d++)
                nz += off[d] != 0;
            if (nz == 0 || (!full && nz != 1))
                continue;
            for (int d = 0; d < nd; d++)
                to = to * dims[d] + (c[d] + off[d] + dims[d]) % dims[d];
            dest[r * k + n++] = to;
        }
    }
    return dest;
}

/* One row of the table (or JSON line) on rank 0: the messages per rank averaged over ranks.
 * Collective (the reduction of the message counts). */
static void print_row(const opts *o, int rank, int P, int k, int64_t bytes,
                      dmx_exchange_protocol proto, const dmx_exchange_info *info, double tmed)
{
    double mine[2] = {(double)info->p2p_messages, (double)info->coll_messages}, sum[2];
    MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    double p2p = sum[0] / P, coll = sum[1] / P;
    char name[32];
    if (proto == DMX_EXCHANGE_AUTO)
        snprintf(name, sizeof name, "auto:%s", dmx_exchange_protocol_name(info->protocol));
    else
        snprintf(name, sizeof name, "%s", dmx_exchange_protocol_name(proto));
    if (o->json)
        printf("{\"bench\":\"exchange\",\"protocol\":\"%s\",\"np\":%d,\"k\":%d,"
               "\"pattern\":\"%s\",\"bytes\":%lld,\"t_med\":%.9f,\"messages\":%.2f,\"p2p\":"
               "%.2f,\"coll\":%.2f,\"reps\":%d}\n",
               name, P, k, o->stencil ? "stencil" : "random", (long long)bytes, tmed, p2p + coll,
               p2p, coll, o->reps);
    else
        printf("%-10s %4d %3d %8lld %14.1f %10.1f %6.1f %6.1f\n", name, P, k, (long long)bytes,
               tmed * 1e6, p2p + coll, p2p, coll);
    fflush(stdout);
}

int dmx_cmd_bench_exchange(int argc, char **argv)
{
    opts o;
    int pr = parse_args(argc, argv, &o);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    int init = 0;
    MPI_Initialized(&init);
    if (!init)
        MPI_Init(&argc, &argv);
    int rank = 0, P = 1, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    /* The exchanges run on a duplicate: SimGrid's SMPI keeps one MPI_COMM_WORLD object, and so
     * one set of attributes (dmx's per-communicator cache), for all simulated ranks. */
    MPI_Comm comm = MPI_COMM_NULL;
    bench_world_dup(&comm);
    int k = o.k < P - 1 ? o.k : P - 1;
    int *pattern = o.stencil ? make_stencil(P, k) : make_pattern(P, k, o.seed);
    if (o.stencil && !pattern) {
        if (rank == 0)
            fprintf(stderr,
                    "dmx bench exchange: --stencil needs k = 4, 8, 6 or 26 and a grid "
                    "of P = %d ranks with every dimension at least 3\n",
                    P);
        MPI_Finalize();
        return 2;
    }
    int64_t maxbytes = 0;
    for (int i = 0; i < o.nsizes; i++)
        maxbytes = o.sizes[i] > maxbytes ? o.sizes[i] : maxbytes;
    unsigned char *payload = calloc((size_t)maxbytes + 1, 1);
    dmx_exchange_send *sends = calloc((size_t)k + 1, sizeof *sends);
    double *times = calloc((size_t)o.reps, sizeof *times);
    if (!pattern || !payload || !sends || !times) {
        fprintf(stderr, "dmx bench exchange: out of memory\n");
        bench_abort(1);
    }
    /* how many payloads this rank receives in the pattern */
    int64_t nin = 0;
    for (int r = 0; r < P; r++)
        for (int i = 0; i < k; i++)
            nin += pattern[r * k + i] == rank;
    for (int64_t i = 0; i < maxbytes; i++)
        payload[i] = (unsigned char)(i * 7 + rank);
    if (rank == 0 && !o.json) {
        printf("# dmx bench exchange: P=%d, k=%d %s neighbors per rank, %d reps "
               "(median of max over ranks)\n",
               P, k, o.stencil ? "stencil" : "random distinct", o.reps);
        printf("%-10s %4s %3s %8s %14s %10s %6s %6s\n", "protocol", "np", "k", "bytes", "t_med_us",
               "messages", "p2p", "coll");
    }
    for (int si = 0; si < o.nsizes && rc == 0; si++) {
        int64_t bytes = o.sizes[si];
        for (int i = 0; i < k; i++)
            sends[i] = (dmx_exchange_send){pattern[rank * k + i], payload, bytes};
        for (int pi = 0; pi < o.nprotos && rc == 0; pi++) {
            dmx_exchange_protocol proto = o.protos[pi];
            dmx_exchange_info info = {0};
            int bad = 0;
            for (int rep = -o.warmup; rep < o.reps; rep++) {
                dmx_exchange_result *res = NULL;
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                dmx_status st = dmx_exchange(comm, proto, k, sends, &res);
                double t = MPI_Wtime() - t0;
                if (st != DMX_SUCCESS) {
                    fprintf(stderr, "rank %d: dmx_exchange failed: %s: %s\n", rank,
                            dmx_status_string(st), dmx_last_error());
                    bad = 1;
                } else {
                    int64_t n = 0;
                    dmx_exchange_result_get_count(res, &n);
                    for (int64_t i = 0; i < n; i++) {
                        int64_t b = -1;
                        dmx_exchange_result_get(res, i, NULL, NULL, &b);
                        bad |= b != bytes;
                    }
                    bad |= n != nin;
                    dmx_exchange_result_get_info(res, &info);
                }
                dmx_exchange_result_destroy(&res);
                double tmax = bench_max_over_ranks(MPI_COMM_WORLD, t);
                if (rep >= 0)
                    times[rep] = tmax;
            }
            int anybad = 0;
            MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (anybad) {
                if (rank == 0)
                    fprintf(stderr, "dmx bench exchange: %s delivered wrong results\n",
                            dmx_exchange_protocol_name(proto));
                rc = 1;
                break;
            }
            print_row(&o, rank, P, k, bytes, proto, &info, bench_median(times, o.reps));
        }
    }
    free(pattern);
    free(payload);
    free(sends);
    free(times);
    MPI_Comm_free(&comm);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has printed before any rank finalizes (SMPI, above) */
    MPI_Finalize();
    return rc;
}
