#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Structure checks of the tracked C sources, run by scripts/lint.sh:
#  1. no call circles between files: in each group (src/, bench/, tools/), file A -> file B when
#     A's object file leaves undefined a function that B's object file defines (nm: U against
#     T/W; bench/ is its top folder only, its subfolders being programs of their own). Every
#     strongly connected component of that graph with more than one file is a circle: A calls
#     into B and B, directly or through others, calls back into A. Each file is compiled here
#     (mpicc -c -O0, as the build does with ScaLAPACK found, into a scratch folder), so no build
#     folder is needed and only the compiler's view of calls counts (no grep on names).
#  2. no function outside tests/ longer than 120 lines (from its name line to its closing brace;
#     function bodies open with "{" in column 0, as .clang-format's Linux braces make them).
# Known remaining cases are listed in scripts/circles.allow (see its header); anything else
# fails, and so does an allow-list line that no longer matches anything (remove it).
# Usage: scripts/circles.sh [--report] [--keep DIR]
#   --report  print every circle and long function, allowed or not, and exit 0
#   --keep    compile into DIR and keep it, reusing objects newer than their source and every
#             header on the next run (default: a temporary folder, removed at exit)
set -euo pipefail
cd "$(dirname "$0")/.."

report=0
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
    --report) report=1 ;;
    --keep) keep="$2"; shift ;;
    -h | --help) sed -n '2,/^set /{/^set /!p}' "$0"; exit 0 ;;
    *) echo "circles: unknown option $1"; exit 2 ;;
    esac
    shift
done

command -v mpicc >/dev/null || { echo "circles: mpicc not found (run scripts/deps.sh)"; exit 1; }
command -v nm >/dev/null || { echo "circles: nm not found"; exit 1; }

if [ -n "$keep" ]; then
    tmp="$keep"
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi
rm -rf "$tmp/nm"
mkdir -p "$tmp/include/dmx" "$tmp/obj" "$tmp/nm"
# the one generated header (CMake writes it from cmake/version.h.in): any version will do
sed 's/@PROJECT_VERSION[A-Z_]*@/0/g' cmake/version.h.in >"$tmp/include/dmx/version.h"

incs=(-I"$tmp/include" -Iinclude -Itests/common -Ibench -Itools)
for d in src/*/; do incs+=(-I"${d%/}"); done

# bench/'s subfolders hold programs of their own (ScaLAPACK's, OpenSHMEM's), not part of the dmx
# program that bench/*.c and tools/*.c go into
# (tracked files and new ones not ignored, as they are in the work tree)
files() { git ls-files --cached --others --exclude-standard "$@" | sort -u | while read -r f; do
    [ -f "$f" ] && echo "$f"; done; }
mapfile -t units < <(files ':(glob)src/**/*.c' ':(glob)bench/*.c' ':(glob)tools/*.c')
echo "circles: compiling ${#units[@]} files (src/, bench/, tools/) for their symbols"
# with --keep, an object newer than its source and than every header is reused
mapfile -t headers < <(files '*.h')
touch -r "$(ls -t "${headers[@]}" | head -1)" "$tmp/newest.h"
export tmp keep
printf '%s\n' "${units[@]}" | xargs -P "$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)" -I{} bash -c '
    f="$1"; shift
    o="$tmp/obj/${f//\//__}.o"
    if [ -n "$keep" ] && [ "$o" -nt "$f" ] && [ "$o" -nt "$tmp/newest.h" ]; then
        : # kept from an earlier run, and no source or header changed since
    elif ! mpicc -c -O0 -w -std=gnu11 -DDMX_BUILDING_LIBRARY -DDMX_HAVE_SCALAPACK=1 "$@" "$f" \
        -o "$o" 2>"$o.err"; then
        echo "circles: cannot compile $f:"; head -5 "$o.err"; exit 255
    fi
    nm -P "$o" | awk -v f="$f" "{ print f, \$1, \$2 }" >"$tmp/nm/${f//\//__}.txt"
' _ {} "${incs[@]}"

mapfile -t all_c < <(files '*.c' ':!:tests/*')
python3 - "$report" scripts/circles.allow "$tmp/nm" "${all_c[@]}" <<'EOF'
import sys, re, collections, glob, os

report = sys.argv[1] == "1"
allow_path = sys.argv[2]
nm_dir = sys.argv[3]
c_files = sys.argv[4:]
LIMIT = 120

# ---- 1. the call graph per group, from nm -------------------------------------------------
def group(f):
    return f.split("/")[0]

defined = collections.defaultdict(lambda: collections.defaultdict(set))  # group -> sym -> files
undefined = collections.defaultdict(set)  # file -> syms
files = set()
nm_lines = []
for p in sorted(glob.glob(os.path.join(nm_dir, "*.txt"))):
    nm_lines += open(p).read().splitlines()
for line in nm_lines:
    f, sym, kind = line.split()[:3]
    files.add(f)
    if kind in ("T", "W"):
        defined[group(f)][sym].add(f)
    elif kind == "U":
        undefined[f].add(sym)

edges = collections.defaultdict(lambda: collections.defaultdict(set))  # a -> b -> syms
for a in files:
    for sym in undefined[a]:
        for b in defined[group(a)].get(sym, ()):
            if b != a:
                edges[a][b].add(sym)

def sccs(nodes):
    """Tarjan's strongly connected components, iterative."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out

circles = sorted(sccs(files))

# ---- 2. function lengths -------------------------------------------------------------------
name_re = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
long_funcs = []  # (file, line, name, length)
for f in c_files:
    try:
        lines = open(f, encoding="utf-8", errors="replace").read().split("\n")
    except OSError:
        continue
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "{":
            # the signature: back to the line that names the function (the first "name(" of the
            # lines above, up to a blank line, a comment end, a "}" or a ";")
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not re.match(r"^(}|.*;\s*$|.*\*/\s*$|#)",
                                                                  lines[j - 1]):
                j -= 1
            sig = " ".join(lines[j:i])
            m = name_re.search(sig)
            k = i + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            if m:
                # the name's own line
                start = j
                while start < i and m.group(1) + "(" not in lines[start].replace(" (", "("):
                    start += 1
                length = k - start + 1
                if length > LIMIT:
                    long_funcs.append((f, start + 1, m.group(1), length))
            i = k + 1
            continue
        i += 1

# ---- the allow-list ------------------------------------------------------------------------
allowed_circles, allowed_long = [], {}
try:
    for n, raw in enumerate(open(allow_path), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        if line[0] == "circle" and len(line) >= 3:
            allowed_circles.append(set(line[1:]))
        elif line[0] == "long" and len(line) == 4:
            allowed_long[(line[1], line[2])] = int(line[3])
        else:
            print(f"{allow_path}:{n}: cannot read: {raw.rstrip()}")
            sys.exit(1)
except FileNotFoundError:
    pass

bad = 0
print(f"circles: call graph of {len(files)} files, {sum(len(e) for e in edges.values())} edges")
used_circle = [False] * len(allowed_circles)
for comp in circles:
    ok = False
    for n, a in enumerate(allowed_circles):
        if set(comp) <= a:
            ok = used_circle[n] = True
    if ok and not report:
        continue
    tag = "allowed" if ok else "CIRCLE"
    bad += not ok
    print(f"{tag}: {' '.join(comp)}")
    for a in comp:
        for b in sorted(edges[a]):
            if b in comp:
                syms = sorted(edges[a][b])
                more = f" (+{len(syms) - 4})" if len(syms) > 4 else ""
                print(f"    {a} -> {b}: {', '.join(syms[:4])}{more}")
for n, a in enumerate(allowed_circles):
    if not used_circle[n]:
        print(f"stale: 'circle {' '.join(sorted(a))}' in {allow_path} matches no circle: remove it")
        bad += 1

print(f"circles: functions over {LIMIT} lines outside tests/")
seen_long = set()
for f, line, name, length in sorted(long_funcs):
    cap = allowed_long.get((f, name))
    seen_long.add((f, name))
    ok = cap is not None and length <= cap
    if ok and not report:
        continue
    bad += not ok
    tag = "allowed" if ok else "LONG"
    note = f" (allowed up to {cap})" if cap is not None else ""
    print(f"{tag}: {f}:{line}: {name} {length} lines{note}")
for (f, name), cap in sorted(allowed_long.items()):
    if (f, name) not in seen_long:
        print(f"stale: 'long {f} {name} {cap}' in {allow_path}: no longer over {LIMIT}: remove it")
        bad += 1

if report:
    sys.exit(0)
if bad:
    print(f"circles: {bad} problem(s); open a circle by moving the shared helpers into a leaf "
          f"file, split a long function by its steps")
    sys.exit(1)
print("circles: ok")
EOF
