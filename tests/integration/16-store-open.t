#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Opening a database. Read-only use works on read-only media: runs, show, findings, export,
# diff --no-store and schedlensd --no-record on a tmpfs remounted read-only and through a
# read-only bind mount, for a database whose last writer closed cleanly (no -wal, no -shm
# left). A path that exists and is not a regular file (a character device like /dev/null,
# a directory, a fifo) is refused before SQLite opens it, so nothing is created beside it;
# a missing directory, a missing file and a read-only directory each have their own
# message. Needs root (mount) and python3.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SL=$B/schedlens
SLD=$B/schedlensd

if [ "$(id -u)" != 0 ]; then skip_all "needs root to mount"; fi
need python3 curl "$B/slsynth"
tmp=$(mktemp -d)
mnt=$tmp/ro
bind=$tmp/bind
pid=
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
	umount "$bind" 2>/dev/null
	umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$mnt" "$bind" "$tmp/src"
if ! mount -t tmpfs -o size=64m schedlens-test-ro "$mnt"; then
	skip_all "cannot mount a tmpfs"
fi
db=$mnt/a.db
for k in 1 2; do
	"$B/slsynth" --topology westmere --policy buddy --seed $k --duration 1 --window-ms 100 \
		--db "$db" --kernel 6.$k-test --label ro >"$tmp/s$k" 2>&1 ||
		{ cat "$tmp/s$k" >&2; echo "Bail out! slsynth failed"; exit 1; }
done
"$SL" diff --db "$db" --force 1 2 >/dev/null 2>&1
ok "writable: a stored comparison to read back" '[ -n "$(ls "$mnt")" ]'
ok "the writer closed cleanly: no -wal or -shm left" '[ ! -e "$db-wal" ] && [ ! -e "$db-shm" ]'
mount -o remount,ro "$mnt"
ok "remounted read-only" 'grep -q " $mnt tmpfs ro" /proc/mounts'
mount --bind -o ro "$mnt" "$bind" 2>/dev/null

check_ro() { # DIR WHAT
	local d=$1 w=$2 c
	for c in "runs --db $d/a.db" "show 1 --db $d/a.db" "findings --db $d/a.db" \
		"export 1 -d $d/a.db" "diff --no-store --force --inconclusive-ok --db $d/a.db 1 2"; do
		"$SL" $c >"$tmp/out" 2>"$tmp/err"
		rc=$?
		ok "$w: $c: runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$tmp/out" ]' ||
			cat "$tmp/err" >&2
	done
	ok "$w: runs lists both runs" \
		'[ "$("$SL" runs --db "$d/a.db" --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"runs\"]))")" = 2 ]'
	ok "$w: nothing was created beside the database" '[ "$(ls "$d")" = a.db ]'
}
check_ro "$mnt" "read-only tmpfs"
if grep -q " $bind tmpfs ro" /proc/mounts; then
	check_ro "$bind" "read-only bind mount"
else
	ok "read-only bind mount # SKIP mount --bind -o ro failed" true
fi

# schedlensd --no-record serves the read-only database
port=$((20000 + ($$ + 7100) % 10000))
"$SLD" --no-record --db "$db" --listen "127.0.0.1:$port" >"$tmp/d.out" 2>"$tmp/d.err" &
pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/api/v1/runs" >"$tmp/runs" 2>/dev/null && break; sleep 0.1; done
ok "schedlensd --no-record on read-only media serves /api/v1/runs" \
	'python3 -c "import json; assert len(json.load(open(\"$tmp/runs\"))[\"runs\"]) == 2"' ||
	cat "$tmp/d.err" >&2
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# writing on read-only media: a message about the file system, not a generic one
F=$SL_SRC/tests/fixtures/guest16-import-v6.dat
"$SL" import -o "$mnt/new.db" "$F" >/dev/null 2>"$tmp/err"
rc=$?
ok "import into a read-only directory: exit 1 (got $rc)" '[ $rc -eq 1 ]'
ok "... says the file system is read-only" 'grep -q "read-only file system" "$tmp/err"' ||
	cat "$tmp/err" >&2

# a log left by a writer that did not close, on read-only media: refused with its own
# message (opening immutable would ignore what is in the log)
umount "$bind" 2>/dev/null
umount "$mnt"
mount -t tmpfs -o size=16m schedlens-test-ro "$mnt"
python3 - "$mnt/w.db" <<'PY'
import os, shutil, sqlite3, sys
p = sys.argv[1]
c = sqlite3.connect(p)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("CREATE TABLE t(x)")
c.execute("INSERT INTO t VALUES (1)")
c.commit()
for s in ("", "-wal"):
	shutil.copy(p + s, p + ".copy" + s)
c.close()
for s in ("", "-wal", "-shm"):
	if os.path.exists(p + s):
		os.unlink(p + s)
os.rename(p + ".copy", p)
os.rename(p + ".copy-wal", p + "-wal")
PY
mount -o remount,ro "$mnt"
ok "a -wal without -shm is set up" '[ -s "$mnt/w.db-wal" ] && [ ! -e "$mnt/w.db-shm" ]'
"$SL" runs --db "$mnt/w.db" >/dev/null 2>"$tmp/err"
rc=$?
ok "runs on it: exit 1 (got $rc)" '[ $rc -eq 1 ]'
ok "... names the -wal and says what to do" 'grep -q "write-ahead log.*copy the three files" "$tmp/err"' ||
	cat "$tmp/err" >&2

# paths that are not databases: refused before SQLite, nothing created beside them (a
# fifo used to block the open: hence the timeouts)
mknod "$tmp/src/null" c 1 3
mkfifo "$tmp/src/fifo"
mkdir "$tmp/src/dir"
for c in "runs --db" "import $F -o" "record -d 0.1 -o" "diff --no-store --db"; do
	timeout 20 "$SL" $c "$tmp/src/null" >/dev/null 2>"$tmp/err"
	ok "$c CHARDEV: refused" 'grep -q "is a character device, not a regular file" "$tmp/err"' ||
		cat "$tmp/err" >&2
	timeout 20 "$SL" $c "$tmp/src/dir" >/dev/null 2>"$tmp/err"
	ok "$c DIR: refused" 'grep -q "is a directory: give a database file" "$tmp/err"' ||
		cat "$tmp/err" >&2
	timeout 20 "$SL" $c "$tmp/src/fifo" >/dev/null 2>"$tmp/err"
	ok "$c FIFO: refused" 'grep -q "is a fifo, not a regular file" "$tmp/err"' ||
		cat "$tmp/err" >&2
	timeout 20 "$SL" $c "$tmp/nodir/x.db" >/dev/null 2>"$tmp/err"
	ok "$c MISSING-DIR: its own message" 'grep -q "directory .*/nodir. does not exist" "$tmp/err"' ||
		cat "$tmp/err" >&2
done
ok "nothing created beside the device, fifo or directory" \
	'[ "$(ls "$tmp/src" | tr "\n" " ")" = "dir fifo null " ] && [ -z "$(ls "$tmp/src/dir")" ]'
"$SL" runs --db "$tmp/src/missing.db" >/dev/null 2>"$tmp/err"
ok "runs on a missing file: its own message" 'grep -q "no such file: record something first" "$tmp/err"'
timeout 20 "$SLD" --no-record --db "$tmp/src/dir" --listen "127.0.0.1:$port" >/dev/null \
	2>"$tmp/err"
rc=$?
ok "schedlensd --no-record on a directory: exits non-zero ($rc), says so" \
	'[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "is a directory" "$tmp/err"' || cat "$tmp/err" >&2

done_testing
