#!/usr/bin/env bash
# Perfetto conformance: records archives covering every record kind fxtauto writes (function
# calls, threads and their names, thread-creation flows, locks and userspace objects, logs, the
# <fxt/trace.h> API's events of every kind and argument type with counters, async and flows,
# samples, context switches, drops, several processes; LD_PRELOAD alone, fxtrun, the manager
# service) and loads each with Perfetto's trace_processor_shell (compare.py): no import error,
# and the counts and names fxt reads are what Perfetto shows; and `fxt json` of a window of
# some of them (json-window.py): nothing dropped.
# Usage: run.sh BUILD_DIR TRACE_PROCESSOR_SHELL. Files: a temporary directory, removed.
# SPDX-License-Identifier: MIT
set -euo pipefail
build=$(cd "$1" && pwd)
tp=$(realpath "$2")	# the runs change directory
here=$(cd "$(dirname "$0")" && pwd)
fxt=$build/launcher/fxt fxtrun=$build/launcher/fxtrun lib=$build/preload/libfxtauto.so
tests=$build/tests
work=$(mktemp -d /tmp/fxt-perfetto.XXXXXX)
manager=
cleanup() {
	for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null || true; done
	if [ -n "$manager" ]; then
		# the manager service runs on after its clients: end it (SIGTERM), then its leftovers
		kill -TERM "$(cut -d' ' -f1 "$work/rt/manager.pid" 2>/dev/null)" 2>/dev/null || true
		FXT_RUNTIME_DIR=$work/rt "$fxt" clean >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
failed=0

# check NAME NEEDS: the archive NAME.fxt against Perfetto (compare.py).
check() {
	python3 "$here/compare.py" "$fxt" "$tp" "$1.fxt" "$2" || failed=1
}
# preload NAME NEEDS [VAR=value...] PROGRAM [ARGS...]: LD_PRELOAD alone, then check.
preload() {
	local name=$1 needs=$2
	shift 2
	env FXT_OUTPUT="$work/$name.fxt" LD_PRELOAD="$lib" "$@" >"$name.out" 2>"$name.err"
	check "$name" "$needs"
}
# record NAME NEEDS [fxtrun options...] -- PROGRAM [ARGS...]: under fxtrun, then check.
record() {
	local name=$1 needs=$2
	shift 2
	"$fxtrun" -o "$name.fxt" "$@" >"$name.out" 2>"$name.err"
	check "$name" "$needs"
}

echo "trace_processor_shell: $tp"
preload demo-preload slice,flow,thread:5 "$build/examples/c-demo"
record demo-fxtrun slice,flow,thread:5 -- "$build/examples/c-demo"
record drops slice --mode oneshot --buffer-size 1M -- "$build/examples/c-demo"
grep -q "records dropped" <("$fxt" dump drops.fxt) || { echo "drops.fxt: no drop record"; failed=1; }
record circular slice --mode circular --buffer-size 1M -- "$build/examples/c-demo"
preload api-preload slice,flow,log,counter "$tests/api-all"
record api-fxtrun slice,flow,log,counter -- "$tests/api-all-cpp"
preload log slice,flow,log,thread:5 "$tests/k-log"
record locks slice,flow,thread:4 -- "$tests/k-sync"
grep -q "userspace_object" <("$fxt" dump locks.fxt) || { echo "locks.fxt: no userspace object"; failed=1; }
record sched slice,flow,sched --sched -- "$tests/c-sched"
preload samples slice,flow FXT_SAMPLE=10000 "$tests/m-threads"
FXT_SAMPLE=10000 record samples-traced slice,flow -- "$tests/m-threads-traced"
record fork slice -- "$tests/progs/gcc/s-fork"
# Without context switches: those of a thread that never ran our code before the exit come
# with no record naming the thread, and Perfetto files it under a process of pid 0.
record spawn-exit slice,flow --sched=0 -- "$tests/rprogs/r-spawn-exit" 8

# fxt json of a window: calls cut at its bounds still nest, nothing is dropped on import.
for name in demo-preload api-preload sched locks; do
	python3 "$here/json-window.py" "$fxt" "$tp" "$name.fxt" || failed=1
done

# The manager service: a registered program traced from `fxt start` to `fxt stop`.
export FXT_RUNTIME_DIR=$work/rt
mkdir -m 700 rt
timeout 10 "$fxt" manager
manager=1
mkfifo in out
FXT_REGISTER=1 LD_PRELOAD=$lib "$tests/g-reg" <in >out 2>g-reg.err &
greg=$!
exec {w}>in {r}<out
for _ in $(seq 1200); do	# registered: listed idle (60 s at most: a busy machine)
	"$fxt" list | awk -v p="$greg" '$1 == p && $3 == "idle" { found = 1 } END { exit !found }' &&
		break
	sleep 0.05
done
"$fxt" start --pid "$greg" >service.out 2>&1
say() { echo "$1" >&"$w"; read -r -t 10 answer <&"$r"; }
say on
say "threads 3 500"
say "call 100"
"$fxt" stop -o service.fxt >>service.out 2>&1
say off
echo "quit 0" >&"$w"
wait "$greg"
check service slice,thread:4	# circular mode (fxt start's default): no flows

[ "$failed" = 0 ] && echo "Perfetto conformance: every archive imports without errors, counts equal"
exit "$failed"
