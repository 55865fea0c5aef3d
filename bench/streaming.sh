#!/usr/bin/env bash
# Streaming under load, side by side with uftrace: tests/progs/r-spin (THREADS threads calling an
# empty instrumented function as fast as they can for SECONDS) untraced, under
# `fxtrun --buffer-size 16M` (streaming, the default: the program waits for saves rather than
# lose calls) and under `uftrace record`. Prints, per run, the calls the program made per second,
# and for fxtrun the calls in the archive (equal when nothing was lost), drops, MB/s saved and the
# peak RSS of the program and of fxtrun (bounded by the buffer however long the run); then the
# ratio of the calls/s the program achieves traced by fxtrun to under uftrace (goal >= 2).
# Usage: bench/streaming.sh [BUILD_DIR [SECONDS [THREADS]]]   (default build, 10 s, 4 threads)
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
work=$(mktemp -d "${TMPDIR:-/tmp}/fxt-streaming.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$spin" "$secs" "$threads" >"$work/plain"
plain=$(awk '/^calls / { print $2 }' "$work/plain")

"$fxtrun" --buffer-size 16M -o "$work/spin.fxt" "$spin" "$secs" "$threads" \
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
rm -f "$work/spin.fxt"

uf=0
if command -v uftrace >/dev/null; then
	uftrace record -d "$work/u.data" "$spin" "$secs" "$threads" >"$work/uout" 2>/dev/null
	uf=$(awk '/^calls / { print $2 }' "$work/uout")
	rm -rf "$work/u.data"
fi

awk -v s="$secs" -v t="$threads" -v p="$plain" -v c="$counted" -v r="$recorded" \
	-v d="${dropped:-0}" -v mb="${saved_mb:-0}" -v sz="$size" -v pk="$prog_kb" \
	-v mk="$manager_kb" -v uf="$uf" 'BEGIN {
	printf "streaming, 16 MiB buffer, %d threads, %g s\n", t, s
	printf "  untraced                      %.1f M calls/s\n", p / s / 1e6
	printf "  fxtrun: calls made            %d (%.1f M calls/s)\n", c, c / s / 1e6
	printf "  fxtrun: calls in the archive  %d (%s)\n", r,
		r == c ? "equal: nothing lost" : "differ: calls lost"
	printf "  fxtrun: records dropped       %d\n", d
	printf "  fxtrun: saved while running   %.1f MB (%.1f MB/s); archive %.1f MB\n",
		mb, mb / s, sz / 1e6
	printf "  fxtrun: peak RSS              program %.1f MB, fxtrun %.1f MB\n",
		pk / 1024, mk / 1024
	if (uf > 0) {
		printf "  uftrace record: calls made    %d (%.1f M calls/s)\n", uf, uf / s / 1e6
		printf "  fxtrun / uftrace calls/s      %.2f (goal >= 2)\n", c / uf
	} else {
		printf "  uftrace: not installed\n"
	}
}'
