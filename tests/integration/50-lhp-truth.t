#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Lock-holder preemption on real locks against ground truth. tests/helpers/sl-lockload runs
# 6 threads on one lock (a pthread mutex, a reader-writer lock, a condition variable and a
# spinlock with back-off like PostgreSQL's s_lock), each writing "wants L", "holds L" and
# "released L" to the trace_marker of this test's own tracefs instance, which records the
# sched events schedlens needs. The instance's text is imported with this host's topology;
# tests/integration/lhp-truth.py computes the truth from the markers and compares it with
# the stored preemption rows: precision >= 0.9 and recall >= 0.8 on each lock, and the LHP
# cost against the truth's waiting time (see below), checked.
#
# The instance is named schedlens.<this shell's pid>: other schedlens processes clean up
# only instances of dead pids. SL_LHP_SECONDS sets each workload's length (default 4: at 2
# the condition variable had 22-49 true LHPs a run, and its precision 0.89-1.00).
set -u
. "$(dirname "$0")/lib.sh"
S=$SL_BUILD/schedlens
LOAD=$SL_BUILD/tests/helpers/sl-lockload
TRUTH=$SL_SRC/tests/integration/lhp-truth.py
SECS=${SL_LHP_SECONDS:-4}
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
# check WHY NAME CHECK: ok NAME CHECK, or with a reason not to judge it, a TODO
check() {
	if [ -z "$1" ]; then
		ok "$2" "$3"
	else
		todo "$1" "$2" "$3"
	fi
}
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2"; }

mkdir "$I" || { echo "Bail out! cannot create tracefs instance '$I'"; exit 1; }
echo mono > "$I/trace_clock"
echo 0 > "$I/options/overwrite"
echo 32768 > "$I/buffer_size_kb"
for e in sched_waking sched_wakeup sched_wakeup_new sched_switch sched_migrate_task \
	sched_process_fork sched_process_exit; do
	echo 1 > "$I/events/sched/$e/enable"
done
# which futex each sleeper waits on, as `schedlens record` traces it by default
echo 1 > "$I/events/syscalls/sys_enter_futex/enable"

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
	# Targets hold on a host that lets the workload run. Another load that keeps its
	# threads waiting for a CPU breaks lock convoys (a woken waiter waits while a running
	# thread steals the lock) and hands the hub rule asymmetric wakeups: measured with
	# busy loops beside it (README), precision and recall held up to a runnable share of
	# 0.11 and fell below target at 0.18. Such runs, and runs with too few true LHPs to
	# judge, report the targets as TODOs with the reason.
	truth=$(val truth "$T/$mode.res")
	share=$(val runnable_share "$T/$mode.res")
	ok "$mode: the truth has lock-holder preemptions" '[ "${truth:-0}" -ge 1 ]'
	why=
	[ "${truth:-0}" -ge 30 ] || why="only ${truth:-0} true LHPs"
	ge 0.15 "${share:-1}" || why=${why:-"host loaded: runnable share $share"}
	check "$why" "$mode: precision >= 0.9" 'ge "$(val precision $T/$mode.res)" 0.9'
	check "$why" "$mode: recall >= 0.8" 'ge "$(val recall $T/$mode.res)" 0.8'
	# The LHP cost. Of the true LHPs found, schedlens's cost is the truth's waiting for
	# them less the waiters whose convoy it lost (a running thread stole the lock between
	# two handoffs): 0.80-0.93 of it in 24 runs (README). The run's whole cost adds the
	# false LHPs' cost and leaves out the missed ones' waiting. A false LHP (a victim
	# preempted between two holds, whose next release wakes sleepers that slept through
	# its time off-CPU) costs its time off-CPU times each such sleeper, and those victims
	# are the longest preempted of a run, so the whole cost strays: 0.83-2.97 of the
	# truth's in the 24 runs, 0.74-2.92 in 24 earlier ones. Both are judged when other
	# tasks ran at most half of the CPUs' time (other_share; 0.30-0.52 in the 24 runs): more
	# preempts holders for longer and breaks more convoys.
	# On a quiet host a run waits only a few ms in all (11-52 ms in 8 runs here, with
	# nothing else running), and one preemption of a few ms decides the ratio (0.62 once):
	# the cost is judged when the truth's waiting is at least 100 ms (109-631 ms in the 24
	# runs), else reported as a TODO with the reason.
	other=$(val other_share "$T/$mode.res")
	wait_ms=$(val truth_wait_ms "$T/$mode.res")
	ge 0.5 "${other:-1}" || why=${why:-"host loaded: other tasks ran $other of the CPUs' time"}
	ge "${wait_ms:-0}" 100 || why=${why:-"only ${wait_ms:-0} ms of waiting in the run: one preemption decides the ratio"}
	check "$why" "$mode: LHP cost of the true LHPs found within 20% of the truth's waiting for them" \
		't=$(val tp_cost_ratio $T/$mode.res) && ge "$t" 0.8 && ge 1.2 "$t"'
	check "$why" "$mode: the run's LHP cost within 0.7-3.5 of the truth's waiting time" \
		'c=$(val cost_ratio $T/$mode.res) && ge "$c" 0.7 && ge 3.5 "$c"'
done
done_testing
