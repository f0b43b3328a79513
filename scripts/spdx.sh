#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The license line of every tracked source file: `scripts/spdx.sh` lists the files without one
# (exit 1 if any), `scripts/spdx.sh --add` writes it as the first line (after a #! line) in the
# file's comment syntax. lint.sh runs the check. Sources: C/C++ (.c .h .hpp), Fortran (.f90
# .F90, .inc and .f90.in templates), CMake (CMakeLists.txt .cmake .cmake.in), shell, Python,
# .pc.in templates.
set -euo pipefail
cd "$(dirname "$0")/.."
tag="SPDX-License-Identifier: BSD-3-Clause"
add=0
[ "${1:-}" = --add ] && add=1
missing=0
while IFS= read -r f; do
    [ -f "$f" ] || continue
    head -n 3 "$f" | grep -q "$tag" && continue
    case "$f" in
    *.c | *.h | *.hpp) line="/* $tag */" ;;
    *.f90 | *.F90 | *.f90.in | *.inc) line="! $tag" ;;
    *) line="# $tag" ;;
    esac
    if [ "$add" = 1 ]; then
        if head -n 1 "$f" | grep -q '^#!'; then
            { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$f.spdx"
        else
            { echo "$line"; cat "$f"; } >"$f.spdx"
        fi
        chmod --reference="$f" "$f.spdx"
        mv "$f.spdx" "$f"
    else
        echo "spdx: no license line in $f"
        missing=1
    fi
done < <(git ls-files '*.c' '*.h' '*.hpp' '*.f90' '*.F90' '*.f90.in' '*.inc' '*CMakeLists.txt' \
    '*.cmake' '*.cmake.in' '*.sh' '*.py' '*.pc.in' '.ci/run')
exit "$missing"
