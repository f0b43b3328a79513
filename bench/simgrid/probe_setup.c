/* SPDX-License-Identifier: BSD-3-Clause */
/* What one setup collective costs the simulator (docs/scale.md, "The fixed cost, found and
 * removed"): MPI_Init, then one MPI_Bcast of an int (bcast), one MPI_Allreduce of an int
 * (allreduce), an MPI_Comm_dup and its MPI_Comm_free (dup), K duplicates of MPI_COMM_WORLD kept
 * until the end (dups K, K <= 16: what each world-sized communicator costs the simulator's
 * memory, /usr/bin/time's %M), or nothing (none), then MPI_Finalize. The simulated time does not
 * matter; the simulator's wall time and memory do (/usr/bin/time). A probe, not a test, not built
 * by CMake:
 *   smpicc -O2 bench/simgrid/probe_setup.c -o probe_setup
 *   awk 'BEGIN{for(i=0;i<512;i++)for(j=0;j<4;j++)print "n" i}' > hosts
 *   /usr/bin/time -f %e smpirun -np 512 -platform bench/simgrid/bgp_2048.xml -hostfile hosts \
 *       --cfg=smpi/simulate-computation:no --log=root.thres:critical \
 *       --cfg=smpi/coll-selector:ompi [--cfg=smpi/bcast:binomial_tree] ./probe_setup bcast
 * Measured 2026-11-28 (SimGrid 3.32): bcast 5.3 s (0.35 s binomial), allreduce 5.3 s (0.33 s),
 * dup 5.8 s at 512 ranks and 45 s at 1,024 (0.25 and 0.56 s), none 0.19 s. Stop 48, with
 * --cfg=smpi/bcast:binomial_tree, --cfg=smpi/allreduce:rdb and hosts of 4 ranks as above for 1,024
 * and 2,048 ranks: dups 0, 1, 4 took 77, 90, 130 MB at 1,024 ranks and 117, 168, 321 MB at
 * 2,048: 12-13 bytes per rank pair for each duplicate (each rank's copy holds the whole group),
 * so about 3.3 GB per world-sized communicator at 16,384 ranks. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank;
    const char *what = argc > 1 ? argv[1] : "none";
    if (strcmp(what, "bcast") == 0) {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (strcmp(what, "allreduce") == 0) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    } else if (strcmp(what, "dup") == 0) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_free(&d);
    } else if (strcmp(what, "dups") == 0) {
        MPI_Comm d[16];
        int k = argc > 2 ? atoi(argv[2]) : 1;
        k = k < 0 ? 0 : k > 16 ? 16 : k;
        for (int i = 0; i < k; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &d[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < k; i++)
            MPI_Comm_free(&d[i]);
    }
    MPI_Finalize();
    return 0;
}
