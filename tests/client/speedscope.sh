#!/usr/bin/env bash
# The JSON of an example trace loads in a real Trace Event Format consumer: speedscope's own
# importer (npm package speedscope@1.25.0, installed into CACHE with npm install --prefix, run
# headless in node by speedscope-import.mjs) without an error, with the traced functions and
# the thread names; the importer's warnings (floating-point ties) are printed, not failed on.
# The folded stacks of `fxt flame --folded` load as speedscope's "collapsed stack" format: one
# profile, every distinct frame name a frame, its total weight the sum of the values.
# Exit 77 (ctest SKIP) with a message when node or npm or the registry is unavailable.
# Usage: speedscope.sh CACHE PROGRAM   Env: FXT, FXTAUTO.
# SPDX-License-Identifier: MIT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
prog=$2
pkg="$cache/node_modules/speedscope"
skip() {
	echo "SKIPPED: $*" >&2
	exit 77
}
command -v node >/dev/null || skip "node is not installed"
if [ ! -f "$pkg/package.json" ]; then
	command -v npm >/dev/null || skip "npm is not installed"
	mkdir -p "$cache"
	timeout 120 npm install --prefix "$cache" --no-audit --no-fund speedscope@1.25.0 \
		>"$cache/npm.log" 2>&1 || skip "npm install speedscope@1.25.0 failed (registry unreachable?): $(grep -m1 -i error "$cache/npm.log")"
fi
name=$(basename "$prog")
FXT_OUTPUT="$cache/$name.fxt" LD_PRELOAD="$FXTAUTO" "$prog" >/dev/null
"$FXT" json -o "$cache/$name.json" "$cache/$name.fxt"
out=$(node "$here/speedscope-import.mjs" "$pkg" "$cache/$name.json")
echo "$out"
grep -qE '^profile .* frames=[1-9][0-9]* weight=[1-9]' <<<"$out"
# thread names come from the M metadata events (c-demo names its threads worker-N)
[ "$name" != c-demo ] || grep -q '^profile c-demo (pid [0-9]*), worker-0 (tid' <<<"$out"
echo "speedscope imported $(echo "$out" | grep -c '^profile') thread profiles of $name"
"$FXT" flame --folded -o "$cache/$name.folded" "$cache/$name.fxt"
out=$(node "$here/speedscope-import.mjs" "$pkg" "$cache/$name.folded")
echo "$out"
names=$(sed 's/ [0-9]*$//' "$cache/$name.folded" | tr ';' '\n' | sort -u | wc -l)
sum=$(awk '{ s += $NF } END { printf "%d", s }' "$cache/$name.folded")
[ "$(echo "$out" | grep -c '^profile')" -eq 1 ]
grep -qx "profile $name.folded frames=$names weight=$sum" <<<"$out"
echo "speedscope imported the folded stacks of $name: $names frames, weight $sum ns"
