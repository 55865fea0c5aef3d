#!/usr/bin/env bats
# libfxtauto.so's environment options, one @test per option or error case, on the
# tests/progs programs. Paths come from ctest (tests/e2e.cmake): FXTAUTO (the library),
# FXT (the fxt command), FXT_CALLS (tests/e2e/fxt-calls), PROGS (the gcc-built programs),
# ORPHAN (tests/progs/lib-fork-orphan.c built).
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
	run --separate-stderr env FXT_OUTPUT=out.fxt "$@" LD_PRELOAD="$FXTAUTO" "$PROGS/s-exit" exit
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

@test "the program's descriptors keep their numbers: the tracer's (context switches too) sit above" {
	fds='import os; print([os.open("/dev/null", os.O_RDONLY) for _ in range(3)], sorted(int(f) for f in os.listdir("/proc/self/fd"))[:6])'
	plain=$(python3 -c "$fds")
	traced=$(FXT_OUTPUT=fd.fxt LD_PRELOAD="$FXTAUTO" python3 -c "$fds")
	[ "$plain" = "$traced" ]
	"$FXT" dump fd.fxt | grep -q ' context_switch '	# recorded by default, fds at 64 and up
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

@test "an archive is sized to its content: the string area's unused end leaves the file" {
	# (was: every archive kept the whole reserved string area, 2 MiB, as padding; an empty
	# run's collapse reached the end of the file, was refused, and kept it too)
	dirs=("$BATS_TEST_TMPDIR")
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		dirs+=("$(mktemp -d /dev/shm/fxt-bats.XXXXXX)")	# tmpfs: no collapse, a copy
	fi
	for d in "${dirs[@]}"; do
		FXT_OUTPUT=$d/empty.fxt traced /bin/true
		"$FXT" check -q "$d/empty.fxt"
		[ "$(stat -c %s "$d/empty.fxt")" -lt 65536 ]
		FXT_OUTPUT=$d/deep.fxt traced "$PROGS/s-deep" > /dev/null
		"$FXT" check -q "$d/deep.fxt"
		calls=$("$FXT_CALLS" -n "$d/deep.fxt")
		[ "$calls" -eq 100001 ]
		echo "$d: $(stat -c %s "$d/empty.fxt") and $(stat -c %s "$d/deep.fxt") bytes"
		[ "$(stat -c %s "$d/deep.fxt")" -lt $((calls * 24 + 131072)) ]
	done
	[ "${#dirs[@]}" -eq 1 ] || rm -rf "${dirs[1]}"
}

@test "a file size limit drops calls, counts them on stderr and in the archive, program runs on" {
	plain=$("$PROGS/s-deep")
	# 3 MiB (ulimit -f counts KiB; 2 MiB of it is the string area): the archive stops growing there; no SIGXFSZ for the program
	# (no context switches: the drops are then calls alone)
	run --separate-stderr bash -c 'ulimit -f 3072; exec env FXT_SCHED=0 FXT_OUTPUT=lim.fxt \
		LD_PRELOAD="$0" "$1"' "$FXTAUTO" "$PROGS/s-deep"
	[ "$status" -eq 0 ]
	[ "$output" = "$plain" ]
	[[ "$stderr" =~ ^fxtauto:\ ([0-9]+)\ records\ dropped\ \(file\ size\ limit\) ]]
	dropped=${BASH_REMATCH[1]}
	[ "$(stat -c %s lim.fxt)" -le $((3072 * 1024)) ]
	"$FXT" check lim.fxt
	"$FXT" dump lim.fxt | grep -q 'name="records dropped" .*"reason":string="file size limit"'
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

# bad_values: the NAME=VALUE lines of tests/unit/settings-bad.txt (the list the unit test checks
# against the table of common/options.c), @LONG4096 expanded.
bad_values() {
	local long
	long=$(printf 'a%.0s' $(seq 4096))
	grep -v '^#' "$BATS_TEST_DIRNAME/../unit/settings-bad.txt" | sed "s/@LONG4096\$/$long/"
}

@test "every bad value of every setting: one line naming it, tracing off, program unchanged" {
	while IFS= read -r line; do
		echo "$line" | cut -c1-80
		bad_setting "$line"
		[[ "$stderr" == "fxtauto: ${line:0:200}"*": expected "*"; tracing off" ]]
	done < <(bad_values)
}

@test "FXT_LOG=bogus: one line, tracing off (was: logging off silently)" {
	bad_setting FXT_LOG=bogus
	[ "$stderr" = "fxtauto: FXT_LOG=bogus: expected stderr, stdout, syslog (comma-separated) or none; tracing off" ]
}

@test "FXT_SAMPLE=0 is refused as fxtrun refuses --sample=0" {
	bad_setting FXT_SAMPLE=0
	[[ "$stderr" == "fxtauto: FXT_SAMPLE=0: expected a rate in Hz from 1 to 100000"* ]]
}

# names ARCHIVE: "COUNT NAME" of its complete events.
names() {
	"$FXT" dump "$1" | grep ' complete ' | grep -o ' name="[^"]*"' | sort | uniq -c |
		awk '{ print $1, $2 }'
}

@test "killed by a signal with a default action that ends it: archive with the open frames closed" {
	for sig in INT TERM HUP ALRM USR1 USR2 XCPU VTALRM PROF QUIT; do
		rm -f s.fxt out.txt
		# bats starts background jobs with SIGINT and SIGQUIT ignored: default them
		perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV' env FXT_OUTPUT=s.fxt \
			LD_PRELOAD="$FXTAUTO" "$PROGS/s-term" >out.txt &
		pid=$!
		for _ in $(seq 200); do grep -q ready out.txt && break; sleep 0.05; done
		kill -"$sig" "$pid"
		for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
		kill -KILL "$pid" 2>/dev/null || true	# still running after 10 s: fails below
		status=0
		wait "$pid" || status=$?
		echo "SIG$sig: status $status"
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]	# died of it, as it would have
		"$FXT" check -q s.fxt
		names s.fxt >n.txt
		grep -qx '1 name="main"' n.txt
		grep -qx '1 name="run_loop"' n.txt
	done
}

@test "SIGPIPE from a write to a closed pipe: archive written, the program dies of SIGPIPE" {
	run env FXT_OUTPUT=p.fxt LD_PRELOAD="$FXTAUTO" "$PROGS/s-term" pipe
	[ "$status" -eq 141 ]
	"$FXT" check -q p.fxt
	names p.fxt | grep -qx '1 name="main"'
}

@test "a program's own handlers: old disposition SIG_DFL, its handler runs, output unchanged" {
	plain=$("$PROGS/s-term" handler)
	run env FXT_OUTPUT=h.fxt LD_PRELOAD="$FXTAUTO" "$PROGS/s-term" handler
	[ "$status" -eq 0 ]
	[ "$output" = "$plain" ]
	[[ "$output" == *"SIGTERM old default"*"SIGTERM handled 15"*"SIGUSR1 handled 10"* ]]
	"$FXT" check -q h.fxt
}

@test "FXT_OUTPUT where the archive cannot be written: one line at start, tracing off" {
	local plain_out plain_status
	plain_out=$("$PROGS/s-exit" exit) || plain_status=$?
	touch notadir
	mkdir ro && chmod 0500 ro
	dirs=(notadir)
	[ "$(id -u)" -ne 0 ] && dirs+=(ro)	# root writes anywhere
	for d in "${dirs[@]}"; do
		run --separate-stderr env FXT_OUTPUT="$d/out.fxt" LD_PRELOAD="$FXTAUTO" \
			"$PROGS/s-exit" exit
		[ "$status" -eq "$plain_status" ]
		[ "$output" = "$plain_out" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *"tracing off"* ]]
		[ ! -e "$d/out.fxt" ] && [ ! -e "$d/out.fxt.part" ]
	done
}

# calls_of FILE: "N name" for each function of the archive (tests/e2e/fxt-calls).
calls_of() {
	"$FXT_CALLS" "$1" | awk -F'\t' '$1 == "call" { print $3, $4 }'
}

@test "exec of the same program: the old image's archive stays whole, the new one is FXT_OUTPUT.<pid>" {
	for how in execv execve execvp execl execle execlp fexecve execveat; do
		rm -f t.fxt*
		FXT_OUTPUT=t.fxt traced "$PROGS/s-exec" "$how"
		"$FXT" check -q t.fxt
		# main and do_exec were open at the exec: they end there
		[ "$(calls_of t.fxt | tr '\n' ,)" = "1 do_exec,1 main,3 old_work," ]
		new=$(ls t.fxt.* | grep -Ex 't\.fxt\.[0-9]+')
		"$FXT" check -q "$new"
		[ "$(calls_of "$new" | tr '\n' ,)" = "1 main,5 new_work," ]
		[ "$(ls | wc -l)" -eq 2 ]
	done
}

@test "a failed exec: the archive ends at it, tracing goes on in FXT_OUTPUT.<pid>.2 and so on" {
	FXT_OUTPUT=t.fxt traced "$PROGS/s-exec" execv fail
	pid=$(ls t.fxt.* | grep -Ex 't\.fxt\.[0-9]+' | cut -d. -f3)
	for f in t.fxt "t.fxt.$pid" "t.fxt.$pid.2"; do "$FXT" check -q "$f"; done
	[ "$(calls_of t.fxt | tr '\n' ,)" = "1 main,3 old_work," ]
	[ "$(calls_of "t.fxt.$pid" | tr '\n' ,)" = "2 after_fail,1 do_exec," ]
	[ "$(calls_of "t.fxt.$pid.2" | tr '\n' ,)" = "1 main,5 new_work," ]
}

@test "a wrapper that execs and records nothing leaves FXT_OUTPUT to the program: env, bash -c" {
	for wrap in env bash; do
		rm -f t.fxt*
		case "$wrap" in
		env) FXT_OUTPUT=t.fxt traced env "$PROGS/s-exec" second ;;
		bash) FXT_OUTPUT=t.fxt traced bash -c "$PROGS/s-exec second" ;;
		esac
		echo "$wrap: $(ls)"
		[ "$(ls)" = t.fxt ]
		"$FXT" check -q t.fxt
		[ "$(calls_of t.fxt | tr '\n' ,)" = "1 main,5 new_work," ]
	done
}

# The FXT_OUTPUT tree (preload/transport/outname.c). calls_are FILE LIST: the archive is valid and its
# calls are LIST ("N name," each).
calls_are() {
	"$FXT" check -q "$1"
	[ "$(calls_of "$1" | tr '\n' ,)" = "$2" ]
}

# gone PID: waits until the process PID has ended (it is not our child; bounded).
gone() {
	timeout 60 bash -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.02; done' "$1"
}

# filled FILE: waits until FILE holds a line (bounded).
filled() {
	timeout 60 bash -c 'until [ -s "$0" ]; do sleep 0.02; done' "$1"
}

@test "a wrapper that forks the one program that records leaves FXT_OUTPUT to it" {
	for wrap in timeout sh xargs nice; do
		rm -f t.fxt*
		case "$wrap" in
		timeout) FXT_OUTPUT=t.fxt traced timeout 10 "$PROGS/s-exec" second ;;
		sh) FXT_OUTPUT=t.fxt traced sh -c "$PROGS/s-exec second; true" ;;
		xargs) echo second | FXT_OUTPUT=t.fxt traced xargs -n1 "$PROGS/s-exec" ;;
		nice) FXT_OUTPUT=t.fxt traced sh -c "nice $PROGS/s-exec second; true" ;;
		esac
		echo "$wrap: $(ls)"
		[ "$(ls)" = t.fxt ]
		calls_are t.fxt "1 main,5 new_work,"
	done
}

@test "a wrapper's own context switches (FXT_SCHED=1) do not make it the one that recorded" {
	# sh waits for sleep and for the program: switched out, its switches in its buffer before
	# it ends; they are not calls or events of its own (as samples are not). sleep, which
	# records nothing either, keeps its own archive of switches as FXT_OUTPUT.<pid>.
	FXT_SCHED=1 FXT_OUTPUT=t.fxt traced sh -c "sleep 0.2; $PROGS/s-exec second; true" 2>err
	if grep -q "cannot record context switches" err; then skip "no perf_event_open here"; fi
	echo "$(ls)"
	calls_are t.fxt "1 main,5 new_work,"
	[ "$(ls t.fxt.* | wc -l)" -eq 1 ]
	"$FXT" dump t.fxt.* | grep -q 'kernel_object obj_type=1 .* name="sleep"'
}

@test "several programs record under one wrapper: each keeps FXT_OUTPUT.<pid>, none FXT_OUTPUT" {
	for wrap in sh xargs; do
		rm -f t.fxt*
		case "$wrap" in
		sh) FXT_OUTPUT=t.fxt traced sh -c "$PROGS/s-exec second; $PROGS/s-exec second; true" ;;
		xargs) printf 'second\nsecond\n' | FXT_OUTPUT=t.fxt traced xargs -n1 "$PROGS/s-exec" ;;
		esac
		echo "$wrap: $(ls)"
		[ "$(ls | wc -l)" -eq 2 ]
		[ "$(ls | grep -cEx 't\.fxt\.[0-9]+')" -eq 2 ]
		for f in t.fxt.*; do calls_are "$f" "1 main,5 new_work,"; done
	done
}

@test "a parent that records and forks keeps FXT_OUTPUT, its child writes FXT_OUTPUT.<pid>" {
	FXT_OUTPUT=t.fxt traced "$PROGS/s-fork"
	[ "$(ls | wc -l)" -eq 2 ]
	calls_are t.fxt "20 leaf,1 main,20 parent_work,1 spawn,"
	calls_are "$(ls | grep -Ex 't\.fxt\.[0-9]+')" "5 child_work,5 leaf,"
}

@test "a wrapper killed before its program ends leaves FXT_OUTPUT to the program" {
	# Not through traced: $! must be sh itself. (Through it, $! was the bash that runs the
	# function: the kill ended that bash, sh lived on and named the files at its own exit,
	# which raced the listing below once the program had ended: flaky under load.)
	FXT_OUTPUT=t.fxt LD_PRELOAD="$FXTAUTO" sh -c "$PROGS/s-wait go > pid; true" 3>&- &
	sh=$!
	filled pid
	kill -TERM "$sh"
	wait "$sh" || [ $? -eq 143 ]
	[ -z "$(pgrep -f "s-wait go > pid; true")" ]	# the wrapper is gone
	p=$(cat pid)
	# the wrapper's empty archive waits for the program, which is still running
	[ "$(ls | tr '\n' ' ')" = "pid t.fxt.$p.part t.fxt.part " ]
	touch go
	gone "$p"
	[ "$(ls | tr '\n' ' ')" = "go pid t.fxt " ]
	calls_are t.fxt "1 main,4 step,"
}

@test "a program still running when its wrapper exits takes FXT_OUTPUT when it ends" {
	FXT_OUTPUT=t.fxt traced sh -c "$PROGS/s-wait go > pid &" 3>&-
	filled pid
	p=$(cat pid)
	[ "$(ls | tr '\n' ' ')" = "pid t.fxt.$p.part t.fxt.part " ]
	touch go
	gone "$p"
	[ "$(ls | tr '\n' ' ')" = "go pid t.fxt " ]
	calls_are t.fxt "1 main,4 step,"
}

@test "a fork child whose parent ended and finished its archive first still copies its strings" {
	# (the parent's finish compacts its file, cutting the end of the string area the child's
	# handler reads; in the race, a child read past the file's new end: SIGBUS before it ran the
	# program, 5 of 300 runs of the test above beside load; here the finish comes first)
	FXT_OUTPUT=t.fxt LD_PRELOAD="$FXTAUTO:$ORPHAN" sh -c "$PROGS/s-wait go > pid &" 3>&-
	filled pid
	p=$(cat pid)
	touch go
	gone "$p"
	[ "$(ls | tr '\n' ' ')" = "go pid t.fxt " ]
	calls_are t.fxt "1 main,4 step,"
}

@test "a wrapper whose programs record nothing keeps FXT_OUTPUT (its own empty archive)" {
	FXT_OUTPUT=t.fxt traced sh -c "/bin/true; true"
	[ "$(ls | wc -l)" -eq 2 ]
	[ "$("$FXT" stats t.fxt | awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $NF }')" = sh ]
	calls_are t.fxt ""
}

@test "time -> timeout -> program: FXT_OUTPUT is the program's, no wrapper leaves a file" {
	# (was: timeout, started by time, left its empty archive as FXT_OUTPUT.<pid of timeout>)
	FXT_OUTPUT=t.fxt traced /usr/bin/time -o /dev/null timeout 10 "$PROGS/s-exec" second
	echo "$(ls)"
	[ "$(ls)" = t.fxt ]
	calls_are t.fxt "1 main,5 new_work,"
}

@test "with FXT_SCHED=1 a wrapper inside the tree still leaves no file (its switches are waiting)" {
	FXT_SCHED=1 FXT_OUTPUT=t.fxt traced /usr/bin/time -o /dev/null timeout 10 \
		"$PROGS/s-exec" second 2>err
	if grep -q "cannot record context switches" err; then skip "no perf_event_open here"; fi
	echo "$(ls)"
	[ "$(ls | tr '\n' ' ')" = "err t.fxt " ]
	calls_are t.fxt "1 main,5 new_work,"
}

@test "two nested wrappers and a shell: FXT_OUTPUT is the program's alone" {
	# (was: each wrapper inside the tree left its empty archive as FXT_OUTPUT.<pid>)
	for chain in timeout-timeout-sh sh-timeout time-timeout-sh; do
		rm -f t.fxt*
		case "$chain" in
		timeout-timeout-sh) FXT_OUTPUT=t.fxt traced timeout 10 timeout 10 \
			sh -c "$PROGS/s-exec second; true" ;;
		sh-timeout) FXT_OUTPUT=t.fxt traced sh -c "timeout 10 $PROGS/s-exec second; true" ;;
		time-timeout-sh) FXT_OUTPUT=t.fxt traced /usr/bin/time -o /dev/null timeout 10 \
			sh -c "(true; $PROGS/s-exec second); true" ;;
		esac
		echo "$chain: $(ls)"
		[ "$(ls)" = t.fxt ]
		calls_are t.fxt "1 main,5 new_work,"
	done
}

@test "a shell's subshell that holds nothing leaves no file (one that was switched out keeps its switches)" {
	# (was: the subshell that runs `echo` in a pipeline left its empty archive as
	# FXT_OUTPUT.<pid>). FXT_SCHED=0: with context switches, the subshell's are kept, as a
	# forked worker's are (sched.bats).
	for chain in sh-pipe bash-pipe; do
		rm -f t.fxt*
		case "$chain" in
		sh-pipe) FXT_SCHED=0 FXT_OUTPUT=t.fxt traced sh -c "echo x | $PROGS/s-exec second; true" ;;
		bash-pipe) FXT_SCHED=0 FXT_OUTPUT=t.fxt traced timeout 10 \
			bash -c "echo x | $PROGS/s-exec second; true" ;;
		esac
		echo "$chain: $(ls)"
		[ "$(ls)" = t.fxt ]
		calls_are t.fxt "1 main,5 new_work,"
	done
}

@test "a wrapper inside the tree that starts its program with posix_spawn leaves no file" {
	# python3 (uninstrumented) under timeout: its program joins the tree by itself and marks
	# python3 a wrapper (preload/transport/outname.c), since no fork wrapper of ours saw it start
	FXT_OUTPUT=t.fxt traced timeout 10 /usr/bin/python3 -c 'import os, sys
os.waitpid(os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ), 0)' "$PROGS/s-exec" second
	echo "$(ls)"
	[ "$(ls)" = t.fxt ]
	calls_are t.fxt "1 main,5 new_work,"
}

@test "a relative FXT_OUTPUT is the first process's: a program that changes directory writes beside it" {
	# (was: the program resolved t.fxt in sub/, wrote sub/t.fxt.<pid>, never joined the tree,
	# and the wrapper's t.fxt.part waited for it forever)
	mkdir sub
	FXT_OUTPUT=t.fxt traced sh -c "cd sub && $PROGS/s-exec second; true"
	echo "$(ls -R)"
	[ "$(ls | tr '\n' ' ')" = "sub t.fxt " ]
	[ -z "$(ls sub)" ]
	calls_are t.fxt "1 main,5 new_work,"
}

# files_are NAME...: the working directory holds exactly these files (any order).
files_are() {
	[ "$(ls | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]
}

# report_calls FILE: "N name," for each function of a recovered archive, from fxt report
# (fxt-calls refuses an archive that reports dropped records, as a killed run's does).
report_calls() {
	"$FXT" check -q "$1" >&2
	"$FXT" report "$1" |
		awk '/^== functions/ { f = 1; next } /^==/ { f = 0 }
		     f && $1 ~ /^[0-9]+$/ && $NF !~ /^\[/ { printf "%s %s,", $1, $NF }'	# not [blocked]...
}

# killed_under_timeout: runs time -> timeout -s KILL 60 -> s-wait (FXT_OUTPUT=t.fxt) and, once
# s-wait printed its pid (to ./pid), fires timeout's timer (SIGALRM), which kills its process
# group (timeout and s-wait) while s-wait waits; time ends normally. Sets p (s-wait), t
# (timeout), r (time: the root).
killed_under_timeout() {
	FXT_OUTPUT=t.fxt traced /usr/bin/time -o /dev/null timeout -s KILL 60 "$PROGS/s-wait" go \
		>pid 3>&- &
	local job=$!
	filled pid
	p=$(cat pid)
	t=$(ps -o ppid= -p "$p" | tr -d ' ')
	r=$(ps -o ppid= -p "$t" | tr -d ' ')
	kill -ALRM "$t"
	wait "$job" || true
	files_are pid t.fxt.part "t.fxt.$t.part" "t.fxt.$p.part"
}

@test "SIGKILL under timeout: fxt recover on the placeholder makes the program's archive FXT_OUTPUT" {
	# (was: "not the file of a standalone fxtauto run"; the program's archive stayed aside)
	killed_under_timeout
	run "$FXT" recover t.fxt.part
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "fxt recover: t.fxt.$p.part: "*" chunks, "*" MB; written to t.fxt" ]]
	[ "${lines[1]}" = "fxt recover: t.fxt.$t.part: the archive of process $t, a wrapper that recorded no calls or events: removed" ]
	[ "${lines[2]}" = "fxt recover: t.fxt.part: the archive of process $r, a wrapper that recorded no calls or events: removed" ]
	files_are pid t.fxt
	[ "$(report_calls t.fxt)" = "2 step," ]	# main was open at the kill
}

@test "SIGKILL under timeout: fxt recover on the program's own .part as before, then on the placeholder" {
	killed_under_timeout
	run "$FXT" recover "t.fxt.$p.part"
	[ "$status" -eq 0 ]
	[[ "$output" == "fxt recover: t.fxt.$p.part: "*" chunks, "*" MB; written to t.fxt.$p" ]]
	files_are pid t.fxt.part "t.fxt.$t.part" "t.fxt.$p"
	[ "$(report_calls "t.fxt.$p")" = "2 step," ]
	run "$FXT" recover t.fxt.part
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fxt recover: t.fxt.$p: finished already; written to t.fxt" ]
	[ "${#lines[@]}" -eq 3 ]
	files_are pid t.fxt
	[ "$(report_calls t.fxt)" = "2 step," ]
}

@test "the wrapper SIGKILLed, its program still running: fxt recover waits for it, then renames" {
	# (not through traced: $! must be sh itself)
	FXT_OUTPUT=t.fxt LD_PRELOAD="$FXTAUTO" sh -c "$PROGS/s-wait go > pid; true" 3>&- &
	sh=$!
	filled pid
	kill -KILL "$sh"
	wait "$sh" || true
	p=$(cat pid)
	run "$FXT" recover t.fxt.part
	[ "$status" -eq 2 ]
	[ "$output" = "fxt recover: t.fxt.$p.part: still being written by a live process ($p): recover t.fxt.part once it ends" ]
	files_are pid t.fxt.part "t.fxt.$p.part"
	touch go
	gone "$p"
	run "$FXT" recover t.fxt.part
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "fxt recover: t.fxt.$p: finished already; written to t.fxt
fxt recover: t.fxt.part: the archive of process $sh, a wrapper that recorded no calls or events: removed" ]
	files_are go pid t.fxt
	calls_are t.fxt "1 main,4 step,"
}

@test "a program that drops the tracer leaves the tree waiting: fxt recover on the placeholder ends it" {
	# `env -u LD_PRELOAD true` runs untraced: counted when sh forked it, it never ends in the
	# tree, so the placeholder waits for it and the program keeps FXT_OUTPUT.<pid>
	FXT_OUTPUT=t.fxt traced sh -c "env -u LD_PRELOAD true; $PROGS/s-exec second > /dev/null; true"
	echo "$(ls)"
	[ "$(ls | wc -l)" -eq 2 ]
	p=$(ls | grep -Ex 't\.fxt\.[0-9]+' | cut -d. -f3)
	files_are t.fxt.part "t.fxt.$p"
	run "$FXT" recover t.fxt.part
	[ "$status" -eq 0 ]
	files_are t.fxt
	calls_are t.fxt "1 main,5 new_work,"
}

@test "SIGKILL before the string area was written (no chunk taken): fxt recover makes it valid" {
	# (was: "not the file of a standalone fxtauto run": the file is shorter than its string
	# area, which grows as it is used). cat opens the fifo in main, after the constructor;
	# FXT_SCHED=0: no chunk of context switches either.
	mkfifo f
	FXT_SCHED=0 FXT_OUTPUT=c.fxt LD_PRELOAD="$FXTAUTO" cat f 3>&- &
	pid=$!
	exec 4>f
	kill -KILL "$pid"
	wait "$pid" || true
	exec 4>&-
	[ "$(stat -c %s c.fxt.part)" -lt 1000000 ]
	run "$FXT" recover c.fxt.part
	[ "$status" -eq 0 ]
	[[ "$output" == "fxt recover: c.fxt.part: 0 chunks, "*"; written to c.fxt" ]]
	files_are c.fxt f
	"$FXT" check -q c.fxt
	"$FXT" dump c.fxt | grep -q 'kernel_object obj_type=1 .* name="cat"'
}

# scribble size|type FILE OFFSET...: the record headers at those (hex) offsets of FILE get a
# size of 2 words (a complete event loses its end timestamp) or the reserved record type 12
scribble() {
	python3 - "$@" <<'PY'
import struct, sys
mode, path, offs = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(path, "r+b") as f:
    for off in offs:
        f.seek(int(off, 16))
        w = struct.unpack("<Q", f.read(8))[0]
        w = (w & ~0xF) | 12 if mode == "type" else (w & ~(0xFFF << 4)) | (2 << 4)
        f.seek(int(off, 16))
        f.write(struct.pack("<Q", w))
PY
}

@test "fxt recover checks what it writes: records fxt check rejects are padded out, and said" {
	# (was: "written" for archives fxt check rejects)
	FXT_SCHED=0 FXT_OUTPUT=r.fxt LD_PRELOAD="$FXTAUTO" "$PROGS/s-deep" >/dev/null
	mapfile -t at < <("$FXT" dump r.fxt | awk '/ complete .*name="recurse"/ { print $1 }')
	cp r.fxt s.fxt
	# sizes cut short: the rest of that chunk cannot be trusted, it goes
	scribble size r.fxt "${at[1000]}" "${at[1001]}"
	run "$FXT" check -q r.fxt
	[ "$status" -eq 1 ]
	run "$FXT" recover r.fxt -o rr.fxt
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "fxt recover: r.fxt: offset $((16#${at[1000]})) (0x"*"): complete event without its end timestamp: "*" bytes in 1 place replaced by padding" ]]
	"$FXT" check -q rr.fxt
	# a reserved record type: that record goes, the chunk's end too
	scribble type s.fxt "${at[1000]}"
	run "$FXT" recover s.fxt -o ss.fxt
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *": record type 12 is reserved: "*" bytes in 1 place replaced by padding" ]]
	"$FXT" check -q ss.fxt
}

@test "a stray FXT_SESSION (not fxtrun's session): one line, untraced, no buffer file left there" {
	# (was: no trace, no message, and a 64 MB PID.0.buf in the directory)
	mkdir -m 1777 shared
	mkdir -m 700 mine
	run --separate-stderr env FXT_SESSION="$PWD/shared" LD_PRELOAD="$FXTAUTO" "$PROGS/s-deep"
	[ "$status" -eq 0 ]
	[ "$stderr" = "fxtauto: FXT_SESSION=$PWD/shared: not an fxtrun session (a session directory is ours, mode 0700); tracing off" ]
	run --separate-stderr env FXT_SESSION="$PWD/mine" LD_PRELOAD="$FXTAUTO" "$PROGS/s-deep"
	[ "$stderr" = "fxtauto: FXT_SESSION=$PWD/mine: not an fxtrun session (no manager socket: set by fxtrun only); tracing off" ]
	[ -z "$(ls -A shared)$(ls -A mine)" ]
}
