#!/usr/bin/env bash
# bench/reader: the readers' speed and memory on archives of about SIZE_MB MiB, side by side:
# 1. gen-archive: realistic events written by bench/gen-archive (2 providers, THREADS threads
#    each: nested complete events whose names are drawn at random, so nearly every call is a
#    call path of its own; begin/end pairs with arguments, instants, counters, async and flow
#    pairs, string/thread records);
# 2. calls-work: bench/calls-work traced standalone (LD_PRELOAD=libfxtauto.so, one thread) with
#    as many calls as fill SIZE_MB at 24 bytes each, and the same run under `uftrace record`
#    (where uftrace is installed), read by `uftrace report` and `uftrace graph` (UFTRACE_CMDS).
# Per archive and command (fxt check, stats, report, report --tree, report --edges, json,
# replay; outputs to /dev/null): wall and CPU (user + sys) seconds, MB/s of the archive by wall
# and by CPU (the machine is shared: CPU shows the reader's own speed when other work steals
# the cores), peak RSS; best of RUNS runs (RSS: the largest). Goals (issue 24): peak RSS under
# 256 MiB for any archive size, check >= 1000 MB/s, report >= 300 MB/s. Prints figures only;
# deletes the archives.
# Usage: bench/reader.sh [BUILD_DIR]
# Env: SIZE_MB (1024), THREADS (64), RUNS (3), WORK (dir, /tmp), ARCHIVES ("gen calls-work"),
#      CMDS (the fxt commands, as below), UFTRACE_CMDS ("report graph"; empty: no uftrace).
# SPDX-License-Identifier: MIT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt gen=$build/bench/gen-archive work=$build/bench/calls-work
lib=$build/preload/libfxtauto.so
size_mb=${SIZE_MB:-1024} runs=${RUNS:-3}
read -r -a archives <<<"${ARCHIVES:-gen calls-work}"
IFS=, read -r -a cmds <<<"${CMDS:-check --quiet,stats,report,report --tree,report --edges,json,replay}"
read -r -a ucmds <<<"${UFTRACE_CMDS-report graph}"
for f in "$fxt" "$gen" "$work" "$lib" /usr/bin/time; do
	[ -e "$f" ] ||
		{ echo "bench/reader: $f missing (build fxt, fxtauto, gen-archive, calls-work)" >&2; exit 2; }
done
[ "$runs" -ge 1 ] 2>/dev/null || { echo "bench/reader: RUNS must be a positive number" >&2; exit 2; }
command -v uftrace >/dev/null || ucmds=()
tmp=$(mktemp -d "${WORK:-/tmp}/fxt-bench-reader.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure LABEL BYTES CMD...: RUNS runs of CMD (stdout to /dev/null); prints its row.
measure() {
	local label=$1 bytes=$2
	shift 2
	: >"$tmp/times"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; echo "bench/reader: failed: $*" >&2; exit 1; }
		cat "$tmp/time" >>"$tmp/times"
	done
	awk -v label="$label" -v bytes="$bytes" '
		{ cpu = $2 + $3
		  if (NR == 1 || $1 < wall) wall = $1
		  if (NR == 1 || cpu < best) best = cpu
		  if ($4 > rss) rss = $4 }
		END { mb = bytes / 1e6
		      printf "  %-22s %8.2f %8.2f %9.0f %9.0f %9.1f\n", label, wall, best,
			  (wall > 0 ? mb / wall : 0), (best > 0 ? mb / best : 0), rss / 1024 }' "$tmp/times"
}
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }
header() {
	echo "$1"
	printf '  %-22s %8s %8s %9s %9s %9s\n' command "wall s" "cpu s" "MB/s" "MB/s cpu" "RSS MB"
}

for a in "${archives[@]}"; do
	case $a in
	gen)
		"$gen" -s $((size_mb << 20)) -t "${THREADS:-64}" "$tmp/a.fxt"
		what="gen-archive, ${THREADS:-64} threads per provider" ;;
	calls-work)
		calls=$((size_mb * 1048576 / 24 / 3 * 3))
		FXT_OUTPUT=$tmp/a.fxt LD_PRELOAD=$lib "$work" "$calls" 1 >/dev/null
		what="calls-work $calls calls, one thread, traced standalone" ;;
	*) echo "bench/reader: unknown archive '$a' (gen, calls-work)" >&2; exit 2 ;;
	esac
	bytes=$(stat -c %s "$tmp/a.fxt")
	cat "$tmp/a.fxt" >/dev/null # page cache warm for every run
	header "$what: $(mb "$bytes") MB, best of $runs"
	for c in "${cmds[@]}"; do
		read -r -a argv <<<"$c"
		measure "fxt $c" "$bytes" "$fxt" "${argv[@]}" "$tmp/a.fxt"
	done
	rm -f "$tmp/a.fxt"
	if [ "$a" = calls-work ] && [ "${#ucmds[@]}" -gt 0 ]; then
		uftrace record --no-libcall --no-sched -d "$tmp/u.data" "$work" "$calls" 1 \
			>/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		ubytes=$(du -sb "$tmp/u.data" | cut -f1)
		cat "$tmp"/u.data/* >/dev/null
		header "the same run under uftrace record: $(mb "$ubytes") MB, best of $runs"
		for c in "${ucmds[@]}"; do
			measure "uftrace $c" "$ubytes" uftrace "$c" -d "$tmp/u.data"
		done
		rm -rf "$tmp/u.data"
	fi
done
