#!/bin/bash
# CPU-time overhead of sampled call stacks (FXT_SAMPLE) on a fixed-work program, as a ratio of
# user+system CPU time (process and children, exit flush included) against the untraced run,
# median of RUNS runs; side by side with `perf record -g` at the same rates where perf works.
# usage: bench/sampling.sh BUILD_DIR [RUNS=5] [ROUNDS=400]
# SPDX-License-Identifier: MIT
set -eu
build=${1:?usage: bench/sampling.sh BUILD_DIR [RUNS] [ROUNDS]}
runs=${2:-5} rounds=${3:-400}
lib=$build/preload/libfxtauto.so work=$build/bench/sampling-work
for f in "$lib" "$work"; do
	[ -e "$f" ] || { echo "sampling.sh: $f missing (build targets fxtauto sampling-work)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Median CPU seconds (user + sys, children included) of running "$@" $runs times.
cpu() {
	local i t
	for ((i = 0; i < runs; i++)); do
		t=$( { TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }')
		echo "$t"
	done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

base=$(cpu "$work" "$rounds")
printf '%-36s %8s s  ratio 1.000\n' "untraced" "$base"
row() {
	local name=$1 t
	shift
	t=$(cpu "$@")
	printf '%-36s %8s s  ratio %.3f\n' "$name" "$t" "$(echo "$t $base" | awk '{ print $1 / $2 }')"
}
row "fxtauto preload, no sampling" env FXT_OUTPUT="$tmp/a.fxt" LD_PRELOAD="$lib" "$work" "$rounds"
for hz in 997 10000; do
	row "fxtauto FXT_SAMPLE=$hz" env FXT_SAMPLE=$hz FXT_OUTPUT="$tmp/a.fxt" LD_PRELOAD="$lib" \
		"$work" "$rounds"
done
ls -l "$tmp/a.fxt" | awk '{ printf "(archive at 10000 Hz: %d bytes)\n", $5 }'
if perf record -o "$tmp/p.data" -e cpu-clock -g -F 997 -- true > /dev/null 2>&1; then
	for hz in 997 10000; do
		row "perf record -e cpu-clock -g -F $hz" perf record -q -o "$tmp/p.data" \
			-e cpu-clock -g -F "$hz" -- "$work" "$rounds"
	done
else
	echo "perf record: not usable here (skipped)"
fi
