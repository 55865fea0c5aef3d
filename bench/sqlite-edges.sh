#!/usr/bin/env bash
# bench/sqlite-edges: does fxtauto record a real program's call graph exactly? Builds SQLite's
# speedtest1 from Debian's source package (apt-get source sqlite3 through a private apt
# configuration with a deb-src line: the machine's own apt setup is never changed) with
# `$CC $CFLAGS -finstrument-functions`, cached in CACHE_DIR. Runs it untraced, RUNS times under
# `uftrace record` (no library calls, no schedule events), under fxtrun and under
# LD_PRELOAD=libfxtauto.so alone, then compares every caller->callee edge count (`fxt report
# --edges` against the edges read from `uftrace graph`) and every function's call count (`fxt
# report` against `uftrace report`) with the first uftrace run. Edges on which the uftrace runs
# disagree are what the program itself varies between runs: they are marked, not excused.
# Prints edges total, equal, different (each listed), functions whose call counts differ, and
# each tool's wall time. Exit 0 when the figures were measured, whatever they say; 1 when they
# could not be (missing tool, failed build or run, dropped records, unreadable output).
# Usage: bench/sqlite-edges.sh [CACHE_DIR [BUILD_DIR]]   (defaults: /tmp/fxt-sqlite, build)
# Env: SPEEDTEST_ARGS ("--size 3 --memdb"), RUNS (2, uftrace runs), CC (gcc), CFLAGS (-O2),
#      SUITE (VERSION_CODENAME of /etc/os-release), MIRROR (http://deb.debian.org/debian).
# SPDX-License-Identifier: MIT
set -euo pipefail
# shellcheck source=bench/sqlite-build.bash
. "$(dirname "$0")/sqlite-build.bash"
read -r -a args <<<"${SPEEDTEST_ARGS:---size 3 --memdb}"
runs=${RUNS:-2}
have fxtrun "$fxtrun"
have_tools uftrace
"$fxt" report --help 2>&1 | grep -q -- --edges || die "$fxt report has no --edges"
[ "$runs" -ge 1 ] 2>/dev/null || die "RUNS must be a positive number, not '$runs'"
bin=$(speedtest1)

bench_tmp
cd "$tmp"	# speedtest1 without --memdb writes its database in the working directory

declare -A secs
# Seconds since T0 (date +%s%N), two decimals.
since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
# timed NAME CMD...: runs CMD, its stdout discarded and stderr in $tmp/NAME.log; wall seconds
# in secs[NAME].
timed() {
	local name=$1 t0
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$tmp/$name.log" || { cat "$tmp/$name.log" >&2; die "$name run failed: $*"; }
	secs[$name]=$(since "$t0")
}

# uftrace graph -f none on stdin -> "count<TAB>caller<TAB>callee", summed over the call paths.
# The graph prints each call path once with its count; a child is drawn "+-(N) name" three
# columns right of its parent's "(" when the parent has several children, and "(N) name" in the
# parent's own column on the next line when it is the only one. The first node is the session
# (the program's name; one graph per session): calls under it get caller (root). Kernel events
# (linux:...) are not function calls.
uftrace_edges() {
	awk '/^=+ FUNCTION CALL GRAPH/ { graph = 1; nodes = 0; next }
	graph && match($0, /^[ |+-]*\([0-9]+\) /) {
		p = index($0, "("); n = substr($0, p + 1, RLENGTH - p - 2); name = substr($0, RLENGTH + 1)
		parent = substr($0, p - 2, 2) == "+-" ? at[p - 3] : prev
		if (!nodes++) name = "(root)"
		else if (name !~ /^linux:/ && parent !~ /^linux:/) e[parent "\t" name] += n
		at[p] = name; prev = name
	}
	END { for (k in e) print e[k] "\t" k }'
}
# uftrace report on stdin -> "count<TAB>function" (rows after the ==== rule: time, unit, time,
# unit, calls, name).
uftrace_calls() {
	awk 'rows && $(NF - 1) ~ /^[0-9]+$/ && $NF !~ /^linux:/ { print $(NF - 1) "\t" $NF }
	/^ *=+ +=+/ { rows = 1 }'
}
# fxt report (per-function tables, one per process) on stdin -> "count<TAB>function", summed.
# Rows in brackets ([preempted], [blocked]) are time off CPU, not functions.
fxt_calls() {
	awk '/^== / { rows = /^== functions:/; next }
	rows && $1 ~ /^[0-9]+$/ && $NF !~ /^\[/ { c[$NF] += $1 }
	END { for (k in c) print c[k] "\t" k }'
}
# Calls per callee summed from an edge file: must equal the tool's own call counts.
incoming() { awk -F'\t' '{ c[$3] += $1 } END { for (k in c) print c[k] "\t" k }' "$1"; }
same_counts() { [ -z "$(diff <(sort -k2 "$1") <(incoming "$2" | sort -k2))" ]; }

timed untraced "$bin" "${args[@]}"
for ((i = 1; i <= runs; i++)); do
	timed "uftrace-record$i" uftrace record --no-libcall --no-sched -d "$tmp/u.data" "$bin" "${args[@]}"
	t0=$(date +%s%N)
	{ uftrace graph -f none -d "$tmp/u.data" | uftrace_edges | sort >"$tmp/u$i.edges" &&
		uftrace report -d "$tmp/u.data" | uftrace_calls | sort -k2 >"$tmp/u$i.calls"; } 2>"$tmp/uftrace.log" ||
		{ cat "$tmp/uftrace.log" >&2; die "uftrace graph or report failed"; }
	secs[uftrace-read$i]=$(since "$t0")
	rm -rf "$tmp/u.data"
	{ [ -s "$tmp/u$i.edges" ] && [ -s "$tmp/u$i.calls" ]; } || die "no edges or calls read from uftrace"
	same_counts "$tmp/u$i.calls" "$tmp/u$i.edges" ||
		die "the edges read from uftrace graph disagree with uftrace report's call counts (parser out of date?)"
done

# fxt_side NAME ARCHIVE: edges and call counts of one fxtauto archive, which must be complete.
fxt_side() {
	local name=$1 archive=$2 dropped t0
	dropped=$("$fxt" stats "$archive" | awk '/^records dropped:/ { print $3 }') ||
		die "fxt stats failed on $name's archive"
	[ "$dropped" = 0 ] || die "$name dropped ${dropped:-an unknown number of} records: no comparison"
	t0=$(date +%s%N)
	{ "$fxt" report --edges "$archive" | sort >"$tmp/$name.edges" &&
		"$fxt" report --sort name "$archive" | fxt_calls | sort -k2 >"$tmp/$name.calls"; } ||
		die "fxt report failed on $name's archive"
	secs[$name-read]=$(since "$t0")
	rm -f "$archive"
	{ [ -s "$tmp/$name.edges" ] && [ -s "$tmp/$name.calls" ]; } || die "no edges or calls read from $name's archive"
}
timed fxtrun "$fxtrun" -o "$tmp/fxtrun.fxt" "$bin" "${args[@]}"
fxt_side fxtrun "$tmp/fxtrun.fxt"
timed LD_PRELOAD env FXT_OUTPUT="$tmp/LD_PRELOAD.fxt" LD_PRELOAD="$lib" "$bin" "${args[@]}"
fxt_side LD_PRELOAD "$tmp/LD_PRELOAD.fxt"

# Edges on which the uftrace runs disagree: "caller<TAB>callee<TAB>min..max".
cat "$tmp"/u*.edges | awk -F'\t' -v runs="$runs" '
	{ k = $2 "\t" $3; n[k]++; if (!(k in lo) || $1 < lo[k]) lo[k] = $1; if ($1 > hi[k]) hi[k] = $1 }
	END { for (k in n) { if (n[k] < runs) lo[k] = 0; if (lo[k] != hi[k]) print k "\t" lo[k] ".." hi[k] } }' |
	sort >"$tmp/varies"

echo "sqlite-edges: $(basename "$(source_dir)") speedtest1 ${args[*]}, built with $cc $cflags -finstrument-functions"
echo "uftrace runs: $runs; edges on which they disagree (the program's own variation): $(wc -l <"$tmp/varies")"
awk -F'\t' '{ printf "  %-40s %-40s uftrace %s\n", $1, $2, $3 }' "$tmp/varies"

# compare NAME: NAME's edges and call counts against uftrace run 1.
compare() {
	local name=$1
	awk -F'\t' -v name="$name" '
		FILENAME ~ /varies$/ { v[$1 "\t" $2] = $3; next }
		FILENAME ~ /u1.edges$/ { u[$2 "\t" $3] = $1; all[$2 "\t" $3]; next }
		{ f[$2 "\t" $3] = $1; all[$2 "\t" $3] }
		END {
			for (k in all) {
				total++
				if ((k in u) && (k in f) && u[k] == f[k]) { equal++; continue }
				diff++; if (k in v) var++
				split(k, ce, "\t")
				printf "  %-40s %-40s %9d %9d%s\n", ce[1], ce[2], u[k], f[k], \
					(k in v) ? "  varies: uftrace " v[k] : "" | "sort"
			}
			close("sort")
			printf "%s: %d edges, %d equal, %d different (%d of them vary between uftrace runs)\n", \
				name, total, equal, diff, var
		}' "$tmp/varies" "$tmp/u1.edges" "$tmp/$name.edges" >"$tmp/$name.cmp"
	tail -n 1 "$tmp/$name.cmp"
	if [ "$(wc -l <"$tmp/$name.cmp")" -gt 1 ]; then
		printf '  %-40s %-40s %9s %9s\n' caller callee uftrace "$name"
		head -n -1 "$tmp/$name.cmp"
	fi
	awk -F'\t' 'FILENAME ~ /u1.calls$/ { u[$2] = $1; all[$2]; next } { f[$2] = $1; all[$2] }
		END { for (k in all) if (u[k] != f[k]) printf "%s\t%d\t%d\n", k, u[k], f[k] }' \
		"$tmp/u1.calls" "$tmp/$name.calls" | sort >"$tmp/$name.calldiff"
	echo "$name: $(wc -l <"$tmp/$name.calldiff") of $(cut -f2 "$tmp/u1.calls" "$tmp/$name.calls" | sort -u | wc -l) functions have call counts that differ from uftrace report's"
	if [ -s "$tmp/$name.calldiff" ]; then
		printf '  %-40s %9s %9s\n' function uftrace "$name"
		awk -F'\t' '{ printf "  %-40s %9d %9d\n", $1, $2, $3 }' "$tmp/$name.calldiff"
	fi
	same_counts "$tmp/$name.calls" "$tmp/$name.edges" ||
		echo "$name: the edges of fxt report --edges do not sum to fxt report's call counts"
}
compare fxtrun
compare LD_PRELOAD

printf 'wall time (s): untraced %s, fxtrun %s, LD_PRELOAD %s' "${secs[untraced]}" "${secs[fxtrun]}" "${secs[LD_PRELOAD]}"
for ((i = 1; i <= runs; i++)); do printf ', uftrace record %s' "${secs[uftrace-record$i]}"; done
echo
printf 'reading (s): fxt report --edges + fxt report: fxtrun %s, LD_PRELOAD %s' \
	"${secs[fxtrun-read]}" "${secs[LD_PRELOAD-read]}"
for ((i = 1; i <= runs; i++)); do printf '; uftrace graph + report %s' "${secs[uftrace-read$i]}"; done
echo
