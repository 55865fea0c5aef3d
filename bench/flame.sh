#!/usr/bin/env bash
# bench/flame: `fxt flame` (SVG and --folded) beside `fxt report --tree` on one large archive
# written by bench/gen-archive (2 providers, THREADS threads each, nested calls): wall time
# and peak RSS of each (/usr/bin/time), and their ratios to report --tree's. All three read
# the archive through the same two passes (launcher/cmd/profread.c), so the ratios show what
# drawing costs; RSS is bounded by the tree of call paths, not by the number of calls.
# gen-archive's random call paths make a tree of millions of paths (the worst case for both);
# ARCHIVE=FILE measures a given archive instead (a traced program: few paths, many calls).
# Usage: bench/flame.sh [BUILD_DIR]   Env: SIZE_MB (512), THREADS (64), WORK (dir, /tmp), ARCHIVE
# SPDX-License-Identifier: MIT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
fxt=$build/launcher/fxt
gen=$build/bench/gen-archive
size_mb=${SIZE_MB:-512}
for f in "$fxt" "$gen" /usr/bin/time; do
	[ -x "$f" ] || { echo "bench/flame: $f missing (build fxt and gen-archive first)" >&2; exit 2; }
done
work=$(mktemp -d "${WORK:-/tmp}/fxt-bench-flame.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${ARCHIVE-}" ]; then
	ln -s "$(realpath "$ARCHIVE")" "$work/a.fxt"
else
	"$gen" -s $((size_mb << 20)) -t "${THREADS:-64}" "$work/a.fxt"
fi
cat "$work/a.fxt" >/dev/null # page cache warm for every run
measure() {	# measure NAME COMMAND...: "NAME SECONDS KB" (best of 2 by wall time)
	local name=$1 best=
	shift
	for _ in 1 2; do
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null
		read -r s kb <"$work/time"
		if [ -z "$best" ] || awk -v a="$s" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$s $kb"
		fi
	done
	echo "$name $best"
}
{
	measure "report --tree" "$fxt" report --tree "$work/a.fxt"
	measure "flame -o SVG" "$fxt" flame -o "$work/a.svg" "$work/a.fxt"
	measure "flame --folded" "$fxt" flame --folded -o "$work/a.folded" "$work/a.fxt"
} >"$work/figures"
printf 'archive: %s MB, %s call paths folded, SVG %s KB\n' \
	"$(($(stat -L -c %s "$work/a.fxt") / 1000000))" "$(wc -l <"$work/a.folded")" \
	"$(($(stat -c %s "$work/a.svg") / 1000))"
awk '{
	n = split($0, f, " "); kb = f[n]; s = f[n - 1]; name = $0; sub(/ [^ ]+ [^ ]+$/, "", name)
	if (NR == 1) { s0 = s; kb0 = kb }
	printf "%-16s %7.2f s %8.1f MB peak RSS   x%.2f time  x%.2f RSS (vs report --tree)\n",
		name, s, kb / 1024, s / s0, kb / kb0
}' "$work/figures"
