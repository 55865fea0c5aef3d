#!/usr/bin/env bats
# The manager service end to end with real providers: `fxt manager` (launcher/service*.c) and
# programs started with FXT_REGISTER=1 LD_PRELOAD=libfxtauto.so (preload/transport/manager-link.c) or with
# `fxtrun --start-stopped`, controlled by `fxt list|record|start|stop|snapshot`. The program is
# g-reg (tests/progs/g-reg.c), told what to call line by line through a FIFO; every count is
# read back from the archive with `fxt dump`, exact.
# Environment: LIB (libfxtauto.so), FXT, FXTRUN, PROG (g-reg).
# SPDX-License-Identifier: MIT

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -m 700 rt
	export FXT_RUNTIME_DIR=$BATS_TEST_TMPDIR/rt
	timeout 10 "$FXT" manager
}

# The programs end, then the manager (SIGTERM: a running trace is finished first; bounded), and
# the sessions of managers killed here (the test that SIGKILLs one) are removed.
teardown() {
	for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null || true; done
	local m
	m=$(cut -d' ' -f1 rt/manager.pid 2>/dev/null) || m=
	if [ -n "$m" ] && kill -TERM "$m" 2>/dev/null; then
		timeout 10 bash -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.05; done' "$m" ||
			kill -KILL "$m" 2>/dev/null
	fi
	"$FXT" clean >/dev/null 2>&1 || true
}

# spawn N [launcher...]: starts g-reg number N registered, reading in.N and answering on out.N
# (this shell's ends: fds W[N] and R[N], numbered by bash); its pid in pid.N.
spawn() {
	local n=$1
	shift
	mkfifo "in.$n" "out.$n"
	if [ $# -gt 0 ]; then
		"$@" "$PROG" <"in.$n" >"out.$n" 2>"err.$n" &
	else
		FXT_REGISTER=1 LD_PRELOAD=$LIB "$PROG" <"in.$n" >"out.$n" 2>"err.$n" &
	fi
	echo $! >"pid.$n"
	exec {w}>"in.$n" {r}<"out.$n"
	W[$n]=$w
	R[$n]=$r
}

# say N LINE: sends LINE to g-reg N and prints its answer (10 s at most).
say() {
	local n=$1 answer
	shift
	echo "$*" >&"${W[$n]}"
	read -r -t 10 answer <&"${R[$n]}" || answer=timeout
	echo "$answer"
}

# state PID: the program's state in `fxt list` ("" when not listed).
state() {
	"$FXT" list | awk -v p="$1" '$1 == p { print $3 }'
}

# wait_state PID STATE: until `fxt list` shows it (10 s at most).
wait_state() {
	for _ in $(seq 200); do
		[ "$(state "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	echo "pid $1 never $2: $("$FXT" list)" >&2
	return 1
}

# kill_manager: SIGKILLs the manager and waits until it has exited (its files closed: a zombie
# or gone; 10 s at most).
kill_manager() {
	local m
	m=$(cut -d' ' -f1 rt/manager.pid)
	kill -KILL "$m"
	for _ in $(seq 200); do
		grep -q '^State:[[:space:]]*[ZX]' "/proc/$m/status" 2>/dev/null || [ ! -e "/proc/$m" ] &&
			return 0
		sleep 0.05
	done
	return 1
}

# calls NAME FILE [PID]: complete events of function NAME (of process PID) in FILE.
calls() {
	"$FXT" dump "$2" | grep " name=\"$1\" end_ts=" | grep -c "thread=${3:-[0-9]*}/" || true
}

@test "a registered program is listed idle; start, stop: exactly the calls in between" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	[ "$(say 1 call 100)" = "called 100" ]
	"$FXT" start --pid "$p"
	[ "$(say 1 on)" = on ]
	[ "$(state "$p")" = recording ]
	[ "$(say 1 call 1000)" = "called 1000" ]
	"$FXT" stop -o t.fxt
	[ "$(say 1 off)" = off ]
	[ "$(say 1 call 100)" = "called 100" ]
	"$FXT" check t.fxt
	[ "$(calls work t.fxt)" -eq 1000 ]
	wait_state "$p" idle
	echo "quit 4" >&"${W[1]}"
	st=0
	wait "$p" || st=$?
	[ "$st" -eq 4 ]
}

@test "record --duration 1s: a valid archive of that second only, then idle again" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	[ "$(say 1 pace)" = "started 1" ]	# work() once a millisecond
	run timeout 30 "$FXT" record --duration 1s -o t.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 process"* ]]
	"$FXT" check t.fxt
	# about a second of calls, not the program's life before or after (a loaded machine
	# sleeps longer than asked: bounds only). The provider records from its START on, before
	# the start's barrier returns: the window is the start's time plus the recorded time, and
	# work() comes at most once a millisecond in it.
	n=$(calls work t.fxt)
	start_ms=$(sed -n 's/.*recording (in \([0-9]*\) ms).*/\1/p' <<<"$output")
	rec_ms=$(sed -n 's/.*recorded \([0-9.]*\) s:.*/\1/p' <<<"$output" | awk '{ print int($1 * 1000) }')
	echo "$n calls in $start_ms + $rec_ms ms"
	[ "$n" -gt 100 ] && [ "$n" -le $((start_ms + rec_ms + 20)) ]
	span=$("$FXT" stats t.fxt | awk '/^time span:/ {
		print $3 * ($4 == "s" ? 1000 : $4 == "us" ? 0.001 : $4 == "ns" ? 1e-6 : 1) }')
	echo "span $span ms"
	awk -v s="$span" 'BEGIN { exit !(s > 500 && s < 1600) }'
	wait_state "$p" idle
	sleep 0.5
	[ "$(say 1 halt)" = "halted busy" ]
}

@test "two programs in one archive as two providers; one registering mid-trace is traced" {
	spawn 1
	spawn 2
	p1=$(cat pid.1) p2=$(cat pid.2)
	wait_state "$p1" idle
	wait_state "$p2" idle
	"$FXT" start
	[ "$(say 1 on)" = on ]
	[ "$(say 2 on)" = on ]
	spawn 3
	p3=$(cat pid.3)
	[ "$(say 3 on)" = on ]
	[ "$(say 1 call 300)" = "called 300" ]
	[ "$(say 2 call 700)" = "called 700" ]
	[ "$(say 3 call 50)" = "called 50" ]
	"$FXT" stop -o t.fxt
	"$FXT" check t.fxt
	[ "$(calls work t.fxt "$p1")" -eq 300 ]
	[ "$(calls work t.fxt "$p2")" -eq 700 ]
	[ "$(calls work t.fxt "$p3")" -eq 50 ]
	[ "$(calls work t.fxt)" -eq 1050 ]
}

@test "a start matching no program is refused, nothing left running; a second trace is refused; --name chooses" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	run "$FXT" start --name nobody-here
	[ "$status" -eq 1 ]
	[ "$output" = "fxt start: no registered program matches (--name nobody-here): no trace started (fxt list shows them)" ]
	run "$FXT" start --pid 999999 -o x.fxt
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e x.fxt ] && [ ! -e x.fxt.part ]
	! "$FXT" list | grep -q "^trace" || false
	"$FXT" start --name g-reg
	[ "$(state "$p")" = recording ]	# the start is a barrier: no waiting
	run "$FXT" start
	[ "$status" -ne 0 ]
	[[ "$output" == *"running"* ]]
	"$FXT" stop -o t.fxt
	"$FXT" check t.fxt
}

@test "flight recorder: a snapshot of a wrapped circular buffer holds the last calls; the trace goes on" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --mode circular --buffer-size 1M --pid "$p"
	[ "$(say 1 on)" = on ]
	[ "$(say 1 call 300000)" = "called 300000" ]
	[ "$(say 1 tsnap)" = "t_snap" ]	# the last call before the snapshot
	"$FXT" snapshot -o s.fxt
	"$FXT" check s.fxt
	# a live process, not a killed one: the archive says what the cut is
	! "$FXT" dump s.fxt | grep -q "was killed" || false
	"$FXT" dump s.fxt | grep -q "cut by a snapshot of the running process"
	n=$(calls work s.fxt)
	[ "$n" -gt 1000 ] && [ "$n" -lt 300000 ]	# wrapped: the oldest are gone
	[ "$(calls t_snap s.fxt)" -eq 1 ]
	# the last work call of the snapshot ends before t_snap starts
	"$FXT" dump s.fxt | grep -E ' name="(work|t_snap)" end_ts=' | tail -1 | grep -q t_snap
	[ "$(state "$p")" = recording ]
	[ "$(say 1 call 10)" = "called 10" ]
	"$FXT" stop -o t.fxt
	"$FXT" check t.fxt
}

@test "triggers: start@ and stop@ bound the recording; exact counts" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	timeout 60 "$FXT" record --pid "$p" --trigger start@t_start --trigger stop@t_stop \
		-o t.fxt 2>rec.err &
	rec=$!
	wait_state "$p" armed
	[ "$(say 1 call 100)" = "called 100" ]
	[ "$(say 1 tstart)" = t_start ]
	[ "$(state "$p")" = recording ]
	[ "$(say 1 call 300)" = "called 300" ]
	[ "$(say 1 tstop)" = t_stop ]
	[ "$(say 1 call 100)" = "called 100" ]
	[ "$(say 1 tstart)" = t_start ]
	[ "$(say 1 call 20)" = "called 20" ]
	kill -INT "$rec"
	wait "$rec" || { cat rec.err; false; }
	"$FXT" check t.fxt
	[ "$(calls work t.fxt)" -eq 320 ]
	[ "$(calls t_start t.fxt)" -eq 2 ]
	[ "$(calls t_stop t.fxt)" -eq 0 ]
}

@test "a trigger naming no loaded function: one line on the program's stderr, the trace goes on" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --pid "$p" --trigger stop@no_such_function
	[ "$(say 1 on)" = on ]
	[ "$(say 1 call 30)" = "called 30" ]
	"$FXT" stop -o t.fxt
	[ "$(calls work t.fxt)" -eq 30 ]
	grep -x "fxtauto: no function of this name is loaded; trigger ignored: no_such_function" err.1
}

@test "trigger snapshot@: the record ends with exactly what came before the function" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	timeout 60 "$FXT" record --mode circular --trigger snapshot@t_snap -o t.fxt 2>rec.err &
	rec=$!
	wait_state "$p" recording
	[ "$(say 1 call 400)" = "called 400" ]
	[ "$(say 1 tsnap)" = t_snap ]
	[ "$(say 1 call 50)" = "called 50" ]
	wait "$rec" || { cat rec.err; false; }
	cat rec.err
	"$FXT" check t.fxt
	[ "$(calls work t.fxt)" -eq 400 ]
	# the call that fired (the chain that led to it began before the trace) is closed at the cut
	[ "$(calls t_snap t.fxt)" -eq 1 ]
	cut=$("$FXT" dump t.fxt | sed -n 's/.* name="t_snap" end_ts=\([0-9]*\).*/\1/p')
	"$FXT" dump t.fxt | grep -F "instant ts=$cut " | grep -F 'name="records dropped"'
}

@test "runtime categories reach the program's <fxt/trace.h> macros" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --categories cat_b
	[ "$(say 1 on)" = on ]
	[ "$(say 1 api)" = api ]
	"$FXT" stop -o t.fxt
	"$FXT" dump t.fxt | grep -q 'name="ev_b"'
	! "$FXT" dump t.fxt | grep -q 'name="ev_a"' || false
}

@test "the manager killed mid-trace: the program runs on untraced, keeps its status, registers again" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --mode streaming -o t.fxt
	[ "$(say 1 on)" = on ]
	kill -KILL "$(cut -d' ' -f1 rt/manager.pid)"
	[ "$(say 1 off)" = off ]
	[ "$(say 1 call 1000)" = "called 1000" ]
	run timeout 10 "$FXT" list	# starts a new manager
	wait_state "$p" idle
	echo "quit 6" >&"${W[1]}"
	st=0
	wait "$p" || st=$?
	[ "$st" -eq 6 ]
}

@test "the manager killed in a streaming trace: the FILE.part it saved is recovered by fxt recover; the archive says the rest is lost" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --mode streaming --buffer-size 1M -o t.fxt
	# 2.4 MB of calls through 512 KiB halves: each half saved before it is reused
	[ "$(say 1 on)" = on ]
	[ "$(say 1 call 100000)" = "called 100000" ]
	kill_manager
	[ -s t.fxt.part ] && [ ! -e t.fxt ]
	run "$FXT" recover t.fxt.part
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "fxt recover: t.fxt.part: a killed trace manager's archive: "*" MB of records of 1 process kept"*"; written to t.fxt" ]]
	[ ! -e t.fxt.part ]
	"$FXT" check t.fxt
	n=$(calls work t.fxt)
	echo "kept $n"
	[ "$n" -gt 20000 ] && [ "$n" -le 100000 ]
	"$FXT" dump t.fxt | grep -F 'name="records dropped"' | grep -F "the trace manager was killed"
	# recovered twice: left as it was
	cp t.fxt again.fxt.part
	run "$FXT" recover again.fxt.part
	[ "$status" -eq 0 ]
	[[ "$output" == *"recovered before: left as it was"* ]]
	cmp t.fxt again.fxt
}

@test "fxt record --mode streaming, the manager killed: the client keeps what was saved and says how to recover it" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	timeout 60 "$FXT" record --mode streaming --buffer-size 1M --duration 60s -o r.fxt 2>err &
	rec=$!
	wait_state "$p" recording
	[ "$(say 1 call 100000)" = "called 100000" ]
	kill -KILL "$(cut -d' ' -f1 rt/manager.pid)"
	rc=0
	wait $rec || rc=$?
	cat err
	[ "$rc" -eq 1 ]
	grep -F "what was saved before the trace ended stays in $PWD/r.fxt.part (fxt recover" err ||
		grep -F "stays in r.fxt.part (fxt recover" err
	"$FXT" recover r.fxt.part
	"$FXT" check r.fxt
	# a half (~21,800 calls) is reused only once saved: at least one was saved
	n=$(calls work r.fxt)
	[ "$n" -gt 20000 ] && [ "$n" -le 100000 ]
}

@test "fxtrun --start-stopped: registered, traced on demand, its status kept" {
	spawn 1 "$FXTRUN" --start-stopped
	p=$(pgrep -n -f "$PROG" -P "$(cat pid.1)")
	wait_state "$p" idle
	grep -q "registered with the trace manager" err.1
	"$FXT" start --pid "$p"
	[ "$(say 1 on)" = on ]
	[ "$(say 1 call 250)" = "called 250" ]
	"$FXT" stop -o t.fxt
	[ "$(calls work t.fxt)" -eq 250 ]
	echo "quit 9" >&"${W[1]}"
	st=0
	wait "$(cat pid.1)" || st=$?
	[ "$st" -eq 9 ]
}

@test "fxtrun --start-stopped refuses -o and --mode (they belong to the recording command)" {
	run "$FXTRUN" --start-stopped -o x.fxt true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--start-stopped: -o"* ]]
	run "$FXTRUN" --start-stopped --mode circular true
	[ "$status" -eq 2 ]
}

@test "the start is a barrier: calls made right after fxt start returns are all recorded" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	for i in 1 2 3; do
		"$FXT" start --pid "$p" 2>start.err
		grep -E "^fxt start: trace $i started: 1 provider recording \(in [0-9]+ ms\)$" start.err
		[ "$(state "$p")" = recording ]
		[ "$(say 1 call 100)" = "called 100" ]	# no waiting for the tracer
		"$FXT" stop -o "t$i.fxt"
		[ "$(calls work "t$i.fxt")" -eq 100 ]
		wait_state "$p" idle
	done
}

@test "a forked child of a traced program is listed recording, in the trace, and stopped with it" {
	spawn 1
	p=$(cat pid.1)
	wait_state "$p" idle
	"$FXT" start --pid "$p"
	echo "fork 25" >&"${W[1]}"	# answered once the child exits
	c=
	for _ in $(seq 200); do
		c=$(pgrep -P "$p" -x g-reg) && [ -n "$(state "$c")" ] && break
		sleep 0.05
	done
	[ "$(state "$c")" = recording ]
	echo done >&"${W[1]}"
	read -r -t 10 answer <&"${R[1]}"
	[ "$answer" = "forked 7" ]
	"$FXT" stop -o t.fxt
	"$FXT" check t.fxt
	[ "$(calls child_work t.fxt "$c")" -eq 25 ]
}

@test "a multi-threaded server in each mode: exactly the commands of the started/stopped window; what each message says is so" {
	FXT_REGISTER=1 LD_PRELOAD=$LIB "$SRV" serve srv.sock 2>srv.err 3>&- &
	s=$!
	for _ in $(seq 200); do [ -S srv.sock ] && [ "$(state "$s")" = idle ] && break; sleep 0.05; done
	[ "$(state "$s")" = idle ]
	"$SRV" drive srv.sock 4 250 >/dev/null	# before the window: in no archive
	for mode in oneshot circular streaming; do
		"$FXT" start --mode "$mode" --pid "$s" -o "$mode.fxt" 2>start.err
		grep -E "^fxt start: trace [0-9]+ started: 1 provider recording \(in [0-9]+ ms\); the archive: $mode.fxt once the trace ends \($mode.fxt.part meanwhile\)$" start.err
		[ -e "$mode.fxt.part" ]
		"$SRV" drive srv.sock 4 2500 >/dev/null
		run "$FXT" stop
		echo "$output"
		[ "$status" -eq 0 ]
		echo "$output" | grep -F "trace written to $PWD/$mode.fxt;"
		# Nothing dropped but context switches (recorded by default), which a busy machine
		# that runs the tracer's reader late can lose in the kernel's ring: said, and why.
		echo "$output" | grep -E "^fxt stop: recorded [0-9.]+ s: 1 process, 5 threads, [0-9]+ events, [0-9.]+ MB, (no records dropped|[0-9]+ records DROPPED \(context switches lost: the kernel's ring overflowed\))(, [0-9.]+ MB saved while running)?\.$"
		[ ! -e "$mode.fxt.part" ]
		"$FXT" check "$mode.fxt"
		[ "$(calls command "$mode.fxt")" -eq 10000 ]
		said=$(echo "$output" | sed -n 's/.* threads, \([0-9]*\) events,.*/\1/p')
		lost=$(echo "$output" | sed -n 's/.* \([0-9]*\) records DROPPED.*/\1/p')
		"$FXT" stats "$mode.fxt" >stats.txt
		grep -q "^records dropped: ${lost:=0} " stats.txt
		events=$(awk '$1 == "event" && $2 ~ /^[0-9]+$/ { print $2 }' stats.txt)
		[ "$said" -eq "$((events - (lost > 0)))" ]	# the drop report is an event of its own
		"$SRV" drive srv.sock 2 100 >/dev/null	# after the window: in no archive
		wait_state "$s" idle
	done
	# a circular buffer too small for the window: kept the latest, and said so
	"$FXT" start --mode circular --buffer-size 1M --pid "$s" 2>/dev/null
	"$SRV" drive srv.sock 4 25000 >/dev/null
	run "$FXT" stop -o wrapped.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -E "OLDEST RECORDS OVERWRITTEN in 1 circular buffer \(about [0-9]+ records; it kept the last [0-9.]+ [mun]?s of [0-9.]+ [mun]?s\)"
	n=$(calls command wrapped.fxt)
	[ "$n" -gt 0 ] && [ "$n" -lt 100000 ]
}
