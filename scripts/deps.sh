#!/usr/bin/env bash
# Installs the Debian packages fxtauto needs to build and test (run as root, or with sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config clang libclang-rt-dev libdw-dev libelf-dev libunwind-dev
      bats uftrace python3 valgrind gdb strace util-linux procps file binutils time
      libprotobuf32 libsqlite3-0 zlib1g)	# the last three: Perfetto's trace_processor_shell
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
