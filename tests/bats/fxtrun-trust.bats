#!/usr/bin/env bats
# fxtrun against untrusted providers and peers (issue 17): a program that scribbles over its own
# trace buffer, a process that forges a provider's STARTED, a killed fxtrun. Paths from ctest
# (tests/record.cmake): FXT, FXTRUN, RPROGS (tests/progs/r-*).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load recording

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
	fxtrun_pid=
}

teardown() {
	# a test that failed half-way leaves no fxtrun (nor r-count) running
	if [ -n "$fxtrun_pid" ] && kill -0 "$fxtrun_pid" 2>/dev/null; then
		kill -TERM "$fxtrun_pid"
		sleep 1
		kill -KILL "$fxtrun_pid" 2>/dev/null || true
	fi
	true
}

# scribbled MODE: r-scribble MODE under fxtrun; its healthy child keeps every call, the archive
# is valid, the summary, the archive and the report name the scribbler (whether the manager read
# its header before the scribbling or not: a busy machine decides). Without context switches: the
# scribbler aims at the one chunk writer it knows (the switch reader's chunk moves it).
scribbled() {
	run --separate-stderr timeout 60 "$FXTRUN" --sched=0 -o s.fxt "$RPROGS/r-scribble" "$1"
	echo "fxtrun said: $stderr"	# shown if an assertion below fails
	[ "$status" -eq 3 ]	# as untraced
	"$FXT" check -q s.fxt
	[ "$(calls s.fxt child_call)" -eq 1000 ]
	[[ "$stderr" == *"1 provider wrote corrupt data"* ]]
	pid=$(grep -o 'corrupt data.*(pid [0-9]*' <<<"$stderr" | grep -o '[0-9]*$')
	"$FXT" dump s.fxt | grep -q "thread=$pid/$pid cat=\"fxtauto\" name=\"provider data corrupt\""
	"$FXT" report s.fxt | grep -q "^note: 1 process wrote over its own trace data"
}

@test "scribbled records: that provider ends at its last good record, the others are whole" {
	scribbled records
	[[ "$stderr" == *"(pid $pid: offset "* ]]	# where in the archive it ended
}

@test "a record header running past its chunk: the provider's data ends there" {
	scribbled tail
}

@test "a scribbled buffer header: no huge allocation, the archive is written and valid" {
	scribbled header
	[[ "$stderr" == *"buffer header overwritten"* ]]
}

@test "a scribbled drop counter: no absurd count printed; the provider is said corrupt" {
	# (was: "8836607885637849086 records DROPPED")
	scribbled counters
	[[ "$stderr" == *"buffer header overwritten (drop count)"* ]]
	[[ "$stderr" != *"DROPPED"* ]]
}

@test "STARTED for another process's pid is refused (SO_PEERCRED); that provider is whole" {
	cat >forge.py <<'PY'
import os, socket, struct, sys, time
pid = int(sys.argv[1])
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.environ["FXT_SESSION"] + "/manager.sock")
s.send(struct.pack("<HHIQ", 1, 0, 1, pid))	# STARTED, version 1, buffer <pid>.0
s.settimeout(10)
print("forger got %d bytes" % len(s.recv(16)))	# 0: the manager closed its side
PY
	run --separate-stderr timeout 120 "$FXTRUN" --buffer-size 1M -o f.fxt sh -c \
		'"$0" 40000 >/dev/null & sleep 0.3; python3 forge.py $!; wait $!' "$RPROGS/r-count"
	[ "$status" -eq 0 ]
	[ "$output" = "forger got 0 bytes" ]
	[[ "$stderr" == *"1 connection refused (STARTED for another process)"* ]]
	no_call_dropped "$stderr"
	"$FXT" check -q f.fxt
	[ "$(calls f.fxt work)" -eq 40000 ]
}

# session_of PID: the session directory in the environment of process PID.
session_of() {
	tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^FXT_SESSION=//p'
}

# gone PID: no such process, or a zombie nobody reaps (this machine's init may not).
gone() {
	[ ! -e "/proc/$1/stat" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}

# start_counting NAME: fxtrun -o NAME.fxt r-count (forever) in the background; sets fxtrun_pid,
# prog_pid and session once the program has made its first 1000 calls.
start_counting() {
	"$FXTRUN" -o "$1.fxt" "$RPROGS/r-count" >"$1.out" 2>"$1.err" 3>&- &
	fxtrun_pid=$!
	for _ in $(seq 200); do
		grep -q "calls done" "$1.out" 2>/dev/null && break
		sleep 0.1
	done
	prog_pid=$(ps --ppid "$fxtrun_pid" -o pid= | tr -d ' ')
	session=$(session_of "$prog_pid")
	[ -n "$prog_pid" ] && [ -d "$session" ]
}

# kill_manager: SIGKILLs the fxtrun start_counting started; its program dies with it (10 s).
kill_manager() {
	kill -KILL "$fxtrun_pid"
	for _ in $(seq 100); do
		gone "$prog_pid" && break
		sleep 0.1
	done
	gone "$prog_pid"
}

@test "fxtrun SIGKILLed: the program dies with it; fxt clean removes the stale session only" {
	start_counting live			# a live session next to the stale one
	live_fxtrun=$fxtrun_pid live_session=$session
	start_counting killed
	kill_manager
	fxtrun_pid=$live_fxtrun
	# A killed manager leaves its session and temporary archive; an fxtrun that another test
	# starts meanwhile removes them first (the next fxtrun's cleanup, tested below): then
	# they are gone already, and fxt clean has nothing of this test's to remove.
	if [ -d "$session" ]; then
		ls killed.fxt.part
		run "$FXT" clean
		[ "$status" -eq 0 ]
		[[ "$output" == *"removed $session"* ]]
	else
		run "$FXT" clean
		[ "$status" -eq 0 ]
	fi
	[ ! -e "$session" ]
	[ ! -e killed.fxt.part ]		# that very file went with it
	[ -d "$live_session" ]			# never a live one
	ls live.fxt.part			# nor its archive
	kill -TERM "$fxtrun_pid"		# (a background job ignores SIGINT)
	wait "$fxtrun_pid" || true
	"$FXT" check -q live.fxt
	[ ! -e "$live_session" ]
}

@test "fxt clean removes a session whose identity file its manager never wrote, once a minute old" {
	d=$(mktemp -d /dev/shm/fxtrun.XXXXXX)
	: >"$d/manager.pid"			# a manager killed between creating and writing it
	run "$FXT" clean
	[ -d "$d" ]				# being created, maybe: left alone
	touch -d '2 minutes ago' "$d/manager.pid"
	run "$FXT" clean
	[[ "$output" == *"removed $d"* ]]
	[ ! -e "$d" ]
}

@test "the next fxtrun removes sessions whose manager is dead" {
	start_counting killed
	kill_manager
	# (any fxtrun of this user cleans: under a parallel ctest another test's may come first)
	"$FXTRUN" -o next.fxt "$RPROGS/r-leaf" 2>/dev/null
	[ ! -e "$session" ]
}

# killed_after_create NAME: fxtrun -o NAME SIGKILLed (strace -e inject) on its first fstat of
# NAME.part, the system call right after it created that file: before it could note the file's
# device and inode in its session (a window soak.sh hit about once in 100 runs).
killed_after_create() {
	run timeout 60 strace -f -qq -o "$1.strace" -P "$1.part" -P "$PWD/$1.part" \
		-e inject=%fstat:signal=KILL:when=1 "$FXTRUN" -o "$1" "$RPROGS/r-leaf"
	cat "$1.strace"			# shown if an assertion below fails
	[ "$status" -eq 137 ]
	grep -q "openat(.*\"$1.part\", O_RDWR|O_CREAT|O_EXCL.* = [0-9]" "$1.strace"
	grep -q "+++ killed by SIGKILL +++" "$1.strace"
}

@test "fxtrun SIGKILLed right after creating its temporary archive: fxt clean removes that file, never one put at its name" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	killed_after_create k1.fxt
	"$FXT" clean
	[ -z "$(ls k1.fxt*.part 2>/dev/null)" ]	# (was: k1.fxt.part left behind, for ever)
	# Then its file is replaced (rm -f: any other fxtrun starting meanwhile, another test's,
	# cleans dead sessions too and may have removed it already; a replacement must outlive
	# every cleanup, ours or theirs):
	echo victim >victim
	killed_after_create k2.fxt		# by a link
	rm -f k2.fxt.part
	ln -s victim k2.fxt.part
	killed_after_create k3.fxt		# by a file with another name too
	rm -f k3.fxt.part
	echo other >other
	ln other k3.fxt.part
	"$FXT" clean
	[ -L k2.fxt.part ] && [ "$(cat victim)" = victim ]
	[ -e k3.fxt.part ] && [ -e other ]
	if [ "$(id -u)" -eq 0 ]; then
		killed_after_create k4.fxt	# by a file of another user
		rm -f k4.fxt.part
		echo theirs >k4.fxt.part
		chown nobody k4.fxt.part
		"$FXT" clean
		[ -e k4.fxt.part ]
	fi
}

@test "fxtrun -o ./app args (archive name forgotten): refused in one line, exit 2, app intact" {
	cp "$RPROGS/r-leaf" app
	run --separate-stderr "$FXTRUN" -o ./app ./app
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"-o ./app: is an executable file"* ]]
	cmp app "$RPROGS/r-leaf"
}
