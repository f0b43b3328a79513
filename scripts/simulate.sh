#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Simulated scale for the multiply (docs/gemm.md): builds the dmx program with SimGrid's smpicc
# into build-smpi/ and sweeps SUMMA (panel b), HSUMMA (groups G, panel b, outer panel B) and
# Cannon at 256 and 1024 simulated ranks on the two platform files in bench/simgrid/
# (latency-bound and bandwidth-bound clusters of single-core hosts behind one switch), then
# runs AUTO; each point prints one JSON line with the point asked for ("point"), the simulated
# time (t_med) and the model's prediction (t_model) for the same configuration (for auto: what
# it chose). The model is the one calibrated for the platform: DMX_MODEL=
# bench/simgrid/cluster_<platform>.model (alpha, beta derived from the platform file) and
# DMX_GEMM_MODEL=bench/simgrid/cluster_<platform>.gemm (the hosts' flat 40 Gflop/s, SimGrid's
# concurrent MPI_Ibcast, the switch's backbone capacity).
#
#   scripts/simulate.sh [N]               (default N = 2048)
#   SIM_PLATFORMS="latency bandwidth" SIM_NP="256 1024" \
#   SIM_POINTS="summa:64 summa:128 hsumma:4:64 hsumma:16:64 cannon auto" scripts/simulate.sh
# A point is summa:b, hsumma:G:b (outer panel B = the widest panel, N/sqrt(P)), hsumma:G:b:B,
# cannon or auto (no option forced); forced points use the data's square grid.
#
# Deterministic: the SimGrid build (-DDMX_SIM_FLOPS) does not run the local multiplies but
# charges their flops to the simulated host (smpi_execute_flops), and the rest of the code is
# not timed (smpi/simulate-computation:no), so the simulated times do not depend on this
# machine's load; the results are not computed (max_err is meaningless here). SMPI's bandwidth
# and latency correction factors are set to 1 so the platform's figures are the truth the
# model files state. Message path only (DMX_SHM=0); OpenMP off; malloc not overridden
# (SMPI_NO_OVERRIDE_MALLOC: dmx has struct members named free). The build also defines
# DMX_SIM_WAIT: dmx's polled waits (bounded waits, the agreements' MPI_Iallreduce, the
# redistribution engines' MPI_Testany / MPI_Testall loops) block in MPI_Wait / MPI_Allreduce /
# MPI_Waitany / MPI_Waitall instead, without DMX_TIMEOUT (in SMPI each MPI_Test costs simulated
# time and a scheduling round, and MPI_Iallreduce sends p^2 messages). Points run one after
# another, each killed after SIM_TIMEOUT seconds (default 900). Cost here: a 256-rank point
# 2-10 s, a 1024-rank point (n = 4096) 30-90 s. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2048}
PLATFORMS=${SIM_PLATFORMS:-"latency bandwidth"}
NPS=${SIM_NP:-"256 1024"}
POINTS=${SIM_POINTS:-"summa:64 summa:128 hsumma:4:64 hsumma:16:64 cannon auto"}
command -v smpicc >/dev/null || { echo "simulate: smpicc not found (apt-get install simgrid)"; exit 1; }
cmake -S . -B build-smpi -DCMAKE_C_COMPILER=smpicc -DCMAKE_BUILD_TYPE=Release \
  -DDMX_WITH_SCALAPACK=OFF -DDMX_BUILD_TESTS=OFF -DDMX_WITH_OPENMP=OFF \
  -DCMAKE_C_FLAGS="-DSMPI_NO_OVERRIDE_MALLOC -DDMX_SIM_FLOPS -DDMX_SIM_WAIT" >/dev/null
cmake --build build-smpi -j2 --target dmx_tool >/dev/null
hosts=$(mktemp)
trap 'rm -f "$hosts"' EXIT
for i in $(seq 0 1023); do echo "h$i"; done >"$hosts"
run() { # platform np alg [bench options...]
    local plat=$1 np=$2
    shift 2
    DMX_SHM=0 OPENBLAS_NUM_THREADS=1 DMX_MODEL="bench/simgrid/cluster_$plat.model" \
        DMX_GEMM_MODEL="bench/simgrid/cluster_$plat.gemm" \
        timeout -s KILL "${SIM_TIMEOUT:-900}" smpirun -np "$np" -platform "bench/simgrid/cluster_$plat.xml" -hostfile "$hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
        --log=root.thres:critical \
        build-smpi/tools/dmx bench gemm --n "$N" --reps 1 --no-warmup --no-peak --nodes "$np" --only "$@" \
        2>/dev/null | grep '"gemm_sim"' | sed "s/^{/{\"platform\":\"$plat\",\"point\":\"$pt\",/" ||
        echo "{\"platform\":\"$plat\",\"np\":$np,\"failed\":\"$*\"}"
}
for plat in $PLATFORMS; do
    for np in $NPS; do
        q=1
        while [ $(((q + 1) * (q + 1))) -le "$np" ]; do q=$((q + 1)); done
        cap=$(((N + q - 1) / q)) # widest panel on the square grid
        echo "# $plat np $np n $N (widest panel $cap)"
        for pt in $POINTS; do
            IFS=: read -r alg x y z <<<"$pt"
            case $alg in
            summa) run "$plat" "$np" summa --panel "$x" ;;
            hsumma) run "$plat" "$np" hsumma --groups "$x" --panel "$y" --outer "${z:-$cap}" ;;
            *) run "$plat" "$np" "$alg" ;;
            esac
        done
    done
done
