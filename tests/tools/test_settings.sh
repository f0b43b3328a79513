#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_settings.sh DMX SOURCE_DIR
# `dmx settings` against the table's source and the environment it runs in: with no DMX_*
# variable set it shows the user tier only, every current value "-"; a value set in the
# environment shows in its row (DMX_TIMEOUT=17; a test-tier setting that is set shows without
# --all; a malformed integer says the default is used; a family member under its family's row);
# --all lists exactly the names of src/core/settings_table.c; a DMX_* variable that is no setting
# is named on stderr; --markdown has every name. README.md's settings paragraph names exactly the
# user tier. And no file under src/ reads the environment except src/core/settings.c.
dmx=$1
src=$2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
# clean CMD...: CMD with every DMX_* variable of this environment removed
clean() {
    # shellcheck disable=SC2046 # one -u NAME pair per variable, split on purpose
    env $(env | sed -n 's/^\(DMX_[A-Za-z0-9_]*\)=.*/-u \1/p') "$@"
}
# has TEXT ERE WHAT: TEXT has a line matching ERE
has() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok; else bad "$3: no line /$2/"; fi
}
hasnt() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then bad "$3: a line /$2/"; else ok; fi
}

table_names=$(sed -n 's/^ *ROW(DMXI_SET_[A-Z_]*, *"\(DMX_[^"]*\)".*/\1/p' "$src/src/core/settings_table.c" | sort)
if [ -n "$table_names" ]; then ok; else bad "no ROW lines in settings_table.c"; fi

if out=$(clean "$dmx" settings 2>&1); then ok; else bad "dmx settings: exit $?"; fi
has "$out" "^NAME +TIER +SCOPE +DEFAULT +CURRENT +MEANING" "dmx settings: header"
has "$out" "^DMX_TIMEOUT +user +local +600 +- +seconds without progress" "dmx settings: DMX_TIMEOUT row"
hasnt "$out" "^DMX_[A-Z_<>]+ +(tuning|test) " "dmx settings: a tuning or test row without --all"
hasnt "$out" "^DMX_[A-Z_<>]+ +user +[a-z-]+ +[^ ]+ +[^ -]" "dmx settings: a current value although none is set"
has "$out" "tuning and test settings not set and not shown: dmx settings --all" "dmx settings: footer"
users=$(printf '%s\n' "$out" | grep -Ec "^DMX_[A-Z_]+ +user ")
if [ "$users" -ge 1 ] && [ "$users" -le 8 ]; then ok; else bad "$users user-tier settings, want 1..8"; fi

out=$(clean env DMX_TIMEOUT=17 DMX_ONCE_KEEP=3 DMX_SHM_CHUNK_BYTES=12x DMX_COLL_BCAST=ring \
    DMX_COLL_CHECK=agree DMX_TIMOUT=5 "$dmx" settings 2>/dev/null)
has "$out" "^DMX_TIMEOUT +user +local +600 +17 " "DMX_TIMEOUT=17"
has "$out" "^DMX_ONCE_KEEP +test +local +4 +3 " "DMX_ONCE_KEEP=3 shows without --all"
has "$out" "^DMX_SHM_CHUNK_BYTES +test .* 12x \\(bad: 131072 used\\) " "a malformed integer"
has "$out" "^DMX_COLL_<NAME> +tuning .* DMX_COLL_BCAST=ring " "a family member"
hasnt "$out" "DMX_COLL_CHECK=agree" "DMX_COLL_CHECK is a row, not a member of DMX_COLL_<NAME>"
has "$out" "^DMX_COLL_CHECK +user +must-match +local +agree " "DMX_COLL_CHECK=agree"
err=$(clean env DMX_TIMOUT=5 "$dmx" settings 2>&1 >/dev/null)
has "$err" "^dmx: settings: DMX_TIMOUT is set but is no dmx setting" "a misspelt name is named"
err=$(clean env DMX_TIMEOUT=5 DMX_COLL_SCAN=ring "$dmx" settings 2>&1 >/dev/null)
if [ -z "$err" ]; then ok; else bad "settings and family members are named as unknown: $err"; fi

all=$(clean "$dmx" settings --all | sed -n 's/^\(DMX_[^ ]*\) .*/\1/p' | sort)
if [ "$all" = "$table_names" ]; then ok; else bad "--all does not list exactly the table's names"; fi
md=$(clean "$dmx" settings --markdown)
for n in $table_names; do
    if ! printf '%s\n' "$md" | grep -Fq "| \`$n\` |"; then bad "--markdown has no row for $n"; fi
done
ok
has "$md" "^## User settings$" "--markdown: user section"
has "$md" "^## Test settings$" "--markdown: test section"

# README.md: the paragraph that starts "Environment settings" names exactly the user tier
user=$(clean "$dmx" settings | sed -n 's/^\(DMX_[^ ]*\) \+user .*/\1/p' | sort)
para=$(awk '/^Environment settings/ { on = 1 } on && /^$/ { exit } on' "$src/README.md")
named=$(printf '%s\n' "$para" | grep -Eo 'DMX_[A-Z_<>]+' | sort -u)
if [ -n "$para" ] && [ "$named" = "$user" ]; then
    ok
else
    bad "README.md's settings paragraph names [$named], the user tier is [$user]"
fi

# only settings.c reads the environment
readers=$(grep -rnE '\b(getenv|secure_getenv|environ)\b' "$src/src" --include='*.c' --include='*.h' |
    grep -v "^$src/src/core/settings\.[ch]:")
if [ -z "$readers" ]; then ok; else bad "the environment is read outside src/core/settings.c: $readers"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
