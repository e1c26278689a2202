# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers of the kernel lab (sourced by tests/lab/*): where the cache lives, how to
# log, and how to find the Debian mirror this machine already uses. The lab keeps
# downloaded kernels and built images in a cache outside the work tree so a fresh clone
# reuses them; SL_LAB_CACHE overrides where.

SL_LAB_CACHE=${SL_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedlens-lab}
SL_LAB_DIR=${SL_LAB_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
SL_SRC=${SL_SRC:-$(cd "$SL_LAB_DIR/../.." && pwd)}
SL_BUILD=${SL_BUILD:-$SL_SRC/build}

lab_log() { printf 'lab: %s\n' "$*" >&2; }
lab_die() {
	printf 'lab: error: %s\n' "$*" >&2
	exit 1
}

# The URI of the Debian archive configured on this machine, as apt itself reports it, so the
# repo never names a host and the same code works behind any mirror or proxy.
lab_mirror_uri() {
	local uri
	uri=$(apt-cache policy 2>/dev/null |
		awk '$3 ~ /^bookworm\/main$/ || $3 ~ /^trixie\/main$/ { print $2; exit }')
	[ -n "$uri" ] || lab_die "no Debian mirror in the apt sources (run 'apt-get update' first)"
	printf '%s\n' "$uri"
}
