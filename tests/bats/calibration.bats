#!/usr/bin/env bats
# The ticks-per-second of an archive (its initialization record) is accurate within 0.1% even
# for a process that runs far shorter than the old fixed 10 ms calibration (preload/life/init.c):
# short runs, standalone and under fxtrun, agree with a 200 ms run. Paths come from ctest
# (tests/timing.cmake): FXTAUTO (the library), FXT (the fxt command), FXTRUN.
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# tps ARCHIVE: the ticks_per_second of every initialization record, one a line.
tps() {
	"$FXT" dump "$1" | sed -n 's/.* init ticks_per_second=\([0-9]*\)$/\1/p'
}

# near REF VALUE...: every VALUE within 0.1% of REF (and at least one VALUE).
near() {
	local ref=$1 v
	shift
	[ $# -gt 0 ]
	for v in "$@"; do
		echo "ticks/s $v vs $ref"
		[ $(((v > ref ? v - ref : ref - v) * 1000)) -le "$ref" ]
	done
}

@test "short runs' ticks per second are within 0.1% of a 200 ms run's" {
	FXT_OUTPUT=long.fxt LD_PRELOAD="$FXTAUTO" sleep 0.2
	ref=$(tps long.fxt)
	[ -n "$ref" ]
	for i in 1 2 3 4 5; do
		FXT_OUTPUT=short$i.fxt LD_PRELOAD="$FXTAUTO" /usr/bin/true
		near "$ref" $(tps short$i.fxt)
	done
	for i in 1 2 3; do
		"$FXTRUN" -o run$i.fxt /usr/bin/true 2>/dev/null
		near "$ref" $(tps run$i.fxt)
	done
}
