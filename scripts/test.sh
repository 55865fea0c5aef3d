#!/usr/bin/env bash
# Builds and runs every test: release build with -Werror, its e2e and bats tests again beside
# two CPU hogs (a busy machine), the Perfetto conformance stage when Perfetto's
# trace_processor_shell is at ../shared/tools/perfetto/ (or $FXT_TRACE_PROCESSOR; else one line
# says it is skipped), the same tests under ASan+UBSan, the buffer tests under TSan, the reader
# fuzzer for FXT_FUZZ_SECONDS (default 60) and the
# manager service packet fuzzer for FXT_REGISTRY_FUZZ_SECONDS (default 20).
# Exits non-zero on the first failing stage. Build trees: build/, build-asan/, build-tsan/, build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage() { printf '\n=== %s ===\n' "$*"; }

stage "release build (-Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFXT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
stage "release tests"
ctest --test-dir build --output-on-failure -j"$jobs"

# Two busy loops (killed by pid on every way out), while the tests that run the tracer on real
# programs (label e2e, and the bats suites) run again: they must hold on a loaded machine.
stage "e2e and bats tests beside two CPU hogs"
hogs=()
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true
	hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
for _ in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
ctest --test-dir build --output-on-failure -j"$jobs" -L e2e -E '^difftest$'	# (its seeds ran above)
ctest --test-dir build --output-on-failure -j"$jobs" -LE e2e -R 'bats$'
stop_hogs

# Perfetto's own importer (tests/perfetto/run.sh), where CI puts it: shared/ beside the repo.
tp=${FXT_TRACE_PROCESSOR:-../shared/tools/perfetto/trace_processor_shell}
if [ -x "$tp" ]; then
	stage "Perfetto conformance: every kind of archive loaded with $tp"
	bash tests/perfetto/run.sh build "$tp"
else
	echo "Perfetto conformance skipped: no $tp (set FXT_TRACE_PROCESSOR to run it)"
fi

stage "ASan+UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFXT_WERROR=ON -DFXT_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
stage "ASan+UBSan tests"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE nosan

stage "TSan build and buffer tests"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DFXT_WERROR=ON -DFXT_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs"
ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L tsan

if [ -f tests/fuzz/CMakeLists.txt ] || [ -f tests/fuzz.cmake ]; then
	stage "fuzzers: reader ${FXT_FUZZ_SECONDS:-60} s, service packets ${FXT_REGISTRY_FUZZ_SECONDS:-20} s"
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DFXT_FUZZ=ON -DFXT_BUILD_TESTS=ON >/dev/null
	cmake --build build-fuzz -j"$jobs" --target fuzz-reader fuzz-registry
	bash tests/fuzz/run.sh build-fuzz "${FXT_FUZZ_SECONDS:-60}"
	bash tests/fuzz/run.sh build-fuzz "${FXT_REGISTRY_FUZZ_SECONDS:-20}" fuzz-registry
fi
echo "all test stages passed"
