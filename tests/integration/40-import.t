#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlens import / export on the guest16 trace.dat fixtures (tests/fixtures/mkguest16-dat):
# event counts per type equal trace-cmd report's; the report's text (-t) imports to the same
# wakeup and preemption rows as the trace.dat; export -> import gives identical rows (every
# derived table, on the fixtures, the lab's hackbench trace and a synthesized run); every
# bad-input case of tests/fuzz/corpus fails with a line number, never a crash; a run cut by
# bad input is stored marked incomplete.
set -u
. "$(dirname "$0")/lib.sh"
S=$SL_BUILD/schedlens
F=$SL_SRC/tests/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TOPO="--topology $F/guest16-import-topology.json"

# rows of a run, without run_id (and the columns named in $4, space-separated), in a
# fixed order
rows() {
	local cols skip
	skip=$(printf ",'%s'" run_id ${4-})
	cols=$(sqlite3 -cmd ".timeout 5000" "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('$2') WHERE name NOT IN (${skip#,})")
	sqlite3 -cmd ".timeout 5000" "$1" "SELECT $cols FROM $2 WHERE run_id = $3 ORDER BY $cols"
}
count() { python3 -c "import json,sys; print(json.load(sys.stdin)['events']['$1'])"; }

echo "1..33"
for f in v6 v7z inst; do
	dat=$F/guest16-import-$f.dat
	$S import "$dat" $TOPO --json -o "$T/db" > "$T/$f.json" 2>/dev/null
	trace-cmd report "$dat" 2>/dev/null > "$T/$f.report"
	same=yes
	for ev in switch:sched_switch waking:sched_waking wakeup:sched_wakeup \
		wakeup_new:sched_wakeup_new migrate:sched_migrate_task fork:sched_process_fork \
		exit:sched_process_exit; do
		a=$(count "${ev%%:*}" < "$T/$f.json")
		b=$(grep -c " ${ev#*:}: " "$T/$f.report")
		[ "$a" = "$b" ] || { same=no; echo "# $f ${ev#*:}: schedlens $a, trace-cmd report $b"; }
	done
	ok "$f: event counts per type equal trace-cmd report's" '[ $same = yes ]'
done
ok "inst: the events are in the -B instance" 'grep -q "\"instances\":1" $T/inst.json'

# trace-cmd report -t text of the v6 file: same records as the file itself (run 1), but
# for what the flags column would say: report prints none (with -l it glues the CPU to the
# flags, "2d.s3.", a layout the text importer does not read), so its wakeups all read as
# made in task context (docs/metrics.md), which the lock-holder columns depend on
trace-cmd report -t "$F/guest16-import-v6.dat" 2>/dev/null > "$T/v6.txt"
$S import "$T/v6.txt" $TOPO -o "$T/db" --json > "$T/v6t.json" 2>/dev/null
ok "report -t text imports as text" 'grep -q "\"format\":\"text\"" $T/v6t.json'
ok "report -t text: wakeups identical to trace.dat but for waker_irq" \
	'[ "$(rows $T/db wakeups 1 waker_irq)" = "$(rows $T/db wakeups 4 waker_irq)" ]'
lhp="hub waiters lhp_cost_ns delayed_wakeups spinners spin_cost_ns"
ok "report -t text: preemptions identical to trace.dat but for the lock-holder columns" \
	'[ "$(rows $T/db preemptions 1 "$lhp")" = "$(rows $T/db preemptions 4 "$lhp")" ]'
irq() { sqlite3 -cmd ".timeout 5000" "$T/db" "SELECT count(*) FROM wakeups WHERE run_id = $1 AND waker_irq > 0"; }
ok "trace.dat's wakeups from interrupts read from common_flags, none from the text ($(irq 1), $(irq 4))" \
	'[ "$(irq 1)" -gt 0 ] && [ "$(irq 4)" = 0 ]'
ok "the run has rows to compare" '[ "$(sqlite3 $T/db "SELECT count(*) FROM preemptions WHERE run_id = 1")" -gt 100 ]'

# export -> import round trip: identical rows (sched_facts keep what the rows cannot,
# lib/store/facts.h). rt NAME DB: exports run 1 of DB, imports it as run 2, compares every table.
rt() {
	local name=$1 db=$2 topo=$3 t d total=0
	$S export 1 -d "$db" -o "$T/$name.exp" 2>/dev/null
	$S import "$T/$name.exp" $topo -o "$db" > /dev/null 2>&1
	for t in wakeups preemptions sched_slices windows tasks; do
		d=$(diff <(rows "$db" $t 1) <(rows "$db" $t 2) | grep -c '^[<>]')
		echo "# round trip $name: $t: $(rows "$db" $t 1 | wc -l) rows, $d differ"
		total=$((total + d))
	done
	ok "round trip $name: wakeups, preemptions, slices, windows, tasks identical" '[ $total = 0 ]'
}
$S import "$F/guest16-import-v6.dat" $TOPO -o "$T/rt-v6.db" > /dev/null 2>&1
rt v6 "$T/rt-v6.db" "$TOPO"
ok "round trip v6: the run has rows to compare" \
	'[ "$(sqlite3 $T/rt-v6.db "SELECT count(*) FROM preemptions WHERE run_id = 2")" -gt 1000 ]'
$S export 2 -d "$T/rt-v6.db" -o "$T/v6.exp2" 2>/dev/null
ok "round trip v6: the re-imported run exports the same text" \
	'diff -q <(grep -v "^#" $T/v6.exp) <(grep -v "^#" $T/v6.exp2) > /dev/null'
for f in v7z inst nowaking; do
	$S import "$F/guest16-import-$f.dat" $TOPO -o "$T/rt-$f.db" > /dev/null 2>&1
	rt $f "$T/rt-$f.db" "$TOPO"
done
$S import "$F/guest16-hackbench.dat" --topology "$F/guest16-topology.json" -o "$T/rt-hb.db" \
	> /dev/null 2>&1
rt lab-hackbench "$T/rt-hb.db" "--topology $F/guest16-topology.json"
# a synthesized run: buddy placement, many migrations, 110 k events
(cd "$SL_SRC" && "$SL_BUILD/slsynth" --topology guest16 --policy buddy --seed 1 --duration 1 \
	--text > "$T/synth.txt" 2>/dev/null)
"$SL_SRC/tests/fixtures/mksysfs" guest16 "$T/sysfs"
$S import "$T/synth.txt" --sysfs "$T/sysfs" -o "$T/rt-synth.db" > /dev/null 2>&1
rt synth "$T/rt-synth.db" "--sysfs $T/sysfs"
ok "round trip synth: migrations are facts" \
	'[ "$(sqlite3 $T/rt-synth.db "SELECT count(*) FROM sched_facts WHERE run_id = 1 AND kind = 5")" -gt 10000 ]'
# a recording of lock contention: its futex calls (kind 11) are facts, so the re-import
# judges lock-holder preemption as the recording did
$S record -o "$T/rt-rec.db" -l lock -- "$SL_BUILD/tests/helpers/sl-lockload" mutex 6 1 200 100 \
	/dev/null > /dev/null 2>&1
rt recorded "$T/rt-rec.db" "--sysfs /"
ok "round trip recorded: futex calls are facts" \
	'[ "$(sqlite3 $T/rt-rec.db "SELECT count(*) FROM sched_facts WHERE run_id = 1 AND kind = 11")" -gt 100 ]'
ok "round trip recorded: lock-holder preemptions to compare" \
	'[ "$(sqlite3 $T/rt-rec.db "SELECT count(*) FROM preemptions WHERE run_id = 2 AND waiters > 0")" -gt 10 ]'

# A run stored without facts (before schema 4) exports from its rows alone: the same switches,
# wakings and wakeups, and of the migrations those a wakeup implies (onto another CPU than the
# target); re-imported, it gives the same wakeup rows.
cp "$T/rt-synth.db" "$T/nofacts.db"
sqlite3 "$T/nofacts.db" "UPDATE runs SET facts = 0 WHERE id = 1; DELETE FROM sched_facts_seg WHERE run_id = 1"
counts() { sed -n 's/^wrote [0-9]* lines: \([0-9]*\) switches, \([0-9]*\) wakings, \([0-9]*\) wakeups.*/\1 \2 \3/p' "$1"; }
$S export 1 -d "$T/rt-synth.db" -o /dev/null 2> "$T/facts.err"
$S export 1 -d "$T/nofacts.db" -o "$T/nofacts.exp" 2> "$T/nofacts.err"
echo "# with facts: $(cat $T/facts.err); without: $(cat $T/nofacts.err)"
ok "run without facts: exports the same switches, wakings and wakeups" \
	'[ -n "$(counts $T/facts.err)" ] && [ "$(counts $T/facts.err)" = "$(counts $T/nofacts.err)" ]'
ok "run without facts: only the migrations its wakeups imply" \
	'[ "$(grep -c sched_migrate_task $T/nofacts.exp)" = "$(sqlite3 $T/nofacts.db "SELECT count(*) FROM wakeups WHERE run_id = 1 AND run_cpu IS NOT NULL AND latency_ns IS NOT NULL AND run_cpu != target_cpu")" ]'
$S import "$T/nofacts.exp" --sysfs "$T/sysfs" -o "$T/nofacts.db" > /dev/null 2>&1
ok "run without facts: re-imported, the same wakeup rows" \
	'[ -z "$(diff <(rows "$T/nofacts.db" wakeups 1) <(rows "$T/nofacts.db" wakeups 3))" ]'

# no sched_waking: flagged fallback
$S import "$F/guest16-import-nowaking.dat" $TOPO -o "$T/db" --json > "$T/nw.json" 2>/dev/null
ok "no sched_waking: waker_from_wakeup on the run" '[ "$(sqlite3 $T/db "SELECT waker_from_wakeup FROM runs WHERE id = 5")" = 1 ]'
# text: the pre-scan reads 256 KiB pieces; a first sched_waking cut by a piece's end counts
grep -v " sched_waking: " "$T/v6.txt" > "$T/nowaking.txt"
python3 - "$T/v6.txt" "$T/straddle.txt" <<'EOF'
import sys
text = open(sys.argv[1]).read()
pad = 262139 - text.index(" sched_waking: ") - len("# tracer: nop\n") - 2
open(sys.argv[2], "w").write("# tracer: nop\n#" + "x" * pad + "\n" + text)
EOF
for f in nowaking straddle; do
	$S import "$T/$f.txt" $TOPO -o "$T/wk.db" > /dev/null 2>&1
done
ok "text without sched_waking: waker_from_wakeup 1; one whose first straddles 256 KiB: 0" \
	'[ "$(sqlite3 $T/wk.db "SELECT group_concat(waker_from_wakeup) FROM (SELECT waker_from_wakeup FROM runs ORDER BY id)")" = "1,0" ] &&
	 [ "$(grep -bo " sched_waking: " "$T/straddle.txt" | head -1 | cut -d: -f1)" = 262139 ]'

# no topology: imported, classes unknown, warning says how
$S import "$F/guest16-import-v7z.dat" -o "$T/db" > /dev/null 2> "$T/warn"
ok "no topology: warning names topology --save" 'grep -q "topology --save" $T/warn'
ok "no topology: classes stored unknown" '[ "$(sqlite3 $T/db "SELECT count(*) FROM wakeups WHERE run_id = 6 AND class_prev != 5")" = 0 ]'

# bad input: clear errors, no crash
bad=yes
for c in "$SL_SRC"/tests/fuzz/corpus/bad-*; do
	$S import "$c" --format text $TOPO > /dev/null 2> "$T/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "schedlens: " "$T/err"; then bad=no; echo "# $(basename $c): rc $rc: $(cat $T/err)"; fi
done
ok "every bad-input case fails cleanly" '[ $bad = yes ]'
$S import "$SL_SRC/tests/fuzz/corpus/bad-time-backwards.txt" --format text 2> "$T/err" > /dev/null
ok "backwards time names the line" 'grep -q "line 2: timestamp" $T/err'
head -c 200000 "$F/guest16-import-v6.dat" > "$T/trunc.dat"
$S import "$T/trunc.dat" $TOPO > /dev/null 2> "$T/err"; rc=$?
ok "truncated trace.dat: error, no crash" '[ $rc = 1 ] && [ -s $T/err ]'
printf 'hello world\n' > "$T/wrong.txt"
$S import "$T/wrong.txt" 2> "$T/err" > /dev/null
ok "wrong format: says so" 'grep -q "neither a trace.dat nor ftrace text" $T/err'

# a text cut by a bad line: stored, marked incomplete, error saved
head -3000 "$T/v6.txt" > "$T/cut.txt"; echo "   x-1 [001] 999.0: sched_switch: garbage" >> "$T/cut.txt"
$S import "$T/cut.txt" $TOPO -o "$T/db" > /dev/null 2>&1
ok "bad line mid-file: run stored with complete = 0 and the error" \
	'[ "$(sqlite3 $T/db "SELECT complete, import_error LIKE \"line 3001:%\" FROM runs ORDER BY id DESC LIMIT 1")" = "0|1" ]'
