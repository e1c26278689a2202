#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The everyday views on synthesized data: `schedlens runs`, `show RUN`, `findings [ID]`,
# diff's --csv, `topology` and import's summary, each as a table, --json (parsed by python3) and --csv (parsed by
# python3's csv module), checked against the database through sqlite3 (the per-event
# rows the synthesizer's writer keeps vary from run to run, so numbers are compared with
# what was stored, not constants). Error paths: unknown run or comparison exit 1 with a
# message, bad arguments exit 2.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens

need python3 sqlite3 "$B/slsynth"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/v.db
q() { sqlite3 "$db" "$1"; }
py() { python3 -c "$1" "$@"; }

# 100 ms windows: 20 a run, enough for diff to reach a verdict (--force: the labels differ)
"$B/slsynth" --topology westmere --policy buddy --seed 1 --duration 2 --window-ms 100 \
	--db "$db" --kernel 6.1-test --label pgbench >"$tmp/s1" 2>&1
ok "synthesized run 1" '[ $? -eq 0 ]' || { cat "$tmp/s1" >&2; exit 1; }
"$B/slsynth" --topology westmere --policy llc-scan --seed 2 --duration 2 --window-ms 100 \
	--db "$db" --kernel 6.12-test --label "pg,\"quoted\"" >"$tmp/s2" 2>&1
ok "synthesized run 2 (a label with a comma and quotes)" '[ $? -eq 0 ]' || exit 1

# --- runs
"$SL" runs --db "$db" >"$tmp/runs.txt"
ok "runs: exit 0" '[ $? -eq 0 ]'
sed 's/^/# /' "$tmp/runs.txt"
ok "runs table: header and one line per run, newest first" \
	'[ "$(wc -l <"$tmp/runs.txt")" = 3 ] && head -1 "$tmp/runs.txt" | grep -q "^ID  KERNEL .*EVENTS .*COMPLETE  STATUS  *SKIPPED  SOURCE  WHAT WAS RUN$" &&
	 sed -n 2p "$tmp/runs.txt" | grep -q "^ *2  6.12-test" && sed -n 3p "$tmp/runs.txt" | grep -q "^ *1  6.1-test "'
"$SL" runs --db "$db" --json >"$tmp/runs.json"
js=$(python3 -c "
import json, sys; r = json.load(open(sys.argv[1]))['runs']
print(len(r), r[0]['id'], r[0]['label'], r[1]['kernel'], r[1]['events'], r[1]['complete'], r[1]['gaps'], r[1]['duration_s'])" "$tmp/runs.json")
ok "runs --json: 2 runs, raw values ($js)" \
	'[ "$js" = "2 2 pg,\"quoted\" 6.1-test $(q "select events from runs where id = 1") True False 2.0" ]'
"$SL" runs --db "$db" --csv >"$tmp/runs.csv"
cs=$(python3 -c "
import csv, sys; r = list(csv.DictReader(open(sys.argv[1], newline='')))
print(len(r), r[0]['label'], r[1]['start_wall'], r[0]['lost_events'], r[0]['complete'])" "$tmp/runs.csv")
ok "runs --csv: RFC 4180 quoting round-trips the label ($cs)" \
	'[ "$cs" = "2 pg,\"quoted\" $(q "select start_wall from runs where id = 1") 0 1" ]'
"$SL" runs --db "$db" -n 1 --csv >"$tmp/runs1.csv"
ok "runs -n 1: the newest only" '[ "$(wc -l <"$tmp/runs1.csv")" = 2 ] && grep -q "^2,6.12-test," "$tmp/runs1.csv"'

# --- show
"$SL" show --db "$db" 1 >"$tmp/show.txt"
ok "show 1: exit 0" '[ $? -eq 0 ]'
sed 's/^/# /' "$tmp/show.txt"
ok "show: metadata, topology and every section" \
	'grep -q "^kernel  *6.1-test$" "$tmp/show.txt" && grep -q "^packages  *4$" "$tmp/show.txt" &&
	 grep -q "^LLCs  *4$" "$tmp/show.txt" && grep -q "^cores  *40$" "$tmp/show.txt" &&
	 grep -q "^CPUs  *80$" "$tmp/show.txt" && grep -q "^where .* wakeups landed" "$tmp/show.txt" &&
	 grep -q "^  missed idle (of known)  " "$tmp/show.txt" && grep -q "^  latency p99  " "$tmp/show.txt" &&
	 grep -q "^preemptions:" "$tmp/show.txt" && grep -q "^  postgres  " "$tmp/show.txt" &&
	 grep -q "^preempted tasks" "$tmp/show.txt" && grep -q "^preempted hubs" "$tmp/show.txt"'
"$SL" show --db "$db" 1 --json >"$tmp/show.json"
ok "show --json: exit 0" '[ $? -eq 0 ]'
js=$(python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
print(' '.join(sorted(d)))
print(d['run']['id'], d['run']['kernel'], d['run']['cpus'], d['run']['cores'], d['run']['llcs'], d['run']['packages'])
pl = {r['class']: r for r in d['placement']}
print(round(sum(v for k, v in pl['prev'].items() if k != 'class'), 6), round(pl['prev']['same_pct'], 2))
print(d['targets']['wakeups'], round(d['targets']['missed_idle_pct'], 2), d['targets']['latency_p50_ns'] > 0)
p = d['preemptions']; print(p['preemptions'] == p['wakeup'] + p['tick'], p['lhp'], p['same_group'])
print(d['groups'][0]['group'], sum(v['preemptions'] for v in d['lhp_victims']))
print(len(d['hubs']) > 0, all(h['delayed_wakeups'] > 0 for h in d['hubs']))" "$tmp/show.json")
echo "$js" | sed 's/^/# json: /'
exp_keys="groups hubs lhp_preemptors lhp_victims placement preemptions run targets"
ok "show --json: one object with every section" '[ "$(echo "$js" | sed -n 1p)" = "$exp_keys" ]'
ok "show --json: run and machine shape" '[ "$(echo "$js" | sed -n 2p)" = "1 6.1-test 80 40 4 4" ]'
ok "show --json: class_prev shares sum to 100 and match the placement_mix view" \
	'[ "$(echo "$js" | sed -n 3p)" = "100.0 $(q "select prev_same_pct from placement_mix where run_id = 1 and grp = '"'*'"'")" ]'
ok "show --json: wakeups and missed-idle rate match placement_mix" \
	'[ "$(echo "$js" | sed -n 4p)" = "$(q "select wakeups from placement_mix where run_id = 1 and grp = '"'*'"'") $(q "select missed_idle_pct from placement_mix where run_id = 1 and grp = '"'*'"'") True" ]'
ok "show --json: preemptions by cause add up; LHP and same-group from the windows" \
	'[ "$(echo "$js" | sed -n 5p)" = "True $(q "select sum(lhp_count) from windows where run_id = 1 and grp = '"'*'"'") $(q "select sum(preempt_same_group) from windows where run_id = 1 and grp = '"'*'"'")" ]'
ok "show --json: postgres leads the groups; victims' preemptions match the stored rows" \
	'[ "$(echo "$js" | sed -n 6p)" = "postgres $(q "select count(*) from preemptions_v where run_id = 1 and victim_comm in (select victim_comm from preemptions_v where run_id = 1 group by victim_comm order by sum(lhp_cost_ns) desc, count(*) desc limit 10)")" ]'
hubs=$(q "select count(*) from preemptions where run_id = 1 and hub = 1")
ok "show --json: hubs present exactly when hub preemptions were stored ($hubs rows)" \
	'[ "$(echo "$js" | sed -n 7p)" = "$([ "$hubs" -gt 0 ] && echo True || echo False) True" ]'
# every share show prints that is a metric of diff's table is that metric's value for the
# same windows: diff of run 1 against run 2 has run 1's value of each as its baseline
"$SL" diff --db "$db" --force --no-store --all --json 1 2 >"$tmp/diff12.json" 2>/dev/null
mv=$(python3 -c "
import json, sys
s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
base = {(f['group'], f['metric']): f['baseline'] for f in d['findings']}
pairs = [(s['targets'][k], ('*', m)) for k, m in (('missed_idle_pct', 'missed_idle_rate'),
         ('missed_smt_pct', 'missed_smt_rate'), ('stacked_pct', 'stacking_rate'))]
pairs += [(r[c + '_pct'], ('*', r['class'] + '_' + c + '_share')) for r in s['placement']
          for c in ('same', 'smt', 'llc', 'package', 'remote')]
pairs.append((s['preemptions']['preempt_pct'], ('*', 'preempt_share')))
pairs += [(g['missed_idle_pct'], (g['group'], 'missed_idle_rate')) for g in s['groups']
          if (g['group'], 'missed_idle_rate') in base]
bad = [(k, v, base.get(k)) for v, k in pairs
       if base.get(k) is None or v is None or abs(v - base[k]) > 1e-4 * max(1, abs(v))]
print(len(pairs), bad)" "$tmp/show.json" "$tmp/diff12.json")
ok "show --json: its metric shares equal diff's values of the same metrics ($mv)" \
	'[ "${mv#* }" = "[]" ] && [ "${mv%% *}" -ge 15 ]'
"$SL" show --db "$db" 1 --csv >"$tmp/show.csv"
cs=$(python3 -c "
import csv, sys
secs, cur = {}, None
for row in csv.reader(open(sys.argv[1], newline='')):
    if not row: cur = None; continue
    if cur is None: cur = row; continue
    secs.setdefault(row[0], []).append(dict(zip(cur, row)))
print(' '.join(sorted(secs)))
print(secs['run'][0]['cores'], secs['targets'][0]['wakeups'], secs['placement'][0]['class'], secs['groups'][0]['group'])" "$tmp/show.csv")
# an empty table has no section in CSV (hubs: none when no hub was preempted)
exp_csv=$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(' '.join(sorted(k for k, v in d.items() if v)))" "$tmp/show.json")
ok "show --csv: sections with a header each, same values as --json ($cs)" \
	'[ "$(echo "$cs" | sed -n 1p)" = "$exp_csv" ] && [ "$(echo "$cs" | sed -n 2p)" = "40 $(echo "$js" | sed -n 4p | cut -d" " -f1) prev postgres" ]'
"$SL" show --db "$db" 2 -n 1 --json >"$tmp/show2.json"
ok "show -n 1: one row per top table" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (len(d[\"groups\"]) == 1 and len(d[\"lhp_victims\"]) <= 1 and d[\"run\"][\"label\"] == \"pg,\\\"quoted\\\"\"))" "$tmp/show2.json"'

# --- diff --csv, findings: a second run of each kernel, since one run a side and no
# other runs of the same workload concludes nothing (diff exits 3, inconclusive)
"$SL" diff --db "$db" --force 1 2 >"$tmp/diff1.txt" 2>&1
rc=$?
ok "diff 1 2: one run a side and no history is inconclusive, exit 3 ($rc)" \
	'[ $rc = 3 ] && grep -q "^verdict: inconclusive: " "$tmp/diff1.txt" && [ "$(q "select count(*) from comparisons")" = 1 ]'
"$SL" diff --db "$db" --force --no-store --inconclusive-ok 1 2 >/dev/null 2>&1
rc=$?
ok "--inconclusive-ok turns exit 3 into 0 ($rc)" '[ $rc = 0 ]'
q "delete from findings; delete from comparison_runs; delete from comparisons"
"$B/slsynth" --topology westmere --policy buddy --seed 3 --duration 2 --window-ms 100 \
	--db "$db" --kernel 6.1-test --label pgbench >"$tmp/s3" 2>&1 &&
	"$B/slsynth" --topology westmere --policy llc-scan --seed 4 --duration 2 --window-ms 100 \
		--db "$db" --kernel 6.12-test --label "pg,\"quoted\"" >"$tmp/s4" 2>&1
ok "synthesized runs 3 and 4" '[ $? -eq 0 ]' || exit 1
"$SL" diff --db "$db" --force --baseline-runs 1,3 --candidate-runs 2,4 >"$tmp/diff.txt" 2>&1
rc=$?
sed 's/^/# /' "$tmp/diff.txt" | tail -3
ok "diff 1,3 vs 2,4 stores a comparison (exit $rc: 0, 1 or 3)" '[ $rc -le 1 -o $rc = 3 ] && [ "$(q "select count(*) from comparisons")" = 1 ]'
ok "diff text: the flagged findings table with sentences" \
	'grep -q "^VERDICT  *GROUP  *METRIC  *BASELINE  *CANDIDATE" "$tmp/diff.txt" && grep -q "^    wakeups of all tasks landed on a busy CPU" "$tmp/diff.txt"'
"$SL" diff --db "$db" --force --no-store --csv --baseline-runs 1,3 --candidate-runs 2,4 >"$tmp/diff.csv"
rc2=$?
cs=$(python3 -c "
import csv, sys; r = list(csv.DictReader(open(sys.argv[1], newline='')))
print(len(r), r[0]['verdict'] in ('regression', 'improvement', 'change'), sorted(r[0]))" "$tmp/diff.csv")
ok "diff --csv: every finding, flagged first, same exit status ($rc2)" \
	'[ $rc2 = $rc ] && [ "${cs%% *}" = "$(q "select count(*) from findings where comparison_id = 1")" ] && [[ "$cs" == *" True ["* ]]'
# the number of unconfirmed changes comparison 1 lists, from its findings
nu=$(python3 -c "import json, sys; print(sum(f['unconfirmed'] for f in json.load(sys.stdin)['findings']))" < <("$SL" findings --db "$db" 1 --json))
"$SL" findings --db "$db" >"$tmp/fl.txt"
ok "findings: lists comparison 1 with its verdict and unconfirmed changes ($nu)" \
	'[ $? -eq 0 ] && grep -q "^ *1  [0-9-]* [0-9:]*  $(q "select verdict from comparisons where id = 1")  *$nu  " "$tmp/fl.txt"'
fj=$(python3 -c "import json, sys; c = json.load(sys.stdin)['comparisons']; print(len(c), c[0]['id'], c[0]['verdict'])" < <("$SL" findings --db "$db" --json))
ok "findings --json ($fj)" '[ "$fj" = "1 1 $(q "select verdict from comparisons where id = 1")" ]'
fc=$(python3 -c "import csv, sys; r = list(csv.DictReader(sys.stdin)); print(len(r), r[0]['summary'] != '', r[0]['unconfirmed'])" < <("$SL" findings --db "$db" --csv))
ok "findings --csv ($fc)" '[ "$fc" = "1 True $nu" ]'
"$SL" findings --db "$db" 1 >"$tmp/f1.txt"
flagged=$(q "select count(*) from findings where comparison_id = 1 and verdict in ('regression', 'improvement', 'change')")
ok "findings 1: the flagged findings ($flagged) with sentences and the verdict" \
	'[ "$flagged" -gt 0 ] && grep -q "^VERDICT  *GROUP  *METRIC" "$tmp/f1.txt" &&
	 [ "$(grep -c "^    " "$tmp/f1.txt")" = "$flagged" ] && grep -q "^verdict: " "$tmp/f1.txt"'
n1=$(python3 -c "import csv, sys; print(len(list(csv.DictReader(sys.stdin))))" < <("$SL" findings --db "$db" 1 --csv))
n2=$(python3 -c "import json, sys; d = json.load(sys.stdin); print(len(d['findings']), d['baseline_runs'], d['candidate_runs'])" < <("$SL" findings --db "$db" 1 --json))
ok "findings 1 --csv / --json: every finding ($n1; $n2)" \
	'[ "$n1" = "$(q "select count(*) from findings where comparison_id = 1")" ] && [ "$n2" = "$n1 [1, 3] [2, 4]" ]'

# --- runs.params (what was run, as lab runs store it): runs, show and diff's note
q "UPDATE runs SET params = json_object('workload', 'pgbench', 'kernel', '6.1', 'scale', '1', 'clients', '16') WHERE id IN (1, 3)"
q "UPDATE runs SET params = json_object('workload', 'pgbench', 'kernel', '6.12', 'scale', '2', 'clients', '16') WHERE id = 2"
"$SL" runs --db "$db" >"$tmp/runs.txt"
ok "runs: WHAT WAS RUN of run 1 as key=value" \
	'grep -q "^ *1  6.1-test .*  workload=pgbench kernel=6.1 scale=1 clients=16$" "$tmp/runs.txt" && grep -q "^ *4  6.12-test .*  synth   -$" "$tmp/runs.txt"'
pj=$(python3 -c "import json, sys; r = json.load(sys.stdin)['runs']; print(r[2]['params']['scale'], r[0]['params'])" < <("$SL" runs --db "$db" --json))
ok "runs --json: params an object, null without ($pj)" '[ "$pj" = "2 None" ]'
"$SL" show --db "$db" 2 >"$tmp/show2.txt"
ok "show: what was run" 'grep -q "^what was run  *workload=pgbench kernel=6.12 scale=2 clients=16$" "$tmp/show2.txt"'
"$SL" diff --db "$db" --force --no-store --baseline-runs 1,3 --candidate-runs 2 >"$tmp/diff.txt" 2>&1
ok "diff: a note names the params that differ (scale), not the kernel's" \
	'grep -qx "note: what was run differs (runs.params): scale \[1\] vs \[2\]" "$tmp/diff.txt"'
"$SL" diff --db "$db" --force --no-store --baseline-runs 1,3 --candidate-runs 2,4 >"$tmp/diff.txt" 2>&1
ok "diff: a run without params is '-' on its side" \
	'grep -qx "note: what was run differs (runs.params): workload \[pgbench\] vs \[pgbench|-\]; scale \[1\] vs \[2|-\]; clients \[16\] vs \[16|-\]" "$tmp/diff.txt"'
"$SL" diff --db "$db" --force --no-store --baseline-runs 1 --candidate-runs 3 >"$tmp/diff.txt" 2>&1
ok "diff of runs run alike: no such note" '! grep -q "what was run" "$tmp/diff.txt"'

# --- topology and import's summary: text, --json and --csv through the same print layer
"$SL_SRC/tests/fixtures/mksysfs" 4x2x2 "$tmp/sys" >/dev/null
"$SL" topology --sysfs "$tmp/sys" >"$tmp/topo.txt"
ok "topology: the tree of a 4x2x2 sysfs" \
	'grep -q "4 packages, 4 LLCs, 8 cores, 16 CPUs" "$tmp/topo.txt" && [ "$(grep -c "^package " "$tmp/topo.txt")" = 4 ]'
"$SL" topology --sysfs "$tmp/sys" --json >"$tmp/topo.json"
"$SL" topology --file "$tmp/topo.json" >"$tmp/topo2.txt"
ok "topology --json: one line, read back by --file as the same tree" \
	'[ "$(wc -l <"$tmp/topo.json")" = 1 ] && diff <(tail -n +2 "$tmp/topo.txt") <(tail -n +2 "$tmp/topo2.txt") >/dev/null'
"$SL" topology --sysfs "$tmp/sys" --csv >"$tmp/topo.csv"
tc=$(python3 -c "
import csv, sys; r = list(csv.DictReader(open(sys.argv[1], newline='')))
print(len(r), len({x['package'] for x in r}), len({(x['package'], x['core']) for x in r}), r[5]['online'], r[5]['llc'])" "$tmp/topo.csv")
# Intel numbering: cpu0-7 are the first threads, two a socket, so cpu5 is in socket 2
ok "topology --csv: 16 CPUs, 4 packages, 8 cores; cpu5 online in LLC 2 ($tc)" '[ "$tc" = "16 4 8 1 2" ]'
F=$SL_SRC/tests/fixtures
"$SL" import "$F/guest16-import-v7z.dat" --topology "$F/guest16-topology.json" -o "$tmp/imp.db" \
	--csv >"$tmp/imp.csv" 2>/dev/null
ic=$(python3 -c "
import csv, json, sys; r = list(csv.DictReader(open(sys.argv[1], newline='')))
print(len(r), r[0]['run_id'], r[0]['events_total'], json.loads(r[0]['events'])['switch'], r[0]['complete'])" "$tmp/imp.csv")
"$SL" import "$F/guest16-import-v7z.dat" --topology "$F/guest16-topology.json" -o "$tmp/imp.db" \
	--json >"$tmp/imp.json" 2>/dev/null
ij=$(python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
print(1, d['run_id'] - 1, d['events_total'], d['events']['switch'], int(d['complete']))" "$tmp/imp.json")
ok "import --csv: one row, the run and its counts as --json has them, nested ones as JSON ($ic)" \
	'[ "$ic" = "$ij" ] && [ "${ic#1 1 }" != "$ic" ] && [ "$(sqlite3 "$tmp/imp.db" "select events from runs where id = 1")" = "$(echo "$ic" | cut -d" " -f3)" ]'

# --- errors
"$SL" show --db "$db" 42 >"$tmp/o" 2>"$tmp/e"
rc=$?
ok "show of an unknown run: exit 1, message names run and file ($rc)" \
	'[ $rc -eq 1 ] && [ "$(cat "$tmp/e")" = "schedlens: no run 42 in '"'$db'"'" ] && [ ! -s "$tmp/o" ]'
"$SL" findings --db "$db" 9 >/dev/null 2>"$tmp/e"
rc=$?
ok "findings of an unknown comparison: exit 1 ($rc)" '[ $rc -eq 1 ] && grep -q "no comparison 9 in" "$tmp/e"'
"$SL" runs --db "$tmp/none.db" >/dev/null 2>"$tmp/e"
rc=$?
ok "runs on a missing file: exit 1 with a message ($rc: $(cat "$tmp/e"))" '[ $rc -eq 1 ] && [ -s "$tmp/e" ] && [ ! -e "$tmp/none.db" ]'
bad=0
for args in "show" "show --db $db x" "show --db $db 1 2" "show --db $db 0" "show --db $db -n 0 1" \
	"runs --db $db extra" "runs --db $db -n 0" "runs --bogus" "findings --db $db x" "findings --db $db 1 2"; do
	"$SL" $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "# '$args' exited $rc"; bad=1; }
done
ok "bad arguments exit 2" '[ $bad = 0 ]'
done_testing
