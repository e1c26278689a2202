#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault injection into the start-up (and shut-down) of schedlens record and schedlensd: a
# preloaded shim (tests/helpers/fault-inject.so) makes one call of open, openat, fopen,
# mkdir, rmdir, read, write, pread, pipe2, epoll_create1, epoll_ctl, socket, bind, listen
# or pthread_create fail with EIO. A run with nothing failed lists every call and the code
# that made it; then, for each distinct call site, a run fails its first call. Every run
# must end with exit status 0 (a fault we work around, e.g. a warning) or 1 with a message
# (never a signal: no crash, no sanitizer report), leave no instance of ours behind unless
# it warned that it could not remove it, and open no top-level tracing file for writing
# (the shim reports those; other processes may change the top level meanwhile). A few runs
# go at a time.
# Under ASan/UBSan the shim is preloaded after the sanitizer runtime (ASan's link-order
# check is turned off); if preloading is impossible the test skips with the reason.
set -u
. "$(dirname "$0")/lib.sh"
SL=${SL_BUILD:?}/schedlens
SLD=${SL_BUILD:?}/schedlensd
SHIM=${SL_BUILD:?}/tests/helpers/fault-inject.so
T=/sys/kernel/tracing
pids=()

cleanup() {
	mapfile -t pids < <(cat "$tmp"/*/*/pid 2>/dev/null)
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	sleep 0.1
	for p in "${pids[@]}"; do
		for d in "$T/instances/schedlens.$p" "$T/instances/schedlens.$p".*; do
			[ -d "$d" ] && rmdir "$d" 2>/dev/null
		done
	done
	rm -rf "$tmp"
}
if [ "$(id -u)" != 0 ] || [ ! -e "$T/tracing_on" ]; then
	skip_all "needs root and tracefs at $T"
fi
need md5sum
[ -e "$SHIM" ] || { skip_all "$SHIM not built (make check builds it)"; }
tmp=$(mktemp -d)
trap cleanup EXIT
# a sanitizer runtime must come first: the shim then follows it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
if ! LD_PRELOAD=$SHIM SL_FAULT_LOG="$tmp/probe" "$SL" --version >/dev/null 2>"$tmp/probe.err" ||
	! grep -q '^calls' "$tmp/probe"; then
	echo "1..0 # SKIP cannot preload the shim here: $(head -c 200 "$tmp/probe.err")"
	exit 0
fi
state() { cat $T/tracing_on $T/set_event $T/trace_clock | md5sum; }
export SL_FAULT_TOPLEVEL=$T SL_FAULT_TRACE=1 # (traces only runs with no site to fail)
state0=$(state)
# a port nobody listens on (without starting python for every run)
free_port() {
	local port
	while port=$((20000 + RANDOM % 30000)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
	done
	echo "$port"
}
# the distinct sites of a trace log ("call N fn site [via frame]"), with (fine) or without
# the program's own frame when the caller is a library
# the recorder's sites (libtracefs) are walked once, for record: skip them with $3
sites_of() {
	awk -v fine="$2" -v skip="${3:-^$}" '$1 == "call" && ($3 " " $4) !~ skip {
		k = $3 " " $4; if (fine) k = k ($6 ? " via " $6 : "")
		if (!(k in seen)) { seen[k] = 1; print k } }' "$1"
}
# left instances of pid $1
left_of() { ls -d "$T/instances/schedlens.$1" "$T/instances/schedlens.$1".* 2>/dev/null; }

# a hung run is a failure (SIGKILL: status 137), not a hung test
watchdog() { (for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || exit 0; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null) & }
# one run in directory $1 with the first call from site $2 failing ("" for none); writes
# $1/pid and $1/rc; output in $1/out, $1/err, the shim's log in $1/log
run_record() {
	LD_PRELOAD=$SHIM SL_FAULT_SITE=$2 SL_FAULT_LOG="$1/log" \
		"$SL" record -d 0.1 --buffer-kb 64 >"$1/out" 2>"$1/err" &
	local p=$!
	echo "$p" >"$1/pid"
	watchdog "$p"
	wait "$p"; echo $? >"$1/rc"
}
run_daemon() {
	local port p
	port=$(free_port)
	: >"$1/err"
	LD_PRELOAD=$SHIM SL_FAULT_SITE=$2 SL_FAULT_LOG="$1/log" \
		"$SLD" --db "$1/d.db" --listen "127.0.0.1:$port" --buffer-kb 64 >"$1/out" 2>"$1/err" &
	p=$!
	echo "$p" >"$1/pid"
	for _ in $(seq 200); do
		kill -0 "$p" 2>/dev/null || break
		grep -q "recording into" "$1/err" && break
		sleep 0.05
	done
	kill -TERM "$p" 2>/dev/null
	watchdog "$p"
	wait "$p"; echo $? >"$1/rc"
}
# checks one run of $1 (record|daemon) in directory $3 failing site $4; $2 = the program's
# name in its messages; appends one line to $3/../results
check_run() {
	local what=$1 name=$2 dir=$3 site=$4 rc p point l verdict=ok
	"run_$what" "$dir" "$site"
	rc=$(cat "$dir/rc"); p=$(cat "$dir/pid")
	# runs take different paths from time to time: what counts is the call actually failed
	point=$(grep -m1 '^fail' "$dir/log" | cut -d' ' -f3-)
	if [ "$rc" -gt 1 ] || { [ "$rc" -eq 1 ] && ! grep -q "^$name: " "$dir/err"; }; then
		verdict="crash rc=$rc: $(head -c 150 "$dir/err" | tr '\n' ' ')"
	fi
	l=$(left_of "$p")
	if [ -n "$l" ]; then
		if grep -q "cannot remove tracefs instance" "$dir/err"; then
			[ "$verdict" = ok ] && verdict=warned
		else
			verdict="left $l"
		fi
		for d in $l; do rmdir "$d" 2>/dev/null; done
	fi
	# the shim logs every write-open of a top-level tracing file by the program itself
	grep -q '^toplevel' "$dir/log" && verdict="top-level $(grep -m1 '^toplevel' "$dir/log")"
	echo "$rc|$point|$verdict|$site" >>"$dir/../results"
}

# $1 = record|daemon, $2 = the program's name in its messages, $3 = 1 for fine sites,
# $4 = a regex of callers to skip, $5 = the failure points expected at least
walk() {
	local what=$1 name=$2 min=$5 sites i=0 jobs=3 points failed warned bad
	local base="$tmp/$what"
	mkdir -p "$base/0"
	check_run "$what" "$name" "$base/0" ""
	ok "$what: a run with no fault succeeds ($(head -1 "$base/results"))" \
		'grep -q "^0||ok|$" "$base/results"'
	mapfile -t sites < <(sites_of "$base/0/log" "$3" "${4:-}")
	: >"$base/results"
	# a few runs at a time: most of a run is waiting (start-up, SIGTERM, a 0.1 s recording)
	for site in "${sites[@]}"; do
		i=$((i + 1))
		mkdir -p "$base/$i"
		check_run "$what" "$name" "$base/$i" "$site" &
		while [ "$(jobs -rp | wc -l)" -ge $jobs ]; do sleep 0.05; done
	done
	wait
	points=$(cut -d'|' -f2 "$base/results" | grep -c .)
	failed=$(cut -d'|' -f1 "$base/results" | grep -vc '^0$')
	warned=$(cut -d'|' -f3 "$base/results" | grep -c '^warned$')
	bad=$(cut -d'|' -f3- "$base/results" | grep -v '^ok|' | grep -v '^warned|' | tr '\n' ';')
	echo "# $what: ${#sites[@]} call sites, $points failure points exercised" \
		"($(cut -d'|' -f2 "$base/results" | grep . | sort -u | wc -l) distinct)," \
		"$failed runs exited non-zero, $warned left an instance with a warning"
	ok "$what: at least $min distinct failure points exercised ($points)" '[ "$points" -ge $min ]'
	ok "$what: every run exits 0 or 1 with a message, leaves no instance unless it warns, writes no top-level tracing file ($bad)" \
		'[ -z "$bad" ]'
}

# record: every site, told apart by our own frame (libtracefs has one write for all files)
walk record schedlens 1 '' 30
# the daemon: the recorder's tracefs files are the same as above (but for creating and
# removing the instance); its own (config, database, HTTP, the recorder's fds and threads)
# come through the other sites
walk daemon schedlensd 0 '^(write|open|read|fopen) libtracefs' 20
ok "top-level tracing_on, set_event, trace_clock as before" '[ "$(state)" = "$state0" ]'
done_testing
