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
# it warned that it could not remove it, and leave the top-level tracing state unchanged.
# Under ASan/UBSan the shim is preloaded after the sanitizer runtime (ASan's link-order
# check is turned off); if preloading is impossible the test skips with the reason.
set -u
SL=${SL_BUILD:?}/schedlens
SLD=${SL_BUILD:?}/schedlensd
SHIM=${SL_BUILD:?}/tests/helpers/fault-inject.so
T=/sys/kernel/tracing
n=0
fail=0
pids=()

ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
cleanup() {
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
	echo "1..0 # SKIP needs root and tracefs at $T"
	exit 0
fi
for x in python3 curl; do
	if ! command -v "$x" >/dev/null; then echo "1..0 # SKIP $x missing"; exit 0; fi
done
[ -e "$SHIM" ] || { echo "1..0 # SKIP $SHIM not built (make check builds it)"; exit 0; }
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
state0=$(state)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# the distinct sites of a trace log ("call N fn site [via frame]"), with (fine) or without
# the program's own frame when the caller is a library
# the recorder's sites (libtracefs) are walked once, for record: skip them with $3
sites_of() {
	awk -v fine="$2" -v skip="${3:-^$}" '$1 == "call" && $4 !~ skip {
		k = $3 " " $4; if (fine) k = k ($6 ? " via " $6 : "")
		if (!(k in seen)) { seen[k] = 1; print k } }' "$1"
}
# left instances of pid $1
left_of() { ls -d "$T/instances/schedlens.$1" "$T/instances/schedlens.$1".* 2>/dev/null; }

# a hung run is a failure (SIGKILL: status 137), not a hung test
watchdog() { (for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || exit 0; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null) & }
# one run with the first call from $site failing; sets rc, p; stderr in $tmp/err
run_record() {
	rm -f "$tmp/f.db"*
	LD_PRELOAD=$SHIM SL_FAULT_SITE=$site SL_FAULT_LOG="$tmp/log" \
		"$SL" record -d 0.1 >"$tmp/out" 2>"$tmp/err" &
	p=$!; pids+=("$p")
	watchdog "$p"
	wait "$p"; rc=$?
}
run_daemon() {
	local port
	port=$(free_port)
	rm -f "$tmp/d.db"*
	: >"$tmp/err"
	LD_PRELOAD=$SHIM SL_FAULT_SITE=$site SL_FAULT_LOG="$tmp/log" \
		"$SLD" --db "$tmp/d.db" --listen "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/err" &
	p=$!; pids+=("$p")
	for _ in $(seq 100); do
		kill -0 "$p" 2>/dev/null || break
		grep -q "recording into" "$tmp/err" && break
		sleep 0.05
	done
	kill -TERM "$p" 2>/dev/null
	for _ in $(seq 200); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
	kill -KILL "$p" 2>/dev/null
	wait "$p"; rc=$?
}

# $1 = record|daemon, $2 = the program's name in its messages, $3 = 1 for fine sites,
# $4 = a regex of callers to skip, $5 = the failure points expected at least
walk() {
	local what=$1 name=$2 bad=0 points=0 failed=0 warned=0 crash="" left_bad="" state_bad=""
	local sites min=$5
	rm -f "$tmp/log"
	site="" SL_FAULT_TRACE=1 "run_$what"
	ok "$what: a run with no fault succeeds ($rc: $(head -c 200 "$tmp/err"))" '[ $rc -eq 0 ]'
	mapfile -t sites < <(sites_of "$tmp/log" "$3" "${4:-}")
	for site in "${sites[@]}"; do
		rm -f "$tmp/log"
		"run_$what"
		# runs take different paths from time to time: count the site actually failed
		grep -q '^fail' "$tmp/log" && points=$((points + 1))
		[ -n "$(grep '^fail' "$tmp/log" | cut -d' ' -f3-)" ] &&
			grep '^fail' "$tmp/log" | cut -d' ' -f3- >>"$tmp/points"
		[ $rc -ne 0 ] && failed=$((failed + 1))
		if [ $rc -gt 1 ] || { [ $rc -eq 1 ] && ! grep -q "^$name: " "$tmp/err"; }; then
			bad=$((bad + 1))
			crash+="$site rc=$rc ($(grep '^fail' "$tmp/log" | cut -d' ' -f3-): $(head -c 150 "$tmp/err")); "
		fi
		l=$(left_of "$p")
		if [ -n "$l" ]; then
			if grep -q "cannot remove tracefs instance" "$tmp/err"; then
				warned=$((warned + 1))
			else
				left_bad+="$site $l; "
			fi
			for d in $l; do rmdir "$d" 2>/dev/null; done
		fi
		[ "$(state)" = "$state0" ] || state_bad+="$site; "
	done
	echo "# $what: ${#sites[@]} call sites, $points failure points exercised" \
		"($(sort -u "$tmp/points" 2>/dev/null | wc -l) distinct), $failed runs exited non-zero," \
		"$warned left an instance with a warning"
	rm -f "$tmp/points"
	ok "$what: at least $min distinct failure points exercised ($points)" '[ $points -ge $min ]'
	ok "$what: every run exits 0, or 1 with a message ($crash)" '[ $bad -eq 0 ]'
	ok "$what: no instance of ours left without a warning ($left_bad)" '[ -z "$left_bad" ]'
	ok "$what: top-level tracing state unchanged ($state_bad)" '[ -z "$state_bad" ]'
}

# record: every site, told apart by our own frame (libtracefs has one write for all files)
walk record schedlens 1 '' 30
# the daemon: the recorder's tracefs calls are the same as above; its own (config,
# database, HTTP, the recorder's fds and threads) come through the other sites
walk daemon schedlensd 0 '^libtracefs' 20

echo "1..$n"
exit $fail
