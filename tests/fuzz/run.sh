#!/usr/bin/env bash
# Runs the reader fuzzer: tests/fuzz/run.sh BUILD_DIR SECONDS. BUILD_DIR was configured with
# CC=clang -DFXT_FUZZ=ON and built with --target fuzz-reader. The committed seed corpus is copied
# to BUILD_DIR/fuzz-work/corpus (the fuzzer adds to the copy, never to the tree). Exits non-zero
# on a crash, leak, timeout (-timeout=5 per input) or memory limit (2 GiB), the input kept in
# BUILD_DIR/fuzz-work/artifacts/.
# SPDX-License-Identifier: MIT
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 BUILD_DIR SECONDS" >&2
	exit 2
fi
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build/tests/fuzz-reader
if [ ! -x "$fuzzer" ]; then
	echo "run.sh: $fuzzer missing (configure with CC=clang -DFXT_FUZZ=ON, build --target fuzz-reader)" >&2
	exit 2
fi
work=$build/fuzz-work
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$here"/corpus/* "$work/corpus/"
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
