#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run `dmx bench rma` (strided put/get) and the OpenSHMEM reference (bench/oshmem/oshmem_aput.c,
# built here with oshcc when it is found) at the same size, and print the ratios the one-sided
# module is judged by (issue 11):
#   msg/best_mpi  dmx on the message path (DMX_SHM=0) against the fastest MPI method, want >= 0.91
#   shm/vector    dmx with the shared segment against one MPI_Put with a vector type (>= 1.5 at
#                 block 1, >= 1 above)
#   shm/oshmem    dmx with the shared segment against oshmem's best method (>= 1.5)
# Ratios are t_other / t_dmx: above 1 means dmx is faster. Timings on a shared 2-core machine are
# noisy; compare within one run.
# Usage: bench/rma_compare.sh [NP=2] [MIB=8] [REPS=5] [BUILD_DIR=build]
#        MPIRUN_ARGS="--mca osc ucx" bench/rma_compare.sh ...   (one-sided component for dmx/MPI)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2}
mib=${2:-8}
reps=${3:-5}
build=${4:-"$root/build"}
dmx="$build/tools/dmx"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$dmx" ] || { echo "rma_compare.sh: $dmx not found; build first" >&2; exit 1; }
. "$root/scripts/env.sh"
# shellcheck disable=SC2086
mpirun -n "$np" ${MPIRUN_ARGS:-} "$dmx" bench rma --json --no-patch --mib "$mib" --reps "$reps" \
    > "$out/dmx.json"
if command -v oshcc >/dev/null 2>&1 && command -v oshrun >/dev/null 2>&1; then
    oshcc -O2 -std=c11 -o "$out/oshmem_aput" "$root/bench/oshmem/oshmem_aput.c"
    oshrun -n "$np" --mca osc ^rdma "$out/oshmem_aput" --mib "$mib" --reps "$reps" \
        > "$out/oshmem.json" || echo "rma_compare.sh: oshmem run failed" >&2
else
    echo "rma_compare.sh: oshcc/oshrun not found: no OpenSHMEM comparison" >&2
    : > "$out/oshmem.json"
fi
cat "$out/dmx.json" "$out/oshmem.json"
cat "$out/dmx.json" "$out/oshmem.json" | awk '
function field(line, name,   r) {
    if (match(line, "\"" name "\":\"?[^,\"}]*")) {
        r = substr(line, RSTART, RLENGTH); sub("^\"" name "\":\"?", "", r); return r
    }
    return ""
}
/"bench":"rma"/ {
    op = field($0, "op"); b = field($0, "blockelems"); impl = field($0, "impl")
    shm = field($0, "shm"); t = field($0, "t_med") + 0
    if (op != "put" && op != "get") next
    key = op " " b; keys[key] = 1
    if (impl == "dmx") { if (shm == "1") dshm[key] = t; else dmsg[key] = t }
    else if (impl ~ /^mpi_/) { if (!(key in bmpi) || t < bmpi[key]) bmpi[key] = t
                               if (impl == "mpi_vector") vec[key] = t }
    else if (impl ~ /^oshmem_/) { if (!(key in bosh) || t < bosh[key]) bosh[key] = t }
}
END {
    printf "\n%-4s %6s %14s %12s %12s\n", "op", "block", "msg/best_mpi", "shm/vector", "shm/oshmem"
    n = asorti_keys()
}
function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
function asorti_keys(   k, op, b, i, list, nl) {
    nl = 0
    for (k in keys) list[++nl] = k
    for (i = 1; i <= nl; i++) for (j = i + 1; j <= nl; j++) {
        split(list[i], x, " "); split(list[j], y, " ")
        if (x[1] > y[1] || (x[1] == y[1] && x[2] + 0 > y[2] + 0)) { t = list[i]; list[i] = list[j]; list[j] = t }
    }
    for (i = 1; i <= nl; i++) {
        k = list[i]; split(k, x, " ")
        printf "%-4s %6s %14s %12s %12s\n", x[1], x[2], ratio(bmpi[k], dmsg[k]),
               ratio(vec[k], dshm[k]), ratio(bosh[k], dshm[k])
    }
    return nl
}'
