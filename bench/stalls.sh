#!/usr/bin/env bash
# bench/stalls: how long a traced program waits for the tracer, and what its archive weighs.
# 1. A heavy-call program (bench/calls-work CALLS calls, or PROG) traced standalone
#    (LD_PRELOAD=libfxtauto.so alone, the archive on disk in DIR) by this build's library and
#    by a baseline one side by side, ROUNDS rounds interleaved, after one untraced run: wall
#    time, the program's tracer stalls as `fxt report` lists them (category fxtauto: count,
#    total, longest), archive size. The baseline is BASE_LIB, or the library of git revision
#    BASE_REV (default main) of this repository built once into CACHE_DIR; BASE_REV=none
#    leaves it out.
# 2. Archive sizes: an empty run (/bin/true, no instrumented call) and a typical run
#    (calls-work SMALL_CALLS calls) with each library, against `uftrace record`'s data
#    directory for the same run where uftrace is installed, and against the bytes of the
#    records themselves (one 24-byte complete event per call).
# Prints figures only (no pass or fail on time). Exit 1 when they could not be measured.
# Usage: bench/stalls.sh [BUILD_DIR]   (default: build)
# Env: CALLS (14000000), PROG ("a command line" instead of calls-work), ROUNDS (3),
#      SMALL_CALLS (30000), BASE_REV (main), BASE_LIB, CACHE_DIR (/tmp/fxt-bench-base),
#      DIR (${TMPDIR:-/tmp}: where archives are written).
# SPDX-License-Identifier: MIT
set -euo pipefail
build=$(realpath -m "${1:-build}")
calls=${CALLS:-14000000} rounds=${ROUNDS:-3} small=${SMALL_CALLS:-30000}
base_rev=${BASE_REV:-main} cache=$(realpath -m "${CACHE_DIR:-/tmp/fxt-bench-base}")
fxt=$build/launcher/fxt lib=$build/preload/libfxtauto.so work=$build/bench/calls-work

die() { echo "stalls: $*" >&2; exit 1; }
for f in "$fxt" "$lib" "$work"; do [ -e "$f" ] || die "$f missing (build fxt, fxtauto, calls-work)"; done
[ "$rounds" -ge 1 ] 2>/dev/null || die "ROUNDS must be a positive number, not '$rounds'"
tmp=$(mktemp -d "${DIR:-${TMPDIR:-/tmp}}/fxt-stalls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Prints the path of the baseline library: BASE_LIB, or BASE_REV's, built unless cached.
base_lib() {
	if [ -n "${BASE_LIB:-}" ]; then
		[ -f "$BASE_LIB" ] || die "BASE_LIB $BASE_LIB is not a file"
		realpath "$BASE_LIB"
		return
	fi
	local repo rev dir
	repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || die "not in a git tree: set BASE_LIB"
	rev=$(git -C "$repo" rev-parse --verify -q "$base_rev^{commit}") || die "no revision $base_rev"
	dir=$cache/$rev
	if [ ! -f "$dir/build/preload/libfxtauto.so" ]; then
		echo "stalls: building libfxtauto.so of $base_rev (${rev:0:12}) in $dir" >&2
		rm -rf "$dir" && mkdir -p "$dir/src"
		git -C "$repo" archive "$rev" | tar -x -C "$dir/src"
		{ cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
			cmake --build "$dir/build" -j2 --target fxtauto; } >"$dir/build.log" 2>&1 ||
			die "building $base_rev failed: see $dir/build.log"
	fi
	echo "$dir/build/preload/libfxtauto.so"
}

if [ -n "${PROG:-}" ]; then
	read -r -a prog <<<"$PROG"
	what="$PROG"
else
	prog=("$work" "$calls" 1)
	what="calls-work $calls calls, one thread"
fi
libs=(this) lib_this=$lib
if [ "$base_rev" != none ] || [ -n "${BASE_LIB:-}" ]; then
	lib_base=$(base_lib)
	libs=(base this)
fi

# seconds CMD...: runs CMD with stdout to $tmp/out and prints its wall time in seconds.
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$tmp/out"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

# shellcheck source=bench/stalls.bash
. "$(dirname "$0")/stalls.bash"

echo "1. $what, LD_PRELOAD alone, archive on disk ($(df -T "$tmp" | awk 'NR == 2 { print $2 }')), $rounds round(s)"
[ "${#libs[@]}" -eq 1 ] || echo "   base: $base_rev ($lib_base)"
echo "   this: $lib_this"
wall=$(seconds "${prog[@]}") || die "the untraced run failed"
echo "   untraced wall $wall s"
printf '   %-6s %-5s %8s %7s %10s %9s %11s\n' round lib "wall s" stalls "stalled s" "longest s" "archive MB"
declare -A walls waits
for ((r = 1; r <= rounds; r++)); do
	for l in "${libs[@]}"; do
		eval "use=\$lib_$l"
		rm -f "$tmp/t.fxt"
		wall=$(FXT_OUTPUT=$tmp/t.fxt seconds env LD_PRELOAD="$use" "${prog[@]}") ||
			die "the run traced by $l failed"
		read -r n t m < <(stalls "$tmp/t.fxt")
		printf '   %-6s %-5s %8s %7d %10s %9s %11.1f\n' "$r" "$l" "$wall" "$n" "$t" "$m" \
			"$(awk -v b="$(stat -c %s "$tmp/t.fxt")" 'BEGIN { print b / 1e6 }')"
		walls[$l]+="$wall " waits[$l]+="$t "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for l in "${libs[@]}"; do
	w=$(median <<<"${walls[$l]}") s=$(median <<<"${waits[$l]}")
	printf '   median %-5s wall %s s, stalled %s s (%.1f%% of wall)\n' "$l" "$w" "$s" \
		"$(awk -v s="$s" -v w="$w" 'BEGIN { print (w > 0 ? 100 * s / w : 0) }')"
done

echo "2. archive sizes (bytes)"
have_uftrace=$(command -v uftrace >/dev/null && echo 1 || echo 0)
printf '   %-38s %12s %12s %12s %12s\n' run base this uftrace records
for run in empty typical; do
	case $run in
	empty) cmd=(/bin/true) label="empty: /bin/true (no instrumented call)" records=0 ;;
	typical) cmd=("$work" "$small" 1) label="typical: calls-work $small calls" ;;
	esac
	declare -A size=([base]=- [this]=- [uftrace]=-)
	for l in "${libs[@]}"; do
		eval "use=\$lib_$l"
		rm -f "$tmp/s.fxt"
		FXT_OUTPUT=$tmp/s.fxt env LD_PRELOAD="$use" "${cmd[@]}" >"$tmp/out" || die "$run run ($l) failed"
		size[$l]=$(stat -c %s "$tmp/s.fxt")
		[ "$run" = empty ] || records=$(("$("$build/tests/fxt-calls" -n "$tmp/s.fxt")" * 24))
	done
	if [ "$have_uftrace" = 1 ] && [ "$run" = typical ]; then
		rm -rf "$tmp/u.data"
		uftrace record -d "$tmp/u.data" "${cmd[@]}" >"$tmp/out" 2>&1 || die "uftrace record failed"
		size[uftrace]=$(du -sb "$tmp/u.data" | cut -f1)
	fi
	printf '   %-38s %12s %12s %12s %12s\n' "$label" "${size[base]}" "${size[this]}" \
		"${size[uftrace]}" "$records"
done
[ "$have_uftrace" = 1 ] || echo "   (uftrace is not installed: the records' own bytes are the reference)"
