#!/usr/bin/env bash
# bench/locks: what the preload's pthread wrappers cost when nothing blocks. Runs
# bench/locks-pairs (N uncontended lock/unlock pairs per kind, best of 5) with plain glibc and
# under libfxtauto.so, ROUNDS times alternately, and prints per kind the best ns/pair of each
# side by side with the difference. Usage: bench/locks.sh [BUILD_DIR] (default: build).
# Env: PAIRS (10000000), ROUNDS (3).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
pairs=${PAIRS:-10000000} rounds=${ROUNDS:-3}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
prog=$(need locks-pairs) fxt=$(need libfxtauto.so)
bench_tmp

for ((r = 0; r < rounds; r++)); do
	"$prog" "$pairs" >>"$tmp/glibc"
	FXT_OUTPUT=$tmp/t.fxt LD_PRELOAD=$fxt "$prog" "$pairs" >>"$tmp/fxtauto"
done
echo "uncontended lock/unlock pairs ($pairs per run, best of $((rounds * 5)) runs), ns/pair"
printf '%-10s %8s %8s %8s\n' kind glibc fxtauto extra
awk 'FNR == NR { if (!($1 in g) || $2 < g[$1]) g[$1] = $2; next }
     { if (!($1 in f) || $2 < f[$1]) f[$1] = $2; if (!($1 in o)) o[$1] = ++n; k[o[$1]] = $1 }
     END { for (i = 1; i <= n; i++) printf "%-10s %8.2f %8.2f %+8.2f\n", k[i], g[k[i]],
           f[k[i]], f[k[i]] - g[k[i]] }' "$tmp/glibc" "$tmp/fxtauto"
