#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every numeric flag and operand of every command, and schedlensd's numeric options, given
# bad values (negative, nan, inf, 32-bit overflow 4294968296, 64-bit overflow, trailing
# junk, empty, out of range): each must exit 2 before doing anything, with a message that
# names the flag and quotes the value. Also `import --format foo` and `export --format foo`
# (usage errors, exit 2). No database or tracing is needed: parsing comes first.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens
SD=$B/schedlensd

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/none.db

# bad CMD FLAG-AS-NAMED VALUE ARGS...: runs ARGS (where @ is the value), expects exit 2, a
# message naming FLAG and quoting VALUE, and that no database was created
bad() {
	local cmd=$1 name=$2 val=$3 args=() a
	shift 3
	for a in "$@"; do args+=("${a//@/$val}"); done
	timeout 20 "$SL" "$cmd" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	ok "$cmd $name '$val': exit 2 (got $rc)" '[ $rc -eq 2 ]' || cat "$tmp/err" >&2
	ok "$cmd $name '$val': message names the flag and value" \
		'grep -qF -- "schedlens $cmd: invalid $name '"'"'$val'"'"'" "$tmp/err"' ||
		cat "$tmp/err" >&2
	[ ! -e "$db" ] || { echo "# $db was created" >&2; fail=1; rm -f "$db"; }
}

# 4294968296 overflows 32 bits (it used to run with --resamples 1000); seeds and run ids
# are 64-bit, where it is valid: they get 2^63 and 2^64 instead
for v in -1 nan inf 4294968296 99999999999999999999999 1x ""; do
	bad diff --resamples "$v" --db "$db" --resamples @ 1 2
	bad diff --alpha "$v" --db "$db" --alpha @ 1 2
	bad diff --floor-scale "$v" --db "$db" --floor-scale @ 1 2
	bad diff --threshold "$v" --db "$db" --threshold @ 1 2
	bad diff --block "$v" --db "$db" --block @ 1 2
	bad diff --min-windows "$v" --db "$db" --min-windows @ 1 2
	bad diff --segment "$v" --db "$db" --segment @ 1 2
	bad diff --single-run-factor "$v" --db "$db" --single-run-factor @ 1 2
	bad diff --history-runs "$v" --db "$db" --history-runs @ 1 2
	bad runs -n/--limit "$v" --db "$db" -n @
	bad runs -n/--limit "$v" --db "$db" --limit @
	bad show -n/--top "$v" --db "$db" --top @ 1
	bad findings -n/--limit "$v" --db "$db" -n @
	bad record -d "$v" -o "$db" -d @
	bad record --buffer-kb "$v" -o "$db" --buffer-kb @
done
for v in -1 nan inf 9223372036854775808 18446744073709551616 1x ""; do
	[ "$v" = 9223372036854775808 ] ||
		bad diff --seed "$v" --db "$db" --seed @ 1 2
	bad diff --baseline-runs "$v" --db "$db" --baseline-runs @ --candidate-runs 2
	bad diff BASE_RUN "$v" --db "$db" -- @ 2
	bad show ID "$v" --db "$db" -- @
	bad findings ID "$v" --db "$db" -- @
	bad export RUN "$v" -d "$db" -- @
	bad delete RUN "$v" --db "$db" -- @
done
# values the common list does not reach: the edges of each range
bad diff --alpha 0 --db "$db" --alpha 0 1 2
bad diff --alpha 1 --db "$db" --alpha 1 1 2
bad diff --floor-scale 0 --db "$db" --floor-scale 0 1 2
bad diff --resamples 99 --db "$db" --resamples 99 1 2
bad diff --seed 18446744073709551616 --db "$db" --seed 18446744073709551616 1 2
bad diff --seed 0x10 --db "$db" --seed 0x10 1 2
bad diff --segment 0 --db "$db" --segment 0 1 2
bad diff --alpha " 0.5" --db "$db" --alpha " 0.5" 1 2
bad diff --baseline-runs "1,,2" --db "$db" --baseline-runs 1,,2 --candidate-runs 3
bad runs -n/--limit 1001 --db "$db" -n 1001
bad show ID 0 --db "$db" 0
bad record --buffer-kb 4194305 -o "$db" --buffer-kb 4194305
bad record -d -1s -o "$db" -d -1s
bad record -d 1.5x -o "$db" -d 1.5x

# a value that parses must still be accepted (the database is missing: exit is not 2's
# "invalid" message)
"$SL" runs --db "$db" -n 5 >/dev/null 2>"$tmp/err"
ok "runs -n 5 passes parsing" '! grep -q invalid "$tmp/err"'
"$SL" diff --db "$db" --alpha 0.05 --resamples 200 --seed 18446744073709551615 \
	--segment 1.5 --threshold 5 1 2 >/dev/null 2>"$tmp/err"
ok "diff with good values passes parsing" '! grep -q invalid "$tmp/err"'

for f in import export; do
	if [ $f = import ]; then "$SL" import --format foo -o "$db" /dev/null 2>"$tmp/err"
	else "$SL" export 1 -d "$db" --format foo 2>"$tmp/err"; fi
	rc=$?
	ok "$f --format foo: exit 2 (got $rc)" '[ $rc -eq 2 ]'
	ok "$f --format foo: names the value" 'grep -qF "'"'"'foo'"'"'" "$tmp/err"'
done

# schedlensd: flags and config values go through the same parser (lib/common/config.c)
sdbad() {
	local opt=$1 val=$2
	timeout 20 "$SD" --no-record --db "$db" --listen 127.0.0.1:1 "--$opt" "$val" \
		>/dev/null 2>"$tmp/err"
	local rc=$?
	ok "schedlensd --$opt '$val': exit 2 (got $rc)" '[ $rc -eq 2 ]' || cat "$tmp/err" >&2
	ok "schedlensd --$opt '$val': message quotes the value and names the option" \
		'grep -qF -- "'"'"'$val'"'"'" "$tmp/err" && grep -qF "$opt" "$tmp/err"' ||
		cat "$tmp/err" >&2
	printf '%s %s\n' "$opt" "$val" >"$tmp/conf"
	timeout 20 "$SD" --config "$tmp/conf" --no-record --db "$db" --listen 127.0.0.1:1 \
		>/dev/null 2>"$tmp/err"
	rc=$?
	ok "schedlensd config '$opt $val': exit 2 (got $rc)" '[ $rc -eq 2 ]' ||
		cat "$tmp/err" >&2
}
for v in -1 nan 4294968296x 99999999999999999999999 1x ""; do
	sdbad http-threads "$v"
	sdbad buffer-kb "$v"
	sdbad window "$v"
	sdbad max-db-size "$v"
done
sdbad http-threads 17
sdbad window 1.5s

done_testing
