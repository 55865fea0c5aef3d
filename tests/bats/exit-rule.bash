# The exit status every command that reads an archive follows (launcher/cmd/cmd.h): 0 ok; 1 the
# archive is invalid (empty, not FXT, truncated, corrupt) or nothing matched; 2 usage, or the
# input cannot be read. Loaded by the bats suite of each reading command; one @test per case
# there. Needs FXT; works in the cwd (the test's temporary directory).
# SPDX-License-Identifier: MIT

# inputs VALID: writes beside the valid archive VALID: empty.fxt, a directory dir.fxt, text.fxt
# (not FXT), cut.fxt (VALID cut inside its last record) and bad.fxt (VALID and then a record
# header of size 0).
inputs() {
	: >empty.fxt
	mkdir -p dir.fxt
	echo "hello, world" >text.fxt
	head -c $(($(stat -c %s "$1") - 4)) "$1" >cut.fxt
	cp "$1" bad.fxt
	printf '\x04\x00\x00\x00\x00\x00\x00\x00' >>bad.fxt
}

# expect_exit STATUS TEXT ARGS...: `fxt ARGS` exits STATUS with TEXT in its stderr, which is
# one line when nothing could be read (status 2).
expect_exit() {
	local want=$1 text=$2
	shift 2
	run --separate-stderr "$FXT" "$@"
	echo "fxt $*: status $status; stderr: $stderr"
	[ "$status" -eq "$want" ]
	[[ "$stderr" == *"$text"* ]]
	[ "$want" -ne 2 ] || [ "${#stderr_lines[@]}" -eq 1 ]
}

# expect_pipe VALID ARGS...: `fxt ARGS -` and `fxt ARGS /dev/stdin` fed VALID through a pipe
# print what `fxt ARGS VALID` prints and exit 0 as it does.
expect_pipe() {
	local valid=$1
	shift
	"$FXT" "$@" "$valid" >file.out
	run --separate-stderr bash -c 'cat "$1" | "$FXT" "${@:2}" -' _ "$valid" "$@"
	echo "stdin '-': status $status; stderr: $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat file.out)" ]
	run --separate-stderr bash -c 'cat "$1" | "$FXT" "${@:2}" /dev/stdin' _ "$valid" "$@"
	echo "/dev/stdin: status $status; stderr: $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat file.out)" ]
}
