#!/usr/bin/env bash
# fxt report at scale: an archive where main has more than 1M direct callees, its chunks
# written out of order (gen-client-archive --fanout), must give the table and the call tree
# that recompute.py finds independently from the JSON events; prints fxt report's peak RSS.
# Usage: fanout.sh WORKDIR [N]   Env: FXT, GEN. Exit 0 when every check holds.
# SPDX-License-Identifier: MIT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
n=${2:-1000000}
mkdir -p "$work"
trap 'rm -f "$work"/fanout.*' EXIT
"$GEN" --fanout "$n" "$work/fanout.fxt"
"$FXT" json -o "$work/fanout.json" "$work/fanout.fxt"
/usr/bin/time -f "fanout: fxt report: %e s, peak RSS %M KB" \
	"$FXT" report --sort name "$work/fanout.fxt" >"$work/fanout.report"
"$FXT" report --tree "$work/fanout.fxt" >"$work/fanout.tree"
[ "$(grep -cE '  (main|join zstd 0x7e00|join zstd 0x7f00)$' "$work/fanout.report")" -eq 3 ]
python3 "$here/recompute.py" "$work/fanout.json" "$work/fanout.report" "$work/fanout.tree" |
	sed "s/^/fanout: /"
