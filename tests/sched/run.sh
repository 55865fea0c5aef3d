#!/bin/sh
# run.sh LIBFXTAUTO FXT PROGRAM OUT [TOL]: runs PROGRAM (tests/progs/c-sched.c) with FXT_SCHED=1
# under LD_PRELOAD (or, with FXTRUN set, under `fxtrun --sched`), checks the archive with
# `fxt check`, then the claims of check.py against `fxt report` and `fxt dump`. Files: OUT.*.
set -e
lib=$1 fxt=$2 prog=$3 out=$4 tol=${5:-5}
here=$(dirname "$0")
rm -f "$out" "$out".*
if [ -n "$FXTRUN" ]; then
	"$FXTRUN" --sched -o "$out" -- "$prog" > "$out.stdout" 2> "$out.stderr"
else
	FXT_SCHED=1 FXT_OUTPUT="$out" LD_PRELOAD="$lib" "$prog" > "$out.stdout" 2> "$out.stderr"
fi
if grep -q "^fxtauto:" "$out.stderr"; then cat "$out.stderr"; exit 1; fi
"$fxt" check "$out" > "$out.check"
"$fxt" report "$out" > "$out.report"
"$fxt" dump "$out" > "$out.dump"
"$fxt" json "$out" > "$out.json"
grep -q '"name":"CPUs"' "$out.json"
python3 "$here/check.py" "$out.stdout" "$out.report" "$out.dump" "$tol"
rm -f "$out" "$out".*
