# Shared by the API end-to-end scripts (run-traced.sh, run-fxtrun.sh): a temporary directory
# removed at exit, TAP claims (`ok - ...` / `not ok - ...`, $fail set on the first failure) and
# the two archive checks every run makes: api-check against an expected file, and `fxt check`.
# Sourced, not run. Env: API_CHECK (tests/api/api-check), FXT (the fxt command).
# SPDX-License-Identifier: MIT
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
claim() { # status description
	if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fail=1; fi
}
# api_check ARCHIVE EXPECTED DESCRIPTION [api-check flags...]: the archive holds exactly the API
# records of EXPECTED (api-check's report indented under the claim).
api_check() {
	local archive=$1 expected=$2 what=$3
	shift 3
	"$API_CHECK" "$@" "$archive" "$expected" | sed 's/^/    /'
	claim "${PIPESTATUS[0]}" "$what"
}
# fxt_check ARCHIVE DESCRIPTION: `fxt check` accepts the archive (its output shown if not).
fxt_check() {
	local rc
	"$FXT" check "$1" >"$tmp/check.out" 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/    /' "$tmp/check.out"
	claim $rc "$2"
}
