#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Side by side: Debian's ScaLAPACK, COSMA, COSTA and dmx's drop-in on the same ScaLAPACK-API calls
# (bench/anchors/anchors.c), launches interleaved (S M C D S M C D ...) so each round sees the same
# background load; prints per case the median over launches of each launch's median call time,
# the ratios against dmx, and writes every launch's JSON line to --out.
#
#   bench/anchors/anchors.sh [--rounds R] [--reps N] [--out file.jsonl] [--cases FILE|-]
#                            [--sweep small|large] [--again] [--bound]
#
# --sweep writes the cases of issue 33's size sweep instead (pdgemm_ on 1 x 1, 1 x 2 and 2 x 2
# grids, nb 64: square n x n x n and the shapes (n, n, 16n) and (16n, n, n), n a power of two;
# small: products under 256^3 multiply-adds, which the drop-in hands to ScaLAPACK, run with many
# --reps; large: the rest up to n = 4096 and (1024, 1024, 16384)). --again launches Debian's
# ScaLAPACK a second time in each round, so ScaLAPACK's own launch-to-launch spread stands beside
# each ratio (an A/A check). --bound adds, for gemm, bench/anchors/bound.c: each rank's share of
# the product as one local dgemm_ with no communication, the ceiling no pdgemm_ can pass here.
#
# Environment: DMX_BUILD (default build; its src/scalapack/libdmx_scalapack.so is preloaded),
# COSMA_DIR (an install prefix of eth-cscs/COSMA v2.8.4: lib/libcosma_pxgemm.so is preloaded for
# gemm), COSTA_DIR (eth-cscs/COSTA v2.3.2: lib/libcosta_scalapack.so for gemr2d and tran); an
# anchor whose directory is unset or lacks the library is left out. bench/README.md has the
# recipe for both. Runs with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 unless set.
#
# A case is one line: np op args... (anchors.c's arguments after the operation), e.g.
#   4 gemm 4096 4096 4096 64 2 2
#   4 tran 4096 4096 32 128 2 2
# Not in CI: minutes per round on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 reps=3 out=anchors.jsonl cases= sweep= again=0 bound=0
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --sweep) sweep=$2; shift 2 ;;
    --again) again=1; shift ;;
    --bound) bound=1; shift ;;
    -h | --help) sed -n '3,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "anchors.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
default_cases='2 gemm 4096 4096 4096 64 1 2
4 gemm 4096 4096 4096 64 2 2
4 gemm 2048 2048 32768 64 2 2
4 gemm 32768 2048 2048 64 2 2
4 gemm 512 512 512 64 2 2
4 gemr2d 4096 4096 32 128 2 2
4 tran 4096 4096 32 128 2 2'
# the sweep's cases: np, grid and the three shapes per n, kept to the small or the large products
sweep_cases() { # small|large
    local g n mnk
    for g in "1 1 1" "2 1 2" "4 2 2"; do
        set -- $g
        for n in 1 2 4 8 16 32 64 128 256 512 1024 2048 4096; do
            for shape in "$n $n $n" "$n $n $((16 * n))" "$((16 * n)) $n $n"; do
                read -r a b c <<<"$shape"
                mnk=$((a * b * c))
                [ "$c" -gt 16384 ] || [ "$a" -gt 16384 ] && continue
                if [ "$mnk" -lt $((256 * 256 * 256)) ]; then
                    [ "$sweep_kind" = small ] && echo "$1 gemm $a $b $c 64 $2 $3"
                else
                    [ "$sweep_kind" = large ] && echo "$1 gemm $a $b $c 64 $2 $3"
                fi
            done
        done
    done
}
if [ -n "$sweep" ]; then
    case $sweep in small | large) ;; *) echo "anchors.sh: --sweep takes small or large" >&2; exit 2 ;; esac
    [ -n "$cases" ] && { echo "anchors.sh: --sweep and --cases exclude each other" >&2; exit 2; }
    sweep_kind=$sweep
    case_text=$(sweep_cases)
elif [ -z "$cases" ]; then
    case_text=$default_cases
elif [ "$cases" = - ]; then
    case_text=$(cat)
else
    case_text=$(cat "$cases")
fi

. "$root/scripts/env.sh"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
dmxlib=${DMX_BUILD:-$root/build}/src/scalapack/libdmx_scalapack.so
[ -f "$dmxlib" ] || { echo "anchors.sh: $dmxlib not found (build dmx, or set DMX_BUILD)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/dmx_anchors.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/anchors" "$root/bench/anchors/anchors.c" -lscalapack-openmpi -lm -ldl
[ "$bound" = 1 ] && mpicc -O2 -o "$tmp/bound" "$root/bench/anchors/bound.c" -lscalapack-openmpi -lblas -lm

cosma=${COSMA_DIR:+$COSMA_DIR/lib/libcosma_pxgemm.so}
costa=${COSTA_DIR:+$COSTA_DIR/lib/libcosta_scalapack.so}
[ -n "$cosma" ] && [ ! -f "$cosma" ] && { echo "anchors.sh: no $cosma; COSMA left out" >&2; cosma=; }
[ -n "$costa" ] && [ ! -f "$costa" ] && { echo "anchors.sh: no $costa; COSTA left out" >&2; costa=; }

: >"$out"
# Open MPI binds each rank to one core when there are at most two ranks, so a rank's second
# OpenMP thread would share its core: with more than one thread per rank, no binding.
bind=
[ "$OMP_NUM_THREADS" -gt 1 ] 2>/dev/null && bind="--bind-to none"
launch() { # impl preload np op args...
    local impl=$1 pre=$2 np=$3
    shift 3
    # shellcheck disable=SC2086 # $bind is empty or two words
    local exe=$tmp/anchors
    [ "$impl" = bound ] && exe=$tmp/bound
    if ! env ANCHOR_IMPL="$impl" ${pre:+LD_PRELOAD=$pre} mpirun $bind -n "$np" "$exe" "$@" \
        "$reps" </dev/null >>"$out" 2>"$tmp/err"; then
        echo "anchors.sh: $impl failed on: $np $*" >&2
        cat "$tmp/err" >&2
        return 1
    fi
}
rc=0
for ((r = 1; r <= rounds; r++)); do
    echo "round $r of $rounds" >&2
    while read -r np op args; do
        [ -z "$np" ] && continue
        # shellcheck disable=SC2086
        launch scalapack "" "$np" "$op" $args || rc=1
        if [ "$again" = 1 ]; then
            # shellcheck disable=SC2086
            launch scalapack_again "" "$np" "$op" $args || rc=1
        fi
        if [ "$op" = gemm ] && [ "$bound" = 1 ]; then
            # shellcheck disable=SC2086
            launch bound "" "$np" "$op" $args || rc=1
        fi
        if [ "$op" = gemm ] && [ -n "$cosma" ]; then
            # shellcheck disable=SC2086
            launch cosma "$cosma" "$np" "$op" $args || rc=1
        fi
        if [ "$op" != gemm ] && [ -n "$costa" ]; then
            # shellcheck disable=SC2086
            launch costa "$costa" "$np" "$op" $args || rc=1
        fi
        # shellcheck disable=SC2086
        launch dmx "$dmxlib" "$np" "$op" $args || rc=1
    done <<<"$case_text"
done

python3 - "$out" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
cases = {}
for r in rows:
    key = (r["op"], r["np"], r["grid"], r["m"], r["n"], r["k"], r["nb"], r["nb2"])
    cases.setdefault(key, {}).setdefault(r["impl"], []).append(r)
wrong = sum(r["wrong"] for r in rows)
impls = {i for v in cases.values() for i in v}
again, bound = "scalapack_again" in impls, "bound" in impls
extra = (" ScaLAPACK again / ScaLAPACK |" if again else "") + (" bound | dmx / bound |" if bound else "")
print("| case | grid | ScaLAPACK | anchor | dmx | ScaLAPACK / dmx | anchor / dmx |" + extra + " libraries |")
print("|---|---|---|---|---|---|---|" + "---|" * extra.count("|") + "---|")
fmt = lambda x: "-" if x is None else f"{x * 1e3:.2f} ms" if x >= 1e-3 else f"{x * 1e6:.2f} us"
spread, ratios = [], []
for key, by in cases.items():
    op, np, grid, m, n, k, nb, nb2 = key
    med = {i: statistics.median(x["t_med"] for x in v) for i, v in by.items()}
    libs = ",".join(sorted({x["lib"] for v in by.values() for x in v}))
    anchor = "cosma" if "cosma" in med else "costa" if "costa" in med else None
    desc = f"{op} {m}x{n}" + (f"x{k} nb {nb}" if op == "gemm" else f" {nb}->{nb2}")
    d, s = med.get("dmx"), med.get("scalapack")
    ratio = lambda x, y: f"{x / y:.2f}" if x is not None and y else "-"
    a = med.get(anchor) if anchor else None
    line = f"| {desc} | {grid} | {fmt(s)} | {anchor or ''} {fmt(a)} | {fmt(d)} | {ratio(s, d)} | {ratio(a, d)} |"
    if again:
        line += f" {ratio(med.get('scalapack_again'), s)} |"
        if s and med.get("scalapack_again"):
            spread.append(med["scalapack_again"] / s)
    if bound:
        line += f" {fmt(med.get('bound'))} | {ratio(d, med.get('bound'))} |"
    if s and d:
        ratios.append(s / d)
    print(line + f" {libs} |")
if ratios:
    g = statistics.geometric_mean(ratios)
    print(f"ScaLAPACK / dmx over {len(ratios)} cases: geometric mean {g:.3f}, "
          f"min {min(ratios):.2f}, max {max(ratios):.2f}")
if spread:
    print(f"ScaLAPACK again / ScaLAPACK: geometric mean {statistics.geometric_mean(spread):.3f}, "
          f"min {min(spread):.2f}, max {max(spread):.2f}")
print(f"wrong elements in all launches: {wrong}")
sys.exit(1 if wrong else 0)
EOF
exit $rc
