#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The default case: install dependencies, build, and run the redistribution benchmark
# (4096 x 4096 doubles, 32x32 -> 128x128 blocks on a 2x2 grid, 4 ranks) against ScaLAPACK and
# MPI_Alltoallv. Extra arguments go to `dmx bench redist`.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/deps.sh
. scripts/env.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(dmx_nproc)" >/dev/null
mpirun -n 4 --oversubscribe build/tools/dmx bench redist "$@"
