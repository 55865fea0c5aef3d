#!/usr/bin/env bash
# bench/clock: how far an archive's timestamps, converted to CLOCK_MONOTONIC by its clock record
# (docs/FORMAT.md "The clock"), lie from the program's own CLOCK_MONOTONIC stamps. r-clock
# (tests/progs/r-clock.c) reads the clock just before and after each of N calls; for each
# setting this prints the distribution of start - t1 and t2 - start in ns and the largest error
# (how far a start lies outside its [t1, t2]; 0: inside), from tests/e2e/clock-check.sh.
# Settings: standalone and under fxtrun, calls back to back and spread over a longer run (a
# pause of GAP_US between calls), then the same beside two CPU hogs.
# Usage: bench/clock.sh [BUILD_DIR]   Env: N (2000), GAP_US (5000: 10 s), HOGS (1; 0: none)
# SPDX-License-Identifier: MIT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt
prog=$build/tests/rprogs/r-clock
n=${N:-2000} gap=${GAP_US:-5000}
for f in "$fxt" "$build/launcher/fxtrun" "$build/preload/libfxtauto.so" "$prog"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "bench/clock: $f missing (build first)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/fxt-bench-clock.XXXXXX)
hogs=()
cleanup() {
	for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

# one WHAT ARGS...: traces r-clock N with ARGS in both ways and prints the check of each.
one() {
	local what=$1
	shift
	rm -f "$work"/*.fxt
	FXT_OUTPUT=$work/a.fxt LD_PRELOAD=$build/preload/libfxtauto.so "$prog" "$n" "$work/a.txt" "$@"
	timeout 600 "$build/launcher/fxtrun" -o "$work/b.fxt" "$prog" "$n" "$work/b.txt" "$@" \
		2>/dev/null
	for way in "standalone a" "fxtrun b"; do
		set -- $way
		echo "== $what, $1"
		FXT=$fxt bash "$root/tests/e2e/clock-check.sh" "$work/$2.fxt" "$work/$2.txt" |
			sed 's/^/  /' || true
	done
}

settings() {
	one "$1: $n calls back to back"
	one "$1: $n calls, $gap us apart" "gap=$gap"
}

settings "idle"
if [ "${HOGS:-1}" = 1 ]; then
	for _ in 1 2; do
		timeout 900 sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	settings "2 CPU hogs"
fi
