#!/usr/bin/env bash
# Runs one program untraced and then with LD_PRELOAD=$FXTAUTO, and checks that stdout, stderr,
# exit status (same signal for crashes) and core dump presence are identical (a traced core
# under 1 GiB), that every archive written passes `fxt check`, and that fxt-calls over them
# matches the golden file.
# Usage: run-prog.sh GOLDEN PROGRAM [ARGS...]; env: FXT, FXT_CALLS, FXTAUTO, EXPECT_DIR, and
# FXTRUN: when set, the traced run is `$FXTRUN -o trace.fxt PROGRAM` (its own summary lines,
# `fxtrun: ...` on stderr, are left out of the comparison).
# The golden file is the fxt-calls output of $FXT_OUTPUT, then for each further archive (a
# forked child's) a line `archive N` and its fxt-calls output; GOLDEN.sh instead of GOLDEN.txt
# prints it (for programs with many threads). Exits 1 with a reason on failure.
# SPDX-License-Identifier: MIT
set -u
golden=$EXPECT_DIR/$1.txt
golden_name=$(basename "$1")
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/fxt-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ -f "${golden%.txt}.sh" ]; then
	bash "${golden%.txt}.sh" >"$work/golden.txt" || fail "$golden_name.sh failed"
	golden=$work/golden.txt
fi

# run DIR [ENV...]: runs the program in DIR with cores enabled, records out, err and status.
run() {
	local dir=$1
	shift
	mkdir -p "$dir"
	{ (cd "$dir" && ulimit -c unlimited && exec env "$@" "${launch[@]}" "${prog[@]}" >out 2>err); } 2>/dev/null
	echo $? >"$dir/status"	# the braces keep bash's "Segmentation fault" note quiet
}
prog=("$@")
[[ ${prog[0]} != */* ]] || prog[0]=$(realpath "${prog[0]}")	# the runs change directory
launch=()
# Context switches stay off unless a test asks for them (tests/sched checks them): these runs
# compare every byte of stderr, and on a busy machine the kernel's switch ring may overflow,
# which the tracer truly says on stderr.
export FXT_SCHED=${FXT_SCHED:-0}
run "$work/plain"
# Under an ASan build the preloaded library comes before the ASan runtime: ASan must allow it.
if [ -n "${FXTRUN:-}" ]; then
	launch=("$FXTRUN" -o "$work/traced/trace.fxt")
	run "$work/traced" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	sed -i '/^fxtrun: /d' "$work/traced/err"
else
	run "$work/traced" LD_PRELOAD="$FXTAUTO" FXT_OUTPUT="$work/traced/trace.fxt" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
# Under LSan a fork child of a threaded parent says "Running thread N was not suspended" of
# the parent's other threads (its registry is a copy; gcc's runtime): the tracer's grower
# thread makes every traced program threaded, so the line is left out of both runs.
sed -i '/^==[0-9]*==Running thread [0-9]* was not suspended. False leaks are possible.$/d' \
	"$work/plain/err" "$work/traced/err"

cmp -s "$work/plain/out" "$work/traced/out" ||
	{ diff -u "$work/plain/out" "$work/traced/out" >&2; fail "stdout differs with the tracer"; }
cmp -s "$work/plain/err" "$work/traced/err" ||
	{ diff -u "$work/plain/err" "$work/traced/err" >&2; fail "stderr differs with the tracer"; }
st0=$(cat "$work/plain/status") st1=$(cat "$work/traced/status")
[ "$st0" = "$st1" ] || fail "exit status $st0 untraced, $st1 traced"
core0=$(ls "$work/plain" | grep -c '^core') core1=$(ls "$work/traced" | grep -c '^core')
[ "$core0" = "$core1" ] || fail "core dumps: $core0 untraced, $core1 traced"
# The tracer's address space stays out of a core: its apparent size was 1 TiB (the finished
# archive's window remapped private), and writing it took 45 s.
for c in "$work"/traced/core*; do
	[ -e "$c" ] || continue
	[ "$(stat -c %s "$c")" -lt $((1 << 30)) ] || fail "core dump of $(stat -c %s "$c") bytes traced"
done

[ -s "$work/traced/trace.fxt" ] || fail "no archive at FXT_OUTPUT"
others=$(cd "$work/traced" && ls | grep -v -e '^trace\.fxt$' -e '^out$' -e '^err$' \
	-e '^status$' -e '^core' | sort)
got=$work/got.txt
{
	"$FXT_CALLS" "$work/traced/trace.fxt" || fail "fxt-calls rejects trace.fxt"
	n=0
	for f in $others; do
		n=$((n + 1))
		echo "archive $n"
		"$FXT_CALLS" "$work/traced/$f" || fail "fxt-calls rejects $f"
	done
} >"$got"
for f in trace.fxt $others; do
	"$FXT" check "$work/traced/$f" >"$work/check.txt" 2>&1 ||
		{ cat "$work/check.txt" >&2; fail "fxt check rejects $f"; }
done
diff -u "$golden" "$got" >&2 || fail "calls differ from the golden $golden_name"
echo "ok: ${prog[*]}: output, status and $((1 + n)) archive(s) as expected"
