#!/usr/bin/env bash
# Soak: RUNS runs of a forking, threaded program (tests/progs/r-forks: 12 processes with busy
# threads) traced by fxtrun or by LD_PRELOAD alone, each ended at a random moment by SIGKILL of
# the program, SIGKILL of fxtrun, or not at all. Claims: every archive that exists passes
# `fxt check` (a standalone run's .part after `fxt recover`), fxtrun's exit status is the
# program's, and no session directory or buffer is left behind once `fxt clean` has run.
# Usage: tests/soak.sh RUNS; env: FXT, FXTRUN, FXTAUTO, RPROGS. Exit 0 when every claim held.
# SPDX-License-Identifier: MIT
set -u
runs=${1:-100}
work=$(mktemp -d "${TMPDIR:-/tmp}/fxt-soak.XXXXXX")
trap 'pkill -KILL -f "$work" 2>/dev/null; "$FXT" clean >/dev/null 2>&1; rm -rf "$work"' EXIT
cd "$work" || exit 2
fail() { echo "FAIL (run $i, $how): $*" >&2; exit 1; }
# this soak's fxtrun session directories left (their archive note names a file under $work;
# other sessions on the machine are not this test's business)
sessions() { grep -ls " $work/" /dev/shm/fxtrun.*/archive "${TMPDIR:-/tmp}"/fxtrun.*/archive 2>/dev/null; }
cp "$RPROGS/r-forks" "$work/r-forks"	# its path names this run's processes for pkill
for ((i = 0; i < runs; i++)); do
	how=$((RANDOM % 5))	# 0 none, 1-2 kill the program, 3 kill fxtrun, 4 standalone killed
	delay=$(printf '0.%02d' $((RANDOM % 60)))
	rm -rf "$work"/*.fxt* 2>/dev/null
	case $how in
	0 | 1 | 2 | 3)
		"$FXTRUN" --buffer-size 4M -o "$work/t.fxt" "$work/r-forks" 20000 >/dev/null 2>err &
		runner=$!
		if [ "$how" != 0 ]; then
			sleep "$delay"
			if [ "$how" = 3 ]; then
				kill -KILL "$runner" 2>/dev/null
			else
				pkill -KILL -P "$runner" -f "$work/r-forks" 2>/dev/null
			fi
		fi
		wait "$runner"
		status=$?
		[ "$how" = 0 ] && [ "$status" != 0 ] && fail "fxtrun exit $status: $(cat err)"
		[ "$how" = 3 ] || [ -e t.fxt ] || fail "no archive: $(cat err)"
		# a killed fxtrun's session and temporary archive go at the next cleanup
		[ "$how" = 3 ] && "$FXT" clean >/dev/null
		;;
	4)
		env FXT_OUTPUT="$work/t.fxt" LD_PRELOAD="$FXTAUTO" "$work/r-forks" 20000 >/dev/null &
		runner=$!
		sleep "$delay"
		kill -KILL "$runner" 2>/dev/null
		wait "$runner"
		# its forks outlive it: recover the files once nothing writes them any more
		for _ in $(seq 100); do pgrep -f "$work/r-forks" >/dev/null || break; sleep 0.05; done
		pkill -KILL -f "$work/r-forks" 2>/dev/null
		sleep 0.1
		for part in t.fxt*.part; do
			[ -e "$part" ] || continue
			"$FXT" recover "$part" >/dev/null || fail "recover $part"
		done
		;;
	esac
	# the program's own processes (forks that lost their parent) end before the next run
	for _ in $(seq 100); do pgrep -f "$work/r-forks" >/dev/null || break; sleep 0.05; done
	pkill -KILL -f "$work/r-forks" 2>/dev/null
	[ "$how" = 3 ] && "$FXT" clean >/dev/null	# again: its processes may have outlived it
	for f in t.fxt*; do
		[ -e "$f" ] || continue
		case $f in *.part) fail "$f left behind" ;; esac
		"$FXT" check -q "$f" >check 2>&1 || fail "$f: $(cat check)"
	done
done
"$FXT" clean >/dev/null 2>&1
left=$(sessions)
[ -z "$left" ] || { echo "FAIL: session directories left: $left" >&2; exit 1; }
echo "ok: $runs runs, every archive valid, no session left"
