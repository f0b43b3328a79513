#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Reproduce Figure 3 of the COSTA paper (section 7.2) with the offline planner: communication-
# volume reduction by process relabeling for a 1e5 x 1e5 matrix on a 10 x 10 grid, row-major
# ranks -> column-major ranks, final blocks 1e4, initial blocks 1 .. 1e4.
# Writes docs/fig3.csv and docs/fig3.svg. Usage: scripts/fig3.sh [BUILD_DIR] (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
dmx="$build/tools/dmx"
if [ ! -x "$dmx" ]; then
    echo "fig3.sh: $dmx not found; build first: cmake -S $root -B $build && cmake --build $build" >&2
    exit 1
fi
"$dmx" plan --fig3 --csv "$root/docs/fig3.csv" --svg "$root/docs/fig3.svg"
echo "wrote $root/docs/fig3.csv and $root/docs/fig3.svg"
