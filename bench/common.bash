# Shared by the bench/*.sh scripts, sourced first (after `set -e...`): their name in messages,
# stopping with one line, finding what they run in the build tree, a temporary directory
# removed at exit, and instruction counts under callgrind. Sets bench (the script's name) and
# root (the source tree). Functions that find something missing print one line and exit 1.
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2034,SC2154 # root is for the scripts; build and fxt are theirs

bench=$(basename "$0" .sh)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$bench: $*" >&2; exit 1; }

# need NAME: the real path of the built file NAME found anywhere under $build.
need() {
	local f
	f=$(find "$build" -name "$1" -type f -print -quit 2>/dev/null)
	[ -n "$f" ] || die "$1 not found under $build (build the target)"
	realpath "$f"
}

# have TARGETS FILE...: each FILE exists, else: "FILE missing (build TARGETS)".
have() {
	local targets=$1 f
	shift
	for f in "$@"; do [ -e "$f" ] || die "$f missing (build $targets)"; done
}

# have_tools COMMAND...: each is installed.
have_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || die "$t is not installed (bash scripts/deps.sh)"
	done
}

# bench_tmp [DIR]: sets tmp to a new directory (in DIR, default $TMPDIR or /tmp) removed at exit,
# after stopping the manager bench_manager started and calling the script's bench_on_exit, if
# it defines one.
# shellcheck disable=SC2120 # DIR is optional
bench_tmp() {
	local dir=${1:-${TMPDIR:-/tmp}}
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/fxt-$bench.XXXXXX")
	trap bench_exit EXIT
}
bench_exit() {
	[ -f "$tmp/rt/manager.pid" ] && kill "$(cut -d' ' -f1 "$tmp/rt/manager.pid")" 2>/dev/null
	! declare -F bench_on_exit >/dev/null || bench_on_exit
	rm -rf "$tmp"
}

# bench_manager: starts a manager service of its own (fxt manager, $fxt the fxt binary) with
# the runtime directory $tmp/rt, exported as FXT_RUNTIME_DIR for what the script runs.
bench_manager() {
	export FXT_RUNTIME_DIR=$tmp/rt
	mkdir -m 700 "$FXT_RUNTIME_DIR"
	"$fxt" manager
}

# callgrind RUN...: the instructions of the measured loop only of one run (RUN... followed by
# the valgrind words as the run's wrapper; --toggle-collect: startup and symbolization are not
# counted). Valgrind counts instructions exactly whatever the machine's noise.
callgrind() {
	"$@" valgrind -q --tool=callgrind --toggle-collect=measured --callgrind-out-file="$tmp/cg.out"
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out"
}
# callgrind_ready: whether valgrind is there (else says so on stdout: the figures before stand).
callgrind_ready() {
	command -v valgrind >/dev/null || { echo "callgrind: valgrind is not installed"; return 1; }
}
