#!/usr/bin/env bats
# One clock: an archive's timestamps convert to CLOCK_MONOTONIC (its clock record, docs/FORMAT.md
# "The clock"). r-clock (tests/progs/r-clock.c) reads CLOCK_MONOTONIC just before and just after
# each of 2000 calls of stamp(); every call's start, as `fxt json` writes it, must lie within
# 10 us of that window (tests/e2e/clock-check.sh), standalone, under fxtrun, after `fxt recover`
# and under the manager service. Before the clock record, the starts were 7 to 100 ms off.
# Paths come from ctest (tests/timing.cmake): FXTAUTO, FXT, FXTRUN, RCLOCK (r-clock), CHECK
# (clock-check.sh).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

teardown() {
	for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null || true; done
	local m
	m=$(cut -d' ' -f1 rt/manager.pid 2>/dev/null) || m=
	if [ -n "$m" ] && kill -TERM "$m" 2>/dev/null; then
		timeout 10 bash -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.05; done' "$m" ||
			kill -KILL "$m" 2>/dev/null
	fi
	if [ -d rt ]; then
		FXT_RUNTIME_DIR=$BATS_TEST_TMPDIR/rt "$FXT" clean >/dev/null 2>&1 || true
	fi
}

# check ARCHIVE: every stamp() start of ARCHIVE within 10 us of its window in st.txt.
check() {
	run env FXT="$FXT" bash "$CHECK" "$1" st.txt 10000
	echo "$output"
	[ "$status" -eq 0 ]
}

# wait_for CMD...: until CMD succeeds (20 s at most).
wait_for() {
	for _ in $(seq 400); do
		"$@" && return 0
		sleep 0.05
	done
	echo "never: $*" >&2
	return 1
}

# start_waiting [ENV...]: r-clock in "wait" mode, fed by the fifo `in` (this shell's fd W),
# printing to the file `out`; its pid in P.
start_waiting() {
	mkfifo in
	env "$@" "$RCLOCK" 2000 st.txt wait <in >out 2>err &
	P=$!
	exec {W}>in
}

@test "standalone (LD_PRELOAD): every call's start is CLOCK_MONOTONIC within 10 us" {
	FXT_OUTPUT=t.fxt LD_PRELOAD="$FXTAUTO" "$RCLOCK" 2000 st.txt
	"$FXT" dump t.fxt | grep -q ' blob type=1 size=32 name="fxt-clock" start_ticks=[1-9]'
	"$FXT" check t.fxt
	check t.fxt
}

@test "under fxtrun: every call's start is CLOCK_MONOTONIC within 10 us" {
	timeout 60 "$FXTRUN" -o t.fxt "$RCLOCK" 2000 st.txt
	"$FXT" check t.fxt
	check t.fxt
}

@test "a killed standalone run, recovered: every call's start is CLOCK_MONOTONIC within 10 us" {
	start_waiting FXT_OUTPUT="$BATS_TEST_TMPDIR/t.fxt" LD_PRELOAD="$FXTAUTO"
	echo go >&"$W"
	wait_for grep -q stamped out
	kill -KILL "$P"
	wait "$P" || true
	"$FXT" recover t.fxt.part
	"$FXT" check t.fxt
	check t.fxt
}

@test "the manager service: a registered program's calls are CLOCK_MONOTONIC within 10 us" {
	mkdir -m 700 rt
	export FXT_RUNTIME_DIR=$BATS_TEST_TMPDIR/rt
	timeout 10 "$FXT" manager
	start_waiting FXT_REGISTER=1 LD_PRELOAD="$FXTAUTO"
	listed() { "$FXT" list | awk -v p="$P" -v s="$1" '$1 == p && $3 == s { f = 1 } END { exit !f }'; }
	wait_for listed idle
	timeout 30 "$FXT" start --pid "$P"
	wait_for listed recording
	echo go >&"$W"
	wait_for grep -q stamped out
	timeout 30 "$FXT" stop -o t.fxt
	exec {W}>&-
	wait "$P"
	"$FXT" check t.fxt
	check t.fxt
}
