#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Calibration on real data: two separate `schedlens record` runs of the same pgbench
# workload on this kernel (PostgreSQL 15 cluster of our own in a temp dir) must compare
# clean: `schedlens diff` flags nothing, and since one run a side with no other runs of
# the workload says nothing of run-to-run variance, the verdict is inconclusive (exit 3;
# --inconclusive-ok makes it 0). Also checks that the comparison is stored, that --json
# agrees with the table, and the CI-gate exit codes for usage errors and insufficient
# data.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
T=/sys/kernel/tracing
PGBIN=/usr/lib/postgresql/15/bin
pg_up=0

as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
	[ "$pg_up" = 1 ] && as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$tmp"
}
need "$PGBIN/pg_ctl" "$PGBIN/pgbench" python3
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs"
fi
tmp=$(mktemp -d)
chmod 755 "$tmp" && chown postgres "$tmp"
trap cleanup EXIT
mkdir "$tmp/sock" && chown postgres "$tmp/sock"

as_pg "$PGBIN/initdb" -D "$tmp/data" -A trust -U postgres >"$tmp/initdb.log" 2>&1
ok "initdb" '[ $? -eq 0 ]' || exit 1
as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -l "$tmp/pg.log" -w \
	-o "-k $tmp/sock -p 54331 -c listen_addresses= -c max_connections=50" start >/dev/null 2>&1 && pg_up=1
ok "postgres started" '[ $pg_up = 1 ]' || exit 1
as_pg "$PGBIN/pgbench" -h "$tmp/sock" -p 54331 -U postgres -i -s 1 postgres >"$tmp/init.log" 2>&1
ok "pgbench -i -s 1" '[ $? -eq 0 ]'

# two runs, a pause between them: separate recordings, as two boots of one kernel would be
for i in 1 2; do
	"$SL" record -d 12 -l pgbench-S -o "$tmp/aa.db" -- \
		runuser -u postgres -- "$PGBIN/pgbench" -h "$tmp/sock" -p 54331 -U postgres -S -c 8 -j 2 \
		-T 11 postgres >"$tmp/rec$i.out" 2>"$tmp/rec$i.err"
	ok "recording $i" '[ $? -eq 0 ]' || cat "$tmp/rec$i.err" >&2
	echo "# run $i: $(grep -o 'tps = [0-9.]*' "$tmp/rec$i.out" | head -1)"
	sleep 2
done

"$SL" diff --db "$tmp/aa.db" 1 2 >"$tmp/diff.out" 2>"$tmp/diff.err"
rc=$?
sed 's/^/# /' "$tmp/diff.out"
ok "A/A: two pgbench runs of one kernel flag nothing: inconclusive, exit 3 ($rc)" \
	'[ $rc -eq 3 ] && grep -q "^no metric changed significantly" "$tmp/diff.out" && grep -q "^verdict: inconclusive: " "$tmp/diff.out"' || cat "$tmp/diff.err" >&2
ok "the report names what was compared" 'grep -q "^baseline: *runs=1 " "$tmp/diff.out" && grep -q "^candidate: *runs=2 " "$tmp/diff.out"'
ok "the report says one run a side without history concludes nothing" 'grep -q "one run a side and no comparable runs" "$tmp/diff.out"'
"$SL" diff --db "$tmp/aa.db" --no-store --inconclusive-ok 1 2 >/dev/null 2>&1
rc=$?
ok "--inconclusive-ok: exit 0 ($rc)" '[ $rc -eq 0 ]'
ok "the comparison was stored" '[ "$(sqlite3 "$tmp/aa.db" "select count(*) from comparisons")" = 1 ]'

"$SL" diff --db "$tmp/aa.db" --no-store --json 1 2 >"$tmp/diff.json"
rc=$?
js=$(python3 -c "
import json; d = json.load(open('$tmp/diff.json'))
print(d['verdict'], d['regressions'], len(d['findings']) > 20, d['baseline']['runs'], d['params']['single_run'])")
ok "--json: same verdict, findings for every metric ($js)" '[ $rc -eq 3 ] && [ "$js" = "inconclusive 0 True [1] True" ]'
ok "--no-store stored nothing more" '[ "$(sqlite3 "$tmp/aa.db" "select count(*) from comparisons")" = 1 ]'

"$SL" diff --db "$tmp/aa.db" --no-store --min-windows 1000 1 2 >/dev/null 2>&1
rc=$?
ok "insufficient data exits 2 ($rc)" '[ $rc -eq 2 ]'
"$SL" diff --db "$tmp/aa.db" --no-store 1 >/dev/null 2>&1
rc=$?
ok "usage error exits 2 ($rc)" '[ $rc -eq 2 ]'
"$SL" diff --db "$tmp/aa.db" --no-store 1 99 >/dev/null 2>"$tmp/e"
rc=$?
ok "unknown run: exit 2 with a message ($rc)" '[ $rc -eq 2 ] && grep -q "no run 99" "$tmp/e"'
done_testing
