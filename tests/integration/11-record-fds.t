#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlens record and the processes it starts: the command inherits no fd of ours (every
# fd schedlens opens is close-on-exec), a command that leaves a process running does not
# keep our tracefs instance busy, and an instance that another process does hold open is a
# warning naming that process (the recording exits 0 with its data), never a reason for
# the next recording to fail; it is removed by a later recording once released.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
T=/sys/kernel/tracing
pids=()
kill_pids=()

cleanup() {
	for p in "${kill_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	sleep 0.1
	for p in "${pids[@]}"; do
		for d in "$T/instances/schedlens.$p" "$T/instances/schedlens.$p".*; do
			[ -d "$d" ] && rmdir "$d" 2>/dev/null
		done
	done
	rm -rf "$tmp"
}
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs at $T"
fi
tmp=$(mktemp -d)
trap cleanup EXIT
# a file opened by a test shell
fds() { find "/proc/$1/fd" -mindepth 1 -printf '%f %l\n' 2>/dev/null | sort; }

on0=$(cat $T/tracing_on); ev0=$(cat $T/set_event); clk0=$(cat $T/trace_clock)

# 1. what the command inherits: the same fds as when run without schedlens
# shellcheck disable=SC2016
lister='exec >"$0"; find /proc/$$/fd -mindepth 1 -printf "%f %l\n" | sort'
sh -c "$lister" "$tmp/control" </dev/null 2>/dev/null
"$SL" record -d 5 -o "$tmp/fds.db" -- sh -c "$lister" "$tmp/child" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "record -- lister exits 0 ($rc: $(head -c 200 "$tmp/err"))" '[ $rc -eq 0 ]'
# 0, 1 and 2 differ (stdout and stderr are ours): compare the others
extra=$(comm -13 <(grep -v '^[012] ' "$tmp/control") <(grep -v '^[012] ' "$tmp/child") | tr '\n' ' ')
ok "the command inherits no fd of schedlens ($extra)" \
	'[ -s "$tmp/child" ] && [ -z "$extra" ]'
ok "none of its fds is under tracefs or the database" '! grep -Eq "$T|fds\.db" "$tmp/child"'

# 2. the issue's reproduction: a command that leaves a process behind
"$SL" record -d 1 --json -- sh -c 'sleep 20 </dev/null >/dev/null 2>&1 & echo $! >"$0"; exit 0' \
	"$tmp/orphan" >"$tmp/out" 2>"$tmp/err"
rc=$?
orphan=$(cat "$tmp/orphan" 2>/dev/null)
[ -n "$orphan" ] && kill_pids+=("$orphan")
ok "record -- sh -c 'sleep 20 & exit 0' exits 0 ($rc: $(head -c 200 "$tmp/err"))" '[ $rc -eq 0 ]'
ok "no warning about a busy instance" '! grep -q "busy" "$tmp/err"'
inst=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['instance'])" "$tmp/out" 2>/dev/null)
ok "its instance '$inst' is gone" '[ -n "$inst" ] && [ ! -e "$T/instances/$inst" ]'
ok "the orphan ($orphan) runs and holds nothing under tracefs" \
	'kill -0 "$orphan" && ! fds "$orphan" | grep -q "$T"'
"$SL" record -d 1 -o "$tmp/x.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "a following record -d 1 -o x.db works ($rc: $(head -c 200 "$tmp/err"))" \
	'[ $rc -eq 0 ] && grep -q "^stored as run" "$tmp/out"'
kill "$orphan" 2>/dev/null

# 3. an instance held open by another process: a warning naming it, the data kept
"$SL" record -d 3 --json -o "$tmp/busy.db" >"$tmp/out" 2>"$tmp/err" &
p=$!; pids+=("$p")
# once it records (opening some files earlier, like trace, would make set-up fail)
for _ in $(seq 100); do
	[ "$(cat "$T/instances/schedlens.$p/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
(exec 9<"$T/instances/schedlens.$p/tracing_on" && exec sleep 30) &
holder=$!; kill_pids+=("$holder")
wait "$p"; rc=$?
ok "held instance: record exits 0 ($rc)" '[ $rc -eq 0 ]'
ok "with a warning naming the holder: $(head -c 300 "$tmp/err")" \
	'grep -q "warning: cannot remove tracefs instance .schedlens.$p. yet (busy, held open by pid $holder (sleep))" "$tmp/err"'
ok "and its data (events and a stored run)" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"events_total\"] > 0 and d[\"run_id\"] >= 1))" "$tmp/out"'
ok "the held instance is still there" '[ -d "$T/instances/schedlens.$p" ]'
"$SL" record -d 0.5 --json >"$tmp/out" 2>"$tmp/err" &
p2=$!; pids+=("$p2")
wait "$p2"; rc=$?
ok "the next recording proceeds ($rc)" '[ $rc -eq 0 ]'
ok "warning that the stale instance is busy, naming the holder: $(head -c 300 "$tmp/err")" \
	'grep -q "cannot remove stale tracefs instance .schedlens.$p. yet (busy, held open by pid $holder (sleep))" "$tmp/err"'
ok "and its own instance is gone" '[ ! -e "$T/instances/schedlens.$p2" ]'
kill "$holder"; wait "$holder" 2>/dev/null
"$SL" record -d 0.2 >/dev/null 2>"$tmp/err"
ok "once released, a later recording removes it" '[ ! -e "$T/instances/schedlens.$p" ]'

left=$(for p in "${pids[@]}"; do ls -d "$T/instances/schedlens.$p" "$T/instances/schedlens.$p".* 2>/dev/null; done)
ok "none of our instances remains ($left)" '[ -z "$left" ]'
ok "top-level tracing_on unchanged" '[ "$(cat $T/tracing_on)" = "$on0" ]'
ok "top-level set_event unchanged" '[ "$(cat $T/set_event)" = "$ev0" ]'
ok "top-level trace_clock unchanged" '[ "$(cat $T/trace_clock)" = "$clk0" ]'
done_testing
