#!/usr/bin/env bats
# `fxt report`: one @test per option and error case, on the archive of known content written by
# tests/client/gen-client-archive.c (nested calls main{a{b b} a c{a} lock} on thread 1001,
# begin/end outer{inner lock} on 1002, samples on 1003, a second process at 100 MHz ticks).
# Paths come from ctest (tests/client.cmake): FXT, GEN, CLIENT_TESTS (tests/client), GEN_ARCHIVE
# (bench/gen-archive, when built).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load exit-rule

setup() {
	cd "$BATS_TEST_TMPDIR"
	"$GEN" t.fxt
}

# corrupt IN OUT: IN with the header of its last record (3 words) set to size 0
corrupt() {
	python3 -c 'import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
w = struct.unpack_from("<Q", d, len(d) - 24)[0]
struct.pack_into("<Q", d, len(d) - 24, w & ~0xfff0)
open(sys.argv[2], "wb").write(d)' "$1" "$2"
}

# lacks ERE TEXT: fails when TEXT has a line matching ERE (a bare `! grep` never fails a test)
lacks() {
	! grep -qE "$1" <<<"$2"	# status
}

# row SECTION-OUTPUT NAME: the table line of function NAME
row() {
	grep -E "  $2\$" <<<"$1" | head -1 | sed -E 's/ +/ /g; s/^ //'
}

@test "default: per-process table with calls, total, self, avg, max sorted by self" {
	run --separate-stderr "$FXT" report t.fxt
	[ "$status" -eq 0 ]
	[ "$(row "$output" main)" = "1 1.000 us 260 ns 1.000 us 1.000 us main" ]
	[ "$(row "$output" a)" = "3 300 ns 230 ns 100 ns 190 ns a" ]
	[ "$(row "$output" outer)" = "1 300 ns 160 ns 300 ns 300 ns outer" ]
	first=$(grep -A2 '== functions: process 1000 (gen-proc)' <<<"$output" | tail -1)
	[[ "$first" == *" c" ]]
	grep -q '== functions: process 2000 (second)' <<<"$output"
}

@test "figures equal an independent recomputation from the JSON events" {
	"$FXT" json t.fxt -o t.json
	"$FXT" report --sort name t.fxt >t.txt
	run python3 "$CLIENT_TESTS/recompute.py" t.json t.txt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"13 rows compared, 0 mismatches"* ]]
	"$FXT" report --tree t.fxt >tree.txt
	run python3 "$CLIENT_TESTS/recompute.py" t.json t.txt tree.txt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"15 tree paths compared, 0 mismatches"* ]]
}

@test "lock waits and sampled stacks have their own sections" {
	run "$FXT" report t.fxt
	lock=$(sed -n '/== lock waits/,$p' <<<"$output")
	[ "$(row "$lock" queue_lock)" = "2 90 ns 45 ns 50 ns queue_lock" ]
	samples=$(sed -n '/== sampled stacks/,/== lock/p' <<<"$output")
	[ "$(row "$samples" hot)" = "1 200 ns 200 ns 200 ns 200 ns hot" ]
	lacks pthread_mutex_lock "$output"
}

@test "--sort calls, total, avg, max, name, self order the rows" {
	for k in calls:a total:main avg:main max:main name:a self:c; do
		run "$FXT" report --sort "${k%%:*}" --pid 1000 t.fxt
		[ "$status" -eq 0 ]
		first=$(grep -A2 '== functions' <<<"$output" | tail -1)
		[[ "$first" == *" ${k#*:}" ]] || { echo "--sort ${k%%:*}: $first"; false; }
	done
}

@test "--sort with an unknown key: one-line error, exit 2" {
	run --separate-stderr "$FXT" report --sort speed t.fxt
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"--sort speed"* ]]
}

@test "--limit N keeps the top N rows of each table" {
	run "$FXT" report --limit 2 --pid 1000 t.fxt
	[ "$status" -eq 0 ]
	n=$(sed -n '/== functions/,/^$/p' <<<"$output" | grep -cE ' (ns|us) ')
	[ "$n" -eq 2 ]
	run --separate-stderr "$FXT" report --limit 0 t.fxt
	[ "$status" -eq 2 ]
}

@test "--threads: one table per thread, named from kernel object records" {
	run "$FXT" report --threads t.fxt
	[ "$status" -eq 0 ]
	grep -q '== functions: process 1000 (gen-proc), thread 1001 (main-thread) ==' <<<"$output"
	grep -q '== functions: process 1000 (gen-proc), thread 1002 (worker "2") ==' <<<"$output"
	t2=$(sed -n '/thread 1002/,/^$/p' <<<"$output")
	[ "$(row "$t2" inner)" = "1 100 ns 100 ns 100 ns 100 ns inner" ]
	lacks '  main$' "$t2"
}

@test "--tree: call paths with inclusive time, self time and counts" {
	run "$FXT" report --tree --pid 1000 t.fxt
	[ "$status" -eq 0 ]
	grep -qE '^ +1\.000 us +260 ns +1  main$' <<<"$output"
	grep -qE '^ +290 ns +220 ns +2    a$' <<<"$output"
	grep -qE '^ +70 ns +70 ns +2      b$' <<<"$output"
	grep -qE '^ +10 ns +10 ns +1      a$' <<<"$output"
	grep -qE '^ +40 ns +40 ns +1    \[lock wait\] queue_lock$' <<<"$output"
	grep -q '== sampled call tree' <<<"$output"
}

@test "--edges: caller, callee and calls of every pair, (root) for the outermost calls" {
	run --separate-stderr "$FXT" report --edges --pid 1000 t.fxt
	[ "$status" -eq 0 ]
	# thread 1001: main{a{b b} a c{a} wait}, 1002: outer{inner wait}, 1003: inline_fn; waits
	# are not calls
	[ "$output" = "$(printf '1\t(root)\tinline_fn\n1\t(root)\tmain\n1\t(root)\touter\n2\ta\tb\n1\tc\ta\n2\tmain\ta\n1\tmain\tc\n1\touter\tinner')" ]
	run --separate-stderr "$FXT" report --edges --function b t.fxt
	[ "$output" = "$(printf '2\ta\tb')" ]
}

@test "--edges: a pair summed over processes and threads; the callees of a stall's caller" {
	"$GEN" --fanout 20000 f.fxt
	run --separate-stderr "$FXT" report --edges f.fxt
	[ "$status" -eq 0 ]
	grep -qx "$(printf '1\t(root)\tmain')" <<<"$output"
	lacks 'populate|pthread_create|join' "$output"
	leaf=$(awk -F'\t' '$2 == "main" && $3 == "leaf" {print $1}' <<<"$output")
	[ "$leaf" -eq 20000 ]
}

@test "nesting is by time, not by the order records were written (stalls, late records)" {
	"$GEN" --late l.fxt
	run --separate-stderr "$FXT" report --tree l.fxt
	[ "$status" -eq 0 ]
	grep -qE '^ +1\.000 us +410 ns +1  main$' <<<"$output"
	grep -qE '^ +100 ns +100 ns +1    f$' <<<"$output"
	grep -qE '^ +90 ns +90 ns +1    \[tracer stall\] take chunk$' <<<"$output"
	grep -qE '^ +400 ns +300 ns +1    g$' <<<"$output"
	grep -qE '^ +100 ns +100 ns +2      h$' <<<"$output"
	run --separate-stderr "$FXT" report --edges l.fxt
	[ "$output" = "$(printf '1\t(root)\tmain\n2\tg\th\n1\tmain\tf\n1\tmain\tg')" ]
}

@test "--pid keeps one process" {
	run "$FXT" report --pid 2000 t.fxt
	[ "$status" -eq 0 ]
	[ "$(row "$output" main)" = "1 1.000 us 790 ns 1.000 us 1.000 us main" ]
	lacks 'process 1000' "$output"
}

@test "--tid keeps one thread" {
	run "$FXT" report --tid 1002 t.fxt
	[ "$status" -eq 0 ]
	[ "$(row "$output" outer)" = "1 300 ns 160 ns 300 ns 300 ns outer" ]
	lacks '  (main|a|b|c)$' "$output"
	run --separate-stderr "$FXT" report --tid x12 t.fxt
	[ "$status" -eq 2 ]
}

@test "--function GLOB keeps matching functions" {
	run "$FXT" report --function 'o*' t.fxt
	[ "$status" -eq 0 ]
	grep -q '  outer$' <<<"$output"
	lacks '  (main|a|inner)$' "$output"
	run "$FXT" report --tree --function b --pid 1000 t.fxt
	grep -qE '  main$' <<<"$output"
	grep -qE '      b$' <<<"$output"
	lacks '  c$' "$output"
}

@test "--function takes lists as --filter does: comma-separated and repeatable" {
	run "$FXT" report --function 'o*,b' t.fxt
	[ "$status" -eq 0 ]
	grep -q '  outer$' <<<"$output"
	grep -q '  b$' <<<"$output"
	lacks '  (main|a|inner)$' "$output"
	run "$FXT" report --function 'o*' --function b t.fxt
	[ "$status" -eq 0 ]
	grep -q '  outer$' <<<"$output"
	grep -q '  b$' <<<"$output"
	lacks '  (main|a|inner)$' "$output"
}

@test "a valid archive without calls: says so, exit 0" {
	python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<Q", 0x0016547846040010))' e.fxt
	run "$FXT" report e.fxt
	[ "$status" -eq 0 ]
	[ "$output" = "e.fxt: no function calls recorded" ]
}

@test "--from/--to keep calls inside the window, relative to trace start" {
	run "$FXT" report --from 250ns --to 0.95us --pid 1000 t.fxt
	[ "$status" -eq 0 ]
	[ "$(row "$output" a)" = "2 110 ns 110 ns 55 ns 100 ns a" ]
	lacks '  (main|b|outer)$' "$output"
	run --separate-stderr "$FXT" report --from 10parsecs t.fxt
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$FXT" report --from 2ms --to 1ms t.fxt
	[ "$status" -eq 2 ]
}

@test "--since/--until take stamps as fxt stats prints them; --from/--to are --since/--until +TIME" {
	"$FXT" report --from 250ns --to 0.95us --pid 1000 t.fxt >from
	"$FXT" report --since 0.001000250 --until 0.001000950 --pid 1000 t.fxt >stamps
	"$FXT" report --since +250ns --until '+0.950 us' --pid 1000 t.fxt >offsets
	cmp from stamps
	cmp from offsets
	[ "$(row "$(cat stamps)" a)" = "2 110 ns 110 ns 55 ns 100 ns a" ]
	run --separate-stderr "$FXT" report --since 0.001000250 --until +0.95us t.fxt
	[ "$status" -eq 0 ]	# a stamp and an offset together
}

@test "--tid and --pid take lists" {
	run "$FXT" report --tid 1002,2001 t.fxt
	[ "$status" -eq 0 ]
	[ "$(row "$output" outer)" = "1 300 ns 160 ns 300 ns 300 ns outer" ]
	grep -q 'process 2000' <<<"$output"
	lacks '  (b|c)$' "$output"
	run "$FXT" report --pid 1000,2000 --tid 2001 t.fxt
	lacks 'process 1000' "$output"
	grep -q 'process 2000' <<<"$output"
}

@test "a truncated archive is read up to the last whole record, invalid: exit 1" {
	size=$(stat -c %s t.fxt)
	head -c $((size - 8)) t.fxt >cut.fxt
	run --separate-stderr "$FXT" report --pid 1000 cut.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
	[ "$(row "$output" main)" = "1 1.000 us 260 ns 1.000 us 1.000 us main" ]
}

@test "an archive cut inside a word is read up to the last whole record, invalid: exit 1" {
	size=$(stat -c %s t.fxt)
	head -c $((size - 5)) t.fxt >cut.fxt
	run --separate-stderr "$FXT" report --pid 1000 cut.fxt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
	[ "$(row "$output" main)" = "1 1.000 us 260 ns 1.000 us 1.000 us main" ]
}

@test "a corrupt record: what precedes it is reported, one-line error, exit 1" {
	corrupt t.fxt bad.fxt
	run --separate-stderr "$FXT" report --pid 2000 bad.fxt
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"corrupt record at offset"* ]]
	[ "$(row "$output" a)" = "2 210 ns 210 ns 105 ns 200 ns a" ]
}

@test "missing file, directory: one-line error, exit 2; non-FXT file: exit 1" {
	for f in nosuch.fxt . /etc/hostname; do
		run --separate-stderr "$FXT" report "$f"
		[ "$status" -eq $([ "$f" = /etc/hostname ] && echo 1 || echo 2) ] ||
			{ echo "$f: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ -z "$output" ]
	done
}

@test "usage errors exit 2; --help prints usage and exits 0" {
	run --separate-stderr "$FXT" report
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" report --bogus t.fxt
	[ "$status" -eq 2 ]
	run "$FXT" report --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--sort"*"--tree"*"--from"* ]]
}

# The archive of gen-client-archive --fanout 20000: main with 20000+ direct callees in chunks
# written out of order, a pthread_create span, a tracer stall and two joins of threads named zstd.
@test "a frame with many direct callees in chunks out of order: table and tree recomputed" {
	"$GEN" --fanout 20000 f.fxt
	"$FXT" json -o f.json f.fxt
	"$FXT" report --sort name f.fxt >f.txt
	"$FXT" report --tree f.fxt >f.tree
	run python3 "$CLIENT_TESTS/recompute.py" f.json f.txt f.tree
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(row "$(cat f.txt)" main)" = "1 230.200 us 100.193 us 230.200 us 230.200 us main" ]
}

@test "tracer stalls (category fxtauto): their own section with a total, not a function" {
	"$GEN" --fanout 20000 f.fxt
	run "$FXT" report f.fxt
	fn=$(sed -n '/== functions/,/^$/p' <<<"$output")
	lacks 'populate' "$fn"
	stalls=$(sed -n '/== tracer stalls/,$p' <<<"$output")
	[ "$(row "$stalls" populate)" = "1 2 ns 2 ns 2 ns populate" ]
	grep -qE '^ +2 ns  all tracer stalls' <<<"$stalls"
	run "$FXT" report --tree f.fxt
	grep -qE '^ +2 ns +2 ns +1    \[tracer stall\] populate$' <<<"$output"
}

@test "pthread_create spans (category pthread) are not among the program's functions" {
	"$GEN" --fanout 20000 f.fxt
	run "$FXT" report f.fxt
	fn=$(sed -n '/== functions/,/^$/p' <<<"$output")
	lacks 'pthread_create' "$fn"
	grep -q '== thread creation' <<<"$output"
	[ "$(row "$(sed -n '/== thread creation/,/^$/p' <<<"$output")" pthread_create)" = "1 2 ns 2 ns 2 ns pthread_create" ]
}

@test "join waits of two threads of one name stay two rows, marked as lock waits in --tree" {
	"$GEN" --fanout 20000 f.fxt
	run "$FXT" report f.fxt
	lock=$(sed -n '/== lock waits/,/^$/p' <<<"$output")
	[ "$(row "$lock" 'join zstd 0x7f00')" = "1 1 ns 1 ns 1 ns join zstd 0x7f00" ]
	[ "$(row "$lock" 'join zstd 0x7e00')" = "1 2 ns 2 ns 2 ns join zstd 0x7e00" ]
	lacks '  zstd$' "$output"
	grep -qE '^ +waits +total +avg +max  object$' <<<"$lock"
	run "$FXT" report --tree f.fxt
	grep -qE '    \[lock wait\] join zstd 0x7f00$' <<<"$output"
}

@test "--tid or --pid matching nothing: one-line error, exit 1" {
	run --separate-stderr "$FXT" report --tid 99999 t.fxt
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"no events of thread 99999"* ]]
	[ -z "$output" ]
	run --separate-stderr "$FXT" report --pid 99999 t.fxt
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "--function or --from/--to matching nothing: the same one-line error, no empty tables" {
	for args in "--function nosuch" "--from 1s" "--tree --function nosuch"; do
		run --separate-stderr "$FXT" report $args t.fxt
		[ "$status" -eq 1 ] || { echo "$args: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *"no calls match"* ]]
		[ -z "$output" ] || { echo "$args: $output"; false; }
	done
}

# ---- the exit rule of every reading command (launcher/cmd/cmd.h, tests/bats/exit-rule.bash) ----

@test "exit rule: an empty file is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "empty archive (no magic number record)" report empty.fxt
}

@test "exit rule: a file that is not FXT is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "not an FXT archive" report text.fxt
}

@test "exit rule: a truncated archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "truncated" report cut.fxt
}

@test "exit rule: a corrupt archive is invalid, exit 1" {
	inputs t.fxt
	expect_exit 1 "with size 0" report bad.fxt
}

@test "exit rule: a missing file cannot be read, exit 2" {
	expect_exit 2 "nothere.fxt: No such file or directory" report nothere.fxt
}

@test "exit rule: a directory cannot be read, exit 2" {
	inputs t.fxt
	expect_exit 2 "dir.fxt: Is a directory" report dir.fxt
}

@test "exit rule: a usage error, exit 2; the rule is in --help" {
	run --separate-stderr "$FXT" report --no-such-option t.fxt
	[ "$status" -eq 2 ]
	run --separate-stderr "$FXT" report --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit 0 ok; 1 the archive is invalid"*"2 usage error"* ]]
}

@test "a pipe: '-' and /dev/stdin are read into memory, as the file is" {
	expect_pipe t.fxt report
}

@test "a truncated archive through a pipe is invalid, exit 1" {
	inputs t.fxt
	run --separate-stderr bash -c 'cat cut.fxt | "$FXT" report -'
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"truncated"* ]]
}

@test "bounded memory: --edges keeps one node per caller->callee pair, not per call path" {
	# gen-archive's call trees draw each call's name at random: nearly every call is a path
	# of its own. --edges built the whole tree first: 420 MB peak on this 64 MiB archive
	# then, 22 MB now (its 4,160 pairs).
	[ -n "${GEN_ARCHIVE:-}" ] || skip "bench/gen-archive is not built"
	"$GEN_ARCHIVE" -s $((64 << 20)) -t 64 big.fxt
	/usr/bin/time -f '%M' -o rss timeout 120 "$FXT" report --edges big.fxt >edges
	rm big.fxt
	echo "peak RSS $(cat rss) KB, $(wc -l <edges) pairs"
	[ "$(wc -l <edges)" -gt 1000 ]
	[ "$(cat rss)" -lt 90000 ]
}

@test "--tree-memory: past its budget the tree goes to a temporary file; the same tree printed" {
	# Nearly every call of gen-archive is a path of its own: the whole tree took 125 MB on
	# this 16 MiB archive (4 GB at 1 GiB); within 2 MiB, 25 MB (ASan: 440 and 45 with its
	# quarantine of freed memory kept small).
	[ -n "${GEN_ARCHIVE:-}" ] || skip "bench/gen-archive is not built"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
	"$GEN_ARCHIVE" -s $((16 << 20)) -t 8 big.fxt
	mkdir tmp
	/usr/bin/time -f '%M' -o rss-all timeout 120 "$FXT" report --tree big.fxt >all
	for args in "" "--threads --function *_3* --limit 5"; do
		# shellcheck disable=SC2086 # args are words
		TMPDIR=$PWD/tmp /usr/bin/time -f '%M' -o rss \
			timeout 120 "$FXT" report --tree --tree-memory 2 $args big.fxt >bounded
		echo "$args: peak RSS $(cat rss) KB ($(cat rss-all) KB unbounded), $(wc -l <bounded) lines"
		[ -z "$args" ] || timeout 120 "$FXT" report --tree $args big.fxt >all
		cmp all bounded
		[ "$(wc -l <bounded)" -gt 500 ]
		[ "$(cat rss)" -lt 80000 ]
		[ "$(cat rss)" -lt $(($(cat rss-all) / 2)) ]
		[ -z "$(ls tmp)" ]	# the temporary file went with the process
	done
	rm big.fxt
}

@test "--tree-memory: calls out of order in many chunks spilled and merged give the same tree" {
	"$GEN" --fanout 20000 f.fxt
	"$FXT" report --tree f.fxt >all
	run "$FXT" report --tree --tree-memory 1 f.fxt
	[ "$status" -eq 0 ]
	diff all <(echo "$output")
}

@test "--tree-memory: not a positive number of MiB, or no temporary file: one-line error, exit 2" {
	for m in 0 -1 x 1048577; do
		run --separate-stderr "$FXT" report --tree --tree-memory "$m" t.fxt
		[ "$status" -eq 2 ]
		[[ "$stderr" == "fxt report: --tree-memory $m: expected MiB"* ]]
	done
	"$GEN" --fanout 20000 f.fxt
	TMPDIR=$PWD/nonexistent run --separate-stderr "$FXT" report --tree --tree-memory 1 f.fxt
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt report: the call tree's temporary file in \$TMPDIR: No such file or directory" ]
}
