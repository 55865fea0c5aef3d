#!/usr/bin/env bash
# bench/reader: `fxt check` throughput (strict decode of every field + the semantic validator)
# on a 1 GiB archive of realistic events written by bench/gen-archive (2 providers, 64 threads
# each: nested complete events, begin/end pairs with arguments, instants, counters, async and
# flow pairs, string/thread records). Prints the best of 3 runs in MB/s (goal: >= 1000 MB/s on
# the 2-core team machine), then deletes the archive.
# Usage: bench/reader.sh [BUILD_DIR]   Env: SIZE_MB (1024), THREADS (64), WORK (dir, /tmp)
# SPDX-License-Identifier: MIT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt
gen=$build/bench/gen-archive
size_mb=${SIZE_MB:-1024}
for f in "$fxt" "$gen"; do
	[ -x "$f" ] || { echo "bench/reader: $f missing (build fxt and gen-archive first)" >&2; exit 2; }
done
archive=$(mktemp "${WORK:-/tmp}/fxt-bench-reader.XXXXXX")
trap 'rm -f "$archive"' EXIT
"$gen" -s $((size_mb << 20)) -t "${THREADS:-64}" "$archive"
bytes=$(stat -c %s "$archive")
"$fxt" check "$archive" | sed 's/^/  /'
cat "$archive" >/dev/null # page cache warm for every run
# best wall-clock and best CPU (user + sys) time of 3 runs: the machine is shared, so the CPU
# figure shows the reader's own speed when other work steals the cores
TIMEFORMAT='%R %U %S'
times=$(for _ in 1 2 3; do { time "$fxt" check --quiet "$archive" >/dev/null; } 2>&1; done)
awk -v bytes="$bytes" '
	{
		cpu = $2 + $3
		if (NR == 1 || $1 < wall) wall = $1
		if (NR == 1 || cpu < best) best = cpu
	}
	END {
		mb = bytes / 1e6
		printf "fxt check: %.0f MB in %.3f s (best of 3) = %.0f MB/s (goal >= 1000)\n",
			mb, wall, mb / wall
		printf "           %.3f s of CPU (user+sys, best of 3) = %.0f MB/s per core\n",
			best, mb / best
	}' <<<"$times"
