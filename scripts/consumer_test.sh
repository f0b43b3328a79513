#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a user of an installed dmx does, at a scratch prefix: install the build tree there, then
# build and run, against that prefix only,
#   1. a C program through CMake (find_package(dmx), dmx::dmx and dmx::dmx_static),
#   2. the same program through pkg-config with the plain C compiler (shared and --static),
#   3. a C++-only CMake project: one program including only dmx.h, one using dmx.hpp; the first
#      also through pkg-config with the plain C++ compiler,
#   4. if the build has the ScaLAPACK drop-in: a Fortran-only CMake project calling pdgemr2d and
#      pdgemm, linked against libdmx_scalapack.so, against libdmx_scalapack.a, and plain with
#      libdmx_scalapack.so in LD_PRELOAD (the loader's bindings are checked: dmx's symbols).
# Each program checks its results against a serial reference. Sources: tests/install/.
# Usage: consumer_test.sh BUILD_DIR [MPIEXEC [MPI_C_COMPILER]]  (defaults: mpiexec, mpicc; the
# C++ and Fortran wrappers of the same MPI are derived from the C one: mpicc.mpich ->
# mpicxx.mpich, mpifort.mpich). Registered as the ctest install_consumer (label install).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
mpiexec=${2:-mpiexec}
mpicc=${3:-mpicc}
. "$src/scripts/env.sh"
launch=("$mpiexec" -n 2)
if "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then
    launch+=(--oversubscribe)
    env_flag() { echo "-x" "$1=$2"; }
else
    env_flag() { echo "-genv" "$1" "$2"; }
fi
sfx=${mpicc##*/mpicc}
sfx=${sfx#mpicc}
bindir=$(dirname "$(command -v "$mpicc")")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
passed=0 failed=0
step() { # step NAME COMMAND...: run, count, show the output only on failure
    if "${@:2}" >"$work/log" 2>&1; then
        passed=$((passed + 1))
        echo "ok   $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1"
        tail -n 40 "$work/log"
    fi
}

cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(dirname "$(dirname "$(dirname "$(find "$prefix" -name dmxConfig.cmake)")")")
cmake_q=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release)

files_present() {
    for f in include/dmx.h include/dmx.hpp include/dmx/base.h include/dmx/version.h \
        include/dmx/gemm.h include/dmx/expert.h include/dmx/scalapack.h bin/dmx; do
        [ -e "$prefix/$f" ] || { echo "missing $f"; return 1; }
    done
    for f in libdmx.so libdmx.a pkgconfig/dmx.pc; do
        [ -e "$lib/$f" ] || { echo "missing lib/$f"; return 1; }
    done
    # relocatable: no trace of the build's own install prefix or of the build tree, and no
    # library of the system's own folders by its path in the exported targets (bare names)
    ! grep -n "$build\|/usr/local" "$lib/pkgconfig/dmx.pc" "$lib"/cmake/dmx/*.cmake &&
        ! grep -nE '[";:]/(usr/)?lib(64)?(/[a-z0-9_]+-linux-gnu)?/lib[^/;"]*\.(so|a)' \
            "$lib"/cmake/dmx/dmxTargets*.cmake
}
step "installed files, relocatable dmx.pc and CMake files" files_present
step "dmx --version" bash -c "'$prefix/bin/dmx' --version | grep -q '^dmx [0-9]\+\.[0-9]\+\.[0-9]\+$'"

# ---- 1. C through CMake ----------------------------------------------------------------------
c_cmake() {
    cmake -S "$src/tests/install/consumer" -B "$work/c" "${cmake_q[@]}" \
        -DMPI_C_COMPILER="$mpicc" && cmake --build "$work/c"
}
step "C, CMake: configure and build" c_cmake
step "C, CMake, dmx::dmx: run" "${launch[@]}" "$work/c/consumer"
step "C, CMake, dmx::dmx_static: run" "${launch[@]}" "$work/c/consumer_static"
step "C, CMake, dmx::dmx_static: no libdmx.so needed" \
    bash -c "! ldd '$work/c/consumer_static' | grep -q libdmx"

# ---- 2. C through pkg-config, with the plain compiler (MPI comes from dmx.pc's Requires) ----
export PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pc_shared() {
    # shellcheck disable=SC2046
    cc -o "$work/pc_shared" "$src/tests/install/consumer/consumer.c" \
        $(pkg-config --cflags --libs dmx) -Wl,-rpath,"$lib"
}
pc_static() {
    # the archive by name (-l:libdmx.a), everything else as pkg-config --static says
    # shellcheck disable=SC2046
    cc -o "$work/pc_static" "$src/tests/install/consumer/consumer.c" \
        $(pkg-config --cflags dmx) $(pkg-config --static --libs dmx | sed 's/-ldmx\b/-l:libdmx.a/')
}
step "C, pkg-config shared: build" pc_shared
step "C, pkg-config shared: run" "${launch[@]}" "$work/pc_shared"
step "C, pkg-config --static: build" pc_static
step "C, pkg-config --static: run" "${launch[@]}" "$work/pc_static"

# ---- 3. C++ only ------------------------------------------------------------------------------
cxx_cmake() {
    local wrap=()
    [ -x "$bindir/mpicxx$sfx" ] && wrap=(-DMPI_CXX_COMPILER="$bindir/mpicxx$sfx")
    cmake -S "$src/tests/install/cxx" -B "$work/cxx" "${cmake_q[@]}" "${wrap[@]}" &&
        cmake --build "$work/cxx"
}
step "C++-only CMake project: configure and build" cxx_cmake
step "C++, dmx.h only: run" "${launch[@]}" "$work/cxx/cxx_plain"
step "C++, dmx.hpp: run" "${launch[@]}" "$work/cxx/cxx_hpp"
# With only the C library of MPI on the link line (pkg-config), mpi.h's C++ bindings must have
# been skipped by dmx.h, or Open MPI's link fails (MPI::Comm::Comm()).
if command -v c++ >/dev/null; then
    cxx_pc() {
        # shellcheck disable=SC2046
        c++ -o "$work/cxx_pc" "$src/tests/install/cxx/cxx_plain.cpp" \
            $(pkg-config --cflags --libs dmx) -Wl,-rpath,"$lib"
    }
    step "C++, dmx.h only, pkg-config with the plain C++ compiler: build" cxx_pc
    step "C++, dmx.h only, pkg-config: run" "${launch[@]}" "$work/cxx_pc"
fi

# ---- 4. Fortran, the ScaLAPACK drop-in ---------------------------------------------------------
if [ -e "$lib/libdmx_scalapack.so" ]; then
    f_cmake() {
        local wrap=()
        [ -x "$bindir/mpifort$sfx" ] && wrap=(-DMPI_Fortran_COMPILER="$bindir/mpifort$sfx")
        cmake -S "$src/tests/install/fortran" -B "$work/f" "${cmake_q[@]}" "${wrap[@]}" &&
            cmake --build "$work/f"
    }
    # bound NAME BINARY LIB [launcher flags...]: run with the loader's binding log and check that
    # pdgemr2d_ and pdgemm_ were bound to LIB
    bound() {
        local log=$work/ld_$1
        # shellcheck disable=SC2046
        "${launch[@]}" $(env_flag LD_DEBUG bindings) $(env_flag LD_DEBUG_OUTPUT "$log") \
            "${@:4}" "$2" || return 1
        for s in pdgemr2d_ pdgemm_; do
            grep -h "normal symbol \`$s'" "$log".* | grep -q "$3" ||
                { echo "$s not bound to $3"; grep -h "symbol \`$s'" "$log".*; return 1; }
        done
    }
    step "Fortran-only CMake project: configure and build" f_cmake
    step "Fortran, libdmx_scalapack.so linked: run, bound to dmx" \
        bound relinked "$work/f/sp_relinked" libdmx_scalapack
    step "Fortran, libdmx_scalapack.a linked: run" "${launch[@]}" "$work/f/sp_static"
    step "Fortran, libdmx_scalapack.a linked: pdgemr2d_ and pdgemm_ in the program" \
        bash -c "nm '$work/f/sp_static' | grep -q ' T pdgemr2d_\$' &&
                 nm '$work/f/sp_static' | grep -q ' T pdgemm_\$'"
    # shellcheck disable=SC2046
    step "Fortran, plain program with LD_PRELOAD: run, bound to dmx" \
        bound preload "$work/f/sp_plain" libdmx_scalapack \
        $(env_flag LD_PRELOAD "$lib/libdmx_scalapack.so")
else
    echo "(no libdmx_scalapack in this build: the Fortran part is skipped)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
