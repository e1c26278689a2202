#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `schedlens lab` without booting anything: it finds the lab's scripts beside the build
# directory (or through SL_LAB_DIR), and every bad argument is refused with a clear message
# and exit status before any download or guest (the guests themselves: make lab-check).
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run CMD...: status in $rc, stderr in $tmp/err, stdout in $tmp/out
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
says() { grep -qF -- "$1" "$tmp/err"; }

run "$SL" lab
ok "lab without a command: exit 2 with the usage" '[ $rc -eq 2 ] && says "schedlens lab ab A B WORKLOAD"'
run "$SL" lab --help
ok "lab --help: exit 0, usage on stdout" '[ $rc -eq 0 ] && grep -q "KERNEL\[:FEATURE" "$tmp/out"'
run "$SL" lab frob
ok "unknown lab command: exit 2, named" '[ $rc -eq 2 ] && says "unknown lab command '"'"'frob'"'"'"'
run "$SL" lab ab 6.1 hackbench
ok "lab ab with two arguments: exit 2" '[ $rc -eq 2 ]'
for bad in "6.1:" "6.1@" ":X" "@full"; do
	run "$SL" lab ab "$bad" 6.1 hackbench -o "$tmp/x.db"
	ok "lab ab side '$bad': exit 2, bad side" '[ $rc -eq 2 ] && says "bad side" && [ ! -e "$tmp/x.db" ]'
done
run "$SL" lab ab 6.1 6.1:NO_WAKEUP_PREEMPTION hackbench --max-runs 0
ok "lab ab --max-runs 0: exit 2" '[ $rc -eq 2 ] && says "--max-runs"'
run "$SL" lab ab 6.1 6.1 hackbench --alpha 1
ok "lab ab --alpha 1: exit 2" '[ $rc -eq 2 ] && says "--alpha"'
run "$SL" lab explain 6.1 6.1:NO_WA_IDLE hackbench -o "$tmp/x.db"
ok "lab explain without --metric: exit 2, says so" '[ $rc -eq 2 ] && says "explain needs --metric" && [ ! -e "$tmp/x.db" ]'
run "$SL" lab explain 6.1 6.1:NO_WA_IDLE hackbench --metric frob_share -o "$tmp/x.db"
ok "lab explain of an unknown metric: exit 2, named" '[ $rc -eq 2 ] && says "no metric '"'"'frob_share'"'"'"'
run "$SL" lab explain 6.1 6.1:NO_WA_IDLE hackbench --metric waker_same_share --max-runs 3
ok "lab explain refuses lab ab's --max-runs" '[ $rc -eq 2 ] && says "is not an option of lab explain"'
run "$SL" lab ab 6.1 6.1:NO_WA_IDLE hackbench --metric waker_same_share
ok "lab ab refuses explain's --metric" '[ $rc -eq 2 ] && says "is not an option of lab ab"'
run "$SL" lab explain 6.1 6.1:NO_WA_IDLE hackbench --metric waker_same_share -g a -g b
ok "lab explain takes one group" '[ $rc -eq 2 ] && says "at most 1 group"'
run "$SL" lab upgrade 6.1 6.1:NO_WA_IDLE hackbench -o "$tmp/up.db"
ok "lab upgrade of one kernel: exit 2, says why" '[ $rc -eq 2 ] && says "upgrade needs two kernels" && [ ! -e "$tmp/up.db" ]'
: >"$tmp/old.db"
run "$SL" lab upgrade 6.1 6.12 hackbench -o "$tmp/old.db"
ok "lab upgrade into an existing database: exit 2, named" '[ $rc -eq 2 ] && says "$tmp/old.db exists" && [ ! -s "$tmp/old.db" ]'
run "$SL" lab upgrade 6.1 6.12 hackbench --max-runs 3 -o "$tmp/up.db"
ok "lab upgrade refuses lab ab's --max-runs" '[ $rc -eq 2 ] && says "is not an option of lab upgrade"'
run "$SL" lab upgrade 6.1 6.12 hackbench --compare-after 1 -o "$tmp/up.db"
ok "lab upgrade --compare-after 1: exit 2" '[ $rc -eq 2 ] && says "--compare-after" && [ ! -e "$tmp/up.db" ]'
run "$SL" lab upgrade 6.1 6.12 hackbench --runs 0 -o "$tmp/up.db"
ok "lab upgrade --runs 0: exit 2" '[ $rc -eq 2 ] && says "--runs" && [ ! -e "$tmp/up.db" ]'
run "$SL" lab ab 6.1 6.12 hackbench --compare-after 5
ok "lab ab refuses upgrade's --compare-after" '[ $rc -eq 2 ] && says "is not an option of lab ab"'

# the scripts, found beside the build directory
run "$SL" lab fetch "$tmp/no-such/bzImage"
ok "lab fetch of a missing kernel image: exit 1, named" '[ $rc -eq 1 ] && says "no kernel image $tmp/no-such/bzImage"'
: >"$tmp/bzImage"
run "$SL" lab fetch "$tmp/bzImage"
ok "lab fetch of an own kernel image prints its path" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$tmp/bzImage" ]'
run "$SL" lab fetch 8.1
ok "lab fetch of an unknown kernel name: exit 1, what is known" '[ $rc -eq 1 ] && says "unknown kernel '"'"'8.1'"'"' (6.1, 6.12, 7.x"'
SL_LAB_DIR=$tmp/nowhere run "$SL" lab fetch 6.1
ok "SL_LAB_DIR without the scripts: exit 1, the path named" '[ $rc -eq 1 ] && says "cannot run $tmp/nowhere/fetch-kernel"'

# lab run refuses bad settings before fetching anything
run "$SL" lab run --help
ok "lab run --help: exit 0, the options on stdout" '[ $rc -eq 0 ] && grep -q -- "--topology SxCxT" "$tmp/out"'
for args in "--topology 9x1x1|bad --topology" "--topology 4x8x2|64 vCPUs (at most 32)" \
	"--preempt rt|unknown preemption model 'rt'" "--sysctl novalue|bad --sysctl 'novalue'" \
	"--repeat 0|bad --repeat '0'" "--mode rw|unknown pgbench mode 'rw'"; do
	set -- ${args%%|*}
	run "$SL" lab run 6.1 hackbench "$@" -o "$tmp/y.db"
	ok "lab run $*: exit 1 before any guest, says ${args#*|}" \
		'[ $rc -eq 1 ] && says "${args#*|}" && [ ! -e "$tmp/y.db" ]'
done
run "$SL" lab run 6.1 frobbench
ok "lab run of an unknown workload: exit 1, named" '[ $rc -eq 1 ] && says "unknown workload '"'"'frobbench'"'"'"'

# pgbench --scale and the cmd workload: refused before any guest
# (a sparse file: its apparent size counts, no disk is used)
truncate -s 1100M "$tmp/big"
for args in "pgbench --scale 0|bad --scale '0'" "pgbench --scale 101|bad --scale '101'" \
	"pgbench --scale x|bad --scale 'x'" "hackbench --scale 2|--scale is for pgbench only" \
	"cmd|cmd needs a command after --" "cmd --copy $tmp/none -- true|--copy $tmp/none: no such file" \
	"hackbench --copy $tmp|--copy is for the cmd workload only" \
	"hackbench -- true|a command after -- is for the cmd workload only" \
	"cmd -d 1.5 -- true|bad -d '1.5'" "cmd --copy $tmp --copy $tmp/ -- true|another --copy is also named" \
	"cmd --copy $tmp/big -- true|--copy: 1100 MiB in all, more than the 1024 MiB"; do
	set -- ${args%%|*}
	run "$SL" lab run 6.1 "$@" -o "$tmp/y.db"
	ok "lab run $*: exit 1 before any guest, says ${args#*|}" \
		'[ $rc -eq 1 ] && says "${args#*|}" && [ ! -e "$tmp/y.db" ]'
done
run "$SL" lab run 6.1 pgbench -o "$tmp/y.db" --scale
ok "lab run pgbench --scale without its value: exit 1, says so" \
	'[ $rc -eq 1 ] && says "option --scale needs a value" && [ ! -e "$tmp/y.db" ]'
run "$SL" lab run --help
ok "lab run --help names --scale, --copy and the command after --" \
	'grep -q -- "--scale N" "$tmp/out" && grep -q -- "--copy PATH" "$tmp/out" && grep -q -- "-- COMMAND ARGS" "$tmp/out"'
run "$SL" lab ab 6.1 6.12 cmd --copy "$tmp" -o "$tmp/x.db"
ok "lab ab cmd without a command: exit 2, says so" '[ $rc -eq 2 ] && says "cmd needs its command after --" && [ ! -e "$tmp/x.db" ]'
run "$SL" lab ab 6.1 6.12 pgbench --scale 2 -o "$tmp/x.db" -- true
ok "lab ab pgbench with a command: exit 2, says so" '[ $rc -eq 2 ] && says "is for workload cmd only" && [ ! -e "$tmp/x.db" ]'

# lab ab passes --scale, --copy and the command on to lab run: a stand-in for the run
# script (SL_LAB_DIR) notes the arguments it got and fails, so nothing is booted
mkdir -p "$tmp/fake"
printf '%s\n' '#!/bin/sh' 'for a in "$@"; do printf "<%s>" "$a"; done >>"${0%/*}/args"' \
	'echo >>"${0%/*}/args"' 'exit 1' >"$tmp/fake/run"
chmod +x "$tmp/fake/run"
SL_LAB_DIR=$tmp/fake run "$SL" lab ab 6.1 6.12 cmd --copy "$tmp/a b" -d 30 -o "$tmp/x.db" -- sh -c 'echo "x y"'
ok "lab ab cmd: each run gets --copy, -d and the command after --, words intact" \
	'[ $rc -eq 1 ] && [ "$(head -1 "$tmp/fake/args")" = "<6.1><cmd><-o><$tmp/x.db><-l><cmd><--copy><$tmp/a b><-d><30><--><sh><-c><echo \"x y\">" ]'
rm -f "$tmp/fake/args"
SL_LAB_DIR=$tmp/fake run "$SL" lab ab 6.1 6.12 pgbench --scale 3 -o "$tmp/x.db"
ok "lab ab pgbench --scale 3: passed on" \
	'[ $rc -eq 1 ] && [ "$(head -1 "$tmp/fake/args")" = "<6.1><pgbench><-o><$tmp/x.db><-l><pgbench><--scale><3>" ]'
rm -f "$tmp/fake/args"
SL_LAB_DIR=$tmp/fake run "$SL" lab upgrade 6.1 6.12 hackbench -d 15 -o "$tmp/up.db"
ok "lab upgrade: A's run gets --daemon with -d's count of windows" \
	'[ $rc -eq 1 ] && [ "$(head -1 "$tmp/fake/args")" = "<6.1><hackbench><-o><$tmp/up.db><-l><hackbench><-d><15><--daemon><15>" ]'
rm -f "$tmp/fake/args"
SL_LAB_DIR=$tmp/fake run "$SL" lab upgrade 6.1 6.12 hackbench --compare-after 7 -o "$tmp/up.db"
ok "lab upgrade --compare-after 7: --daemon 7" \
	'[ $rc -eq 1 ] && [ "$(head -1 "$tmp/fake/args")" = "<6.1><hackbench><-o><$tmp/up.db><-l><hackbench><--daemon><7>" ]'
for args in "--daemon 1|bad --daemon '1'" "--daemon x|bad --daemon 'x'" \
	"--daemon 5 --trace-cmd $tmp/tc|--daemon and --trace-cmd: choose one"; do
	set -- ${args%%|*}
	run "$SL" lab run 6.1 hackbench "$@" -o "$tmp/y.db"
	ok "lab run $*: exit 1 before any guest, says ${args#*|}" \
		'[ $rc -eq 1 ] && says "${args#*|}" && [ ! -e "$tmp/y.db" ]'
done

# record --param: a bad one is refused before recording
run "$SL" record --param =x -d 1 -o "$tmp/p.db"
ok "record --param without a key: exit 2, says so" '[ $rc -eq 2 ] && says "invalid --param '"'"'=x'"'"'" && [ ! -e "$tmp/p.db" ]'
run "$SL" record --param "a-b=1" -d 1 -o "$tmp/p.db"
ok "record --param with a - in the key: exit 2" '[ $rc -eq 2 ] && says "invalid --param" && [ ! -e "$tmp/p.db" ]'

done_testing
