#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlensd end to end, as root on loopback: a database that already holds a run of this
# label on "another kernel" (a short CLI recording whose kernel_release is rewritten with
# sqlite3, as an import from an older kernel would look), then the daemon records hackbench
# and we check: every endpoint against its JSON schema (schema/api/), promtool on /metrics, a
# real Prometheus server scraping it (non-zero wakeup rate) with prometheus/schedlens-rules.yml
# loaded (every rule evaluates without error, the recording rules and the database's share of
# its cap have values, no recorder alert), 2,000 requests at concurrency 50
# with zero errors and zero lost events, bad input (traversal, 100 KB queries, bad ids and
# compare parameters: 4xx JSON, daemon alive and recording), the automatic comparison's
# findings in /api/v1/findings, SIGHUP reload and a clean SIGTERM. The dashboard's routes
# (cpus, latency, lhp) are checked here against their schemas too; the heatmap's cpu_counts
# against the wakeup rows of a `record -o`, and, served afterwards by `--no-record`, the
# daemon's run (no wakeup rows) has per-CPU counts. Bounded in time; cleans up.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
SLD=${SL_BUILD:?}/schedlensd
SCHEMAS=${SL_SRC:?}/schema/api
RULES=${SL_SRC:?}/prometheus/schedlens-rules.yml
T=/sys/kernel/tracing
dpid=
ppid_prom=

cleanup() {
	[ -n "$ppid_prom" ] && kill "$ppid_prom" 2>/dev/null && wait "$ppid_prom" 2>/dev/null
	if [ -n "$dpid" ]; then
		kill -9 "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
		rmdir "$T/instances/schedlens.$dpid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
need hackbench curl python3 sqlite3 promtool prometheus ab
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs"
fi
python3 -c 'import jsonschema' 2>/dev/null || { skip_all "python3-jsonschema missing"; }
tmp=$(mktemp -d)
trap cleanup EXIT
port=$((20000 + $$ % 10000))
pport=$((port + 1))
base="http://127.0.0.1:$port"
db="$tmp/sl.db"

# GET url -> $tmp/body, prints the status code
get() { curl -s -o "$tmp/body" -w '%{http_code}' --max-time 20 "$@"; }
# validates $tmp/body against a schema
valid() {
	python3 - "$SCHEMAS/$1.json" "$tmp/body" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    print("# " + str(e).splitlines()[0]); sys.exit(1)
PY
}
jq1() { python3 -c "import json,sys; d=json.load(open('$tmp/body')); print($1)"; }

# a previous run of label 'ci' on another kernel
"$SL" record -d 12 -l ci -o "$db" --param variant=old -- hackbench -g 2 -l 100000 >"$tmp/rec.out" 2>&1
sqlite3 "$db" "UPDATE runs SET kernel_release = '5.99.0-previous' WHERE workload = 'ci'"
ok "baseline run stored and relabelled as kernel 5.99.0-previous" \
	'[ "$(sqlite3 "$db" "select count(*) from runs where kernel_release = '"'5.99.0-previous'"'")" = 1 ]'
# the heatmap's per-minute counts agree with the per-wakeup rows, CPU by CPU: a recording
# small enough (~30 k events) that its rows fit in the writer's queue, so none is dropped
# even on a loaded machine (a dropped wakeup row would still be in cpu_counts)
rdb="$tmp/rec.db"
"$SL" record -o "$rdb" -- hackbench -g 1 -l 30 >"$tmp/rec2.out" 2>&1
rw=$(sqlite3 "$rdb" "select count(*) from wakeups")
rdrop=$(sqlite3 "$rdb" "select dropped_rows from runs")
rdiff=$(sqlite3 "$rdb" "select count(*) from (
	select target_cpu, count(*), sum(target_state in (1, 2)), sum(target_state = 0),
	       sum(missed_idle) from wakeups group by 1
	except select cpu, sum(wakeups), sum(busy), sum(idle), sum(missed_idle)
	from cpu_counts group by cpu)")
rcc=$(sqlite3 "$rdb" "select coalesce(sum(wakeups), 0) from cpu_counts")
ok "record -o: cpu_counts equal the wakeup rows per CPU ($rcc = $rw wakeups, $rdiff CPUs differ, $rdrop rows dropped)" \
	'[ "$rw" -gt 0 ] && [ "$rdrop" = 0 ] && [ "$rcc" = "$rw" ] && [ "$rdiff" = 0 ]'

"$SLD" --db "$db" --listen "127.0.0.1:$port" --label ci --compare-after 12 --log-level debug \
	--max-db-size 2G >"$tmp/d.out" 2>"$tmp/d.err" &
dpid=$!
for _ in $(seq 50); do [ "$(get "$base/api/v1/status")" = 200 ] && break; sleep 0.2; done
ok "daemon serves /api/v1/status" '[ "$(get "$base/api/v1/status")" = 200 ]' || { cat "$tmp/d.err"; exit 1; }
ok "daemon logs that the kernel changed" 'grep -q "new kernel .*5.99.0-previous" "$tmp/d.err"'
hackbench -g 2 -l 20000 >/dev/null 2>&1 &
hb=$!
sleep 4
run=$(get "$base/api/v1/status" >/dev/null; jq1 'd["run_id"]')

# every endpoint against its schema
check() { # name schema url
	local code sch=$2; code=$(get "$3")
	ok "$1: 200 and valid against $2.json" '[ "$code" = 200 ] && valid "$sch"' ||
		echo "# HTTP $code: $(head -c 300 "$tmp/body")"
}
check status status "$base/api/v1/status"
check runs runs "$base/api/v1/runs"
check "run $run" run "$base/api/v1/runs/$run"
check windows windows "$base/api/v1/runs/$run/windows"
check "windows of one metric" windows "$base/api/v1/runs/$run/windows?metric=missed_idle&group=*&from=0&limit=5"
ok "windows?metric= returns that column only" '[ "$(jq1 "sorted(d[\"windows\"][0].keys())")" = "['"'dur_ns', 'missed_idle', 'start_ns'"']" ]'
check "windows summed into 2 s bins" windows "$base/api/v1/runs/$run/windows?step=2000000000"
ok "windows?step= rows count their windows" '[ "$(jq1 "all(1 <= w[\"windows\"] <= 3 for w in d[\"windows\"]) and d[\"step_ns\"] == 2000000000")" = True ]'
check "one metric in 2 s bins" windows "$base/api/v1/runs/$run/windows?step=2000000000&metric=missed_idle"
check placement placement "$base/api/v1/runs/$run/placement"
check preemptions preemptions "$base/api/v1/runs/$run/preemptions?limit=5"
check findings findings "$base/api/v1/findings"
check topology topology "$base/api/v1/topology"
ntopo=$(jq1 'len(d["topology"]["cpus"])')
check "metric table" metrics "$base/api/v1/metrics"
ok "metric table: missed_idle_rate divides by known-state wakeups" \
	'[ "$(jq1 "[m[\"den\"] for m in d[\"metrics\"] if m[\"name\"] == \"missed_idle_rate\"][0]")" = "['"'state_idle', 'state_busy', 'state_claimed'"']" ]'
# a value the API shows is the metric table's for the same sums: missed_idle_pct of every
# group of the stored baseline run against the table's num / den over the row's columns,
# and the dashboard's LHP cost per second (lhp_cost) from the preemptions rows' dur_ns
cp "$tmp/body" "$tmp/mtable.json"
brun=$(sqlite3 "$db" "select id from runs where kernel_release = '5.99.0-previous'")
get "$base/api/v1/runs/$brun/placement" >/dev/null && cp "$tmp/body" "$tmp/bplace.json"
get "$base/api/v1/runs/$brun/preemptions?limit=0" >/dev/null && cp "$tmp/body" "$tmp/bpre.json"
mvals=$(python3 - "$tmp/mtable.json" "$tmp/bplace.json" "$tmp/bpre.json" <<'PY'
import json, sys
M = {m['name']: m for m in json.load(open(sys.argv[1]))['metrics']}
pl = json.load(open(sys.argv[2]))['groups']; pe = json.load(open(sys.argv[3]))['groups']
def value(m, row):
    num, den = (sum(row[c] for c in m[k]) for k in ('num', 'den'))
    if m['kind'] == 'share':
        return 100.0 * num / den if den else None
    return num * m['scale'] / (den / 1e9) if den else None
bad = []
for g in pl:
    v = value(M['missed_idle_rate'], g)
    if (v is None) != (g['missed_idle_pct'] is None) or (v is not None and abs(v - g['missed_idle_pct']) > 6e-4):
        bad.append((g['name'], g['missed_idle_pct'], v))
for g in pe:
    if g['dur_ns'] <= 0 or value(M['lhp_cost'], g) is None:
        bad.append((g['name'], 'dur_ns', g['dur_ns']))
print(len(pl), bad)
PY
)
ok "placement missed_idle_pct is the metric table's missed_idle_rate, every group ($mvals)" \
	'[ "${mvals#* }" = "[]" ] && [ "${mvals%% *}" -ge 1 ]'
check "wakeups per CPU" cpus "$base/api/v1/runs/$run/cpus"
ok "cpus: one entry per CPU of the topology ($ntopo)" '[ "$(jq1 "len(d[\"cpus\"])")" = "$ntopo" ]'
check "wakeups per CPU in a time range" cpus "$base/api/v1/runs/$run/cpus?from=0&to=999999999999999999"
check "merged latency histogram" latency "$base/api/v1/runs/$run/latency?group=*"
check "LHP ranking" lhp "$base/api/v1/runs/$run/lhp?limit=5"
# the dashboard's time range on the LHP view: the first 2 s of the run, on its trace clock
rs=$(jq1 'd["start_ns"]')
re=$((rs + 2000000000))
check "LHP ranking in a time range" lhp "$base/api/v1/runs/$run/lhp?limit=1000&from=$rs&to=$re"
ok "lhp?from=&to=: the range echoed, every listed event in it" \
	'[ "$(jq1 "d[\"from_ns\"] == $rs and d[\"to_ns\"] == $re and all($rs <= e[\"ts_ns\"] < $re for e in d[\"largest\"])")" = True ]'
check "preemptions in a time range" preemptions "$base/api/v1/runs/$run/preemptions?limit=1000&from=$rs&to=$re"
pspan=$(jq1 '[g["dur_ns"] for g in d["groups"] if g["name"] == "*"] + [all('"$rs"' <= r["ts_ns"] < '"$re"' for r in d["recent"])]')
ok "preemptions?from=&to=: whole windows of the first 2 s, rows in it ($pspan)" \
	'[ "$(jq1 "[g[\"dur_ns\"] for g in d[\"groups\"] if g[\"name\"] == \"*\"][0] <= 2000000000 and all($rs <= r[\"ts_ns\"] < $re for r in d[\"recent\"])")" = True ]'
check "latency histogram in a time range" latency "$base/api/v1/runs/$run/latency?group=*&from=$rs&to=$re"
lc=$(sqlite3 "$db" "select coalesce(sum(lat_count), 0) from windows where run_id = $run and grp = '*' and start_ns >= $rs and start_ns < $re")
ok "latency?from=&to=: the histograms of the windows that start in it ($lc)" \
	'[ "$(jq1 "d[\"count\"]")" = "$lc" ]'
check "direct waiters of the 5 costliest LHP events" lhp-waiters "$base/api/v1/runs/$run/lhp-waiters?limit=5"
ok "lhp-waiters: horizon 5 ms, each waiter woken by its event's victim within it" \
	'[ "$(jq1 "d[\"horizon_ns\"] == 5000000 and all(w[\"event_ts_ns\"] < w[\"ts_ns\"] for w in d[\"waiters\"])")" = True ]'
prev=$(sqlite3 "$db" "select id from runs where kernel_release = '5.99.0-previous'")
check "compare runs $prev vs $run" compare "$base/api/v1/compare?baseline=$prev&candidate=$run"

# drill-down: the wakeups behind a finding, worst first, and a slice of the run as ftrace text
check "worst wakeups of run $prev" wakeups "$base/api/v1/runs/$prev/wakeups?limit=20"
w=$(jq1 '" ".join(map(str, [len(d["wakeups"]), d["truncated"], d["per_event"],
	all((a["latency_ns"] or 0) >= (b["latency_ns"] or 0) for a, b in zip(d["wakeups"], d["wakeups"][1:])),
	all(x["wall_ns"] - x["ts_ns"] == d["wall_offset_ns"] for x in d["wakeups"])]))')
ok "wakeups: 20 of more, longest latency first, wall time = trace time + offset ($w)" \
	'[ "$w" = "20 True True True True" ]'
# start at hackbench's median wakeup: a slow (sanitized) recorder loses whole stretches of
# this run, so a fixed offset from its start can land where nothing was recorded
t0=$(sqlite3 "$db" "select ts_ns from wakeups_v where run_id = $prev and grp = 'hackbench'
	order by ts_ns limit 1 offset (select count(*) / 2 from wakeups_v
	where run_id = $prev and grp = 'hackbench')")
t1=$((t0 + 500000000))
check "hackbench's wakeups in 0.5 s" wakeups \
	"$base/api/v1/runs/$prev/wakeups?group=hackbench&from=$t0&to=$t1&limit=1000"
w=$(jq1 '" ".join(map(str, [len(d["wakeups"]), all(x["grp"] == "hackbench" and
	'"$t0"' <= x["ts_ns"] < '"$t1"' for x in d["wakeups"])]))')
nd=$(sqlite3 "$db" "select min(count(*), 1000) from wakeups_v where run_id = $prev and
	grp = 'hackbench' and ts_ns >= $t0 and ts_ns < $t1")
ok "wakeups: only the group's, only in the range, all of them ($w; $nd in the database)" \
	'[ "$w" = "$nd True" ] && [ "$nd" -gt 0 ]'
# on 2 CPUs an idle CPU is rarely passed over: the count may be 0, it must be the database's
get "$base/api/v1/runs/$prev/wakeups?order=missed&limit=1000" >/dev/null
w=$(jq1 '" ".join(map(str, [len(d["wakeups"]), all(x["missed_idle"] or x["missed_smt"] for x in d["wakeups"])]))')
nd=$(sqlite3 "$db" "select min(count(*), 1000) from wakeups where run_id = $prev and (missed_idle or missed_smt)")
ok "wakeups: order=missed gives exactly those that passed an idle CPU over ($w; $nd in the database)" \
	'[ "$w" = "$nd True" ]'
ok "wakeups: order=time is trace order" \
	'[ "$(get "$base/api/v1/runs/$prev/wakeups?order=time&limit=50")" = 200 ] &&
	 [ "$(jq1 "all(a[\"ts_ns\"] <= b[\"ts_ns\"] for a, b in zip(d[\"wakeups\"], d[\"wakeups\"][1:]))")" = True ]'
ok "wakeups: a bad order, limit or range is 400" \
	'[ "$(get "$base/api/v1/runs/$prev/wakeups?order=worst")" = 400 ] &&
	 [ "$(get "$base/api/v1/runs/$prev/wakeups?limit=0")" = 400 ] &&
	 [ "$(get "$base/api/v1/runs/$prev/wakeups?from=5&to=5")" = 400 ] &&
	 [ "$(get "$base/api/v1/runs/999999/wakeups")" = 404 ]'
code=$(curl -s -o "$tmp/slice.txt" -w '%{http_code} %{content_type}' \
	"$base/api/v1/runs/$prev/trace?from=$t0&to=$t1")
range=$(grep -v '^#' "$tmp/slice.txt" | awk -v a="$t0" -v b="$t1" '
	{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { split($i, p, /[.:]/);
	  ts = p[1] * 1000000000 + p[2]; n++; if (ts < a || ts >= b) bad++ } }
	END { print n + 0, bad + 0 }')
ok "trace slice: 200 text/plain, every event inside the range (events, outside: $range)" \
	'case "$code" in "200 text/plain"*) ;; *) exit 1 ;; esac && [ "${range% *}" -gt 100 ] && [ "${range#* }" = 0 ]'
"$SL" import "$tmp/slice.txt" -o "$tmp/slice.db" >"$tmp/slice.out" 2>&1
ok "trace slice: schedlens import reads it back" 'grep -q "stored as run 1" "$tmp/slice.out"' ||
	sed 's/^/# /' "$tmp/slice.out"
# a whole run's trace: each wakeup row stands for a waking and a wakeup line at least, each
# slice for a switch
nw=$(sqlite3 "$db" "select (select 2 * count(*) from wakeups where run_id = $prev) +
	(select count(*) from sched_slices where run_id = $prev)")
if [ "$nw" -gt 200000 ]; then
	ok "trace of a whole run past 200,000 lines (at least $nw): 413, narrow it" \
		'[ "$(get "$base/api/v1/runs/$prev/trace")" = 413 ] && grep -q "narrow it" "$tmp/body"'
else
	skip "trace of a whole run past 200,000 lines: 413" "run $prev has at least $nw lines only"
fi
ok "trace: a bad range is 400, an unknown run 404" \
	'[ "$(get "$base/api/v1/runs/$prev/trace?from=9&to=3")" = 400 ] &&
	 [ "$(get "$base/api/v1/runs/999999/trace")" = 404 ]'
check "compare kernels, one group" compare "$base/api/v1/compare?baseline=5.99.0-previous&candidate=$(uname -r)&group=*"
# a group no run has: nothing compared, so no "equivalent" (the dashboard said "no change")
check "compare kernels, a group no run has" compare "$base/api/v1/compare?baseline=5.99.0-previous&candidate=$(uname -r)&group=nosuch"
nv=$(jq1 'd["verdict"] + " " + str(len(d["findings"]))')
ok "a group no run has: insufficient_data with no findings ($nv)" '[ "$nv" = "insufficient_data 0" ]'
# filters on runs (diff --baseline-where): the previous run's params select it
check "compare kernels, the baseline filtered by runs.params" compare \
	"$base/api/v1/compare?baseline=5.99.0-previous&candidate=$(uname -r)&group=*&baseline_where=variant=old"
fw=$(jq1 'str(d["baseline"]["runs"]) + " " + str(d["params"]["baseline_where"]) + " " + str("candidate_where" in d["params"])')
ok "baseline_where=variant=old: run $prev, the filter in params ($fw)" \
	'[ "$fw" = "[$prev] {'"'"'variant'"'"': '"'"'old'"'"'} False" ]'
ok "where=nosuch=1: 400 naming the params keys there are" \
	'[ "$(get "$base/api/v1/compare?baseline=5.99.0-previous&candidate=$(uname -r)&where=nosuch=1")" = 400 ] &&
	 grep -q "runs.params keys: variant; run columns" "$tmp/body"'
ok "/ is the dashboard (text/html)" \
	'[ "$(curl -s -o /dev/null -w "%{http_code} %{content_type}" "$base/")" = "200 text/html; charset=utf-8" ]'
ok "HEAD /api/v1/status: 200" '[ "$(curl -s -I -o /dev/null -w "%{http_code}" "$base/api/v1/status")" = 200 ]'

# Prometheus
curl -s "$base/metrics" >"$tmp/metrics.txt"
promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.out" 2>&1
ok "promtool check metrics passes" '[ $? -eq 0 ]' || sed 's/^/# /' "$tmp/promtool.out"
ok "/metrics: schedlens_db_limit_bytes is --max-db-size (2G)" \
	'grep -q "^schedlens_db_limit_bytes{.*} 2147483648$" "$tmp/metrics.txt"'
# job "schedlens": the name the rules' SchedlensRecorderStopped looks for
cat >"$tmp/prom.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ '$RULES' ]
scrape_configs:
  - job_name: schedlens
    static_configs: [ { targets: ['127.0.0.1:$port'] } ]
YML
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
ppid_prom=$!
q='sum(rate(schedlens_wakeups_total{group="*"}[10s]))'
val=0
for _ in $(seq 30); do
	sleep 1
	val=$(curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$q" |
		python3 -c 'import json,sys
try:
    r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)
except Exception: print(0)')
	python3 -c "import sys; sys.exit(0 if float('$val') > 0 else 1)" && break
done
echo "# PromQL $q = $val"
ok "Prometheus scraped us: wakeup rate > 0 ($val/s)" "python3 -c \"import sys; sys.exit(0 if float('$val') > 0 else 1)\""
# promql QUERY -> the first sample's value, or "none"
promql() {
	curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys
try:
    r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")
except Exception: print("none")'
}
# every rule evaluated at least once, and its health: "ok" for all of them
for _ in $(seq 20); do
	curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/rules" >"$tmp/rules.json"
	health=$(python3 -c 'import json,sys
g=json.load(open(sys.argv[1]))["data"]["groups"]
print(" ".join(sorted(set(r["health"] for x in g for r in x["rules"]))) or "none")' \
		"$tmp/rules.json" 2>/dev/null)
	[ "$health" = ok ] && break
	sleep 1
done
nrules=$(python3 -c 'import json,sys
print(sum(len(x["rules"]) for x in json.load(open(sys.argv[1]))["data"]["groups"]))' \
	"$tmp/rules.json" 2>/dev/null)
ok "Prometheus loaded the rules: $nrules rules, health '$health'" \
	'[ "$health" = ok ] && [ "${nrules:-0}" -ge 10 ]' ||
	python3 -c 'import json,sys
for x in json.load(open(sys.argv[1]))["data"]["groups"]:
    for r in x["rules"]:
        if r["health"] != "ok": print("# %s: %s %s" % (r["name"], r["health"], r.get("lastError", "")))' \
		"$tmp/rules.json"
val=$(promql 'kernel:schedlens_wakeups:rate5m')
ok "recording rule kernel:schedlens_wakeups:rate5m > 0 ($val)" \
	"python3 -c \"import sys; sys.exit(0 if '$val' != 'none' and float('$val') > 0 else 1)\""
val=$(promql 'kernel:schedlens_missed_idle:ratio_rate5m')
ok "recording rule kernel:schedlens_missed_idle:ratio_rate5m in [0, 1] ($val)" \
	"python3 -c \"import sys; sys.exit(0 if '$val' != 'none' and 0 <= float('$val') <= 1 else 1)\""
val=$(promql 'kernel:schedlens_wakeup_latency_seconds:p99_rate5m')
ok "recording rule kernel:schedlens_wakeup_latency_seconds:p99_rate5m in (0, 10] s ($val)" \
	"python3 -c \"import sys; sys.exit(0 if '$val' != 'none' and 0 < float('$val') <= 10 else 1)\""
# the alert's expression without its threshold: both gauges join on their labels
val=$(promql 'schedlens_db_bytes / (schedlens_db_limit_bytes > 0)')
ok "the database's share of its cap evaluates, in (0, 0.9] ($val)" \
	"python3 -c \"import sys; sys.exit(0 if '$val' != 'none' and 0 < float('$val') <= 0.9 else 1)\""
val=$(promql 'count(ALERTS{alertname=~"SchedlensRecorderStopped|SchedlensLostEvents"})')
ok "no recorder or lost-events alert pending or firing ($val)" '[ "$val" = none ]'
kill "$ppid_prom"; wait "$ppid_prom" 2>/dev/null; ppid_prom=

# load: 2,000 requests at concurrency 50 on two endpoints, recording continues, nothing lost
get "$base/api/v1/status" >/dev/null; lost0=$(jq1 'd["lost_events"]'); ev0=$(jq1 'd["events"]')
for u in "/api/v1/status" "/api/v1/runs/$run/windows"; do
	# -l: the documents grow as windows arrive, a length change is not an error
	timeout 120 ab -q -l -n 2000 -c 50 -s 20 "$base$u" >"$tmp/ab.out" 2>&1
	failed=$(awk '/^Failed requests/ {print $3}' "$tmp/ab.out")
	non2xx=$(awk '/^Non-2xx responses/ {print $3}' "$tmp/ab.out")
	done_n=$(awk '/^Complete requests/ {print $3}' "$tmp/ab.out")
	rps=$(awk '/^Requests per second/ {print $4}' "$tmp/ab.out")
	echo "# ab $u: complete $done_n, failed $failed, non-2xx ${non2xx:-0}, $rps req/s"
	ok "ab -n 2000 -c 50 $u: 2000 complete, 0 failed, 0 non-2xx" \
		'[ "$done_n" = 2000 ] && [ "$failed" = 0 ] && [ -z "$non2xx" ]' ||
		tail -5 "$tmp/ab.out" | sed 's/^/# /'
done
sleep 2
get "$base/api/v1/status" >/dev/null; lost1=$(jq1 'd["lost_events"]'); ev1=$(jq1 'd["events"]')
echo "# during the load: events $ev0 -> $ev1, lost $lost0 -> $lost1"
ok "recording continued under load (events $ev0 -> $ev1) with zero lost events" \
	'[ "$ev1" -gt "$ev0" ] && [ "$lost1" = 0 ]'

# bad input: 4xx with a JSON error, never a crash
bad() { # expected-status url [curl args]
	local want=$1 url=$2 code; shift 2
	code=$(get --path-as-is "$@" "$url")
	ok "bad input $(echo "$url" | cut -c1-70)$([ $# -gt 0 ] && echo " ($*)"): $want + JSON error" \
		'[ "$code" = "$want" ] && valid error'
}
long=$(head -c 100000 /dev/zero | tr '\0' a)
bad 404 "$base/../../../../etc/passwd"
bad 404 "$base/%2e%2e/%2e%2e/etc/passwd"
bad 404 "$base/api/v1/../../etc/passwd"
bad 404 "$base/index.html/../../../etc/shadow"
bad 404 "$base//etc/passwd"
bad 414 "$base/api/v1/status?q=$long"
bad 414 "$base/api/v1/runs/$run/windows?group=$long"
bad 404 "$base/api/v1/runs/abc"
bad 404 "$base/api/v1/runs/-1"
bad 404 "$base/api/v1/runs/1e3"
bad 404 "$base/api/v1/runs/99999999"
bad 404 "$base/api/v1/runs/99999999/windows"
bad 404 "$base/api/v1/runs/$run/nothing"
bad 400 "$base/api/v1/runs/$run/windows?metric=lat_hist"
bad 400 "$base/api/v1/runs/$run/windows?metric=wakeups;DROP%20TABLE%20runs"
bad 400 "$base/api/v1/runs/$run/windows?from=10&to=5"
bad 400 "$base/api/v1/runs/$run/windows?limit=0"
bad 400 "$base/api/v1/runs/$run/windows?step=0"
bad 400 "$base/api/v1/runs/$run/preemptions?limit=x"
bad 400 "$base/api/v1/runs?limit=99999"
bad 400 "$base/api/v1/runs/$run/cpus?from=10&to=5"
bad 400 "$base/api/v1/runs/$run/cpus?to=x"
bad 400 "$base/api/v1/runs/$run/latency?group=%01"
bad 400 "$base/api/v1/runs/$run/latency?bogus=1"
bad 400 "$base/api/v1/runs/$run/lhp?limit=0"
bad 400 "$base/api/v1/runs/$run/lhp?limit=1001"
bad 400 "$base/api/v1/runs/$run/lhp?from=10&to=5"
bad 400 "$base/api/v1/runs/$run/lhp?from=x"
bad 400 "$base/api/v1/runs/$run/preemptions?from=10&to=10"
bad 404 "$base/api/v1/runs/99999999/cpus"
bad 404 "$base/api/v1/runs/99999999/latency"
bad 404 "$base/api/v1/runs/99999999/lhp"
bad 400 "$base/api/v1/runs?bogus=1"
bad 400 "$base/api/v1/compare"
bad 400 "$base/api/v1/compare?baseline=1"
bad 400 "$base/api/v1/compare?baseline=1,&candidate=2"
bad 400 "$base/api/v1/compare?baseline=1&candidate=6.1.0"
bad 400 "$base/api/v1/compare?baseline='or'1'='1&candidate=2"
bad 400 "$base/api/v1/compare?baseline=1&candidate=2&where=variant=old"
bad 400 "$base/api/v1/compare?baseline=5.99.0-previous&candidate=5.99.0-previous&where=a.b=1"
bad 400 "$base/api/v1/compare?baseline=5.99.0-previous&candidate=5.99.0-previous&candidate_where=variant"
bad 400 "$base/api/v1/compare?baseline=5.99.0-previous&candidate=5.99.0-previous"
bad 404 "$base/api/v1/compare?baseline=999998&candidate=999999"
bad 404 "$base/api/v1/compare?baseline=$run&candidate=999999"
bad 400 "$base/api/v1/findings?all=yes"
bad 405 "$base/api/v1/status" -X POST -d x=1
bad 405 "$base/api/v1/runs" -X DELETE
ok "database intact after the bad input" '[ "$(sqlite3 "$db" "pragma integrity_check")" = ok ]'
get "$base/api/v1/status" >/dev/null; ev2=$(jq1 'd["events"]'); sleep 2
get "$base/api/v1/status" >/dev/null; ev3=$(jq1 'd["events"]')
ok "daemon alive and recording after the bad input ($ev2 -> $ev3 events)" \
	'kill -0 $dpid && [ "$ev3" -gt "$ev2" ]'

# the automatic comparison: 12 windows of the new kernel, then findings
for _ in $(seq 60); do
	get "$base/api/v1/status" >/dev/null
	[ "$(jq1 'd["last_comparison"] is not None')" = True ] && break
	sleep 1
done
get "$base/api/v1/findings?all=1" >/dev/null
cand=$(jq1 'd["comparisons"][0]["candidate"] if d["comparisons"] else ""')
nf=$(jq1 'len(d["findings"])')
echo "# automatic comparison: $(jq1 'd["comparisons"][0] if d["comparisons"] else None')"
grep -E "comparison|regression" "$tmp/d.err" | sed 's/^/# log: /' | head -20
ok "automatic comparison stored, candidate is this kernel ($cand), $nf findings" \
	'[[ "$cand" == *"$(uname -r)"* ]] && [ "$nf" -gt 0 ] && valid findings'
# its unconfirmed changes: the findings marked, the comparison's count and /metrics agree
nu=$(jq1 'sum(f["unconfirmed"] is True for f in d["findings"] if f["comparison_id"] == d["comparisons"][0]["id"])')
cu=$(jq1 'd["comparisons"][0]["unconfirmed"]')
fdr=$(jq1 'd["comparisons"][0]["unconfirmed_fdr"]')
mu=$(curl -s "$base/metrics" | sed -n 's/^schedlens_unconfirmed_changes{.*} \([0-9]*\)$/\1/p')
ok "unconfirmed changes: $nu findings marked, the comparison counts $cu, /metrics $mu, at FDR $fdr" \
	'[ -n "$nu" ] && [ "$nu" = "$cu" ] && [ "$cu" = "$mu" ] && [ "$fdr" = 0.1 ]'

kill "$hb" 2>/dev/null; wait "$hb" 2>/dev/null
kill -HUP "$dpid"; sleep 1
ok "SIGHUP reloads the configuration" 'kill -0 $dpid && grep -q "configuration reloaded" "$tmp/d.err"'
kill -TERM "$dpid"; wait "$dpid"; rc=$?
ok "SIGTERM: exit 0" '[ $rc -eq 0 ]' || tail -5 "$tmp/d.err"
ok "SIGTERM: our tracefs instance is gone" '[ ! -e "$T/instances/schedlens.$dpid" ]'
dpid=
row=$(sqlite3 "$db" "select end_ns is not null, events > 0, lost_events from runs where id = $run")
ok "the run row is closed with its totals, no lost events ($row)" '[ "$row" = "1|1|0" ]'

# the daemon's run has no per-wakeup rows (event-rows notable), yet its heatmap has counts
"$SLD" --db "$db" --no-record --listen "127.0.0.1:$port" >"$tmp/d2.out" 2>"$tmp/d2.err" &
dpid=$!
for _ in $(seq 50); do [ "$(get "$base/api/v1/status")" = 200 ] && break; sleep 0.2; done
check "the daemon run's wakeups per CPU (serving only)" cpus "$base/api/v1/runs/$run/cpus"
dw=$(sqlite3 "$db" "select count(*) from wakeups where run_id = $run")
winw=$(sqlite3 "$db" "select sum(wakeups) from windows where run_id = $run and grp = '*'")
total=$(jq1 'd["wakeups"]')
sum=$(jq1 'sum(c["wakeups"] for c in d["cpus"])')
echo "# daemon run $run: $dw wakeup rows, $winw wakeups in the windows, /cpus total $total, per-CPU sum $sum"
ok "daemon run: /cpus total > 0 from cpu_counts (no wakeup rows), per-CPU counts sum to it" \
	'[ "$dw" = 0 ] && [ "$total" -gt 0 ] && [ "$sum" = "$total" ]'
ok "daemon run: /cpus total equals the windows' wakeups ($total = $winw)" '[ "$total" = "$winw" ]'
ok "daemon run: /cpus says it counts by minutes" '[ "$(jq1 "d[\"resolution\"]")" = minute ]'
kill -TERM "$dpid"; wait "$dpid"
dpid=
done_testing
