#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_cli.sh DMX VERSION WORKDIR
# The dmx program's command line, without mpiexec (every subcommand parses before MPI_Init):
# --version prints the project's version; every subcommand's --help and `dmx help SUB` exit 0
# and agree; an unknown option, a bad value, a missing value and an option used without the one
# it needs exit 2 and name themselves; the SVG files of plan --fig3, model coll and model gemm
# are well-formed XML with the expected panels and series (python3's xml.etree); model gemm's
# "best G" is the G of least time in its own table.
dmx=$1
version=$2
work=$3
pass=0
fail=0
mkdir -p "$work" || exit 1

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# expect CODE PATTERN ARGS...: dmx ARGS exits CODE and its stdout+stderr matches PATTERN (ERE).
expect() {
    code=$1
    pat=$2
    shift 2
    out=$("$dmx" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        bad "dmx $*: exit $rc, want $code"
        printf '%s\n' "$out" | head -5
    elif ! printf '%s\n' "$out" | grep -Eq -- "$pat"; then
        bad "dmx $*: output does not match /$pat/"
        printf '%s\n' "$out" | head -5
    else
        ok
    fi
}

expect 0 "^dmx $version\$" --version
expect 0 "dmx help SUBCOMMAND" --help
expect 0 "dmx --version" help
expect 2 "unknown option '--no-such-option'" --no-such-option
expect 2 "unknown subcommand 'frobnicate'" help frobnicate

usage=$("$dmx" --help)
subs="bench redist|bench exchange|bench rma|bench coll|bench gemm|bench relabel|calibrate|calibrate gemm|model coll|model gemm|plan|settings"
IFS='|'
for sub in $subs; do
    IFS=' '
    # shellcheck disable=SC2086 # sub is split into its words on purpose
    set -- $sub
    a=$("$dmx" "$@" --help 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && printf '%s\n' "$a" | grep -Eq -- "^usage: (mpirun -n P )?dmx $sub "; then
        ok
    else
        bad "dmx $sub --help: exit $rc or no usage line"
    fi
    b=$("$dmx" help "$@" 2>&1)
    if [ "$a" = "$b" ]; then ok; else bad "dmx help $sub differs from dmx $sub --help"; fi
    # every option line of the help explains it: text after the option and its value, or on
    # the next line, indented
    if printf '%s\n' "$a" | awk '
        bare { if ($0 !~ /^                            [^ ]/) bad = 1; bare = 0 }
        /^  (-[a-z], )?--[a-z0-9-]+( [^ ]+)?$/ { bare = 1 }
        END { exit bad || bare }'; then
        ok
    else
        bad "dmx $sub --help: an option without an explanation"
    fi
    if printf '%s\n' "$a" | grep -q -- "-h, --help"; then ok; else bad "dmx $sub --help: no -h"; fi
    expect 2 "^dmx: $sub: unknown option '--no-such-option'" "$@" --no-such-option
    # listed in the program's usage
    if printf '%s\n' "$usage" | grep -Eq -- "dmx $sub "; then ok; else bad "dmx --help does not list $sub"; fi
    IFS='|'
done
IFS=' '
expect 0 "^usage: mpirun -n P dmx bench rma " bench rma -h
expect 2 "^dmx: model coll: unexpected argument 'stray'" model coll --p 4 --bytes 8 stray
expect 2 "^dmx: calibrate gemm: unexpected argument 'stray'" calibrate gemm stray

# a bad value names the option and the value
expect 2 "dmx: bench redist: bad value for --reps: 'abc'" bench redist --reps abc
expect 2 "dmx: bench exchange: bad value for --protocols: 'xyz'" bench exchange --protocols xyz
expect 2 "dmx: bench rma: bad value for --ops: 'push'" bench rma --ops push
expect 2 "dmx: bench coll: bad value for --coll: 'nosuch'" bench coll --coll nosuch
expect 2 "dmx: bench gemm: bad value for --reps: 'abc'" bench gemm --reps abc
expect 2 "dmx: bench gemm: bad value for --only: 'fast'" bench gemm --only fast
expect 2 "dmx: bench relabel: bad value for --max-p: '0'" bench relabel --max-p 0
expect 2 "dmx: calibrate gemm: bad value for --n: '12abc'" calibrate gemm --n 12abc
expect 2 "dmx: model coll: bad value for --bytes: '1.5k'" model coll --p 4 --bytes 1.5k
expect 2 "dmx: model gemm: bad value for --dtype: 'q'" model gemm --p 4 --n 8 --dtype q
expect 2 "dmx: plan: bad value for --from: '2,2,2,2,X'" plan --size 4,4 --from 2,2,2,2,X --to 2,2,2,2,R
# a missing value, a value given to a flag
expect 2 "dmx: bench redist: option '--reps' needs a value" bench redist --reps
expect 2 "dmx: calibrate: option '--quick' takes no value" calibrate --quick=1
expect 2 "dmx: bench redist: ambiguous option '--seq' \\(--sequence, --seq-min, --seq-max\\)" bench redist --seq 4
# options that need another
expect 2 "dmx: plan: --svg needs --fig3" plan --svg "$work/x.svg"
expect 2 "dmx: plan: --csv needs --fig3" plan --csv "$work/x.csv"
expect 2 "dmx: bench gemm: --groups needs --only" bench gemm --groups 2
expect 2 "dmx: bench redist: --max-n needs --sweep" bench redist --max-n 64
expect 2 "dmx: model gemm: --svg draws against P" model gemm --p 4 --n 64 --svg "$work/x.svg"
expect 2 "dmx: model coll: --bytes is required" model coll --p 4

# SVG files: well-formed, one panel per collective asked for, every series named
svgcheck() { # FILE PANELS SERIES...: PANELS "|"-separated panel titles or "-"
    python3 - "$@" <<'EOF'
import sys, xml.etree.ElementTree as ET
path, panels, want = sys.argv[1], sys.argv[2], sys.argv[3:]
ns = "{http://www.w3.org/2000/svg}"
try:
    root = ET.parse(path).getroot()
except Exception as e:
    print("not well-formed XML:", e); sys.exit(1)
if root.tag != ns + "svg":
    print("root is", root.tag); sys.exit(1)
titles = [t.text for g in root.iter(ns + "g") for t in g.findall(ns + "title")]
texts = [t.text for t in root.iter(ns + "text")]
missing = [w for w in want if w not in titles]
if panels != "-":
    missing += ["panel " + p for p in panels.split("|") if p not in texts]
lines = [p for p in root.iter(ns + "polyline")]
if missing or not lines:
    print("missing:", missing, "series found:", titles); sys.exit(1)
EOF
}
check_svg() {
    if svgcheck "$@"; then ok; else bad "svg $1"; fi
}

expect 0 "wrote $work/coll.svg" model coll --p 64 --bytes 8 --coll bcast,allreduce --svg "$work/coll.svg"
check_svg "$work/coll.svg" "bcast|allreduce" flat ring pipeline binomial recdbl
expect 0 "wrote $work/gemm.svg" model gemm --p 4,16,64 --n 512 --svg "$work/gemm.svg"
check_svg "$work/gemm.svg" - SUMMA "HSUMMA (best G)" Cannon "auto's choice"
expect 0 "" plan --fig3 --svg "$work/fig3.svg" --csv "$work/fig3.csv"
check_svg "$work/fig3.svg" - "exact (optimal relabeling)" greedy

# model gemm: "best G N" is the G of the least time among its hsumma lines
out=$("$dmx" model gemm --p 16,64 --n 2048)
if printf '%s\n' "$out" | awk '
    /^P / { if (n) check(); n = 0; best = ""; bt = 1e300 }
    /^  hsumma/ { n++; if ($(NF - 4) + 0 < bt) { bt = $(NF - 4) + 0; best = $3 } }
    /best G/ { for (i = 1; i <= NF; i++) if ($i == "G") said = $(i + 1) }
    function check() { if (said != best) { print "best G " said ", least time at G " best; bad = 1 } }
    END { if (n) check(); exit bad }'; then
    ok
else
    bad "model gemm: best G disagrees with its time column"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
