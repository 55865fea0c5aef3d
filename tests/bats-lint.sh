#!/usr/bin/env bash
# A claim that cannot fail: in a bats test, `! command` on a line of its own is ignored by
# `set -e` (bash exempts negated pipelines), so a test goes on as if it held. Lists every such
# line in tests/bats/ that is not followed by `|| ...` (`! cmd || false` fails the test) and
# exits 1 if there is one. The last command of a helper function is fine (its status is the
# function's): those lines end with `# status` to say so.
# Usage: tests/bats-lint.sh [DIR]   (default: the tests/bats/ beside this script)
# SPDX-License-Identifier: MIT
set -euo pipefail
dir=${1:-$(dirname "$0")/bats}
if grep -nE '^[[:space:]]*! ' "$dir"/*.bats "$dir"/*.bash | grep -vE '\|\||# status'; then
	echo "bats-lint: a bare '! command' line never fails its test: add '|| false'" >&2
	exit 1
fi
echo "bats-lint: no bare negations in $dir"
