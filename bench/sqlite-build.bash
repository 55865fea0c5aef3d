# Shared by bench/sqlite-edges.sh, sqlite-overhead.sh and sqlite-replay.sh: SQLite's speedtest1
# built from Debian's source package (apt-get source sqlite3 through a private apt configuration
# with a deb-src line: the machine's own apt setup is never changed) with `$cc $cflags
# -finstrument-functions`, cached in $cache. Sourced first (bench/common.bash with it), with the
# script's arguments [CACHE_DIR [BUILD_DIR]]: sets cache, build, cc, cflags, mirror (from CC,
# CFLAGS, MIRROR), fxt, fxtrun and lib (the build's), and checks that fxt and libfxtauto.so are
# built and the tools of the build are installed; `speedtest1` prints the binary's path,
# building what the cache lacks.
# SPDX-License-Identifier: MIT

# shellcheck source=bench/common.bash
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
cache=$(realpath -m "${1:-/tmp/fxt-sqlite}") build=$(realpath -m "${2:-build}")
cc=${CC:-gcc} cflags=${CFLAGS:--O2} mirror=${MIRROR:-http://deb.debian.org/debian}
# shellcheck disable=SC2034 # fxtrun is for the scripts
fxt=$build/launcher/fxt fxtrun=$build/launcher/fxtrun lib=$build/preload/libfxtauto.so
have "fxt and fxtauto" "$fxt" "$lib"
have_tools apt-get dpkg-source tclsh make "$cc"

# The newest unpacked source tree in the cache, or nothing.
source_dir() {
	[ ! -d "$cache/src" ] || find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name 'sqlite3-*' | sort -V | tail -n 1
}

# Downloads and unpacks Debian's source package of sqlite3 into $cache/src.
fetch_source() {
	local suite apt
	suite=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
	[ -n "$suite" ] || die "no VERSION_CODENAME in /etc/os-release: set SUITE (e.g. bookworm)"
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/sources" "$cache/apt/cache" "$cache/src"
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$mirror" "$suite" /usr/share/keyrings/debian-archive-keyring.gpg \
		>"$cache/apt/sources/deb-src.sources"
	apt=(-q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$cache/apt/sources"
		-o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt/cache"
		-o APT::Sandbox::User="$(id -un)")
	apt-get "${apt[@]}" update >"$cache/apt/update.log" 2>&1 ||
		die "apt-get update of $mirror $suite (deb-src) failed: see $cache/apt/update.log"
	(cd "$cache/src" && apt-get "${apt[@]}" source sqlite3) >"$cache/apt/source.log" 2>&1 ||
		die "apt-get source sqlite3 failed: see $cache/apt/source.log"
}

# Prints the path of speedtest1 built from source tree $1 with $cc $cflags, building it unless
# the cache holds one: one binary per recipe (compiler, flags, source version).
build_speedtest() {
	local src=$1 bld recipe bin
	bld=$cache/bld-$(basename "$src")
	recipe="$cc $cflags -finstrument-functions $(basename "$src")"
	bin=$cache/speedtest1-$(echo "$recipe" | md5sum | cut -c1-12)
	if [ ! -x "$bin" ]; then
		if [ ! -s "$bld/sqlite3.c" ]; then
			echo "$(basename "$0" .sh): making the amalgamation (sqlite3.c) in $bld" >&2
			mkdir -p "$bld"
			(cd "$bld" && "$src/configure" --disable-tcl && make sqlite3.c) >"$bld/make.log" 2>&1 ||
				die "making sqlite3.c failed: see $bld/make.log"
		fi
		echo "$(basename "$0" .sh): compiling $bin ($recipe)" >&2
		# shellcheck disable=SC2086 # CFLAGS is a list of flags
		"$cc" $cflags -finstrument-functions -DNDEBUG -DSQLITE_THREADSAFE=1 -DSQLITE_OS_KV_OPTIONAL \
			-I"$bld" "$src/test/speedtest1.c" "$bld/sqlite3.c" -o "$bin.new" -lm -lpthread -ldl \
			>"$bld/cc.log" 2>&1 || die "compiling speedtest1 failed: see $bld/cc.log"
		mv "$bin.new" "$bin"
	fi
	echo "$bin"
}

# The path of speedtest1 (fetched and built when the cache has none).
speedtest1() {
	local src
	src=$(source_dir)
	[ -n "$src" ] || { fetch_source; src=$(source_dir); }
	[ -n "$src" ] || die "no sqlite3-* source tree in $cache/src after apt-get source"
	build_speedtest "$src"
}
