#!/usr/bin/env bash
# bench/api.sh: cost of <fxt/trace.h>'s TRACE_DURATION in ns per event, with 0 and 2 arguments:
# no tracer loaded, tracer loaded with the category disabled (FXT_CATEGORIES), and recording;
# beside it the per-call cost of a -finstrument-functions call recorded by the same tracer.
# Figures are the best of 3 runs of best-of-REPS, minus a baseline call in the same run.
# Builds its two programs (bench/api-bench.c, bench/api-cyg.c) with cc -O2 in a temp directory.
# Usage: bench/api.sh [BUILD_DIR (default build)] [N calls per run (default 200000)] [REPS (5)]
# SPDX-License-Identifier: MIT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
n=${2:-200000}
reps=${3:-5}
lib=$(find "$build" -name libfxtauto.so -print -quit 2>/dev/null || true)
if [ -z "$lib" ]; then
	echo "api.sh: no libfxtauto.so under $build (build the fxtauto target)" >&2
	exit 2
fi
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cc" -O2 -I"$root/include" -o "$tmp/api-bench" "$root/bench/api-bench.c"
"$cc" -O2 -finstrument-functions -o "$tmp/api-cyg" "$root/bench/api-cyg.c"

# Every run records at most 2 * reps * n events of <= 48 bytes: size the buffer for them.
buf_mb=$(( (2 * reps * n * 48) / 1048576 + 16 ))
run() { # env... -- prog: prints the program's single output line
	env "$@" FXT_OUTPUT="$tmp/out.fxt" FXT_BUFFER_SIZE="${buf_mb}M"
}
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

# The machine is shared: each configuration runs 3 times, each figure keeps its minimum.
best3() {
	for _ in 1 2 3; do "$@"; done | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=");
		if (!(kv[1] in m) || kv[2] < m[kv[1]]) m[kv[1]] = kv[2] } }
		END { for (k in m) printf "%s=%s ", k, m[k]; print "" }'
}
untraced=$(best3 env -u LD_PRELOAD "$tmp/api-bench" "$n" "$reps")
disabled=$(best3 run LD_PRELOAD="$lib" FXT_CATEGORIES=not-bench "$tmp/api-bench" "$n" "$reps")
enabled=$(best3 run LD_PRELOAD="$lib" "$tmp/api-bench" "$n" "$reps")
cyg=$(best3 run LD_PRELOAD="$lib" "$tmp/api-cyg" "$n" "$reps")

printf 'TRACE_DURATION cost, ns per event (best of 3x%d runs of %d calls, minus an empty call)\n' \
	"$reps" "$n"
printf '%-34s %10s %10s\n' "" "0 args" "2 args"
for row in "no tracer loaded:$untraced" "tracer loaded, category off:$disabled" \
	"tracer loaded, recording:$enabled"; do
	label=${row%%:*}
	line=${row#*:}
	b=$(field base "$line")
	printf '%-34s %10s %10s\n' "$label" "$(minus "$(field d0 "$line")" "$b")" \
		"$(minus "$(field d2 "$line")" "$b")"
done
printf '%-34s %10s\n' "-finstrument-functions call, recorded" \
	"$(minus "$(field instrumented "$cyg")" "$(field plain "$cyg")")"
