#!/usr/bin/env bash
# `fxt flame`'s SVG in a real browser: headless Chromium (Debian's chromium) opens the flame
# graph of a c-demo trace; its script must have run (data-ready on the document: the number of
# frames in the file) and, with #selftest in the address, zoomed on the widest frame above the
# root to the full width and found it by search (data-selftest, read with --dump-dom); a
# screenshot must show the frames (flame-png.py counts their colors). Exit 77 (ctest SKIP) with
# one line when chromium is not installed.
# Usage: flame-browser.sh WORKDIR PROGRAM   Env: FXT, FXTAUTO.
# SPDX-License-Identifier: MIT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
prog=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIPPED: chromium is not installed (apt-get install chromium)" >&2
	exit 77
fi
mkdir -p "$work"
rm -f "$work/demo.fxt"
FXT_SCHED=0 FXT_OUTPUT="$work/demo.fxt" LD_PRELOAD="$FXTAUTO" "$prog" >/dev/null
"$FXT" flame -o "$work/demo.svg" "$work/demo.fxt"
frames=$(grep -c '^<g class="f">' "$work/demo.svg")
chrome() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$work/profile" "$@" 2>"$work/chromium.log"
}
chrome --dump-dom "file://$work/demo.svg#selftest" >"$work/dom.svg"
ready=$(sed -n 's/.* data-ready="\([0-9]*\)".*/\1/p' "$work/dom.svg" | head -1)
selftest=$(sed -n 's/.* data-selftest="\([^"]*\)".*/\1/p' "$work/dom.svg" | head -1)
echo "frames in the file: $frames; the script says ready=$ready; selftest: $selftest"
[ "$ready" = "$frames" ]
[[ "$selftest" == *" width=1180.0 "* ]]
[[ "$selftest" =~ matches=[1-9] ]]
[[ "$selftest" =~ Matched:_[0-9.]+% ]]
chrome --window-size=1200,600 --screenshot="$work/demo.png" "file://$work/demo.svg" >/dev/null
python3 "$here/flame-png.py" "$work/demo.png"
