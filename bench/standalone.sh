#!/usr/bin/env bash
# bench/standalone: what a long LD_PRELOAD run costs as a whole, side by side with uftrace.
# Runs bench/calls-work (CALLS small nested calls, one thread) untraced, under
# LD_PRELOAD=libfxtauto.so alone (the archive file grown as it runs: no size wall) and under
# `uftrace record`, interleaved, best of ROUNDS; measures the CPU time (user + system) of every
# process of each run (/usr/bin/time: uftrace's recorder included, the kernel's page cache work
# in system time included) and prints the overhead per call over untraced, the ratio fxtauto /
# uftrace (goal <= 0.3), that every call is in fxtauto's archive, its size, and its peak RSS.
# Usage: bench/standalone.sh [BUILD_DIR]   (default: build)   Env: CALLS (14000000), ROUNDS (3).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
calls=${CALLS:-14000000} rounds=${ROUNDS:-3}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
work=$(need calls-work) fxt=$(need libfxtauto.so) counter=$(need fxt-calls)
have_tools uftrace
bench_tmp

# run CONFIG: one run; prints "CPU_SECONDS MAX_RSS_KB" (every process of the run).
run() {
	rm -rf "$tmp/t.fxt" "$tmp/u.data"
	case $1 in
	untraced) /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$work" "$calls" 1 ;;
	fxtauto) FXT_OUTPUT=$tmp/t.fxt /usr/bin/time -f '%U %S %M' -o "$tmp/time" \
		env LD_PRELOAD="$fxt" "$work" "$calls" 1 ;;
	uftrace) /usr/bin/time -f '%U %S %M' -o "$tmp/time" \
		uftrace record -d "$tmp/u.data" "$work" "$calls" 1 ;;
	esac >"$tmp/out"
	awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$tmp/time"
}

declare -A best rss
for ((r = 0; r < rounds; r++)); do
	for cfg in untraced fxtauto uftrace; do
		read -r cpu kb < <(run "$cfg")
		if [ -z "${best[$cfg]:-}" ] || awk -v a="$cpu" -v b="${best[$cfg]}" 'BEGIN { exit !(a < b) }'; then
			best[$cfg]=$cpu
		fi
		rss[$cfg]=$kb
		if [ "$cfg" = fxtauto ]; then
			total=$(awk '{ for (i = 1; i < NF; i++) if ($i == "calls") print $(i + 1) }' "$tmp/out")
			recorded=$("$counter" -n "$tmp/t.fxt")
			size=$(stat -c %s "$tmp/t.fxt")
		fi
	done
done
awk -v n="$total" -v u="${best[untraced]}" -v f="${best[fxtauto]}" -v t="${best[uftrace]}" \
	-v rec="$recorded" -v sz="$size" -v rf="${rss[fxtauto]}" -v ru="${rss[untraced]}" 'BEGIN {
	of = (f - u) / n * 1e9; ot = (t - u) / n * 1e9
	printf "LD_PRELOAD alone, %d calls, whole-process CPU (user+sys), best of runs\n", n
	printf "  untraced        %.3f s\n", u
	printf "  fxtauto         %.3f s  (+%.1f ns/call)\n", f, of
	printf "  uftrace record  %.3f s  (+%.1f ns/call)\n", t, ot
	printf "  fxtauto/uftrace overhead %.2f (goal <= 0.3)\n", of / ot
	printf "  fxtauto archive: %d of %d calls, %.1f MB (%.1f bytes/call), peak RSS %.1f MB (untraced %.1f MB)\n",
		rec, n, sz / 1e6, sz / n, rf / 1024, ru / 1024
}'
