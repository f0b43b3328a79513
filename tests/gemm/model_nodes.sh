#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# model_nodes.sh TOOL SRC: the multiply's model on one node is what it was before the node-link
# term (issue 35): dmx model gemm at --nodes 1, with the built-in curve and with the BG/P
# platform's files (ibcast = concurrent, where the term applies), gives the recorded output
# (tests/gemm/models/one_node_*.out, written by the model before the term). And the term acts:
# 256 ranks on 64 nodes must predict differently from 256 ranks on 256 nodes, and the BG/P
# file's torus line differently from one link per node.
tool=$1
src=$2
pass=0
fail=0
check() { # name expected-file command...
    name=$1
    want=$2
    shift 2
    if "$@" | diff "$want" - >/dev/null; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: output differs from $want"
        "$@" | diff "$want" -
        fail=$((fail + 1))
    fi
}
models=$src/tests/gemm/models
sim=$src/bench/simgrid
check builtin "$models/one_node_builtin.out" env -u DMX_GEMM_MODEL -u DMX_MODEL \
    "$tool" model gemm --p 4,16,64,256,1024 --n 4096 --nodes 1
check bgp "$models/one_node_bgp.out" env DMX_GEMM_MODEL="$sim/bgp_2048.gemm" \
    DMX_MODEL="$sim/bgp_2048.model" "$tool" model gemm --p 4,16,64,256,1024 --n 4096 --nodes 1
shared=$(env DMX_GEMM_MODEL="$sim/bgp_2048.gemm" DMX_MODEL="$sim/bgp_2048.model" \
    "$tool" model gemm --p 256 --n 4096 --nodes 64 | grep summa | head -1 | sed 's/.*time //')
own=$(env DMX_GEMM_MODEL="$sim/bgp_2048.gemm" DMX_MODEL="$sim/bgp_2048.model" \
    "$tool" model gemm --p 256 --n 4096 --nodes 256 | grep summa | head -1 | sed 's/.*time //')
if [ -n "$shared" ] && [ "$shared" != "$own" ]; then
    pass=$((pass + 1))
else
    echo "FAIL shared nodes: SUMMA at 64 nodes ($shared) as at 256 ($own)"
    fail=$((fail + 1))
fi
# The torus line acts: without it (one link per node) SUMMA's prediction differs.
flat=$(mktemp)
grep -v '^torus' "$sim/bgp_2048.gemm" >"$flat"
nolinks=$(env DMX_GEMM_MODEL="$flat" DMX_MODEL="$sim/bgp_2048.model" \
    "$tool" model gemm --p 256 --n 4096 --nodes 64 | grep summa | head -1 | sed 's/.*time //')
rm -f "$flat"
if [ -n "$nolinks" ] && [ "$nolinks" != "$shared" ]; then
    pass=$((pass + 1))
else
    echo "FAIL torus: SUMMA with the torus ($shared) as with one link per node ($nolinks)"
    fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
