#!/usr/bin/env bash
# Runs tests/progs/s-sigstress traced (LD_PRELOAD alone, or under fxtrun) and checks the archive
# against the counts the program prints: exact calls per function, exact caller->callee counts,
# and on_alarm's callers (whatever it interrupted: main or a loop_* function) summing to the
# handler's runs. Also `fxt check`, and fxt-calls' own checks (nesting, no drops).
# Usage: sigstress.sh preload|fxtrun PROGRAM [ARGS...]; env: FXT, FXT_CALLS, FXTAUTO, FXTRUN.
# SPDX-License-Identifier: MIT
set -u
mode=$1
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/fxt-sigstress.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# LD_PRELOAD alone: one buffer for 10M calls and more, 24 bytes each (fxtrun streams).
export FXT_BUFFER_SIZE=${FXT_BUFFER_SIZE:-768M}
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
case $mode in
preload)
	LD_PRELOAD="$FXTAUTO" FXT_OUTPUT="$work/t.fxt" ASAN_OPTIONS=$asan "$@" >"$work/out" ||
		fail "the program failed" ;;
fxtrun)
	ASAN_OPTIONS=$asan "$FXTRUN" -o "$work/t.fxt" -- "$@" >"$work/out" ||
		fail "fxtrun failed" ;;
*) fail "mode $mode" ;;
esac
read -r _ _ iters _ runs <"$work/out" || fail "no counts printed"
[ -n "$runs" ] || fail "no counts printed: $(cat "$work/out")"
"$FXT" check "$work/t.fxt" >"$work/check" 2>&1 || { cat "$work/check" >&2; fail "fxt check"; }
"$FXT_CALLS" "$work/t.fxt" >"$work/calls" || fail "fxt-calls rejects the archive"
prog=$(basename "$1")
{
	printf 'call\t%s\t%s\t%s\n' "$prog" 1 main "$prog" "$iters" loop_top "$prog" "$iters" loop_mid \
		"$prog" $((2 * iters)) loop_leaf "$prog" "$runs" on_alarm "$prog" "$runs" alarm_work \
		"$prog" $((2 * runs)) alarm_leaf
	printf 'edge\t%s\t%s\t%s\t%s\n' "$prog" 1 - main "$prog" "$iters" main loop_top \
		"$prog" "$iters" loop_top loop_mid "$prog" $((2 * iters)) loop_mid loop_leaf \
		"$prog" "$runs" on_alarm alarm_work "$prog" $((2 * runs)) alarm_work alarm_leaf
	echo "into-on_alarm $runs"
} | sort >"$work/want"
awk -F'\t' -v prog="$prog" '
	$1 == "edge" && $5 == "on_alarm" {
		if ($4 != "main" && $4 !~ /^loop_(top|mid|leaf)$/)
			print "bad caller of on_alarm: " $4
		into += $3; next
	}
	$1 == "call" || $1 == "edge" { print; next }
	$1 == "thread" { if ($2 != prog || $3 != 1 || $4 > 7) print "bad thread line: " $0; next }
	{ print "unexpected: " $0 }
	END { print "into-on_alarm " into + 0 }' "$work/calls" | sort >"$work/got"
diff -u "$work/want" "$work/got" >&2 || fail "calls differ from the program's own counts"
echo "ok: $mode: $iters iterations, $runs handler runs, every call and edge exact"
