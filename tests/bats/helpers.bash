# Shared by the bats suites of fxt, fxt dump and fxt check. Paths come from ctest
# (tests/reader.cmake): FXT (the fxt binary), GEN (bench/gen-archive).
# SPDX-License-Identifier: MIT

# gen NAME [gen-archive options...]: writes NAME.fxt (about 20 KB, 2 providers) in the cwd.
gen() {
	local name=$1
	shift
	"$GEN" -s 20000 -t 8 "$@" "$name.fxt"
}

# size FILE: its size in bytes.
size() {
	stat -c %s "$1"
}
