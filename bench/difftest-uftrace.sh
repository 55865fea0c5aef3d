#!/usr/bin/env bash
# bench/difftest-uftrace: how often each tracer's caller->callee counts equal a program's own,
# on the differential tester's generated programs (tests/difftest/: gcc and clang, -O0..-Os,
# recursion, pointers, tail calls, longjmp, signal handlers, threads, fork, C++ exceptions).
# Each program is traced by fxtrun, by LD_PRELOAD=libfxtauto.so and by `uftrace record`
# (edges read from `uftrace graph`); prints runs equal / runs per variant and tracer, and the
# failures by class. Usage: bench/difftest-uftrace.sh [BUILD_DIR] [SEEDS]  (build, 1:20).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
seeds=${2:-1:20}
command -v uftrace >/dev/null || { echo "difftest-uftrace: uftrace is not installed" >&2; exit 1; }
here=$(dirname "$0")
echo "difftest-uftrace: seeds $seeds, uftrace $(uftrace --version | head -1 | cut -d' ' -f2)"
# difftest.py exits 1 when a run differs: that is a figure here, not a failure
python3 "$here/../tests/difftest/difftest.py" --build "$build" --seeds "$seeds" --quiet \
	--mode fxtrun --mode preload --mode uftrace || [ $? = 1 ]
