# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers of the kernel lab (sourced by tests/lab/*): where the cache lives, how to
# log, and how to find the Debian mirror this machine already uses. The lab keeps
# downloaded kernels and built images in a cache outside the work tree so a fresh clone
# reuses them; SL_LAB_CACHE overrides where.

# A failure inside $(...) must stop the script like any other (bash leaves it off there).
shopt -s inherit_errexit

SL_LAB_CACHE=${SL_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedlens-lab}
SL_LAB_DIR=${SL_LAB_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
SL_SRC=${SL_SRC:-$(cd "$SL_LAB_DIR/../.." && pwd)}
SL_BUILD=${SL_BUILD:-$SL_SRC/build}

# Serialises work on the shared cache (apt lists, downloads, image builds) between lab
# processes of several users or CI runs on one machine; released when the process exits.
lab_lock_cache() {
	mkdir -p "$SL_LAB_CACHE"
	exec 9> "$SL_LAB_CACHE/.lock"
	flock 9
}

lab_log() { printf 'lab: %s\n' "$*" >&2; }
lab_die() {
	printf 'lab: error: %s\n' "$*" >&2
	exit 1
}

# The URI of the Debian archive configured on this machine, as apt itself reports it, so the
# repo never names a host and the same code works behind any mirror or proxy. Before the
# first 'apt-get update' apt reports nothing: then read the sources files themselves.
lab_mirror_uri() {
	local uri
	uri=$(apt-cache policy 2>/dev/null |
		awk '$3 ~ /^(bookworm|trixie)\/main$/ { print $2; exit }')
	[ -n "$uri" ] || uri=$(sources_uri)
	[ -n "$uri" ] || lab_die "no Debian bookworm or trixie archive in the apt sources"
	printf '%s\n' "$uri"
}

# deb822 stanzas (URIs:/Suites:) and one-line "deb URI SUITE ..." entries.
sources_uri() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2> /dev/null |
		awk '/^URIs:/ { u = $2 } /^Suites:/ && / (bookworm|trixie)( |$)/ { print u; exit }
		     /^deb / && $0 ~ / (bookworm|trixie) / { for (i = 2; i <= NF; i++)
		         if ($i ~ /:\/\//) { print $i; exit } }'
}
