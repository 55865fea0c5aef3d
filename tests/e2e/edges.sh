#!/usr/bin/env bash
# `fxt report --edges` against fxt-calls (tests/e2e/fxt-calls.c: the reader's records nested by
# time, one thread at a time, all in memory) on the archive of one program: every caller->callee
# count equal. The report nests in bounded memory, run by run; a signal handler's calls sit in
# chunks of their own, interleaved in time with the thread's others (they were put under the
# wrong caller). Usage: edges.sh preload|fxtrun PROGRAM [ARGS...]; env: FXT, FXT_CALLS, FXTAUTO,
# FXTRUN (fxtrun mode).
# SPDX-License-Identifier: MIT
set -euo pipefail
mode=$1
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/fxt-edges.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$mode" = fxtrun ]; then
	"$FXTRUN" -o "$work/t.fxt" "$@" >/dev/null 2>&1
else
	FXT_OUTPUT="$work/t.fxt" LD_PRELOAD="$FXTAUTO" "$@" >/dev/null
fi
"$FXT" report --edges "$work/t.fxt" | sort >"$work/report.txt"
# fxt-calls: "edge THREAD COUNT CALLER CALLEE" per thread name, caller "-" at the root
"$FXT_CALLS" "$work/t.fxt" |
	awk -F'\t' '$1 == "edge" { c = $4 == "-" ? "(root)" : $4; n[c "\t" $5] += $3 }
		    END { for (k in n) print n[k] "\t" k }' | sort >"$work/calls.txt"
[ -s "$work/calls.txt" ] || { echo "FAIL: no edges in the archive"; exit 1; }
diff -u "$work/calls.txt" "$work/report.txt" || { echo "FAIL: fxt report --edges differs"; exit 1; }
echo "ok: $(wc -l <"$work/report.txt") edges equal"
