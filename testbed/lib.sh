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

# The guest kernel version: the newest installed Debian 6.1 amd64 kernel
# that also has its headers. Never the build host's uname -r.
tb_kver() {
	local v
	if [ -n "$KVER" ]; then
		echo "$KVER"
		return 0
	fi
	for v in $(find /boot -maxdepth 1 -name 'vmlinuz-6.1.0-*-amd64' | sed 's|.*/vmlinuz-||' | sort -V -r); do
		if [ -d "/lib/modules/$v/kernel" ] && [ -d "/usr/src/linux-headers-$v" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}
