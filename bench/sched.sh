#!/bin/bash
# Cost of scheduling records (FXT_SCHED / fxtrun --sched) on a program that context-switches
# ~100k+ times a second (bench/sched-pingpong.c): wall and CPU time (user+sys, median of RUNS)
# untraced, preloaded without and with FXT_SCHED=1, and `perf record -e cs` (context switch
# sampling, every switch: -c 1) where perf runs; the cost per switch is the time added divided
# by the switches recorded.
# usage: bench/sched.sh BUILD_DIR [RUNS=5] [ROUNDS=200000]
# SPDX-License-Identifier: MIT
set -eu
build=${1:?usage: bench/sched.sh BUILD_DIR [RUNS] [ROUNDS]}
runs=${2:-5} rounds=${3:-200000}
lib=$build/preload/libfxtauto.so work=$build/bench/sched-pingpong fxt=$build/launcher/fxt
# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
have "fxtauto sched-pingpong fxt" "$lib" "$work" "$fxt"
bench_tmp

# Median "wall cpu" seconds of running "$@" $runs times (cpu: user + sys, children included).
measure() {
	local i
	for ((i = 0; i < runs; i++)); do
		{ TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | awk '{ print $1, $2 + $3 }'
	done | sort -n | awk '{ w[NR] = $1; c[NR] = $2 } END { m = int((NR + 1) / 2); print w[m], c[m] }'
}

read -r bw bc <<<"$(measure "$work" "$rounds")"
printf '%-34s %8s %8s %8s %8s\n' "" "wall s" "ratio" "cpu s" "ratio"
row() {
	local name=$1 w c
	shift
	read -r w c <<<"$(measure "$@")"
	printf '%-34s %8s %8.3f %8s %8.3f\n' "$name" "$w" "$(echo "$w / $bw" | bc -l)" "$c" \
		"$(echo "$c / $bc" | bc -l)"
	echo "$w $c" > "$tmp/last"
}
printf '%-34s %8s %8.3f %8s %8.3f\n' "untraced" "$bw" 1 "$bc" 1
row "LD_PRELOAD (no --sched)" env FXT_OUTPUT="$tmp/p.fxt" LD_PRELOAD="$lib" "$work" "$rounds"
read -r pw pc < "$tmp/last"
row "LD_PRELOAD FXT_SCHED=1" env FXT_SCHED=1 FXT_OUTPUT="$tmp/s.fxt" LD_PRELOAD="$lib" "$work" "$rounds"
read -r sw sc < "$tmp/last"
n=$("$fxt" dump "$tmp/s.fxt" | grep -c ' context_switch ' || true)
drops=$("$fxt" check "$tmp/s.fxt" 2>&1 | grep -i 'drop' | head -1 || true)
if perf stat -e context-switches true > /dev/null 2>&1; then
	row "perf record -e cs -c 1" perf record -q -e cs -c 1 -o "$tmp/perf.data" -- "$work" "$rounds"
	read -r fw fc < "$tmp/last"
	pn=$(perf report -i "$tmp/perf.data" --stdio -q --sort pid 2>/dev/null | wc -l || true)
else
	echo "perf record: not available here"
fi
echo
echo "switch records (FXT_SCHED=1 run, one per switch out and one per switch in): $n (${drops:-no drops})"
awk -v n="$n" -v sw="$sw" -v sc="$sc" -v pw="$pw" -v pc="$pc" -v bw="$bw" 'BEGIN {
	if (n > 0) {
		printf "FXT_SCHED cost per context switch (out + in): %.2f us wall, %.2f us cpu (vs. preloaded without)\n",
			(sw - pw) * 2e6 / n, (sc - pc) * 2e6 / n
		printf "context switches per second (untraced run): %.0f\n", n / 2 / bw
	}
}'
if [ -n "${fw:-}" ]; then
	awk -v n="$n" -v fw="$fw" -v fc="$fc" -v bw="$bw" -v bc="$bc" 'BEGIN {
		if (n > 0) printf "perf record -e cs -c 1 cost per context switch: %.2f us wall, %.2f us cpu (vs. untraced)\n",
			(fw - bw) * 2e6 / n, (fc - bc) * 2e6 / n }'
fi
