/* SPDX-License-Identifier: BSD-3-Clause */
/* Probe for docs/scale.md (Redistribution): does the relabeled grid change lose in SMPI because
 * its target lives on a second communicator? Times four plans of B (block-cyclic 32 x 32 on an
 * fr x fc grid) to A (32 x 32 on tr x tc), least of 4 interleaved runs: the plain plan, the
 * relabeled one (dmx_plan_create_relabeled, exact sigma, node cost), the same movement on ONE
 * communicator (A made with dmx_layout_create_block_cyclic_mapped, role j at rank sigma[j]),
 * and the relabeled call with sigma = identity. Not built by CMake:
 *   smpicc -O1 -DSMPI_NO_OVERRIDE_MALLOC -Iinclude -Ibuild-smpi/include \
 *       bench/simgrid/relabel_probe.c -Lbuild-smpi -ldmx -Wl,-rpath,$PWD/build-smpi -o probe
 *   DMX_SHM=0 smpirun -np 16 -platform bench/simgrid/twolevel.xml -hostfile HOSTS (n0 x 16) \
 *       [scripts/simulate.sh's --cfg options] ./probe 2048 4 4 8 2
 * No error checking beyond the plans' creation: a probe, not a test. */
#include <dmx/layout.h>
#include <dmx/plan.h>
#include <dmx/relabel.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int64_t numroc(int64_t n, int64_t nb, int p, int np)
{
    int64_t nblk = n / nb, r = (nblk / np) * nb;
    int ex = (int)(nblk % np);
    if (p < ex)
        r += nb;
    else if (p == ex)
        r += n % nb;
    return r;
}
static double run(dmx_plan *pl, MPI_Comm w)
{
    MPI_Barrier(w);
    double t0 = MPI_Wtime();
    dmx_plan_execute(pl);
    double t = MPI_Wtime() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, w);
    return m;
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int rank, p;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &p);
    int64_t n = atol(argv[1]);
    int fr = atoi(argv[2]), fc = atoi(argv[3]), tr = atoi(argv[4]), tc = atoi(argv[5]);
    int64_t nb = 32;
    int64_t bl = numroc(n, nb, rank / fc, fr), bcn = numroc(n, nb, rank % fc, fc);
    double *bb = calloc((size_t)(bl * bcn + 1), 8);
    dmx_layout *B, *A0, *A2;
    dmx_layout_create_block_cyclic(c, n, n, nb, nb, fr, fc, 'R', 0, 0, bb, bl > 0 ? bl : 1, &B);
    int64_t al = numroc(n, nb, rank / tc, tr), acn = numroc(n, nb, rank % tc, tc);
    double *a0 = calloc((size_t)(al * acn + 1), 8);
    dmx_layout_create_block_cyclic(c, n, n, nb, nb, tr, tc, 'R', 0, 0, a0, al > 0 ? al : 1, &A0);
    dmx_transform t = {0};
    t.dtype = DMX_DOUBLE, t.op = DMX_OP_N, t.alpha.re = 1.0, t.b = B, t.a = A0;
    dmx_plan *P0, *P1, *P2, *P3;
    dmx_plan_create(1, &t, &P0);
    int *sigma = malloc(sizeof(int) * p), *sid = malloc(sizeof(int) * p);
    dmx_relabel_opts o = {0};
    o.method = DMX_RELABEL_EXACT, o.cost = DMX_COST_NODE, o.node_ratio = 50;
    MPI_Comm c1, c3;
    dmx_layout *A1, *A3;
    dmx_relabel_result res;
    if (dmx_plan_create_relabeled(1, &t, &o, sigma, &c1, &A1, &P1, &res) != DMX_SUCCESS)
        MPI_Abort(c, 1); /* a probe: stop everything */
    o.method = DMX_RELABEL_IDENTITY;
    if (dmx_plan_create_relabeled(1, &t, &o, sid, &c3, &A3, &P3, NULL) != DMX_SUCCESS)
        MPI_Abort(c, 1); /* a probe: stop everything */
    /* the exact sigma's movement on one communicator: role j at rank sigma[j] */
    int role = 0;
    for (int j = 0; j < p; j++)
        if (sigma[j] == rank)
            role = j;
    int64_t rl = numroc(n, nb, role / tc, tr), rc = numroc(n, nb, role % tc, tc);
    double *a2 = calloc((size_t)(rl * rc + 1), 8);
    dmx_layout_create_block_cyclic_mapped(c, n, n, nb, nb, tr, tc, sigma, 0, 0, a2, rl > 0 ? rl : 1,
                                          &A2);
    t.a = A2;
    if (dmx_plan_create(1, &t, &P2) != DMX_SUCCESS)
        MPI_Abort(c, 1); /* a probe: stop everything */
    int moved = 0;
    for (int j = 0; j < p; j++)
        moved += sigma[j] != j;
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    dmx_plan *pl[4] = {P0, P1, P2, P3};
    for (int r = 0; r < 4; r++)
        for (int v = 0; v < 4; v++) {
            double x = run(pl[v], c);
            if (x < best[v])
                best[v] = x;
            if (rank == 0)
                printf("rep %d %s %.1f us\n", r,
                       v == 0   ? "plain"
                       : v == 1 ? "relabeled_2comm"
                       : v == 2 ? "mapped_1comm"
                                : "identity_2comm",
                       x * 1e6);
        }
    if (rank == 0)
        printf("moved %d: least us plain %.1f relabeled(two comms) %.1f mapped(one comm) %.1f "
               "identity(two comms) %.1f\n",
               moved, best[0] * 1e6, best[1] * 1e6, best[2] * 1e6, best[3] * 1e6);
    MPI_Barrier(c);
    free(bb);
    free(a0);
    free(a2);
    free(sigma);
    free(sid);
    MPI_Finalize();
    return 0;
}
