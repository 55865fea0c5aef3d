# Sourced by the benches that count tracer stalls (bench/stalls.sh, bench/sqlite-overhead.sh)
# after setting fxt (the fxt binary).
# SPDX-License-Identifier: MIT

# stalls ARCHIVE: "COUNT TOTAL_S LONGEST_S" of fxt report's tracer stalls tables (0 0 0: none).
stalls() {
	"$fxt" report "$1" | awk '
	function sec(v, u) { return u == "s" ? v : u == "ms" ? v / 1e3 : u == "us" ? v / 1e6 : v / 1e9 }
	/^== / { in_stalls = /tracer stalls/; next }
	in_stalls && $1 ~ /^[0-9]+$/ && NF >= 8 {
		n += $1; t += sec($2, $3); m = sec($6, $7); if (m > max) max = m
	}
	END { printf "%d %.3f %.3f\n", n, t, max }'
}
