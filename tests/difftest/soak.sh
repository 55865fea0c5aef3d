#!/usr/bin/env bash
# Soak of the differential tester: N seeds (24 runs each: 12 compiler variants x fxtrun and
# LD_PRELOAD), from FIRST (default: a random one, printed, so that the soak can be run again).
# Each failure prints its seed and a reproducer command; the summary counts failures by class.
# Usage: tests/difftest/soak.sh N [FIRST]; env: BUILD (build directory, default build), JOBS
# (seeds at once, default 2). Exit status: difftest.py's (0 when every run passed).
# SPDX-License-Identifier: MIT
set -u
n=${1:?usage: soak.sh N [FIRST]}
first=${2:-$((RANDOM * 32768 + RANDOM))}
echo "soak: seeds $first..$((first + n - 1))"
exec python3 "$(dirname "$0")/difftest.py" --build "${BUILD:-build}" -j "${JOBS:-2}" \
	--seeds "$first:$((first + n - 1))"
