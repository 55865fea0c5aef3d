#!/usr/bin/env bash
# The main job on an example: build fxtauto, trace examples/c-demo with fxtrun, print the report.
# The archive is left in ./demo.fxt (open it in ui.perfetto.dev, or `build/launcher/fxt json demo.fxt`).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
build/launcher/fxtrun -o demo.fxt build/examples/c-demo
build/launcher/fxt report --limit 15 demo.fxt
