#!/usr/bin/env bash
# bench/sqlite-replay: the views on a real program. Builds SQLite's speedtest1 as
# bench/sqlite-edges.sh does (bench/sqlite-build.bash), traces it with LD_PRELOAD=libfxtauto.so,
# then checks that `fxt replay` prints every event of the archive in the order it began, at its
# depth (tests/client/replay-check.py walks `fxt dump` on its own; --hold large enough to keep
# the one thread whole: main encloses everything), that with the default --hold it prints the
# same lines (early, the calls around them after them), and that `fxt json` of a window (the
# middle third) holds exactly the calls of that window cut at its bounds
# (tests/client/json-window.py) and so does `fxt replay` of it; prints each figure and the time
# each took.
# Exit 0 when every check holds; 1 when one fails or could not run.
# Usage: bench/sqlite-replay.sh [CACHE_DIR [BUILD_DIR]]   (defaults: /tmp/fxt-sqlite, build)
# Env: SPEEDTEST_ARGS ("--size 1 --memdb"), CC (gcc), CFLAGS (-O2), SUITE, MIRROR: as
#      bench/sqlite-edges.sh.
# SPDX-License-Identifier: MIT
set -euo pipefail
# shellcheck source=bench/sqlite-build.bash
. "$(dirname "$0")/sqlite-build.bash"
read -r -a args <<<"${SPEEDTEST_ARGS:---size 1 --memdb}"
checks=$root/tests/client
have_tools python3
bin=$(speedtest1)

bench_tmp
cd "$tmp"
# timed WHAT CMD...: runs CMD (its output in $tmp/out), prints it under WHAT with the seconds
timed() {
	local what=$1 t0
	shift
	t0=$(date +%s%N)
	"$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; die "$what failed: $*"; }
	printf '%-40s %s (%.1f s)\n' "$what" "$(tail -1 "$tmp/out")" \
		"$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')"
}

FXT_SCHED=0 FXT_OUTPUT="$tmp/s.fxt" LD_PRELOAD="$lib" "$bin" "${args[@]}" >/dev/null 2>&1 ||
	die "traced speedtest1 ${args[*]} failed"
"$fxt" stats "$tmp/s.fxt" >"$tmp/stats"
grep -q '^records dropped: 0 ' "$tmp/stats" || die "records were dropped: $(grep dropped "$tmp/stats")"
echo "speedtest1 ${args[*]}: $(awk '$1 == "event" && $2 ~ /^[0-9]+$/ { print $2 }' "$tmp/stats") events," \
	"$(($(stat -c %s "$tmp/s.fxt") / 1048576)) MiB"
timed "replay --hold 100000000, every event" python3 "$checks/replay-check.py" "$fxt" \
	"$tmp/s.fxt" --hold 100000000
timed "fxt replay --hold 100000000 alone" "$fxt" replay --hold 100000000 "$tmp/s.fxt"
timed "fxt replay alone" "$fxt" replay "$tmp/s.fxt"
key() { grep ' | ' | grep -v 'time (s)' | sed -E 's/\| *(\^ )?/| /' | sort; }
"$fxt" replay --hold 100000000 "$tmp/s.fxt" | key >"$tmp/all"
"$fxt" replay "$tmp/s.fxt" 2>"$tmp/early.err" | key >"$tmp/early"
cmp -s "$tmp/all" "$tmp/early" || die "replay (default --hold) does not print the same lines"
echo "replay (default --hold): the same $(wc -l <"$tmp/all") lines; $(cat "$tmp/early.err")"
read -r since until < <(sed -n 's/^time span: .* (\([0-9.]*\) s to \([0-9.]*\) s)$/\1 \2/p' \
	"$tmp/stats" | python3 -c 'import sys
a, b = (int(x.replace(".", "")) for x in sys.stdin.read().split())
s = lambda n: "%d.%09d" % (n // 10**9, n % 10**9)
print(s(a + (b - a) // 3), s(a + 2 * (b - a) // 3))')
"$fxt" json -o "$tmp/s.json" "$tmp/s.fxt"
"$fxt" json --since "$since" --until "$until" -o "$tmp/w.json" "$tmp/s.fxt"
timed "json window [$since, $until]" python3 "$checks/json-window.py" "$tmp/s.json" \
	"$tmp/w.json" "$since" "$until"
timed "replay window" python3 "$checks/replay-check.py" "$fxt" "$tmp/s.fxt" --since "$since" \
	--until "$until" --hold 100000000
