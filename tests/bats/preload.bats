#!/usr/bin/env bats
# libfxtauto.so's environment options, one @test per option or error case, on the
# tests/progs programs. Paths come from ctest (tests/e2e.cmake): FXTAUTO (the library),
# FXT (the fxt command), FXT_CALLS (tests/e2e/fxt-calls), PROGS (the gcc-built programs).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# traced PROG ARGS...: runs a program with the tracer, other FXT_* settings from the caller.
traced() {
	env LD_PRELOAD="$FXTAUTO" "$@"
}

# a bad setting: one line on stderr, no archive, and the program behaves as without tracer
bad_setting() {
	local plain_out plain_status
	plain_out=$("$PROGS/s-exit" exit) || plain_status=$?
	run --separate-stderr env "$@" FXT_OUTPUT=out.fxt LD_PRELOAD="$FXTAUTO" "$PROGS/s-exit" exit
	[ "$status" -eq "$plain_status" ]
	[ "$output" = "$plain_out" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ ! -e out.fxt ]
}

@test "FXT_OUTPUT names the archive, and it passes fxt check" {
	FXT_OUTPUT=here.fxt traced "$PROGS/s-exit" return || [ $? -eq 4 ]
	"$FXT" check here.fxt
	run "$FXT_CALLS" here.fxt
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = $'call\ts-exit\t1\tmain' ]
}

@test "without FXT_OUTPUT the archive is fxtauto.<pid>.fxt in the working directory" {
	pid=$(bash -c 'echo $$ >pid; exec env LD_PRELOAD="$0" "$1" return' "$FXTAUTO" \
		"$PROGS/s-exit" >/dev/null; cat pid)
	[ -s "fxtauto.$pid.fxt" ]
	"$FXT" check "fxtauto.$pid.fxt"
}

@test "a program without instrumentation runs unchanged and leaves a valid archive" {
	run env FXT_OUTPUT=echo.fxt LD_PRELOAD="$FXTAUTO" /bin/echo hello
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	"$FXT" check echo.fxt
	run "$FXT_CALLS" -n echo.fxt
	[ "$output" = 0 ]
}

@test "FXT_MAX_DEPTH=10 records only the 10 outermost levels of a deep recursion" {
	FXT_OUTPUT=deep.fxt FXT_MAX_DEPTH=10 traced "$PROGS/s-deep" >/dev/null
	run "$FXT_CALLS" deep.fxt
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = $'thread\ts-deep\t1\t10' ]
	[ "${lines[1]}" = $'call\ts-deep\t1\tmain' ]
	[ "${lines[2]}" = $'call\ts-deep\t9\trecurse' ]
	[ "${lines[5]}" = $'edge\ts-deep\t8\trecurse\trecurse' ]
}

@test "FXT_FILTER keeps only the functions matching its globs" {
	FXT_OUTPUT=f.fxt FXT_FILTER='level*,jump' traced "$PROGS/s-longjmp" >/dev/null
	run "$FXT_CALLS" -f f.fxt
	[ "$status" -eq 0 ]
	[ "$output" = $'func\t1500\tjump\nfunc\t1500\tlevel1\nfunc\t1500\tlevel2\nfunc\t1500\tlevel3' ]
}

@test "FXT_EXCLUDE drops the functions matching its globs" {
	FXT_OUTPUT=x.fxt FXT_EXCLUDE='level*,jump' traced "$PROGS/s-longjmp" >/dev/null
	run "$FXT_CALLS" -f x.fxt
	[ "$status" -eq 0 ]
	[ "$output" = $'func\t1000\tafter\nfunc\t500\tcatcher\nfunc\t1\tmain' ]
}

@test "FXT_MIN_DURATION drops the calls shorter than it" {
	# recurse(n) lasts as long as the n-1 calls under it: a 100 us floor keeps only outer ones
	FXT_OUTPUT=m.fxt FXT_MIN_DURATION=100us traced "$PROGS/s-deep" >/dev/null
	run "$FXT_CALLS" -f m.fxt
	[ "$status" -eq 0 ]
	n=$(awk -F'\t' '$3 == "recurse" { print $2 }' <<<"$output")
	[ "$n" -gt 0 ]
	[ "$n" -lt 100000 ]
}

@test "a small FXT_BUFFER_SIZE is no wall without fxtrun: every call is kept" {
	plain=$("$PROGS/s-deep")
	run --separate-stderr env FXT_OUTPUT=small.fxt FXT_BUFFER_SIZE=1M \
		LD_PRELOAD="$FXTAUTO" "$PROGS/s-deep"
	[ "$status" -eq 0 ]
	[ "$output" = "$plain" ]
	[ -z "$stderr" ]
	"$FXT" check small.fxt
	run "$FXT_CALLS" -f small.fxt
	[ "$status" -eq 0 ]
	[[ "$output" == *$'func\t100000\trecurse'* ]]
}

@test "a file size limit drops calls, counts them on stderr and in the archive, program runs on" {
	plain=$("$PROGS/s-deep")
	# 3 MiB (ulimit -f counts KiB; 2 MiB of it is the string area): the archive stops growing there; no SIGXFSZ for the program
	run --separate-stderr bash -c 'ulimit -f 3072; exec env FXT_OUTPUT=lim.fxt \
		LD_PRELOAD="$0" "$1"' "$FXTAUTO" "$PROGS/s-deep"
	[ "$status" -eq 0 ]
	[ "$output" = "$plain" ]
	[[ "$stderr" =~ ^fxtauto:\ ([0-9]+)\ records\ dropped\ \(no\ space\ left\ to\ grow\ the\ buffer\) ]]
	dropped=${BASH_REMATCH[1]}
	[ "$(stat -c %s lim.fxt)" -le $((3072 * 1024)) ]
	"$FXT" check lim.fxt
	run "$FXT" stats lim.fxt
	[[ "$output" == *"records dropped: $dropped"* ]]
	# every call is recorded or counted as dropped (each call is one record)
	recorded=$("$FXT" report lim.fxt | awk '$NF == "recurse" || $NF == "main" { n += $1 } END { print n }')
	[ $((recorded + dropped)) -eq 100001 ]
}

@test "a bad FXT_BUFFER_SIZE: one line on stderr, tracing off, program unchanged" {
	bad_setting FXT_BUFFER_SIZE=lots
}

@test "a bad FXT_MAX_DEPTH: one line on stderr, tracing off, program unchanged" {
	bad_setting FXT_MAX_DEPTH=-3
}

@test "a bad FXT_MIN_DURATION: one line on stderr, tracing off, program unchanged" {
	bad_setting FXT_MIN_DURATION=soon
}

@test "an unwritable FXT_OUTPUT: one line on stderr, program unchanged" {
	plain_out=$("$PROGS/s-exit" exit) || plain_status=$?
	run --separate-stderr env FXT_OUTPUT=/nonexistent/dir/out.fxt LD_PRELOAD="$FXTAUTO" \
		"$PROGS/s-exit" exit
	[ "$status" -eq "$plain_status" ]
	[ "$output" = "$plain_out" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}
