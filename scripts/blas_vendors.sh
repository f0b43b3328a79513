#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dmx built against another BLAS than the default one, quickly: for each BLA_VENDOR given
# (default: Generic, Debian's reference BLAS; FLAME is BLIS), configure a build dir of its own,
# build the library and two tests only, and check that
#   1. libdmx.so's BLAS dependency resolves (ldd) to the library CMake chose;
#   2. at run time the multiply's cblas_?gemm calls bind to that library (the loader's
#      LD_DEBUG=bindings), not to another BLAS that came in with ScaLAPACK: on Debian,
#      libscalapack needs libblas.so.3 and liblapack.so.3, both alternatives links that usually
#      lead to OpenBLAS;
#   3. the multiply's tests pass: gemm (every algorithm, dtype and op against a serial
#      reference) at 1 and 2 ranks, and with ScaLAPACK the p?gemm_ comparison against Debian's
#      ScaLAPACK (every call through dmx's multiply) at 1 and 2 ranks.
# The whole suite against each BLAS is a longer run (docs/gemm.md, "BLAS"): e.g.
#   cmake -S . -B build-blis -DBLA_VENDOR=FLAME && cmake --build build-blis -j && \
#     (cd build-blis && ctest -LE large)
# Usage: scripts/blas_vendors.sh [VENDOR...]; build dirs build-blas-VENDOR (kept, so a rerun
# only rebuilds what changed; DMX_BLAS_BUILD=DIR uses DIR instead, for one vendor). Exits
# non-zero when any check fails.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/scripts/env.sh"
jobs=$(dmx_nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

fail() {
    echo "FAIL [$vendor] $*"
    status=1
}

# bound_to FILE SYMBOL: the library SYMBOL was bound to in an LD_DEBUG=bindings log, resolved
bound_to() {
    sed -n "s/.*binding file .* to \(.*\) \[[0-9]*\]: normal symbol \`$2'.*/\1/p" "$1" |
        head -n 1 | xargs -r readlink -f
}

# run_bound NAME NP [ENV=VALUE...] EXE: run EXE at NP ranks with the loader's bindings logged;
# checks that it passed and that its cblas_?gemm calls went to the chosen BLAS.
run_bound() {
    local name=$1 np=$2
    shift 2
    rm -f "$work"/ld.*
    if ! mpiexec -n "$np" env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ld" \
        "$@" >"$work/out" 2>&1 || ! grep -q " 0 failed" "$work/out"; then
        fail "$name at $np ranks:"
        tail -n 20 "$work/out"
        return
    fi
    local log t got
    log=$(grep -l "symbol \`cblas_dgemm'" "$work"/ld.* | head -n 1 || true)
    if [ -z "$log" ]; then
        fail "$name: no cblas_dgemm call seen"
        return
    fi
    for t in s d c z; do
        got=$(bound_to "$log" "cblas_${t}gemm")
        [ -z "$got" ] || [ "$got" = "$want" ] ||
            fail "$name: cblas_${t}gemm bound to $got, not $want"
    done
    got=$(bound_to "$log" cblas_dgemm)
    local note=""
    if [[ "$want" != *openblas* ]] && grep -q "libopenblas" "$log"; then
        note=" (libopenblas loaded too, by ScaLAPACK's liblapack.so.3)"
    fi
    echo "ok   [$vendor] $name at $np ranks: $(tail -n 1 "$work/out"); cblas_dgemm -> $got$note"
}

for vendor in "${@:-Generic}"; do
    build=${DMX_BLAS_BUILD:-$src/build-blas-$vendor}
    if ! cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDMX_WERROR=ON \
        -DBLA_VENDOR="$vendor" >"$work/configure" 2>&1; then
        fail "configure"
        tail -n 20 "$work/configure"
        continue
    fi
    # the first library of "-- BLAS: lib1;lib2 (cblas.h in ...)"
    blas=$(sed -n 's/^-- BLAS: \([^; ]*\).*/\1/p' "$work/configure" | tail -n 1)
    want=$(readlink -f "$blas")
    soname=$(objdump -p "$want" | awk '/SONAME/ {print $2}')
    targets=(dmx test_gemm)
    sp=OFF
    if grep -q "^-- ScaLAPACK: " "$work/configure"; then
        targets+=(test_sp_gemm_compare)
        sp=ON
    fi
    if ! cmake --build "$build" -j"$jobs" --target "${targets[@]}" >"$work/build" 2>&1; then
        fail "build"
        tail -n 30 "$work/build"
        continue
    fi
    echo "ok   [$vendor] built against $blas ($want)"

    got=$(ldd "$build/libdmx.so" | awk -v s="$soname" '$1 == s {print $3}' | xargs -r readlink -f)
    if [ "$got" = "$want" ]; then
        echo "ok   [$vendor] libdmx.so: $soname => $got"
    else
        fail "libdmx.so: $soname resolves to '${got}', not $want"
    fi

    run_bound gemm 1 "$build/tests/gemm/test_gemm"
    run_bound gemm 2 "$build/tests/gemm/test_gemm"
    if [ "$sp" = ON ]; then
        for np in 1 2; do
            run_bound scalapack_gemm_compare "$np" DMX_SCALAPACK_GEMM=dmx \
                "$build/tests/scalapack/test_sp_gemm_compare"
        done
    fi
done
exit $status
