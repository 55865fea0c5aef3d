#!/usr/bin/env bats
# What a daemon and a resource limit do to a trace (issue 23): a program that closes every
# descriptor or dup2()s over them at start keeps its whole trace (preload/fd.c keeps the
# tracer's), under fxtrun and under LD_PRELOAD alone. Paths from ctest (tests/record.cmake):
# FXT, FXTRUN, FXTAUTO, RPROGS (tests/progs/r-*).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# calls ARCHIVE FUNCTION: duration complete events named FUNCTION, over all providers.
calls() {
	"$FXT" dump "$1" | grep -c "^[0-9a-f]* complete .* name=\"$2\" " || true
}

# daemon MODE: r-daemon MODE 300000 (about 7 MB of records) under fxtrun with a 1 MB buffer
# (saved many times over the session socket) and under LD_PRELOAD alone: every call is in both
# archives, none dropped.
daemon() {
	run --separate-stderr timeout 120 "$FXTRUN" --buffer-size 1M -o f.fxt \
		"$RPROGS/r-daemon" "$1" 300000
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"no records dropped"* ]]
	"$FXT" check -q f.fxt
	[ "$(calls f.fxt work)" -eq 300000 ]
	run --separate-stderr timeout 120 env FXT_OUTPUT=p.fxt LD_PRELOAD="$FXTAUTO" \
		"$RPROGS/r-daemon" "$1" 300000
	[ "$status" -eq 0 ]
	"$FXT" check -q p.fxt
	[ "$(calls p.fxt work)" -eq 300000 ]
}

@test "a daemon closing every descriptor (close of each): its trace is whole" {
	daemon close
}

@test "a daemon dup2()ing /dev/null over every descriptor: its trace is whole" {
	daemon dup2
}

@test "a daemon calling close_range(3, ~0U) or closefrom(3): its trace is whole" {
	daemon close_range
	daemon closefrom
}
