#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The dashboard in a real browser: builds a database with two kernels' runs (synthesized
# pgbench traces analysed by the real engine: 3.5-like full LLC scan vs the 3.6 buddy
# rule, 2 runs each on an 80-CPU 4-socket shape), stores their comparison, imports a
# 16-CPU hackbench trace (another label and topology) and stores an A/A comparison, starts
# schedlensd --no-record on a free loopback port (it serves the database and records
# nothing of this machine), and runs tests/browser/dashboard.test.mjs (Debian's chromium,
# headless, playwright-core), also against a second server with --token-file (the page
# asks for the token once; the range views at 800 px work with it). Screenshots go to
# $SL_BUILD/artefacts/dashboard.
set -u
B=${SL_BUILD:?}
S=${SL_SRC:?}
art=$B/artefacts/dashboard
tmp=$(mktemp -d)
pid=
tpid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -x /usr/bin/chromium ] || ! command -v npm >/dev/null || ! command -v sqlite3 >/dev/null; then
	echo "1..0 # SKIP needs /usr/bin/chromium, npm and sqlite3 (make deps)"
	exit 0
fi
echo "1..5"
"$B/tests/helpers/sl-demo-db" synth "$tmp/db" --runs 2 --duration 10 >"$tmp/demo.log" 2>&1 &&
	"$B/schedlens" diff --db "$tmp/db" --baseline 3.5.0-demo --candidate 3.6.0-demo >"$tmp/diff.log" 2>&1
rc=$?
# then an imported trace of another workload label and topology (run 5: start_ns 0, its
# wall times are the import's), and a newer comparison that flags nothing (runs 1 vs 2 of
# one kernel: inconclusive), so the overview must lead with the older one and say so
irc=99
"$B/schedlens" import "$S/tests/fixtures/guest16-hackbench.dat" -l hackbench \
	--topology "$S/tests/fixtures/guest16-topology.json" -o "$tmp/db" --windows-only >"$tmp/import.log" 2>&1 && {
	"$B/schedlens" diff --db "$tmp/db" 1 2 >"$tmp/aa.log" 2>&1
	irc=$?
}
# diff exits 1 when it flags a regression, which this data has
# and 3 when the verdict is inconclusive, which the A/A pair's is
if [ "$rc" -le 1 ] && [ "$irc" -eq 3 ] && grep -q '^run 4 ' "$tmp/demo.log" && grep -q 'stored as run 5' "$tmp/import.log" &&
	grep -q '^verdict: inconclusive: .*\[comparison 2\]$' "$tmp/aa.log"; then
	echo "ok 1 - database with two kernels' runs, an imported run and two comparisons"; else
	echo "not ok 1 - database ($rc, $irc)"; sed 's/^/# /' "$tmp/demo.log" "$tmp/diff.log" "$tmp/import.log" "$tmp/aa.log"; exit 1; fi

# runs 1 and 2 (one kernel and label) differ in what was run, as the lab's feature runs
# do: the runs view shows the difference and links their comparison
sqlite3 "$tmp/db" "UPDATE runs SET params = json_object('workload', 'pgbench', 'features',
	CASE id WHEN 1 THEN 'default' ELSE 'NO_WA_IDLE' END) WHERE id IN (1, 2)" ||
	{ echo "not ok 1 - setting runs.params"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
runs0=$(sqlite3 "$tmp/db" 'select count(*) from runs')
"$B/schedlensd" --db "$tmp/db" --listen "127.0.0.1:$port" --no-record >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "$url/api/v1/status" >/dev/null 2>&1 && break; sleep 0.2; done
state=$(curl -sf "$url/api/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
if [ "$state" = serving ] && curl -sf "$url/" | grep -q schedlens; then
	echo "ok 2 - schedlensd --no-record serves $url (state $state)"
else
	echo "not ok 2 - schedlensd --no-record ($state)"; sed 's/^/# /' "$tmp/server.log"; exit 1
fi

# a second server over the same database with a token: the dashboard asks for it once
tport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
token=0123456789abcdef-dashboard-$$
printf '%s\n' "$token" >"$tmp/token"
chmod 600 "$tmp/token"
"$B/schedlensd" --db "$tmp/db" --listen "127.0.0.1:$tport" --no-record --token-file "$tmp/token" \
	>"$tmp/tserver.log" 2>&1 &
tpid=$!
for _ in $(seq 100); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tport/api/v1/status")" = 401 ] && break
	sleep 0.2
done

cd "$S/tests/browser" || exit 1
if npm ci --no-audit --no-fund >"$tmp/npm.log" 2>&1; then echo "ok 3 - npm ci (playwright-core)"; else
	echo "not ok 3 - npm ci"; sed 's/^/# /' "$tmp/npm.log"; exit 1; fi
mkdir -p "$art"
SL_URL=$url SL_TOKEN_URL=http://127.0.0.1:$tport SL_TOKEN=$token SL_ARTEFACTS=$art SL_NR_CPUS=80 node --test dashboard.test.mjs >"$tmp/browser.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/browser.log" | grep -v '^# *$' | grep -E '^# (ok|not ok|# )|error|screenshot|actual|expected' | head -120
if [ $rc -eq 0 ]; then echo "ok 4 - browser test ($(grep -c '^ok' "$tmp/browser.log") checks), screenshots in $art"; else
	echo "not ok 4 - browser test"; exit 1; fi
runs1=$(sqlite3 "$tmp/db" 'select count(*) from runs')
if [ "$runs1" = "$runs0" ] && ! grep -q 'recording into' "$tmp/server.log"; then
	echo "ok 5 - nothing recorded: still $runs1 runs"; else
	echo "not ok 5 - the database changed: $runs0 -> $runs1 runs"; exit 1; fi
