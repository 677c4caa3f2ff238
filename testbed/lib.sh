# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side helpers shared by the testbed scripts.

# shellcheck source=testbed/config
. "$(dirname "${BASH_SOURCE[0]}")/config"

tb_log() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

tb_die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# Run a step, then say how long it took.
tb_step() {
	local what=$1 t0 rc
	shift
	t0=$(date +%s)
	tb_log "$what ..."
	"$@"
	rc=$?
	local verdict="done"
	[ "$rc" -eq 0 ] || verdict="FAILED (rc $rc)"
	tb_log "$what: $verdict in $(($(date +%s) - t0)) s"
	return "$rc"
}

# The guest kernel version: the newest Debian 6.1 amd64 kernel unpacked in
# STOCK_CACHE (make deps) that also has its headers installed. Never the
# build host's uname -r, never a kernel installed in the host's /boot.
tb_kver() {
	local v
	if [ -n "$KVER" ]; then
		echo "$KVER"
		return 0
	fi
	for v in $(find "$STOCK_CACHE" -mindepth 1 -maxdepth 1 -name '6.1.0-*-amd64' -printf '%f\n' 2>/dev/null | sort -V -r); do
		if [ -f "$STOCK_CACHE/$v/ok" ] && [ -d "/usr/src/linux-headers-$v" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

# tb_stock_dir KVER: the unpacked package of the stock kernel KVER.
tb_stock_dir() {
	echo "$STOCK_CACHE/$1"
}
