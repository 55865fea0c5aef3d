#!/usr/bin/env bash
# Streaming mode under load: tests/progs/r-spin (4 threads calling an empty instrumented
# function as fast as they can) under `fxtrun --mode streaming --buffer-size 16M`. Prints the
# calls the program counted vs the calls in the archive (equal when nothing was dropped), drops,
# records/s, MB/s saved by the manager while running, and the peak RSS of the program and of
# fxtrun (memory stays bounded by the buffer however long the run).
# Usage: bench/streaming.sh [BUILD_DIR [SECONDS [THREADS]]]   (default build, 10 s, 4 threads;
#        SECONDS=3 for a quick run)
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
secs=${2:-10}
threads=${3:-4}
fxt=$build/launcher/fxt
fxtrun=$build/launcher/fxtrun
spin=$build/tests/rprogs/r-spin
for f in "$fxt" "$fxtrun" "$spin"; do
	if [ ! -x "$f" ]; then
		echo "streaming.sh: $f missing: build the fxt and rprog-r-spin targets" >&2
		exit 2
	fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$fxtrun" --mode streaming --buffer-size 16M -o "$work/spin.fxt" "$spin" "$secs" "$threads" \
	>"$work/out" 2>"$work/err" &
pid=$!
manager_kb=0
while kill -0 "$pid" 2>/dev/null; do	# fxtrun's own peak RSS, sampled until it exits
	kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
	[ -n "$kb" ] && manager_kb=$kb
	sleep 0.2
done
wait "$pid"

counted=$(awk '/^calls / { print $2 }' "$work/out")
prog_kb=$(awk '/^peak_rss_kb / { print $2 }' "$work/out")
# spin() calls read back by the reader (`fxt report`: calls per function)
recorded=$("$fxt" report "$work/spin.fxt" | awk '$NF == "spin" { n += $1 } END { print n + 0 }')
dropped=$(grep -o '[0-9]* records DROPPED' "$work/err" | cut -d' ' -f1 || true)
saved_mb=$(grep -o '[0-9.]* MB saved while running' "$work/err" | cut -d' ' -f1 || true)
size=$(stat -c %s "$work/spin.fxt")
awk -v s="$secs" -v t="$threads" -v c="$counted" -v r="$recorded" -v d="${dropped:-0}" \
	-v mb="${saved_mb:-0}" -v sz="$size" -v pk="$prog_kb" -v mk="$manager_kb" 'BEGIN {
	printf "streaming, 16 MiB buffer, %d threads, %g s\n", t, s
	printf "  calls counted by the program  %d\n", c
	printf "  calls in the archive          %d (%s)\n", r,
		r == c ? "equal: nothing lost" : "differ: the saving did not keep up"
	printf "  records dropped               %d\n", d
	printf "  records/s recorded            %.1f M\n", r / s / 1e6
	printf "  saved while running           %.1f MB (%.1f MB/s); archive %.1f MB\n",
		mb, mb / s, sz / 1e6
	printf "  peak RSS: program %.1f MB, fxtrun %.1f MB\n", pk / 1024, mk / 1024
}'
