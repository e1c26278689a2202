#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Import robustness on synthesized text traces (build/slsynth --text):
# - lines that are not sched events (garbage, another event, a 1 MB junk line) are counted,
#   warned about on stderr with the first line number and stored as runs.skipped_lines;
# - a line naming a sched event whose context does not parse (a CPU column of [-01]) and an
#   out-of-range timestamp (one that would wrap u64 nanoseconds) stop the import with the
#   line number: exit 1, the events before it stored, status 'error';
# - SIGINT and SIGTERM mid-import stop it cleanly (exit 130, 143; what was read committed,
#   status 'interrupted'); after SIGKILL the run says 'interrupted' too;
# - `schedlens delete` removes those runs and every row derived from them, the file
#   shrinks, integrity_check is ok, the complete run is untouched; an unknown id deletes
#   nothing.
# Everything lives in a temp dir of its own (no tracefs, no ports).
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
S=$B/schedlens
need python3 sqlite3 "$B/slsynth"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
db=$T/db
q() { sqlite3 -cmd ".timeout 5000" "$db" "$1"; }
"$SL_SRC/tests/fixtures/mksysfs" guest16 "$T/sysfs" >/dev/null
TOPO="--sysfs $T/sysfs"

echo "1..25"

# --- skipped lines: counted, warned about, stored
"$B/slsynth" --sysfs "$T/sysfs" --policy buddy --seed 1 --duration 1 --text >"$T/small.txt" \
	2>/dev/null
lines=$(wc -l <"$T/small.txt")
{
	head -1000 "$T/small.txt"
	echo "this line is garbage"
	echo "            bash-7     [000] d..2.     0.000001: irq_handler_entry: irq=1 name=x"
	head -c 1048576 /dev/zero | tr '\0' 'j'
	echo
	tail -n +1001 "$T/small.txt"
} >"$T/junk.txt"
$S import "$T/junk.txt" $TOPO -o "$db" >"$T/out" 2>"$T/err"
rc=$?
ok "garbage, another event and a 1 MB junk line: imported, exit 0 (rc $rc)" '[ $rc = 0 ]'
ok "... stderr says 3 lines skipped, the first at line 1001" \
	'grep -q "skipped 3 line(s) .* the first at line 1001" "$T/err"'
ok "... runs.skipped_lines = 3, complete" '[ "$(q "SELECT skipped_lines, complete FROM runs WHERE id = 1")" = "3|1" ]'
$S runs --db "$db" --json >"$T/runs.json"
ok "... runs --json: status complete, skipped_lines 3" \
	'[ "$(python3 -c "import json,sys; r = json.load(open(sys.argv[1]))[\"runs\"][0]; print(r[\"status\"], r[\"skipped_lines\"])" "$T/runs.json")" = "complete 3" ]'
$S show 1 --db "$db" >"$T/show" 2>&1
ok "... show: status and skipped lines" 'grep -q "status *complete" "$T/show" && grep -q "skipped lines *3" "$T/show"'

# --- a sched event line that does not parse: an error with its line number
awk 'NR == 2001 { sub(/\[0*[0-9]+\]/, "[-01]") } { print }' "$T/small.txt" >"$T/cpu.txt"
$S import "$T/cpu.txt" $TOPO -o "$db" >/dev/null 2>"$T/err"
rc=$?
ok "CPU column [-01] on a sched event: exit 1 (rc $rc)" '[ $rc = 1 ]'
ok "... the message names line 2001" 'grep -q "line 2001: sched event without a readable" "$T/err"'
ok "... run 2 keeps the events before it, status error" \
	'[ "$(q "SELECT complete, events > 1000, import_error LIKE '"'"'line 2001:%'"'"' FROM runs WHERE id = 2")" = "0|1|1" ] &&
	 $S runs --db "$db" | grep -q "^ *2 .* error "'

# --- a timestamp that would wrap: an error, not 19.1 s
awk 'NR == 3001 { sub(/ [0-9]+\.[0-9]+:/, " 18446744092.805288752:") } { print }' "$T/small.txt" \
	>"$T/ts.txt"
$S import "$T/ts.txt" $TOPO -o "$db" >/dev/null 2>"$T/err"
rc=$?
ok "timestamp 18446744092.805288752: exit 1 with line 3001 (rc $rc)" \
	'[ $rc = 1 ] && grep -q "line 3001: timestamp out of range" "$T/err"'

# --- a line over 16 MiB (the reader's bound on memory): an error with its number, the
# events before it stored (in a file of its own: the run ids below stay as they are)
{
	head -2000 "$T/small.txt"
	head -c 17000000 /dev/zero | tr '\0' 'j'
	echo
	tail -n +2001 "$T/small.txt"
} >"$T/long.txt"
$S import "$T/long.txt" $TOPO -o "$T/long.db" >/dev/null 2>"$T/err"
rc=$?
ok "a 17 MB line: exit 1, 'line 2001 is longer than 16 MiB', run 1 keeps 2000 lines' events (rc $rc)" \
	'[ $rc = 1 ] && grep -q "line 2001 is longer than 16 MiB: not a text trace" "$T/err" &&
	 [ "$(sqlite3 "$T/long.db" "SELECT complete, events FROM runs WHERE id = 1")" = "0|$(head -2000 "$T/small.txt" | grep -c ": sched_")" ]'

# --- interrupted imports: a trace big enough to take seconds
"$B/slsynth" --sysfs "$T/sysfs" --policy buddy --seed 2 --duration 4 --text >"$T/big.txt" \
	2>/dev/null
# import_bg SIGNAL RUN: starts the import, waits for 30 k slices of RUN to be committed (of
# 165 k: mid-import, and enough rows for delete to free most of the file), sends it SIGNAL;
# sets rc to the exit status. The import is stopped (SIGSTOP) while each look is taken, and
# gets SIGNAL before it runs again: a fast import could otherwise finish between the look
# and the signal (it did, in CI, once imports took 0.2 s instead of 0.5)
import_bg() {
	local i
	$S import "$T/big.txt" $TOPO -o "$db" >"$T/out.$1" 2>"$T/err.$1" &
	local pid=$!
	for i in $(seq 600); do
		sleep 0.05
		kill -STOP $pid
		[ "$(q "SELECT count(*) >= 30000 FROM sched_slices WHERE run_id = $2" 2>/dev/null)" = 1 ] && break
		kill -CONT $pid
	done
	kill -"$1" $pid
	kill -CONT $pid 2>/dev/null
	wait $pid 2>/dev/null
	rc=$?
}
import_bg INT 4
ok "SIGINT mid-import: exit 130 (rc $rc)" '[ $rc = 130 ]'
ok "... says interrupted and how to delete it" 'grep -q "marked interrupted (.schedlens delete 4" "$T/err.INT"'
ok "... run 4: complete 0, events counted, import_error 'interrupted by signal 2 ...'" \
	'[ "$(q "SELECT complete, events > 0, import_error LIKE '"'"'interrupted by signal 2 %'"'"' FROM runs WHERE id = 4")" = "0|1|1" ]'
ok "... what was read is committed (slices of run 4)" \
	'[ "$(q "SELECT count(*) FROM sched_slices WHERE run_id = 4")" -gt 0 ]'
import_bg TERM 5
ok "SIGTERM mid-import: exit 143, run 5 interrupted by signal 15 (rc $rc)" \
	'[ $rc = 143 ] && [ "$(q "SELECT complete, import_error LIKE '"'"'interrupted by signal 15 %'"'"' FROM runs WHERE id = 5")" = "0|1" ]'
import_bg KILL 6
ok "SIGKILL mid-import: run 6 says interrupted (rc $rc)" \
	'[ $rc = 137 ] && [ "$(q "SELECT complete, import_error FROM runs WHERE id = 6")" = "0|interrupted" ]'
$S runs --db "$db" >"$T/runs.txt"
sed 's/^/# /' "$T/runs.txt"
ok "runs: STATUS column shows interrupted for 4, 5, 6 and error for 2, 3" \
	'[ "$(awk "NR > 1 { for (i = 1; i <= NF; i++) if (\$i ~ /^(complete|interrupted|error)$/) printf \"%s:%s \", \$1, \$i }" "$T/runs.txt")" = "6:interrupted 5:interrupted 4:interrupted 3:error 2:error 1:complete " ]'

# --- delete
tables="sched_slices wakeups preemptions sched_facts windows cpu_counts tasks"
# the tables retention chunks range over: the per-event rows' are their segments
chunked="sched_slices_seg wakeups_seg preemptions_seg sched_facts_seg windows cpu_counts"
rows_of() { local t s=0; for t in $tables; do s=$((s + $(q "SELECT count(*) FROM $t WHERE run_id IN ($1)"))); done; echo $s; }
keep=$(rows_of 1)
$S delete --db "$db" 9 4 >"$T/out" 2>"$T/err"
rc=$?
ok "delete with an unknown run: exit 1, nothing deleted (rc $rc)" \
	'[ $rc = 1 ] && grep -q "no run 9" "$T/err" && [ "$(q "SELECT count(*) FROM runs WHERE id = 4")" = 1 ]'
[ -f "$db-wal" ] && q "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
before=$(($(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0)))
gone=$(rows_of "2,3,4,5,6")
$S delete --db "$db" 2 3 4 5 6 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err" | sed 's/^/# /'
after=$(($(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0)))
echo "# $gone rows; file $before -> $after bytes"
ok "delete 2 3 4 5 6: exit 0, says 5 runs (rc $rc)" '[ $rc = 0 ] && grep -q "^deleted 5 run(s)" "$T/out"'
ok "... the runs are gone" '[ "$(q "SELECT group_concat(id) FROM runs")" = 1 ]'
ok "... and every row of theirs ($gone before)" '[ "$gone" -gt 100000 ] && [ "$(rows_of "2,3,4,5,6")" = 0 ]'
ok "... no chunk is left without rows" \
	'[ "$(for t in $chunked; do q "SELECT count(*) FROM chunks c WHERE tbl = '"'"'$t'"'"' AND NOT EXISTS (SELECT 1 FROM $t WHERE rowid BETWEEN c.first_rowid AND c.last_rowid)"; done | sort -u)" = 0 ]'
ok "... run 1 untouched ($keep rows)" '[ "$(rows_of 1)" = "$keep" ]'
ok "... the file shrank by more than half ($before -> $after bytes)" '[ $((after * 2)) -lt "$before" ]'
ok "... integrity_check ok" '[ "$(q "PRAGMA integrity_check")" = ok ]'
