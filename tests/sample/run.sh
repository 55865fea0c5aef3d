#!/bin/sh
# Runs one program sampled (LD_PRELOAD + FXT_SAMPLE) and checks its archive with m-check.
# usage: run.sh LIB M_CHECK OUT "CLAIMS" PROGRAM [ARGS...]
# The program's stdout lines "tid-samples TID" / "tid-none TID" are added to the claims.
# FXT_SAMPLE is taken from the environment (default: empty, that is 997 Hz); with FXTRUN set,
# the program runs under that fxtrun instead of LD_PRELOAD.
# SPDX-License-Identifier: MIT
set -eu
lib=$1 check=$2 out=$3 claims=$4
shift 4
rm -f "$out" "$out.stdout"
if [ -n "${FXTRUN-}" ]; then	# through fxtrun, FXT_SAMPLE passed in the environment
	FXT_SAMPLE=${FXT_SAMPLE-} "$FXTRUN" -o "$out" -- "$@" > "$out.stdout"
else
	FXT_SAMPLE=${FXT_SAMPLE-} FXT_OUTPUT=$out LD_PRELOAD=$lib "$@" > "$out.stdout"
fi
extra=$(sed -n 's/^\(tid-samples\|tid-none\) \([0-9]*\)$/--\1 \2/p' "$out.stdout" | tr '\n' ' ')
# shellcheck disable=SC2086 # claims are words
"$check" "$out" $claims $extra
