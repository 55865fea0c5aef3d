#!/usr/bin/env bash
# bench/processes: what tracing costs per process, the cost that dominates tracing a process
# tree (a build, a shell script). Times RUNS runs of tests/rprogs/r-leaf (a tiny instrumented
# program), then one shell loop of RUNS short processes (/bin/true), each untraced, under
# LD_PRELOAD=libfxtauto.so (one archive per process) and under fxtrun (one archive), and prints
# wall-clock ms per process. Usage: bench/processes.sh [BUILD_DIR]   (default: build)
# Env: RUNS (20).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
runs=${RUNS:-20}

need() {
	local f
	f=$(find "$build" -name "$1" \( -type f -o -type l \) -print -quit 2>/dev/null)
	[ -n "$f" ] || { echo "processes: $1 not found under $build (build the target)" >&2; exit 1; }
	realpath -s "$f"
}
leaf=$(need r-leaf) fxt=$(need libfxtauto.so) fxtrun=$(need fxtrun)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxt-processes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }

# per_process LABEL MODE PROG...: runs PROG RUNS times in MODE (untraced, preload, fxtrun) and
# prints the wall-clock ms per run.
per_process() {
	local label=$1 mode=$2 t0 t1 i
	shift 2
	t0=$(now)
	for ((i = 0; i < runs; i++)); do
		case $mode in
		untraced) "$@" ;;
		preload) FXT_OUTPUT=$tmp/p.fxt LD_PRELOAD=$fxt "$@" ;;
		fxtrun) "$fxtrun" -o "$tmp/r.fxt" "$@" 2>/dev/null ;;
		esac >/dev/null
	done
	t1=$(now)
	printf '%-26s %8.2f ms/process\n' "$label" "$(echo "($t1 - $t0) / $runs / 1000000" | bc -l)"
}

# per_child LABEL MODE: one shell running RUNS /bin/true children, in MODE; ms per child.
per_child() {
	local label=$1 mode=$2 t0 t1
	local loop="for ((i = 0; i < $runs; i++)); do /bin/true; done"
	t0=$(now)
	case $mode in
	untraced) bash -c "$loop" ;;
	preload) FXT_OUTPUT=$tmp/c.fxt LD_PRELOAD=$fxt bash -c "$loop" ;;
	fxtrun) "$fxtrun" -o "$tmp/s.fxt" bash -c "$loop" 2>/dev/null ;;
	esac >/dev/null
	t1=$(now)
	printf '%-26s %8.2f ms/process\n' "$label" "$(echo "($t1 - $t0) / $runs / 1000000" | bc -l)"
}

echo "processes: $runs runs each, wall clock"
for mode in untraced preload fxtrun; do
	per_process "r-leaf $mode" $mode "$leaf"
done
for mode in untraced preload fxtrun; do
	per_child "shell loop $mode" $mode
done
