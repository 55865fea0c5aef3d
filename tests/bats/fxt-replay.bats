#!/usr/bin/env bats
# `fxt replay`: one @test per option and error case, on archives traced once per file from
# examples/c-demo and tests/progs (api-all, api-mixed, k-log, c-sched) with libfxtauto.so, and on
# the archive of known content of tests/client/gen-client-archive.c (two processes, begin/end
# pairs, 1 GHz and 100 MHz ticks). tests/client/replay-check.py walks `fxt dump` of an archive
# on its own and compares every line. Paths come from ctest (tests/client.cmake): FXT, GEN,
# CLIENT_TESTS, FXTAUTO, C_DEMO, API_ALL, API_MIXED, K_LOG, C_SCHED, GEN_ARCHIVE (bench/gen-archive,
# when built).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	export REPLAY_CHECK_CACHE="$BATS_FILE_TMPDIR/replay-check-cache"	# each archive walked once
	trace() {	# trace NAME PROGRAM [VAR=value...]: NAME.fxt
		local name=$1 prog=$2
		shift 2
		env FXT_SCHED=0 "$@" FXT_OUTPUT="$PWD/$name.fxt" LD_PRELOAD="$FXTAUTO" "$prog" \
			>/dev/null 2>&1
	}
	trace c "$C_DEMO"
	trace api "$API_ALL"
	trace mixed "$API_MIXED"
	trace log "$K_LOG"
	trace sched "$C_SCHED" FXT_SCHED=1
	"$GEN" t.fxt
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	for f in "$BATS_FILE_TMPDIR"/*.fxt; do ln -s "$f" .; done
	rm t.fxt
	cp "$BATS_FILE_TMPDIR/t.fxt" .	# a file of its own: exit-rule.bash cuts it
}

# check ARCHIVE [OPTIONS...]: replay-check.py finds every line where it belongs
check() {
	run python3 "$CLIENT_TESTS/replay-check.py" "$FXT" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches" ]]
}

# lines NAME DEPTH: how many lines of stdin are calls of NAME at DEPTH
lines() {
	awk -v name="$1" -v depth="$2" '
		{ i = index($0, " | "); if (!i) next; rest = substr($0, i + 3)
		  match(rest, /^ */); if (RLENGTH == 2 * depth && substr(rest, RSTART + RLENGTH) == name) n++ }
		END { print n + 0 }'
}

# thread TID: the lines of thread TID's blocks in stdin
thread() {
	awk -v tid="$1" '/^== process/ { on = ($0 ~ ", thread " tid " ") ; next } on'
}

@test "every event, in the order it began, at its depth: c-demo, api-all, api-mixed, k-log, generated" {
	for a in c api mixed log t; do
		check "$a.fxt"
	done
	[[ "$output" == "4 threads, 31 lines compared, 0 mismatches" ]]	# t.fxt
	n=$("$FXT" stats c.fxt | awk '$1 == "event" && $2 ~ /^[0-9]+$/ { print $2 }')
	check c.fxt
	[[ "$output" == "5 threads, $n lines compared, 0 mismatches" ]]	# one line per event
}

@test "nesting on c-demo: main > warm_up > fib; each worker > 25 step > fib, mix, hash_block > hash_word" {
	"$FXT" replay c.fxt >out
	for tid in $(grep -oE 'thread [0-9]+ \(worker-[0-3]\)' out | cut -d' ' -f2); do
		thread "$tid" <out >w
		[ "$(lines worker 0 <w)" -eq 1 ]
		[ "$(lines step 1 <w)" -eq 25 ]
		[ "$(lines mix 2 <w)" -eq 75 ]
		[ "$(lines hash_block 2 <w)" -eq 25 ]
		[ "$(lines hash_word 3 <w)" -eq 400 ]
		[ "$(lines fib 2 <w)" -eq 25 ]
		[ "$(grep -c ' fib$' w)" -eq 49325 ]
	done
	main=$(grep -oE 'thread [0-9]+ \(c-demo\)' out | head -1 | cut -d' ' -f2)
	thread "$main" <out >m
	[ "$(lines main 0 <m)" -eq 1 ]
	[ "$(lines warm_up 1 <m)" -eq 1 ]
	[ "$(lines fib 2 <m)" -eq 1 ]
	[ "$(grep -c ' fib$' m)" -eq 177 ]
}

@test "API events in place: instants in their functions, scopes inside them, begin/end as calls" {
	run "$FXT" replay mixed.fxt
	[ "$status" -eq 0 ]
	# main > api:main-scope > middle > api:middle-scope > leaf > instant, three times
	[ "$(lines main 0 <<<"$output")" -eq 1 ]
	[ "$(lines api:main-scope 1 <<<"$output")" -eq 1 ]
	[ "$(lines middle 2 <<<"$output")" -eq 3 ]
	for x in 0 1 2; do [ "$(lines "api:middle-scope x=$x" 3 <<<"$output")" -eq 1 ]; done
	[ "$(lines leaf 4 <<<"$output")" -eq 6 ]
	[ "$(grep -cE ' \|           instant api:in-leaf x=[0-3]$' <<<"$output")" -eq 6 ]
	grep -A1 'api:middle-scope x=1$' <<<"$output" | tail -1 | grep -qE '\|         leaf$'
	run "$FXT" replay api.fxt
	grep -qE '\| api:phase name="load" ok=true$' <<<"$output"
	grep -qE '\|   api:work n=4$' <<<"$output"
	grep -qE '\| counter api:queue #42 depth=-5 load=0.5$' <<<"$output"
	grep -qE '\|   flow-step api:message #77 hop=1$' <<<"$output"
	grep -qE '\| log "api-log: sum=16 hex=ff str=ok"$' <<<"$output"
}

@test "log lines in place, each once (the log instant beside each log record left out)" {
	run "$FXT" replay log.fxt
	[ "$status" -eq 0 ]
	logs=$("$FXT" dump log.fxt | grep -c ' log ts=')
	[ "$logs" -gt 80 ]
	[ "$(grep -cE '\| *log "' <<<"$output")" -eq "$logs" ]
	[ "$(grep -c 'instant log:' <<<"$output")" -eq 0 ]
	w1=$(grep -oE 'thread [0-9]+ \(w1\)' <<<"$output" | cut -d' ' -f2)
	thread "$w1" <<<"$output" | grep -E '\| *log "' >w1
	[ "$(wc -l <w1)" -ge 20 ]
	! grep -vE '\| *log "w1 ' w1 || false
}

@test "--tid keeps those threads (a list, repeatable)" {
	"$FXT" replay c.fxt >all
	tids=($(grep -oE 'thread [0-9]+ \(worker-[0-9]\)' all | cut -d' ' -f2))
	run "$FXT" replay --tid "${tids[1]}" c.fxt
	[ "$status" -eq 0 ]
	[ "$(grep -c '^== process' <<<"$output")" -eq 1 ]
	[ "$(grep -c ' step$' <<<"$output")" -eq 25 ]
	check c.fxt --tid "${tids[1]},${tids[3]}"
	[[ "$output" == "2 threads, "* ]]
	run "$FXT" replay --tid "${tids[0]}" --tid "${tids[2]}" c.fxt
	[ "$(grep -c '^== process' <<<"$output")" -eq 2 ]
}

@test "--pid keeps one process" {
	run "$FXT" replay --pid 2000 t.fxt
	[ "$status" -eq 0 ]
	[ "$(grep -c '^== process 2000 (second), thread 2001' <<<"$output")" -eq 1 ]
	! grep -q 'process 1000' <<<"$output" || false
	check t.fxt --pid 2000
}

@test "--function GLOB: those calls and what they called, depths from the function" {
	run "$FXT" replay --function hash_block c.fxt
	[ "$status" -eq 0 ]
	[ "$(lines hash_block 0 <<<"$output")" -eq 100 ]
	[ "$(lines hash_word 1 <<<"$output")" -eq 1600 ]
	[ "$(grep ' | ' <<<"$output" | grep -vc 'time (s)')" -eq 1700 ]
	check c.fxt --function 'warm*,hash_b*'
	check mixed.fxt --function middle
}

@test "--depth N: only lines less than N calls deep" {
	run "$FXT" replay --depth 2 c.fxt
	[ "$status" -eq 0 ]
	[ "$(lines step 1 <<<"$output")" -eq 100 ]
	! grep -qE ' \|     ' <<<"$output" || false
	check c.fxt --depth 3
	check c.fxt --function step --depth 2
}

@test "--min TIME: only calls that took at least TIME; events stay" {
	run "$FXT" replay --min 100us c.fxt	# mix takes about 1 ms, fib(15) and hash_block µs
	[ "$status" -eq 0 ]
	[ "$(grep -c ' mix$' <<<"$output")" -eq 300 ]
	[ "$(grep -c ' step$' <<<"$output")" -eq 100 ]
	# fib(15), hash_block and hash_word take µs: only the few a busy machine preempted stay
	short=$(grep -cE ' (hash_word|hash_block|fib)$' <<<"$output" || true)
	all=$("$FXT" replay c.fxt | grep -cE ' (hash_word|hash_block|fib)$')
	echo "short calls of at least 100us: $short of $all"
	[ "$short" -lt $((all / 100)) ]
	check c.fxt --min 100us
	check c.fxt --min 1ms
	check api.fxt --min 1us
}

@test "--since/--until: the calls inside the window, bounds included; calls across a bound left out" {
	run "$FXT" replay --since 0.001000010 --until 0.001000200 --tid 1001 t.fxt
	[ "$status" -eq 0 ]
	[ "$(grep ' | ' <<<"$output" | tail -n +2)" = "$(printf '%s\n' \
		'    0.001000010     190 ns |   fn:a' \
		'    0.001000020      30 ns |     fn:b' \
		'    0.001000060      40 ns |     fn:b')" ]
	# one ns less on either side: a is out
	run "$FXT" replay --since 0.001000011 --until 0.001000200 --tid 1001 t.fxt
	! grep -q 'fn:a$' <<<"$output" || false
	run "$FXT" replay --since 0.001000010 --until 0.001000199 --tid 1001 t.fxt
	! grep -q 'fn:a$' <<<"$output" || false
	# on c-demo: a step's exact start and end (JSON stamps are whole ns)
	"$FXT" json c.fxt -o c.json
	read -r tid since until < <(python3 -c 'import json, sys
e = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"] == "step"][30]
s, d = round(e["ts"] * 1000), round(e["dur"] * 1000)
print("%d %d.%09d %d.%09d" % (e["tid"], s // 10**9, s % 10**9, (s + d) // 10**9, (s + d) % 10**9))' c.json)
	run "$FXT" replay --since "$since" --until "$until" --tid "$tid" c.fxt
	[ "$(grep -c ' step$' <<<"$output")" -eq 1 ]
	[ "$(grep ' step$' <<<"$output" | awk '{ print $1 }')" = "$since" ]
	! grep -qE ' (worker|main)$' <<<"$output" || false
	check c.fxt --since "$since" --until "$until"
}

@test "--since/--until +TIME: after the trace start, the same lines as the stamps" {
	"$FXT" replay --since 0.001000010 --until 0.001000200 t.fxt >stamps
	"$FXT" replay --since +10ns --until +200ns t.fxt >offsets
	cmp stamps offsets
	"$FXT" replay --since '+0.010 us' --until +0.2us t.fxt >printed
	cmp stamps printed
	"$FXT" replay mixed.fxt >all
	run --separate-stderr "$FXT" replay --since 1.5s mixed.fxt
	[ "$status" -eq 0 ]	# a stamp long before the start: everything, and a note on +
	[ "$output" = "$(cat all)" ]
	[[ "$stderr" == *"--since +1.500000000"* ]]
}

@test "--hold N: threads printed before their callers are read: a note, callers marked ^, every event once" {
	"$FXT" replay c.fxt >all
	run --separate-stderr "$FXT" replay --hold 1000 c.fxt
	[ "$status" -eq 0 ]
	grep -q '^-- note: more than 1000 events waited' <<<"$output"
	[ "$(grep -c ' | *\^ ' <<<"$output")" -gt 0 ]
	[[ "$stderr" == *"printed after lines"*"(marked ^)"* ]]
	# the same events: start, duration and text of each line, whatever the order and depth
	key() { grep ' | ' | grep -v 'time (s)' | sed -E 's/\| *(\^ )?/| /' | sort; }
	diff <(key <all) <(key <<<"$output")
}

@test "--hold N: the hold the note names prints every line in order, as the default did" {
	run --separate-stderr "$FXT" replay --hold 1000 c.fxt
	hold=$(sed -nE 's/.*; --hold ([0-9]+) prints every line in order \(at least [0-9]+ MiB\)$/\1/p' <<<"$stderr")
	[ -n "$hold" ]
	run --separate-stderr "$FXT" replay --hold "$hold" c.fxt
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	[ "$output" = "$("$FXT" replay --hold 100000000 c.fxt)" ]
}

@test "on-CPU time when context switches were recorded" {
	[ "$("$FXT" stats sched.fxt | awk '$1 == "scheduling" { print $2 }')" -gt 0 ] ||
		skip "no context switches recorded here (perf_event_open refused)"
	run "$FXT" replay sched.fxt
	[ "$status" -eq 0 ]
	grep -qE '^ +time \(s\) +duration +on-cpu \| call$' <<<"$output"
	# on-cpu is at most the duration, and main's equals fxt report's
	python3 -c 'import re, sys
units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
for line in sys.stdin:
    m = re.match(r"\s*\S+ +([0-9.]+) (ns|us|ms|s) +([0-9.]+) (ns|us|ms|s) \|", line)
    if m:
        assert float(m[3]) * units[m[4]] <= float(m[1]) * units[m[2]] * 1.0005, line' <<<"$output"
	mine=$(grep -E ' \| main$' <<<"$output" | awk '{ print $4, $5 }')
	theirs=$("$FXT" report --function main sched.fxt | awk '$NF == "main" { print $(NF-4), $(NF-3) }')
	[ "$mine" = "$theirs" ]
}

@test "usage errors: one line, exit 2; --help prints usage and exits 0" {
	for args in "--depth 0" "--depth x" "--hold -1" "--min 10parsecs" "--since yesterday" \
		"--until 5 --since 6" "--tid x"; do
		run --separate-stderr "$FXT" replay $args c.fxt
		echo "$args: $status $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
	run --separate-stderr "$FXT" replay --bogus c.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" replay
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run "$FXT" replay --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--hold N"*"--since TIME"*"--until TIME"* ]]
}

@test "nothing matches: one line, exit 1, no output" {
	for args in "--function nosuch" "--tid 99999" "--since +10s"; do
		run --separate-stderr "$FXT" replay $args c.fxt
		[ "$status" -eq 1 ] || { echo "$args: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *"nothing matches"* ]]
		[ -z "$output" ]
	done
}

@test "an archive without events: says so, exit 0" {
	python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<Q", 0x0016547846040010))' e.fxt
	run "$FXT" replay e.fxt
	[ "$status" -eq 0 ]
	[ "$output" = "e.fxt: no calls or events recorded" ]
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "empty archive (no magic number record)" replay empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "not an FXT archive" replay text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1; what precedes is printed" {
	inputs t.fxt
	expect_exit 1 "archive truncated" replay cut.fxt
	grep -q 'fn:main' <<<"$output"
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "corrupt record" replay bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "No such file" replay missing.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs t.fxt
	expect_exit 2 "Is a directory" replay dir.fxt
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe t.fxt replay
	expect_pipe mixed.fxt replay --since +0ns	# read twice: the trace start first
}

@test "bounded memory: events waiting on 64 threads do not keep the pages read again" {
	# The reader gives back the mapped pages behind it every 16 MiB; a waiting event's
	# name or category read again faults its page back in. Those pages stayed until the
	# reader gave back only what it read since its last drop: 122 MB peak on this 64 MiB
	# archive then (the archive's pages), 61 MB now (the waiting events and one window).
	[ -n "${GEN_ARCHIVE:-}" ] || skip "bench/gen-archive is not built"
	"$GEN_ARCHIVE" -s $((64 << 20)) -t 64 big.fxt
	/usr/bin/time -f '%M' -o rss timeout 120 "$FXT" replay big.fxt >/dev/null
	rm big.fxt
	echo "peak RSS $(cat rss) KB"
	[ "$(cat rss)" -lt 90000 ]
}
