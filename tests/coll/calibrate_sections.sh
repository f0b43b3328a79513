#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# calibrate_sections.sh FILE TOOL LAUNCH...
# dmx calibrate at np 2 (LAUNCH: the mpiexec line for 2 ranks) into FILE, which already holds
# sections np = 4, 2 and 64 and a line of its own before them: the new np = 2 section replaces
# the old one, the others and the line before them stay, and dmx model coll then takes np = 2's
# section at P = 2, np = 4's at P = 3 and 4, np = 64's at P = 32 and 100 (docs/coll.md). The
# new section holds the sparse exchange's measured protocol (one node), which AUTO then runs at
# P = 2 (dmx model exchange says so), while np = 64's `exchange = nbx` decides at P = 100.
file=$1
tool=$2
shift 2
pass=0
fail=0
check() { # check WHAT COMMAND...: COMMAND must succeed
    what=$1
    shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)) && echo "check FAIL: $what"; fi
}
printf '# my own note\nintra = 1e30 1e-6 1e-9\nnp = 4\nmpi.bcast = 3\nnp = 2\nmpi.bcast = 9\n' >"$file"
printf 'np = 64\nexchange = nbx\nmpi.allreduce = 2' >>"$file" # no newline at the end
out=$("$@" "$tool" calibrate --quick --no-corr -o "$file" 2>&1)
echo "$out" | tail -3
said=$(printf '%s\n' "$out" | grep -c "wrote $file (section np = 2, .*kept np = 4, 64)")
check "calibrate's message" test "$said" -eq 1
check "one np = 2 section" test "$(grep -c '^np = 2$' "$file")" -eq 1
check "the old np = 2 factor gone" test "$(grep -c 'mpi.bcast = 9' "$file")" -eq 0
check "np = 4 kept with its factor" sh -c "grep -A1 '^np = 4$' '$file' | grep -q 'mpi.bcast = 3'"
check "np = 64 kept with its factor" sh -c "grep -A2 '^np = 64$' '$file' | grep -q 'mpi.allreduce = 2'"
check "the file's own line kept" grep -q '^# my own note' "$file"
check "the measured intra lines in np = 2" sh -c "sed -n '/^np = 2$/,/^np = 4$/p' '$file' | grep -q '^intra = '"
sec=$("$tool" model coll --p 2,3,4,32,100 --bytes 8 --coll bcast --model "$file" | grep -o 'P = [0-9]*, .*section np = [0-9]*' | sed 's/, 1 node(s), model section//' | tr '\n' ';')
check "sections by P: $sec" test "$sec" = "P = 2 np = 2;P = 3 np = 4;P = 4 np = 4;P = 32 np = 64;P = 100 np = 64;"
check "the exchange's protocol in np = 2" sh -c "sed -n '/^np = 2$/,/^np = 64$/p' '$file' | grep -Eq '^exchange = (nbx|pex|pcx)$'"
x2=$(sed -n '/^np = 2$/,/^np = 64$/s/^exchange = //p' "$file")
m2=$(DMX_MODEL=$file "$tool" model exchange --p 2 --json)
has() { printf '%s\n' "$1" | grep -q "$2"; } # has TEXT PATTERN
check "AUTO at P = 2 runs the measured $x2" has "$m2" "\"chosen\":\"$x2\".*measured on this machine"
m100=$(DMX_MODEL=$file "$tool" model exchange --p 100 --json)
check "AUTO at P = 100 runs np = 64's nbx" has "$m100" '"chosen":"nbx".*section np = 64'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
