# Shared by the bats suites that record under fxtrun (fxtrun, fxtrun-trust, fxtrun-limits,
# completeness): counting an archive's calls, and the summary's word on drops. Needs FXT.
# SPDX-License-Identifier: MIT

# calls ARCHIVE NAME: how many complete events (calls) of function NAME the archive holds.
calls() {
	"$FXT" dump "$1" | grep -c "^[0-9a-f]* complete .* name=\"$2\" " || true
}

# no_call_dropped SUMMARY: fxtrun's (or fxt stop's) summary says no record was dropped, or that
# the only records dropped were context switches the kernel's ring lost (its reader thread
# kept off the CPU by a busy machine; switches are recorded by default): never a call.
no_call_dropped() {
	local switches_only="[0-9]+ records DROPPED \(context switches lost: the kernel's ring overflowed\)"
	[[ "$1" == *"no records dropped"* || "$1" =~ $switches_only ]]
}
