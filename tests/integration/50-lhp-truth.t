#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Lock-holder preemption on real locks against ground truth. tests/helpers/sl-lockload runs
# 6 threads on one lock (a pthread mutex, a reader-writer lock, a condition variable and a
# spinlock with back-off like PostgreSQL's s_lock), each writing "wants L", "holds L" and
# "released L" to the trace_marker of this test's own tracefs instance, which records the
# sched events schedlens needs. The instance's text is imported with this host's topology;
# tests/integration/lhp-truth.py computes the truth from the markers and compares it with
# the stored preemption rows: precision, recall and the LHP cost against the truth's
# waiting time, printed as diagnostics.
#
# The instance is named schedlens.<this shell's pid>: other schedlens processes clean up
# only instances of dead pids. SL_LHP_SECONDS sets each workload's length (default 2).
set -u
. "$(dirname "$0")/lib.sh"
S=$SL_BUILD/schedlens
LOAD=$SL_BUILD/tests/helpers/sl-lockload
TRUTH=$SL_SRC/tests/integration/lhp-truth.py
SECS=${SL_LHP_SECONDS:-2}
T=$(mktemp -d)
I=/sys/kernel/tracing/instances/schedlens.$$
cleanup() {
	if [ -d "$I" ]; then
		echo 0 > "$I/tracing_on"
		rmdir "$I"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
# ge A B: A >= B for decimals
ge() { python3 -c "import sys; sys.exit(0 if float('$1') >= float('$2') else 1)"; }
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2"; }

echo "1..23"
mkdir "$I" || { echo "Bail out! cannot create tracefs instance '$I'"; exit 1; }
echo mono > "$I/trace_clock"
echo 0 > "$I/options/overwrite"
echo 32768 > "$I/buffer_size_kb"
for e in sched_waking sched_wakeup sched_wakeup_new sched_switch sched_migrate_task \
	sched_process_fork sched_process_exit; do
	echo 1 > "$I/events/sched/$e/enable"
done

# record MODE: runs the workload with the instance on, leaves its text in $T/MODE.txt
record() {
	echo > "$I/trace"
	echo 1 > "$I/tracing_on"
	"$LOAD" "$1" 6 "$SECS" 200 100 "$I/trace_marker"
	local rc=$?
	echo 0 > "$I/tracing_on"
	cat "$I/trace" > "$T/$1.txt"
	dropped=$(cat "$I"/per_cpu/cpu*/stats | awk '/^dropped events:/ { s += $3 } END { print s + 0 }')
	return $rc
}

for m in mutex:sleep rwlock:sleep cond:sleep spin:spin; do
	mode=${m%%:*}
	kind=${m#*:}
	record "$mode"
	rc=$?
	ok "$mode: the workload ran and no event was dropped" '[ $rc = 0 ] && [ "$dropped" = 0 ]'
	$S import "$T/$mode.txt" --sysfs / -l "lhp-$mode" -o "$T/db" --json > "$T/$mode.json" \
		2> "$T/$mode.err"
	run=$(python3 -c "import json; print(json.load(open('$T/$mode.json'))['run_id'])" 2>/dev/null)
	ok "$mode: the text imported, markers skipped" '[ -n "$run" ]'
	sed 's/^/# import: /' "$T/$mode.err"
	sqlite3 -cmd ".timeout 5000" "$T/db" "SELECT ts_ns, victim_pid, hub, waiters, lhp_cost_ns,
		spinners, spin_cost_ns FROM preemptions WHERE run_id = ${run:-0}" > "$T/$mode.rows"
	python3 "$TRUTH" "$T/$mode.txt" "$T/$mode.rows" $kind > "$T/$mode.res"
	echo "# $mode: $(cat "$T/$mode.res")"
	# 36-536 here, depending on what else loads the host
	# Fewer than 30 true LHPs is too few to judge precision and recall: their checks still
	# run and print, as TODOs.
	few=
	[ "$(val truth $T/$mode.res)" -ge 30 ] || few="only $(val truth $T/$mode.res) true LHPs"
	ok "$mode: the truth has lock-holder preemptions" '[ "$(val truth $T/$mode.res)" -ge 1 ]'
	# cond: a releaser preempted after its release and woken waiters it hands the lock to
	# later count as LHP (precision 0.57-0.74 here); spin: see README "What it measures"
	case $mode in
	mutex | rwlock)
		# Met on a quiet host (README); on a host loaded by other work the hub rule took
		# 85 of 198 mutex preemptions for hub ones (recall 0.30): not robust yet.
		todo "${few:-not robust to host load yet}" "$mode: precision >= 0.9" \
			'ge "$(val precision $T/$mode.res)" 0.9'
		todo "${few:-not robust to host load yet}" "$mode: recall >= 0.8" \
			'ge "$(val recall $T/$mode.res)" 0.8'
		;;
	cond)
		todo "cond precision below target" "$mode: precision >= 0.9" \
			'ge "$(val precision $T/$mode.res)" 0.9'
		todo "${few:-not robust to host load yet}" "$mode: recall >= 0.8" \
			'ge "$(val recall $T/$mode.res)" 0.8'
		;;
	spin)
		todo "spinner detection below target" "$mode: precision >= 0.9" \
			'ge "$(val precision $T/$mode.res)" 0.9'
		todo "spinner detection below target" "$mode: recall >= 0.8" \
			'ge "$(val recall $T/$mode.res)" 0.8'
		;;
	esac
done
c=$(cat "$T"/*.res | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^cost_ratio=/) print substr($i, 12) }')
todo "spin and cond costs off by more" "LHP cost within 20% of the truth's waiting time on each workload" \
	'[ -n "$c" ] && (for r in $c; do ge $r 0.8 && ge 1.2 $r || exit 1; done)'
# mutex and rwlock: 0.53-0.97 of the truth's waiting time on this shared host
for mode in mutex rwlock; do
	cm=$(val cost_ratio "$T/$mode.res")
	todo "cost varies with the host's load" \
		"$mode: LHP cost within 20% of the truth's waiting time" \
		'[ -n "$cm" ] && ge $cm 0.8 && ge 1.2 $cm'
done
