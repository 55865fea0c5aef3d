#!/usr/bin/env bats
# The provider side of the trace manager service (preload/transport/manager-link.c, FXT_REGISTER=1): a
# registered program records nothing until a START, exactly the calls between START and STOP
# after it, again after a second START; threads, fork children and exec'd images follow; a
# killed manager leaves the program running untraced; triggers start, pause and snapshot at
# named functions; a malformed START is refused without harm. reg-driver (tests/registry/
# driver.c) plays the manager with fxtrun's manager code; counts are read back with fxt dump.
# Environment: LIB (libfxtauto.so), FXT, DRIVER (reg-driver), PROG (g-reg).
# SPDX-License-Identifier: MIT

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -m 700 rt
	export FXT_RUNTIME_DIR=$BATS_TEST_TMPDIR/rt
}

# The sessions of drivers killed here (the killed-manager test) are removed.
teardown() {
	"$FXT" clean >/dev/null 2>&1 || true
}

# drive: runs the driver on g-reg with the script on stdin (bounded).
drive() {
	timeout 60 "$DRIVER" -o t.fxt -l "$LIB" -- "$PROG"
}

# calls NAME [FILE]: complete events of function NAME in the archive.
calls() {
	"$FXT" dump "${2:-t.fxt}" | grep -c " name=\"$1\" end_ts=" || true
}

@test "calls between START and STOP only, exact; the program's output and status unchanged" {
	run drive <<-'EOF'
	prog call 100
	accept
	start
	prog on
	prog call 1000
	stop
	prog call 100
	end
	send quit 3
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "called 100" ]
	[ "${lines[1]}" = "hello g-reg" ]
	[ "${lines[-1]}" = "exit 3" ]
	"$FXT" check t.fxt
	[ "$(calls work)" -eq 1000 ]
}

@test "two START/STOP cycles in one process: two buffers, each with exactly its calls" {
	run drive <<-'EOF'
	accept
	start
	prog on
	prog call 1000
	stop
	prog call 77
	start circular
	prog on
	prog call 500
	stop
	start streaming
	prog on
	prog call 300
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"archive 3 "* ]]
	"$FXT" check t.fxt
	[ "$(calls work)" -eq 1800 ]
	[ "$("$FXT" dump t.fxt | grep -c '^[0-9a-f]* provider_info ')" -eq 3 ]
}

@test "threads across start, stop and start again: every record valid, threads named" {
	run drive <<-'EOF'
	accept
	prog bg 4
	start
	prog on
	prog threads 3 1000
	stop
	start
	prog on
	prog threads 2 500
	stop
	prog halt
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"halted busy"* ]]
	run "$FXT" check t.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *corrupt* ]]
	# 3 x 1000 + 2 x 500 from the joined threads, and the looping threads' calls on top.
	[ "$(calls work)" -gt 4000 ]
	[ "$("$FXT" dump t.fxt | grep -c 'kernel_object obj_type=2 ')" -ge 9 ]
}

@test "a fork child registers anew and traces in the parent's session; an idle one records nothing" {
	run drive <<-'EOF'
	accept
	send fork 5
	accept
	prog done
	start
	prog on
	send fork 50
	accept
	prog done
	prog call 20
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^hello g-reg' <<<"$output")" -eq 3 ]
	[ "$(grep -c '^forked 7' <<<"$output")" -eq 2 ]
	"$FXT" check t.fxt
	[ "$(calls child_work)" -eq 50 ]
	[ "$(calls work)" -eq 20 ]
}

@test "an exec'd image registers by itself and is traced on a START" {
	run drive <<-'EOF'
	accept
	prog exec
	accept
	start
	prog on
	prog call 10
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"image 2"* ]]
	[ "$(grep -c '^hello g-reg' <<<"$output")" -eq 2 ]
	"$FXT" check t.fxt
	[ "$(calls work)" -eq 10 ]
}

@test "the manager killed mid-trace: the program runs on untraced, keeps its status, registers again" {
	mkfifo cmd drv
	FXT_REGISTER=1 LD_PRELOAD="$LIB" "$PROG" < cmd > out.txt &
	prog=$!
	exec 5>cmd
	"$DRIVER" -n -o t.fxt < drv > drv.txt &
	driver=$!
	exec 6>drv
	printf 'accept\nstart\nhold\n' >&6
	echo on >&5
	for i in $(seq 100); do grep -q '^on' out.txt && break; sleep 0.1; done
	echo "call 100000" >&5
	kill -9 "$driver"
	wait "$driver" || true
	exec 6>&-
	echo "call 1000" >&5
	echo off >&5
	for i in $(seq 100); do grep -q '^off' out.txt && break; sleep 0.1; done
	# A new manager gets a HELLO from the same process.
	printf 'accept\n' | timeout 20 "$DRIVER" -n -o u.fxt > drv2.txt
	echo "quit 5" >&5
	exec 5>&-
	st=0
	wait "$prog" || st=$?
	[ "$st" -eq 5 ]
	cat out.txt
	[ "$(cat drv.txt)" = "$(printf 'hello g-reg\nstarted\nholding')" ]
	[ "$(cat out.txt)" = "$(printf 'on\ncalled 100000\ncalled 1000\noff')" ]
	[ "$(cat drv2.txt)" = "hello g-reg" ]
}

@test "triggers: start@ and stop@ bound recording, snapshot@ reports once; exact counts" {
	run drive <<-'EOF'
	accept
	start start@t_start stop@t_stop snapshot@t_snap
	prog on
	prog call 100
	prog tstart
	triggered
	prog call 200
	prog tsnap
	triggered
	prog tsnap
	prog tstop
	triggered
	prog call 300
	prog tstop
	prog tstart
	triggered
	prog call 50
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep '^triggered' <<<"$output" | tr '\n' ' ')" = "triggered 1 triggered 3 triggered 2 triggered 1 " ]
	"$FXT" check t.fxt
	[ "$(calls work)" -eq 250 ]
	[ "$(calls t_start)" -eq 2 ]
	[ "$(calls t_stop)" -eq 0 ]
	[ "$(calls t_snap)" -eq 2 ]
}

@test "each START's categories reach the <fxt/trace.h> macros; nothing is recorded between traces" {
	run drive <<-'EOF'
	accept
	start cats=cat_a
	prog on
	prog api
	stop
	prog api
	start cats=cat_b,cat_x*
	prog on
	prog api
	prog api
	stop
	start
	prog on
	prog api
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	"$FXT" check t.fxt
	[ "$("$FXT" dump t.fxt | grep -c 'instant .*name="ev_a"')" -eq 2 ]
	[ "$("$FXT" dump t.fxt | grep -c 'instant .*name="ev_b"')" -eq 3 ]
}

@test "sampling and context switches run in each trace only: both buffers have theirs, no overlap" {
	export FXT_SCHED=1 FXT_SAMPLE=5000
	run drive <<-'EOF'
	accept
	start size=536870912
	prog on
	prog threads 2 2000000
	stop
	prog call 1000000
	start size=536870912
	prog on
	prog threads 2 2000000
	stop
	end
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	run "$FXT" check t.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *warning* ]]
	"$FXT" dump t.fxt | awk '/ provider_section / { p = $3 }
		/ context_switch / { c[p]++ } / cat="sample" / { s[p]++ }
		END { exit !(c["provider=1"] > 0 && c["provider=2"] > 0 &&
			     s["provider=1"] > 0 && s["provider=2"] > 0) }'
}

@test "a malformed START (each field) closes the connection; the provider registers again and traces" {
	{
		echo accept
		for f in version size short long type mode buffer session ntriggers ntriggers-size \
			dir relative-dir foreign-dir cats kind reserved function empty-function; do
			echo "bad $f"
			echo accept
		done
		printf 'start\nprog on\nprog call 10\nstop\nend\n'
	} > script
	run drive < script
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^closed' <<<"$output")" -eq 18 ]
	[ "$(grep -c '^hello g-reg' <<<"$output")" -eq 19 ]
	"$FXT" check t.fxt
	[ "$(calls work)" -eq 10 ]
}

@test "registered and idle (no manager): output, status and fd numbers as untraced; exits at once" {
	printf 'call 1000\nfd\nquit 4\n' > in
	run --separate-stderr env "$PROG" < in
	[ "$status" -eq 4 ]
	plain=$output
	run --separate-stderr timeout 10 env FXT_REGISTER=1 LD_PRELOAD="$LIB" "$PROG" < in
	[ "$status" -eq 4 ]
	[ "$output" = "$plain" ]
	[ -z "$stderr" ]
}

@test "a missing runtime directory is made 0700; a foreign-mode one: one line, untraced" {
	rmdir rt
	mkfifo in
	FXT_REGISTER=1 LD_PRELOAD="$LIB" "$PROG" < in > out.txt &
	exec 5>in
	for i in $(seq 100); do [ -d rt ] && break; sleep 0.1; done
	exec 5>&-
	wait $!
	[ "$(stat -c %a rt)" = 700 ]
	chmod 755 rt
	FXT_REGISTER=1 LD_PRELOAD="$LIB" "$PROG" < in > out.txt 2> err.txt &
	exec 5>in
	for i in $(seq 100); do [ -s err.txt ] && break; sleep 0.1; done
	echo "call 10" >&5
	exec 5>&-
	wait $!
	[ "$(cat out.txt)" = "called 10" ]
	[ "$(cat err.txt)" = "fxtauto: FXT_REGISTER: unusable runtime directory; not registering: open to other users (mode must be 0700)" ]
}

@test "a connected provider keeps the program's fd numbers; FXT_SESSION wins over FXT_REGISTER" {
	run drive <<-'EOF'
	prog fd
	accept
	prog fd
	start
	prog on
	prog fd
	stop
	end
	EOF
	[ "$status" -eq 0 ]
	[ "$(grep '^fd ' <<<"$output" | uniq | wc -l)" -eq 1 ]
	run --separate-stderr env FXT_REGISTER=1 "$(dirname "$FXT")/fxtrun" -o s.fxt -- "$PROG" <<<"call 5"
	[ "$status" -eq 0 ]
	[ "$(calls work s.fxt)" -eq 5 ]
}
