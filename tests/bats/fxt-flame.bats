#!/usr/bin/env bats
# `fxt flame`: one @test per option and error case, on the archive of known content of
# tests/client/gen-client-archive.c (two processes, nested calls, lock waits, sample slices:
# every folded line and SVG frame known) and on c-demo traced with libfxtauto.so, with and
# without context switches (tests/client/flame-check.py compares the widths with
# `fxt report --tree` path by path). Paths come from ctest (tests/client.cmake): FXT, GEN,
# CLIENT_TESTS, FXTAUTO, C_DEMO.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	FXT_SCHED=0 FXT_OUTPUT="$PWD/c.fxt" LD_PRELOAD="$FXTAUTO" "$C_DEMO" >/dev/null 2>&1
	FXT_SCHED=1 FXT_OUTPUT="$PWD/sched.fxt" LD_PRELOAD="$FXTAUTO" "$C_DEMO" >/dev/null 2>&1
	FXT_SCHED=0 FXT_SAMPLE=997 FXT_OUTPUT="$PWD/sampled.fxt" LD_PRELOAD="$FXTAUTO" \
		"$C_DEMO" >/dev/null 2>&1
	"$GEN" t.fxt
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	for f in "$BATS_FILE_TMPDIR"/*.fxt; do ln -s "$f" .; done
	rm t.fxt
	cp "$BATS_FILE_TMPDIR/t.fxt" .	# a file of its own: exit-rule.bash cuts it
}

# The folded stacks of t.fxt: own time per call path in ns (report --tree's self column).
folded_all='gen-proc [1000];inline_fn 30
gen-proc [1000];main 260
gen-proc [1000];main;a 220
gen-proc [1000];main;a;b 70
gen-proc [1000];main;c 390
gen-proc [1000];main;c;a 10
gen-proc [1000];main;[lock wait] queue_lock 50
gen-proc [1000];outer 160
gen-proc [1000];outer;inner 100
gen-proc [1000];outer;[lock wait] queue_lock 40
second [2000];main 790
second [2000];main;a 210'

# frames FILE.svg: "TITLE x=X width=W" per frame, in the file's order.
frames() {
	sed -n 's|^<g class="f"><title>\(.*\)</title><rect x="\([0-9.]*\)" y="[0-9.]*" width="\([0-9.]*\)".*|\1 x=\2 width=\3|p' "$1"
}

@test "--folded: one line per call path with own time in ns, the process frame first" {
	run --separate-stderr "$FXT" flame --folded t.fxt
	[ "$status" -eq 0 ]
	[ "$output" = "$folded_all" ]
	[ -z "$stderr" ]
}

@test "SVG (default): well-formed, frames as wide as their inclusive time, script inline, no network" {
	"$FXT" flame t.fxt >t.svg
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' t.svg
	run frames t.svg
	echo "$output"
	# all = 1.330 us (gen-proc: main 1 us, outer 300 ns, inline_fn 30 ns) + 1 us (second)
	[ "${lines[0]}" = "all (2.330 us, 100.00%) x=10.00 width=1180.00" ]
	[ "${lines[1]}" = "gen-proc [1000] (1.330 us, 57.08%) x=10.00 width=673.56" ]
	# children in name order: inline_fn, main, outer; each as wide as report --tree's total
	[ "${lines[2]}" = "inline_fn (30 ns, 1.29%) x=10.00 width=15.19" ]
	[ "${lines[3]}" = "main (1.000 us, 42.92%) x=25.19 width=506.44" ]
	[[ "$output" == *$'\n'"c (400 ns, 17.17%) "* ]]
	[[ "$output" == *$'\n'"[lock wait] queue_lock (50 ns, 2.15%) "* ]]
	[[ "$output" == *$'\n'"second [2000] (1.000 us, 42.92%) x=683.56 width=506.44"* ]]
	[ "${#lines[@]}" -eq 15 ]	# all, 2 processes, the 12 call paths of --folded
	grep -q '<script type="text/ecmascript"><!\[CDATA\[' t.svg
	! grep -Eq 'href=|src=|https?://[^w]|@import|url\(' t.svg || false
	grep -q '>inclusive wall time by call path, fxt flame<' t.svg
}

@test "-o OUT: the SVG in OUT, nothing on stdout, no temporary left" {
	mkdir out
	run --separate-stderr "$FXT" flame -o out/g.svg t.fxt
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(ls out)" = g.svg ]
	"$FXT" flame t.fxt >stdout.svg
	cmp out/g.svg stdout.svg
	"$FXT" flame --folded --output out/g.folded t.fxt
	[ "$(cat out/g.folded)" = "$folded_all" ]
}

@test "--threads: a thread frame (NAME [TID], or thread TID) under each process" {
	run "$FXT" flame --folded --threads t.fxt
	echo "$output"
	[ "${#lines[@]}" -eq 12 ]
	[ "${lines[0]}" = "gen-proc [1000];main-thread [1001];main 260" ]
	[[ "$output" == *$'\n''gen-proc [1000];worker "2" [1002];outer;inner 100'$'\n'* ]]
	[[ "$output" == *$'\n''gen-proc [1000];thread 1003;inline_fn 30'$'\n'* ]]
	[ "${lines[11]}" = "second [2000];thread 2001;main;a 210" ]
	"$FXT" flame --threads t.fxt >t.svg
	frames t.svg | grep -qx 'worker &quot;2&quot; \[1002\] (300 ns, 12.88%) x=[0-9.]* width=151.93'
}

@test "--sample: the sampled stacks instead of the calls" {
	run "$FXT" flame --folded --sample t.fxt
	[ "$output" = 'gen-proc [1000];cold 100
gen-proc [1000];main 100
gen-proc [1000];main;hot 200' ]
	"$FXT" flame --sample t.fxt >t.svg
	grep -q '>sampled stacks (time estimated from slices) by call path, fxt flame<' t.svg
	# a real sampled trace: widths equal report --tree's sampled call tree
	run python3 "$CLIENT_TESTS/flame-check.py" "$FXT" sampled.fxt --sample
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ flame-check:\ [1-9][0-9]*\ paths,\ [1-9][0-9]*\ compared,\ 0\ mismatches ]]
}

@test "--pid, --tid: only those processes' and threads' paths" {
	run "$FXT" flame --folded --pid 2000 t.fxt
	[ "$output" = 'second [2000];main 790
second [2000];main;a 210' ]
	run "$FXT" flame --folded --tid 1002,1003 t.fxt
	[ "$output" = 'gen-proc [1000];inline_fn 30
gen-proc [1000];outer 160
gen-proc [1000];outer;inner 100
gen-proc [1000];outer;[lock wait] queue_lock 40' ]
	expect_exit 1 "no events of thread 5" flame --tid 5 t.fxt
}

@test "--since/--until: calls inside the window; a caller crossing a bound has no time of its own" {
	# [1.000010 ms, 1.000400 ms]: main (from 1.000000) and process 2000 (from 2 ms) left out;
	# a (190 + 100 ns, b 70 ns of it), outer, inline_fn inside
	want='gen-proc [1000];inline_fn 30
gen-proc [1000];main;a 220
gen-proc [1000];main;a;b 70
gen-proc [1000];outer 160
gen-proc [1000];outer;inner 100
gen-proc [1000];outer;[lock wait] queue_lock 40'
	run "$FXT" flame --folded --since 0.001000010 --until 0.001000400 t.fxt
	[ "$output" = "$want" ]
	run "$FXT" flame --folded --since +10ns --until +400ns t.fxt
	[ "$output" = "$want" ]
	# a bound 1 ns inside outer leaves it out; its callees inside stay under it
	run "$FXT" flame --folded --since 0.001000010 --until 0.001000399 t.fxt
	[[ "$output" != *"outer 160"* ]]
	[[ "$output" == *$'\n''gen-proc [1000];outer;inner 100'$'\n'* ]]
	[[ "$output" == *"main;a;b 70"* ]]
	"$FXT" flame --since +10ns --until +400ns t.fxt >t.svg
	grep -q ' in the window \[0.001000010 s, 0.001000400 s\], fxt flame<' t.svg
	# all = 620 ns: inline_fn 30, main 290 (its a calls, no time of its own), outer 300
	frames t.svg | grep -qx 'main (290 ns, 46.77%) x=67.10 width=551.94'
}

@test "--title: the SVG's heading (escaped)" {
	"$FXT" flame --title 'run <A> & "B"' t.fxt >t.svg
	grep -q '>run &lt;A&gt; &amp; &quot;B&quot;</text>' t.svg
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' t.svg
}

@test "names: ';' written as ':' in folded stacks, XML's specials and bad UTF-8 escaped in SVG" {
	"$GEN" --deep 3 deep.fxt
	run "$FXT" flame --folded deep.fxt
	echo "$output"
	[ "${lines[3]}" = "deep [5000];r;r;r;semi:colon <&> "$'\xff'" 1" ]
	[ "${lines[2]}" = "deep [5000];r;r;r 2" ]
	"$FXT" flame deep.fxt >deep.svg
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' deep.svg
	frames deep.svg | grep -qx 'semi;colon &lt;&amp;&gt; ? (1 ns, 14.29%) x=[0-9.]* width=168.57'
	run python3 "$CLIENT_TESTS/flame-check.py" "$FXT" deep.fxt
	echo "$output"
	[[ "$output" == *"4 paths, 6 compared, 0 mismatches" ]]
}

@test "a path deeper than 2048 frames: its time in the frame at that depth, said on stderr" {
	"$GEN" --deep 3000 deep.fxt
	run --separate-stderr "$FXT" flame --folded deep.fxt
	[ "$status" -eq 0 ]
	[ "$stderr" = "fxt flame: 1 call path deeper than 2048 frames: its time is shown in the frame at that depth" ]
	# r from i to 6001 - i ns: 2 ns of its own each; the 2047th r (depth 2048 with the
	# process frame) holds the 1909 ns of itself and the 954 calls below it
	[ "${#lines[@]}" -eq 2047 ]
	[ "$(echo "$output" | awk '{ s += $NF } END { print s }')" -eq 6001 ]
	[[ "${lines[2046]}" == *";r 1909" ]]
	[ "$(echo "${lines[2046]}" | tr ';' '\n' | grep -c '^r')" -eq 2047 ]
	run --separate-stderr "$FXT" flame -o deep.svg deep.fxt
	[ "$status" -eq 0 ]
	[ "$(grep -c '^<g class="f"><title>r (' deep.svg)" -eq 2047 ]
}

@test "c-demo: the widths equal report --tree, per process and per thread" {
	for opt in "" --threads; do
		run python3 "$CLIENT_TESTS/flame-check.py" "$FXT" c.fxt $opt
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" =~ [1-9][0-9]+\ paths,\ [1-9][0-9]+\ compared,\ 0\ mismatches ]]
	done
	# 4 workers' fib recursion: the deepest path has main or worker and a dozen fib frames
	"$FXT" flame --folded c.fxt | grep -q ';worker;step;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;'
}

@test "context switches recorded: widths are on-CPU time (report's self column on CPU)" {
	"$FXT" report sched.fxt | grep -q on-cpu || skip "no context switches recorded (perf_event)"
	"$FXT" flame sched.fxt >s.svg
	grep -q '>on-CPU time (from context switches) by call path, fxt flame<' s.svg
	run python3 "$CLIENT_TESTS/flame-check.py" "$FXT" sched.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(on-CPU: self only), 0 mismatches" ]]
	# main mostly waits for its workers: on CPU its frame is far narrower than its wall time
	oncpu=$("$FXT" flame --folded sched.fxt | grep '^[^;]*;main[; ]' | awk '{ s += $NF } END { print s }')
	wall=$("$FXT" report --tree sched.fxt | awk '$NF == "main" && $5 == "1" { printf "%.0f", $1 * ($2 == "s" ? 1e9 : 1e6) }')
	echo "main on CPU $oncpu ns, wall $wall ns"
	[ "$oncpu" -gt 0 ]
	[ "$oncpu" -lt "$wall" ]
}

@test "nothing to draw: one line, exit 1, no output file" {
	expect_exit 1 "no sampled stacks recorded" flame --sample -o g.svg c.fxt
	expect_exit 1 "no calls match in the window [1.000000000 s, end]" flame --since 1 -o g.svg t.fxt
	[ ! -e g.svg ]
	ls -A
	[ -z "$(ls -A | grep -v -e '\.fxt$' -e '^separate-stderr-')" ]
}

@test "bad input or output: one line, exit 1 or 2, no file presented as output" {
	inputs t.fxt
	expect_exit 1 "empty archive" flame -o g.svg empty.fxt
	expect_exit 1 "not an FXT archive" flame -o g.svg text.fxt
	expect_exit 2 "" flame -o g.svg dir.fxt
	expect_exit 2 "" flame -o g.svg missing.fxt
	[ ! -e g.svg ]
	expect_exit 2 "-o /dev/null: is a device" flame -o /dev/null t.fxt
	expect_exit 2 "-o nodir/g.svg: No such file or directory" flame -o nodir/g.svg t.fxt
	run --separate-stderr bash -c '"$FXT" flame t.fxt >/dev/full'
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt flame: stdout: No space left on device" ]
	ls -A
	[ -z "$(ls -A | grep -v -e '\.fxt$' -e '^separate-stderr-')" ]	# no temporaries left
}

@test "a truncated or corrupt archive: the graph of what precedes the problem, exit 1" {
	inputs t.fxt
	expect_exit 1 "truncated" flame --folded -o cut.folded cut.fxt
	[ -s cut.folded ]
	expect_exit 1 "with size 0" flame --folded -o bad.folded bad.fxt
	[ "$(cat bad.folded)" = "$folded_all" ]
}

@test "usage errors exit 2; --help prints usage and exits 0" {
	expect_exit 2 "expected one archive" flame
	expect_exit 2 "expected one archive" flame t.fxt t.fxt
	expect_exit 2 "--pid x: expected a number" flame --pid x t.fxt
	expect_exit 2 "--until is before --since" flame --since 2 --until 1 t.fxt
	run "$FXT" flame --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--folded"*"--sample"*"--threads"*"--since TIME"* ]]
	"$FXT" --help | grep -q '^  flame '
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe t.fxt flame --folded
}
