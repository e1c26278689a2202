#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Lost events are never silent: with 4 KiB per-CPU buffers under hackbench the kernel
# drops events, the recorder reports a non-zero count from per_cpu/cpuN/stats, marks the
# gaps in the stream and flags the stored run as having gaps.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
T=/sys/kernel/tracing
if ! command -v hackbench >/dev/null; then skip_all "hackbench missing (make deps)"; fi
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then skip_all "needs root and tracefs"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$SL" record --buffer-kb 4 -o "$tmp/run.db" --json -- hackbench -g 4 -l 500 >"$tmp/out" 2>&1
rc=$?
tail -n 1 "$tmp/out" >"$tmp/rec.json"
get() { python3 -c "import json; d=json.load(open('$tmp/rec.json')); print($1)"; }
ok "record --buffer-kb 4 exits 0" '[ $rc -eq 0 ]'
lost=$(get 'd["lost"]'); gaps=$(get 'd["gaps"]')
echo "# lost $lost in $gaps gaps, $(get 'd["events_total"]') events delivered"
ok "lost events reported ($lost)" '[ "$lost" -gt 0 ]'
ok "gap markers in the stream ($gaps)" '[ "$gaps" -gt 0 ]'
ok "run marked as having gaps" '[ "$(get "d[\"has_gaps\"]")" = True ]'
row=$(sqlite3 "$tmp/run.db" "select lost_events > 0, has_gaps from runs")
ok "stored run has lost_events > 0 and has_gaps ($row)" '[ "$row" = "1|1" ]'
inst=$(get 'd["instance"]')  # ours only: other schedlens processes may be running
ok "our instance $inst is gone" '[ -n "$inst" ] && [ ! -e "$T/instances/$inst" ]'
done_testing
