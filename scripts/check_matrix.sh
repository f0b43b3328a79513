#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The suite under every configuration issue 14 asks for (not in CI: about the time of test.sh's
# first pass for each row, on 2 cores):
#   - DMX_EXCHANGE forced to nbx, pex, pcx and rsx in turn (the library reads it on every rank);
#   - Open MPI's TCP transport only (OMPI_MCA_btl=tcp,self: what crosses a real network);
#   - MPICH (build-mpich, made here if missing; without the ScaLAPACK parts).
# Each row runs ctest over its build tree (DMX_MATRIX_BUILD, default build, configured here in
# Release against Open MPI; build-mpich for MPICH) and records passed/failed/total and the wall time; a summary table is
# printed at the end, and the exit code is non-zero if any row failed.
# Usage: scripts/check_matrix.sh [ctest arguments, e.g. -R core_ or -LE large]
# Settings: DMX_MATRIX_ROWS (default "nbx pex pcx rsx tcp mpich"), DMX_MATRIX_JOBS (ctest -j,
# default 2), DMX_MATRIX_TIMEOUT (per test, default 900 s).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rows=${DMX_MATRIX_ROWS:-"nbx pex pcx rsx tcp mpich"}
jobs=${DMX_MATRIX_JOBS:-2}
tmo=${DMX_MATRIX_TIMEOUT:-900}
logdir=$(mktemp -d /tmp/dmx-matrix.XXXXXX)

need_build() { # dir, extra cmake arguments...
    local dir=$1
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DDMX_WERROR=ON "$@" >/dev/null &&
        cmake --build "$dir" -j"$jobs" >/dev/null
}

summary=()
status=0
for row in $rows; do
    dir=${DMX_MATRIX_BUILD:-build}
    envs=()
    case $row in
    nbx | pex | pcx | rsx) envs=(DMX_EXCHANGE=$row) ;;
    tcp) envs=(OMPI_MCA_btl=tcp,self) ;;
    mpich) dir=build-mpich ;;
    *)
        echo "unknown row $row" >&2
        exit 2
        ;;
    esac
    if [ "$row" = mpich ]; then
        need_build "$dir" -DMPI_C_COMPILER=mpicc.mpich \
            -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -DDMX_WITH_SCALAPACK=OFF ||
            { summary+=("$row: build failed"); status=1; continue; }
    else
        need_build "$dir" || { summary+=("$row: build failed"); status=1; continue; }
    fi
    log=$logdir/$row.log
    t0=$(date +%s)
    env "${envs[@]}" ctest --test-dir "$dir" -j"$jobs" --timeout "$tmo" --output-on-failure \
        "$@" >"$log" 2>&1
    t1=$(date +%s)
    line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    failed=$(sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
    [ -n "$line" ] || { total=?; failed=?; }
    failing=$(sed -n '/The following tests FAILED/,$p' "$log" | grep -E '^\s+[0-9]+ - ' |
        sed -E 's/^\s+[0-9]+ - //' | tr '\n' ' ')
    [ "$failed" = 0 ] || status=1
    passed=$([ "$total" != ? ] && [ "$failed" != ? ] && echo $((total - failed)) || echo ?)
    summary+=("$(printf '%-6s %4s passed %4s failed of %4s  %5ss  %s' "$row" "$passed" "$failed" \
        "$total" "$((t1 - t0))" "$failing")")
done
echo "check_matrix: logs in $logdir"
printf '%s\n' "${summary[@]}"
exit $status
