#!/usr/bin/env bats
# The trace manager service: `fxt manager` and its clients fxt list/record/start/stop/snapshot,
# with fake providers (tests/service/fake-provider.c: each answers START with N complete events
# "fake"/"call" in a buffer made by the writer library) and off-contract packets (svc-poke).
# Counts are read back with `fxt stats` and `fxt dump`. Each test has its own runtime directory
# (FXT_RUNTIME_DIR) and manager; teardown ends what it started.
# Paths from ctest (tests/service.cmake): FXT, FAKE, POKE.
# SPDX-License-Identifier: MIT

setup() {
	export FXT_RUNTIME_DIR=$BATS_TEST_TMPDIR/rt
	W=$BATS_TEST_TMPDIR
	FAKES=()
}

teardown() {
	for p in "${FAKES[@]}"; do kill "$p" 2>/dev/null || true; done
	stop_manager
	if [ -n "${NOBODY_BASE:-}" ]; then	# the manager run as nobody, if a test failed
		FXT_RUNTIME_DIR=$NOBODY_BASE/rt stop_manager
		rm -rf "$NOBODY_BASE"
	fi
	"$FXT" clean >/dev/null 2>&1 || true	# sessions of managers the tests killed
}

# The manager of this test's runtime directory, if any, ends (SIGTERM; waited for, bounded).
stop_manager() {
	local pid
	pid=$(cut -d' ' -f1 "$FXT_RUNTIME_DIR/manager.pid" 2>/dev/null) || return 0
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
	kill -9 "$pid" 2>/dev/null || true
}

# fake NAME N [more fake-provider options]: a registered fake provider (waits for `fxt list`
# to show it: bounded).
fake() {
	local name=$1 n=$2
	shift 2
	"$FXT" list >/dev/null	# the manager, started on demand
	"$FAKE" --name "$name" --events "$n" "$@" 3>&- &
	FAKES+=($!)
	wait_for "^$! +$name "
}

# wait_for PATTERN [STATE]: until a line of `fxt list` matches (at most 10 s).
wait_for() {
	for _ in $(seq 200); do
		"$FXT" list | grep -E "$1.*${2:-}" >/dev/null && return 0
		sleep 0.05
	done
	echo "never listed: $1 ${2:-}" >&2
	"$FXT" list >&2
	return 1
}

# events FILE NAME: the event count of process NAME in the archive, as fxt dump prints it.
events() {
	"$FXT" dump "$1" | grep -c 'name="call"' || true
}

@test "list: no providers, then the registered ones with pid, name and state" {
	run "$FXT" list
	[ "$status" -eq 0 ]
	[ "$output" = "no providers" ]
	[ -S "$FXT_RUNTIME_DIR/control.sock" ]	# started on demand
	fake alpha 3
	fake beta 3
	run "$FXT" list
	[ "$status" -eq 0 ]
	echo "$output" | grep -E "^${FAKES[0]} +alpha +idle"
	echo "$output" | grep -E "^${FAKES[1]} +beta +idle"
}

@test "record --duration: an archive fxt check accepts with exactly the provider's events" {
	fake alpha 7
	run timeout 30 "$FXT" record --duration 100ms -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	echo "$output" | grep "1 process, 1 thread, 7 events"
	[ ! -e "$W/a.fxt.part" ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 7 ]
	"$FXT" list | grep -E "alpha +idle"	# back to idle, ready for the next trace
}

@test "record --name: two providers of that name in one archive, a third left out" {
	fake two 4
	fake two 5
	fake other 100
	run timeout 30 "$FXT" record --duration 1ms --name two -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	"$FXT" check "$W/a.fxt" | grep -E "^providers: 2$"
	[ "$(events "$W/a.fxt")" -eq 9 ]
}

@test "record --pid chooses one provider; a second trace meanwhile gets EBUSY" {
	fake alpha 3
	fake beta 4
	timeout 30 "$FXT" record --duration 60s --pid "${FAKES[1]}" -o "$W/a.fxt" 2>"$W/err" &
	rec=$!
	wait_for beta recording
	run timeout 10 "$FXT" record --duration 1ms -o "$W/b.fxt"
	[ "$status" -eq 1 ]
	echo "$output" | grep "a trace is running already"
	[ ! -e "$W/b.fxt" ] && [ ! -e "$W/b.fxt.part" ]
	run timeout 10 "$FXT" start
	[ "$status" -eq 1 ]
	kill -INT $rec
	wait $rec
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 4 ]
}

@test "start/stop: a provider registering while the trace runs is activated" {
	fake alpha 3
	run timeout 10 "$FXT" start --mode oneshot -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	fake late 5
	wait_for late recording
	run timeout 30 "$FXT" stop
	[ "$status" -eq 0 ]
	echo "$output" | grep "2 processes"
	[ ! -e "$W/a.fxt.part" ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 8 ]
}

@test "snapshot: what the circular buffers hold, and the trace goes on" {
	fake alpha 6
	timeout 10 "$FXT" start
	wait_for alpha recording
	run timeout 30 "$FXT" snapshot -o "$W/s.fxt"
	[ "$status" -eq 0 ]
	"$FXT" check "$W/s.fxt"
	[ "$(events "$W/s.fxt")" -eq 6 ]
	"$FXT" list | grep -E "^trace [0-9]+ running"
	"$FXT" list | grep -E "alpha +recording"
	run timeout 30 "$FXT" stop -o "$W/a.fxt"	# a trace started without a file
	[ "$status" -eq 0 ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 6 ]
}

@test "a snapshot trigger ends the trace with the events before it, cut at its tick" {
	fake alpha 10 --trigger-after 4
	run timeout 30 "$FXT" record --duration 60s --trigger snapshot@fatal -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 4 ]
	run timeout 10 "$FXT" start --mode streaming --trigger snapshot@f -o "$W/b.fxt"
	[ "$status" -eq 1 ]
	echo "$output" | grep "snapshot trigger needs oneshot or circular"
}

@test "stop, snapshot without a manager: no trace running; stop without a trace" {
	run "$FXT" stop
	[ "$status" -eq 1 ]
	[ "$output" = "fxt stop: no trace running (no manager)" ]
	run "$FXT" snapshot -o "$W/s.fxt"
	[ "$status" -eq 1 ]
	[ ! -e "$W/s.fxt.part" ]
	"$FXT" list
	run "$FXT" stop -o "$W/a.fxt"
	[ "$status" -eq 1 ]
	[ "$output" = "fxt stop: no trace running" ]
	[ ! -e "$W/a.fxt" ] && [ ! -e "$W/a.fxt.part" ]
}

@test "the manager killed mid-record: the client says so, exits 1, leaves no file" {
	fake alpha 3
	timeout 30 "$FXT" record --duration 60s -o "$W/a.fxt" 2>"$W/err" &
	rec=$!
	wait_for alpha recording
	kill -9 "$(cut -d' ' -f1 "$FXT_RUNTIME_DIR/manager.pid")"
	rc=0
	wait $rec || rc=$?
	[ "$rc" -eq 1 ]
	grep "the manager closed the connection" "$W/err"
	[ ! -e "$W/a.fxt" ] && [ ! -e "$W/a.fxt.part" ]
	# its stale sockets are replaced by the next manager
	run "$FXT" list
	[ "$status" -eq 0 ]
}

# the manager of this test gets SIGTERM and is waited for (bounded)
term_manager() {
	local pid
	pid=$(cut -d' ' -f1 "$FXT_RUNTIME_DIR/manager.pid")
	kill -TERM "$pid"
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	! kill -0 "$pid" 2>/dev/null || false
	[ ! -e "$FXT_RUNTIME_DIR/control.sock" ]
}

@test "SIGTERM: the running trace is finished and its archive renamed into place, then the manager exits" {
	fake alpha 5
	timeout 10 "$FXT" start -o "$W/a.fxt"
	term_manager
	[ ! -e "$W/a.fxt.part" ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 5 ]
	grep -F "ended (archive written to $W/a.fxt)" "$FXT_RUNTIME_DIR/manager.log"
}

@test "SIGTERM of a trace nobody gave a file: the archive is kept in the runtime directory and fxt stop says where" {
	fake alpha 7
	timeout 10 "$FXT" start
	term_manager
	"$FXT" check "$FXT_RUNTIME_DIR/trace-1.fxt"
	[ "$(events "$FXT_RUNTIME_DIR/trace-1.fxt")" -eq 7 ]
	run "$FXT" stop
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "fxt stop: no trace running (no manager)" ]
	[ "${lines[1]}" = "fxt stop: a manager stopped during a trace left its archive in $FXT_RUNTIME_DIR/trace-1.fxt" ]
}

@test "the start is a barrier: fxt start returns with every chosen provider recording, and says how long it took" {
	fake alpha 3
	fake beta 4
	run timeout 10 "$FXT" start
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^"fxt start: trace 1 started: 2 providers recording (in "[0-9]+" ms)"$ ]]
	[ "$("$FXT" list | grep -cE " (alpha|beta) +recording ")" -eq 2 ]
	sleep 0.2	# a lower bound on the recording's length, whatever the machine's load
	run timeout 30 "$FXT" stop -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	echo "$output" | awk '/recorded/ { sub(/.*recorded /, ""); exit !($1 >= 0.2) }'
}

@test "a provider that never records: the start names it, and with nobody recording no trace is left" {
	fake alpha 3 --silent 1
	run timeout 30 "$FXT" start -o "$W/a.fxt"
	[ "$status" -eq 1 ]
	[ "$output" = "fxt start: none of the 1 chosen program could start recording: ${FAKES[0]} (alpha) (see its stderr): no trace started" ]
	[ ! -e "$W/a.fxt" ] && [ ! -e "$W/a.fxt.part" ]
	! "$FXT" list | grep "^trace" || false
	fake beta 4
	run timeout 30 "$FXT" start
	[ "$status" -eq 0 ]
	[[ "$output" == *"started: 1 of 2 providers recording after "*" s; not yet: ${FAKES[0]} (alpha)" ]]
}

@test "an fxt record's trace: another client's stop is refused (its file untouched), --force stops it; every message names the file that holds the data" {
	fake alpha 6
	timeout 30 "$FXT" record --duration 60s -o "$W/a.fxt" 2>"$W/err" &
	rec=$!
	wait_for alpha recording
	run timeout 10 "$FXT" stop -o "$W/b.fxt"
	[ "$status" -eq 1 ]
	[[ "$output" =~ ^"fxt stop: trace 1 belongs to the fxt record of pid "[0-9]+", which stops it and writes its archive (fxt stop --force ends it now)"$ ]]
	[ ! -e "$W/b.fxt" ] && [ ! -e "$W/b.fxt.part" ]
	"$FXT" list | grep -E "alpha +recording"
	run timeout 30 "$FXT" stop --force -o "$W/b.fxt"
	[ "$status" -eq 0 ]
	echo "$output" | grep -x "fxt stop: -o $W/b.fxt not used: the trace had its archive file from its start"
	echo "$output" | grep -x "fxt stop: the archive is in the file given when the trace started."
	! echo "$output" | grep "written to" || false
	[ ! -e "$W/b.fxt" ] && [ ! -e "$W/b.fxt.part" ]
	wait $rec
	grep -x "fxt record: trace written to $W/a.fxt; open it in ui.perfetto.dev (or: fxt report $W/a.fxt)." "$W/err"
	[ "$(events "$W/a.fxt")" -eq 6 ]
}

@test "a snapshot trigger of fxt start -o: the archive is renamed into place when it fires" {
	fake alpha 10 --trigger-after 4
	run timeout 10 "$FXT" start --trigger snapshot@fatal -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	for _ in $(seq 200); do [ -e "$W/a.fxt" ] && break; sleep 0.05; done
	[ ! -e "$W/a.fxt.part" ]
	"$FXT" check "$W/a.fxt"
	[ "$(events "$W/a.fxt")" -eq 4 ]
	! "$FXT" list | grep "^trace" || false
}

@test "a stopped manager: a client says so instead of waiting forever" {
	"$FXT" list >/dev/null
	pid=$(cut -d' ' -f1 "$FXT_RUNTIME_DIR/manager.pid")
	kill -STOP "$pid"
	run timeout 60 "$FXT" list
	kill -CONT "$pid"
	[ "$status" -eq 1 ]
	[ "$output" = "fxt list: the manager (pid $pid) did not answer in 5 s: it is stopped (SIGSTOP? kill -CONT it, or kill it and restart)" ]
}

@test "one manager per user: a second one says so and exits 1" {
	"$FXT" list
	run "$FXT" manager --foreground
	[ "$status" -eq 1 ]
	echo "$output" | grep "a manager is running already"
}

@test "an archive file passed that cannot be one (appending, with content, read-only, a pipe) is refused with one line" {
	fake alpha 2
	timeout 10 "$FXT" start --mode circular
	cd "$W"
	for kind in append full rdonly pipe; do
		run timeout 20 "$POKE" control file-$kind
		echo "$kind: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == "the archive file passed "* ]]
	done
	# the trace still runs and ends with a good file
	run timeout 30 "$FXT" stop -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	"$FXT" check "$W/a.fxt"
}

@test "off-contract packets on both sockets are refused; the manager still answers" {
	fake alpha 2
	for kind in short version size type big noterm pid twice nohello; do
		timeout 20 "$POKE" registry $kind || { echo "registry $kind not refused"; false; }
	done
	for kind in short version size type big triggers end listfd; do
		timeout 20 "$POKE" control $kind || { echo "control $kind not refused"; false; }
	done
	run "$FXT" list
	[ "$status" -eq 0 ]
	echo "$output" | grep -E "alpha +idle"
	grep -c "connection refused" "$FXT_RUNTIME_DIR/manager.log" | grep -qx 17
	run timeout 30 "$FXT" record --duration 1ms -o "$W/a.fxt"
	[ "$status" -eq 0 ]
	[ "$(events "$W/a.fxt")" -eq 2 ]
}

@test "a client or provider of another user is refused (manager run as nobody)" {
	command -v setpriv >/dev/null || skip "setpriv missing"
	[ "$(id -u)" -eq 0 ] || skip "needs root to run the manager as nobody"
	base=$(mktemp -d /tmp/fxt-svc-nobody.XXXXXX)
	NOBODY_BASE=$base
	chmod 755 "$base"
	mkdir -m 700 "$base/rt"
	chown nobody "$base/rt"
	FXT_RUNTIME_DIR=$base/rt setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$FXT" manager
	run timeout 20 "$POKE" control good "$base/rt"
	run2=$status
	run timeout 20 "$POKE" registry good "$base/rt"
	kill "$(cut -d' ' -f1 "$base/rt/manager.pid")"
	for _ in $(seq 100); do [ -e "$base/rt/control.sock" ] || break; sleep 0.05; done
	log=$(cat "$base/rt/manager.log")
	rm -rf "$base"
	[ "$run2" -eq 0 ] && [ "$status" -eq 0 ]
	echo "$log" | grep "client connection refused: another user"
	echo "$log" | grep "provider connection refused: another user"
}

@test "runtime directory refused: a symlink, mode 0755, another owner" {
	mkdir -m 700 "$W/real"
	ln -s "$W/real" "$W/link"
	FXT_RUNTIME_DIR=$W/link run "$FXT" list
	[ "$status" -eq 1 ]
	echo "$output" | grep "a symbolic link"
	[ "${#lines[@]}" -eq 1 ]
	mkdir -m 755 "$W/open"
	FXT_RUNTIME_DIR=$W/open run "$FXT" manager --foreground
	[ "$status" -eq 1 ]
	echo "$output" | grep "open to other users"
	mkdir -m 700 "$W/theirs"
	chown nobody "$W/theirs" || skip "cannot chown (not root)"
	FXT_RUNTIME_DIR=$W/theirs run "$FXT" list
	[ "$status" -eq 1 ]
	echo "$output" | grep "owned by another user"
	[ ! -e "$W/theirs/control.sock" ]
}

@test "record: a PROGRAM still means fxtrun; options are checked" {
	run "$FXT" record --duration 5x -o "$W/a.fxt"
	[ "$status" -eq 2 ]
	echo "$output" | grep "expected a duration"
	run "$FXT" record --pid 1 --name x -o "$W/a.fxt"
	[ "$status" -eq 2 ]
	run "$FXT" record --duration 1s "$W/prog"
	[ "$status" -eq 2 ]
	echo "$output" | grep "unexpected argument"
	run "$FXT" record -o "$W/a.fxt"
	[ "$status" -eq 2 ]
	echo "$output" | grep "no program to trace"
	run "$FXT" record --help	# both forms
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^usage: fxtrun \[options\] \[--\] PROGRAM"
	for o in --duration --pid --name --trigger; do echo "$output" | grep -qE "^  $o "; done
}

# hold N: N connections to control.sock held open by a background python until hold.stop
# appears (it says "held" once they are all made, or the error that stopped it).
hold() {
	python3 -c 'import os, socket, sys, time
socks = []
try:
	for _ in range(int(sys.argv[1])):
		s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
		s.connect(os.environ["FXT_RUNTIME_DIR"] + "/control.sock")
		socks.append(s)
	print("held", flush=True)
except OSError as e:
	print(e, flush=True)
while not os.path.exists(sys.argv[2]):
	time.sleep(0.05)' "$1" "$W/hold.stop" >"$W/hold.out" 3>&- &
	HOLDER=$!
	for _ in $(seq 200); do [ -s "$W/hold.out" ] && break; sleep 0.05; done
	[ "$(cat "$W/hold.out")" = held ]
}

@test "a cap on client connections: the one over it is refused with a clear line; the manager answers again once they go" {
	"$FXT" list >/dev/null
	hold 64
	run timeout 30 "$FXT" list
	[ "$status" -eq 1 ]
	[ "$output" = "fxt list: the manager has 64 client connections open, the most it takes: refused" ]
	touch "$W/hold.stop"
	wait "$HOLDER"
	run timeout 30 "$FXT" list
	[ "$status" -eq 0 ]
	grep -q "client connection refused: 64 open already" "$FXT_RUNTIME_DIR/manager.log"
}

@test "out of descriptors: connections are shed with a clear line (no spinning accept loop), and the manager answers again" {
	(ulimit -n 40 && "$FXT" manager)
	hold 50
	run timeout 30 "$FXT" list
	[ "$status" -eq 1 ]
	[ "$output" = "fxt list: the manager is out of descriptors (too many connections): refused" ]
	touch "$W/hold.stop"
	wait "$HOLDER"
	run timeout 30 "$FXT" list
	[ "$status" -eq 0 ]
	grep -q "client connection shed: out of descriptors" "$FXT_RUNTIME_DIR/manager.log"
}

@test "a manager started under ulimit -f: an archive past it fails, the manager lives on" {
	(ulimit -f 100; "$FXT" list >/dev/null)	# the manager inherits the 100 KB limit
	fake alpha 200000
	run timeout 30 "$FXT" record --duration 100ms -o "$W/a.fxt"
	[ "$status" -eq 1 ]	# before: the manager died of SIGXFSZ
	[[ "$output" == *"archive not written: File too large"* ]]
	[ ! -e "$W/a.fxt" ] && [ ! -e "$W/a.fxt.part" ]
	"$FXT" list | grep -E "alpha +idle"
}
