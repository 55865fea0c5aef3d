#!/usr/bin/env bats
# `fxt stats`: counts on the archive of known content written by
# tests/client/gen-client-archive.c, truncated input, error cases.
# Paths come from ctest (tests/client.cmake): FXT, GEN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	"$GEN" t.fxt
}

@test "records and bytes per type, events per type, unknown records skipped" {
	run --separate-stderr "$FXT" stats t.fxt
	[ "$status" -eq 0 ]
	size=$(stat -c %s t.fxt)
	grep -q "^archive: $size bytes, 69 records (1 of unknown type skipped)" <<<"$output"
	grep -qE '^event +32 +1264$' <<<"$output"
	grep -qE '^kernel object +4 ' <<<"$output"
	grep -qE '^duration complete +15$' <<<"$output"
	grep -qE '^flow end +1$' <<<"$output"
}

@test "per provider: name, events and the buffer-full drop report" {
	run "$FXT" stats t.fxt
	grep -qE '^ +1 +[0-9]+ +[0-9]+ +29 +1 +0  gen-a$' <<<"$output"
	grep -qE '^ +2 +[0-9]+ +[0-9]+ +3 +0 +0  gen-b$' <<<"$output"
	grep -qx 'records dropped: 0 (from 1 drop report)' <<<"$output"
	! grep -q '^drops:' <<<"$output" || false	# a report of nothing dropped read as a drop
}

@test "per thread: events and names" {
	run "$FXT" stats t.fxt
	grep -qE '^ +1000 +1001 +15  main-thread$' <<<"$output"
	grep -qE '^ +1000 +1002 +10  worker "2"$' <<<"$output"
	grep -qE '^ +2000 +2001 +3  $' <<<"$output"
}

@test "time span from the first event to the last end" {
	run "$FXT" stats t.fxt
	grep -q '^time span: 1.001 ms' <<<"$output"
}

@test "the time span's first and last stamps, which --since/--until take: everything selected" {
	run "$FXT" stats t.fxt
	grep -q '^time span: 1.001 ms (0.001000000 s to 0.002001000 s)$' <<<"$output"
	run "$FXT" stats --since 0.001000000 --until 0.002001000 t.fxt
	[ "$status" -eq 0 ]
	grep -q '^selected: 34 records (events, log records, context switches) in the window \[0.001000000 s, 0.002001000 s\]$' <<<"$output"
	run "$FXT" stats --since 0.001000001 --until 0.002001000 t.fxt	# main of 1001 starts 1 ns before
	grep -q '^selected: 33 records' <<<"$output"
}

@test "--tid, --pid, --since/--until +TIME: counts of what they select" {
	run "$FXT" stats --tid 1002 t.fxt
	[ "$status" -eq 0 ]
	grep -q '^selected: 11 records .* of thread 1002$' <<<"$output"
	grep -qE '^ +1000 +1002 +10  worker "2"$' <<<"$output"
	[ "$(sed -n '/^ *pid *tid/,$p' <<<"$output" | wc -l)" -eq 2 ]	# one thread row
	grep -qE '^log +1 +' <<<"$output"
	run "$FXT" stats --pid 2000 --since +1ms t.fxt
	grep -q '^selected: 3 records' <<<"$output"
	grep -qE '^duration complete +3$' <<<"$output"
	run --separate-stderr "$FXT" stats --tid 4242 t.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nothing selected"* ]]
	run --separate-stderr "$FXT" stats --since 2 --until 1 t.fxt
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "a truncated archive: counts up to the last whole record, invalid: exit 1" {
	size=$(stat -c %s t.fxt)
	head -c $((size - 8)) t.fxt >cut.fxt
	run --separate-stderr "$FXT" stats cut.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
	grep -qE '^event +31 ' <<<"$output"
}

@test "a corrupt record: counts before it, one-line error, exit 1" {
	python3 -c 'import struct, sys
d = bytearray(open("t.fxt", "rb").read())
w = struct.unpack_from("<Q", d, len(d) - 24)[0]
struct.pack_into("<Q", d, len(d) - 24, w & ~0xfff0)
open("bad.fxt", "wb").write(d)'
	run --separate-stderr "$FXT" stats bad.fxt
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	grep -qE '^event +31 ' <<<"$output"
}

@test "missing file, directory (exit 2), non-FXT file (exit 1): one-line error" {
	for f in nosuch.fxt . /etc/hostname; do
		run --separate-stderr "$FXT" stats "$f"
		[ "$status" -eq $([ "$f" = /etc/hostname ] && echo 1 || echo 2) ] ||
			{ echo "$f: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

@test "usage errors exit 2; --help prints usage and exits 0" {
	run --separate-stderr "$FXT" stats
	[ "$status" -eq 2 ]
	run "$FXT" stats --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "empty archive (no magic number record)" stats empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "not an FXT archive" stats text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "truncated" stats cut.fxt
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "with size 0" stats bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" stats nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs t.fxt
	expect_exit 2 "dir.fxt: Is a directory" stats dir.fxt
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" stats --no-such-option t.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" stats --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 the archive is invalid"*"2 usage error"* ]]
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe t.fxt stats
}

@test "a truncated archive through a pipe is invalid, exit 1" {
	inputs t.fxt
	run --separate-stderr bash -c 'cat cut.fxt | "$FXT" stats -'
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
}
