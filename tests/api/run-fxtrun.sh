#!/usr/bin/env bash
# An API test program recorded by the trace manager (`fxt record`, i.e. fxtrun) instead of a
# plain preload: the archive fxtrun writes must hold the API records of EXPECTED (api-check)
# and pass `fxt check`; the program's stdout must be what it prints untraced. Settings
# VAR=value (e.g. FXT_CATEGORIES=api) go into fxtrun's environment, --option=value (e.g.
# --categories=api) onto its command line.
# Env: FXT (the fxt command), API_CHECK.
# Usage: run-fxtrun.sh EXPECTED [VAR=value | --option=value ...] PROG
# SPDX-License-Identifier: MIT
set -u
expected=$1
shift
settings=()
options=()
while [[ $# -gt 0 && $1 == *=* ]]; do
	if [[ $1 == --* ]]; then options+=("$1"); else settings+=("$1"); fi
	shift
done
. "$(dirname "$0")/lib.sh"

env -u LD_PRELOAD "$@" >"$tmp/plain.out"
env -u LD_PRELOAD "${settings[@]}" "$FXT" record "${options[@]}" -o "$tmp/trace.fxt" -- "$@" >"$tmp/traced.out" \
	2>"$tmp/fxtrun.err"
claim $? "fxt record runs the program and exits 0"
cmp -s "$tmp/plain.out" "$tmp/traced.out"
claim $? "stdout under fxt record is the untraced stdout"
api_check "$tmp/trace.fxt" "$expected" "api-check: the fxtrun archive holds the expected API records"
fxt_check "$tmp/trace.fxt" "fxt check accepts the fxtrun archive"
exit $fail
