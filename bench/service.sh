#!/usr/bin/env bash
# bench/service: the manager service's response times, with a real registered program (g-reg,
# tests/progs/g-reg.c, FXT_REGISTER=1 LD_PRELOAD=libfxtauto.so) and `fxt manager` in a private
# runtime directory:
#   - record -> first event: from launching `fxt record` to the program seeing tracing on
#     (g-reg's `on` polls TRACE_ENABLED() every millisecond: +1 ms of resolution), which includes
#     the client's start, TRACE, START, the buffer's creation and STARTED;
#   - snapshot: `fxt snapshot` of a wrapped 64 MiB circular buffer, wall time and archive size.
# Median of ROUNDS. The idle cost per call is bench/registry.sh's.
# Usage: bench/service.sh [BUILD_DIR]   (default: build)   Env: ROUNDS (7), SIZE (64M).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-7} size=${SIZE:-64M}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
prog=$(need g-reg) lib=$(need libfxtauto.so) fxt=$(need fxt)
bench_on_exit() { for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null || true; done; }
bench_tmp
bench_manager

mkfifo "$tmp/in" "$tmp/out"
FXT_REGISTER=1 LD_PRELOAD=$lib "$prog" <"$tmp/in" >"$tmp/out" &
pid=$!
exec {w}>"$tmp/in" {r}<"$tmp/out"
say() { echo "$*" >&"$w"; read -r -t 120 answer <&"$r"; echo "$answer"; }
for _ in $(seq 200); do "$fxt" list | grep -q "^$pid " && break; sleep 0.05; done

now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for ((i = 0; i < rounds; i++)); do
	t0=$(now_ns)
	"$fxt" record --pid "$pid" --duration 60s -o "$tmp/r.fxt" 2>/dev/null &
	rec=$!
	[ "$(say on)" = on ] || die "tracing never came on"
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
	kill -INT "$rec"
	wait "$rec" || true
	[ "$(say off)" = off ]
done >"$tmp/lat"
printf 'record -> first event: median %.1f ms of %d (min %.1f, max %.1f)\n' \
	"$(median <"$tmp/lat" | awk '{ print $1 / 1000 }')" "$rounds" \
	"$(sort -n "$tmp/lat" | head -1 | awk '{ print $1 / 1000 }')" \
	"$(sort -n "$tmp/lat" | tail -1 | awk '{ print $1 / 1000 }')"

"$fxt" start --mode circular --buffer-size "$size" --pid "$pid" 2>/dev/null
[ "$(say on)" = on ]
say call 5000000 >/dev/null	# 120 MB of events: the buffer wraps
for ((i = 0; i < rounds; i++)); do
	rm -f "$tmp/s.fxt"
	t0=$(now_ns)
	"$fxt" snapshot -o "$tmp/s.fxt" 2>/dev/null
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
done >"$tmp/snap"
bytes=$(stat -c %s "$tmp/s.fxt")
events=$("$fxt" stats "$tmp/s.fxt" | awk '$1 == "event" && NF == 3 { print $2; exit }')
printf 'snapshot of a wrapped %s circular buffer: median %.1f ms of %d, %.1f MB, %s events\n' \
	"$size" "$(median <"$tmp/snap" | awk '{ print $1 / 1000 }')" "$rounds" \
	"$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$events"
"$fxt" stop -o "$tmp/stop.fxt" 2>/dev/null
echo "quit 0" >&"$w"
wait "$pid"
