#!/usr/bin/env bash
# Installs the build tree into a scratch prefix with `cmake --install`, then checks that the
# installed fxtrun finds the installed libfxtauto.so, records an example into a valid archive,
# and that the pkg-config file and headers are where it says.
# usage: check-install.sh BUILD_DIR EXAMPLE_PROGRAM
set -euo pipefail
build=$1 example=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/fxt bin/fxtrun include/fxt/trace.h include/fxt/reader.h; do
	[ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
lib=$(find "$prefix" -name libfxtauto.so | head -1)
[ -n "$lib" ] || { echo "missing after install: libfxtauto.so"; exit 1; }
pc=$(find "$prefix" -name fxtauto.pc | head -1)
[ -n "$pc" ] || { echo "missing after install: fxtauto.pc"; exit 1; }
inc=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=includedir fxtauto)
[ "$(realpath "$inc")" = "$(realpath "$prefix/include")" ] || { echo "pkg-config includedir: '$inc'"; exit 1; }
cd "$prefix"
"$prefix/bin/fxtrun" -o installed.fxt "$example" >/dev/null 2>fxtrun.err || { cat fxtrun.err; exit 1; }
"$prefix/bin/fxt" check -q installed.fxt
report=$("$prefix/bin/fxt" report installed.fxt)	# (not piped into grep -q: see pipefail)
grep -q ' main$' <<<"$report" || { echo "no main in the report"; exit 1; }
echo "install ok"
