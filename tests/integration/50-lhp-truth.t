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
# SL_LHP_MODES picks workloads (default "mutex rwlock cond spin"); SL_LHP_KEEP=DIR keeps
# each recording's text there (MODE.PID.txt), to study a detector change on the same runs.
#
# Lock holders must be preempted for the cost to mean anything: on a quiet host a run
# waits a few ms in all. SL_LHP_BUSY (default 2) busy loops run beside each workload, as
# a production host's other work would, and the workload runs in a cgroup of its own with
# cpu.shares 262144 when cgroup v1's cpu controller is mounted, so that the loops preempt
# holders without starving the workload (runnable share 0.02-0.10, waiting 47-317 ms a
# run in the README's measurements).
set -u
. "$(dirname "$0")/lib.sh"
S=$SL_BUILD/schedlens
LOAD=$SL_BUILD/tests/helpers/sl-lockload
TRUTH=$SL_SRC/tests/integration/lhp-truth.py
SECS=${SL_LHP_SECONDS:-4}
T=$(mktemp -d)
I=/sys/kernel/tracing/instances/schedlens.$$
BUSY=${SL_LHP_BUSY:-2}
CG=/sys/fs/cgroup/cpu/schedlens-lhp.$$
need python3 sqlite3 "$LOAD"
busy_pids=
cleanup() {
	[ -n "$busy_pids" ] && kill $busy_pids 2> /dev/null
	if [ -d "$I" ]; then
		echo 0 > "$I/tracing_on"
		rmdir "$I"
	fi
	[ -d "$CG" ] && rmdir "$CG"
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
if [ -f /sys/fs/cgroup/cpu/cgroup.procs ] && mkdir "$CG" 2> /dev/null; then
	echo 262144 > "$CG/cpu.shares"
	echo "# the workload runs in $CG (cpu.shares 262144) beside $BUSY busy loops"
else
	CG=
	echo "# no cgroup v1 cpu controller: the workload runs beside $BUSY busy loops as it is"
fi

# record MODE: runs the workload with the instance on, leaves its text in $T/MODE.txt
record() {
	echo > "$I/trace"
	busy_pids=
	for _ in $(seq "$BUSY"); do
		sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
	done
	echo 1 > "$I/tracing_on"
	# shellcheck disable=SC2016 # $$ is the inner shell's
	CG=$CG sh -c '[ -z "$CG" ] || echo $$ > "$CG/cgroup.procs"; exec "$@"' sh \
		"$LOAD" "$1" 6 "$SECS" 200 100 "$I/trace_marker"
	local rc=$?
	echo 0 > "$I/tracing_on"
	[ -n "$busy_pids" ] && kill $busy_pids
	wait $busy_pids 2> /dev/null
	busy_pids=
	cat "$I/trace" > "$T/$1.txt"
	dropped=$(cat "$I"/per_cpu/cpu*/stats | awk '/^dropped events:/ { s += $3 } END { print s + 0 }')
	return $rc
}

for mode in ${SL_LHP_MODES:-mutex rwlock cond spin}; do
	kind=sleep
	[ "$mode" = spin ] && kind=spin
	record "$mode"
	rc=$?
	[ -n "${SL_LHP_KEEP:-}" ] && cp "$T/$mode.txt" "$SL_LHP_KEEP/$mode.$$.txt"
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
	# The LHP cost, of the true LHPs found against the truth's waiting for them, and the
	# run's against the truth's waiting time. With the futex addresses a sleeper of a lock
	# that changed hands while the victim was off-CPU is no waiter, and every sleeper of
	# the lock it held is: in 24 recordings of the sleeping locks with busy loops beside
	# (README) the run's cost was 0.95-1.07 of the truth's, and 0.96-1.11 in this test's
	# runs here. A spinlock has no futex; its spinners count when no other member ran
	# longer than a stretched spin (300 us) while the victim was off-CPU (docs/metrics.md):
	# 0.94-1.10 in 12 runs here and 0.90-1.19 on the 35 recordings the rules were chosen on
	# (0.80-1.30 before). A preemption during which another thread's switch-in went
	# untraced is left out (lhp-truth.py: the trace cannot say whether that thread took the
	# lock; one such was a 16.4 ms false LHP: 1.11 -> 1.00). Judged when the truth's
	# waiting is at least 50 ms and other tasks ran at most 0.75 of the CPUs' time
	# (0.32-0.66 in those runs), else reported as a TODO with the reason. On a quiet host a
	# run waits 9-26 ms in all; the condition variable, whose holders are preempted mostly
	# by each other, 24-110 ms here, and its false LHPs (a flag that changed hands with no
	# futex call) cost 6-10 ms a run whatever the waiting: 1.27 at 24 ms. So the run's cost
	# passes within 20% or within 10 ms of the truth's waiting: at 50 ms those 10 ms are
	# the 20% by themselves (a cond run failed the 20% alone once here, on a host busy
	# with two sanitizer builds).
	other=$(val other_share "$T/$mode.res")
	wait_ms=$(val truth_wait_ms "$T/$mode.res")
	ge 0.75 "${other:-1}" || why=${why:-"host loaded: other tasks ran $other of the CPUs' time"}
	ge "${wait_ms:-0}" 50 || why=${why:-"only ${wait_ms:-0} ms of waiting in the run: a few preemptions decide the ratio"}
	check "$why" "$mode: LHP cost of the true LHPs found within 20% of the truth's waiting for them" \
		't=$(val tp_cost_ratio $T/$mode.res) && ge "$t" 0.8 && ge 1.2 "$t"'
	check "$why" "$mode: the run's LHP cost within 20% (or 10 ms) of the truth's waiting time" \
		'c=$(val cost_ratio $T/$mode.res) && ge "$c" 0.8 &&
		 { ge 1.2 "$c" || ge "$(awk "BEGIN { print $wait_ms + 10 }")" "$(val cost_ms $T/$mode.res)"; }'
done
done_testing
