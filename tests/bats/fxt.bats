#!/usr/bin/env bats
# `fxt` itself: --help, --version, CMD --help for every command, unknown commands, and the
# fxtrun name dispatching to `fxt record`. Paths come from ctest (tests/reader.cmake): FXT.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

@test "fxt --help lists the commands and exits 0" {
	run --separate-stderr "$FXT" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: fxt "* ]]
	grep -qE '^  dump +print one line per record' <<<"$output"
	grep -qE '^  check +validate an archive' <<<"$output"
}

@test "fxt without a command prints the usage on stderr and exits 2" {
	run --separate-stderr "$FXT"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "usage: fxt "* ]]
}

@test "fxt --version prints the version and exits 0" {
	run "$FXT" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^fxt\ \(fxtauto\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "an unknown command is an error naming it, exit 2" {
	run --separate-stderr "$FXT" frobnicate x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown command 'frobnicate'"* ]]
}

@test "fxt CMD --help describes each listed command and exits 0" {
	cmds=$("$FXT" --help | awk '/^commands:/ { on = 1; next } on && NF { print $1 } !NF && on { exit }')
	[ -n "$cmds" ]
	for cmd in $cmds; do
		run --separate-stderr "$FXT" "$cmd" --help
		[ "$status" -eq 0 ] || { echo "fxt $cmd --help: status $status"; false; }
		[[ "$output" == *"usage: fx"* ]] || { echo "fxt $cmd --help: $output"; false; }
	done
}

@test "fxt dump and fxt check without a FILE are usage errors, exit 2" {
	run --separate-stderr "$FXT" dump
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"expected one FILE"* ]]
	run --separate-stderr "$FXT" check a b
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" check --bogus x
	[ "$status" -eq 2 ]
}

@test "invoked as fxtrun, the binary runs the record command" {
	ln -s "$FXT" "$BATS_TEST_TMPDIR/fxtrun"
	run --separate-stderr "$BATS_TEST_TMPDIR/fxtrun" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: fxtrun "* ]]
}
