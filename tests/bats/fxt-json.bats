#!/usr/bin/env bats
# `fxt json`: one @test per option and error case, on the archive of known content written by
# tests/client/gen-client-archive.c; tests/client/check-json.py checks the mapping with a real
# JSON parser. Paths come from ctest (tests/client.cmake): FXT, GEN, CLIENT_TESTS.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	"$GEN" t.fxt
}

@test "stdout: JSON that parses and maps every record kind (check-json.py)" {
	"$FXT" json t.fxt >t.json
	run python3 "$CLIENT_TESTS/check-json.py" t.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "-o OUT writes the same document into OUT" {
	"$FXT" json t.fxt >stdout.json
	run "$FXT" json -o out.json t.fxt
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	cmp stdout.json out.json
	"$FXT" json --output long.json t.fxt
	cmp stdout.json long.json
}

@test "-o into an unwritable place: one-line error, exit 2" {
	run --separate-stderr "$FXT" json -o /nonexistent/dir/x.json t.fxt
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "a truncated archive gives valid JSON up to the last whole record, invalid: exit 1" {
	size=$(stat -c %s t.fxt)
	head -c $((size - 8)) t.fxt >cut.fxt
	run --separate-stderr "$FXT" json -o cut.json cut.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' cut.json)
	[ "$n" -eq 37 ]
}

# corrupt IN OUT: IN with the header of its last record (3 words) set to size 0
corrupt() {
	python3 -c 'import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
w = struct.unpack_from("<Q", d, len(d) - 24)[0]
struct.pack_into("<Q", d, len(d) - 24, w & ~0xfff0)
open(sys.argv[2], "wb").write(d)' "$1" "$2"
}

@test "a corrupt record: valid JSON of what precedes it, one-line error, exit 1" {
	corrupt t.fxt bad.fxt
	run --separate-stderr "$FXT" json -o bad.json bad.fxt
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' bad.json)
	[ "$n" -eq 37 ]
}

@test "an archive with only the magic number record is an empty event list" {
	head -c 8 t.fxt >magic.fxt
	run "$FXT" json magic.fxt
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; assert json.loads(sys.argv[1])["traceEvents"] == []' "$output"
}

@test "missing file, directory (exit 2), non-FXT file (exit 1): one-line error, no output file" {
	for f in nosuch.fxt . /etc/hostname; do
		run --separate-stderr "$FXT" json -o o.json "$f"
		[ "$status" -eq $([ "$f" = /etc/hostname ] && echo 1 || echo 2) ] ||
			{ echo "$f: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ ! -e o.json ]
	done
}

@test "usage errors exit 2; --help prints usage and exits 0" {
	run --separate-stderr "$FXT" json
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" json a.fxt b.fxt
	[ "$status" -eq 2 ]
	run "$FXT" json --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"-o, --output"* ]]
}

@test "a process named twice (manager and process) gives one process_name event" {
	"$GEN" --dups d.fxt
	"$FXT" json -o d.json d.fxt
	n=$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"] == "process_name" and e["pid"] == 1000))' d.json)
	[ "$n" -eq 1 ]
}

@test "a log line is one event: the mirrored log instant is left out" {
	"$GEN" --dups d.fxt
	"$FXT" json -o d.json d.fxt
	n=$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("args", {}).get("message") == "hello from main"))' d.json)
	[ "$n" -eq 1 ]
	run python3 "$CLIENT_TESTS/json-vs-archive.py" d.fxt d.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--since/--until: the window only; calls across a bound cut at it, marked clipped" {
	"$FXT" json -o full.json t.fxt
	run "$FXT" json --since 0.001000010 --until 0.001000200 -o w.json t.fxt
	[ "$status" -eq 0 ]
	run python3 "$CLIENT_TESTS/json-window.py" full.json w.json 0.001000010 0.001000200
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches" ]]
	# main [1000000, 1001000] on 1001 cut at both bounds; outer (a begin/end pair on 1002,
	# [1000100, 1000400]) cut at the end, as one X; a [1000010, 1000200] exactly at the bounds
	python3 -c 'import json, sys
ev = {(e["tid"], e["name"]): e for e in json.load(open(sys.argv[1]))["traceEvents"]}
m, o, a = ev[(1001, "main")], ev[(1002, "outer")], ev[(1001, "a")]
assert (m["ph"], m["ts"], m["dur"], m["args"]) == ("X", 1000.01, 0.19, {"clipped": "both"}), m
assert (o["ph"], o["ts"], o["dur"], o["args"]) == ("X", 1000.1, 0.1, {"clipped": "end"}), o
assert (a["ts"], a["dur"], "args" in a) == (1000.01, 0.19, False), a
assert (1001, "c") not in ev and (1002, "pthread_mutex_lock") not in ev' w.json
}

@test "--since/--until: a call starting at the window's start is written after the calls cut there" {
	# Perfetto orders slices of one start by duration, then as written: main (cut) and a
	# (whole) span the same window and must nest main > a
	"$FXT" json --since 0.001000010 --until 0.001000200 --tid 1001 -o w.json t.fxt
	python3 -c 'import json, sys
names = [e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
assert names.index("main") < names.index("a"), names' w.json
}

@test "--since/--until +TIME: after the trace start, the same document as the stamps" {
	"$FXT" json --since 0.001000010 --until 0.001000200 -o stamps.json t.fxt
	"$FXT" json --since +10ns --until +200ns -o offsets.json t.fxt
	cmp stamps.json offsets.json
	run --separate-stderr "$FXT" json --until 0.0005 t.fxt	# before every event
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys
assert all(e["ph"] == "M" for e in json.load(sys.stdin)["traceEvents"])' <<<"$output"
}

@test "--tid, --pid: only those threads' events and names" {
	run "$FXT" json --tid 1002,2001 t.fxt
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys
ev = json.load(sys.stdin)["traceEvents"]
assert {e["tid"] for e in ev if e["ph"] != "M" or e["name"] == "thread_name"} == {1002, 2001}, ev
assert sum(1 for e in ev if e["name"] == "outer") == 1' <<<"$output"
	run "$FXT" json --pid 2000 t.fxt
	python3 -c 'import json, sys
ev = json.load(sys.stdin)["traceEvents"]
assert {e["pid"] for e in ev} == {2000}, ev' <<<"$output"
}

@test "a bad selection: one line, exit 2, no output file" {
	for args in "--since x" "--until 1 --since 2" "--tid 1,x"; do
		run --separate-stderr "$FXT" json $args -o bad.json t.fxt
		[ "$status" -eq 2 ] || { echo "$args: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ ! -e bad.json ]
	done
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "empty archive (no magic number record)" json empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "not an FXT archive" json text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "truncated" json cut.fxt
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "with size 0" json bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" json nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs t.fxt
	expect_exit 2 "dir.fxt: Is a directory" json dir.fxt
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" json --no-such-option t.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" json --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 the archive is invalid"*"2 usage error"* ]]
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe t.fxt json
}

@test "a truncated archive through a pipe is invalid, exit 1" {
	inputs t.fxt
	run --separate-stderr bash -c 'cat cut.fxt | "$FXT" json -'
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
}

# gen-client-archive --migrate: a thread off CPU [1300, 1400) and [1700, 1800) ns around its call
# g [1500, 1600), its switches written CPU by CPU out of time order (per-CPU buffers drained in
# turn). Pairing them in the order read gave one stretch [1300, 1800) over g: Perfetto's
# slice_spill_overlapping_complete_event.
@test "off-CPU slices pair each switch out with the next switch in by time, not as read" {
	"$GEN" --migrate m.fxt
	"$FXT" json -o m.json m.fxt
	run python3 -c 'import json, sys
for e in json.load(open("m.json"))["traceEvents"]:
    if e["name"].startswith("off-cpu"):
        print(e["name"], round(e["ts"] * 1000), round(e["dur"] * 1000), e["pid"], e["tid"])'
	echo "$output"
	[ "${lines[0]}" = "off-cpu (preempted) 1300 100 5000 5001" ]
	[ "${lines[1]}" = "off-cpu (blocked) 1700 100 5000 5001" ]
	[ "${#lines[@]}" -eq 2 ]
	run python3 "$CLIENT_TESTS/json-nest.py" m.json	# 5 on the thread, 3 on the CPUs
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 8 slices, 0 partly overlapping" ]]
	# a window cutting both: the cut stretches still nest in main
	"$FXT" json --since +350ns --until +850ns -o w.json m.fxt
	run python3 "$CLIENT_TESTS/json-nest.py" w.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 6 slices, 0 partly overlapping" ]]
}
