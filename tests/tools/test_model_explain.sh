#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_model_explain.sh DMX
# `dmx model <module>` explains every module's choice in one shape (dmx_choice_print): the
# header "<module>: <inputs>", the column line, one row per candidate with exactly one marked
# '*', and "chosen: <that row's name> (<reason>)"; with --json one line whose fields are the same
# (checked with python3's json). Then the choices the rules fix: the exchange's protocol by P
# and by DMX_EXCHANGE, a one-sided transfer's shm, blocks and vector paths, the redistribution's
# engine by size, the collectives' forced algorithm, and exit 2 on a bad argument.
# One process, no mpiexec.
dmx=$1
pass=0
fail=0
unset DMX_EXCHANGE DMX_RMA DMX_COLL_BCAST DMX_GEMM DMX_SMALL_BYTES DMX_ONCE_BYTES

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# shape MODULE ARGS...: the text table's shape; prints the chosen name on success.
shape() {
    module=$1
    shift
    out=$("$dmx" model "$@" 2>&1)
    rc=$?
    first=$(printf '%s\n' "$out" | head -1)
    cols=$(printf '%s\n' "$out" | sed -n 2p)
    star=$(printf '%s\n' "$out" | grep -c '^\* ')
    name=$(printf '%s\n' "$out" | grep '^\* ' | awk '{print $2}')
    last=$(printf '%s\n' "$out" | tail -1)
    if [ "$rc" -ne 0 ]; then
        bad "dmx model $*: exit $rc"
        printf '%s\n' "$out" | head -5
    elif ! printf '%s' "$first" | grep -Eq "^$module: [a-z]"; then
        bad "dmx model $*: first line '$first'"
    elif ! printf '%s' "$cols" | grep -Eq '^  candidate +predicted_s +feasible +note$'; then
        bad "dmx model $*: column line '$cols'"
    elif [ "$star" -ne 1 ]; then
        bad "dmx model $*: $star rows marked chosen"
    elif ! printf '%s' "$last" | grep -Eq "^chosen: $name \(.+\)$"; then
        bad "dmx model $*: last line '$last' does not name the starred row $name"
    else
        ok
        chosen=$name
        return 0
    fi
    chosen=""
    return 1
}

# json MODULE ARGS...: one JSON line with module, inputs, candidates (name, seconds null or a
# number, feasible, note), chosen (a candidate's name) and reason.
json() {
    module=$1
    shift
    if "$dmx" model "$@" --json | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, "%d lines" % len(lines)
c = json.loads(lines[0])
assert c["module"] == sys.argv[1], c["module"]
assert isinstance(c["inputs"], str) and c["inputs"]
names = [d["name"] for d in c["candidates"]]
for d in c["candidates"]:
    assert set(d) == {"name", "seconds", "feasible", "note"}, d
    assert d["seconds"] is None or isinstance(d["seconds"], (int, float)), d
    assert isinstance(d["feasible"], bool), d
assert c["chosen"] in names, c["chosen"]
assert isinstance(c["reason"], str) and c["reason"]
' "$module"; then
        ok
    else
        bad "dmx model $* --json"
    fi
}

# want NAME MODULE ARGS...: the choice is NAME.
want() {
    w=$1
    shift
    if shape "$@" && [ "$chosen" = "$w" ]; then
        ok
    else
        bad "dmx model $(echo "$@" | cut -d' ' -f2-): chose '$chosen', want $w"
    fi
}

for m in "exchange --p 1024 --neighbours 6 --bytes 8" "rma --op get --count 100 --blocklen 1" \
    "redist --size 100,100 --from 8,8,2,2,R --to 32,32,2,2,C" \
    "coll --explain --p 64 --bytes 1M --coll bcast" "gemm --explain --p 16 --n 2048"; do
    mod=${m%% *}
    # shellcheck disable=SC2086
    shape "$mod" $m
    # shellcheck disable=SC2086
    json "$mod" $m
done

want pex exchange exchange --p 16
want pcx exchange exchange --p 17
want pcx exchange exchange --p 63
want nbx exchange exchange --p 64
want rsx exchange exchange --p 8 --protocol rsx
DMX_EXCHANGE=nbx want nbx exchange exchange --p 8
want shm rma rma --op put --count 10 --blocklen 64 --stride 128 --same-node
want vector rma rma --op acc --count 10 --blocklen 64 --stride 128 --same-node
want blocks rma rma --op acc --count 10 --blocklen 4096 --stride 8192 --same-node
want shm rma rma --op get --count 10 --blocklen 64 --ranks 1
want blocks rma rma --op get --count 1 --blocklen 64
want blocks rma rma --op get --count 4 --blocklen 4096 --stride 8192
want vector rma rma --op get --count 100 --blocklen 2 --stride 8
want blocks rma rma --op get --count 100 --blocklen 8 --stride 4
DMX_RMA=pack want pack rma rma --op put --count 100 --blocklen 2 --stride 8
want once-alone redist redist --size 100,100 --from 8,8,2,2,R --to 32,32,2,2,R --once
want small redist redist --size 100,100 --from 8,8,2,2,R --to 32,32,2,2,R
want general redist redist --size 2000,2000 --from 8,8,2,2,R --to 32,32,2,2,R
want small redist redist --size 2000,2000 --from 32,32,2,2,R --to 32,32,2,2,R
DMX_COLL_BCAST=ring want ring coll coll --explain --p 8 --bytes 64 --coll bcast
DMX_GEMM=cannon want cannon gemm gemm --explain --p 16 --n 1024

# several choices: one table each
n=$("$dmx" model coll --explain --p 4,8 --bytes 8,1M --coll bcast,allreduce | grep -c '^chosen: ')
if [ "$n" -eq 8 ]; then ok; else bad "model coll --explain: $n choices, want 8"; fi

# bad arguments exit 2 and name themselves
for args in "exchange" "exchange --p 0" "exchange --p 8 --protocol foo" "rma --op swap --count 1 --blocklen 1" \
    "rma --op get" "redist --size 10,10 --from 1,1,1,1,X --to 1,1,1,1,R" "coll --p 8 --bytes 8 --json"; do
    # shellcheck disable=SC2086
    out=$("$dmx" model $args 2>&1)
    rc=$?
    if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q 'dmx'; then ok; else bad "dmx model $args: exit $rc"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
