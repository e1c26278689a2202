#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hosts with hundreds of CPUs (issue 19, item 4): mksysfs generates a 192-CPU
# (4 sockets x 24 cores x 2 threads) and a 1024-CPU (8 x 64 x 2) sysfs, slsynth runs a
# short llc-scan workload on each as ftrace text, and `schedlens import --sysfs` must:
# - read the topology whole (every CPU in the cpus table, the highest numbered one too);
# - count every event and wakeup slsynth generated;
# - place every wakeup in exactly one class (prev and waker relations and target states
#   each sum to the wakeups, none unknown), on CPUs above 255 too;
# - agree with slsynth's truth on the share of wakeups to an idle target and of missed
#   idle CPUs within 1 point (the truth is printed to 0.1%; the engine sees the same
#   stream but judges "idle" from the trace alone, so a few wakeups differ);
# - round-trip at 1024 CPUs: export -> import gives identical rows.
# Seconds, no tracefs, no root: everything in a temp dir.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
S=$B/schedlens
need python3 sqlite3 "$B/slsynth"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the shell waits for a lock instead of failing: the two sqlite3 of a diff <(..) <(..) run
# at once, and the one that closes last checkpoints the WAL under an exclusive lock
sql() { sqlite3 -cmd ".timeout 5000" "$@"; }

# rows of run $3 of table $2 in db $1 without run_id, in a fixed order
rows() {
	local cols
	cols=$(sql "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('$2') WHERE name != 'run_id'")
	sql "$1" "SELECT $cols FROM $2 WHERE run_id = $3 ORDER BY $cols"
}

# shape NAME SxCxT DURATION CLIENTS: generates, imports and checks one shape
shape() {
	local name=$1 spec=$2 dur=$3 clients=$4 db=$T/$1.db nr truth q
	nr=$(($(echo "$spec" | tr x '*')))
	"$SL_SRC/tests/fixtures/mksysfs" "$spec" "$T/$name"
	ok "$name: mksysfs $spec made $nr CPUs" \
		'[ "$(ls -d $T/$name/sys/devices/system/cpu/cpu[0-9]* | wc -l)" = $nr ]'
	"$B/slsynth" --sysfs "$T/$name" --policy llc-scan --duration "$dur" --clients "$clients" \
		--backends "$clients" --text >"$T/$name.txt" 2>"$T/$name.truth"
	ok "$name: slsynth ran on $nr CPUs" 'grep -q "cpus $nr " $T/$name.truth' || return
	truth=$(cat "$T/$name.truth")
	echo "# $(grep -E '^(events|wakeups)' <<<"$truth" | tr '\n' ' ')"
	$S import "$T/$name.txt" --sysfs "$T/$name" -o "$db" --json >"$T/$name.json" 2>"$T/$name.err"
	ok "$name: imported" '[ $? = 0 ]' || { cat "$T/$name.err"; return; }
	q() { sql "$db" "$1"; }

	ok "$name: cpus table has all $nr CPUs, the last $((nr - 1))" \
		'[ "$(q "SELECT count(*), max(cpu) FROM cpus WHERE host_id = (SELECT host_id FROM runs WHERE id = 1)")" = "$nr|$((nr - 1))" ]'
	local ev wk
	ev=$(sed -n 's/^events \([0-9]*\) .*/\1/p' <<<"$truth")
	wk=$(sed -n 's/^wakeups \([0-9]*\):.*/\1/p' <<<"$truth")
	ok "$name: every event counted ($ev)" \
		'[ "$(q "SELECT events FROM runs WHERE id = 1")" = "$ev" ] && [ "$ev" -gt 10000 ]'
	ok "$name: every wakeup stored ($wk)" \
		'[ "$(q "SELECT count(*) FROM wakeups WHERE run_id = 1")" = "$wk" ] &&
		 [ "$(q "SELECT sum(wakeups) FROM windows WHERE run_id = 1 AND grp = \"*\"")" = "$wk" ]'
	local sums
	sums=$(q "SELECT sum(prev_same + prev_smt + prev_llc + prev_package + prev_remote),
		sum(waker_same + waker_smt + waker_llc + waker_package + waker_remote),
		sum(state_idle + state_busy + state_claimed), sum(prev_unknown + waker_unknown
		+ state_unknown) FROM windows WHERE run_id = 1 AND grp = '*'")
	echo "# prev, waker, state sums, unknown: $sums"
	ok "$name: placement classes and target states each sum to the wakeups, none unknown" \
		'[ "$sums" = "$wk|$wk|$wk|0" ]'
	ok "$name: per-CPU counts sum to the wakeups" \
		'[ "$(q "SELECT sum(wakeups) FROM cpu_counts WHERE run_id = 1")" = "$wk" ]'
	# 100 wakeups on the CPUs above 255 at least: the upper CPUs are used, not a stray one
	if [ "$nr" -gt 256 ]; then
		ok "$name: wakeups target and run on CPUs above 255 ($(q "SELECT count(*) FROM wakeups WHERE target_cpu > 255"), max $(q "SELECT max(target_cpu) FROM wakeups"))" \
			'[ "$(q "SELECT count(*) FROM wakeups WHERE target_cpu > 255 AND run_cpu > 255")" -gt 100 ] &&
			 [ "$(q "SELECT max(target_cpu) >= $nr - 64 FROM wakeups")" = 1 ] &&
			 [ "$(q "SELECT count(DISTINCT cpu) FROM cpu_counts WHERE cpu > 255")" -gt 100 ]'
	fi
	# shares in percent: slsynth's "idle target X%" and "missed_idle Y%" against the
	# engine's state_idle and missed_idle over its wakeups
	local t_idle t_missed e_idle e_missed
	t_idle=$(sed -n 's/.*idle target \([0-9.]*\)%.*/\1/p' <<<"$truth")
	t_missed=$(sed -n 's/.*missed_idle \([0-9.]*\)%.*/\1/p' <<<"$truth")
	read -r e_idle e_missed < <(q "SELECT 100.0 * sum(state_idle) / sum(wakeups),
		100.0 * sum(missed_idle) / sum(wakeups) FROM windows WHERE run_id = 1 AND grp = '*'" |
		tr '|' ' ')
	ok "$name: idle targets $e_idle% (truth $t_idle%), missed idle $e_missed% (truth $t_missed%): within 1 point" \
		'python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]; sys.exit(not (abs(a[0] - a[1]) <= 1 and abs(a[2] - a[3]) <= 1 and a[1] > 0))" \
			"$e_idle" "$t_idle" "$e_missed" "$t_missed"'
}

shape s192 4x24x2 0.2 300
shape s1024 8x64x2 0.05 600

# export -> import at 1024 CPUs: the same rows in every per-event and derived table
db=$T/s1024.db
$S export 1 -d "$db" -o "$T/s1024.exp" 2>"$T/exp.err"
ok "round trip: exported" '[ $? = 0 ]' || cat "$T/exp.err"
$S import "$T/s1024.exp" --sysfs "$T/s1024" -o "$db" >/dev/null 2>"$T/imp.err"
ok "round trip: re-imported" '[ $? = 0 ]' || cat "$T/imp.err"
total=0
for t in wakeups preemptions sched_slices windows tasks cpu_counts; do
	d=$(diff <(rows "$db" $t 1) <(rows "$db" $t 2) | grep -c '^[<>]')
	echo "# round trip s1024: $t: $(rows "$db" $t 1 | wc -l) rows, $d differ"
	total=$((total + d))
done
ok "round trip at 1024 CPUs: wakeups, preemptions, slices, windows, tasks, cpu_counts identical" \
	'[ $total = 0 ] && [ "$(rows "$db" wakeups 2 | wc -l)" -gt 1000 ]'

done_testing
