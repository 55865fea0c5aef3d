#!/usr/bin/env bash
# Runs each program given (no tracer) and checks that all print the same stdout and exit with
# the same status as the first: the <fxt/trace.h> claims "runs normally without the tracer"
# and "NTRACE output = output with the macros removed". Usage: same-output.sh PROG...
# SPDX-License-Identifier: MIT
set -u
ref_out=$(mktemp) && out=$(mktemp) || exit 2
trap 'rm -f "$ref_out" "$out"' EXIT
env -u LD_PRELOAD "$1" >"$ref_out"
ref_rc=$?
[ -s "$ref_out" ] || { echo "not ok - $1 printed nothing"; exit 1; }
fail=0
for prog in "${@:2}"; do
	env -u LD_PRELOAD "$prog" >"$out"
	rc=$?
	if [ "$rc" = "$ref_rc" ] && cmp -s "$ref_out" "$out"; then
		echo "ok - $(basename "$prog") prints the same output and status ($rc) as $(basename "$1")"
	else
		echo "not ok - $(basename "$prog") differs from $(basename "$1") (status $rc vs $ref_rc)"
		diff "$ref_out" "$out" | head -20
		fail=1
	fi
done
exit $fail
