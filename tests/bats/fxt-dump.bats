#!/usr/bin/env bats
# `fxt dump`: one line per record on archives made by bench/gen-archive (valid, broken in one
# way, unknown record types), missing file, directory, empty file. Paths come from ctest
# (tests/reader.cmake): FXT, GEN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load helpers
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	gen ok
}

@test "a valid archive: one line per record, fields and arguments decoded, exit 0" {
	gen ok
	run --separate-stderr "$FXT" dump ok.fxt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "00000000 magic magic=0x16547846" ]
	[ "${lines[1]}" = '00000008 provider_info provider=100 name="gen-100"' ]
	[ "${lines[2]}" = "00000018 provider_section provider=100" ]
	[ "${lines[3]}" = "00000020 init ticks_per_second=1000000000" ]
	[ "${lines[4]}" = '00000030 string index=1 str="namespace::function_1(int, char const*)"' ]
	grep -qE '^[0-9a-f]{8} thread index=1 koids=1000/1000$' <<<"$output"
	grep -qE '^[0-9a-f]{8} kernel_object obj_type=2 koid=1001 name="worker" args\{"process":koid=1000\}$' <<<"$output"
	grep -qE '^[0-9a-f]{8} complete ts=[0-9]+ thread=1000/100[0-7] cat="" name="namespace::function_[0-9]+\(int, char const\*\)" end_ts=[0-9]+ dur=[0-9]+$' <<<"$output"
	grep -qE '^[0-9a-f]{8} begin ts=[0-9]+ thread=1000/100[0-7] cat="cat" name="[^"]+" args\{"count":int64=[0-9]+, "what":string="namespace::[^"]+", "ratio":double=[0-9.]+\}$' <<<"$output"
	grep -qE '^[0-9a-f]{8} async_begin .* id=[0-9]+$' <<<"$output"
	grep -qE '^[0-9a-f]{8} flow_end .* id=[0-9]+$' <<<"$output"
	grep -qE '^[0-9a-f]{8} provider_info provider=101 name="gen-101"$' <<<"$output"
	# as many lines as records (fxt check counts them), offsets strictly increasing
	records=$("$FXT" check ok.fxt | awk '/^records:/ { print $2 }')
	[ "${#lines[@]}" -eq "$records" ]
	printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | LC_ALL=C sort -c -u
}

@test "a truncated archive: every whole record, then 'truncated at offset N', exit 1" {
	gen t -c truncated
	run --separate-stderr "$FXT" dump t.fxt
	[ "$status" -eq 1 ]
	off=$(( $(size t.fxt) - 16 ))
	[[ "$stderr" == "fxt dump: t.fxt: truncated at offset $off: "* ]]
	last=$(printf '%08x' $(( off - 24 )))
	[[ "${lines[-1]}" == "$last "* ]]
}

@test "a record of size 0: 'corrupt at offset N', exit 1" {
	gen z -c size0
	run --separate-stderr "$FXT" dump z.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == "fxt dump: z.fxt: corrupt at offset $(( $(size z.fxt) - 8 )): record of type 0 with size 0" ]]
}

@test "lenient by default (an unregistered string prints empty), --strict stops at it" {
	gen b -c badref
	run --separate-stderr "$FXT" dump b.fxt
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *' instant ts='*' cat="" name=""' ]]
	[ "$stderr" = "fxt dump: b.fxt: 1 violations of the format tolerated (fxt check reports them)" ]
	run --separate-stderr "$FXT" dump --strict b.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"corrupt at offset $(( $(size b.fxt) - 16 )): string ref to unregistered index 9999" ]]
}

@test "a record of unknown type is skipped: the records around it print, exit 0" {
	gen u -c unknown
	gen ok
	run --separate-stderr "$FXT" dump u.fxt
	[ "$status" -eq 0 ]
	[ "$output" = "$("$FXT" dump ok.fxt)" ]
}

@test "a missing file: exit 2 with the reason" {
	run --separate-stderr "$FXT" dump nothere.fxt
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt dump: nothere.fxt: No such file or directory" ]
}

@test "a directory: exit 2 with the reason" {
	mkdir d
	run --separate-stderr "$FXT" dump d
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt dump: d: Is a directory" ]
}

@test "an empty file has no records: no lines, invalid (no magic number record), exit 1" {
	: >empty.fxt
	run --separate-stderr "$FXT" dump empty.fxt
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "fxt dump: empty.fxt: offset 0: empty archive (no magic number record)" ]
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "empty archive (no magic number record)" dump empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "not an FXT archive" dump text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "truncated" dump cut.fxt
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs ok.fxt
	expect_exit 1 "with size 0" dump bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" dump nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs ok.fxt
	expect_exit 2 "dir.fxt: Is a directory" dump dir.fxt
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" dump --no-such-option ok.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" dump --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 the archive is invalid"*"2 usage error"* ]]
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe ok.fxt dump
}

@test "a truncated archive through a pipe is invalid, exit 1" {
	inputs ok.fxt
	run --separate-stderr bash -c 'cat cut.fxt | "$FXT" dump -'
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
}
