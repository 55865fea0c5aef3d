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
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
claim() { # status description
	if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fail=1; fi
}

env -u LD_PRELOAD "$@" >"$tmp/plain.out"
env -u LD_PRELOAD "${settings[@]}" "$FXT" record "${options[@]}" -o "$tmp/trace.fxt" -- "$@" >"$tmp/traced.out" \
	2>"$tmp/fxtrun.err"
claim $? "fxt record runs the program and exits 0"
cmp -s "$tmp/plain.out" "$tmp/traced.out"
claim $? "stdout under fxt record is the untraced stdout"
"$API_CHECK" "$tmp/trace.fxt" "$expected" | sed 's/^/    /'
claim "${PIPESTATUS[0]}" "api-check: the fxtrun archive holds the expected API records"
"$FXT" check "$tmp/trace.fxt" >"$tmp/check.out" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/    /' "$tmp/check.out"
claim $rc "fxt check accepts the fxtrun archive"
exit $fail
