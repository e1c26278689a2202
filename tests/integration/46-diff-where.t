#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `schedlens diff --where/--baseline-where/--candidate-where KEY=VALUE`: one kernel's runs
# told apart by what was run (runs.params, as lab and record --param store it) or by the
# run column preempt_mode, as a lab A/B of one kernel with two feature settings leaves
# them. Synthesized runs (slsynth --params): diff must select exactly the right run ids
# (--json), keep the label/topology rule (a run of another label with the same params is
# left out), record the filters in the comparison's params, stored too, and refuse what
# it cannot select with exit 2 and a message that says why.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens

need python3 sqlite3 "$B/slsynth"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/w.db
q() { sqlite3 "$db" "$1"; }
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
says() { grep -qF -- "$1" "$tmp/err"; }

# run KERNEL LABEL FEATURES PREEMPT SEED [slsynth options]: 20 windows of 100 ms
synth() {
	local k=$1 l=$2 f=$3 p=$4 s=$5
	shift 5
	"$B/slsynth" --topology westmere --policy buddy --seed "$s" --duration 2 --window-ms 100 \
		--db "$db" --kernel "$k" --label "$l" --preempt-mode "$p" \
		--params "{\"workload\":\"$l\",\"features\":\"$f\"}" "$@" >"$tmp/s" 2>&1
}
synth 6.1-test hackbench default voluntary 1 &&
	synth 6.1-test hackbench NO_WAKEUP_PREEMPTION full 2 --no-wakeup-preempt &&
	synth 6.1-test hackbench default voluntary 3 &&
	synth 6.1-test hackbench NO_WAKEUP_PREEMPTION full 4 --no-wakeup-preempt &&
	synth 6.12-test hackbench default voluntary 5 &&
	synth 6.1-test other default voluntary 6
ok "synthesized 6 runs: 6.1 default 1,3, NO_WAKEUP_PREEMPTION 2,4; 6.12 5; label other 6" \
	'[ $? -eq 0 ] && [ "$(q "select group_concat(id || json_extract(params, '"'"'$.features'"'"'), '"' '"') from runs")" = \
	"1default 2NO_WAKEUP_PREEMPTION 3default 4NO_WAKEUP_PREEMPTION 5default 6default" ]' ||
	{ cat "$tmp/s" >&2; exit 1; }

# the run ids of each side and the filters in params, from diff --json
sides() {
	python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); p = d['params']
print(d['baseline']['runs'], d['candidate']['runs'], p.get('baseline_where'), p.get('candidate_where'))" "$1"
}
summary() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['summary'])" "$1"; }
K="--baseline 6.1-test --candidate 6.1-test"

# --- one kernel, two feature settings
run "$SL" diff --db "$db" --no-store --json $K --baseline-where features=default \
	--candidate-where features=NO_WAKEUP_PREEMPTION
cp "$tmp/out" "$tmp/fw.json"
s=$(sides "$tmp/fw.json")
echo "# $s"
ok "features default vs NO_WAKEUP_PREEMPTION: exit $rc (0, 1 or 3), runs [1, 3] vs [2, 4], the filters in params" \
	'[ $rc -le 1 -o $rc = 3 ] && [ "$s" = "[1, 3] [2, 4] {'"'"'features'"'"': '"'"'default'"'"'} {'"'"'features'"'"': '"'"'NO_WAKEUP_PREEMPTION'"'"'}" ]'
ok "the sides' selections name kernel, runs and filter" \
	'python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(not (d[\"baseline\"][\"selection\"] == \"kernel=6.1-test runs=1,3 features=default\" and
	d[\"candidate\"][\"selection\"] == \"kernel=6.1-test runs=2,4 features=NO_WAKEUP_PREEMPTION\"))" "$tmp/fw.json"'
run "$SL" diff --db "$db" --no-store $K --baseline-where features=default \
	--candidate-where features=NO_WAKEUP_PREEMPTION
sed 's/^/# /' "$tmp/out" | head -2
ok "text: the sides' lines say so" \
	'grep -q "^baseline:  kernel=6.1-test runs=1,3 features=default (2 runs, 40 windows)$" "$tmp/out" &&
	 grep -q "^candidate: kernel=6.1-test runs=2,4 features=NO_WAKEUP_PREEMPTION (2 runs, 40 windows)$" "$tmp/out"'

# --where for both sides, a side's own for the same key over it
run "$SL" diff --db "$db" --no-store --json $K --where workload=hackbench \
	--where features=default --candidate-where features=NO_WAKEUP_PREEMPTION
s=$(sides "$tmp/out")
ok "--where for both, --candidate-where over it for features: [1, 3] vs [2, 4], --where's first ($s)" \
	'[ "$s" = "[1, 3] [2, 4] {'"'"'workload'"'"': '"'"'hackbench'"'"', '"'"'features'"'"': '"'"'default'"'"'} {'"'"'workload'"'"': '"'"'hackbench'"'"', '"'"'features'"'"': '"'"'NO_WAKEUP_PREEMPTION'"'"'}" ]'

# the run column preempt_mode
run "$SL" diff --db "$db" --no-store --json $K --baseline-where preempt_mode=voluntary \
	--candidate-where preempt_mode=full
s=$(sides "$tmp/out")
ok "preempt_mode voluntary vs full: [1, 3] vs [2, 4] ($s)" \
	'[ "$s" = "[1, 3] [2, 4] {'"'"'preempt_mode'"'"': '"'"'voluntary'"'"'} {'"'"'preempt_mode'"'"': '"'"'full'"'"'}" ]'

# two kernels, one filter: run 6 (label other, features default) stays out by the label rule
run "$SL" diff --db "$db" --no-store --json --baseline 6.1-test --candidate 6.12-test \
	--where features=default
s=$(sides "$tmp/out")
ok "6.1 vs 6.12 where features=default: [1, 3] vs [5], not run 6 of label other ($s)" \
	'[ "$s" = "[1, 3] [5] {'"'"'features'"'"': '"'"'default'"'"'} {'"'"'features'"'"': '"'"'default'"'"'}" ]'
run "$SL" diff --db "$db" --no-store --json --baseline 6.1-test --candidate 6.12-test
s=$(sides "$tmp/out")
ok "without filters: params have no *_where ($s)" '[ "$s" = "[1, 2, 3, 4] [5] None None" ]'
s=$(summary "$tmp/out")
ok "two kernels: the summary names them ($s)" 'case $s in "6.1-test vs 6.12-test: "*) true ;; *) false ;; esac'

# by run ids: each side's selection names the params the sides differ in, where its runs
# agree on them (a list of one kernel's comparisons then says which variant was which)
sel() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(d['baseline']['selection'] + '|' + d['candidate']['selection'])" "$1"; }
run "$SL" diff --db "$db" --no-store --json --baseline-runs 1,3 --candidate-runs 2,4
s=$(sel "$tmp/out")
ok "runs 1,3 vs 2,4: the selections name the features ($s)" \
	'[ "$s" = "runs=1,3 features=default|runs=2,4 features=NO_WAKEUP_PREEMPTION" ]'
s=$(summary "$tmp/out")
ok "one kernel both sides: the summary names the selections, not the kernel twice ($s)" \
	'case $s in "runs=1,3 features=default vs runs=2,4 features=NO_WAKEUP_PREEMPTION: "*) true ;; *) false ;; esac'
s=$(summary "$tmp/fw.json")
ok "... selected by --where too ($s)" \
	'case $s in "runs=1,3 features=default vs runs=2,4 features=NO_WAKEUP_PREEMPTION: "*) true ;; *) false ;; esac'
run "$SL" diff --db "$db" --no-store --json --baseline-runs 1,2 --candidate-runs 3,4
s=$(sel "$tmp/out")
ok "runs 1,2 vs 3,4: a side of mixed features names none ($s)" '[ "$s" = "runs=1,2|runs=3,4" ]'

# --- stored: the comparison's params keep the filters
run "$SL" diff --db "$db" --json $K --baseline-where features=default \
	--candidate-where features=NO_WAKEUP_PREEMPTION
id=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['id'])" "$tmp/out")
ok "stored as comparison $id: its params and runs" \
	'[ "$(q "select json_extract(params, '"'"'$.baseline_where.features'"'"') || '"'"' '"'"' || json_extract(params, '"'"'$.candidate_where.features'"'"') from comparisons where id = $id")" = "default NO_WAKEUP_PREEMPTION" ] &&
	 [ "$(q "select group_concat(run_id, '"'"','"'"') from (select run_id from comparison_runs where comparison_id = $id order by run_id)")" = "1,2,3,4" ] &&
	 [ "$(q "select baseline || '"'"'|'"'"' || candidate from comparisons where id = $id")" = "kernel=6.1-test runs=1,3 features=default|kernel=6.1-test runs=2,4 features=NO_WAKEUP_PREEMPTION" ]'
run "$SL" findings --db "$db" --json "$id"
s=$(python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); p = d['params']
print(p['baseline_where'], p['candidate_where'])" "$tmp/out")
ok "findings $id --json: the filters in its params ($s)" \
	'[ "$s" = "{'"'"'features'"'"': '"'"'default'"'"'} {'"'"'features'"'"': '"'"'NO_WAKEUP_PREEMPTION'"'"'}" ]'

# --- refused, exit 2 with why
run "$SL" diff --db "$db" --no-store $K
ok "one kernel, no filters: exit 2, says compare by id or filter" \
	'[ $rc = 2 ] && says "baseline and candidate are both kernel '"'"'6.1-test'"'"'" && says "--baseline-where/--candidate-where"'
run "$SL" diff --db "$db" --no-store $K --where features=default
ok "one kernel, the same filter on both sides: exit 2" '[ $rc = 2 ] && says "both kernel"'
run "$SL" diff --db "$db" --no-store $K --baseline-where feature=default --candidate-where features=x
ok "a key no run has: exit 2, names the keys there are" \
	'[ $rc = 2 ] && says "no run has '"'"'feature'"'"' in its params (runs.params keys: features, workload; run columns: preempt_mode, kernel_version)"'
run "$SL" diff --db "$db" --no-store $K --baseline-where features=default --candidate-where features=NO_WAKEUP
ok "no candidate run matches: exit 2, says which filter" \
	'[ $rc = 2 ] && says "no runs of kernel '"'"'6.1-test'"'"' where features=NO_WAKEUP"'
run "$SL" diff --db "$db" --no-store $K --baseline-where features=Default --candidate-where features=NO_WAKEUP_PREEMPTION
ok "no baseline run matches (values match exactly): exit 2, says which" \
	'[ $rc = 2 ] && says "no runs of kernel '"'"'6.1-test'"'"' labelled '"'"'hackbench'"'"' where features=Default"'
run "$SL" diff --db "$db" --no-store --where features=default 1 2
ok "filters with run ids: exit 2" '[ $rc = 2 ] && says "not runs given by id"'
run "$SL" diff --db "$db" --no-store --candidate 6.1-test --where features=default
ok "filters without both kernels: exit 2" '[ $rc = 2 ] && says "give --baseline KERNEL and --candidate KERNEL"'
run "$SL" diff --db "$db" --no-store $K --where features
ok "--where without =: exit 2" '[ $rc = 2 ] && says "invalid --where '"'"'features'"'"' (KEY=VALUE)"'
run "$SL" diff --db "$db" --no-store $K --candidate-where "a.b=1"
ok "--candidate-where with a bad key: exit 2" '[ $rc = 2 ] && says "invalid --candidate-where '"'"'a.b=1'"'"'"'
run "$SL" diff --prometheus http://127.0.0.1:1 --baseline a --candidate b --where x=1
ok "--prometheus with --where: exit 2" '[ $rc = 2 ] && says "--prometheus takes two matchers"'
ok "nothing stored by the refused ones" '[ "$(q "select count(*) from comparisons")" = 1 ]'

done_testing
