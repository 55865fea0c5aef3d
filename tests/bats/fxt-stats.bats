#!/usr/bin/env bats
# `fxt stats`: counts on the archive of known content written by
# tests/client/gen-client-archive.c, truncated input, error cases.
# Paths come from ctest (tests/client.cmake): FXT, GEN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

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
	grep -q '^drops: 1 buffer-full reports' <<<"$output"
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

@test "a truncated archive: counts up to the last whole record, warning, exit 0" {
	size=$(stat -c %s t.fxt)
	head -c $((size - 8)) t.fxt >cut.fxt
	run --separate-stderr "$FXT" stats cut.fxt
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning"*"truncated"* ]]
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

@test "missing file, directory, non-FXT file: one-line error, exit 2" {
	for f in nosuch.fxt . /etc/hostname; do
		run --separate-stderr "$FXT" stats "$f"
		[ "$status" -eq 2 ] || { echo "$f: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

@test "usage errors exit 1; --help prints usage and exits 0" {
	run --separate-stderr "$FXT" stats
	[ "$status" -eq 1 ]
	run "$FXT" stats --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
}
