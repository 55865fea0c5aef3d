#!/usr/bin/env bats
# `fxt recover`: the exit rule of the reading commands (launcher/cmd/cmd.h, exit-rule.bash) on
# what it cannot repair: a file that is empty, too short or not a standalone run's (1), a
# missing file, a directory or a pipe (2: it repairs in place). Recovery itself is tested with
# killed runs in preload.bats. Paths from ctest: FXT, GEN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load helpers
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	gen ok
}

@test "exit rule: an empty file is not a killed run's file, exit 1" {
	inputs ok.fxt
	expect_exit 1 "empty file" recover empty.fxt
}

@test "exit rule: a text file is not a killed run's file, exit 1" {
	inputs ok.fxt
	expect_exit 1 "too short" recover text.fxt
}

@test "exit rule: a finished archive, truncated or corrupt, is not a killed run's file, exit 1" {
	inputs ok.fxt
	cp ok.fxt before.fxt
	for f in ok.fxt cut.fxt bad.fxt; do
		expect_exit 1 "not a killed run's file: an FXT archive not named FILE.part" recover $f
		[ -z "$output" ]
	done
	cmp ok.fxt before.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" recover nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs ok.fxt
	expect_exit 2 "dir.fxt: Is a directory" recover dir.fxt
}

@test "exit rule: a pipe ('-' or /dev/stdin) cannot be repaired in place, exit 2" {
	run --separate-stderr bash -c 'cat ok.fxt | "$FXT" recover -'
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt recover: -: not a regular file (a killed run's file is repaired in place)" ]
	run --separate-stderr bash -c 'cat ok.fxt | "$FXT" recover /dev/stdin'
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"not a regular file"* ]]
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" recover --no-such-option ok.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" recover
	[ "$status" -eq 2 ]
	run "$FXT" recover --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 FILE is not such an archive"*"2 usage error"* ]]
}
