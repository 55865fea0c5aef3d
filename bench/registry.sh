#!/usr/bin/env bash
# bench/registry: what a process registered with the manager service (FXT_REGISTER=1) costs
# per instrumented call while no trace runs, side by side with the same workload untraced and
# traced. Runs bench/calls-work (10 million small nested calls), interleaved, best of ROUNDS:
# uninstrumented (plain), instrumented without a tracer (untraced), registered and idle (no
# manager: the provider waits on inotify), and tracing (libfxtauto.so recording every call);
# then instruction counts of the measured loop under callgrind.
# Usage: bench/registry.sh [BUILD_DIR]   (default: build)   Env: CALLS (10000000), ROUNDS (5),
# CG_CALLS (200000).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
calls=${CALLS:-10000000} rounds=${ROUNDS:-5} cg_calls=${CG_CALLS:-200000}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
work=$(need calls-work) plain=$(need calls-work-plain) fxt=$(need libfxtauto.so)
bench_tmp
mkdir -m 700 "$tmp/rt"
bufsize=$(((calls + 1000000) * 48))

# run CONFIG NCALLS [WRAPPER...]: one single-threaded run; its output line in $tmp/out.
run() {
	local cfg=$1 n=$2
	shift 2
	rm -f "$tmp/t.fxt"
	case $cfg in
	plain) "$@" "$plain" "$n" 1 ;;
	untraced) "$@" "$work" "$n" 1 ;;
	idle) FXT_REGISTER=1 FXT_RUNTIME_DIR=$tmp/rt LD_PRELOAD=$fxt "$@" "$work" "$n" 1 ;;
	tracing) FXT_OUTPUT=$tmp/t.fxt FXT_BUFFER_SIZE=$bufsize LD_PRELOAD=$fxt "$@" "$work" "$n" 1 ;;
	esac >"$tmp/out"
}
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/out"; }

declare -A best
configs=(plain untraced idle tracing)
for ((r = 0; r < rounds; r++)); do
	for cfg in "${configs[@]}"; do
		run "$cfg" "$calls"
		ns=$(field cpu_ns)
		if [ -z "${best[$cfg]:-}" ] || [ "$ns" -lt "${best[$cfg]}" ]; then best[$cfg]=$ns; fi
		measured=$(field measured)
	done
done
per_call() { awk -v a="$1" -v b="$2" -v n="$measured" 'BEGIN { printf "%.2f", (a - b) / n }'; }
echo "registry: $measured measured nested calls per run, thread CPU time, best of $rounds interleaved rounds"
printf '%-9s %9s %14s\n' config ns/call over-untraced
for cfg in "${configs[@]}"; do
	printf '%-9s %9s %14s\n' "$cfg" "$(per_call "${best[$cfg]}" 0)" \
		"$(per_call "${best[$cfg]}" "${best[untraced]}")"
done

callgrind_ready || exit 0
cg() { callgrind run "$1" "$cg_calls"; }
i_untraced=$(cg untraced) i_idle=$(cg idle) i_tracing=$(cg tracing)
cg_measured=$(field measured)
ipc() { awk -v a="$1" -v n="$cg_measured" 'BEGIN { printf "%.1f", a / n }'; }
echo "callgrind ($cg_measured calls): instructions/call untraced $(ipc "$i_untraced")," \
	"registered-idle $(ipc "$i_idle"), tracing $(ipc "$i_tracing")"
