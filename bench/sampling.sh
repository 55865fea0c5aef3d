#!/bin/bash
# CPU-time overhead of sampled call stacks (FXT_SAMPLE) as a ratio of user+system CPU time
# (process and children, exit flush included) against the untraced run: the configurations
# run in turn, in rotating order, RUNS times each (the machine is shared and noisy), and each
# row is the median. Two workloads: bench/sampling-work (fixed work at the bottom of a 24-deep
# recursion), and `xz -9` on 20 MB (several seconds of CPU, the issue's figure) with the floor
# beside it: bench/sampling-floor.c, the same perf event with an empty handler (the kernel's
# share); fxtauto's own share is the difference. Then `perf record -g` where perf works.
# usage: bench/sampling.sh BUILD_DIR [RUNS=5] [ROUNDS=400]
# SPDX-License-Identifier: MIT
set -eu
build=${1:?usage: bench/sampling.sh BUILD_DIR [RUNS] [ROUNDS]}
runs=${2:-5} rounds=${3:-400}
lib=$build/preload/libfxtauto.so work=$build/bench/sampling-work
floor=$build/bench/libsampling-floor.so
# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
have "fxtauto sampling-work sampling-floor" "$lib" "$work" "$floor"
bench_tmp

# CPU seconds (user + sys, children included) of one run of the command string $1.
cpu1() {
	{ TIMEFORMAT='%U %S'; time eval "$1" > /dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}

# compare LABEL CMD [LABEL CMD]...: each command run $runs times, in turn with the others in
# rotating order; one row per command: median CPU seconds, ratio to the first, overhead.
compare() {
	local n=$(($# / 2)) i k j labels=() cmds=()
	while [ $# -gt 0 ]; do
		labels+=("$1") cmds+=("$2")
		shift 2
	done
	for ((i = 0; i < runs; i++)); do
		for ((k = 0; k < n; k++)); do
			j=$(((k + i) % n))
			cpu1 "${cmds[j]}" >> "$tmp/t.$j"
		done
	done
	for ((j = 0; j < n; j++)); do
		sort -n "$tmp/t.$j" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' \
			> "$tmp/m.$j"
		rm -f "$tmp/t.$j"
	done
	for ((j = 0; j < n; j++)); do
		awk -v l="${labels[j]}" -v b="$(cat "$tmp/m.0")" '{
			printf "%-44s %7.3f s  ratio %.3f  overhead %+5.1f%%\n", l, $1, $1 / b,
				($1 / b - 1) * 100 }' "$tmp/m.$j"
	done
}

out="FXT_OUTPUT=$tmp/a.fxt"
echo "== sampling-work $rounds (median of $runs) =="
compare "untraced" "'$work' $rounds" \
	"fxtauto preload, no sampling" "$out LD_PRELOAD='$lib' '$work' $rounds" \
	"fxtauto FXT_SAMPLE=997" "FXT_SAMPLE=997 $out LD_PRELOAD='$lib' '$work' $rounds" \
	"fxtauto FXT_SAMPLE=10000" "FXT_SAMPLE=10000 $out LD_PRELOAD='$lib' '$work' $rounds"
ls -l "$tmp/a.fxt" | awk '{ printf "(archive at 10000 Hz: %d bytes)\n", $5 }'

# xz-sized: xz -9 (one thread) on 20 MB, half text that compresses, half base64 noise.
if ! command -v xz > /dev/null && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
	apt-get install -y xz-utils > /dev/null 2>&1 || true
fi
if command -v xz > /dev/null; then
	in=$tmp/xz.in
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "line %d %d words %d\n", i, (i * 7919) % 10007, i % 97 }' > "$in"
	head -c 11000000 /dev/urandom | base64 >> "$in"
	xz=$(command -v xz)
	echo "== xz -9 -T1 on $(($(stat -c %s "$in") / 1000000)) MB (median of $runs) =="
	compare "untraced" "'$xz' -9 -T1 -c '$in'" \
		"floor: perf event + empty handler, 997 Hz" "FXT_SAMPLE=997 LD_PRELOAD='$floor' '$xz' -9 -T1 -c '$in'" \
		"fxtauto preload, no sampling" "$out LD_PRELOAD='$lib' '$xz' -9 -T1 -c '$in'" \
		"fxtauto FXT_SAMPLE=997" "FXT_SAMPLE=997 $out LD_PRELOAD='$lib' '$xz' -9 -T1 -c '$in'"
	"$build/launcher/fxt" stats "$tmp/a.fxt" 2>/dev/null |
		awk '$1 == "large" { printf "(%d samples in the 997 Hz archive)\n", $2 }'
else
	echo "xz: not installed (skipped)"
fi

if perf record -o "$tmp/p.data" -e cpu-clock -g -F 997 -- true > /dev/null 2>&1; then
	echo "== perf record, sampling-work $rounds (median of $runs) =="
	compare "untraced" "'$work' $rounds" \
		"perf record -e cpu-clock -g -F 997" "perf record -q -o '$tmp/p.data' -e cpu-clock -g -F 997 -- '$work' $rounds" \
		"perf record -e cpu-clock -g -F 10000" "perf record -q -o '$tmp/p.data' -e cpu-clock -g -F 10000 -- '$work' $rounds"
else
	echo "perf record: not usable here (skipped)"
fi
