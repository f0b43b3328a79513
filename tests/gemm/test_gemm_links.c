/* SPDX-License-Identifier: BSD-3-Clause */
/* The multiply's model where ranks share a node's link (issue 35), on the Graphene InfiniBand
 * platform's files (bench/simgrid/graphene_ib.{model,gemm}; argv[1] is that directory).
 *
 * (a) Both levels at once. HSUMMA on 16 x 16 ranks (64 nodes of 4, n = 8192, G = 16 as 4 x 4
 * groups, b = B = 32): the next outer panel comes from the same owners, so its cross broadcasts
 * leave the nodes that relay the current one. Counted by hand for the node of ranks 0-3 (grid
 * row 0, columns 0-3), per panel of 32: B's inner panel to the 3 other rows of its group from
 * each of its 4 ranks (12 messages), B's cross panel to the 3 other group rows from each (12),
 * A's cross panel from rank 0 to 3 other groups (3); A's inner broadcast stays in the node. 27
 * messages of 512 x 32 doubles over 256 panels at the NIC's 1.5 GB/s (graphene_ib.xml) are
 * 604 ms, which the prediction must reach (within the 10 % the model file's calibrated rate may
 * differ). The model before this term said 427.5 ms; SimGrid gives 583.2 ms (docs/scale.md).
 *
 * (b) Not when the owners change. With B = 512 (one outer panel per piece) the next outer panel
 * leaves other nodes, and the same grouping must be predicted under that sum (simulated:
 * 451.1 ms with b = 64).
 *
 * (c) A near tie goes to the slack. 8 x 16 ranks on 32 nodes, b = B = 32: the model prices G = 2
 * within 1 % of the other groupings, but its busiest node's links are busy 0.97 of the local
 * multiply's time, and SimGrid ran it 1.09x slower than G = 4 to 32 (927.6 ms against
 * 854.3-856.1). AUTO on that grid and those panels must take one of G = 4, 8, 16, 32, and G = 2
 * must be priced within 1 % of its pick (else the tie rule was not what decided).
 *
 * (d) With argv[2] = "auto", on the BG/P partition's files instead (bgp_2048.{model,gemm}): AUTO
 * over every grid, G and panel at 2,048 ranks (n = 8192, 512 nodes) prices more groupings than
 * the model keeps node shapes for. Its pick, forced alone, must be priced as AUTO priced it, and
 * no algorithm forced alone may be priced under AUTO's pick by the 1 % rule's margin. Before the
 * shapes' table took over full slots, everything priced after it filled lost the node-link term:
 * AUTO took Cannon at 163.5 ms, which forced alone is priced 377 ms (HSUMMA: 319.8).
 *
 * (e) Also with "auto": HSUMMA on the data's 32 x 64 grid at 2,048 ranks. The model prices G = 64
 * and G = 128 alike (the busiest torus link is the same) and b = 32, 64, 128 within 2 %; SimGrid
 * ran G = 128, b = B = 64 fastest (310.7 ms), G = 64 at the same panels 341.2, G = 128 with
 * b = B = 32 330.9 (docs/scale.md). G = 64's A broadcasts also cross the torus (more bytes on
 * the links in all), and the links carry twice the local multiply's time, where the near tie
 * between widths goes to the wider panel: the pick must be G = 128 with b >= 64, and G = 64 at
 * its panels and b = 32 at its G must be priced within 1 % (else the rules did not decide).
 *
 * (f) Also with "auto": 16 x 16 ranks, n = 4096, B = 256. G = 64 and G = 128 are priced alike,
 * but G = 128's busiest links carry more (simulated 365.1 ms against 315.3): the pick stays 64. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "dmx.h"
#include "dmx/expert.h"
#include "dmxt_util.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double predict(dmxt_count *n, dmx_gemm_alg alg, int64_t N, int64_t p, int64_t nodes, int pr,
                      int pc, int G, int64_t b, int64_t B, dmx_gemm_info *out)
{
    dmx_gemm_options o;
    dmx_gemm_info i;
    dmx_gemm_options_init(&o);
    o.prow = pr, o.pcol = pc, o.groups = G, o.panel = b, o.outer_panel = B;
    dmx_status st = dmx_gemm_predict(alg, DMX_DOUBLE, N, N, N, p, nodes, &o, &i);
    DMXT_EXPECT(n, st == DMX_SUCCESS, "dmx_gemm_predict (G %d, b %lld, B %lld): %s", G,
                (long long)b, (long long)B, dmx_last_error());
    if (out)
        *out = i;
    return st == DMX_SUCCESS ? i.predicted_seconds : -1.0;
}

int main(int argc, char **argv)
{
    char path[2][4096];
    const char *dir = argc > 1 ? argv[1] : "bench/simgrid";
    int autos = argc > 2 && strcmp(argv[2], "auto") == 0;
    const char *plat = autos ? "bgp_2048" : "graphene_ib";
    snprintf(path[0], sizeof path[0], "%s/%s.model", dir, plat);
    snprintf(path[1], sizeof path[1], "%s/%s.gemm", dir, plat);
    setenv("DMX_MODEL", path[0], 1);
    setenv("DMX_GEMM_MODEL", path[1], 1);
    unsetenv("DMX_GEMM");
    unsetenv("DMX_GEMM_MFLOPS");
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dmxt_count n = {0, 0};
    if (rank == 0 && autos) {
        /* (d) */
        dmx_gemm_info pick;
        double t = predict(&n, DMX_GEMM_AUTO, 8192, 2048, 512, 0, 0, 0, 0, 0, &pick);
        double again = predict(&n, pick.alg, 8192, 2048, 512, pick.prow, pick.pcol, pick.groups,
                               pick.panel, pick.outer_panel, NULL);
        DMXT_EXPECT(&n, t > 0 && fabs(again - t) <= 1e-9 * t,
                    "AUTO's pick (%s %d x %d, G %d, b %lld, B %lld) priced %.2f ms, alone %.2f",
                    dmx_gemm_alg_name(pick.alg), pick.prow, pick.pcol, pick.groups,
                    (long long)pick.panel, (long long)pick.outer_panel, t * 1e3, again * 1e3);
        for (int a = DMX_GEMM_SUMMA; a <= DMX_GEMM_CANNON; a++) {
            double f = predict(&n, (dmx_gemm_alg)a, 8192, 2048, 512, 0, 0, 0, 0, 0, NULL);
            DMXT_EXPECT(&n, f > 0 && t <= 1.011 * f, "%s alone priced %.2f ms, AUTO's pick %.2f",
                        dmx_gemm_alg_name((dmx_gemm_alg)a), f * 1e3, t * 1e3);
        }
        /* (e) */
        double best = predict(&n, DMX_GEMM_HSUMMA, 8192, 2048, 512, 32, 64, 0, 0, 0, &pick);
        double g64 = predict(&n, DMX_GEMM_HSUMMA, 8192, 2048, 512, 32, 64, 64, pick.panel,
                             pick.outer_panel, NULL);
        double b32 = predict(&n, DMX_GEMM_HSUMMA, 8192, 2048, 512, 32, 64, 128, 32, 32, NULL);
        DMXT_EXPECT(&n, pick.groups == 128 && pick.panel >= 64,
                    "32 x 64: AUTO took G = %d, b = %lld (simulated best: G = 128, b >= 64)",
                    pick.groups, (long long)pick.panel);
        DMXT_EXPECT(&n, g64 > 0 && g64 < 1.01 * best && b32 > 0 && b32 < 1.01 * best,
                    "G = 64 priced %.2f ms, b = 32 %.2f, the pick %.2f: not near ties", g64 * 1e3,
                    b32 * 1e3, best * 1e3);
        /* (f) */
        best = predict(&n, DMX_GEMM_HSUMMA, 4096, 256, 64, 16, 16, 0, 0, 256, &pick);
        double g128 =
            predict(&n, DMX_GEMM_HSUMMA, 4096, 256, 64, 16, 16, 128, pick.panel, 256, NULL);
        DMXT_EXPECT(&n, pick.groups == 64 && g128 > 0 && g128 < 1.01 * best,
                    "16 x 16: AUTO took G = %d (simulated best 64); G = 128 priced %.2f ms "
                    "against %.2f",
                    pick.groups, g128 * 1e3, best * 1e3);
    } else if (rank == 0) {
        /* (a) */
        double floor = 27.0 * 512 * 32 * 8 * 256 / 1.5e9;
        double t = predict(&n, DMX_GEMM_HSUMMA, 8192, 256, 64, 16, 16, 16, 32, 32, NULL);
        DMXT_EXPECT(&n, t >= 0.9 * floor, "b = B = 32: predicted %.1f ms, the node carries %.1f",
                    t * 1e3, floor * 1e3);
        /* (b) */
        double wide = predict(&n, DMX_GEMM_HSUMMA, 8192, 256, 64, 16, 16, 16, 32, 512, NULL);
        DMXT_EXPECT(&n, wide > 0 && wide < 0.9 * floor,
                    "b = 32, B = 512: predicted %.1f ms, not charged both levels (%.1f)",
                    wide * 1e3, floor * 1e3);
        /* (c) */
        dmx_gemm_info pick;
        double best = predict(&n, DMX_GEMM_HSUMMA, 8192, 128, 32, 8, 16, 0, 32, 32, &pick);
        double g2 = predict(&n, DMX_GEMM_HSUMMA, 8192, 128, 32, 8, 16, 2, 32, 32, NULL);
        DMXT_EXPECT(&n, pick.groups >= 4 && pick.groups <= 32,
                    "8 x 16, b = B = 32: AUTO took G = %d (simulated best: 4 to 32)", pick.groups);
        DMXT_EXPECT(&n, g2 > 0 && g2 < 1.01 * best,
                    "G = 2 priced %.2f ms against the pick's %.2f: not a near tie", g2 * 1e3,
                    best * 1e3);
    }
    dmxt_count_print(&n);
    MPI_Finalize();
    return dmxt_count_exit_code(&n);
}
