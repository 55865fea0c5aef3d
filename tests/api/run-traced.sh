#!/usr/bin/env bash
# One end-to-end run of an API test program: untraced, then with libfxtauto.so preloaded (and
# the extra VAR=value settings given); checks that stdout and exit status are the same, that
# api-check finds exactly the records of EXPECTED, and that `fxt check` accepts the archive.
# Env: FXTAUTO (the .so), API_CHECK (tests/api/api-check), FXT (the fxt command; optional).
# CHILD_EXPECTED=file among the settings: the program forks once; its child's archive is
# checked against that file too. COUNTS=1: api-check -c (sorted lines with counts).
# Usage: run-traced.sh EXPECTED [VAR=value...] PROG [ARGS...]
# SPDX-License-Identifier: MIT
set -u
expected=$1
shift
settings=()
child_expected=
check_flags=()
while [[ $# -gt 0 && $1 == *=* ]]; do
	case $1 in
	CHILD_EXPECTED=*) child_expected=${1#*=} ;;
	COUNTS=1) check_flags=(-c) ;;
	*) settings+=("$1") ;;
	esac
	shift
done
. "$(dirname "$0")/lib.sh"

env -u LD_PRELOAD "$@" >"$tmp/plain.out"
plain_rc=$?
env "${settings[@]}" LD_PRELOAD="$FXTAUTO" FXT_OUTPUT="$tmp/trace.fxt" "$@" >"$tmp/traced.out"
traced_rc=$?
claim $((plain_rc != traced_rc)) "exit status is $plain_rc with and without the tracer"
cmp -s "$tmp/plain.out" "$tmp/traced.out"
claim $? "stdout is the same with and without the tracer"
[ -s "$tmp/trace.fxt" ]
claim $? "the traced run wrote \$FXT_OUTPUT"
api_check "$tmp/trace.fxt" "$expected" "api-check: the archive holds the expected API records" \
	"${check_flags[@]}"
archives=("$tmp/trace.fxt")
if [ -n "$child_expected" ]; then
	children=("$tmp"/trace.fxt.*)
	[ ${#children[@]} = 1 ] && [ -s "${children[0]}" ]
	claim $? "the forked child wrote its own archive (FXT_OUTPUT.<pid>)"
	api_check "${children[0]}" "$child_expected" \
		"api-check: the child's archive holds the child's API records"
	archives+=("${children[0]}")
fi
if [ -n "${FXT:-}" ]; then
	for a in "${archives[@]}"; do
		fxt_check "$a" "fxt check accepts $(basename "$a")"
	done
fi
exit $fail
