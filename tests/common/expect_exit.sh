#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# expect_exit.sh CODE PATTERN COMMAND [ARGS...]
# Runs COMMAND and passes (exit 0) when it exits with status CODE (a signal never matches) and
# its output, stdout and stderr together, matches the extended regular expression PATTERN.
# For command-line tools whose error paths must both fail and say why.
code=$1
pat=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$code" ]; then
    echo "expect_exit: exit status $rc, want $code"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pat"; then
    echo "expect_exit: the output does not match: $pat"
    exit 1
fi
exit 0
