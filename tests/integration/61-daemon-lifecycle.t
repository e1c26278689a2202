#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlensd's life cycle and access control, as root on 127.0.0.1: SIGKILL mid-recording then
# restart (integrity ok, the stale instance removed, committed data kept, a new run row,
# recording resumes); a non-loopback --listen without a token is refused; with --token-file
# every API request needs the bearer token (missing or wrong: 401 JSON, the daemon still
# recording); the duty cycle pauses (instance removed) and resumes; config file + flags.
set -u
. "$(dirname "$0")/lib.sh"
SLD=${SL_BUILD:?}/schedlensd
T=/sys/kernel/tracing
dpid=

cleanup() {
	if [ -n "$dpid" ]; then
		kill -9 "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
		rmdir "$T/instances/schedlens.$dpid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
need hackbench curl python3 sqlite3
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs"
fi
tmp=$(mktemp -d)
trap cleanup EXIT
port=$((20000 + ($$ + 5000) % 10000))
base="http://127.0.0.1:$port"
db="$tmp/sl.db"
get() { curl -s -o "$tmp/body" -w '%{http_code}' --max-time 10 "$@"; }
jq1() { python3 -c "import json,sys; d=json.load(open('$tmp/body')); print($1)"; }
start() { # args...
	"$SLD" --db "$db" --listen "127.0.0.1:$port" "$@" >>"$tmp/d.out" 2>>"$tmp/d.err" &
	dpid=$!
	for _ in $(seq 50); do
		[ "$(get -H "Authorization: Bearer ${TOKEN:-}" "$base/api/v1/status")" = 200 ] && return 0
		sleep 0.2
	done
	return 1
}
events() { get -H "Authorization: Bearer ${TOKEN:-}" "$base/api/v1/status" >/dev/null; jq1 'd["events"]'; }

# config file, then flags over it
printf '# test\nlabel "from file"\nsegment 2m\nlog-level debug\n' >"$tmp/conf"
out=$("$SLD" --config "$tmp/conf" --segment 5m --print-config)
ok "--print-config: file sets label, the flag overrides the file's segment" \
	'grep -qx "label \"from file\"" <<<"$out" && grep -qx "segment 5m" <<<"$out"'
"$SLD" --config "$tmp/conf" --no-such-option 1 >/dev/null 2>&1
rc=$?
ok "unknown option: exit 2 ($rc)" '[ $rc -eq 2 ]'
printf 'segment banana\n' >"$tmp/bad.conf"
msg=$("$SLD" --config "$tmp/bad.conf" --print-config 2>&1)
ok "bad config value: the message names file and line" 'grep -q "bad.conf:1" <<<"$msg"'
"$SLD" --db "$db" --listen "0.0.0.0:$port" >/dev/null 2>"$tmp/refuse.err"
rc=$?
ok "non-loopback listen without --token-file is refused (exit $rc)" \
	'[ $rc -eq 2 ] && grep -q "requires --token-file" "$tmp/refuse.err"'

# SIGKILL and restart
start --config "$tmp/conf"
ok "daemon started" '[ -n "$dpid" ] && kill -0 $dpid'
hackbench -g 2 -l 3000 >/dev/null 2>&1
sleep 12  # past totals-every (10 s): the run row has running totals
killed=$dpid
kill -9 "$dpid"; wait "$dpid" 2>/dev/null; dpid=
ok "after SIGKILL our instance is left behind" '[ -d "$T/instances/schedlens.$killed" ]'
runs0=$(sqlite3 "$db" "select count(*) from runs")
win0=$(sqlite3 "$db" "select count(*) from windows")
ev0=$(sqlite3 "$db" "select events from runs order by id desc limit 1")
ok "committed windows ($win0) and running totals ($ev0 events) survived the kill" \
	'[ "$win0" -gt 0 ] && [ "$ev0" -gt 0 ]'
start --config "$tmp/conf"
ok "restart after SIGKILL" '[ -n "$dpid" ] && kill -0 $dpid'
ok "the stale instance schedlens.$killed is gone" '[ ! -e "$T/instances/schedlens.$killed" ]'
ok "the daemon logged the stale instance removal" 'grep -q "removed 1 stale" "$tmp/d.err"'
ok "integrity ok" '[ "$(sqlite3 "$db" "pragma integrity_check")" = ok ]'
ok "a new run row ($runs0 -> $(sqlite3 "$db" "select count(*) from runs"))" \
	'[ "$(sqlite3 "$db" "select count(*) from runs")" -eq $((runs0 + 1)) ]'
ok "the old windows are kept" '[ "$(sqlite3 "$db" "select count(*) from windows")" -ge "$win0" ]'
e1=$(events); hackbench -g 2 -l 1000 >/dev/null 2>&1; sleep 2; e2=$(events)
ok "recording resumed ($e1 -> $e2 events)" '[ "$e2" -gt "$e1" ]'
kill -TERM "$dpid"; wait "$dpid"; dpid=

# bearer token
head -c 24 /dev/urandom | base64 >"$tmp/token"
TOKEN=$(cat "$tmp/token")
start --token-file "$tmp/token"
ok "daemon with --token-file started" '[ -n "$dpid" ]'
code=$(get "$base/api/v1/status")
ok "no token: 401 with a JSON error" '[ "$code" = 401 ] && [ "$(jq1 "d[\"error\"][\"status\"]")" = 401 ]'
code=$(get -H "Authorization: Bearer wrong-token-wrong-token" "$base/api/v1/runs")
ok "wrong token: 401" '[ "$code" = 401 ]'
code=$(get -H "Authorization: Bearer ${TOKEN}x" "$base/metrics")
ok "token with an extra character: 401" '[ "$code" = 401 ]'
code=$(get -H "Authorization: Basic $TOKEN" "$base/api/v1/status")
ok "wrong scheme: 401" '[ "$code" = 401 ]'
code=$(get "$base/")
code2=$(get "$base/api/v1/runs")
ok "the dashboard's page loads without the token (it asks for it), its API calls 401 ($code $code2)" \
	'[ "$code" = 200 ] && [ "$code2" = 401 ]'
code=$(get -H "Authorization: Bearer $TOKEN" "$base/api/v1/runs")
ok "right token: 200" '[ "$code" = 200 ]'
e1=$(events); sleep 2; e2=$(events)
ok "alive and recording after the rejected requests ($e1 -> $e2)" '[ "$e2" -gt "$e1" ]'
kill -TERM "$dpid"; wait "$dpid"; dpid=
TOKEN=

# duty cycle: 2 s on, 4 s period
start --duty-on 2s --duty-period 4s --log-level debug
sleep 2.5
states=""
for _ in $(seq 12); do
	get "$base/api/v1/status" >/dev/null
	states="$states $(jq1 'd["state"]')"
	sleep 0.5
done
echo "# states:$states"
ok "duty cycle pauses and resumes" '[[ "$states" == *paused* ]] && [[ "$states" == *recording* ]]'
ok "a paused daemon keeps no tracefs instance" 'grep -q "duty cycle: paused" "$tmp/d.err"'
kill -TERM "$dpid"; wait "$dpid"; rc=$?; pid=$dpid; dpid=
ok "SIGTERM during a duty cycle: exit 0, no instance" '[ $rc -eq 0 ] && [ ! -e "$T/instances/schedlens.$pid" ]'
row=$(sqlite3 "$db" "select has_gaps from runs order by id desc limit 1")
ok "the duty-cycled run is marked as having gaps" '[ "$row" = 1 ]'

# automatic comparison: owed until stored, so a crash before comparing is made good on restart
db="$tmp/ac.db"
start --label ac
sleep 3
kill -TERM "$dpid"; wait "$dpid"; dpid=
sqlite3 "$db" "UPDATE runs SET kernel_release = '5.99.0-old'"
: >"$tmp/d.err"
start --label ac --compare-after 1000
sleep 2
ok "a new kernel is noticed against the stored one" 'grep -q "new kernel .*5.99.0-old" "$tmp/d.err"'
kill -9 "$dpid"; wait "$dpid" 2>/dev/null; rmdir "$T/instances/schedlens.$dpid" 2>/dev/null; dpid=
ok "killed before comparing: no comparison stored" \
	'[ "$(sqlite3 "$db" "select count(*) from comparisons")" = 0 ]'
: >"$tmp/d.err"
start --label ac --compare-after 3
ok "the restart on the same kernel still owes the comparison" \
	'grep -q "new kernel .*5.99.0-old.*not compared yet" "$tmp/d.err"'
for _ in $(seq 60); do
	[ "$(sqlite3 "$db" "select count(*) from comparisons" 2>/dev/null)" = 1 ] && break
	sleep 0.5
done
ok "and makes it after --compare-after windows" \
	'[ "$(sqlite3 "$db" "select count(*) from comparisons")" = 1 ]' || sed 's/^/# /' "$tmp/d.err"
ok "the comparison is logged" 'grep -q "comparison [0-9]*, kernel 5.99.0-old -> " "$tmp/d.err"'
kill -TERM "$dpid"; wait "$dpid"; dpid=
: >"$tmp/d.err"
start --label ac --compare-after 3
sleep 5
ok "once stored, a restart does not compare again" \
	'! grep -q "new kernel" "$tmp/d.err" && [ "$(sqlite3 "$db" "select count(*) from comparisons")" = 1 ]'
kill -TERM "$dpid"; wait "$dpid"; dpid=
done_testing
