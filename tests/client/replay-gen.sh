#!/usr/bin/env bash
# fxt replay on the generated archives (gen-client-archive: the known-content one, with log
# mirrors after a chunk boundary, calls written late, and main with 23000 direct callees in
# chunks out of order) through replay-check.py, with every filter and a --hold small enough to
# print threads early; and fxt json windows of them through json-window.py. No program is
# traced, so it runs in the sanitizer builds too (the readers' memory handling under ASan).
# Usage: replay-gen.sh WORKDIR   Env: FXT, GEN, CLIENT_TESTS. Exit 0 when every check holds.
# SPDX-License-Identifier: MIT
set -euo pipefail
work=$1
mkdir -p "$work"
cd "$work"
export REPLAY_CHECK_CACHE="$work/replay-check-cache"	# each archive walked once
"$GEN" t.fxt
"$GEN" --dups d.fxt
"$GEN" --late l.fxt
"$GEN" --fanout 20000 f.fxt
check() { python3 "$CLIENT_TESTS/replay-check.py" "$FXT" "$@" | sed "s/^/replay $*: /"; }
for a in t d l f; do
	check "$a.fxt"
done
check t.fxt --function 'a,outer' --depth 2
check t.fxt --since 0.001000010 --until 0.001000400 --tid 1001,1002
check t.fxt --pid 2000 --min 100ns
check f.fxt --since 0.000001000 --until 0.005000000
# printed early: every event once, whatever the order (the ^ lines after what they enclose)
"$FXT" replay f.fxt | grep ' | ' | grep -v 'time (s)' | sed -E 's/\| *(\^ )?/| /' | sort >all
"$FXT" replay --hold 100 f.fxt 2>/dev/null | grep ' | ' | grep -v 'time (s)' | sed -E 's/\| *(\^ )?/| /' | sort >early
cmp all early
echo "replay --hold 100 f.fxt: the same $(wc -l <all) lines"
"$FXT" json -o t.json t.fxt
"$FXT" json --since 0.001000010 --until 0.001000400 -o w.json t.fxt
python3 "$CLIENT_TESTS/json-window.py" t.json w.json 0.001000010 0.001000400 | sed 's/^/json window: /'
