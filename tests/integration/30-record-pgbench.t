#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Acceptance test of the recorder and the engine under PostgreSQL 15 + pgbench (a cluster
# of our own in a temp dir, on a unix socket): `schedlens record -- pgbench ...` for the
# 10 s pgbench runs (-d 11 bounds it; the two perf sessions beside it slow pgbench, and 4 s
# gave 98k-122k wakeups on a quiet host, too close to the threshold) stores a run with
# more than 100k rows in its wakeups table, no per-event row dropped and no lost events
# with default buffers,
# while `perf sched record` runs on the same workload; sched_switch and wakeup counts per
# comm must agree with perf's within 2%, and the mean scheduling delay per comm with
# perf's within 10%.
#
# Which perf figure is comparable, and why. Our latency is the first switch-in after
# sched_wakeup minus the sched_wakeup time, one per wakeup, NULL when the switch-in was
# not traced (this host's kernel skips some switches away from idle). `perf sched
# latency`'s "Avg delay" is not the same quantity: perf 6.1 also counts the run-queue wait
# of every task switched out with prev_state R (a preemption on return to user), and it
# starts at sched_waking when that is recorded. `perf sched timehist`'s "sch delay" is:
# it is set only by a wakeup event (ready_to_run) and reset at every switch-out, so a
# preempted task's next slice shows 0, and a slice whose switch-in was not traced shows 0
# too (timehist sees the wakeup after the CPU's previous switch: "time travel"). So the
# perf figure is the mean of timehist's nonzero "sch delay" per comm, and ours the mean of
# non-NULL latency_ns per comm: both are wakeup -> traced switch-in, both leave out the
# untraced switch-ins. timehist starts at the first wakeup event it sees for a task, so
# its perf.data holds sched_wakeup and not sched_waking: a second `perf record` of
# sched_switch + sched_wakeup(_new) runs next to `perf sched record` (which records
# sched_waking on this perf). Residual differences: timehist rounds each delay to 1 us,
# drops delays under 0.5 us as 0, and covers 2 s before and 1 s after our recording.
#
# Under the sanitizers (SL_SANITIZE, set by make check) the store's writer runs several
# times slower and drops per-event rows it cannot keep up with (counted in dropped_rows:
# 93k wakeup rows kept of 225k postgres and pgbench wakeups in one run here). The stored
# rows are then a subset, so the row count and the per-row latency comparison with perf
# mean nothing there and are skipped with the count; without sanitizers a dropped row is
# a failure.
#
# Cleans up the cluster and any instance even on failure.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
T=/sys/kernel/tracing
PGBIN=/usr/lib/postgresql/15/bin
pg_up=0
perf_pid=
perf2_pid=
rec_pid=

as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null && wait "$perf_pid" 2>/dev/null
	[ -n "$perf2_pid" ] && kill -INT "$perf2_pid" 2>/dev/null && wait "$perf2_pid" 2>/dev/null
	[ -n "$rec_pid" ] && kill -9 "$rec_pid" 2>/dev/null
	[ -n "$rec_pid" ] && rmdir "$T/instances/schedlens.$rec_pid" 2>/dev/null
	[ "$pg_up" = 1 ] && as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$tmp"
}
need "$PGBIN/pg_ctl" "$PGBIN/pgbench" perf
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs"
fi
tmp=$(mktemp -d)
chmod 755 "$tmp" && chown postgres "$tmp"
trap cleanup EXIT
mkdir "$tmp/sock" && chown postgres "$tmp/sock"
on0=$(cat $T/tracing_on); ev0=$(cat $T/set_event)

as_pg "$PGBIN/initdb" -D "$tmp/data" -A trust -U postgres >"$tmp/initdb.log" 2>&1
ok "initdb" '[ $? -eq 0 ]' || exit 1
as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -l "$tmp/pg.log" -w \
	-o "-k $tmp/sock -p 54329 -c listen_addresses= -c max_connections=50" start >/dev/null 2>&1 && pg_up=1
ok "postgres started" '[ $pg_up = 1 ]' || { tail -5 "$tmp/pg.log" | sed 's/^/# /'; exit 1; }
as_pg "$PGBIN/pgbench" -h "$tmp/sock" -p 54329 -U postgres -i -s 1 postgres >"$tmp/init.log" 2>&1
ok "pgbench -i -s 1" '[ $? -eq 0 ]'

perf sched record -o "$tmp/perf.data" >"$tmp/perf.log" 2>&1 &
perf_pid=$!
perf record -a -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new \
	-o "$tmp/perf-wk.data" >"$tmp/perf-wk.log" 2>&1 &
perf2_pid=$!
sleep 2
"$SL" record -d 11 -l pgbench-S -o "$tmp/run.db" --json -- \
	runuser -u postgres -- "$PGBIN/pgbench" -h "$tmp/sock" -p 54329 -U postgres -S -c 8 -j 2 -T 10 \
	postgres >"$tmp/rec.out" 2>"$tmp/rec.err" &
rec_pid=$!
wait "$rec_pid"; rc=$?; rec_pid=
sleep 1
kill -INT "$perf_pid" "$perf2_pid"; wait "$perf_pid" "$perf2_pid"; perf_pid=; perf2_pid=
# the command shares our stdout: the JSON summary is the last line
tail -n 1 "$tmp/rec.out" >"$tmp/rec.json"
ok "record exited 0 (pgbench ran to its end)" '[ $rc -eq 0 ]' || cat "$tmp/rec.err" >&2

get() { python3 -c "import json,sys; d=json.load(open('$tmp/rec.json')); print($1)"; }
wk=$(get 'd["wakeups"]'); lost=$(get 'd["lost"]'); tps=$(grep -o 'tps = [0-9.]*' "$tmp/rec.out" | head -1)
echo "# recorder: $(get 'd["events_total"]') events, $wk wakeups, lost $lost, readers $(get 'd["reader_cpu_s"]') CPU-s; pgbench $tps"
rid=$(sqlite3 "$tmp/run.db" "select max(id) from runs")
rows=$(sqlite3 "$tmp/run.db" "select count(*) from wakeups where run_id = $rid")
dropped=$(get 'd["dropped_rows"]')
# the writer of a sanitized build cannot keep up (see the top of this file)
slow_writer=
[ -n "${SL_SANITIZE:-}" ] && [ "${dropped:-0}" -gt 0 ] &&
	slow_writer="sanitizer build: its writer dropped $dropped per-event rows; $rows wakeup rows kept"
if [ -n "$slow_writer" ]; then
	skip "no per-event rows dropped" "$slow_writer"
	skip "more than 100k stored wakeup rows" "$slow_writer"
else
	ok "no per-event rows dropped ($dropped)" '[ "$dropped" = 0 ]'
	ok "more than 100k stored wakeup rows ($rows)" '[ "${rows:-0}" -gt 100000 ]'
fi
ok "zero lost events with default buffers ($lost)" '[ "$lost" -eq 0 ]'
row=$(sqlite3 "$tmp/run.db" "select lost_events, has_gaps, trace_clock, workload, events from runs")
ok "stored run: lost 0, no gaps, clock mono, label ($row)" '[[ "$row" == 0\|0\|mono\|pgbench-S\|* ]]'

# perf's view, per comm: sched_switch by prev_comm, sched_waking/wakeup by the wakee's comm
# (perf sched record takes sched_waking and sched_wakeup_new, not sched_wakeup, on this perf)
perf script -i "$tmp/perf.data" -F event,trace 2>/dev/null | python3 -c '
import json, re, sys
sw, wk, wkg = {}, {}, {}
for line in sys.stdin:
    m = re.match(r"\s*sched:(\w+):\s*(.*)", line)
    if not m:
        continue
    ev, rest = m.groups()
    if ev == "sched_switch":
        c = re.search(r"prev_comm=(.*?) prev_pid=", rest)
        if c: sw[c.group(1)] = sw.get(c.group(1), 0) + 1
    elif ev in ("sched_wakeup", "sched_waking"):
        c = re.match(r"comm=(.*?) pid=", rest) or re.match(r"(.*?):\d+ ", rest)
        d = wkg if ev == "sched_waking" else wk
        if c: d[c.group(1)] = d.get(c.group(1), 0) + 1
json.dump({"switch": sw, "wakeup": wk, "waking": wkg}, open(sys.argv[1], "w"))
' "$tmp/perf.json"
# sched_wakeup counts per comm from the second recording (perf sched record has none)
perf script -i "$tmp/perf-wk.data" -F event,trace 2>/dev/null | python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
if not sum(d["wakeup"].values()):
    for line in sys.stdin:
        m = re.match(r"\s*sched:sched_wakeup:\s*comm=(.*?) pid=", line)
        if m: d["wakeup"][m.group(1)] = d["wakeup"].get(m.group(1), 0) + 1
json.dump(d, open(sys.argv[1], "w"))
' "$tmp/perf.json"
cmp=$(python3 - "$tmp/rec.json" "$tmp/perf.json" <<'PY'
import json, sys
ours = {g["name"]: g for g in json.load(open(sys.argv[1]))["comms"]}
perf = json.load(open(sys.argv[2]))
out = []
for comm in ("postgres", "pgbench"):
    for kind in ("switch", "waking", "wakeup"):
        p = perf[kind].get(comm, 0)
        o = ours.get(comm, {}).get(kind, 0)
        if not sum(perf[kind].values()):
            continue  # perf sched record does not record this event type here
        rel = abs(o - p) / max(p, 1)
        out.append("%s:%s ours=%d perf=%d diff=%.2f%%:%s" % (comm, kind, o, p, 100 * rel, "ok" if rel <= 0.02 else "BAD"))
print("\n".join(out))
PY
)
echo "$cmp" | sed 's/^/# /'
ok "perf saw the workload (postgres switches > 10000)" \
	'python3 -c "import json; exit(json.load(open(\"$tmp/perf.json\"))[\"switch\"].get(\"postgres\", 0) <= 10000)"'
ok "perf sched record agrees per comm within 2%" '[ -n "$cmp" ] && ! echo "$cmp" | grep -q BAD'
# mean scheduling delay per comm: ours (stored wakeups, latency known) vs timehist's nonzero
# "sch delay" (see the top of this file for why these two are the same quantity)
sqlite3 -separator ' ' "$tmp/run.db" "select t.comm, count(*), avg(w.latency_ns) from wakeups w
	join tasks t on t.run_id = w.run_id and t.pid = w.pid
	where w.run_id = $rid and w.latency_ns is not null group by t.comm" >"$tmp/ours-lat.txt"
nulls=$(sqlite3 "$tmp/run.db" "select count(*) from wakeups where run_id = $rid and latency_ns is null")
perf sched timehist -i "$tmp/perf-wk.data" >"$tmp/timehist.txt" 2>/dev/null
lat=$(python3 - "$tmp/ours-lat.txt" "$tmp/timehist.txt" <<'PY'
import re, sys
ours = {}
for line in open(sys.argv[1]):
    comm, n, mean = line.rsplit(" ", 2)
    ours[comm] = (int(n), float(mean))
perf = {}
pat = re.compile(r"^\s*[\d.]+\s+\[\d+\]\s+(.*?)\[\d+(?:/\d+)?\]\s+[\d.]+\s+([\d.]+)\s+[\d.]+")
for line in open(sys.argv[2]):
    m = pat.match(line)
    if m and float(m.group(2)) > 0:
        n, tot = perf.get(m.group(1), (0, 0.0))
        perf[m.group(1)] = (n + 1, tot + float(m.group(2)) * 1e6)
for comm in ("postgres", "pgbench"):
    on, om = ours.get(comm, (0, 0.0))
    pn, ptot = perf.get(comm, (0, 0.0))
    pm = ptot / pn if pn else 0.0
    rel = abs(om - pm) / pm if pm else 1.0
    print("%s: ours %.1f us over %d wakeups, perf timehist %.1f us over %d, diff %.1f%%:%s"
          % (comm, om / 1e3, on, pm / 1e3, pn, 100 * rel, "ok" if rel <= 0.10 else "BAD"))
PY
)
echo "$lat" | sed 's/^/# /'
echo "# wakeups with latency unknown (switch-in not traced): $nulls"
if [ -n "$slow_writer" ]; then
	skip "mean scheduling delay per comm agrees with perf sched timehist within 10%" \
		"$slow_writer"
else
	ok "mean scheduling delay per comm agrees with perf sched timehist within 10%" \
		'[ -n "$lat" ] && ! echo "$lat" | grep -q BAD'
fi
ok "top-level tracing_on unchanged" '[ "$(cat $T/tracing_on)" = "$on0" ]'
ok "top-level set_event unchanged" '[ "$(cat $T/set_event)" = "$ev0" ]'
inst=$(get 'd["instance"]')  # ours only: other schedlens processes may be running
ok "our instance $inst is gone" '[ -n "$inst" ] && [ ! -e "$T/instances/$inst" ]'
done_testing
