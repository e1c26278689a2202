#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# schedlensd's HTTP server against slow clients, large responses and bad tokens, on loopback
# with `--no-record` over an `sl-demo-db days` database (6 hours of 1 s windows):
# - tokens: a token file of blanks is refused at start, a group-readable one is warned
#   about, and a token followed by spaces or a tab in the header is accepted;
# - large responses: four concurrent /windows?limit=100000 (21,600 rows, ~17 MB each) keep
#   the daemon's peak RSS (VmHWM) under 64 MB above idle, a /metrics scrape during them
#   answers in under 1 s, the documents are complete, and RSS is back near idle after;
# - slow clients: 1,100 connections from 127.0.0.2-6 (220 each) sending one header line a
#   second: a request from 127.0.0.7 is answered within 1 s throughout, and every slow
#   connection is closed by the header deadline (--http-header-timeout 2s).
# Traffic is bounded (loopback only, about 10 s of attack); a port of its own; cleans up.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
dpid=

cleanup() {
	[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
need curl python3
tmp=$(mktemp -d)
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
db="$tmp/days.db"
TOKEN=0123456789abcdef-62-http
# a smaller ASan quarantine, so freed memory shows as freed in RSS under sanitizers too
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"

start() { # args...
	"$B/schedlensd" --db "$db" --listen "127.0.0.1:$port" --no-record "$@" \
		>"$tmp/d.out" 2>"$tmp/d.err" &
	dpid=$!
	for _ in $(seq 100); do
		curl -s -o /dev/null --max-time 2 "$base/api/v1/status" && return 0
		kill -0 "$dpid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
stop() { kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; dpid=; }
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

echo "1..13"
"$B/tests/helpers/sl-demo-db" days "$db" --shape 1x2x1 --days 0.25 >"$tmp/demo.log" 2>&1
ok "database of 6 hours of windows" '[ -s "$db" ]' || exit 1

# tokens
printf '                \n' >"$tmp/blank.tok"
chmod 600 "$tmp/blank.tok"
timeout 10 "$B/schedlensd" --db "$db" --listen "127.0.0.1:$port" --no-record \
	--token-file "$tmp/blank.tok" >/dev/null 2>"$tmp/blank.err"
rc=$?
ok "a token file of 16 spaces is refused at start (exit $rc: $(head -c 120 "$tmp/blank.err"))" \
	'[ $rc -eq 1 ] && grep -q "blank or control character" "$tmp/blank.err"'
printf '%s\n' "$TOKEN" >"$tmp/tok"
chmod 640 "$tmp/tok"
start --token-file "$tmp/tok"
ok "a group-readable token file is warned about" \
	'grep -q "token file .* is readable by its group or others" "$tmp/d.err"'
codes=
for h in "Bearer $TOKEN" "Bearer $TOKEN  " "$(printf 'Bearer %s\t' "$TOKEN")" \
	"Bearer ${TOKEN}x" "Bearer"; do
	codes="$codes $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
		-H "Authorization: $h" "$base/api/v1/status")"
done
ok "token, token + spaces, token + tab accepted; wrong or none 401 (${codes# })" \
	'[ "$codes" = " 200 200 200 401 401" ]'
stop

# large responses
start
sleep 0.5
idle=$(kb "$dpid" VmRSS)
echo 5 >"/proc/$dpid/clear_refs" # resets VmHWM
w="$base/api/v1/runs/1/windows?limit=100000"
for i in 1 2 3 4; do curl -s -o "$tmp/w$i.json" --max-time 60 "$w" & done
worst=0
for i in 1 2 3 4 5 6; do
	sleep 0.25
	t=$(curl -s -o "$tmp/m" -w '%{http_code} %{time_total}' --max-time 10 "$base/metrics")
	echo "# /metrics during the four: $t"
	case $t in 200\ *) ;; *) worst=99 ;; esac
	worst=$(awk -v a="$worst" -v b="${t#* }" 'BEGIN { print (b > a) ? b : a }')
done
wait $(jobs -p | grep -vx "$dpid")
hwm=$(kb "$dpid" VmHWM)
sleep 1
after=$(kb "$dpid" VmRSS)
echo "# VmRSS idle ${idle} kB, VmHWM during ${hwm} kB, VmRSS after ${after} kB"
ok "four concurrent /windows?limit=100000: peak RSS $(((hwm - idle) / 1024)) MB above idle (< 64)" \
	'[ $((hwm - idle)) -lt 65536 ]'
ok "a /metrics scrape during them answers within 1 s (slowest ${worst} s)" \
	'awk -v w="$worst" "BEGIN { exit !(w < 1) }"'
rows=$(python3 - "$tmp"/w[1-4].json <<'PY'
import json, sys
print(" ".join("%d/%s" % (len(d["windows"]), d["truncated"])
               for d in (json.load(open(f)) for f in sys.argv[1:])))
PY
)
ok "each document complete: 21600 rows, not truncated ($rows)" \
	'[ "$rows" = "21600/False 21600/False 21600/False 21600/False" ]'
ok "RSS after is within 48 MB of idle ($(((after - idle) / 1024)) MB)" \
	'[ $((after - idle)) -lt 49152 ]'
t=$(curl -s "$base/api/v1/runs/1/windows?limit=2&metric=events")
ok "a bounded /windows is one JSON document with truncated true" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(not (len(d[\"windows\"]) == 2 and d[\"truncated\"] and d[\"metric\"] == \"events\"))" "$t"'
code=$(curl -s -o "$tmp/e" -w '%{http_code}' "$base/api/v1/runs/99/windows")
ok "a missing run's windows: 404 with a JSON error ($code)" \
	'[ "$code" = 404 ] && grep -q "\"error\"" "$tmp/e"'
stop

# slow clients
start --http-header-timeout 2s
python3 - "$port" >"$tmp/slow.out" 2>&1 <<'PY'
import resource, socket, sys, time, threading
port = int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
conns = []
for a in range(2, 7):
    for i in range(220):
        s = socket.socket()
        s.bind(("127.0.0.%d" % a, 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n")
            conns.append(s)
        except OSError:
            s.close()
opened = len(conns)

def normal():
    s = socket.socket()
    s.bind(("127.0.0.7", 0))
    s.settimeout(5)
    t0 = time.monotonic()
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head = s.recv(64)
    except OSError:
        head = b""
    s.close()
    return time.monotonic() - t0, head.startswith(b"HTTP/1.1 200")

worst, good, tries = 0.0, 0, 0
end = time.monotonic() + 4
while time.monotonic() < end:
    for s in conns:  # one header line a second from each
        try:
            s.send(b"X-Slow: 1\r\n")
        except OSError:
            pass
    for _ in range(2):
        d, g = normal()
        worst, good, tries = max(worst, d), good + g, tries + 1
        time.sleep(0.4)
# the deadline: 2 s after accept, every slow connection must have been closed
alive = 0
for s in conns:
    s.settimeout(0.01)
    try:
        s.send(b"X-Slow: 1\r\n")
        s.recv(1)  # b"" (closed) or a reset; data would be an answer, also not open
    except socket.timeout:
        alive += 1
    except OSError:
        pass
print("%d %d %d %.3f %d" % (opened, alive, tries, worst, good))
PY
read -r opened alive tries worst good <"$tmp/slow.out" || true
echo "# slow connections accepted $opened, still open at the end $alive; normal requests" \
	"$good/$tries answered 200, slowest ${worst} s"
ok "during 1,100 slow connections from 5 addresses, requests from a 6th answered within 1 s" \
	'[ -n "$tries" ] && [ "$good" = "$tries" ] && awk -v w="$worst" "BEGIN { exit !(w < 1) }"'
ok "every slow connection closed by the 2 s header deadline ($alive still open)" \
	'[ "${opened:-0}" -gt 0 ] && [ "$alive" = 0 ]'
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base/api/v1/status")
ok "the daemon serves normally afterwards ($code)" '[ "$code" = 200 ] && kill -0 "$dpid"'
stop
[ $_tap_fail = 0 ] || { sed 's/^/# /' "$tmp/d.err" | tail -20; cat "$tmp/slow.out" | sed 's/^/# /'; }
exit $_tap_fail
