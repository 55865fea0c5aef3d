#!/usr/bin/env bash
# Checks that NTRACE builds reference no symbol of the tracer: `nm` lists no fxt_ name (defined,
# undefined or weak) in any program given. Usage: no-tracer-symbols.sh NM PROG...
# SPDX-License-Identifier: MIT
set -u
nm=$1
shift
fail=0
for prog in "$@"; do
	syms=$("$nm" "$prog") || { echo "not ok - $nm failed on $prog"; exit 2; }
	found=$(grep -E '\bfxt_' <<<"$syms")
	if [ -z "$found" ]; then
		echo "ok - $(basename "$prog") references no fxt_ symbol"
	else
		echo "not ok - $(basename "$prog") references tracer symbols:"
		echo "$found"
		fail=1
	fi
done
exit $fail
