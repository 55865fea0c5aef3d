#!/usr/bin/env bash
# bench/service-server: a busy multi-threaded server's throughput while the manager service
# traces it, per mode (issue 22 item 7: streaming should keep >= 0.85x of circular). The server
# is srv-count (tests/progs/srv-count.c: unix-socket command server, one thread per
# connection, command() instrumented), registered (FXT_REGISTER=1 LD_PRELOAD=libfxtauto.so) with
# `fxt manager` in a private runtime directory; srv-count's own driver (untraced) sends
# THREADS x N commands, each waiting for its answer, in a window that is: not traced, circular,
# oneshot, streaming (fxt start --pid / fxt stop; the stop's time is not in the window). Prints
# commands/s per mode (median of ROUNDS) and streaming / circular.
# Usage: bench/service-server.sh [BUILD_DIR]   (default: build)
# Env: ROUNDS (3), THREADS (4), N (50000 per thread), SIZE (buffer, 64M).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-3} threads=${THREADS:-4} n=${N:-50000} size=${SIZE:-64M}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
srv=$(need srv-count) lib=$(need libfxtauto.so) fxt=$(need fxt)
pid=
bench_on_exit() { [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true; }
bench_tmp
bench_manager
FXT_REGISTER=1 LD_PRELOAD=$lib "$srv" serve "$tmp/srv.sock" &
pid=$!
disown "$pid"
for _ in $(seq 200); do
	[ -S "$tmp/srv.sock" ] && "$fxt" list | grep -qE "^$pid .* idle" && break
	sleep 0.05
done

# rate MODE: commands/s of one window (MODE none: not traced)
rate() {
	local mode=$1 out
	if [ "$mode" != none ]; then
		"$fxt" start --mode "$mode" --buffer-size "$size" --pid "$pid" -o "$tmp/t.fxt" \
			2>/dev/null
	fi
	out=$("$srv" drive "$tmp/srv.sock" "$threads" "$n")
	if [ "$mode" != none ]; then
		"$fxt" stop >/dev/null 2>&1
		rm -f "$tmp/t.fxt"
	fi
	awk '{ print $(NF - 1) }' <<<"$out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A r
for mode in none circular oneshot streaming; do
	r[$mode]=$(for _ in $(seq "$rounds"); do rate "$mode"; done | median)
	printf "%-10s %10s commands/s  (%d threads x %d commands, buffer %s, median of %d)\n" \
		"$mode" "${r[$mode]}" "$threads" "$n" "$size" "$rounds"
done
awk -v s="${r[streaming]}" -v c="${r[circular]}" \
	'BEGIN { printf "streaming / circular: %.2f\n", s / c }'
