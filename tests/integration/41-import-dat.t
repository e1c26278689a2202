#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our own trace.dat reader (lib/import/dat-file.c) against libtracecmd (SL_DAT_READER=libtracecmd):
# every guest16 fixture, and `trace-cmd convert` copies of them in the other file versions
# and compressions, import to identical rows in every derived table either way. A file with
# an option whose timestamps libtracecmd rewrites goes to libtracecmd. Cut and damaged
# copies of a file fail with a message (or import, marked as they are), never crash. An
# import fits in an address-space limit of 150 MB (ulimit -v).
set -u
. "$(dirname "$0")/lib.sh"
S=$SL_BUILD/schedlens
F=$SL_SRC/tests/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TOPO="--topology $F/guest16-import-topology.json"
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# rows of a run, without run_id, in a fixed order
rows() {
	local cols
	cols=$(sqlite3 -cmd ".timeout 5000" "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('$2') WHERE name != 'run_id'")
	sqlite3 -cmd ".timeout 5000" "$1" "SELECT $cols FROM $2 WHERE run_id = $3 ORDER BY $cols"
}

echo "1..16"
# the fixtures as recorded, and converted: v6 <-> v7, zstd <-> none, an instance in v6
cp "$F"/guest16-import-v6.dat "$F"/guest16-import-v7z.dat "$F"/guest16-import-inst.dat \
	"$F"/guest16-import-nowaking.dat "$F"/guest16-hackbench.dat "$T/"
trace-cmd convert -i "$F/guest16-import-v6.dat" -o "$T/v6-to-v7z.dat" --file-version 7 \
	--compression zstd > /dev/null 2>&1
trace-cmd convert -i "$F/guest16-import-v7z.dat" -o "$T/v7z-to-v7.dat" --file-version 7 \
	--compression none > /dev/null 2>&1
trace-cmd convert -i "$F/guest16-import-inst.dat" -o "$T/inst-to-v6.dat" --file-version 6 \
	--compression none > /dev/null 2>&1
ok "trace-cmd convert made the three copies" \
	'[ -s $T/v6-to-v7z.dat ] && [ -s $T/v7z-to-v7.dat ] && [ -s $T/inst-to-v6.dat ]'

for f in guest16-import-v6 guest16-import-v7z guest16-import-inst guest16-import-nowaking \
	guest16-hackbench v6-to-v7z v7z-to-v7 inst-to-v6; do
	topo=$TOPO
	[ $f = guest16-hackbench ] && topo="--topology $F/guest16-topology.json"
	db=$T/$f.db
	$S import "$T/$f.dat" $topo --json -o "$db" > "$T/own.json" 2> "$T/own.err"
	SL_DAT_READER=libtracecmd $S import "$T/$f.dat" $topo --json -o "$db" > "$T/tc.json" \
		2> "$T/tc.err"
	readers="$(json reader < "$T/own.json") $(json reader < "$T/tc.json")"
	diffs=0
	for t in wakeups preemptions sched_slices sched_facts windows tasks cpu_counts; do
		d=$(diff <(rows "$db" $t 1) <(rows "$db" $t 2) | grep -c '^[<>]')
		[ "$d" = 0 ] || echo "# $f: $t: $d rows differ"
		diffs=$((diffs + d))
	done
	same=yes
	for k in events_total units file_version instances kernel_release trace_clock cpus; do
		[ "$(json $k < "$T/own.json")" = "$(json $k < "$T/tc.json")" ] ||
			{ same=no; echo "# $f: $k differs"; }
	done
	echo "# $f: readers '$readers', $(json events_total < "$T/own.json") events," \
		"$(rows "$db" wakeups 1 | wc -l) wakeup rows"
	ok "$f: our reader and libtracecmd give identical rows and file facts" \
		'[ "$readers" = "schedlens libtracecmd" ] && [ $diffs = 0 ] && [ $same = yes ] && [ "$(rows $db wakeups 1 | wc -l)" -gt 500 ]'
done

# an OFFSET option (7) in place of the VERSION option (9): libtracecmd shifts timestamps by
# it, so the file goes to libtracecmd, and imports
python3 - "$F/guest16-import-v7z.dat" "$T/offset.dat" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
p = 10 + d.index(b'\0', 10) - 10 + 1 + 6        # version string, endian, long size, page size
p = d.index(b'\0', p) + 1; p = d.index(b'\0', p) + 1  # compression name and version
off = struct.unpack_from('<Q', d, p)[0] + 16       # the first options section's content
while True:
    oid, size = struct.unpack_from('<HI', d, off)
    if oid == 9:
        struct.pack_into('<H', d, off, 7)
        d[off + 6:off + 6 + size] = b'0'.ljust(size, b'\0')
        break
    if oid == 0:
        sys.exit("no version option")
    off += 6 + size
open(sys.argv[2], 'wb').write(d)
EOF
$S import "$T/offset.dat" $TOPO --json -o "$T/off.db" > "$T/off.json" 2> "$T/off.err"
ok "an offset option: read by libtracecmd, imported" \
	'[ "$(json reader < $T/off.json)" = libtracecmd ] && [ "$(json complete < $T/off.json)" = True ]'

# cut copies: inside the headers, the CPU table, the pages. cuts FILE LEN...: imports the
# first LEN bytes of FILE for each LEN, counting crashes and failures without a message
crash=0 quiet=0 cuts=0
cuts() {
	local file=$1 len rc
	shift
	for len in "$@"; do
		head -c $len "$file" > "$T/cut.dat"
		$S import "$T/cut.dat" $TOPO -o "$T/cut.db" > /dev/null 2> "$T/err"
		rc=$?
		cuts=$((cuts + 1))
		[ $rc -ge 128 ] && { crash=$((crash + 1)); echo "# $file cut at $len: signal $((rc - 128))"; }
		[ $rc = 1 ] && ! grep -q "schedlens: " "$T/err" && quiet=$((quiet + 1))
	done
	return 0
}
cuts "$F/guest16-import-v7z.dat" 0 10 17 100 1000 4822 5000 7000 8192 9000 20000 50000 95000
cuts "$F/guest16-import-v6.dat" 0 4096 28000 29000 100000 300000 487000
ok "$cuts cut copies: no crash, every failure says why" '[ $crash = 0 ] && [ $quiet = 0 ]'
head -c 300000 "$F/guest16-import-v6.dat" > "$T/cut.dat"
$S import "$T/cut.dat" $TOPO > /dev/null 2> "$T/err"
ok "a cut in the CPU data names the CPU and the offsets" \
	'grep -q "trace.dat truncated: CPU [0-9]* data of [0-9]* bytes at file offset [0-9]* runs past its end" $T/err'

# damaged pages: random bytes over the CPU data of the uncompressed v6 file
python3 - "$F/guest16-import-v6.dat" "$T" <<'EOF'
import random, sys
d = open(sys.argv[1], 'rb').read()
rng = random.Random(7)
for i in range(20):
    b = bytearray(d)
    for _ in range(40):
        p = rng.randrange(28672, len(b))
        b[p] = rng.randrange(256)
    open(f"{sys.argv[2]}/dmg{i}.dat", 'wb').write(b)
EOF
crash=0 quiet=0 loaded=0
for i in $(seq 0 19); do
	$S import "$T/dmg$i.dat" $TOPO -o "$T/dmg.db" > /dev/null 2> "$T/err"
	rc=$?
	[ $rc -ge 128 ] && { crash=$((crash + 1)); echo "# dmg$i: signal $((rc - 128))"; }
	[ $rc = 1 ] && ! grep -q "schedlens: " "$T/err" && quiet=$((quiet + 1))
	[ $rc = 0 ] && loaded=$((loaded + 1))
done
echo "# damaged pages: $loaded of 20 imported, the rest failed with a message"
ok "20 copies with damaged pages: no crash, every failure says why" '[ $crash = 0 ] && [ $quiet = 0 ]'

# the progress bar on a terminal (script(1) gives it one): a trace.dat of this host's
# hackbench (trace-cmd extract, as bench-import makes it) shows its percent growing. The
# import takes about 0.3 s here, redraws are 0.2 s apart: so it is stopped for 0.25 s after
# each 0.03 s it runs (the clock runs on meanwhile), and redraws fall in its middle whatever
# this machine's speed
"$SL_SRC/tests/bench/mk-import-traces" "$T" -g 8 -l 3000 > /dev/null 2>&1
rm -f "$T/w.txt" "$T/perf.data"
# (stdin from /dev/null: in the background, script(1) would stop for the terminal; the
# shell's `exit` keeps the import a grandchild: script(1) hung once its own child was stopped)
script -qc "$S import $T/w.dat -o $T/progress.db; exit \$?" "$T/tty.log" < /dev/null > /dev/null 2>&1 &
spid=$!
while kill -0 $spid 2> /dev/null; do
	ipid=$(pgrep -f "^$S import $T/w.dat -o $T/progress.db")
	if [ -z "$ipid" ]; then
		sleep 0.01
		continue
	fi
	sleep 0.03
	kill -STOP $ipid 2> /dev/null
	sleep 0.25
	kill -CONT $ipid 2> /dev/null
done
wait $spid
pcts=$(tr '\r' '\n' < "$T/tty.log" | grep -o '\] *[0-9]*% ' | tr -dc '0-9\n' | tr '\n' ' ')
echo "# progress percents drawn: $pcts"
ok "progress bar: the percent grows and ends at 100" \
	'python3 -c "import sys; p=[int(x) for x in sys.argv[1:]]; sys.exit(not (p == sorted(p) and p[-1] == 100 and any(0 < x < 100 for x in p)))" $pcts'
$S import "$T/w.dat" -o "$T/progress.db" > "$T/pipe.out" 2> "$T/pipe.err"
ok "progress bar: none when stderr is not a terminal" '! grep -q "%" $T/pipe.err'
# A limit on address space (ulimit -v: a container's, a shared host's): the import maps only
# what it uses. A preemption pool that reserved its cap's 384 MB up front failed here.
if [ -n "${SL_SANITIZE:-}" ]; then
	skip "an import under ulimit -v 150000" "the sanitizers reserve terabytes of shadow"
else
	(ulimit -v 150000 && exec $S import "$T/guest16-hackbench.dat" -o "$T/ulimit.db") \
		> "$T/ulimit.out" 2> "$T/ulimit.err"
	rc=$?
	[ $rc = 0 ] || sed 's/^/# /' "$T/ulimit.err"
	ok "an import under ulimit -v 150000 (150 MB of address space)" '[ $rc = 0 ]'
fi
