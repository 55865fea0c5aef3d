#!/bin/sh
# A stripped Debian library in samples: `xz -9` (its liblzma has no symbols for its internals)
# sampled at 2000 Hz; in `fxt report`'s sample section every row of the library not named by
# its dynamic symbols is "liblzma.so.5+0x<offset>" with <offset> the start of a function by the
# library's .eh_frame (an FDE start, checked with readelf), and there are few such rows (one per
# function, not one per sampled address: 269 rows before, 12 functions).
# usage: stripped.sh LIB FXT OUTDIR
# SPDX-License-Identifier: MIT
set -eu
lib=$1 fxt=$2 dir=$3
xz=$(command -v xz) || { echo "xz not installed: skipped"; exit 0; }
lzma=$(ldd "$xz" | sed -n 's/.*liblzma[^ ]* => \([^ ]*\) .*/\1/p')
[ -n "$lzma" ] || { echo "xz not linked with liblzma: skipped"; exit 0; }
base=$(basename "$lzma")
in=$dir/stripped.in out=$dir/stripped.fxt
trap 'rm -f "$in" "$out" "$out.report"' EXIT
# 3 MB of text that compresses (slowly, at -9) through liblzma's match finders and encoders.
awk 'BEGIN { for (i = 0; i < 60000; i++) printf "line %d %d words %d\n", i, (i * 7919) % 10007, i % 97 }' > "$in"
head -c 1500000 /dev/urandom | base64 >> "$in"
FXT_SAMPLE=2000 FXT_OUTPUT=$out LD_PRELOAD=$lib "$xz" -9 -c "$in" > /dev/null
"$fxt" report --limit 100000 "$out" > "$out.report"
rows=$(awk '/^== sampled stacks/ { s = 1; next } /^==/ { s = 0 } s && $NF ~ /^'"$base"'/ { print $NF }' \
	"$out.report" | sed 's/^'"$base"'//')
n=$(printf '%s\n' "$rows" | grep -c . || true)
bad=$(printf '%s\n' "$rows" | grep -v '^+0x[0-9a-f]*$' || true)
echo "$n unnamed $base rows in the sample section"
[ "$n" -gt 0 ] || { echo "FAIL: no $base rows (the library was not sampled)"; exit 1; }
[ -z "$bad" ] || { echo "FAIL: rows not of the form $base+0xOFFSET:"; echo "$bad"; exit 1; }
[ "$n" -le 40 ] || { echo "FAIL: $n rows for $base, want at most 40 (one per function)"; exit 1; }
if command -v readelf > /dev/null; then
	starts=$(readelf -wf "$lzma" | sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\..*/\1/p')
	for r in $rows; do
		off=${r#+0x}
		printf '%s\n' "$starts" | grep -qx "$off" ||
			{ echo "FAIL: $base$r is not the start of an FDE of $lzma"; exit 1; }
	done
fi
echo "ok: every unnamed $base row is $base+0xFDE_START"
