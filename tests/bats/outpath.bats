#!/usr/bin/env bats
# Output paths (common/outpath.c): fxtrun -o, FXT_OUTPUT, fxt json -o and the service clients'
# -o write only to a regular file or an absent name: a device, FIFO, socket or directory is
# refused before any work (the program does not run), and never replaced by the final rename.
# Paths from ctest (tests/record.cmake): FXT, FXTRUN, FXTAUTO, RPROGS (tests/progs/r-*).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkfifo fifo
	mkdir dir
	# a character device of our own (the /dev/null numbers), when we may make one
	mknod null c 1 3 2>/dev/null || true
}

# refused_fxtrun PATH WHY: fxtrun -o PATH exits 2 with one line saying WHY, the program never
# ran, PATH is what it was
refused_fxtrun() {
	local before
	before=$(stat -c %F "$1")
	run --separate-stderr "$FXTRUN" -o "$1" sh -c 'touch ran'
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxtrun: -o $1: $2; an archive is written only to a regular file" ]
	[ ! -e ran ]
	[ "$(stat -c %F "$1")" = "$before" ]
	[ -z "$(ls | grep -e '\.part$')" ]
}

@test "fxtrun -o a device: refused before the program runs, the device stays" {
	[ -c null ] || skip "cannot make a device node here (not root)"
	refused_fxtrun null "is a device"
}

@test "fxtrun -o a FIFO, a directory: refused before the program runs" {
	refused_fxtrun fifo "is a FIFO"
	refused_fxtrun dir "is a directory"
}

@test "fxtrun -o a symbolic link: the link is replaced by the archive, its target untouched" {
	echo precious >target
	ln -s target link
	"$FXTRUN" -o link "$RPROGS/r-count" 1000 >/dev/null 2>&1
	[ "$(cat target)" = precious ]
	[ -f link ] && [ ! -L link ]
	"$FXT" check -q link
}

@test "FXT_OUTPUT a device or FIFO: one line, the program runs untraced and unchanged" {
	plain=$("$RPROGS/r-count" 2000)
	for node in fifo $([ -c null ] && echo null); do
		run --separate-stderr env FXT_OUTPUT="$node" LD_PRELOAD="$FXTAUTO" "$RPROGS/r-count" 2000
		[ "$status" -eq 0 ]
		[ "$output" = "$plain" ]
		[[ "$stderr" == "fxtauto: FXT_OUTPUT=$node: is a "*"; tracing off" ]]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
	done
	[ -p fifo ]
	[ ! -e null ] || [ -c null ]
	[ -z "$(ls | grep -e '\.part$')" ]
}

@test "fxt json -o: a FIFO or directory refused; a link replaced, never followed" {
	"$FXTRUN" -o t.fxt "$RPROGS/r-count" 1000 >/dev/null 2>&1
	run --separate-stderr "$FXT" json -o fifo t.fxt
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxt json: -o fifo: is a FIFO" ]
	run --separate-stderr "$FXT" json -o dir t.fxt
	[ "$status" -eq 2 ]
	echo secret >owned
	ln -s owned j.json
	"$FXT" json -o j.json t.fxt
	[ "$(cat owned)" = secret ]
	[ ! -L j.json ]
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' j.json
	[ -z "$(ls | grep -e '\.part$')" ]
}

@test "the service clients' -o: a FIFO is refused before anything is asked of the manager" {
	export FXT_RUNTIME_DIR="$BATS_TEST_TMPDIR/rt"
	run --separate-stderr "$FXT" snapshot -o fifo
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"-o fifo: is a FIFO; an archive is written only to a regular file"* ]]
	[ ! -e rt ] || [ -z "$(ls rt)" ]
}
