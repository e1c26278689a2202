#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Store crash safety: SIGKILL a process writing to the store at full speed, 20 times at
# random moments (50-500 ms after it starts), all into the same file. After every kill,
# with the sqlite3 shell as a user would: PRAGMA integrity_check is ok, every batch the
# writer reported committed is there, and the retention chunks still account for every
# row. The next writer must open the crashed file and go on: it first deletes the previous
# runs' rows by retention (whole chunks), so that is checked on crashed files too.
set -u
. "$(dirname "$0")/lib.sh"
HELPER=${SL_BUILD:?}/tests/helpers/sl-crash-writer


if ! command -v sqlite3 >/dev/null; then
	skip_all "needs the sqlite3 shell (make deps)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/crash.db
q() { sqlite3 -bail "$db" "$1" 2>&1; }

total_committed=0
for i in $(seq 1 20); do
	"$HELPER" "$db" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep "$(printf '0.%03d' $((50 + RANDOM % 451)))"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	ok "kill $i: the writer was still running (no error of its own)" "[ ! -s '$tmp/err' ]"
	run=$(sed -n 's/^run \([0-9]*\)$/\1/p' "$tmp/out")
	committed=$(sed -n 's/^committed \([0-9]*\)$/\1/p' "$tmp/out" | tail -n 1)
	committed=${committed:-0}
	total_committed=$((total_committed + committed))
	ok "kill $i: integrity_check ok" "[ \"\$(q 'PRAGMA integrity_check')\" = ok ]"
	if [ -n "$run" ]; then
		have=$(q "SELECT count(*) FROM wakeups WHERE run_id = $run AND ts_ns < $committed")
		ok "kill $i: all $committed committed wakeups of run $run are there (have $have)" \
			"[ '$have' = '$committed' ]"
		ok "kill $i: retention removed the earlier runs' rows" \
			"[ \"\$(q 'SELECT count(*) FROM wakeups WHERE run_id < $run')\" = 0 ]"
		ok "kill $i: and their windows" \
			"[ \"\$(q 'SELECT count(*) FROM windows WHERE run_id = $run')\" -ge $((committed / 5000)) ]"
	else
		ok "kill $i: killed before its run began" true
		ok "kill $i: (no retention to check)" true
		ok "kill $i: (no windows to check)" true
	fi
	# A writer killed before it made the schema (under the sanitizers it takes over
	# 100 ms to start) leaves an empty file: nothing to account for yet.
	if [ -z "$run" ] && [ "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'chunks'")" = 0 ]; then
		ok "kill $i: killed before the schema was made: no rows to account for" \
			"[ \"\$(q 'SELECT count(*) FROM sqlite_master')\" = 0 ]"
	else
		ok "kill $i: chunks account for every row" \
			"[ \"\$(q \"SELECT (SELECT count(*) FROM wakeups) - (SELECT coalesce(sum(rows), 0) FROM chunks WHERE tbl = 'wakeups_seg')\")\" = 0 ]"
	fi
done
echo "# $total_committed wakeups committed across 20 kills"
ok "the writers committed something" "[ $total_committed -gt 0 ]"
ok "runs table holds every run" "[ \"\$(q 'SELECT count(*) FROM runs')\" -ge 1 ]"
done_testing
