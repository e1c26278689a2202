#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fleet diff through a real Prometheus (docs/fleet.md). Six hosts, each its own database
# holding one synthesized run (slsynth: the real engine and store) with its own host name:
# three of kernel 6.1-fleet (full LLC scan), three of 6.12-fleet (the buddy rule of the
# seed article's regression). Each
# database's windows become the /metrics history a daemon that recorded them would have
# exported (`schedlens export --format openmetrics`), backfilled into a fresh TSDB with
# `promtool tsdb create-blocks-from openmetrics`; Prometheus (127.0.0.1, 1 s scrapes) then
# also scrapes six `schedlensd --no-record` processes, one per database, and the test
# waits (bounded) until every one is up and the history answers. `schedlens diff
# --prometheus` must give the same verdict on every headline metric it can compute, the
# same overall verdict and exit status as a local diff of the same six runs stored in one
# database. Bad input (unreachable URL, bad matcher, no series) exits 2 with a message.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens
SLD=$B/schedlensd

need python3 sqlite3 curl promtool prometheus "$B/slsynth"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# free loopback ports, from the kernel (port 0), so other schedlens tests and daemons on
# this machine cannot collide with ours
read -r -a ports <<<"$(python3 -c '
import socket
ss = [socket.socket() for _ in range(8)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
pport=${ports[6]} # ports[7]: free, nothing listens (the unreachable server)
prom="http://127.0.0.1:$pport"

# --- six hosts: one run each, and the same six runs again into one database for the local
# diff (two chains at once: the machine may have only 2 CPUs)
hosts=(fleet-a1 fleet-a2 fleet-a3 fleet-b1 fleet-b2 fleet-b3)
synth() { # HOST_INDEX DB
	local i=$1 k=6.1-fleet pol=llc-scan
	[ "$i" -ge 3 ] && k=6.12-fleet pol=buddy
	"$B/slsynth" --topology westmere --policy $pol --seed $((i + 1)) --duration 6 \
		--window-ms 250 --windows-only --db "$2" --kernel $k --label fleet \
		--host "${hosts[$i]}"
}
(for i in 0 1 2 3 4 5; do synth "$i" "$tmp/h$i.db" >"$tmp/synth$i.log" 2>&1; done) &
(for i in 0 1 2 3 4 5; do synth "$i" "$tmp/local.db" >>"$tmp/local.log" 2>&1 || break; done) &
wait
ok "six hosts synthesized" 'for i in 0 1 2 3 4 5; do grep -q "stored run 1" "$tmp/synth$i.log" || exit 1; done' ||
	{ cat "$tmp"/synth*.log >&2; exit 1; }
ok "the six runs again in one database" '[ "$(sqlite3 "$tmp/local.db" "select count(*) from runs")" = 6 ]' ||
	{ cat "$tmp/local.log" >&2; exit 1; }
sums='select grp, count(*), sum(wakeups), sum(missed_idle), sum(switches), sum(lhp_cost_ns), sum(dur_ns) from windows'
same=1
for i in 0 1 2 3 4 5; do
	a=$(sqlite3 "$tmp/h$i.db" "$sums where run_id = 1 group by grp")
	b=$(sqlite3 "$tmp/local.db" "$sums where run_id = $((i + 1)) group by grp")
	[ -n "$a" ] && [ "$a" = "$b" ] || same=0
done
ok "each host's windows are the local database's run's, group by group" '[ $same = 1 ]'

# --- the history: what each host's daemon would have exported, with its windows' times
for i in 0 1 2 3 4 5; do
	"$SL" export --format openmetrics -d "$tmp/h$i.db" -o "$tmp/h$i.om" 2>>"$tmp/export.log" ||
		break
done
ok "export --format openmetrics: six files ending in # EOF" \
	'for i in 0 1 2 3 4 5; do [ "$(tail -1 "$tmp/h$i.om")" = "# EOF" ] || exit 1; done'
ok "export: every sample has its host label and a timestamp" \
	'! grep -v "^#" "$tmp/h0.om" | grep -qv "host=\"fleet-a1\",kernel=\"6.1-fleet\".* [0-9]*\.[0-9]\{3\}$"'

# --- six more hosts from real lab runs (tests/fixtures/README-lab-pgbench.md): pgbench on
# Debian's 6.1 and 6.12 cloud kernels, three runs each, one run per host
lab_runs=(1 6 11 2 7 12)
xz -dc "$SL_SRC/tests/fixtures/lab-pgbench.db.xz" >"$tmp/lab.db"
for i in 0 1 2 3 4 5; do
	h=lab-a$((i + 1))
	[ $i -ge 3 ] && h=lab-b$((i - 2))
	cp "$tmp/lab.db" "$tmp/lab$i.db"
	"$SL" delete --db "$tmp/lab$i.db" $(printf '%s\n' "${lab_runs[@]}" | grep -vx "${lab_runs[$i]}") \
		>>"$tmp/lab.log" 2>&1 &&
		sqlite3 "$tmp/lab$i.db" "update hosts set hostname = '$h'" &&
		"$SL" export --format openmetrics -d "$tmp/lab$i.db" -o "$tmp/lab$i.om" \
			>>"$tmp/lab.log" 2>&1 || break
done
ok "six lab hosts, one run each, exported" \
	'for i in 0 1 2 3 4 5; do [ "$(tail -1 "$tmp/lab$i.om")" = "# EOF" ] || exit 1; done' ||
	sed 's/^/# /' "$tmp/lab.log"

mkdir "$tmp/tsdb"
for f in "$tmp"/h[0-5].om "$tmp"/lab[0-5].om; do
	promtool tsdb create-blocks-from openmetrics "$f" "$tmp/tsdb" >>"$tmp/backfill.log" 2>&1 ||
		break
done
ok "promtool backfilled the twelve hosts' history" '[ "$(ls -d "$tmp"/tsdb/01* | wc -l)" -ge 12 ]' ||
	{ sed 's/^/# /' "$tmp/backfill.log"; exit 1; }

# --- six daemons serving the databases, and Prometheus scraping them
for i in 0 1 2 3 4 5; do
	"$SLD" --db "$tmp/h$i.db" --no-record --listen "127.0.0.1:${ports[$i]}" \
		>"$tmp/d$i.log" 2>&1 &
	pids+=($!)
done
{
	echo "global: { scrape_interval: 1s, evaluation_interval: 1s }"
	echo "scrape_configs:"
	echo "  - job_name: schedlens"
	echo "    static_configs: [ { targets: ["
	for i in 0 1 2 3 4 5; do echo "      '127.0.0.1:${ports[$i]}',"; done
	echo "    ] } ]"
} >"$tmp/prom.yml"
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
	--storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$pport" \
	>"$tmp/prom.log" 2>&1 &
pids+=($!)
# promql QUERY -> the first sample's value, or "none"
promql() {
	curl -s --max-time 5 "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys
try:
    r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")
except Exception: print("none")'
}
up=none hist=none
for _ in $(seq 60); do
	up=$(promql 'count(up{job="schedlens"} == 1)')
	hist=$(promql 'count(count by (host) (last_over_time(schedlens_window_seconds_total{group="*"}[1h])))')
	[ "$up" = 6 ] && [ "$hist" = 6 ] && break
	sleep 1
done
ok "Prometheus scrapes the six daemons (up: $up)" '[ "$up" = 6 ]' || sed 's/^/# /' "$tmp/prom.log"
ok "Prometheus holds the six hosts' history ($hist hosts)" '[ "$hist" = 6 ]' || exit 1
lat=$(promql 'count(count by (host) (last_over_time(schedlens_wakeup_latency_seconds_bucket{group="*",le="+Inf"}[1h])))')
ok "and each host's latency histogram ($lat hosts)" '[ "$lat" = 6 ]'
labels=$(promql 'count(count by (host) (schedlens_db_bytes{job="schedlens"}))')
ok "each daemon's /metrics carries its database's host name ($labels distinct)" '[ "$labels" = 6 ]'

# --- the two diffs; the headline metrics from a daemon's metric table
curl -s --max-time 5 "http://127.0.0.1:${ports[0]}/api/v1/metrics" >"$tmp/metrics.json"
"$SL" diff --db "$tmp/local.db" --baseline 6.1-fleet --candidate 6.12-fleet --no-store --json \
	>"$tmp/local.json" 2>"$tmp/local.err"
lrc=$?
"$SL" diff --prometheus "$prom" --baseline 'kernel="6.1-fleet"' --candidate 'kernel="6.12-fleet"' \
	--range 10m --step 1s --json >"$tmp/fleet.json" 2>"$tmp/fleet.err"
frc=$?
sed 's/^/# /' "$tmp/fleet.err"
ok "fleet diff: a verdict (exit $frc)" '[ $frc = 0 ] || [ $frc = 1 ] || [ $frc = 3 ]' ||
	{ sed 's/^/# /' "$tmp/fleet.err"; exit 1; }
ok "fleet diff exits as the local diff ($frc = $lrc)" '[ $frc = $lrc ]'
python3 "$SL_SRC/tests/integration/fleet-cmp.py" "$tmp/local.json" "$tmp/fleet.json" \
	"$tmp/metrics.json" "*" >"$tmp/cmp.out"
sed 's/^/# /' "$tmp/cmp.out"
ok "same overall verdict" 'grep -q "^verdicts \([a-z_]*\) \1$" "$tmp/cmp.out"'
ok "hosts serve as units: 3 and 3 (runs 3 and 3 locally)" 'grep -q "^units 3 3 3 3$" "$tmp/cmp.out"'
ok "fleet mode leaves out no headline metric" 'grep -q "^missing $" "$tmp/cmp.out"'
ok "every headline metric of all tasks has the local diff's verdict" \
	'[ "$(grep -c "^metric " "$tmp/cmp.out")" -ge 6 ] &&
	 ! grep "^metric " "$tmp/cmp.out" | grep -qv "^metric [^ ]* [a-z_0-9]* \([a-z_]*\) \1 #"'
# The coarse buckets are at most half their lower bound wide; interpolation within them
# keeps the quantiles far closer than that.
ok "latency quantiles from /metrics within 10% of the local ones" \
	'[ "$(grep -c "^quantile .* off 0\.0[0-9]*$" "$tmp/cmp.out")" = 2 ]'
ok "the regression is seen: missed_idle_rate regressed on both" \
	'grep -q "^metric \* missed_idle_rate regression regression #" "$tmp/cmp.out"'
"$SL" diff --prometheus "$prom" --baseline 'kernel="6.1-fleet"' --candidate 'kernel="6.12-fleet"' \
	--range 10m --step 1s >"$tmp/fleet.txt" 2>&1
sed -n '1,3p;/^note/p;/^verdict/p' "$tmp/fleet.txt" | sed 's/^/# /'
ok "table: hosts and steps, and the notes on fleet mode" \
	'grep -q "^baseline: *kernel=\"6.1-fleet\" hosts=fleet-a1,fleet-a2,fleet-a3 (3 hosts, [0-9]* steps)" "$tmp/fleet.txt" &&
	 grep -q "^note: latency quantiles from /metrics" "$tmp/fleet.txt" && grep -q "^verdict: " "$tmp/fleet.txt"'

# --- the lab hosts: real pgbench runs, 1 s windows stamped 2026-12-04 19:05-19:28 UTC. A
# step must hold several samples (docs/fleet.md), so 3 s steps here.
k61=6.1.0-50-cloud-amd64 k612=6.12.117+deb13-cloud-amd64
# stored (no --no-store): a read-write open migrates the fixture's older schema
"$SL" diff --db "$tmp/lab.db" --baseline $k61 --candidate $k612 --json \
	>"$tmp/lab-local.json" 2>"$tmp/lab-local.err"
llrc=$?
"$SL" diff --prometheus "$prom" --baseline "kernel=\"$k61\"" --candidate "kernel=\"$k612\"" \
	--range 30m --step 3s --end 1796412500 --json >"$tmp/lab-fleet.json" 2>"$tmp/lab-fleet.err"
lfrc=$?
sed 's/^/# /' "$tmp/lab-fleet.err"
ok "lab runs: fleet diff exits as the local diff ($lfrc = $llrc)" '[ $lfrc = $llrc ]'
python3 "$SL_SRC/tests/integration/fleet-cmp.py" "$tmp/lab-local.json" "$tmp/lab-fleet.json" \
	"$tmp/metrics.json" "*" postgres >"$tmp/lab-cmp.out"
sed 's/^/# /' "$tmp/lab-cmp.out"
ok "lab runs: same overall verdict" 'grep -q "^verdicts \([a-z_]*\) \1$" "$tmp/lab-cmp.out"'
ok "lab runs: hosts serve as units: 3 and 3" 'grep -q "^units 3 3 3 3$" "$tmp/lab-cmp.out"'
ok "lab runs: every headline metric of all tasks and of postgres has the local verdict" \
	'[ "$(grep -c "^metric " "$tmp/lab-cmp.out")" -ge 12 ] &&
	 ! grep "^metric " "$tmp/lab-cmp.out" | grep -qv "^metric [^ ]* [a-z_0-9]* \([a-z_]*\) \1 #"'

"$SL" diff --prometheus "$prom/" --baseline 'kernel="6.1-fleet"' --candidate 'kernel="6.12-fleet"' \
	-g '*' --range 10m --step 1s --end "$(date +%s)" --json >"$tmp/star.json" 2>"$tmp/star.err"
src=$?
star=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
print(sorted({f["group"] for f in c["findings"]}), c["verdict"])' "$tmp/star.json" 2>&1)
ok "-g '*' --end now (and a URL ending in /): only all tasks' findings, still a regression ($star)" \
	'[ $src = 1 ] && [ "$star" = "['"'"'*'"'"'] regression" ]'

# --- bad input: exit 2 and a message
"$SL" diff --prometheus "http://127.0.0.1:${ports[7]}" --baseline 'kernel="a"' --candidate 'kernel="b"' \
	--range 10m --step 1s >/dev/null 2>"$tmp/e1"
rc=$?
ok "unreachable Prometheus: exit 2, says so ($(cat "$tmp/e1"))" '[ $rc = 2 ] && grep -q "cannot query" "$tmp/e1"'
"$SL" diff --prometheus "$prom" --baseline 'kernel="6.1-fleet' --candidate 'kernel="6.12-fleet"' \
	--range 10m --step 1s >/dev/null 2>"$tmp/e2"
rc=$?
ok "bad matcher: exit 2, Prometheus's reason" '[ $rc = 2 ] && grep -q "refused .*parse error" "$tmp/e2"' || cat "$tmp/e2"
"$SL" diff --prometheus "$prom" --baseline 'kernel="6.1-fleet"' --candidate 'kernel="none"' \
	--range 10m --step 1s >/dev/null 2>"$tmp/e3"
rc=$?
ok "no series: exit 2 ($(cat "$tmp/e3"))" '[ $rc = 2 ] && grep -q "no schedlens series match" "$tmp/e3"'
"$SL" diff --prometheus "$prom" --baseline 'kernel="a"' --candidate 'kernel="b"' --db x.db \
	>/dev/null 2>"$tmp/e4"
ok "--prometheus with --db: exit 2" '[ $? = 2 ] && grep -q "takes two matchers" "$tmp/e4"'
"$SL" diff --prometheus "$prom" --baseline 'kernel="a"' --candidate 'kernel="b"' --step 0 \
	>/dev/null 2>&1
ok "--step 0: exit 2" '[ $? = 2 ]'
"$SL" diff --prometheus "$prom" --baseline 'kernel="a"' --candidate 'kernel="b"' --range 30d --step 1s \
	>/dev/null 2>"$tmp/e5"
rc=$?
ok "more steps than Prometheus serves: exit 2 ($(cat "$tmp/e5"))" '[ $rc = 2 ] && grep -q "at most" "$tmp/e5"'

# libcurl is loaded only for --prometheus (lib/compare/curl-lazy.h): hidden in a mount
# namespace of its own, the query fails with a message naming it and nothing else changes
hide=""
for l in libcurl.so.4 libcurl-gnutls.so.4; do
	p=$(ldconfig -p | awk -v l=$l '$1 == l { print $NF; exit }')
	[ -n "$p" ] && hide="$hide mount --bind /dev/null $(readlink -f "$p");"
done
unshare -m sh -c "$hide \"\$@\"" sh "$SL" diff --prometheus "$prom" --baseline 'kernel="a"' \
	--candidate 'kernel="b"' >/dev/null 2>"$tmp/e6"
rc=$?
ok "libcurl missing: exit 2, names it ($(cat "$tmp/e6"))" \
	'[ $rc = 2 ] && grep -q "querying Prometheus needs libcurl" "$tmp/e6"'
ok "libcurl missing: other commands run" \
	'unshare -m sh -c "$hide \"\$@\"" sh "$SL" --version >/dev/null'
ok "the CLI does not link libcurl" '! ldd "$SL" | grep -q libcurl'

done_testing
