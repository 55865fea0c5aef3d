#!/usr/bin/env bash
# bench/client: speed of the trace client. `fxt report` and `fxt json` throughput (MB/s of
# archive, ns per recorded call) on a 1 GiB archive, then side by side with `uftrace report` and
# `uftrace dump --chrome` on the same workload (bench/calls-work.c, N calls) recorded by each
# tracer. Goals: fxt report >= 500 MB/s; fxt json >= 3x faster per call than uftrace dump
# --chrome. Best of 3 runs each (shared machine); outputs go to /dev/null. Also the peak RSS of
# fxt report and fxt report --tree on the big archive (/usr/bin/time %M: the mapped archive's
# resident pages count in it).
# Usage: bench/client.sh [BUILD_DIR]   Env: SIZE_MB (1024), CALLS (3000000), WORK (where its temp dir goes)
# SPDX-License-Identifier: MIT
set -euo pipefail
# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt fxtauto=$build/preload/libfxtauto.so
size_mb=${SIZE_MB:-1024} calls=${CALLS:-3000000}
have "fxt and fxtauto" "$fxt" "$fxtauto"
have_tools uftrace
bench_tmp "${WORK:-}"
work=$tmp

gcc -O2 -g -finstrument-functions -pthread "$root/bench/calls-work.c" -o "$work/calls-work"

# best SECONDS of 3 runs of a command (stdout to /dev/null)
best() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
best = None
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter() - t
    best = t if best is None or t < best else best
print("%.4f" % best)
PY
}

# row LABEL BYTES CALLS SECONDS: one table line
row() {
	python3 -c 'import sys
l, b, c, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
print("%-24s %9.1f MB %11d calls %8.3f s %9.1f MB/s %8.1f ns/call" % (l, b / 1e6, c, s, b / 1e6 / s, s * 1e9 / c))' "$@"
}

# events ARCHIVE: duration complete events (one per recorded call)
events() {
	"$fxt" stats "$1" | awk '$1 == "duration" && $2 == "complete" { print $3 }'
}

# ---- the 1 GiB archive: the workload traced with enough calls (24 bytes per call) ----
big_calls=$((size_mb * 1024 * 1024 / 24))
FXT_BUFFER_SIZE=$((size_mb + 64))M FXT_OUTPUT="$work/big.fxt" LD_PRELOAD="$fxtauto" \
	"$work/calls-work" "$big_calls" >/dev/null
big_bytes=$(stat -c %s "$work/big.fxt")
big_events=$(events "$work/big.fxt")
echo "== $((big_bytes / 1048576)) MiB archive: calls-work traced by libfxtauto.so =="
t_big_r=$(best "$fxt" report "$work/big.fxt")
row "fxt report" "$big_bytes" "$big_events" "$t_big_r"
row "fxt json" "$big_bytes" "$big_events" "$(best "$fxt" json "$work/big.fxt")"
report_mbs=$(python3 -c "print(round($big_bytes / 1e6 / $t_big_r))")
for args in "" "--tree"; do
	/usr/bin/time -f "%M" -o "$work/rss" "$fxt" report $args "$work/big.fxt" >/dev/null
	printf '%-24s peak RSS %d MB (archive %d MB)\n' "fxt report $args" \
		$(($(cat "$work/rss") / 1024)) $((big_bytes / 1048576))
done
rm -f "$work/big.fxt"

# ---- the same N-call workload recorded by each tracer ----
FXT_BUFFER_SIZE=$((calls * 24 / 1048576 + 64))M FXT_OUTPUT="$work/small.fxt" LD_PRELOAD="$fxtauto" \
	"$work/calls-work" "$calls" >/dev/null
uftrace record --no-libcall -d "$work/uftrace.data" "$work/calls-work" "$calls" >/dev/null
fxt_bytes=$(stat -c %s "$work/small.fxt")
fxt_calls=$(events "$work/small.fxt")
uf_bytes=$(du -sb "$work/uftrace.data" | cut -f1)
# uftrace report lines: TOTAL UNIT SELF UNIT CALLS NAME (linux:schedule rows are not calls)
uf_calls=$(uftrace report -d "$work/uftrace.data" --no-pager 2>/dev/null |
	awk '$5 ~ /^[0-9]+$/ && $6 !~ /^linux:/ { n += $5 } END { print n }')
echo "== the same workload (calls-work $calls) recorded by each tracer =="
t_fr=$(best "$fxt" report "$work/small.fxt")
t_fj=$(best "$fxt" json "$work/small.fxt")
t_ur=$(best uftrace report -d "$work/uftrace.data" --no-pager)
t_uj=$(best uftrace dump --chrome -d "$work/uftrace.data" --no-pager)
row "fxt report" "$fxt_bytes" "$fxt_calls" "$t_fr"
row "uftrace report" "$uf_bytes" "$uf_calls" "$t_ur"
row "fxt json" "$fxt_bytes" "$fxt_calls" "$t_fj"
row "uftrace dump --chrome" "$uf_bytes" "$uf_calls" "$t_uj"
python3 - "$t_fj" "$fxt_calls" "$t_uj" "$uf_calls" "$t_fr" "$t_ur" "$report_mbs" <<'PY'
import sys
fj, fc, uj, uc, fr, ur, mbs = map(float, sys.argv[1:])
json_ratio = (uj / uc) / (fj / fc)
print("== goals ==")
print("fxt report on the big archive: %d MB/s (goal >= 500): %s" % (mbs, "met" if mbs >= 500 else "NOT met"))
print("per call, uftrace dump --chrome / fxt json = %.1fx (goal >= 3x): %s"
      % (json_ratio, "met" if json_ratio >= 3 else "NOT met"))
print("per call, uftrace report / fxt report = %.1fx" % ((ur / uc) / (fr / fc)))
PY
