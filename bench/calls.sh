#!/usr/bin/env bash
# bench/calls: what one traced function call costs. Runs bench/calls-work (10 million small
# nested calls) side by side, interleaved, best of ROUNDS: uninstrumented (plain), instrumented
# without a tracer (untraced), under the floor hook (two TSC reads and a 24-byte store), under
# libfxtauto.so, and under `uftrace record`; then 4 threads; then instruction counts of the
# measured loop under callgrind. Prints ns/call, overhead over plain, the goal ratios, and
# trace bytes per call. Usage: bench/calls.sh [BUILD_DIR]   (default: build)
# Env: CALLS (10000000), ROUNDS (5), THREADS (4), CG_CALLS (200000).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=${1:-build}
calls=${CALLS:-10000000} rounds=${ROUNDS:-5} threads=${THREADS:-4} cg_calls=${CG_CALLS:-200000}

# shellcheck source=bench/common.bash
. "$(dirname "$0")/common.bash"
work=$(need calls-work) plain=$(need calls-work-plain) floor=$(need libcalls-floor.so)
fxt=$(need libfxtauto.so) counter=$(need fxt-calls)
have_tools uftrace
bench_tmp
bufsize=$(((calls + 1000000) * 48))	# twice 24 bytes per call: nothing may be dropped

# run CONFIG THREADS NCALLS [WRAPPER...]: one run of the workload; leaves its output line in
# $tmp/out and the trace size in bytes (fxtauto, uftrace) in $tmp/bytes.
run() {
	local cfg=$1 thr=$2 n=$3
	shift 3
	rm -rf "$tmp/t.fxt" "$tmp/u.data"
	echo 0 >"$tmp/bytes"
	case $cfg in
	plain) "$@" "$plain" "$n" "$thr" ;;
	untraced) "$@" "$work" "$n" "$thr" ;;
	floor) LD_PRELOAD=$floor "$@" "$work" "$n" "$thr" ;;
	fxtauto)
		FXT_OUTPUT=$tmp/t.fxt FXT_BUFFER_SIZE=$bufsize LD_PRELOAD=$fxt "$@" "$work" "$n" "$thr"
		stat -c %s "$tmp/t.fxt" >"$tmp/bytes" ;;
	uftrace)
		uftrace record -d "$tmp/u.data" "$@" "$work" "$n" "$thr"
		du -sb "$tmp/u.data" | cut -f1 >"$tmp/bytes" ;;
	esac >"$tmp/out"
}
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/out"; }

# The first fxtauto run must hold every call, or its figures would flatter it.
run fxtauto 1 "$calls"
total=$(field calls)
recorded=$("$counter" -n "$tmp/t.fxt") || die "fxt-calls rejects the archive"
[ "$recorded" = "$total" ] || die "fxtauto recorded $recorded of $total calls; figures would be wrong"

declare -A best bytes measured
configs=(plain untraced floor fxtauto uftrace)
for ((r = 0; r < rounds; r++)); do
	for thr in 1 "$threads"; do
		for cfg in "${configs[@]}"; do
			[ "$thr" = 1 ] || [ "$cfg" != uftrace ] || continue
			run "$cfg" "$thr" "$calls"
			ns=$(field cpu_ns)
			k=$cfg/$thr
			if [ -z "${best[$k]:-}" ] || [ "$ns" -lt "${best[$k]}" ]; then best[$k]=$ns; fi
			[ "$thr" != 1 ] || bytes[$cfg]=$(cat "$tmp/bytes")
			measured[$thr]=$(field measured)
		done
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
# per_call NS BASE_NS [THREADS]: (NS - BASE_NS) per measured call
per_call() {
	awk -v a="$1" -v b="$2" -v n="${measured[${3:-1}]}" 'BEGIN { printf "%.2f", (a - b) / n }'
}
echo "calls: ${measured[1]} measured nested calls per run, thread CPU time, best of $rounds interleaved rounds"
printf '%-9s %9s %12s %12s\n' config ns/call overhead trace-B/call
for cfg in "${configs[@]}"; do
	printf '%-9s %9s %12s %12s\n' "$cfg" "$(per_call "${best[$cfg/1]}" 0)" \
		"$(per_call "${best[$cfg/1]}" "${best[plain/1]}")" "$(ratio "${bytes[$cfg]}" "$total")"
done
o_fxt=$(per_call "${best[fxtauto/1]}" "${best[plain/1]}")
o_floor=$(per_call "${best[floor/1]}" "${best[plain/1]}")
o_uf=$(per_call "${best[uftrace/1]}" "${best[plain/1]}")
echo "fxtauto/floor overhead:   $(ratio "$o_fxt" "$o_floor") (goal <= 1.30)"
echo "fxtauto/uftrace overhead: $(ratio "$o_fxt" "$o_uf") (goal <= 0.29, i.e. 1/3.5)"
echo "fxtauto trace bytes/call: $(ratio "${bytes[fxtauto]}" "$total") (goal <= 24)"
o_fxt_mt=$(per_call "${best[fxtauto/$threads]}" "${best[plain/$threads]}" "$threads")
o_floor_mt=$(per_call "${best[floor/$threads]}" "${best[plain/$threads]}" "$threads")
echo "$threads threads: overhead fxtauto $o_fxt_mt ns/call, floor $o_floor_mt ns/call;" \
	"fxtauto $threads-thread/1-thread: $(ratio "$o_fxt_mt" "$o_fxt") (goal <= 1.50)"

callgrind_ready || exit 0
cg() { callgrind run "$1" 1 "$cg_calls"; }
i_plain=$(cg plain) i_untraced=$(cg untraced) i_fxt=$(cg fxtauto)
cg_measured=$(field measured)
ipc() { awk -v a="$1" -v n="$cg_measured" 'BEGIN { printf "%.1f", a / n }'; }
echo "callgrind ($cg_measured calls): instructions/call plain $(ipc "$i_plain")," \
	"untraced $(ipc "$i_untraced"), fxtauto $(ipc "$i_fxt");" \
	"fxtauto - plain: +$(ipc $((i_fxt - i_plain))) (goal <= +45)"
