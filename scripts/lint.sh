#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Static checks of the tracked C sources, run by test.sh (and so by .ci/run):
#  1. formatting: every tracked *.c / *.h must be unchanged by clang-format (the repo's
#     .clang-format); fix with `clang-format -i FILE`;
#  2. cppcheck (warning, performance, portability; every preprocessor configuration) with the
#     project's include folders. A finding that is not a bug is suppressed where it occurs with
#     `/* cppcheck-suppress <id> ; <reason> */` on the line before;
#  3. every source file opens with its SPDX license line (scripts/spdx.sh);
#  4. no call circles between files and no function over 120 lines outside tests/
#     (scripts/circles.sh; known remaining cases in scripts/circles.allow).
# Exits non-zero if any check fails. Needs clang-format, cppcheck, mpicc (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in clang-format cppcheck; do
    command -v "$tool" >/dev/null || { echo "lint: $tool not found (run scripts/deps.sh)"; exit 1; }
done

rc=0
mapfile -t sources < <(git ls-files '*.c' '*.h')
mapfile -t units < <(git ls-files '*.c')

echo "lint: clang-format ($(clang-format --version | grep -o 'version [0-9.]*')) on ${#sources[@]} files"
if ! clang-format --dry-run -Werror "${sources[@]}"; then
    echo "lint: formatting differs from .clang-format (fix: clang-format -i <file>)"
    rc=1
fi

echo "lint: cppcheck ($(cppcheck --version)) on ${#units[@]} files"
# ctunullpointer is off: cppcheck 2.10's whole-program pass pairs same-named static functions of
# different files (the kernels' kfn callees with unrelated callers elsewhere) and reports
# dereferences of pointers no caller passes as NULL.
if ! cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
    --inline-suppr --std=c11 -j "$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)" --suppress=ctunullpointer \
    -I include -I src -I src/core -I tests/common -I bench -I tools \
    --template='{file}:{line}: {severity}: {id}: {message}' "${units[@]}"; then
    echo "lint: cppcheck found problems"
    rc=1
fi

echo "lint: license lines (scripts/spdx.sh)"
if ! bash scripts/spdx.sh; then
    echo "lint: add them with scripts/spdx.sh --add"
    rc=1
fi

echo "lint: call circles and function lengths (scripts/circles.sh)"
if ! bash scripts/circles.sh; then
    echo "lint: see scripts/circles.sh --report"
    rc=1
fi

[ "$rc" = 0 ] && echo "lint: ok"
exit "$rc"
