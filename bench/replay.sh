#!/usr/bin/env bash
# bench/replay: `fxt replay` on a big archive (bench/calls-work.c traced by libfxtauto.so, SIZE_MB
# of it: 24 bytes per call, one thread's loop enclosing all its calls, whose record comes last):
# how soon its first line comes (the goal: within 100 ms of starting, on 1 GiB), how soon with a
# window given as +TIME (the trace start found first: one more read), its throughput beside
# `fxt stats` (one plain read of the same archive), and its peak RSS with the default --hold
# beside a --hold that keeps every call waiting for its caller (what printing strictly in order
# would cost). Best of 3 runs for times; outputs to /dev/null.
# Usage: bench/replay.sh [BUILD_DIR]   Env: SIZE_MB (1024), WORK (where its temp dir goes)
# SPDX-License-Identifier: MIT
set -euo pipefail
# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt fxtauto=$build/preload/libfxtauto.so size_mb=${SIZE_MB:-1024}
have "fxt and fxtauto" "$fxt" "$fxtauto"
bench_tmp "${WORK:-}"
work=$tmp
gcc -O2 -g -finstrument-functions -pthread "$root/bench/calls-work.c" -o "$work/calls-work"
calls=$((size_mb * 1024 * 1024 / 24))
FXT_SCHED=0 FXT_OUTPUT="$work/big.fxt" LD_PRELOAD="$fxtauto" "$work/calls-work" "$calls" 2 \
	>/dev/null
bytes=$(stat -c %s "$work/big.fxt")
events=$("$fxt" stats "$work/big.fxt" | awk '$1 == "event" && $2 ~ /^[0-9]+$/ { print $2 }')
echo "== $((bytes / 1048576)) MiB archive, $events events: calls-work $calls calls, 2 threads =="

# first ARGS...: best of 3, ms from starting `fxt replay ARGS` to its first line of output
first() {
	python3 - "$fxt" "$@" <<'PY'
import subprocess, sys, time
best = None
for _ in range(3):
    t = time.perf_counter()
    p = subprocess.Popen([sys.argv[1], "replay"] + sys.argv[2:], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    while not p.stdout.readline().strip():
        pass
    t = (time.perf_counter() - t) * 1000
    p.kill()
    p.wait()
    best = t if best is None or t < best else best
print("%.1f" % best)
PY
}

# best CMD...: best of 3, seconds
best() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
best = None
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.perf_counter() - t
    best = t if best is None or t < best else best
print("%.3f" % best)
PY
}

start=$("$fxt" stats "$work/big.fxt" | sed -n 's/^time span: .* (\([0-9.]*\) s to .*/\1/p')
printf '%-44s %10s ms\n' "first line: fxt replay" "$(first "$work/big.fxt")"
printf '%-44s %10s ms\n' "first line: fxt replay --since STAMP" \
	"$(first --since "$start" "$work/big.fxt")"
printf '%-44s %10s ms\n' "first line: fxt replay --since +0s (2 reads)" \
	"$(first --since +0s "$work/big.fxt")"
t_stats=$(best "$fxt" stats "$work/big.fxt")
t_replay=$(best "$fxt" replay "$work/big.fxt")
python3 -c 'import sys
b, e, s, r = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
for name, t in (("fxt stats (one read)", s), ("fxt replay (every line)", r)):
    print("%-44s %10.3f s %8.1f MB/s %8.1f ns/event" % (name, t, b / 1e6 / t, t * 1e9 / e))
print("%-44s %10.2f" % ("replay / stats", r / s))' "$bytes" "$events" "$t_stats" "$t_replay"
for hold in "" "--hold 4000000000"; do
	/usr/bin/time -f "%M" -o "$work/rss" "$fxt" replay $hold "$work/big.fxt" >/dev/null 2>&1
	printf '%-44s %10d MB (archive %d MB, mapped)\n' "peak RSS: fxt replay ${hold:---hold 262144}" \
		$(($(cat "$work/rss") / 1024)) $((bytes / 1048576))
done
