#!/usr/bin/env bash
# clock-check.sh ARCHIVE STAMPS [SLACK_NS]: compares the trace's clock with the program's. STAMPS
# is r-clock's file ("t1 t2" per stamp() call, CLOCK_MONOTONIC ns, in call order); the starts
# of the archive's stamp() calls, as `fxt json` writes them (CLOCK_MONOTONIC microseconds with
# three decimals when the archive has a clock record), are taken in archive order (r-clock has
# one thread). Prints the distribution of start - t1 and t2 - start, and the largest error (how
# far a start lies outside its [t1, t2]); exits 1 when the counts differ or a start lies more
# than SLACK_NS (default 10000) outside its window, 2 on bad usage. Environment: FXT (the fxt
# command; default: fxt on PATH).
# SPDX-License-Identifier: MIT
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: clock-check.sh ARCHIVE STAMPS [SLACK_NS]" >&2
	exit 2
fi
archive=$1 stamps=$2 slack=${3:-10000}
fxt=${FXT:-fxt}

# The starts in ns, exactly: "ts":S.FFF -> SFFF (no floating point on the way).
starts=$("$fxt" json "$archive" |
	sed -n 's/.*"name":"stamp",.*"ph":"X","ts":\([0-9]*\)\.\([0-9]\{3\}\),.*/\1\2/p')

# Per call: start - t1, t2 - start, and its error (how far the start lies outside [t1, t2]).
rows=$(paste -d ' ' "$stamps" <(printf '%s\n' "$starts") | awk '
	NF != 3 { print "mismatch"; exit }
	{ e = $1 - $3 > $3 - $2 ? $1 - $3 : $3 - $2; print $3 - $1, $2 - $3, e < 0 ? 0 : e }')
n=$(printf '%s\n' "$rows" | grep -c '^-\?[0-9]' || true)
if [ "$n" -eq 0 ] || [ "$n" -ne "$(wc -l <"$stamps")" ] || grep -q mismatch <<<"$rows"; then
	echo "clock-check: the archive's stamp() calls and the stamps differ in number"
	exit 1
fi
echo "calls $n"
# show COLUMN WHAT: min, median, 99th percentile and max of a column.
show() {
	printf '%s\n' "$rows" | cut -d ' ' -f "$1" | sort -n | awk -v what="$2" '
		{ v[NR] = $1 }
		END { printf "%-12s min %9d  p50 %9d  p99 %9d  max %9d ns\n", what, v[1],
			     v[int((NR - 1) * 0.5) + 1], v[int((NR - 1) * 0.99) + 1], v[NR] }'
}
show 1 "start - t1"
show 2 "t2 - start"
bad=$(printf '%s\n' "$rows" | awk -v slack="$slack" '$3 > slack' | wc -l)
worst=$(printf '%s\n' "$rows" | cut -d ' ' -f 3 | sort -n | tail -1)
echo "largest error $worst ns; $bad calls more than $slack ns outside [t1, t2]"
[ "$bad" -eq 0 ]
