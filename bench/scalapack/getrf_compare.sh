#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# PDGETRF plain against the same binary with libdmx_scalapack preloaded, launches interleaved
# (Open MPI build; run from the repository root after building into build/):
#   bench/scalapack/getrf_compare.sh [launches [n [nb [prow [reps]]]]]   (defaults 3 4096 64 2 3)
# Prints each launch's line (median of reps PDGETRF calls) and the ratio of the medians over the
# launches (plain time / dmx time: above 1 means faster with dmx). NP (default 4) ranks.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
launches=${1:-3}
args=("${2:-4096}" "${3:-64}" "${4:-2}" "${5:-3}")
np=${NP:-4}
bin=build/bench/bench_getrf
lib=$(pwd)/build/src/scalapack/libdmx_scalapack.so
export OPENBLAS_NUM_THREADS=1
plain=() dmx=()
for ((i = 0; i < launches; i++)); do
    p=$(mpirun -n "$np" "$bin" "${args[@]}")
    d=$(mpirun -n "$np" -x LD_PRELOAD="$lib" "$bin" "${args[@]}")
    echo "plain: $p"
    echo "dmx:   $d"
    plain+=("$(sed -n 's/.*median \([0-9.]*\) s.*/\1/p' <<<"$p")")
    dmx+=("$(sed -n 's/.*median \([0-9.]*\) s.*/\1/p' <<<"$d")")
    [ "$(sed -n 's/.*checksum //p' <<<"$p")" = "$(sed -n 's/.*checksum //p' <<<"$d")" ] ||
        echo "note: the factors' checksums differ (rounding order differs with dmx's multiply)"
done
python3 - "${plain[@]}" -- "${dmx[@]}" <<'PY'
import statistics, sys
a = sys.argv[1:]
i = a.index('--')
p, d = [float(x) for x in a[:i]], [float(x) for x in a[i + 1:]]
mp, md = statistics.median(p), statistics.median(d)
print(f"median over launches: plain {mp:.4f} s, dmx {md:.4f} s, plain/dmx {mp / md:.3f}")
PY
