/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's model against the simulated points (docs/scale.md, "Grid'5000 Graphene"): reads
 * scripts/simulate.sh's gemm JSON lines on stdin, keeps one platform's measured points, prices
 * each configuration (algorithm, grid, G, b, B) with dmx_gemm_predict under the model files in
 * DMX_MODEL and DMX_GEMM_MODEL, and prints simulated, predicted and their ratio; then, per rank
 * count, AUTO's choice on the points' grid. Run it with the build before and after a model
 * change to see which prices and which choices moved. Not built by CMake:
 *   mpicc -O2 -Iinclude -Ibuild/include bench/simgrid/price_gemm.c -Lbuild -ldmx \
 *       -Wl,-rpath,$PWD/build -o price_gemm
 *   DMX_MODEL=bench/simgrid/graphene_ib.model DMX_GEMM_MODEL=bench/simgrid/graphene_ib.gemm \
 *       ./price_gemm graphene_ib 4 < bench/simgrid/results/gemm.jsonl
 * The arguments: the platform's name as the JSON lines give it, and its cores per host (ranks
 * fill the hosts in order, as scripts/simulate.sh places them). A probe, not a test. */
#include <dmx.h>
#include <dmx/expert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after "key": in a JSON line, or -1 when absent. */
static double num(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = strstr(line, pat);
    return s ? atof(s + strlen(pat)) : -1.0;
}

/* The string after "key": into out, or "" when absent. */
static void str(const char *line, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *s = strstr(line, pat);
    out[0] = '\0';
    if (s) {
        s += strlen(pat);
        size_t n = strcspn(s, "\"");
        n = n < len - 1 ? n : len - 1;
        memcpy(out, s, n);
        out[n] = '\0';
    }
}

static double price(dmx_gemm_alg alg, int64_t n, int64_t p, int64_t nodes, int pr, int pc, int G,
                    int64_t b, int64_t B, dmx_gemm_info *out)
{
    dmx_gemm_options o;
    dmx_gemm_options_init(&o);
    o.prow = pr, o.pcol = pc;
    o.groups = alg == DMX_GEMM_HSUMMA ? G : 0;
    o.panel = alg == DMX_GEMM_CANNON || alg == DMX_GEMM_AUTO ? 0 : b;
    o.outer_panel = alg == DMX_GEMM_HSUMMA ? B : 0;
    return dmx_gemm_predict(alg, DMX_DOUBLE, n, n, n, p, nodes, &o, out) == DMX_SUCCESS
               ? out->predicted_seconds
               : -1.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: price_gemm PLATFORM CORES_PER_HOST < gemm.jsonl\n");
        MPI_Finalize();
        return 2;
    }
    const int cores = atoi(argv[2]);
    char line[4096], plat[64], alg[16], grid[32], seen[64][96];
    int nseen = 0;
    while (fgets(line, sizeof line, stdin)) {
        str(line, "platform", plat, sizeof plat);
        str(line, "alg", alg, sizeof alg);
        str(line, "grid", grid, sizeof grid);
        int pr = 0, pc = 0;
        if (strcmp(plat, argv[1]) != 0 || num(line, "t_med") < 0 ||
            sscanf(grid, "%dx%d", &pr, &pc) != 2)
            continue;
        const int64_t p = (int64_t)num(line, "np"), n = (int64_t)num(line, "n"),
                      nodes = (p + cores - 1) / cores;
        const int G = (int)num(line, "G");
        const int64_t b = (int64_t)num(line, "b"), B = (int64_t)num(line, "B");
        const dmx_gemm_alg a = strcmp(alg, "summa") == 0    ? DMX_GEMM_SUMMA
                               : strcmp(alg, "hsumma") == 0 ? DMX_GEMM_HSUMMA
                                                            : DMX_GEMM_CANNON;
        dmx_gemm_info x;
        const double t = num(line, "t_med"), m = price(a, n, p, nodes, pr, pc, G, b, B, &x);
        printf("%-6s P %5lld %5s G %3d b %4lld B %4lld  simulated %9.2f ms  model %9.2f ms  "
               "ratio %.3f\n",
               alg, (long long)p, grid, G, (long long)b, (long long)B, t * 1e3, m * 1e3, t / m);
        /* AUTO once per rank count and data grid (Cannon's points run on their own grid) */
        char key[96];
        snprintf(key, sizeof key, "%lld %lld %s", (long long)p, (long long)n, grid);
        int known = a == DMX_GEMM_CANNON;
        for (int i = 0; i < nseen && !known; i++)
            known = strcmp(seen[i], key) == 0;
        if (!known && nseen < 64) {
            snprintf(seen[nseen++], sizeof seen[0], "%s", key);
            if (price(DMX_GEMM_AUTO, n, p, nodes, pr, pc, 0, 0, 0, &x) > 0)
                printf("AUTO   P %5lld %5s -> %s G %d b %lld B %lld, model %.2f ms\n", (long long)p,
                       grid, dmx_gemm_alg_name(x.alg), x.groups, (long long)x.panel,
                       (long long)x.outer_panel, x.predicted_seconds * 1e3);
        }
    }
    MPI_Finalize();
    return 0;
}
