#!/usr/bin/env bash
# The interposed functions, from the one table in preload/base/interposed.h (read through the C
# preprocessor, so what is listed is what compiles). Modes:
#   --print  the markdown list for docs/ARCHITECTURE.md on stdout;
#   --write  that list into docs/ARCHITECTURE.md between its interposed:begin/end markers;
#   --check  (ctest interposed-list) exits 1, saying what differs, unless preload/exports.map
#            exports exactly the table's names (besides the hooks and fxt_api_*) and the docs
#            hold the list as --print writes it.
# Env: CC (default cc). Run from anywhere; reads and writes only the files named above.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---print}
cc=${CC:-cc}
docs=docs/ARCHITECTURE.md
begin='<!-- interposed:begin (scripts/interposed.sh --write) -->'
end='<!-- interposed:end -->'

# One line per entry: "name file via" (via "real": calls fxtp_real.name), in table order.
entries() {
	printf '%s\n' '#include "preload/base/interposed.h"' \
		'#define X(file, ret, name, version, ...) @@ name file real' \
		'#define W(file, name, via) @@ name file via' 'FXTP_REAL(X)' 'FXTP_FORWARD(W)' |
		"$cc" -E -P -I. -x c - | tr -s ' \n' ' ' | sed 's/@@/\n@@/g' |
		awk '$1 == "@@" {print $2, $3, $4}'
}

list() {
	local e
	e=$(entries)
	echo "$begin"
	echo "| file | wraps (calls the real function, resolved in \`base/real.c\`) | forwards to one of ours |"
	echo "| --- | --- | --- |"
	for f in $(awk '{print $2}' <<<"$e" | awk '!seen[$0]++'); do
		local real fwd
		real=$(awk -v f="$f" '$2 == f && $3 == "real" {printf "%s`%s`", n++ ? ", " : "", $1}' <<<"$e")
		fwd=$(awk -v f="$f" '$2 == f && $3 != "real" {printf "%s`%s` → `%s`", n++ ? ", " : "", $1, $3}' <<<"$e")
		local path
		path=$(cd preload && ls -- */"$f.c" 2>/dev/null) ||
			{ echo "interposed: no preload/*/$f.c for the table's file $f" >&2; exit 1; }
		echo "| \`$path\` | ${real:-—} | ${fwd:-—} |"
	done
	echo "$end"
}

case $mode in
--print) list ;;
--write)
	new=$(list)
	grep -qF "$begin" "$docs" || { echo "interposed: no '$begin' line in $docs" >&2; exit 1; }
	awk -v b="$begin" -v e="$end" -v new="$new" '
		$0 == b { print new; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$docs" >"$docs.tmp" && mv "$docs.tmp" "$docs" ;;
--check)
	bad=0
	table=$(entries | awk '{print $1}' | sort)
	map=$(sed -n '/global:/,/local:/p' preload/exports.map | grep -o '^[[:space:]]*[A-Za-z_][A-Za-z0-9_*]*;' |
		tr -d ' \t;' | grep -v '^__cyg_profile_func_\|^fxt_api_\*$' | sort)
	if [ "$table" != "$map" ]; then
		echo "interposed: preload/exports.map and preload/base/interposed.h differ (< table only, > map only):"
		diff <(echo "$table") <(echo "$map") | grep '^[<>]' || true
		bad=1
	fi
	if [ "$(list)" != "$(sed -n "\|^$begin\$|,\|^$end\$|p" "$docs")" ]; then
		echo "interposed: $docs does not hold the list of preload/base/interposed.h: run scripts/interposed.sh --write"
		bad=1
	fi
	[ $bad = 0 ] && echo "interposed: $(wc -l <<<"$table") names agree in the table, exports.map and $docs"
	exit $bad ;;
*) echo "usage: scripts/interposed.sh [--print|--write|--check]" >&2; exit 2 ;;
esac
