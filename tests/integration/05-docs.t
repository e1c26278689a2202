#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The documentation stands on its own and cannot silently go stale:
#  - man/schedlens.1 and man/schedlensd.8 render with groff -ww (every warning on) and
#    `man -l` without a single warning;
#  - every command `schedlens --help` lists has a section in schedlens.1, and every long
#    option of each command's --help appears there;
#  - every setting `schedlensd --print-config` prints, and every flag of its --help, is an
#    entry (.TP tag) of schedlensd.8;
#  - `make install-man` installs both pages under DESTDIR/mandir;
#  - no tracked file points outside the repository (the team's shared folder, DESIGN.md,
#    NOTES.md, STYLE.md), and relative links of the Markdown docs resolve.
set -u
. "$(dirname "$0")/lib.sh"
B=${SL_BUILD:?}
SRC=${SL_SRC:?}

need groff man make
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M1=$SRC/man/schedlens.1
M8=$SRC/man/schedlensd.8

# --- rendering
for page in "$M1" "$M8"; do
	name=$(basename "$page")
	groff -man -Tutf8 -ww -z "$page" >"$tmp/groff.out" 2>&1
	rc=$?
	ok "$name: groff -man -ww renders with no warning" '[ $rc -eq 0 ] && [ ! -s "$tmp/groff.out" ]' ||
		sed 's/^/# /' "$tmp/groff.out"
	MANWIDTH=80 man --warnings -l "$page" >"$tmp/man.out" 2>"$tmp/man.err"
	rc=$?
	ok "$name: man -l renders with no warning" \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/man.err" ] && [ -s "$tmp/man.out" ]' ||
		sed 's/^/# /' "$tmp/man.err"
done

# The roff source as plain text: \- is a hyphen, font escapes go (rendered text would be
# hyphenated at line ends, so options are looked for in the source).
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"; }
# The first word of every .TP entry's tag line (.B/.BI/.BR NAME ...), one per line.
tags() {
	plain "$1" | awk 'prev == ".TP" && $1 ~ /^\.(B|BI|BR|I)$/ { print $2 } { prev = $1 }' |
		sed 's/^"//; s/"$//; s/,$//' | sort -u
}
plain "$M1" >"$tmp/m1.txt"
tags "$M8" >"$tmp/m8.tags"

# --- schedlens(1): commands and their options
"$B/schedlens" --help >"$tmp/help.txt" 2>&1
ok "schedlens --help exits 0" '[ $? -eq 0 ]'
awk '/^commands:/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1 }' "$tmp/help.txt" \
	>"$tmp/commands"
ok "schedlens --help lists commands" '[ $(wc -l <"$tmp/commands") -ge 8 ]'
missing=""
for c in $(cat "$tmp/commands"); do
	grep -qx "\.SS $c" "$tmp/m1.txt" || missing="$missing $c"
done
ok "every command of schedlens --help has a section in schedlens.1${missing:+ (missing:$missing)}" \
	'[ -z "$missing" ]'
missing=""
for c in $(cat "$tmp/commands"); do
	"$B/schedlens" "$c" --help >"$tmp/c.txt" 2>&1
	for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/c.txt" | sort -u); do
		grep -qF -- "$o" "$tmp/m1.txt" || missing="$missing $c:$o"
	done
done
ok "every long option of each command's --help is in schedlens.1${missing:+ (missing:$missing)}" \
	'[ -z "$missing" ]'
for s in "EXIT STATUS" "FILES" "EXAMPLES" "ENVIRONMENT"; do
	ok "schedlens.1 has a $s section" 'grep -qx "\.SH \"*$s\"*" "$tmp/m1.txt"'
done

# --- schedlensd(8): settings, flags, signals, endpoints
"$B/schedlensd" --print-config >"$tmp/config.txt" 2>&1
ok "schedlensd --print-config exits 0" '[ $? -eq 0 ]'
awk '!/^#/ && NF { print $1 }' "$tmp/config.txt" >"$tmp/settings"
ok "schedlensd --print-config prints settings" '[ $(wc -l <"$tmp/settings") -ge 20 ]'
missing=""
for s in $(cat "$tmp/settings"); do
	grep -qx -- "$s" "$tmp/m8.tags" || missing="$missing $s"
done
ok "every setting of --print-config is an entry of schedlensd.8${missing:+ (missing:$missing)}" \
	'[ -z "$missing" ]'
"$B/schedlensd" --help >"$tmp/dhelp.txt" 2>&1
missing=""
# the usage lines only: the sentence after them names a placeholder (--name VALUE)
for o in $(awk '/^usage:/ || (u && /^ /) { u = 1; print; next } { u = 0 }' "$tmp/dhelp.txt" |
	grep -o -- '--[a-z][a-z-]*' | sort -u); do
	# a flag is a setting's entry (--db: "db") or an option's own (--print-config)
	grep -qx -- "${o#--}" "$tmp/m8.tags" || grep -qx -- "$o" "$tmp/m8.tags" ||
		missing="$missing $o"
done
ok "every flag of schedlensd --help is an entry of schedlensd.8${missing:+ (missing:$missing)}" \
	'[ -z "$missing" ]'
plain "$M8" >"$tmp/m8.txt"
for sig in SIGTERM SIGINT SIGHUP; do
	ok "schedlensd.8 describes $sig" 'grep -q "$sig" "$tmp/m8.txt"'
done
for ep in /api/v1/status /api/v1/runs /api/v1/compare /api/v1/findings /api/v1/topology \
	/metrics; do
	ok "schedlensd.8 lists $ep" 'grep -qF -- "$ep" "$tmp/m8.txt"'
done

# --- make install-man
make -s -C "$SRC" install-man DESTDIR="$tmp/dest" prefix=/usr >"$tmp/make.out" 2>&1
ok "make install-man exits 0" '[ $? -eq 0 ]' || sed 's/^/# /' "$tmp/make.out"
ok "schedlens.1 installed in mandir/man1" 'cmp -s "$M1" "$tmp/dest/usr/share/man/man1/schedlens.1"'
ok "schedlensd.8 installed in mandir/man8" \
	'cmp -s "$M8" "$tmp/dest/usr/share/man/man8/schedlensd.8"'
ok "make install depends on install-man" \
	'grep -Eq "^install:.*install-man" "$SRC/Makefile"'

# --- no pointer out of the repository
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$SRC" ls-files -z >"$tmp/files"
else
	(cd "$SRC" && find . -path ./build -prune -o -path './build-*' -prune -o -path ./.git \
		-prune -o -path ./tests/browser/node_modules -prune -o -type f -print0) >"$tmp/files"
fi
self=tests/integration/05-docs.t
# the patterns are built so that this file does not match itself
pat='\.\./shared|shared folder|/work/shared|DESIGN[.]md|NOTES[.]md|STYLE[.]md'
(cd "$SRC" && xargs -0 grep -IEn "$pat" -- <"$tmp/files" 2>/dev/null) |
	grep -v "^\(\./\)\?$self:" >"$tmp/pointers"
ok "no tracked file points to the shared folder, DESIGN.md, NOTES.md or STYLE.md" \
	'[ ! -s "$tmp/pointers" ]' || sed 's/^/# /' "$tmp/pointers"

# --- the docs exist and their relative links resolve
for f in docs/architecture.md docs/metrics.md docs/statistics.md schema/README.md; do
	ok "$f exists" '[ -s "$SRC/$f" ]'
done
broken=""
for f in "$SRC"/README.md "$SRC"/docs/*.md; do
	d=$(dirname "$f")
	for l in $(grep -o '](\([^)#]*\)' "$f" | sed 's/^](//' | grep -v '^[a-z]*:'); do
		[ -e "$d/$l" ] || broken="$broken ${f#"$SRC"/}:$l"
	done
done
ok "relative links of README.md and docs/*.md resolve${broken:+ (broken:$broken)}" \
	'[ -z "$broken" ]'
for f in docs/architecture.md docs/metrics.md docs/statistics.md man/schedlens.1 \
	man/schedlensd.8; do
	ok "README.md points to $f" 'grep -qF "$f" "$SRC/README.md"'
done

done_testing
