#!/usr/bin/env bash
# Simulated scale for the multiply (docs/gemm.md): builds the dmx program with SimGrid's smpicc
# into build-smpi/ and runs SUMMA and HSUMMA (several G) at 256 and 1024 simulated ranks on the
# two platform files in bench/simgrid/ (latency-bound and bandwidth-bound clusters of
# single-core hosts behind one switch), printing the simulated time beside the model's
# prediction (the model with one rank per node: --nodes P).
#
#   scripts/simulate.sh [N] [PANEL]      (default N = 2048, PANEL = 128)
#   SIM_PLATFORMS="bench/simgrid/x.xml" SIM_NP="256" SIM_G="1 4 16" scripts/simulate.sh
#
# Message path only (DMX_SHM=0: no shared windows in SMPI); OpenMP off; malloc not overridden
# (SMPI_NO_OVERRIDE_MALLOC: dmx has struct members named free). Local multiplies really run (SMPI
# times them and scales to the hosts' 40 Gflop/s via smpi/host-speed), so the run takes about
# as long as the whole product on one core plus the simulation: about 10 s per 256-rank point
# and 4 min per 1024-rank point on a loaded 2-core machine (~50 min for the full sweep). Not part
# of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2048}
PANEL=${2:-128}
PLATFORMS=${SIM_PLATFORMS:-"bench/simgrid/cluster_latency.xml bench/simgrid/cluster_bandwidth.xml"}
NPS=${SIM_NP:-"256 1024"}
GS=${SIM_G:-"1 4 16 64"}
command -v smpicc >/dev/null || { echo "simulate: smpicc not found (apt-get install simgrid)"; exit 1; }
cmake -S . -B build-smpi -DCMAKE_C_COMPILER=smpicc -DCMAKE_BUILD_TYPE=Release \
  -DDMX_WITH_SCALAPACK=OFF -DDMX_BUILD_TESTS=OFF -DDMX_WITH_OPENMP=OFF \
  -DCMAKE_C_FLAGS="-DSMPI_NO_OVERRIDE_MALLOC" >/dev/null
cmake --build build-smpi -j2 --target dmx_tool >/dev/null
hosts=$(mktemp)
trap 'rm -f "$hosts"' EXIT
for i in $(seq 0 1023); do echo "h$i"; done >"$hosts"
run() { # platform np alg [groups]
    local extra=()
    [ "$3" = hsumma ] && extra=(--groups "$4" --outer $((PANEL * 4)))
    DMX_SHM=0 OPENBLAS_NUM_THREADS=1 smpirun -np "$2" -platform "$1" -hostfile "$hosts" \
        --cfg=smpi/host-speed:40Gf --log=root.thres:critical \
        build-smpi/tools/dmx bench gemm --n "$N" --reps 1 --only "$3" --panel "$PANEL" \
        "${extra[@]}" --no-peak --nodes "$2" 2>/dev/null | grep '"gemm_sim"' || echo "{\"failed\":\"$*\"}"
}
for plat in $PLATFORMS; do
    for np in $NPS; do
        echo "# $(basename "$plat") np $np n $N b $PANEL"
        run "$plat" "$np" summa
        for g in $GS; do
            [ "$g" -le "$np" ] && run "$plat" "$np" hsumma "$g"
        done
        run "$plat" "$np" auto
    done
done
