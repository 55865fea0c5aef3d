#!/bin/sh
# Runs one program sampled (LD_PRELOAD + FXT_SAMPLE) and checks its archive with m-check.
# usage: run.sh LIB M_CHECK OUT "CLAIMS" PROGRAM [ARGS...]
# The program's stdout lines "tid-samples TID" / "tid-none TID" are added to the claims.
# FXT_SAMPLE is taken from the environment (default: empty, that is 997 Hz).
# SPDX-License-Identifier: MIT
set -eu
lib=$1 check=$2 out=$3 claims=$4
shift 4
rm -f "$out" "$out.stdout"
FXT_SAMPLE=${FXT_SAMPLE-} FXT_OUTPUT=$out LD_PRELOAD=$lib "$@" > "$out.stdout"
extra=$(sed -n 's/^\(tid-samples\|tid-none\) \([0-9]*\)$/--\1 \2/p' "$out.stdout" | tr '\n' ' ')
# shellcheck disable=SC2086 # claims are words
"$check" "$out" $claims $extra
