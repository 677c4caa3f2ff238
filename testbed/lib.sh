# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side helpers shared by the testbed scripts.

# shellcheck source=testbed/config
. "$(dirname "${BASH_SOURCE[0]}")/config"
# shellcheck source=tests/lib/proc.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/lib/proc.sh"

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

# tb_lockup_watch PID DIR [GRACE [POLL]]: stop a guest (PID leads its
# process group) whose kernel reports a soft lockup or an RCU stall on the
# console (DIR/console.log) and whose job then writes nothing for GRACE
# seconds (120): no TAP line (DIR/tap) and no kernel log line through the
# guest's own reader (DIR/kmsg.log). A guest that recovers passes the
# report itself on that stream; one that does not would run to VM_TIMEOUT.
# The report's first line goes to DIR/lockup. Looks every POLL seconds (5).
tb_lockup_watch() {
	local pid=$1 dir=$2 grace=${3:-120} poll=${4:-5} last='' sig off=0 seen=0 line=''
	while sleep "$poll" && kill -0 "$pid" 2>/dev/null; do
		sig=$(cat "$dir/tap" "$dir/kmsg.log" 2>/dev/null | wc -c)
		if [ "$sig" != "$last" ]; then
			# Progress: only a report written after it counts.
			last=$sig seen=0
			off=$(stat -c %s "$dir/console.log" 2>/dev/null || echo 0)
		elif [ "$seen" = 0 ]; then
			line=$(tail -c +$((off + 1)) "$dir/console.log" 2>/dev/null | tr -d '\r' |
				grep -m 1 -E 'soft lockup - CPU#|rcu: INFO: rcu_[a-z]+ (self-)?detected stall') &&
				seen=$SECONDS
		elif [ $((SECONDS - seen)) -ge "$grace" ]; then
			echo "$line" >"$dir/lockup"
			stop_group "$pid" 5
			return 0
		fi
	done
	return 0
}

# tb_boot_watch PID DIR LIMIT: stop a guest (PID leads its process group)
# whose kernel has not reached the testbed's init (its line "testbed
# guest: up" on DIR/console.log) LIMIT seconds after QEMU started: under
# TCG a boot can hang with both vCPUs spinning and nothing on the
# console. The console's last line goes to DIR/noboot, for vm.sh to boot
# the guest again.
tb_boot_watch() {
	local pid=$1 dir=$2 limit=$3 t0=$SECONDS
	while sleep 1 && kill -0 "$pid" 2>/dev/null; do
		grep -q 'testbed guest: up' "$dir/console.log" 2>/dev/null && return 0
		if [ $((SECONDS - t0)) -ge "$limit" ]; then
			tr -d '\r' <"$dir/console.log" 2>/dev/null | sed 's/\x1b[^a-zA-Z]*[a-zA-Z]//g' |
				awk 'NF { l = $0 } END { print substr(l, 1, 160) }' >"$dir/noboot"
			stop_group "$pid" 5
			return 0
		fi
	done
	return 0
}
