# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh: what every integration test shares (sourced, after `set -u`): TAP output.
#
#   ok NAME CHECK         evaluates CHECK, a shell expression, and prints "ok N - NAME" or
#                         "not ok N - NAME"; returns CHECK's status, so `ok ... || exit 1`
#                         stops at a failure that makes the rest meaningless. Inside CHECK,
#                         $? is the status of the command run just before ok:
#                         `cmd; ok "cmd exits 0" '[ $? -eq 0 ]'` tests cmd, not ok's own
#                         bookkeeping (it did not before lib.sh: 17 such checks passed
#                         whatever the command did). CHECK sees the caller's variables:
#                         ok's own are all named _tap_*.
#   todo WHY NAME CHECK   a target not met yet, reported as a TAP TODO (never a failure)
#   skip NAME REASON      one check that cannot mean anything here: "ok N - NAME # SKIP REASON"
#   skip_all REASON       the whole test cannot run here (prints "1..0 # SKIP REASON")
#   need CMD...           skip_all unless every CMD (a name on PATH, or a path) is there
#   done_testing          prints the plan "1..N" and exits 1 if any check failed
_tap_n=0
_tap_fail=0

# Sets $? for the CHECK that follows.
_tap_status() { return "$1"; }

ok() {
	local _tap_rc=$?
	_tap_n=$((_tap_n + 1))
	if _tap_status "$_tap_rc"; eval "$2"; then
		echo "ok $_tap_n - $1"
		return 0
	fi
	echo "not ok $_tap_n - $1"
	_tap_fail=1
	return 1
}

todo() {
	local _tap_rc=$?
	_tap_n=$((_tap_n + 1))
	if _tap_status "$_tap_rc"; eval "$3"; then
		echo "ok $_tap_n - $2 # TODO $1"
	else
		echo "not ok $_tap_n - $2 # TODO $1"
	fi
}

skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

need() {
	local _tap_x
	for _tap_x; do
		command -v "$_tap_x" >/dev/null ||
			skip_all "$_tap_x missing ('make deps' installs the tools, 'make check' builds ours)"
	done
}

done_testing() {
	echo "1..$_tap_n"
	exit "$_tap_fail"
}


# The per-event tables (sched_slices, wakeups, preemptions, sched_facts) are virtual tables
# over segments: the sqlite3 shell reads them with the schedlens-sql extension loaded.
sqlite3() {
	command sqlite3 -cmd ".load ${SL_BUILD:?}/schedlens-sql" "$@"
}
