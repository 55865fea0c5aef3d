#!/usr/bin/env bats
# What a daemon and a resource limit do to a trace (issue 23): a program that closes every
# descriptor or dup2()s over them at start keeps its whole trace (preload/base/fd.c keeps the
# tracer's), under fxtrun and under LD_PRELOAD alone; a file size limit (ulimit -f) kills
# neither fxtrun nor the program (LD_PRELOAD alone: preload.bats); a descriptor limit below the
# tracer's 64 still traces every process. Paths from ctest (tests/record.cmake):
# FXT, FXTRUN, FXTAUTO, RPROGS (tests/progs/r-*).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load recording

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# daemon MODE: r-daemon MODE 300000 (about 7 MB of records) under fxtrun with a 1 MB buffer
# (saved many times over the session socket) and under LD_PRELOAD alone: every call is in both
# archives, none dropped.
daemon() {
	run --separate-stderr timeout 120 "$FXTRUN" --buffer-size 1M -o f.fxt \
		"$RPROGS/r-daemon" "$1" 300000
	[ "$status" -eq 0 ]
	no_call_dropped "$stderr"
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

@test "ulimit -f under fxtrun: the program runs to its end with its status, nothing left behind" {
	# about 48 MB of records through a 20 MB file size limit: before, fxtrun and the program
	# died of SIGXFSZ (status 153) and a 20 MB temporary t.fxt.PID.tmp stayed (now t.fxt.part)
	run --separate-stderr bash -c 'ulimit -f 20000; exec timeout 120 "$0" --buffer-size 4M \
		-o t.fxt sh -c "\"\$0\" closefrom 2000000; exit 7" "$1"' "$FXTRUN" "$RPROGS/r-daemon"
	[ "$status" -eq 7 ]
	[ "$stderr" = "fxtrun: cannot write t.fxt: the file size limit (ulimit -f) was reached; nothing written" ]
	[ -z "$(ls -d t.fxt* 2>/dev/null)" ]
}

@test "ulimit -n 16: every process of a forking program is traced, and the low descriptors said" {
	# before: "cannot start tracing ... Invalid argument" and not one process traced (the
	# tracer insisted on descriptors >= 64)
	run --separate-stderr timeout 120 "$FXTRUN" -o n.fxt sh -c 'ulimit -n 16; exec "$0" 20000' \
		"$RPROGS/r-forks"
	[ "$status" -eq 0 ]
	[ "$output" = "busy 240000 work 240000" ]
	[[ "$stderr" == *"fxtauto: RLIMIT_NOFILE is 16, below 64: the tracer's descriptors take the lowest free numbers"* ]]
	[[ "$stderr" == *" 13 processes, "* ]]
	no_call_dropped "$stderr"
	"$FXT" check -q n.fxt
	[ "$(calls n.fxt work)" -eq 240000 ]
	[ "$(calls n.fxt busy)" -eq 240000 ]
	run --separate-stderr timeout 120 env FXT_OUTPUT=p.fxt LD_PRELOAD="$FXTAUTO" sh -c \
		'ulimit -n 16; exec "$0" 20000' "$RPROGS/r-forks"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"RLIMIT_NOFILE is 16, below 64"* ]]
	[ -z "$(ls -d p.fxt*.part 2>/dev/null)" ]
	work=0
	for f in p.fxt*; do
		"$FXT" check -q "$f"
		work=$((work + $(calls "$f" work)))
	done
	[ "$work" -eq 240000 ]
}

@test "an exec without LD_PRELOAD: counted and named in the summary; a failed one is not" {
	# (was: the summary silent on the exec; a process without a buffer: completeness.bats)
	run --separate-stderr timeout 60 "$FXTRUN" -o s.fxt env -u LD_PRELOAD "$RPROGS/r-daemon" close 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *", 1 process NOT TRACED after an exec without LD_PRELOAD (first: pid "[0-9]*", $RPROGS/r-daemon)."* ]]
	"$FXT" check s.fxt
	"$FXT" dump s.fxt | grep -F "name=\"process not traced\" args{\"reason\":string=\"it exec'd $RPROGS/r-daemon without LD_PRELOAD\"}"
	"$FXT" dump s.fxt | grep -E 'provider_info provider=[0-9]+ name="fxtrun"'
	"$FXT" report s.fxt | grep -Fx "note: 1 process ran untraced (fxt dump shows which and why): the figures miss its calls"
	# an exec that fails takes its note back
	run --separate-stderr timeout 60 "$FXTRUN" -o f.fxt sh -c 'env -u LD_PRELOAD ./nothere; true'
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"NOT TRACED"* ]]
}
