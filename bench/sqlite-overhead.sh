#!/usr/bin/env bash
# bench/sqlite-overhead: what tracing costs a real program. SQLite's speedtest1 built from
# Debian's source package with `$CC $CFLAGS -finstrument-functions` (bench/sqlite-build.bash,
# cached in CACHE_DIR) runs untraced, under LD_PRELOAD=libfxtauto.so alone, under fxtrun and
# under `uftrace record --no-libcall --no-sched` (fxtauto traces no library call either),
# ROUNDS rounds interleaved, archives on disk in DIR. Per mode, the median over the rounds of:
# wall time; CPU time (user + sys of the whole process tree: fxtrun's own work included); CPU
# per call over untraced (calls counted by fxt report on the LD_PRELOAD archive) and its ratio
# to uftrace's; wall time over untraced and its ratio to uftrace's; the tracer stalls the
# program's threads took as `fxt report` lists them (category fxtauto: count, total, longest,
# total as a share of wall); archive size. Every round's figures first, then the medians.
# Prints figures only (no pass or fail on time). Exit 1 when they could not be measured
# (missing tool, failed build or run, dropped records).
# Usage: bench/sqlite-overhead.sh [CACHE_DIR [BUILD_DIR]]   (defaults: /tmp/fxt-sqlite, build)
# Env: SPEEDTEST_ARGS ("--size 3 --memdb"), ROUNDS (3), DIR (${TMPDIR:-/tmp}: archives),
#      CC (gcc), CFLAGS (-O2), SUITE, MIRROR (as bench/sqlite-edges.sh).
# SPDX-License-Identifier: MIT
set -euo pipefail
# shellcheck source=bench/sqlite-build.bash
. "$(dirname "$0")/sqlite-build.bash"
# shellcheck source=bench/stalls.bash
. "$(dirname "$0")/stalls.bash"
read -r -a args <<<"${SPEEDTEST_ARGS:---size 3 --memdb}"
rounds=${ROUNDS:-3}
have fxtrun "$fxtrun"
have_tools uftrace /usr/bin/time
[ "$rounds" -ge 1 ] 2>/dev/null || die "ROUNDS must be a positive number, not '$rounds'"
bin=$(speedtest1)

bench_tmp "${DIR:-}"
cd "$tmp"	# speedtest1 without --memdb writes its database in the working directory

# calls ARCHIVE: the program's calls (fxt report's function rows; [preempted] and [blocked]
# are time off CPU).
calls() {
	"$fxt" report --sort name "$1" | awk '/^== / { rows = /^== functions:/; next }
		rows && $1 ~ /^[0-9]+$/ && $NF !~ /^\[/ { n += $1 } END { print n + 0 }'
}
dropped() { "$fxt" stats "$1" | awk '/^records dropped:/ { print $3 }'; }

# run MODE: one run; appends "MODE WALL CPU STALLS STALLED LONGEST BYTES" to $tmp/rows.
run() {
	local mode=$1 out=$tmp/$1.fxt cmd n=- t=- m=- bytes=-
	case $mode in
	untraced) cmd=("$bin" "${args[@]}") ;;
	LD_PRELOAD) cmd=(env FXT_OUTPUT="$out" LD_PRELOAD="$lib" "$bin" "${args[@]}") ;;
	fxtrun) cmd=("$fxtrun" -o "$out" "$bin" "${args[@]}") ;;
	uftrace) out=$tmp/u.data
		cmd=(uftrace record --no-libcall --no-sched -d "$out" "$bin" "${args[@]}") ;;
	esac
	rm -rf "$out"
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "${cmd[@]}" >/dev/null 2>"$tmp/$mode.log" ||
		{ cat "$tmp/$mode.log" >&2; die "the $mode run failed: ${cmd[*]}"; }
	case $mode in
	LD_PRELOAD | fxtrun)
		[ "$(dropped "$out")" = 0 ] || die "the $mode run dropped records: no comparison"
		[ -s "$tmp/calls" ] || calls "$out" >"$tmp/calls"
		read -r n t m < <(stalls "$out")
		bytes=$(stat -c %s "$out") ;;
	uftrace) bytes=$(du -sb "$out" | cut -f1) ;;
	esac
	rm -rf "$out"
	awk -v mode="$mode" -v n="$n" -v t="$t" -v m="$m" -v b="$bytes" \
		'{ printf "%s %s %.2f %s %s %s %s\n", mode, $1, $2 + $3, n, t, m, b }' "$tmp/time" \
		>>"$tmp/rows"
}

modes=(untraced LD_PRELOAD fxtrun uftrace)
echo "sqlite-overhead: $(basename "$(source_dir)") speedtest1 ${args[*]}, built with $cc $cflags" \
	"-finstrument-functions; archives in $tmp ($(df -T "$tmp" | awk 'NR == 2 { print $2 }'))," \
	"$rounds round(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
	for mode in "${modes[@]}"; do run "$mode"; done
done
calls=$(cat "$tmp/calls")
[ "$calls" -gt 0 ] || die "no calls counted in the LD_PRELOAD archive"
echo "calls: $calls (fxt report of the LD_PRELOAD archive)"
printf '%-11s %7s %7s %7s %10s %10s %10s\n' mode "wall s" "cpu s" stalls "stalled s" \
	"longest s" "archive MB"
awk '{ printf "%-11s %7s %7s %7s %10s %10s %10s\n", $1, $2, $3, $4, $5, $6, \
	($7 == "-" ? "-" : sprintf("%.1f", $7 / 1e6)) }' "$tmp/rows"

echo "medians of $rounds round(s); over untraced: extra per call (ns), ratio: to uftrace's extra"
awk -v calls="$calls" '
	function median(list,   v, n, i, j, x) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) {	# insertion sort
			x = v[i]
			for (j = i - 1; j > 0 && v[j] > x; j--) v[j + 1] = v[j]
			v[j + 1] = x
		}
		return v[int((n + 1) / 2)]
	}
	{ wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3; if ($4 != "-") {
		n[$1] = n[$1] " " $4; t[$1] = t[$1] " " $5; m[$1] = m[$1] " " $6 }
	  if ($7 != "-") b[$1] = b[$1] " " $7 }
	END {
		w0 = median(wall["untraced"]); c0 = median(cpu["untraced"])
		wu = median(wall["uftrace"]) - w0; cu = (median(cpu["uftrace"]) - c0) / calls * 1e9
		printf "%-11s %7s %7s %9s %6s %9s %6s %7s %10s %10s %7s %10s\n", "mode", "wall s",
			"cpu s", "cpu/call", "ratio", "wall+ s", "ratio", "stalls", "stalled s",
			"longest s", "% wall", "archive MB"
		split("untraced LD_PRELOAD fxtrun uftrace", order, " ")
		for (i = 1; i <= 4; i++) {
			k = order[i]; w = median(wall[k]); c = median(cpu[k])
			cc = (c - c0) / calls * 1e9
			line = sprintf("%-11s %7.2f %7.2f %9.1f %6s %9.2f %6s", k, w, c, cc,
				k == "untraced" ? "-" : sprintf("%.2f", cu > 0 ? cc / cu : 0), w - w0,
				k == "untraced" ? "-" : sprintf("%.2f", wu > 0 ? (w - w0) / wu : 0))
			if (k in n) {
				s = median(t[k])
				line = line sprintf(" %7d %10.3f %10.3f %7.1f", median(n[k]), s,
					median(m[k]), w > 0 ? 100 * s / w : 0)
			} else {
				line = line sprintf(" %7s %10s %10s %7s", "-", "-", "-", "-")
			}
			line = line sprintf(" %10s", k in b ? sprintf("%.1f", median(b[k]) / 1e6) : "-")
			print line
		}
	}' "$tmp/rows"
