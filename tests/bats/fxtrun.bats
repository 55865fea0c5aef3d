#!/usr/bin/env bats
# fxtrun / fxt record: one @test per option, mode and error case. Archives are checked with
# `fxt check` and read back with `fxt dump` and fxt-calls (the project's reader). Paths come from
# ctest (tests/record.cmake): FXT, FXTRUN, FXTAUTO, FXT_CALLS, RPROGS (tests/progs/r-*), PROGS (s-*).
# SPDX-License-Identifier: MIT
bats_require_minimum_version 1.5.0
load recording

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# providers ARCHIVE: "NAME KOID PARENT CALLS" per provider, in order of first appearance (CALLS =
# its complete events, tracer stalls of category fxtauto left out), from the process records
# fxtrun writes with a `parent` argument. Providers' sections interleave (provider_section).
providers() {
	"$FXT" dump "$1" | awk '
		/ provider_info / { match($0, /provider=[0-9]+/); cur = substr($0, RSTART + 9, RLENGTH - 9)
				    order[n++] = cur; c[cur] = 0
				    match($0, /name="[^"]*"/); name[cur] = substr($0, RSTART + 6, RLENGTH - 7) }
		/ provider_section / { match($0, /provider=[0-9]+/); cur = substr($0, RSTART + 9, RLENGTH - 9) }
		/ kernel_object obj_type=1 .*"parent"/ {
			match($0, /koid=[0-9]+/); koid[cur] = substr($0, RSTART + 5, RLENGTH - 5)
			match($0, /"parent":koid=[0-9]+/); parent[cur] = substr($0, RSTART + 14, RLENGTH - 14) }
		/ complete / && !/cat="fxtauto"/ { c[cur]++ }
		END { for (i = 0; i < n; i++) { p = order[i]; print name[p], koid[p], parent[p], c[p] } }'
}

# wait_line FILE PATTERN: waits (up to 20 s) until FILE has a line matching PATTERN.
wait_line() {
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

@test "--help describes every option and exits 0" {
	run "$FXTRUN" --help
	[ "$status" -eq 0 ]
	for opt in --output --mode --buffer-size --filter --exclude --max-depth --min-duration \
		--no-functions --no-follow; do
		[[ "$output" == *"$opt"* ]]
	done
}

@test "an unknown option: one line naming it, a usage hint, exit 2, program not started" {
	run --separate-stderr "$FXTRUN" --frobnicate touch started
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == *"unknown option '--frobnicate'"* ]]
	[[ "${stderr_lines[1]}" == *"--help"* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ ! -e started ] && [ ! -e trace.fxt ]
}

@test "malformed option values are refused with exit 2 before the program starts" {
	for args in "--mode fast" "--buffer-size 12x" "--buffer-size 100K" "--max-depth 0" \
		"--max-depth -3" "--min-duration 5parsecs" "--filter a,,b" "--exclude="; do
		run --separate-stderr "$FXTRUN" $args touch started
		[ "$status" -eq 2 ]
		[[ "${stderr_lines[0]}" == fxtrun:* ]]
		[ ! -e started ]
	done
}

@test "an option without its value, or no program at all, is a usage error (exit 2)" {
	run --separate-stderr "$FXTRUN" --mode
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'--mode' needs a value"* ]]
	run --separate-stderr "$FXTRUN" -o x.fxt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no program to trace"* ]]
}

@test "a program that does not exist: clear error and exit 127, no archive" {
	run -127 --separate-stderr "$FXTRUN" no-such-program-fxt
	[ "$stderr" = "fxtrun: no-such-program-fxt: command not found" ]
	[ ! -e trace.fxt ]
}

@test "a path that does not exist: No such file or directory (127); a directory: 126" {
	run -127 --separate-stderr "$FXTRUN" ./no-such-program-fxt
	[ "$stderr" = "fxtrun: ./no-such-program-fxt: No such file or directory" ]
	mkdir adir
	run -126 --separate-stderr "$FXTRUN" ./adir
	[ "$stderr" = "fxtrun: ./adir: Is a directory" ]
	[ ! -e trace.fxt ]
}

@test "default output is trace.fxt; the summary names it and ui.perfetto.dev" {
	run --separate-stderr "$FXTRUN" "$RPROGS/r-leaf"
	[ "$status" -eq 0 ]
	"$FXT" check trace.fxt
	[[ "$stderr" == *"1 process,"* ]]
	[[ "$stderr" == *"trace written to trace.fxt"* ]]
	[[ "$stderr" == *"ui.perfetto.dev"* ]]
	[ "$(calls trace.fxt leaf_call)" -eq 1 ]
}

@test "-o replaces an existing file with the complete archive, leaving no temporary file" {
	echo old >out.fxt
	"$FXTRUN" -o out.fxt "$RPROGS/r-leaf" exec 2>/dev/null
	"$FXT" check out.fxt
	[ "$(calls out.fxt leaf_call)" -eq 3 ]
	[ "$(ls | grep -v separate-stderr)" = "$(printf 'out.fxt\ntmp')" ]
}

@test "fxt record is fxtrun" {
	"$FXT" record -o rec.fxt "$RPROGS/r-leaf" vfork 2>/dev/null
	[ "$(calls rec.fxt leaf_call)" -eq 4 ]
}

@test "the program's exit status is fxtrun's, 128+N for a signal" {
	run "$FXTRUN" -o a.fxt sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run "$FXTRUN" -o b.fxt sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	"$FXT" check b.fxt
}

@test "fork, posix_spawn, exec, vfork and system: one provider per process, names and parents" {
	"$FXTRUN" -o tree.fxt "$RPROGS/r-tree" >/dev/null 2>&1
	"$FXT" check tree.fxt
	providers tree.fxt >p.txt
	cat p.txt
	# root r-tree (parent: fxtrun), its fork child r-tree, which posix_spawns r-leaf and then
	# becomes r-leaf "exec" (same pid); vfork+exec r-leaf; system(): sh then r-leaf.
	root=$(awk 'NR == FNR { k[$2] = 1; next } $1 == "r-tree" && !($3 in k) { print $2 }' p.txt p.txt)
	[ "$(echo "$root" | wc -w)" -eq 1 ]
	child=$(awk -v r="$root" '$1 == "r-tree" && $3 == r { print $2 }' p.txt)
	[ -n "$child" ]
	[ "$(awk -v c="$child" '$1 == "r-leaf" && $3 == c && $4 == 3 { n++ } END { print n }' p.txt)" = 1 ]
	[ "$(awk -v c="$child" -v r="$root" '$1 == "r-leaf" && $2 == c && $3 == r { n++ } END { print n }' p.txt)" = 1 ]
	[ "$(awk -v r="$root" '$1 == "r-leaf" && $3 == r && $4 == 5 { n++ } END { print n }' p.txt)" = 1 ]
	[ "$(awk -v r="$root" '$1 == "sh" && $3 == r { n++ } END { print n }' p.txt)" = 1 ]
	[ "$(calls tree.fxt leaf_call)" -eq $((2 + 3 + 4 + 5)) ]
	[ "$(calls tree.fxt child_work)" -eq 1 ] && [ "$(calls tree.fxt root_work)" -eq 1 ]
}

@test "--no-follow traces only the first process; children run untraced, no stray archives" {
	run --separate-stderr "$FXTRUN" --no-follow -o nf.fxt "$RPROGS/r-tree"
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "arg: spawned arg: exec arg: vfork arg: system" ]
	providers nf.fxt >p.txt
	[ "$(wc -l <p.txt)" -eq 1 ]
	[ "$(cut -d' ' -f1 p.txt)" = r-tree ]
	[ "$(calls nf.fxt leaf_call)" -eq 0 ]
	[ -z "$(ls | grep -e '\.fxt' | grep -v '^nf.fxt$')" ]
}

@test "SIGKILL of the program mid-run: the archive holds every call it reported done" {
	"$FXTRUN" -o k.fxt "$RPROGS/r-count" 300000 >count.out 2>err.txt &
	fxtrun_pid=$!
	wait_line count.out "^3000 calls done"
	kill -KILL "$(pgrep -P "$fxtrun_pid" r-count)"
	status=0
	wait "$fxtrun_pid" || status=$?
	[ "$status" -eq 137 ]
	done_calls=$(tail -1 count.out | cut -d' ' -f1)
	"$FXT" check k.fxt
	recorded=$(calls k.fxt work)
	echo "done $done_calls recorded $recorded"
	[ "$recorded" -ge "$done_calls" ]
}

@test "a segfaulting program: exit status 139, a valid archive with its calls, the summary says so" {
	run --separate-stderr "$FXTRUN" -o segv.fxt "$PROGS/s-crash" segv
	[ "$status" -eq 139 ]
	[ "${stderr_lines[-1]}" = "fxtrun: program killed by signal 11 (Segmentation fault)." ]
	"$FXT" check segv.fxt
	[ "$(calls segv.fxt crash)" -eq 1 ]
}

@test "SIGINT to fxtrun mid-run is forwarded; the archive is valid and complete so far" {
	# bats starts background jobs with SIGINT ignored; give the program its default action.
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$FXTRUN" -o int.fxt "$RPROGS/r-count" 300000 \
		>count.out 2>err.txt &
	fxtrun_pid=$!
	wait_line count.out "^2000 calls done"
	kill -INT "$fxtrun_pid"
	status=0
	wait "$fxtrun_pid" || status=$?
	[ "$status" -eq 130 ]
	"$FXT" check int.fxt
	[ "$(calls int.fxt work)" -ge "$(tail -1 count.out | cut -d' ' -f1)" ]
}

@test "--mode circular overflowing 10x keeps the last calls and every durable record" {
	run --separate-stderr "$FXTRUN" --mode circular --buffer-size 1M -o circ.fxt \
		"$RPROGS/r-phases" 400000
	[ "$status" -eq 0 ]
	"$FXT" check circ.fxt
	[ "$(calls circ.fxt late)" -eq 1000 ]
	early=$("$FXT" dump circ.fxt | grep -c 'name="early"')
	[ "$early" -gt 0 ] && [ "$early" -lt 40000 ]
	"$FXT" dump circ.fxt | grep -q 'string index=.* str="early"'
	"$FXT" dump circ.fxt | grep -q 'kernel_object obj_type=2 .* name="r-phases"'
	"$FXT" dump circ.fxt | grep -q 'kernel_object obj_type=1 .* name="r-phases"'
}

@test "--mode oneshot stops recording when full: first calls kept, drops counted and marked" {
	run --separate-stderr "$FXTRUN" --mode oneshot --buffer-size 1M -o one.fxt \
		"$RPROGS/r-phases" 400000
	[ "$status" -eq 0 ]
	"$FXT" check one.fxt
	[ "$(calls one.fxt late)" -eq 0 ]
	[ "$(calls one.fxt early)" -gt 0 ]
	"$FXT" dump one.fxt | grep -q 'provider_event .*buffer_full'
	[[ "$stderr" == *"records DROPPED"* ]]
}

@test "--mode streaming saves while running: every call is recorded or counted as dropped" {
	run --separate-stderr "$FXTRUN" --mode streaming --buffer-size 1M -o s.fxt \
		"$RPROGS/r-phases" 400000
	[ "$status" -eq 0 ]
	"$FXT" check s.fxt
	[[ "$stderr" == *"MB saved while running"* ]]
	dropped=0
	if [[ "$stderr" =~ ([0-9]+)\ records\ DROPPED ]]; then dropped=${BASH_REMATCH[1]}; fi
	recorded=$("$FXT" dump s.fxt | grep ' complete ' | grep -vc 'cat="fxtauto"')
	echo "recorded $recorded dropped $dropped"
	[ $((recorded + dropped)) -eq $((400000 + 1000 + 1)) ]
	# more than the 1 MiB buffer holds at once (about 38000 events): halves were saved and reused
	[ "$recorded" -gt 40000 ]
}

@test "streaming is the default mode and with room to spare loses nothing" {
	"$FXTRUN" -o d.fxt "$RPROGS/r-phases" 100000 2>/dev/null
	run "$FXT_CALLS" -f d.fxt
	[ "$status" -eq 0 ]
	[ "$output" = $'func\t100000\tearly\nfunc\t1000\tlate\nfunc\t1\tmain' ]
}

@test "--filter (repeatable) records only matching functions" {
	"$FXTRUN" --filter 'lat*' --filter main -o f.fxt "$RPROGS/r-phases" 5000 2>/dev/null
	[ "$(calls f.fxt late)" -eq 1000 ] && [ "$(calls f.fxt main)" -eq 1 ]
	[ "$(calls f.fxt early)" -eq 0 ]
}

@test "--exclude (repeatable) leaves out matching functions" {
	"$FXTRUN" --exclude early --exclude 'ma*' -o x.fxt "$RPROGS/r-phases" 5000 2>/dev/null
	[ "$(calls x.fxt late)" -eq 1000 ]
	[ "$(calls x.fxt early)" -eq 0 ] && [ "$(calls x.fxt main)" -eq 0 ]
}

@test "--max-depth 1 records only the outermost calls" {
	"$FXTRUN" --max-depth 1 -o md.fxt "$RPROGS/r-phases" 5000 2>/dev/null
	[ "$(calls md.fxt main)" -eq 1 ]
	[ "$("$FXT" dump md.fxt | grep ' complete ' | grep -vc 'cat="fxtauto"')" -eq 1 ]
}

@test "--min-duration drops calls shorter than the limit" {
	# work() takes microseconds; a 1 s floor keeps it out even on a loaded machine (a thread
	# preempted inside it for 50 ms once made it through); main lasts about 1.5 s
	"$FXTRUN" --min-duration 1s -o mind.fxt "$RPROGS/r-count" 15000 >/dev/null 2>&1
	[ "$(calls mind.fxt work)" -eq 0 ]
	[ "$(calls mind.fxt main)" -eq 1 ]
}

@test "--no-functions records no calls but still names the process" {
	"$FXTRUN" --no-functions -o nofn.fxt "$RPROGS/r-phases" 5000 2>/dev/null
	"$FXT" check nofn.fxt
	[ "$("$FXT" dump nofn.fxt | grep ' complete ' | grep -vc 'cat="fxtauto"')" -eq 0 ]
	"$FXT" dump nofn.fxt | grep -q 'provider_info .*name="r-phases"'
}

@test "--buffer-size sets the per-process buffer (a small oneshot one fills and says so)" {
	run --separate-stderr "$FXTRUN" --mode oneshot --buffer-size 1M -o b1.fxt \
		"$RPROGS/r-phases" 200000
	[[ "$stderr" == *"DROPPED"* ]]
	run --separate-stderr "$FXTRUN" --mode oneshot --buffer-size 64M -o b64.fxt \
		"$RPROGS/r-phases" 200000
	no_call_dropped "$stderr"
	[ "$(calls b64.fxt early)" -eq 200000 ]
}

@test "programs are found on PATH and by relative path, from any directory" {
	PATH="$RPROGS:$PATH" run "$FXTRUN" -o p.fxt r-leaf spawned
	[ "$status" -eq 0 ]
	[ "$(calls p.fxt leaf_call)" -eq 2 ]
	mkdir sub && cd sub
	rel=$(realpath --relative-to=. "$RPROGS/r-leaf")
	run "$FXTRUN" -o ../rel.fxt "$rel"
	[ "$status" -eq 0 ]
	[ "$(calls ../rel.fxt leaf_call)" -eq 1 ]
}

@test "arguments with spaces and quotes reach the program unchanged" {
	run --separate-stderr "$FXTRUN" -o q.fxt "$RPROGS/r-leaf" "a b" "it's \"quoted\"" "" '$HOME'
	[ "$status" -eq 0 ]
	[ "$output" = $'arg: a b\narg: it\'s "quoted"\narg: \narg: $HOME' ]
}

@test "stdin and stdout are the program's own; the summary goes to stderr" {
	run --separate-stderr bash -c 'echo hello | "$0" -o cat.fxt cat' "$FXTRUN"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	[[ "$stderr" == *"trace written to cat.fxt"* ]]
}

@test "the session directory is private (0700, buffers 0600) and removed at the end" {
	run --separate-stderr "$FXTRUN" -o sess.fxt sh -c \
		'stat -c %a "$FXT_SESSION"; stat -c %a "$FXT_SESSION"/*.buf | sort -u; echo "$FXT_SESSION"'
	[ "${lines[0]}" = 700 ] && [ "${lines[1]}" = 600 ]
	[ ! -e "${lines[2]}" ]
	[ -z "$(ls "$TMPDIR")" ]
}

@test "a long sequence of processes: one provider each, finished buffers freed while running" {
	run --separate-stderr "$FXTRUN" --buffer-size 2M -o many.fxt sh -c \
		'for i in $(seq 30); do "$0"; done; ls "$FXT_SESSION" | grep -c "\.buf$"' \
		"$RPROGS/r-leaf"
	[ "$status" -eq 0 ]
	echo "buffers alive at the end: $output"
	[ "$output" -le 10 ]
	"$FXT" check many.fxt
	[ "$(providers many.fxt | grep -c '^r-leaf ')" -eq 30 ]
	[ "$(calls many.fxt leaf_call)" -eq 30 ]
}

@test "a provider speaking an unknown protocol version is refused and its buffer ignored" {
	run --separate-stderr "$FXTRUN" -o refused.fxt python3 -c '
import os, socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.environ["FXT_SESSION"] + "/manager.sock")
s.settimeout(10)
open("%s/%d.7.buf" % (os.environ["FXT_SESSION"], os.getpid()), "wb").write(b"\0" * 8192)
s.send(struct.pack("<HHIQ", 1, 0, 99, 7 << 32 | os.getpid()))
print(len(s.recv(16)))'
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]	# the manager closed its side
	[[ "$stderr" == *"1 provider refused (unknown protocol version)"* ]]
	"$FXT" check refused.fxt
}

@test "a second SIGINT stops waiting for a program that ignores SIGINT; the archive is valid" {
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$FXTRUN" -o int2.fxt sh -c \
		'trap "" INT; exec "$0" 300000' "$RPROGS/r-count" >count.out 2>err.txt &
	fxtrun_pid=$!
	wait_line count.out "^2000 calls done"
	prog=$(pgrep -P "$fxtrun_pid")
	kill -INT "$fxtrun_pid"
	sleep 0.5
	kill -0 "$prog"	# ignored: the program runs on
	kill -INT "$fxtrun_pid"
	status=0
	wait "$fxtrun_pid" || status=$?
	kill -KILL "$prog"
	[ "$status" -eq 130 ]
	grep -q "stopped waiting" err.txt
	"$FXT" check int2.fxt
	[ "$(calls int2.fxt work)" -ge 2000 ]
}

@test "the summary counts the processes, threads and events of the archive" {
	# --sched=0: the drops counted here are calls (a busy machine may make the kernel's switch
	# ring overflow: those drops are said, and are not spin() calls)
	run --separate-stderr "$FXTRUN" --sched=0 -o sum.fxt "$RPROGS/r-spin" 0.2 3
	[ "$status" -eq 0 ]
	n=$(echo "$output" | awk '/^calls / { print $2 }')
	echo "$stderr"
	[[ "$stderr" =~ "1 process, 4 threads, "([0-9]+)" events," ]]
	events=${BASH_REMATCH[1]}
	dropped=0
	if [[ "$stderr" =~ ([0-9]+)\ records\ DROPPED ]]; then dropped=${BASH_REMATCH[1]}; fi
	# every spin() call is recorded or counted as dropped, none twice (the few other records,
	# runner(), main() and the preload's thread events, may be dropped too)
	spins=$(calls sum.fxt spin)
	[ "$spins" -le "$n" ]
	[ $((spins + dropped)) -ge "$n" ] && [ $((spins + dropped)) -le $((n + 32)) ]
	[ "$("$FXT" stats sum.fxt | awk '$1 == "event" && $2 ~ /^[0-9]+$/ { print $2 }')" -eq "$events" ]
}

@test "orphaned grandchildren are waited for (subreaper) and traced" {
	run --separate-stderr "$FXTRUN" -o orphan.fxt sh -c \
		'(sleep 0.5; exec "$0" orphan) & exit 0' "$RPROGS/r-leaf"
	[ "$status" -eq 0 ]
	[ "$output" = "arg: orphan" ]
	"$FXT" check orphan.fxt
	[ "$(calls orphan.fxt leaf_call)" -eq 1 ]
}

@test "options after PROGRAM, or after --, belong to the program" {
	run --separate-stderr "$FXTRUN" -o dd.fxt -- "$RPROGS/r-leaf" --mode -o x
	[ "$status" -eq 0 ]
	[ "$output" = $'arg: --mode\narg: -o\narg: x' ]
	[ -s dd.fxt ] && [ ! -e x ]
}

@test "an archive path that cannot be written is reported before the program starts" {
	run --separate-stderr "$FXTRUN" -o no/such/dir/t.fxt touch started
	[ "$status" -eq 1 ]
	[[ "$stderr" == "fxtrun: cannot write no/such/dir/t.fxt: No such file or directory" ]]
	[ ! -e started ]
}

@test "a statically linked program runs, and the summary says nothing could be traced" {
	[ -x "$RPROGS/r-leaf-static" ] || skip "no static build (sanitizers)"
	run --separate-stderr "$FXTRUN" -o static.fxt "$RPROGS/r-leaf-static" x
	[ "$status" -eq 0 ]
	[ "$output" = "arg: x" ]
	[[ "$stderr" == *"0 processes"* ]]
	[[ "$stderr" == *"no process was traced"* ]]
	"$FXT" check static.fxt
}

@test "streaming: a slow thread's open chunk is saved piece by piece, each call once" {
	run --separate-stderr "$FXTRUN" --buffer-size 1M -o slow.fxt "$RPROGS/r-slow"
	[ "$status" -eq 0 ]
	[ "$output" = "slow 100" ]
	echo "$stderr"
	[[ "$stderr" == *"MB saved while running"* ]]	# the halves wrapped many times
	"$FXT" check slow.fxt
	[ "$(calls slow.fxt slow)" -eq 100 ]
}

@test "circular: a chunk a thread still writes is never reused; its calls all survive" {
	run --separate-stderr "$FXTRUN" --mode circular --buffer-size 1M -o cslow.fxt \
		"$RPROGS/r-slow"
	[ "$status" -eq 0 ]
	# shown on a failure: drops, a vetting cut ("provider data corrupt"), what was kept
	echo "$stderr"
	"$FXT" stats cslow.fxt
	"$FXT" dump cslow.fxt | grep -E 'name="records|name="provider data|provider_event' | head -20
	[[ "$stderr" == *"OLDEST RECORDS OVERWRITTEN in 1 circular buffer"* ]]
	# valid: the buffer-full event says records are missing (a flow may have lost its end)
	"$FXT" check cslow.fxt
	"$FXT" dump cslow.fxt | grep -q 'provider_event .*buffer_full'
	slow=$(calls cslow.fxt slow)
	echo "slow calls kept: $slow of 100"
	[ "$slow" -eq 100 ]
	[ "$(calls cslow.fxt fast)" -gt 0 ]
}

@test "circular: the summary, fxt stats and fxt report say about how many records were overwritten and what was kept" {
	# --sched=0: the estimate is of records, the check of calls (switch records share chunks)
	run --separate-stderr "$FXTRUN" --sched=0 --mode circular --buffer-size 1M -o wrap.fxt \
		"$RPROGS/r-spin" 1 2
	[ "$status" -eq 0 ]
	echo "$output"
	echo "$stderr"
	total=$(sed -n 's/^calls //p' <<<"$output")
	about=$(sed -n 's/.*OLDEST RECORDS OVERWRITTEN in 1 circular buffer (about \([0-9]*\) records; it kept the last [0-9.]* [mun]*s of [0-9.]* [mun]*s).*/\1/p' <<<"$stderr")
	[ -n "$about" ]
	"$FXT" check wrap.fxt
	kept=$(calls wrap.fxt spin)
	# the estimate (chunks overwritten x records per chunk kept) is within 1% of the truth
	diff=$((kept + about - total))
	echo "total $total kept $kept about $about diff $diff"
	[ "${diff#-}" -le $((total / 100)) ]
	"$FXT" stats wrap.fxt | grep -E "^records overwritten: about $about \(1 circular buffer wrapped; what it kept covers the last [0-9.]+ [mun]?s\)$"
	"$FXT" report wrap.fxt | grep -E "^note: circular buffer overwrote the oldest records \(about $about\): the figures cover only the last [0-9.]+ [mun]?s$"
}

@test "exit() while threads are inside calls: each call once, nested (events after the stop left out)" {
	for i in 1 2 3 4 5; do
		run "$FXTRUN" -o busy.fxt "$RPROGS/r-exit-busy"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "exit with busy threads" ]
		"$FXT" check -q busy.fxt
	done
}

@test "--sample profiles a program built without instrumentation (70/30 split named)" {
	[ -x "$SAMPLE_PROG" ] || skip "m-split not built"
	run "$FXTRUN" --sample=2000 -o s.fxt "$SAMPLE_PROG"
	[ "$status" -eq 0 ]
	"$FXT" check -q s.fxt
	"$FXT" report s.fxt >report.txt
	grep -q 'sampled stacks' report.txt
	grep -q ' work_seventy$' report.txt
	grep -q ' work_thirty$' report.txt
}

@test "--sample and --categories refuse bad values before starting the program" {
	run "$FXTRUN" --sample=0 -- touch started
	[ "$status" -eq 2 ]
	[[ "$output" == *"--sample=0: expected a rate in Hz from 1 to 100000"* ]]
	run "$FXTRUN" --sample=fast -- touch started
	[ "$status" -eq 2 ]
	run "$FXTRUN" --categories= -- touch started
	[ "$status" -eq 2 ]
	[[ "$output" == *"--categories"* ]]
	[ ! -e started ]
}

# bad_values: the NAME=VALUE lines of tests/unit/settings-bad.txt (the list the unit test checks
# against the table of common/options.c), @LONG4096 expanded.
bad_values() {
	local long
	long=$(printf 'a%.0s' $(seq 4096))
	grep -v '^#' "$BATS_TEST_DIRNAME/../unit/settings-bad.txt" | sed "s/@LONG4096\$/$long/"
}

@test "every bad value of every setting is refused as an option and in the environment" {
	local help n=0
	help=$("$FXTRUN" --help)
	while IFS= read -r line; do
		name=${line%%=*} value=${line#*=}
		flag=$(echo "${name#FXT_}" | tr 'A-Z_' 'a-z-')
		echo "$name='$value'"
		if [[ "$help" == *"--$flag "* || "$help" == *"--$flag["* ]]; then
			run --separate-stderr "$FXTRUN" "--$flag=$value" -- touch started
			[ "$status" -eq 2 ]
			[[ "${stderr_lines[0]}" == "fxtrun: --$flag=$value: expected "* ]]
			n=$((n + 1))
		fi
		run --separate-stderr env "$name=$value" "$FXTRUN" -- touch started
		[ "$status" -eq 2 ]
		[ "$stderr" = "fxtrun: $name=$value in the environment: expected${stderr#*: expected}" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ ! -e started ] && [ ! -e trace.fxt ]
	done < <(bad_values)
	[ "$n" -ge 40 ]	# the settings with an option
}

@test "--sample=0 and FXT_SAMPLE=0 are both refused; FXT_LOG=bogus too (one rule, one table)" {
	run --separate-stderr "$FXTRUN" --sample=0 -- touch started
	[ "$status" -eq 2 ]
	run --separate-stderr env FXT_SAMPLE=0 "$FXTRUN" -- touch started
	[ "$status" -eq 2 ]
	[ "$stderr" = "fxtrun: FXT_SAMPLE=0 in the environment: expected a rate in Hz from 1 to 100000, or nothing for 997" ]
	run --separate-stderr env FXT_LOG=bogus "$FXTRUN" -- touch started
	[ "$status" -eq 2 ]
	[ ! -e started ]
	# a good value in the environment is passed on; an option overrides it
	env FXT_FILTER=leaf_call "$FXTRUN" -o f.fxt "$RPROGS/r-leaf" 2>/dev/null
	[ "$(calls f.fxt leaf_call)" -eq 1 ] && [ "$(calls f.fxt main)" -eq 0 ]
	env FXT_LOG=bogus "$FXTRUN" --log none -o g.fxt "$RPROGS/r-leaf" 2>/dev/null
	"$FXT" check g.fxt
}

@test "--filter takes comma-separated globs, like FXT_FILTER" {
	"$FXTRUN" --filter leaf_call,main -o f.fxt "$RPROGS/r-leaf" 2>/dev/null
	[ "$(calls f.fxt leaf_call)" -eq 1 ] && [ "$(calls f.fxt main)" -eq 1 ]
}

@test "--log picks the streams recorded as log records (default stderr); bad lists refused" {
	local prog=(python3 -c 'import os; os.write(1, b"to-out\n"); os.write(2, b"to-err\n")')
	"$FXTRUN" -o d.fxt -- "${prog[@]}" >out.txt 2>err.txt
	grep -q '^to-out$' out.txt
	grep -q '^to-err$' err.txt
	"$FXT" dump d.fxt | grep -q ' log .*msg="to-err"'
	[ "$("$FXT" dump d.fxt | grep -c ' log .*msg="to-out"')" = 0 ]
	"$FXTRUN" --log stdout -o s.fxt -- "${prog[@]}" >/dev/null 2>&1
	"$FXT" dump s.fxt | grep -q ' log .*msg="to-out"'
	[ "$("$FXT" dump s.fxt | grep -c ' log .*msg="to-err"')" = 0 ]
	"$FXTRUN" --log none -o n.fxt -- "${prog[@]}" >/dev/null 2>&1
	[ "$("$FXT" dump n.fxt | grep -c ' log ')" = 0 ]
	run "$FXTRUN" --log stdrr -- touch started
	[ "$status" -eq 2 ]
	[[ "$output" == *"--log=stdrr: expected stderr, stdout, syslog"* ]]
	[ ! -e started ]
}

# flow_slices ARCHIVE: "FLOW ID" for each flow record not lying in a complete event of its own
# thread that starts before it (Perfetto binds a flow to such a slice, else drops it).
flow_slices() {
	"$FXT" dump "$1" | awk '
		/ complete / { match($0, / thread=[^ ]*/); th = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, / ts=[0-9]*/); s = substr($0, RSTART + 4, RLENGTH - 4) + 0
			match($0, / end_ts=[0-9]*/); e = substr($0, RSTART + 8, RLENGTH - 8) + 0
			n[th]++; S[th, n[th]] = s; E[th, n[th]] = e }
		/ flow_(begin|step|end) / { match($0, / thread=[^ ]*/); f[++m] = $0
			ft[m] = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, / ts=[0-9]*/); fs[m] = substr($0, RSTART + 4, RLENGTH - 4) + 0 }
		END { for (i = 1; i <= m; i++) { ok = 0
			for (k = 1; k <= n[ft[i]]; k++)
				if (S[ft[i], k] < fs[i] && fs[i] <= E[ft[i], k]) ok = 1
			if (!ok) print "unbound: " f[i] } }'
}

@test "exit() right after pthread_create: flows of threads that never started are ended, archive valid" {
	for n in 8 8 8 32 32; do
		run taskset -c 0 "$FXTRUN" -o spawn.fxt "$RPROGS/r-spawn-exit" "$n"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "spawned $n" ]
		[[ "$output" != *corrupt* ]]
		"$FXT" check -q spawn.fxt
		[ "$("$FXT" dump spawn.fxt | grep -c ' flow_begin ')" = "$n" ]
		[ "$("$FXT" dump spawn.fxt | grep -c ' flow_end ')" = "$n" ]
		# each inside a slice of its thread: pthread_create, thread_start, unstarted thread
		flow_slices spawn.fxt
		[ -z "$(flow_slices spawn.fxt)" ]
	done
	# LD_PRELOAD alone too
	FXT_OUTPUT=spawn.fxt LD_PRELOAD=$FXTAUTO taskset -c 0 "$RPROGS/r-spawn-exit" 8
	[ -z "$(flow_slices spawn.fxt)" ]
	[ "$("$FXT" dump spawn.fxt | grep -c ' flow_end ')" = 8 ]
}

# names ARCHIVE: "COUNT NAME" of its complete events.
names() {
	"$FXT" dump "$1" | grep ' complete ' | grep -o ' name="[^"]*"' | sort | uniq -c |
		awk '{ print $1, $2 }'
}

@test "kill -TERM of the program: its open frames are closed in the archive, the summary says it" {
	"$FXTRUN" -o term.fxt "$PROGS/s-term" >out.txt 2>err.txt &
	fxtrun_pid=$!
	wait_line out.txt '^ready$'
	kill -TERM "$(pgrep -P "$fxtrun_pid" s-term)"
	status=0
	wait "$fxtrun_pid" || status=$?
	cat err.txt
	[ "$status" -eq 143 ]
	grep -qx 'fxtrun: program killed by signal 15 (Terminated).' err.txt
	"$FXT" check term.fxt
	names term.fxt >n.txt
	cat n.txt
	grep -qx '1 name="main"' n.txt
	grep -qx '1 name="run_loop"' n.txt
	[ "$(calls term.fxt work)" -ge 10 ]
}

@test "timeout -s INT: the SIGINT sent to the process group reaches the program once" {
	# 3 s: the program's handler is in place long before, even on a loaded machine
	run --separate-stderr timeout -s INT 3 "$FXTRUN" -o int.fxt "$PROGS/s-term" count
	[ "$status" -eq 124 ]	# timeout's own status when it had to signal
	[ "${lines[-1]}" = "interrupts 1" ]
	"$FXT" check int.fxt
}

@test "kill -INT of fxtrun alone is forwarded once to a program that counts interrupts" {
	# bats starts background jobs with SIGINT ignored; give the program its default action.
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$FXTRUN" -o int.fxt "$PROGS/s-term" count \
		>out.txt 2>err.txt &
	fxtrun_pid=$!
	wait_line out.txt '^ready$'
	kill -INT "$fxtrun_pid"
	wait "$fxtrun_pid"
	[ "$(tail -1 out.txt)" = "interrupts 1" ]
	"$FXT" check int.fxt
}

@test "kill -INT of the whole process group reaches the program once (fxtrun forwards nothing more)" {
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' setsid "$FXTRUN" -o int.fxt "$PROGS/s-term" \
		count >out.txt 2>err.txt &
	wait_line out.txt '^ready$'
	pgid=$(pgrep -f "^$FXTRUN -o int.fxt")
	kill -INT -- "-$pgid"
	for _ in $(seq 100); do grep -q interrupts out.txt && break; sleep 0.05; done
	sleep 0.2
	[ "$(tail -1 out.txt)" = "interrupts 1" ]
	"$FXT" check int.fxt
}

@test "exec of the same program: both images' calls, main open at the exec closed there" {
	"$FXTRUN" -o x.fxt "$PROGS/s-exec" 2>/dev/null
	"$FXT" check x.fxt
	[ "$(calls x.fxt main)" -eq 2 ]
	[ "$(calls x.fxt do_exec)" -eq 1 ]
	[ "$(calls x.fxt old_work)" -eq 3 ]
	[ "$(calls x.fxt new_work)" -eq 5 ]
	# a failed exec first: the continuing image is traced too (a buffer of the same pid again),
	# its tracer's own threads (the context switch reader) not taken for the program's
	"$FXTRUN" -o f.fxt "$PROGS/s-exec" execv fail 2>err.txt
	! grep -q '^fxtauto:' err.txt || { cat err.txt; false; }
	"$FXT" check f.fxt
	[ "$(calls f.fxt main)" -eq 2 ]
	[ "$(calls f.fxt after_fail)" -eq 2 ]
	[ "$(calls f.fxt new_work)" -eq 5 ]
}
