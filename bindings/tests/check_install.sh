#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the build into a scratch prefix and use the bindings from there, as a user would:
#  - Fortran: examples/fortran/tour.F90 built with pkg-config dmx-fortran (mpifort) and with
#    CMake (find_package(dmx), target dmx::fortran), each run at 2 ranks;
#  - Python: `import dmx` with only PYTHONPATH set, and examples/python/redistribute.py at 2.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR MPIEXEC PYTHON MPIFORT PYDIR LIBDIR
set -euo pipefail
build=$1 src=$2 mpiexec=$3 python=$4 mpifort=$5 pydir=$6 libdir=$7
flags=()
if "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then flags=(--oversubscribe); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
n=0
if [ "$mpifort" != "none" ]; then
    for f in include/dmx/fortran/dmx.mod "$libdir/libdmx_fortran.so" \
        "$libdir/pkgconfig/dmx-fortran.pc" "$libdir/cmake/dmx/dmxFortranTargets.cmake"; do
        [ -e "$prefix/$f" ] || { echo "missing $f"; exit 1; }
    done
    export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
    # shellcheck disable=SC2046
    "$mpifort" -o "$work/tour_pc" "$src/examples/fortran/tour.F90" \
        $(pkg-config --cflags --libs dmx-fortran)
    LD_LIBRARY_PATH=$prefix/$libdir "$mpiexec" -n 2 "${flags[@]}" "$work/tour_pc"
    n=$((n + 1))
    cmake -S "$src/bindings/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_Fortran_COMPILER="$mpifort" -DDMX_TOUR="$src/examples/fortran/tour.F90" \
        >/dev/null
    cmake --build "$work/consumer" >/dev/null
    LD_LIBRARY_PATH=$prefix/$libdir "$mpiexec" -n 2 "${flags[@]}" "$work/consumer/tour"
    n=$((n + 1))
fi
if [ "$python" != "none" ]; then
    [ -e "$prefix/$pydir/dmx/__init__.py" ] || { echo "missing $pydir/dmx"; exit 1; }
    (cd "$work" && PYTHONPATH=$prefix/$pydir "$python" -c "import dmx; print('dmx', dmx.__version__)")
    (cd "$work" && PYTHONPATH=$prefix/$pydir "$mpiexec" -n 2 "${flags[@]}" "$python" \
        "$src/examples/python/redistribute.py" 256 1)
    n=$((n + 2))
fi
echo "$n passed, 0 failed"
