#!/usr/bin/env bats
# `fxt report --diff OLD NEW`: an archive against itself (no change), r-count traced with 200 and
# 400 calls of work() (its calls exactly double), the generated archives of known content
# (tests/client/gen-client-archive.c: functions only in one run marked), the options that apply
# to both archives, and the errors. Paths come from ctest (tests/client.cmake): FXT, GEN,
# FXTAUTO, R_COUNT.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	for n in 200 400; do
		FXT_OUTPUT=$PWD/count$n.fxt LD_PRELOAD=$FXTAUTO timeout 60 "$R_COUNT" $n >/dev/null
	done
	"$GEN" t.fxt
	"$GEN" --late late.fxt
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# row NAME: the figures of function NAME's line in $output (without its mark and name), one
# space apart.
row() {
	grep -E "  [ +-] $1\$" <<<"$output" | sed -E 's/  [ +-] [^ ]+$//; s/ +/ /g; s/^ //'
}

@test "an archive against itself: every change 0, every ratio 1.00" {
	run "$FXT" report --diff count200.fxt count200.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "== functions: count200.fxt -> count200.fxt (+ only in the second, - only in the first) ==" ]
	[[ "$(row work)" == "200 200 0 1.00 "*" 0 1.00 "*" 0 1.00" ]]
	[[ "$(row main)" == "1 1 0 1.00 "*" 0 1.00 "*" 0 1.00" ]]
	# every row: change 0 and ratio 1.00 for calls, total and self, nothing marked
	body=$(tail -n +3 <<<"$output")
	[ -n "$body" ]
	[ -z "$(grep -vE '^ +[0-9]+ +[0-9]+ +0 +1\.00 .* 0 +1\.00 .* 0 +1\.00    [^ +-]' <<<"$body")" ]
}

@test "200 and 400 calls of work(): its calls double exactly, main's stay 1" {
	run "$FXT" report --diff count200.fxt count400.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(row work)" == "200 400 +200 2.00 "* ]]
	[[ "$(row main)" == "1 1 0 1.00 "* ]]
	# rows by the size of their change of total time, largest first (times are the machine's:
	# a busy one sleeps longer, so no row's place is known in advance)
	tail -n +3 <<<"$output" | python3 -c 'import re, sys
units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
changes = []
for line in sys.stdin:
    f = line.split()
    c = f[8:10] if f[8] != "0" else ["0", "ns"]
    changes.append(abs(float(c[0])) * units[c[1]])
assert changes and changes == sorted(changes, reverse=True), changes'
	# the other way round: the change is negative, the ratio 0.50
	run "$FXT" report --diff count400.fxt count200.fxt
	[[ "$(row work)" == "400 200 -200 0.50 "* ]]
}

@test "functions only in one run are marked: + only in NEW, - only in OLD; summed over processes" {
	run "$FXT" report --diff --sort name t.fxt late.fxt
	echo "$output"
	[ "$status" -eq 0 ]
	# t.fxt: main once in process 1000 and once in 2000 (1 us each); late.fxt: main once
	[ "$(row main)" = "2 1 -1 0.50 2.000 us 1.000 us -1.000 us 0.50 1.050 us 410 ns -640 ns 0.39" ]
	[ "$(row a)" = "5 0 -5 0.00 510 ns 0 ns -510 ns 0.00 440 ns 0 ns -440 ns 0.00" ]
	[ "$(row h)" = "0 2 +2 - 0 ns 100 ns +100 ns - 0 ns 100 ns +100 ns -" ]
	grep -qE '^ .*  - a$' <<<"$output"
	grep -qE '^ .*  \+ h$' <<<"$output"
	grep -qE '^ .*    main$' <<<"$output"
	# --sort name: rows by name
	[ "$(tail -n +3 <<<"$output" | awk '{ print $NF }' | tr '\n' ' ')" = \
	  "a b c f g h inline_fn inner main outer " ]
}

@test "default order: the largest change of total first; --sort self and calls" {
	run "$FXT" report --diff t.fxt late.fxt
	[ "$(tail -n +3 <<<"$output" | awk '{ print $NF }' | head -3 | tr '\n' ' ')" = "main a c " ]
	run "$FXT" report --diff --sort calls t.fxt late.fxt
	[ "$(tail -n +3 <<<"$output" | awk '{ print $NF }' | head -2 | tr '\n' ' ')" = "a b " ]
	run "$FXT" report --diff --sort self t.fxt late.fxt
	[ "$(tail -n +3 <<<"$output" | awk '{ print $NF }' | head -2 | tr '\n' ' ')" = "main a " ]
}

@test "--limit, --function and the selection apply to both archives" {
	run "$FXT" report --diff --limit 2 t.fxt late.fxt
	[ "${#lines[@]}" -eq 4 ]
	run "$FXT" report --diff --function 'm*,h' t.fxt late.fxt
	echo "$output"
	[ "$(tail -n +3 <<<"$output" | awk '{ print $NF }' | tr '\n' ' ')" = "main h " ]
	# --pid 1000 keeps t.fxt's first process; late.fxt has none of it: every row gone (-)
	run "$FXT" report --diff --pid 1000,4000 --function main t.fxt late.fxt
	echo "$output"
	[ "$(row main)" = "1 1 0 1.00 1.000 us 1.000 us 0 1.00 260 ns 410 ns +150 ns 1.58" ]
	# a window counted from each archive's start: calls that end by +500ns
	run "$FXT" report --diff --until +500ns --sort name t.fxt late.fxt
	echo "$output"
	[ "$(row a)" = "2 0 -2 0.00 290 ns 0 ns -290 ns 0.00 220 ns 0 ns -220 ns 0.00" ]
	[ "$(row f)" = "0 1 +1 - 0 ns 100 ns +100 ns - 0 ns 100 ns +100 ns -" ]
	[ -z "$(row main)" ]
}

@test "a glob matching nothing in either: one line, exit 1" {
	run --separate-stderr "$FXT" report --diff --function nothing t.fxt late.fxt
	[ "$status" -eq 1 ]
	[ "$stderr" = "fxt report: t.fxt, late.fxt: no calls match --function nothing" ]
}

@test "a missing second archive: one line, exit 2, nothing compared" {
	run --separate-stderr "$FXT" report --diff t.fxt nothere.fxt
	echo "stdout: $output; stderr: $stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "fxt report: nothere.fxt: No such file or directory"* ]]
}

@test "a corrupt or truncated second archive: one line, exit 1, nothing compared" {
	inputs t.fxt
	for bad in bad.fxt cut.fxt text.fxt; do
		run --separate-stderr "$FXT" report --diff t.fxt $bad
		echo "$bad: status $status; stdout: $output; stderr: $stderr"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "fxt report: $bad: "* ]]
	done
}

@test "usage: two archives; no --threads, --tree, --edges or other sort keys; exit 2" {
	for args in "t.fxt" "t.fxt late.fxt t.fxt"; do
		run --separate-stderr "$FXT" report --diff $args
		[ "$status" -eq 2 ]
		[ "$stderr" = "fxt report: expected two archives (try fxt report --help)" ]
	done
	for opt in --threads --tree --edges "--sort max"; do
		run --separate-stderr "$FXT" report --diff $opt t.fxt late.fxt
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "fxt report: --diff compares functions"* ]]
	done
	run "$FXT" report --help
	[[ "$output" == *"fxt report --diff [options] OLD NEW"* ]]
}
