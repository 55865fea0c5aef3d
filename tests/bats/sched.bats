#!/usr/bin/env bats
# Scheduling records (preload/sampling/sched.c): FXT_SCHED and fxtrun --sched record the traced threads'
# context switches; where the kernel refuses, one line says why and the trace goes on without.
# Environment: LIB (libfxtauto.so), FXT, FXTRUN, PROG (tests/progs/c-sched.c built), SENTINEL
# (tests/progs/lib-fork-sentinel.c built), EXIT_PROG (tests/progs/s-exit.c built).
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
}

switches() {
	"$FXT" dump "$1" | grep -c ' context_switch ' || true
}

@test "FXT_SCHED=1: context switch records of every thread, fxt check passes, program output unchanged" {
	run --separate-stderr env FXT_SCHED=1 FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB" "$PROG"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c '^fn ' <<<"$output")" -eq 5 ]
	"$FXT" check t.fxt
	[ "$(switches t.fxt)" -gt 500 ]
	for tid in $(awk '$1 == "sw" { print $2 }' <<<"$output"); do
		"$FXT" dump t.fxt | grep -q " context_switch .* out=0/$tid "
	done
}

@test "fxtrun --sched records the switches; fxt report shows on-cpu and off-cpu, lock blocked time" {
	run --separate-stderr "$FXTRUN" --sched -o t.fxt -- "$PROG"
	[ "$status" -eq 0 ]
	"$FXT" check t.fxt
	[ "$(switches t.fxt)" -gt 500 ]
	run "$FXT" report t.fxt
	[[ "$output" == *"on-cpu      off-cpu  function"* ]]
	[[ "$output" == *"running      blocked  object"* ]]
}

# sorted_by COLUMN REPORT: every table's rows are in non-increasing order of COLUMN (1-based,
# after the calls column: 1 total, 2 self, 3 avg, 4 max, 5 on-cpu, 6 off-cpu)
sorted_by() {
	python3 -c '
import re, sys
col, text = int(sys.argv[1]), sys.argv[2]
u = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
tables, prev = 0, None
for line in text.splitlines():
    if line.startswith("=="):
        prev = None
        continue
    m = re.findall(r"([\d.]+) (ns|us|ms|s)\b", line)
    if len(m) < 6:
        continue
    v = float(m[col - 1][0]) * u[m[col - 1][1]]
    if prev is None:
        tables += 1
    elif v > prev:
        sys.exit("out of order: " + line)
    prev = v
sys.exit(0 if tables else "no tables")' "$1" "$2"
}

@test "fxt report --sort on-cpu / off-cpu: rows by on-CPU and by off-CPU time" {
	FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB" "$PROG" > /dev/null
	"$FXT" report --sort on-cpu --threads t.fxt >on.txt
	"$FXT" report --sort off-cpu --threads t.fxt >off.txt
	sorted_by 5 "$(cat on.txt)"
	sorted_by 6 "$(cat off.txt)"
	grep -q '^ .*  \[blocked\]$' off.txt
	run "$FXT" report --sort cpu t.fxt
	[ "$status" -eq 2 ]
}

@test "context switches are recorded by default; FXT_SCHED=0 and --sched=0 turn them off" {
	FXT_OUTPUT=a.fxt LD_PRELOAD="$LIB" "$PROG" > /dev/null
	FXT_SCHED=0 FXT_OUTPUT=b.fxt LD_PRELOAD="$LIB" "$PROG" > /dev/null
	"$FXTRUN" --sched=0 -o c.fxt "$PROG" > /dev/null 2>&1
	[ "$(switches a.fxt)" -gt 0 ]
	[ "$(switches b.fxt)" -eq 0 ]
	[ "$(switches c.fxt)" -eq 0 ]
	run "$FXT" report b.fxt
	[[ "$output" != *"on-cpu"* ]]
	run "$FXT" report a.fxt
	[[ "$output" == *"on-cpu"* ]]
}

@test "a kernel that refuses perf_event_open (EACCES): one line why, the trace goes on without" {
	run --separate-stderr env FXT_SCHED=1 FXT_SCHED_TEST_ERRNO=13 FXT_OUTPUT=t.fxt \
		LD_PRELOAD="$LIB" "$PROG"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "fxtauto: cannot record context switches; going on without: perf_event_open: Permission denied (kernel.perf_event_paranoid > 2, seccomp or a container)" ]]
	[ "$(grep -c '^fn ' <<<"$output")" -eq 5 ]
	"$FXT" check t.fxt
	[ "$(switches t.fxt)" -eq 0 ]
	"$FXT" dump t.fxt | grep -q 'name="spin_work"'
}

@test "fxtrun --sched where perf_event_open is refused: same line, trace written" {
	run --separate-stderr env FXT_SCHED_TEST_ERRNO=1 "$FXTRUN" --sched -o t.fxt -- "$PROG"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"fxtauto: cannot record context switches; going on without: perf_event_open: Operation not permitted"* ]]
	"$FXT" check t.fxt
	[ "$(switches t.fxt)" -eq 0 ]
}

@test "fxt json writes CPU tracks and off-cpu slices" {
	FXT_SCHED=1 FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB" "$PROG" > /dev/null
	"$FXT" json t.fxt > t.json
	grep -q '"name":"CPUs"' t.json
	grep -q '"name":"off-cpu (blocked)","cat":"sched","ph":"X"' t.json
	grep -q '"cat":"sched","ph":"B"' t.json
}

# fork_prog: ./f, a program that forks; parent and child each sleep 20 times 1 ms.
fork_prog() {
	cat > f.c <<'C'
#include <sys/wait.h>
#include <unistd.h>
int main(void) { pid_t p = fork(); for (int i = 0; i < 20; i++) usleep(1000); if (p) waitpid(p, 0, 0); return 0; }
C
	cc -o f f.c
}

@test "a forked child records its own switches into its own archive" {
	fork_prog
	FXT_SCHED=1 FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB" ./f
	child=$(ls t.fxt.* | head -1)
	"$FXT" check t.fxt
	"$FXT" check "$child"
	[ "$(switches t.fxt)" -ge 20 ]
	[ "$(switches "$child")" -ge 20 ]
	"$FXT" dump "$child" | grep -q " context_switch .* out=0/${child##*.} "
}

# The parent's perf rings are not mapped in a fork child (VM_DONTCOPY), and the child's own buffer
# may be mapped at their addresses before the tracer's fork handler runs: unmapping them cut holes
# in it (the child's calls then went into its new rings or it died of SIGBUS, 1 run in 4 of a
# process tree under fxtrun --sched). SENTINEL maps pages there first, every time.
@test "a fork child unmaps nothing at the parent's ring addresses (standalone and fxtrun)" {
	fork_prog
	run --separate-stderr env FXT_SCHED=1 FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB:$SENTINEL" ./f
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ fork-sentinel:\ ([1-9][0-9]*)\ of\ ([0-9]+)\ intact ]]
	[ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ]
	run --separate-stderr env LD_PRELOAD="$SENTINEL" "$FXTRUN" --sched -o r.fxt ./f
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ fork-sentinel:\ ([1-9][0-9]*)\ of\ ([0-9]+)\ intact ]]
	[ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ]
	"$FXT" check r.fxt
}

@test "a main thread's pthread_exit: the process ends with its last thread, switches recorded" {
	# (was: the switch reader and the grower, every signal blocked, kept the process alive
	# for good: not even SIGTERM ended it)
	run --separate-stderr timeout -s KILL 30 env FXT_SCHED=1 FXT_OUTPUT=t.fxt LD_PRELOAD="$LIB" \
		"$EXIT_PROG" pthread_exit
	if [[ "$stderr" == *"cannot record context switches"* ]]; then skip "no perf_event_open here"; fi
	[ "$status" -eq 0 ]
	[ "$output" = $'s-exit: pthread_exit\ns-exit: pthread_exit' ]
	"$FXT" check -q t.fxt
	[ "$(switches t.fxt)" -gt 0 ]
	run --separate-stderr timeout -s KILL 30 "$FXTRUN" --sched -o f.fxt "$EXIT_PROG" pthread_exit
	[ "$status" -eq 0 ]
	"$FXT" check -q f.fxt
	[ "$(switches f.fxt)" -gt 0 ]
}
