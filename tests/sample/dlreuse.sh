#!/bin/sh
# Samples in libraries dlclose'd before the flush (preload/sampling/sample-records.c): s-dlreuse, built without
# instrumentation, spins in liba, dlclose's it, spins in libb loaded at the same address, then
# in liba again, sampled at 997 Hz; every sample in the libraries is named from the library
# mapped when it was taken. In time order the sampled library slices are a_*, then b_*, then
# a_* (no other order, nothing unnamed), each phase with samples.
# usage: dlreuse.sh LIB FXT OUT PROGRAM LIBA LIBB ROUNDS
# SPDX-License-Identifier: MIT
set -eu
lib=$1 fxt=$2 out=$3
shift 3
trap 'rm -f "$out" "$out.err" "$out.dump"' EXIT
rm -f "$out"
FXT_SAMPLE=997 FXT_OUTPUT=$out LD_PRELOAD=$lib "$@" > /dev/null 2> "$out.err"
grep -q 'same address' "$out.err" || { echo "skipped: libb was not mapped where liba was"; exit 0; }
"$fxt" check -q "$out"
"$fxt" dump "$out" > "$out.dump"
# Sample slices in the libraries: by their functions, their PLT stubs (libdlreuse-a.so+0x...),
# or unnamed (0x...): "ts library name count", library a, b or ? (unnamed).
phases=$(awk '/ complete / && /cat="sample"/ {
		ts = $3; sub(/^ts=/, "", ts)
		name = $0; sub(/.* name="/, "", name); sub(/".*/, "", name)
		n = $0; sub(/.*"samples":uint32=/, "", n); sub(/[^0-9].*/, "", n)
		l = name ~ /^a_(entry|helper)$/ || name ~ /dlreuse-a\.so\+0x/ ? "a" : \
		    name ~ /^b_(entry|helper)$/ || name ~ /dlreuse-b\.so\+0x/ ? "b" : \
		    name ~ /^0x/ || name ~ /dlreuse/ ? "?" : ""
		if (l != "")
			print ts, l, name, n
	}' "$out.dump" | sort -n -k1,1 -s)
bad=$(printf '%s\n' "$phases" | awk '$2 == "?"' | head -3)
[ -z "$bad" ] || { echo "FAIL: library samples left unnamed:"; echo "$bad"; exit 1; }
order=$(printf '%s\n' "$phases" | awk '{ if ($2 != last) printf "%s", $2; last = $2 }')
echo "library phases in time order: $order"
[ "$order" = aba ] || { echo "FAIL: want aba (liba, libb, liba)"; exit 1; }
for l in a b; do
	n=$(printf '%s\n' "$phases" |
		awk -v l=$l '$2 == l && $3 ~ /_entry$/ { s += $4 } END { print s + 0 }')
	echo "samples under ${l}_entry: $n"
	[ "$n" -gt 0 ] || { echo "FAIL: no samples in lib$l"; exit 1; }
done
echo "ok: every library sample named after the library mapped when it was taken"
