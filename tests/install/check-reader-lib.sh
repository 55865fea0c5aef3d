#!/usr/bin/env bash
# libfxtreader as a user gets it: installs the build tree into a scratch prefix, builds
# examples/read-archive.c with `pkg-config --cflags --libs fxtreader` of that prefix alone (a
# copy of the source, no include path into the source tree), shared and static, and checks that
# both print, for archives the installed fxtrun records, the complete slices per thread that
# `fxt dump` shows (complete events plus begin/end pairs). Also: <fxt/reader.h> compiles alone as
# C11 and C++, and libfxtreader.so.1 exports exactly the functions the header marks
# FXT_READER_API, each in version FXTREADER_1.
# usage: check-reader-lib.sh BUILD_DIR CC CXX EXAMPLE_SOURCE TRACED_PROGRAM...
# SPDX-License-Identifier: MIT
set -euo pipefail
build=$1 cc=$2 cxx=$3 example=$4
shift 4
tmp=$(mktemp -d /tmp/fxt-reader-lib.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "not ok: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name fxtreader.pc | head -1)
[ -n "$pc" ] || fail "no fxtreader.pc under the prefix"
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR=$(dirname "$pc")
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH
cflags=$(pkg-config --cflags fxtreader) libs=$(pkg-config --libs fxtreader)
libdir=$(pkg-config --variable=libdir fxtreader)
case " $cflags $libs " in *"$(realpath "$build")"*|*" -I/work"*) fail "flags point outside the prefix: $cflags $libs";; esac

cd "$tmp"
printf '#include <fxt/reader.h>\nint main(void) { return FXT_RT_EVENT != 4; }\n' >alone.c
$cc -std=c11 -Wall -Wextra -Werror -pedantic $cflags -c alone.c -o alone.o ||
	fail "<fxt/reader.h> does not compile alone as C11"
$cxx -std=c++17 -Wall -Wextra -Werror -x c++ $cflags -c alone.c -o alone-cxx.o ||
	fail "<fxt/reader.h> does not compile alone as C++"

cp "$example" read-archive.c
$cc -std=c11 -Wall -Wextra -Werror read-archive.c $cflags $libs -o ra-shared ||
	fail "read-archive does not build against the installed shared library"
$cc -std=c11 -Wall -Wextra -Werror read-archive.c $cflags -Wl,-Bstatic $libs -Wl,-Bdynamic \
	-o ra-static || fail "read-archive does not build against the installed static library"
# (captured first: with pipefail, `ldd | grep -q` fails when grep's early exit kills ldd)
loads=$(LD_LIBRARY_PATH=$libdir ldd ra-shared)
grep -q "libfxtreader.so.1 => $libdir/" <<<"$loads" ||
	fail "ra-shared does not load the installed libfxtreader.so.1: $loads"
loads=$(ldd ra-static 2>&1 || true)	# "not a dynamic executable" is fine too
grep -q libfxtreader <<<"$loads" && fail "ra-static still needs libfxtreader.so"

so=$libdir/libfxtreader.so.1
grep -q 'SONAME *libfxtreader.so.1$' <<<"$(objdump -p "$so")" || fail "SONAME is not libfxtreader.so.1"
$cc -E -P $cflags alone.c |
	perl -0ne 'print "$1\n" while /visibility\("default"\)\)\)[^;(]*?(\w+)\s*\(/g' |
	sort >api.txt
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sort >exported.txt
[ "$(wc -l <api.txt)" -ge 20 ] || fail "found only $(wc -l <api.txt) API functions in the header"
sed 's/$/@@FXTREADER_1/' api.txt | diff - exported.txt ||
	fail "libfxtreader.so exports other than the FXT_READER_API functions at FXTREADER_1"

n=0
for prog in "$@"; do
	n=$((n + 1))
	"$prefix/bin/fxtrun" -o "a$n.fxt" "$prog" >/dev/null 2>"fxtrun$n.err" ||
		{ cat "fxtrun$n.err"; fail "fxtrun $prog"; }
	# per thread "pid tid slices" from the canonical text: field 4 is thread=PID/TID
	"$prefix/bin/fxt" dump "a$n.fxt" | awk '
		$2 == "complete" || $2 == "begin" || $2 == "end" {
			split(substr($4, 8), k, "/"); t = k[1] " " k[2]
			if ($2 == "complete") n[t]++
			else if ($2 == "begin") open[t]++
			else if (open[t] > 0) { open[t]--; n[t]++ }
		}
		END { for (t in n) print t, n[t] }' | sort >dump$n.txt
	[ -s "dump$n.txt" ] || fail "no slices in the dump of $prog"
	for kind in shared static; do
		LD_LIBRARY_PATH=$libdir "./ra-$kind" "a$n.fxt" >"ra-$kind$n.out" ||
			fail "ra-$kind exits non-zero on the archive of $prog"
		awk 'NR > 1 && $3 > 0 { print $1, $2, $3 }' "ra-$kind$n.out" | sort |
			diff "dump$n.txt" - || fail "ra-$kind's slices per thread differ from fxt dump's ($prog)"
	done
	echo "ok: $prog: $(wc -l <"dump$n.txt") threads, $(awk '{ s += $3 } END { print s }' "dump$n.txt") slices, as fxt dump counts"
done
rc=0
./ra-static missing.fxt 2>missing.err || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <missing.err)" = 1 ] ||
	fail "read-archive on a missing file: exit $rc, $(cat missing.err)"
grep -q "/worker-0$" ra-shared1.out || fail "read-archive does not name the threads: $(cat ra-shared1.out)"
echo "reader library ok"
