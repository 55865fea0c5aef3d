#!/usr/bin/env bash
# Runs a fuzzer: tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET] (default fuzz-reader; also
# fuzz-registry, the manager service's packets). BUILD_DIR was configured with CC=clang
# -DFXT_FUZZ=ON and built with --target TARGET. Work goes to BUILD_DIR/fuzz-work/TARGET: the
# reader's committed seed corpus is copied to its corpus/ (the fuzzer adds to the copy, never to
# the tree; the others start empty). Exits non-zero on a crash, leak, timeout (-timeout=5 per
# input) or memory limit (2 GiB), the input kept in its artifacts/.
# SPDX-License-Identifier: MIT
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 BUILD_DIR SECONDS [TARGET]" >&2
	exit 2
fi
build=$1 seconds=$2 target=${3:-fuzz-reader}
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build/tests/$target
if [ ! -x "$fuzzer" ]; then
	echo "run.sh: $fuzzer missing (configure with CC=clang -DFXT_FUZZ=ON, build --target $target)" >&2
	exit 2
fi
work=$build/fuzz-work/$target
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
[ "$target" != fuzz-reader ] || cp "$here"/corpus/* "$work/corpus/"
log=$work/fuzz.log
status=0
ASAN_OPTIONS=detect_leaks=1 "$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
	-artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus" >"$log" 2>&1 || status=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
if [ "$status" -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
	tail -n 60 "$log"
	echo "run.sh: the fuzzer failed (exit $status); inputs in $work/artifacts" >&2
	exit 1
fi
echo "run.sh: no crash, leak or hang in ${seconds} s ($(ls "$work/corpus" | wc -l) corpus inputs)"
