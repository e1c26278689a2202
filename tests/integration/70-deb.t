#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package: `make deb` (into a scratch O=, with DEB_BUILD_OPTIONS=nocheck: the
# unit tests run in their own step of `make check`) builds schedlens_*.deb; the package
# holds both binaries, both man pages (the sources, compressed), the systemd unit with its
# paths filled in and its hardening, and the default config as a conffile; lintian reports
# no error; unpacked into a fresh root (dpkg-deb -x: no maintainer script touches this
# host), `schedlens --help` and `schedlensd --print-config` run from there (they link to
# this host's libraries), and the shipped config parses to the built-in defaults.
# SL_DEB=FILE tests that package instead of building one. About 100 s here, most of it the
# build; skipped in the sanitizer pass (SL_SANITIZE: the package never has sanitizers).
set -u
. "$(dirname "$0")/lib.sh"
SRC=${SL_SRC:?}

if [ -n "${SL_SANITIZE:-}" ]; then
	skip_all "the package is built without sanitizers: tested in the plain pass"
fi
need dpkg-buildpackage dpkg-deb dh make
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- build
if [ -n "${SL_DEB:-}" ]; then
	deb=$SL_DEB
	skip "make deb" "testing SL_DEB=$deb"
else
	start=$(date +%s)
	DEB_BUILD_OPTIONS=nocheck make -s -C "$SRC" deb O="$tmp/o" >"$tmp/make.out" 2>&1
	rc=$?
	ok "make deb exits 0 ($(($(date +%s) - start)) s)" '[ $rc -eq 0 ]' ||
		{ sed 's/^/# /' "$tmp/make.out"; done_testing; }
	deb=$(ls "$tmp"/o/deb/schedlens_*.deb 2>/dev/null | head -1)
fi
ok "a schedlens_*.deb exists" '[ -n "$deb" ] && [ -s "$deb" ]' || done_testing

# --- contents
dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/schedlens /usr/bin/schedlensd /usr/share/man/man1/schedlens.1.gz \
	/usr/share/man/man8/schedlensd.8.gz /lib/systemd/system/schedlensd.service \
	/etc/schedlens/schedlensd.conf /usr/share/doc/schedlens/copyright \
	/usr/share/schedlens/prometheus/schedlens-rules.yml /usr/lib/schedlens/lab/run \
	/usr/lib/schedlens/lab/fetch-kernel /usr/lib/schedlens/lab/mkimage \
	/usr/lib/schedlens/lab/guest-init /usr/lib/schedlens/lab/lib.sh \
	/usr/lib/schedlens/schedlens-sql.so; do
	ok "the package holds $f" 'grep -qx -- "$f" "$tmp/files"'
done
dpkg-deb -e "$deb" "$tmp/control"
ok "the default config is a conffile" \
	'grep -qx /etc/schedlens/schedlensd.conf "$tmp/control/conffiles"'
ok "Depends lists the tracing libraries" \
	'dpkg-deb -f "$deb" Depends | grep -q libtracefs1'
# loaded with dlopen by `diff --prometheus` only (lib/compare/curl-lazy.h), so not in shlibs
ok "Recommends libcurl" 'dpkg-deb -f "$deb" Recommends | grep -q libcurl4'

# --- a fresh root
root=$tmp/root
mkdir -p "$root"
dpkg-deb -x "$deb" "$root"
ok "dpkg-deb -x unpacks the package into a fresh root" '[ $? -eq 0 ]'
"$root/usr/bin/schedlens" --help >"$tmp/help" 2>&1
ok "schedlens --help from the fresh root exits 0" '[ $? -eq 0 ]' || sed 's/^/# /' "$tmp/help"
ok "schedlens --help lists the commands" 'grep -q "^commands:" "$tmp/help"'
# the sqlite3 shell reads the per-event tables through the packaged extension
"$root/usr/bin/schedlens" import "$SL_SRC/tests/fixtures/guest16-import-v7z.dat" -o "$tmp/x.db" \
	>/dev/null 2>&1
n=$(command sqlite3 -cmd ".load $root/usr/lib/schedlens/schedlens-sql" "$tmp/x.db" \
	"SELECT count(*) FROM wakeups" 2>&1)
ok "sqlite3 with the packaged schedlens-sql extension reads wakeups ($n rows)" \
	'[ "${n:-0}" -gt 0 ] 2>/dev/null'
"$root/usr/bin/schedlensd" --print-config --config "$root/etc/schedlens/schedlensd.conf" \
	>"$tmp/config" 2>&1
ok "schedlensd --print-config with the shipped config exits 0" '[ $? -eq 0 ]' ||
	sed 's/^/# /' "$tmp/config"
"$root/usr/bin/schedlensd" --print-config >"$tmp/defaults" 2>&1
ok "the shipped config leaves every setting at its default" 'cmp -s "$tmp/config" "$tmp/defaults"'
ok "the shipped config names every setting" \
	'[ "$(grep -c "^#[a-z]" "$root/etc/schedlens/schedlensd.conf")" -eq \
	   "$(grep -c "^[a-z]" "$tmp/defaults")" ]'
# schedlens lab looks in /usr/lib/schedlens/lab, which is the fresh root's here
SL_LAB_DIR=$root/usr/lib/schedlens/lab "$root/usr/bin/schedlens" lab run --help >"$tmp/lab" 2>&1
ok "schedlens lab run --help runs the packaged lab script" \
	'[ $? -eq 0 ] && grep -q -- "--topology" "$tmp/lab"' || sed 's/^/# /' "$tmp/lab"
ok "schedlens looks for the lab in /usr/lib/schedlens/lab" \
	'grep -qa "/usr/lib/schedlens/lab" "$root/usr/bin/schedlens"'
for p in man1/schedlens.1 man8/schedlensd.8; do
	ok "$p.gz is man/${p#*/}" \
		'gzip -dc "$root/usr/share/man/$p.gz" | cmp -s - "$SRC/man/${p#*/}"'
done

# --- the unit
U=$root/lib/systemd/system/schedlensd.service
ok "the unit has no @placeholder@ left" '! grep -q "@[a-z]*@" "$U"'
ok "the unit starts /usr/bin/schedlensd with /etc/schedlens/schedlensd.conf" \
	'grep -qx "ExecStart=/usr/bin/schedlensd --config /etc/schedlens/schedlensd.conf" "$U"'
for s in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
	StateDirectory=schedlens CapabilityBoundingSet=; do
	ok "the unit sets $s" 'grep -qx -- "$s" "$U"'
done
if command -v systemd-analyze >/dev/null; then
	systemd-analyze security --offline=true --root="$root" schedlensd.service \
		>"$tmp/security" 2>&1
	level=$(sed -n 's/.*Overall exposure level for schedlensd.service: \([0-9.]*\).*/\1/p' \
		"$tmp/security")
	ok "systemd-analyze security: exposure ${level:-?} <= 4.0" \
		'[ -n "$level" ] && awk -v l="$level" "BEGIN { exit !(l <= 4.0) }"' ||
		tail -5 "$tmp/security" | sed 's/^/# /'
else
	skip "systemd-analyze security" "systemd-analyze missing"
fi

# --- lintian
if command -v lintian >/dev/null; then
	lintian "$deb" >"$tmp/lintian" 2>&1
	ok "lintian reports no error" '! grep -q "^E:" "$tmp/lintian"' ||
		sed 's/^/# /' "$tmp/lintian"
	grep '^[WI]:' "$tmp/lintian" | sed 's/^/# lintian: /'
else
	skip "lintian" "lintian missing (make deps)"
fi

done_testing
