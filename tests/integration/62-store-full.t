#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A full disk. schedlensd records into a database on a 4 MiB tmpfs; a filler file takes the
# rest of the space. The daemon must keep recording and serving the API, log one clear
# line (not one per batch), show store_state "disk full" and a growing store_lost_rows in
# /api/v1/status, write again once the filler is removed (new windows stored, state back
# to "ok", one line saying so), stop cleanly, and leave a database that passes
# PRAGMA integrity_check with the lost rows counted on the run. Then `schedlens import`
# into a nearly full tmpfs: exit 1, a message saying the disk is full, and the run kept
# and marked incomplete (complete = 0, import_error saying so). Needs root (tracefs,
# mount), curl, python3 and sqlite3.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens
SLD=$B/schedlensd

if [ "$(id -u)" != 0 ]; then skip_all "needs root"; fi
if [ ! -w /sys/kernel/tracing/instances ]; then skip_all "no tracefs"; fi
need python3 curl sqlite3
tmp=$(mktemp -d)
mnt=$tmp/full
dpid=
cleanup() {
	[ -z "$dpid" ] || kill "$dpid" 2>/dev/null
	[ -z "$dpid" ] || wait "$dpid" 2>/dev/null
	umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=4m schedlens-test-full "$mnt"; then
	skip_all "cannot mount a tmpfs"
fi
db=$mnt/sl.db
port=$((20000 + ($$ + 8300) % 10000))
base="http://127.0.0.1:$port"
status() { # prints "store_state store_lost_rows events state"
	curl -s --max-time 5 "$base/api/v1/status" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["store_state"].replace(" ", "_"), d["store_lost_rows"], d["events"], d["state"])'
}
windows() { sqlite3 "file:$db?mode=ro" "SELECT count(*) FROM windows" 2>/dev/null || echo 0; }
load() { for _ in $(seq 100); do cat /proc/cpuinfo >/dev/null; done; }

"$SLD" --db "$db" --listen "127.0.0.1:$port" --window 100ms --totals-every 1s \
	--buffer-kb 256 >"$tmp/d.out" 2>"$tmp/d.err" &
dpid=$!
for _ in $(seq 50); do s=$(status 2>/dev/null) && [ -n "$s" ] && break; sleep 0.2; done
ok "the daemon serves /api/v1/status" '[ -n "${s:-}" ]' || { cat "$tmp/d.err" >&2; exit 1; }
read -r state lost ev0 _ <<<"$s"
ok "store_state is ok at first ($state, lost $lost)" '[ "$state" = ok ] && [ "$lost" = 0 ]'

# fill the file system
dd if=/dev/zero of="$mnt/filler" bs=64k >/dev/null 2>&1
for _ in $(seq 50); do
	load
	read -r state lost ev _ <<<"$(status)"
	[ "$state" = disk_full ] && [ "$lost" -gt 0 ] && break
	sleep 0.2
done
ok "status shows store_state 'disk full' with rows lost ($state, $lost)" \
	'[ "$state" = disk_full ] && [ "$lost" -gt 0 ]' || cat "$tmp/d.err" >&2
sleep 2.5
load
read -r state2 lost2 ev2 dstate <<<"$(status)"
ok "while full: still recording ($dstate), events go on ($ev -> $ev2), lost rows grow ($lost -> $lost2)" \
	'[ "$dstate" = recording ] && [ "$ev2" -gt "$ev" ] && [ "$lost2" -gt "$lost" ]'
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base/api/v1/runs")
ok "while full: /api/v1/runs still answers ($code)" '[ "$code" = 200 ]'
nfull=$(grep -c "disk full" "$tmp/d.err")
ok "one log line for the full disk ($nfull)" '[ "$nfull" = 1 ]' || cat "$tmp/d.err" >&2
ok "... a clear one" 'grep -q "error: disk full: cannot write to .*rows are dropped and counted" "$tmp/d.err"'

# space returns
w0=$(windows)
rm -f "$mnt/filler"
for _ in $(seq 50); do
	load
	read -r state lost3 _ _ <<<"$(status)"
	[ "$state" = ok ] && break
	sleep 0.2
done
ok "space back: store_state ok again ($state)" '[ "$state" = ok ]'
for _ in $(seq 30); do [ "$(windows)" -gt "$w0" ] && break; load; sleep 0.3; done
w1=$(windows)
ok "space back: new windows are stored ($w0 -> $w1)" '[ "$w1" -gt "$w0" ]'
ok "one line saying space is back" '[ "$(grep -c "disk space is back" "$tmp/d.err")" = 1 ]'
kill "$dpid"; wait "$dpid"; rc=$?; dpid=
ok "the daemon stops cleanly (exit $rc)" '[ $rc -eq 0 ]' || cat "$tmp/d.err" >&2
ok "no error line at stop" '! grep -q "cannot store run" "$tmp/d.err"' || cat "$tmp/d.err" >&2
ok "PRAGMA integrity_check: ok" '[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ]'
dropped=$(sqlite3 "$db" "SELECT sum(dropped_rows) FROM runs")
ok "the rows dropped while full are counted on the run ($dropped)" '[ "${dropped:-0}" -gt 0 ]'

# import into a nearly full file system: 1.5 MB left, room for a new file's schema (29
# pages of 16 KiB, written to the WAL first) but not for the 2.2 MB of a synthesized trace's
# 110 k events
(cd "$SL_SRC" && "$B/slsynth" --topology guest16 --policy buddy --seed 1 --duration 1 \
	--text >"$tmp/synth.txt" 2>/dev/null)
rm -f "$mnt"/*
avail=$(df -k --output=avail "$mnt" | tail -1)
dd if=/dev/zero of="$mnt/filler" bs=1k count=$((avail - 1500)) >/dev/null 2>&1
"$SL" import -o "$mnt/i.db" "$tmp/synth.txt" >"$tmp/i.out" 2>"$tmp/i.err"
rc=$?
ok "import into a full file system: exit 1 ($rc)" '[ $rc -eq 1 ]' || cat "$tmp/i.err" >&2
ok "... says the disk is full" 'grep -q "disk or size limit full" "$tmp/i.err"'
ok "... and that the run is marked incomplete" 'grep -q "marked incomplete" "$tmp/i.err"'
row=$(sqlite3 "$mnt/i.db" "SELECT complete || '|' || (import_error LIKE '%disk or size limit full%') FROM runs")
ok "the run is stored with complete = 0 and import_error saying disk full ($row)" \
	'[ "$row" = "0|1" ]'
ok "PRAGMA integrity_check after the import: ok" \
	'[ "$(sqlite3 "$mnt/i.db" "PRAGMA integrity_check")" = ok ]'

done_testing
