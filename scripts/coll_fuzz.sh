#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The longer randomized comparison of dmx's collectives with the MPI library's own calls
# (tests/coll/test_coll_fuzz.c): CASES cases at each of 1..NP ranks, oversubscribed.
#   scripts/coll_fuzz.sh [BUILD_DIR [CASES [NP [SEED]]]]     defaults: build 2000 6 12345
# Prints each run's "N passed, N failed" line; exits non-zero if any run failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
cases=${2:-2000}
np=${3:-6}
seed=${4:-12345}
. "$here/env.sh"
mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
flags=
case "$("${mpiexec:-mpiexec}" --version 2>&1)" in *"Open MPI"* | *OpenRTE*) flags=--oversubscribe ;; esac
rc=0
n=1
while [ "$n" -le "$np" ]; do
  out=$("${mpiexec:-mpiexec}" $flags -n "$n" "$build/tests/coll/test_coll_fuzz" "$cases" "$seed" 2>&1)
  line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
  echo "np $n: ${line:-no result line}"
  case "$line" in *" 0 failed"*) ;; *) rc=1; printf '%s\n' "$out" | grep FAIL -A3 | head -20 ;; esac
  n=$((n + 1))
done
exit $rc
