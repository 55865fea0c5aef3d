#!/usr/bin/env bats
# `fxt check`: a valid archive and its summary, each class of invalid archive (exit 1, the
# first problem with its offset), unreadable input (exit 2), the empty file (invalid, exit 1),
# the exit rule shared by the reading commands (exit-rule.bash), archives on pipes.
# Archives come from bench/gen-archive -c KIND, which appends one broken thing to a valid
# archive: the problem's offset is the size of that archive. Paths from ctest: FXT, GEN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load helpers
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	gen ok
}

@test "a valid archive: summary of records, providers, threads, strings, bytes/event; exit 0" {
	run --separate-stderr "$FXT" check ok.fxt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[-1]}" = "valid" ]
	[ "${lines[0]}" = "records: $("$FXT" dump ok.fxt | wc -l) ($(size ok.fxt) bytes)" ]
	grep -qE '^  metadata +5$' <<<"$output"       # magic + 2 x (info, section)
	grep -qE '^  init +2$' <<<"$output"
	grep -qE '^  string +142$' <<<"$output"      # 71 names per provider
	grep -qE '^  thread +16$' <<<"$output"
	grep -qE '^  kernel_object +18$' <<<"$output"
	grep -qE '^providers: 2$' <<<"$output"
	grep -qE '^threads: [0-9]+ \(16 thread records\)$' <<<"$output"
	grep -qE '^strings: 142$' <<<"$output"
	grep -qE '^bytes/event: [0-9]+\.[0-9]$' <<<"$output"
}

@test "--quiet prints only the verdict" {
	run --separate-stderr "$FXT" check --quiet ok.fxt
	[ "$status" -eq 0 ]
	[ "$output" = "valid" ]
}

# expect_invalid KIND OFFSET TEXT: the archive broken by KIND is invalid at OFFSET with TEXT.
expect_invalid() {
	gen bad -c "$1"
	run --separate-stderr "$FXT" check bad.fxt
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "invalid" ]
	[[ "$stderr" == "fxt check: bad.fxt: offset $2 (0x"*"): "*"$3"* ]]
}

@test "structural: a truncated last record" {
	expect_invalid truncated $(( $(size ok.fxt) )) "truncated: record of 3 words runs past the end"
}

@test "structural: a record of size 0" {
	expect_invalid size0 $(size ok.fxt) "record of type 0 with size 0"
}

@test "structural: a ref to an unregistered string" {
	expect_invalid badref $(size ok.fxt) "string ref to unregistered index 9999"
}

@test "structural: a ref to an unregistered thread" {
	expect_invalid badthread $(size ok.fxt) "thread ref to unregistered index 254"
}

@test "structural: a string that is not UTF-8" {
	expect_invalid utf8 $(size ok.fxt) "string of 2 bytes is not valid UTF-8"
}

@test "structural: a reserved bit set" {
	expect_invalid reserved $(size ok.fxt) "non-zero reserved bits 0x8000000000000000"
}

@test "complete events overlapping without nesting: valid (no nesting rule in the spec), a warning with its offset" {
	gen bad -c overlap
	run --separate-stderr "$FXT" check bad.fxt
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "valid" ]
	[[ "$stderr" == "fxt check: bad.fxt: warning: offset $(( $(size ok.fxt) + 24 )) (0x"*"): "*"overlaps"*"without nesting" ]]
	grep -qE '^warnings: 1$' <<<"$output"
}

@test "semantic: a complete event ending before it starts" {
	expect_invalid backwards $(size ok.fxt) "ends (" 
	[[ "$stderr" == *"before it starts"* ]]
}

@test "semantic: a duration begin never ended" {
	expect_invalid unbalanced $(size ok.fxt) "duration begin never ended"
}

@test "semantic: an async begin without its end" {
	expect_invalid async $(size ok.fxt) "async id 1152921504606846976: 1 begin(s), 0 end(s)"
}

@test "semantic: a flow end without its begin" {
	expect_invalid flow $(size ok.fxt) "flow id 2305843009213693952: 0 begin(s), 1 end(s)"
}

@test "a record of a reserved type: invalid; --lenient skips it and counts it" {
	expect_invalid unknown $(size ok.fxt) "record type 12 is reserved"
	run --separate-stderr "$FXT" check --lenient bad.fxt
	[ "$status" -eq 0 ]
	grep -qE '^  skipped \(unknown\) +1$' <<<"$output"
}

@test "an argument of a reserved type: invalid; --lenient skips it" {
	expect_invalid argtype $(size ok.fxt) "argument 0: argument type 10 is reserved"
	run --separate-stderr "$FXT" check --lenient -q bad.fxt
	[ "$status" -eq 0 ]
}

# async_order KIND WHY: async records that pair by count but not in time order: invalid,
# the offending record named; --lenient (pairing by count) accepts them
async_order() {
	gen bad -c "async-$1"
	run --separate-stderr "$FXT" check bad.fxt
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "fxt check: bad.fxt: offset "*": async id 576460752303423488: $2 (in time order)" ]]
	run --separate-stderr "$FXT" check --lenient -q bad.fxt
	[ "$status" -eq 0 ]
}

@test "semantic: an async id begun twice before its end" {
	async_order twice "a second begin before its end"
}

@test "semantic: an async instant after its end" {
	async_order instant "an instant outside its begin and end"
}

@test "semantic: an async end before its begin" {
	async_order back "an end before its begin"
}

@test "no magic number record first (not FXT): invalid, exit 1" {
	gen nm -c nomagic
	run --separate-stderr "$FXT" check nm.fxt
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "invalid" ]
	[[ "$stderr" == "fxt check: nm.fxt: offset 0: not an FXT archive"* ]]
}

@test "a text file: invalid, exit 1" {
	echo "hello, world" >t.txt
	run --separate-stderr "$FXT" check t.txt
	[ "$status" -eq 1 ]
	[[ "$stderr" == "fxt check: t.txt: offset 0: not an FXT archive"* ]]
}

@test "unreadable: a missing file, exit 2" {
	run --separate-stderr "$FXT" check nothere.fxt
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt check: nothere.fxt: No such file or directory" ]
}

@test "unreadable: a directory, exit 2" {
	mkdir d
	run --separate-stderr "$FXT" check d
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt check: d: Is a directory" ]
}

@test "an empty file is invalid (no magic number record), exit 1" {
	: >empty.fxt
	run --separate-stderr "$FXT" check empty.fxt
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "invalid" ]
	[ "$stderr" = "fxt check: empty.fxt: offset 0: empty archive (no magic number record)" ]
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "empty archive (no magic number record)" check empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "not an FXT archive" check text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "truncated" check cut.fxt
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "with size 0" check bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" check nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs ok.fxt
	expect_exit 2 "dir.fxt: Is a directory" check dir.fxt
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" check --no-such-option ok.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" check --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 the archive is invalid"*"2 usage error"* ]]
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe ok.fxt check
}

@test "a truncated archive through a pipe is invalid, exit 1" {
	inputs ok.fxt
	run --separate-stderr bash -c 'cat cut.fxt | "$FXT" check -'
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
}
