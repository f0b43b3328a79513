#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's prebuilt ScaLAPACK testers (package scalapack-mpi-test, built for MPICH; .dat inputs
# from scalapack-test-common) run at 4 ranks under MPICH, each once plain and once with dmx's
# drop-in (libdmx_scalapack built against libscalapack-mpich) preloaded, so ScaLAPACK's own
# solvers call dmx's PDGEMM/PDGEMR2D/PDTRAN... on submatrices of their arrays.
#
# Every run preloads tests/common/mpi_yield.c (MPICH's blocking calls spin; with 4 ranks
# on 2 cores they wait a time slice per message otherwise) and reads the reduced .dat files of
# tests/scalapack/testers/ (the shipped sizes take far too long here). The dmx run also preloads
# tests/scalapack/testers/sp_calls.c, which counts the calls reaching each drop-in entry point.
#
# Prints a table: tester | plain passed | dmx passed | failed (plain/dmx) | seconds (plain/dmx) |
# status | calls that reached dmx. Exits non-zero if any tester's dmx "passed" count differs
# from the plain one, any run reports a failed test, passes nothing, times out or crashes.
#
# usage: scripts/scalapack_testers.sh [--lib PATH] [--only REGEX] [--skip REGEX] [--out FILE]
#                                     [--keep DIR] [--timeout SECONDS]
#   --lib      the MPICH-built libdmx_scalapack.so (env DMX_SCALAPACK_MPICH_LIB; default
#              build-mpich/src/scalapack/libdmx_scalapack.so, built by
#              cmake -S . -B build-mpich -DMPI_C_COMPILER=mpicc.mpich
#                -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich
#                -DDMX_SCALAPACK_LIB=/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so
#              && cmake --build build-mpich --target dmx_scalapack)
#   --only     run only the testers whose name (e.g. xdlu) matches this extended regex
#   --skip     leave out the testers whose name matches this extended regex
#   --out      also write the table (markdown) to FILE
#   --keep     keep every run's output in DIR (<tester>.plain.log, <tester>.dmx.log)
#   --timeout  seconds per run (default 300; env DMX_TESTER_TIMEOUT); a timeout is a failure
# Env: DMX_TESTER_DIR (the testers, default Debian's path), MPIEXEC (default mpiexec.mpich),
#      MPICC (default mpicc.mpich).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/env.sh

lib=${DMX_SCALAPACK_MPICH_LIB:-$root/build-mpich/src/scalapack/libdmx_scalapack.so}
only=.
skip=
out=
keep=
tmo=${DMX_TESTER_TIMEOUT:-300}
bindir=${DMX_TESTER_DIR:-/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests}
mpiexec=${MPIEXEC:-mpiexec.mpich}
mpicc=${MPICC:-mpicc.mpich}
datdir=$root/tests/scalapack/testers

while [ $# -gt 0 ]; do
    case "$1" in
    --lib) lib=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    *) echo "scalapack_testers: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
done

die() { echo "scalapack_testers: $*" >&2; exit 2; }
[ -f "$lib" ] || die "no drop-in library $lib (build it as in the header of this script, or --lib)"
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
[ -x "$bindir/xdlu" ] || die "no testers in $bindir (Debian package scalapack-mpi-test; scripts/deps.sh)"
command -v "$mpiexec" >/dev/null || die "$mpiexec not found (Debian package mpich)"

tmp=$(mktemp -d /tmp/dmx_sptesters.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$mpicc" -O2 -DDMX_YIELD_BLOCKING_REDUCTIONS -shared -fPIC -o "$tmp/mpi_yield.so" "$root/tests/common/mpi_yield.c" ||
    die "cannot build mpi_yield.so"
"$mpicc" -O2 -shared -fPIC -o "$tmp/sp_calls.so" "$datdir/sp_calls.c" -ldl ||
    die "cannot build sp_calls.so"
[ -n "$keep" ] && mkdir -p "$keep"

# testers of Debian's that fail now and then by themselves (see the loop below)
flaky="xcheevr xzheevr"
# Debian's real LU and Cholesky testers deadlock by themselves in their condition estimate
# (p?lacon through p?gecon/p?gerfs, p?pocon/p?porfs: ranks take different branches, two wait in
# p?amax's broadcast while two wait in p?symv's messages; Reference-ScaLAPACK issue 121). On
# 2026-11-28's Intel VM, with no dmx in the process: xslu and xsllt in every run, xdlu in 2 of 3,
# xdllt in 2 of 4 (AMD VMs before never showed it). For these the .dat line "Test Cond. Est. and
# Iter. Ref." is set to F: factorization, solve and residual checks stay (and so do the LU
# factorization's p?gemm_ calls into dmx), the estimate is left out. Complex LU and Cholesky keep it.
no_estimate="xslu xdlu xsllt xdllt"

# family, .dat file, precisions (the testers Debian ships for it)
families=(
    "lu LU.dat sdcz" "qr QR.dat sdcz" "llt LLT.dat sdcz" "inv INV.dat sdcz" "ls LS.dat sdcz"
    "trd TRD.dat sdcz" "brd BRD.dat sdcz" "hrd HRD.dat sdcz" "sep SEP.dat sdcz"
    "syevr SEPR.dat sd" "heevr SEPR.dat cz" "svd SVD.dat sd" "nep NEP.dat sdcz"
    "gsep SEP.dat sdcz" "evc EVC.dat cz" "dblu BLU.dat sdcz" "gblu BLU.dat sdcz"
    "pbllt BLLT.dat sdcz" "ptllt BLLT.dat sdcz"
)

# counts LOG -> "passed failed complete". Most testers end with "N tests completed and passed
# residual checks." / "N tests completed and failed ..." and "END OF TESTS."; x?svd prints a line
# "Passed ..." per passed test, "Test I = k has failed" per failed check, and ends with "End of
# tests". complete = the closing line was reached and no crash or dmx error was printed.
counts() {
    awk '
        /tests? completed and passed/ { p += $1 }
        /tests? completed and failed/ { f += $1 }
        /^Passed / { p += 1 }
        /has failed|Different processes return different INFO/ { f += 1 }
        /END OF TESTS|^End of tests/ { c = 1 }
        /BAD TERMINATION|Segmentation|dmx_scalapack:|DMX_ERR/ { bad = 1 }
        END { printf "%d %d %d\n", p, f, (c && !bad) }' "$1"
}

# residuals LOG -> the result rows of an eigensolver tester without their times and verdict
# (N NB P Q TYP SUB, then CHK and QTQ), one per line
residuals() {
    awk '/ (PASSED|FAILED) / && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $9, $10 }' "$1"
}

# run NAME MODE PRELOAD -> log in $tmp/NAME.MODE.log, prints "rc seconds"
run() {
    local name=$1 mode=$2 preload=$3 dir="$tmp/$1.$2" t0 t1 rc
    mkdir -p "$dir"
    cp "$datdir"/*.dat "$dir"/
    if [[ " $no_estimate " == *" $name "* ]]; then
        sed -i 's/^T\([[:space:]]*(T or F) Test Cond\. Est\.\)/F\1/' "$dir"/LU.dat "$dir"/LLT.dat
    fi
    t0=$(date +%s.%N)
    (cd "$dir" && timeout -k 10 "$tmo" "$mpiexec" -n 4 -env LD_PRELOAD "$preload" \
        "$bindir/$name" >"$tmp/$name.$mode.log" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    [ -n "$keep" ] && cp "$tmp/$name.$mode.log" "$keep/"
    awk -v rc="$rc" -v a="$t0" -v b="$t1" 'BEGIN { printf "%d %.1f\n", rc, b - a }'
}

table=$tmp/table.md
{
    echo "| tester | plain passed | dmx passed | failed (plain/dmx) | seconds (plain/dmx) | status | calls reaching dmx |"
    echo "|---|---|---|---|---|---|---|"
} >"$table"
cat "$table"
nbad=0
start=$(date +%s)
for fam in "${families[@]}"; do
    read -r base dat precs <<<"$fam"
    for ((i = 0; i < ${#precs}; i++)); do
        name=x${precs:i:1}$base
        [[ $name =~ $only ]] || continue
        [ -n "$skip" ] && [[ $name =~ $skip ]] && continue
        [ -x "$bindir/$name" ] || { echo "| $name | - | - | - | - | MISSING | |" | tee -a "$table"; nbad=$((nbad + 1)); continue; }
        # Debian's own x[cz]heevr fail now and then with no dmx in the process: on 2026-11-28
        # the plain xzheevr printed FAILED in 5 of 8 runs, every time with the same residuals
        # (CHK 0.16, QTQ 2.0, threshold 100) as the runs that printed PASSED. Those get up to 5
        # attempts, each plain and dmx, and pass when one attempt passes; when none does, they
        # pass if every attempt's dmx rows show the same residuals as Debian's (residuals()).
        attempts=1
        [[ " $flaky " == *" $name "* ]] && attempts=5
        same=1
        for ((try = 1; try <= attempts; try++)); do
            read -r prc pt <<<"$(run "$name" plain "$tmp/mpi_yield.so")"
            read -r drc dt <<<"$(run "$name" dmx "$tmp/mpi_yield.so:$tmp/sp_calls.so:$lib")"
            read -r pp pf pc <<<"$(counts "$tmp/$name.plain.log")"
            read -r dp df dc <<<"$(counts "$tmp/$name.dmx.log")"
            calls=$(sed -n 's/^sp_calls: //p' "$tmp/$name.dmx.log" | tail -1)
            why=
            [ "$prc" = 124 ] || [ "$prc" = 137 ] && why+=" plain-timeout"
            [ "$drc" = 124 ] || [ "$drc" = 137 ] && why+=" dmx-timeout"
            [ -z "$why" ] && [ "$prc" != 0 ] && why+=" plain-rc=$prc"
            [ -z "$why" ] && [ "$drc" != 0 ] && why+=" dmx-rc=$drc"
            [ "$pc" = 1 ] || why+=" plain-incomplete"
            [ "$dc" = 1 ] || why+=" dmx-incomplete"
            [ "$pf" = 0 ] && [ "$df" = 0 ] || why+=" failed"
            [ "$pp" -gt 0 ] || why+=" none-passed"
            [ "$pp" = "$dp" ] || why+=" dmx!=plain"
            [ -z "$why" ] && break
            [ "$attempts" -gt 1 ] && [ "$(residuals "$tmp/$name.plain.log")" != "$(residuals "$tmp/$name.dmx.log")" ] && same=0
            [ "$try" -lt "$attempts" ] && echo "  $name: attempt $try not ok:$why (a known flaky tester: again)"
        done
        status=${why:-ok}
        [ -z "$why" ] && [ "$try" -gt 1 ] && status="ok (attempt $try of $attempts)"
        if [ -n "$why" ] && [ "$attempts" -gt 1 ] && [ "$same" = 1 ] && [ "$pc" = 1 ] && [ "$dc" = 1 ] &&
            [ -n "$(residuals "$tmp/$name.dmx.log")" ]; then
            why= status="ok (residuals equal to Debian's in all $attempts attempts; its own verdict flaky)"
        fi
        echo "| $name | $pp | $dp | $pf/$df | $pt/$dt | ${status# } | ${calls:-?} |" | tee -a "$table"
        if [ -n "$why" ]; then
            nbad=$((nbad + 1))
            for mode in plain dmx; do
                echo "---- $name $mode (last lines of its output):" >&2
                grep -v -E '^(WALL|CPU) ' "$tmp/$name.$mode.log" | tail -n 12 | sed 's/^/    /' >&2
            done
        fi
    done
done
total=$(($(date +%s) - start))
echo "scalapack_testers: $nbad tester(s) not ok, ${total} s in all (timeout ${tmo} s per run)" |
    tee -a "$table"
[ -n "$out" ] && cp "$table" "$out"
[ "$nbad" = 0 ]
