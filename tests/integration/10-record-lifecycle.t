#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlens record life cycle: a plain recording, the command mode and its exit status,
# SIGINT and SIGTERM shutdown, SIGKILL leaving a stale instance that the next recording
# removes, a clear message for non-root users; after every exit none of its instances
# remains (other schedlens processes may be running) and the top-level tracing_on,
# set_event and trace_clock are unchanged.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
T=/sys/kernel/tracing
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		[ -d "$T/instances/schedlens.$p" ] && rmdir "$T/instances/schedlens.$p" 2>/dev/null
	done
	rm -f "$tmp"/* && rmdir "$tmp"
}
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs at $T"
fi
tmp=$(mktemp -d)
trap cleanup EXIT

on0=$(cat $T/tracing_on); ev0=$(cat $T/set_event); clk0=$(cat $T/trace_clock)

out=$("$SL" record -d 1 --json 2>"$tmp/err")
ok "record -d 1 exits 0" '[ $? -eq 0 ]'
ok "json has events and the mono clock" \
	'echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"events_total\"] > 0 and d[\"clock\"] == \"mono\" and d[\"lost\"] == 0))"'
inst=$(echo "$out" | python3 -c "import json,sys; print(json.load(sys.stdin)['instance'])")
ok "our instance $inst is gone after a normal exit" '[ -n "$inst" ] && [ ! -e "$T/instances/$inst" ]'

"$SL" record -d 0.5 --csv >"$tmp/rec.csv" 2>/dev/null
rc=$(python3 -c "
import csv, json, sys; r = list(csv.DictReader(open(sys.argv[1], newline='')))
print(len(r), int(r[0]['events_total']) > 0, r[0]['clock'], json.loads(r[0]['events'])['switch'] != '')" "$tmp/rec.csv")
ok "record --csv: a header and one row, nested counts as JSON ($rc)" '[ "$rc" = "1 True mono True" ]'

"$SL" record --json -- sh -c 'exit 3' >"$tmp/out" 2>&1
rc=$?
ok "command mode forwards the command's exit status (3)" '[ $rc -eq 3 ]'
ok "command_status in json" 'grep -q "\"command_status\":3" "$tmp/out"'

# --param: what was run, stored as runs.params (a JSON object, the last of a repeated key)
"$SL" record -d 0.5 -o "$tmp/p.db" --param workload=cmd --param "command=sh -c 'x y'" \
	--param scale=1 --param scale=2 >/dev/null 2>&1
ok "record --param: exit 0" '[ $? -eq 0 ]'
"$SL" runs --db "$tmp/p.db" --json >"$tmp/out"
ok "record --param: runs --json has the params, scale=2 (the last given)" \
	'python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"runs\"][0][\"params\"]; sys.exit(p != {\"workload\": \"cmd\", \"command\": \"sh -c '"'"'x y'"'"'\", \"scale\": \"2\"})" "$tmp/out"'
"$SL" show --db "$tmp/p.db" 1 >"$tmp/out"
ok "record --param: show prints what was run" \
	'grep -q "^what was run *workload=cmd command=sh -c '"'"'x y'"'"' scale=2$" "$tmp/out"'
rm -f "$tmp"/p.db*

for sig in INT TERM; do
	"$SL" record -d 30 >"$tmp/out" 2>&1 &
	p=$!; pids+=("$p")
	for _ in $(seq 50); do [ -d "$T/instances/schedlens.$p" ] && break; sleep 0.1; done
	sleep 0.5
	kill -"$sig" "$p"
	wait "$p"; rc=$?
	ok "SIG$sig: clean exit ($rc) with a summary" '[ $rc -eq 0 ] && grep -q "^recorded" "$tmp/out"'
	ok "SIG$sig: instance removed" '[ ! -d "$T/instances/schedlens.$p" ]'
done

"$SL" record -d 30 >/dev/null 2>&1 &
p=$!; pids+=("$p")
for _ in $(seq 50); do [ -d "$T/instances/schedlens.$p" ] && break; sleep 0.1; done
sleep 0.5
kill -9 "$p"; wait "$p" 2>/dev/null
ok "SIGKILL leaves schedlens.$p behind" '[ -d "$T/instances/schedlens.$p" ]'
out=$("$SL" record -d 0.5 --json 2>/dev/null)
ok "the next record removes the stale instance" '[ ! -d "$T/instances/schedlens.$p" ]'
ok "and reports it" 'echo "$out" | grep -q "\"stale_removed\":[1-9]"'

if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	runuser -u nobody -- "$SL" record -d 0.1 >/dev/null 2>"$tmp/err"
	rc=$?
	ok "non-root: fails with a message naming root ($(head -c 120 "$tmp/err"))" \
		'[ $rc -ne 0 ] && grep -qi "root" "$tmp/err"'
fi

left=$(for p in "${pids[@]}"; do [ -e "$T/instances/schedlens.$p" ] && echo "schedlens.$p"; done)
ok "none of our instances remains ($left)" '[ -z "$left" ]'
ok "top-level tracing_on unchanged" '[ "$(cat $T/tracing_on)" = "$on0" ]'
ok "top-level set_event unchanged" '[ "$(cat $T/set_event)" = "$ev0" ]'
ok "top-level trace_clock unchanged" '[ "$(cat $T/trace_clock)" = "$clk0" ]'
done_testing
