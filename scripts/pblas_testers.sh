#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ScaLAPACK's own PBLAS level-3 testers ({s,d,c,z}pb3tst, Debian's scalapack-mpi-test, MPICH build),
# unmodified, run plainly and with libdmx_scalapack preloaded; their pass/fail counts compared.
#
#   scripts/pblas_testers.sh [--build DIR] [--np N] [--types "s d c z"] [--all-routines]
#                            [--grids N] [--keep DIR] [--source DIR]
#
# --build        the MPICH build of dmx (default build-mpich; configure it with
#                -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich
#                -DDMX_SCALAPACK_LIB=/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so)
# --np           ranks (default 4)
# --types        which testers (default all four)
# --all-routines run every routine the .dat lists (default: only P?GEMM, the one routine the
#                drop-in replaces; the others come from ScaLAPACK in both runs)
# --grids        process grids of the .dat to run (default all of its list that fit in --np)
# --keep         keep the run directories (outputs) there instead of a temporary directory
# --source       a reference ScaLAPACK source tree (Reference-ScaLAPACK/scalapack): build its
#                PBLAS/TESTING level-3 testers, unmodified, with mpif90.mpich against Debian's
#                libscalapack-mpich (as its CMake build does: the tester sources plus PB_Cwarn.c
#                and PB_Cabort.c compiled with -DTestingPblas) and use its .dat files, instead of
#                Debian's prebuilt testers
#
# Each tester runs in a directory holding a copy of its P?BLAS3TST.dat (Debian's, from
# scalapack-test-common), edited only in the routine flags and the grid count, never in sizes.
# Counted per run: the summary's PASSED and FAILED totals, the error-exit mismatches ("*** ERROR
# ***", which the summary does not count) and whether the tester reached "End of Tests.". The
# preloaded run also sets DMX_PROFILE=1 and must show dmx's multiply running ("dmx profile ...
# P?GEMM" on stderr), so a preload that silently did not take effect fails. It sets
# DMX_SCALAPACK_GEMM=dmx: the testers' products are small, which the drop-in otherwise hands to
# ScaLAPACK's own routine.
# Exit status: 0 when every tester ends, fails nothing, and the preloaded run passes exactly as
# many tests as the plain one; 1 otherwise; 2 on a usage or setup error.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build-mpich
np=4
types="s d c z"
all=0
grids=""
keep=""
source=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --all-routines) all=1; shift ;;
    --grids) grids=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --source) source=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    -h | --help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "pblas_testers.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

testers=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/PBLAS
dats=/usr/share/scalapack/PBLAS
mpiexec=/usr/bin/mpiexec.mpich
lib=$build/src/scalapack/libdmx_scalapack.so
for f in "$testers" "$dats" "$mpiexec" "$lib"; do
    if [ -n "$source" ] && { [ "$f" = "$testers" ] || [ "$f" = "$dats" ]; }; then
        continue
    fi
    if [ ! -e "$f" ]; then
        echo "pblas_testers.sh: $f missing (packages scalapack-mpi-test, scalapack-test-common," \
            "libscalapack-mpich-dev, mpich: scripts/deps.sh; and the MPICH build of dmx)" >&2
        exit 2
    fi
done
if ! ldd "$lib" | grep -q libscalapack-mpich; then
    echo "pblas_testers.sh: $lib is not linked with libscalapack-mpich (configure with" \
        "-DDMX_SCALAPACK_LIB=/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so)" >&2
    exit 2
fi
if [ -n "$keep" ]; then
    work=$keep
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
[ -f "$here/scripts/env.sh" ] && . "$here/scripts/env.sh"

# Both runs preload tests/common/mpi_yield.c (MPICH's blocking calls spin; with 4 ranks on 2
# cores each wait costs a time slice), built as scripts/scalapack_testers.sh builds it (BLACS's
# reductions stay blocking) and also yielding in MPICH's idle progress polling
# (DMX_YIELD_PROGRESS). Only the speed changes: dpb3tst at load 12, 20 s without, 5 s with.
yield=$work/mpi_yield.so
if ! mpicc.mpich -O2 -DDMX_YIELD_BLOCKING_REDUCTIONS -DDMX_YIELD_PROGRESS -shared -fPIC \
    -o "$yield" "$here/tests/common/mpi_yield.c"; then
    echo "pblas_testers.sh: cannot build mpi_yield.so" >&2
    exit 2
fi

# --source: build the testers from the reference source into $work/testers.
if [ -n "$source" ]; then
    src=$source/PBLAS/TESTING
    if [ ! -f "$src/pblastst.f" ] || [ ! -f "$source/PBLAS/SRC/PTOOLS/PB_Cabort.c" ]; then
        echo "pblas_testers.sh: $source is not a ScaLAPACK source tree" >&2
        exit 2
    fi
    testers=$work/testers
    dats=$src
    mkdir -p "$testers"
    (cd "$testers" &&
        mpicc.mpich -c -O1 -DTestingPblas -DAdd_ -I"$source/PBLAS/SRC" \
            "$source/PBLAS/SRC/PTOOLS/PB_Cabort.c" "$source/PBLAS/SRC/PTOOLS/PB_Cwarn.c") || exit 2
    for ty in $types; do
        prec=d
        case $ty in s | c) prec=s ;; esac
        (cd "$testers" && mpif90.mpich -O1 -std=legacy -fallow-argument-mismatch -w \
            -o "${ty}pb3tst" "$src/p${ty}blas3tst.f" "$src/p${ty}blastst.f" "$src/${prec}lamch.f" \
            "$src/pblastst.f" PB_Cabort.o PB_Cwarn.o -lscalapack-mpich -llapack -lblas) || exit 2
    done
fi

# The .dat for one tester: routine flags (all but P?GEMM off unless --all-routines) and the
# number of grids (line 11) changed, nothing else.
make_dat() { # $1 source .dat, $2 target
    awk -v all="$all" -v grids="$grids" '
        NR == 11 && grids != "" { sub(/^[ \t]*[0-9]+/, grids) }
        /^P[SDCZ][A-Z0-9]+[ \t]+[TF]/ && all == 0 && $1 !~ /GEMM$/ { sub(/[ \t]T[ \t]/, " F ") }
        { print }' "$1" >"$2"
}

# Sum a column of the summary ("|  PDGEMM  16  16  0  0": total passed failed skipped).
sum_col() { # $1 output, $2 column (3 total, 4 passed, 5 failed)
    awk -v c="$2" '$1 == "|" { s += $c } END { print s + 0 }' "$1"
}

# One run: $1 tester, $2 dir, $3 plain|dmx. Prints "passed failed errexit ended".
run_one() {
    local t=$1 dir=$2 mode=$3 out err
    out=$dir/$mode.out
    err=$dir/$mode.err
    if [ "$mode" = dmx ]; then
        (cd "$dir" && timeout 900 "$mpiexec" -n "$np" -genv LD_PRELOAD "$yield:$lib" \
            -genv DMX_PROFILE 1 -genv DMX_SCALAPACK_GEMM dmx "$testers/$t" >"$out" 2>"$err")
    else
        (cd "$dir" && timeout 900 "$mpiexec" -n "$np" -genv LD_PRELOAD "$yield" "$testers/$t" \
            >"$out" 2>"$err")
    fi
    local rc=$?
    local ended=0
    grep -q "End of Tests" "$out" && [ $rc -eq 0 ] && ended=1
    echo "$(sum_col "$out" 4) $(sum_col "$out" 5) $(grep -c '\*\*\* ERROR \*\*\*' "$out") $ended $rc"
}

status=0
printf '%-8s | %12s | %10s | %6s | %-22s | %s\n' tester "plain passed" "dmx passed" failed \
    "error exits plain/dmx" "ended plain/dmx"
for ty in $types; do
    T=$(echo "$ty" | tr a-z A-Z)
    t=${ty}pb3tst
    dir=$work/$t
    mkdir -p "$dir"
    make_dat "$dats/P${T}BLAS3TST.dat" "$dir/P${T}BLAS3TST.dat"
    read -r pp pf pe pend prc <<<"$(run_one "$t" "$dir" plain)"
    read -r dp df de dend drc <<<"$(run_one "$t" "$dir" dmx)"
    printf '%-8s | %12s | %10s | %6s | %-22s | %s\n' "$t" "$pp" "$dp" "$((pf + df))" "$pe/$de" \
        "$pend/$dend"
    if [ "$pend" -ne 1 ] || [ "$dend" -ne 1 ] || [ "$pf" -ne 0 ] || [ "$df" -ne 0 ] ||
        [ "$pe" -ne 0 ] || [ "$de" -ne 0 ] || [ "$pp" -ne "$dp" ] || [ "$pp" -eq 0 ]; then
        where="outputs in $dir"
        [ -n "$keep" ] || where="rerun with --keep DIR to keep the outputs"
        echo "  $t: FAIL (exit codes plain $prc, dmx $drc; $where)"
        status=1
    fi
    if ! grep -q "dmx profile rank [0-9]*: P${T}GEMM" "$dir/dmx.err"; then
        echo "  $t: FAIL: no 'dmx profile ... P${T}GEMM' line: the preload did not take effect"
        status=1
    fi
done
exit $status
