#!/usr/bin/env bash
# Client commands on real archives: traces each example program with libfxtauto.so, then checks
# that `fxt json` parses and matches the archive one for one (json-vs-archive.py, its own
# decoder), that `fxt report` figures equal an independent recomputation from the JSON
# events (recompute.py), table and call tree, that `fxt replay` prints every event in order at
# its depth (replay-check.py), and that a window (the middle third of the trace) is cut exactly
# at its bounds by `fxt json` (json-window.py) and by `fxt replay`, and that the flame graph's
# widths equal report --tree's figures path by path (flame-check.py), whole, per thread and in
# the window.
# Usage: examples.sh WORKDIR PROGRAM[@ARG,ARG...]...   Env: FXT, FXTAUTO. Exit 0 when every check holds.
# SPDX-License-Identifier: MIT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
shift
mkdir -p "$work"
export REPLAY_CHECK_CACHE="$work/replay-check-cache"	# each archive walked once
for spec in "$@"; do
	prog=${spec%%@*}
	args=()
	[ "$prog" = "$spec" ] || IFS=, read -ra args <<<"${spec#*@}"
	name=$(basename "$prog")
	fxt="$work/$name.fxt"
	rm -f "$fxt"
	# No context switches: the one-for-one check covers events (the switches' CPU tracks and
	# off-cpu slices are checked by tests/sched/check.py).
	FXT_SCHED=0 FXT_OUTPUT="$fxt" LD_PRELOAD="$FXTAUTO" "$prog" "${args[@]}" >/dev/null
	"$FXT" json -o "$work/$name.json" "$fxt"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/$name.json"
	echo "$name: JSON parses"
	python3 "$here/json-vs-archive.py" "$fxt" "$work/$name.json" | sed "s/^/$name: /"
	"$FXT" report --sort name "$fxt" >"$work/$name.report"
	"$FXT" report --tree "$fxt" >"$work/$name.tree"
	python3 "$here/recompute.py" "$work/$name.json" "$work/$name.report" "$work/$name.tree" |
		sed "s/^/$name: report: /"
	python3 "$here/flame-check.py" "$FXT" "$fxt" | sed "s/^/$name: flame: /"
	python3 "$here/flame-check.py" "$FXT" "$fxt" --threads | sed "s/^/$name: flame --threads: /"
	"$FXT" stats "$fxt" >"$work/$name.stats"
	echo "$name: stats reads it"
	# --hold past every event: exact start order whatever the archive's chunk order (calls-work's
	# 390,036 events are more than the default hold: printed early, marked, in fxt-replay.bats)
	python3 "$here/replay-check.py" "$FXT" "$fxt" --hold 100000000 | sed "s/^/$name: replay: /"
	# the middle third of the time span, as stats prints its stamps
	read -r since until < <(sed -n 's/^time span: .* (\([0-9.]*\) s to \([0-9.]*\) s)$/\1 \2/p' \
		"$work/$name.stats" | python3 -c 'import sys
a, b = (int(x.replace(".", "")) for x in sys.stdin.read().split())
s = lambda n: "%d.%09d" % (n // 10**9, n % 10**9)
print(s(a + (b - a) // 3), s(a + 2 * (b - a) // 3))')
	"$FXT" json --since "$since" --until "$until" -o "$work/$name.window.json" "$fxt"
	python3 "$here/json-window.py" "$work/$name.json" "$work/$name.window.json" "$since" \
		"$until" | sed "s/^/$name: json window [$since, $until]: /"
	python3 "$here/replay-check.py" "$FXT" "$fxt" --hold 100000000 --since "$since" \
		--until "$until" |
		sed "s/^/$name: replay window: /"
	python3 "$here/flame-check.py" "$FXT" "$fxt" --window --since "$since" --until "$until" |
		sed "s/^/$name: flame window: /"
done
