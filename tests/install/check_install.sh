#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then build and run a consumer project with
# find_package(dmx) (target dmx::dmx) and check the pkg-config file and the installed files.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR MPIEXEC [MPI_C_COMPILER]
# (the consumer is built with the build's MPI; --oversubscribe only for Open MPI's launcher)
set -euo pipefail
build=$1 src=$2 mpiexec=$3 mpicc=${4:-}
flags=()
if "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then flags=(--oversubscribe); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in include/dmx.h include/dmx/base.h include/dmx/layout.h include/dmx/plan.h \
    include/dmx/relabel.h include/dmx/exchange.h include/dmx/scalapack.h bin/dmx; do
    [ -e "$work/prefix/$f" ] || { echo "missing $f"; exit 1; }
done
lib=$(dirname "$(find "$work/prefix" -name dmxConfig.cmake)")/../..
for f in libdmx.so libdmx.a pkgconfig/dmx.pc; do
    [ -e "$lib/$f" ] || { echo "missing lib/$f"; exit 1; }
done
PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs dmx | grep -q -- "-ldmx"
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
    ${mpicc:+-DMPI_C_COMPILER="$mpicc"} >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$mpiexec" -n 2 "${flags[@]}" "$work/consumer/consumer"
echo "1 passed, 0 failed"
