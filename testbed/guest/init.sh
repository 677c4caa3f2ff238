#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the testbed guest. The root is the host's file system, read-only
# over 9p under a tmpfs overlay. This script starts the ZBC target and the
# initiator, installs our zonefs.ko the way a distribution package would,
# runs the job the host left in /results/job.env, writes its exit status to
# the zonefs.ret virtio port and powers the guest off. Nothing here may
# leave the guest hanging: every path ends in tb_poweroff.

set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/guest/target.sh
. "$here/target.sh"
# shellcheck source=testbed/guest/initiator.sh
. "$here/initiator.sh"

# The power-off request is asynchronous and takes the 9p root away, so wait
# for it with bash builtins only: a read with a timeout on a FIFO made at
# boot, instead of /usr/bin/sleep.
tb_poweroff() {
	sync
	echo o >/proc/sysrq-trigger
	read -r -t 60 <>/run/tb-wait.fifo
	exit 1
}

tb_port() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "$1" ] && echo "/dev/${p##*/}" && return 0
	done
	return 1
}
# job.sh finds the TAP port the same way.
export -f tb_port

# The kernel log goes to the host as it is written, on the zonefs.kmsg
# port (results/<job>/kmsg.log), in `dmesg -r` form: the host checks it
# (tests/lib/kmsg.sh) even for a guest that is killed, and sees the
# WARNING lines the console's loglevel hides. tee keeps a copy in /run, and
# writes the port first.
tb_start_kmsg() {
	local port=
	for _ in $(seq 20); do
		port=$(tb_port zonefs.kmsg) && break
		sleep 0.1
	done
	[ -n "$port" ] || return 0
	dmesg -w -r 2>/dev/null | tee /run/kmsg.log >"$port" &
}

# Log the taint flags after the teardown, and give the stream time to
# pass that last line to the host before the power goes. The host fails a
# log without it (tests/lib/kmsg.sh): a line that has not passed in 30 s
# is reported here too.
tb_end_kmsg() {
	local line
	[ -e /run/kmsg.log ] || return 0
	line="zonefs-testbed: taint $(cat /proc/sys/kernel/tainted) at power-off"
	echo "$line" >/dev/kmsg
	for _ in $(seq 300); do
		grep -qF "$line" /run/kmsg.log 2>/dev/null && return 0
		sleep 0.1
	done
	echo "testbed guest: the taint line did not reach the kernel log stream in 30 s" >&2
	return 1
}

# Report the job's status on the ret port and end the guest. A teardown
# that failed fails a job that had passed.
tb_finish() {
	local rc=$1 port
	if ! tb_teardown && [ "$rc" = 0 ]; then
		rc=1
	fi
	tb_end_kmsg
	port=$(tb_port zonefs.ret) && echo "$rc" >"$port"
	tb_poweroff
}

tb_fail() {
	echo "testbed guest: $*" >&2
	echo "testbed guest: $*" >>/results/guest-error 2>/dev/null
	tb_finish 125
}

tb_mount_basics() {
	mount -t proc proc /proc
	grep -qw tb_debug /proc/cmdline && set -x
	mount -t sysfs sysfs /sys
	mount -t tmpfs -o mode=0755 tmpfs /run
	mkfifo /run/tb-wait.fifo
	# /tmp stays on the overlay's tmpfs: a tmpfs mounted on it would hide
	# a repository checked out under /tmp.
	chmod 1777 /tmp
	mkdir -p /dev/pts /dev/shm /run/lock
	# devtmpfs has no /dev/fd: bash's process substitution needs it.
	ln -sfn /proc/self/fd /dev/fd
	ln -sfn /proc/self/fd/0 /dev/stdin
	ln -sfn /proc/self/fd/1 /dev/stdout
	ln -sfn /proc/self/fd/2 /dev/stderr
	mount -t devpts devpts /dev/pts
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	# Enabling an event also hooks the scheduler's tracepoints, to record
	# task names; that patches __schedule() while the other CPU runs it,
	# and under QEMU's multi-threaded TCG (7.2) a CPU can then loop on a
	# stale int3 with interrupts off while the patching CPU waits on it:
	# a soft lockup of the whole guest. The tests read no task names.
	echo 0 >/sys/kernel/tracing/options/record-cmd 2>/dev/null
	hostname zonefs-testbed
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	echo 1 >/proc/sys/kernel/sysrq
}

# Undo the setup. zonefs must unload: a file system a test left mounted,
# or a reference the module failed to drop, fails the job (in the guest's
# error file, which the host prints). Returns 1 if it does not.
tb_teardown() {
	local rc=0 err
	[ -n "${TB_TORN:-}" ] && return 0
	TB_TORN=1
	cd /
	# A test hung in the kernel (tests/run): unmounting, unloading and
	# logging out would wait on the same device. The power goes off.
	if [ -e /results/hung ]; then
		echo "testbed guest: no teardown: $(cat /results/hung) hung" >&2
		return 1
	fi
	umount -R /mnt 2>/dev/null
	if [ -d /sys/module/zonefs ] && ! err=$(rmmod zonefs 2>&1); then
		rc=1
		err="rmmod zonefs failed at teardown: ${err:-no reason}; still mounted: $(awk '$3 == "zonefs" { printf "%s on %s ", $1, $2 }' /proc/mounts)"
		echo "testbed guest: $err" >&2
		echo "testbed guest: $err" >>/results/guest-error 2>/dev/null
	fi
	mountpoint -q /results && tb_save_target /results
	tb_logout
	tb_stop_target
	sync
	umount "$TB_ZBC_DIR" 2>/dev/null
	return "$rc"
}

# The guest's kernel has no modules in the host's /lib/modules (the stock
# one is unpacked in STOCK_CACHE by make deps, the debug one built by
# images/mkkernel.sh): vm.sh names their directory on the host with
# tb_kmods=, and they are linked in before anything is loaded.
tb_link_modules() {
	local arg src='' kdir cmdline
	read -r cmdline </proc/cmdline
	for arg in $cmdline; do
		case "$arg" in
		tb_kmods=*) src=${arg#tb_kmods=} ;;
		esac
	done
	[ -n "$src" ] || return 0
	kdir=/lib/modules/$(uname -r)
	[ -d "$src/kernel" ] || tb_fail "no modules for $(uname -r) in $src"
	mkdir -p "$kdir"
	ln -sfn "$src/kernel" "$kdir/kernel"
	cp "$src"/modules.* "$kdir/"
}

tb_mount_results() {
	mkdir -p /results
	# virtio_rng: the host's entropy, so that nothing waits for the
	# kernel's random pool to fill (the iSCSI login did, 2 s of each boot).
	modprobe -a virtio_console virtio_blk virtio_scsi ext4 virtio_rng 2>/dev/null
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /results ||
		tb_fail "cannot mount the results share"
}

# Our module goes where a distribution package would put it, so that
# modprobe, modinfo and the kernel's auto-load on mount -t zonefs all find
# ours before the stock fs/zonefs/zonefs.ko.
# The indexes come from the host (vm.sh), which ran depmod over the same
# tree with our module added.
tb_install_module() {
	local ko=${TB_KO:-$TB_TOP/module/zonefs.ko} kdir dst
	kdir=/lib/modules/$(uname -r)
	[ -f "$ko" ] || return 0
	[ -f "$TB_TOP/images/out/depmod-$(uname -r)/modules.dep.bin" ] ||
		tb_fail "no module indexes for our zonefs.ko in images/out"
	dst=$kdir/updates
	mkdir -p "$dst"
	cp "$ko" "$dst/zonefs.ko"
	# The KUnit suite, built beside it against a kernel with KUnit.
	[ ! -f "${ko%/*}/zonefs_test.ko" ] || cp "${ko%/*}/zonefs_test.ko" "$dst/"
	cp "$TB_TOP/images/out/depmod-$(uname -r)"/modules.* "$kdir/"
	[ "$(modinfo -n zonefs)" = "$dst/zonefs.ko" ] || tb_fail "modprobe would not pick our zonefs.ko"
}

# The user-network device of a two-guest testbed (make testbed serves,
# make boot TARGET=testbed logs in): QEMU's slirp always gives the guest
# 10.0.2.15; the guest has no other route.
tb_start_net() {
	local nic='' n
	modprobe virtio_net || return 1
	for _ in $(seq 50); do
		for n in /sys/class/net/*; do
			[ "${n##*/}" = lo ] || nic=${n##*/}
		done
		[ -n "$nic" ] && break
		sleep 0.1
	done
	[ -n "$nic" ] || return 1
	ip addr add 10.0.2.15/24 dev "$nic" && ip link set "$nic" up
}

# The target's half: the backing store, tcmu-runner, LIO and its LUNs.
tb_start_target() {
	local spec name lun zmb conv smb lba open mopts
	mkdir -p "$TB_ZBC_DIR"
	# The zbc handler writes data with pwrite() and then moves the write
	# pointer in its mmap()ed zone table; the page cache writes the two
	# back independently. With -o sync the data is on the host before the
	# handler moves the write pointer, so a power cut can only lose the
	# write pointer's last moves, never the data under it.
	mopts=noatime
	[ "${TB_DURABLE:-0}" = 1 ] && mopts=noatime,sync
	mount -o "$mopts" /dev/vda "$TB_ZBC_DIR" || tb_fail "cannot mount the backing store disk"
	tb_start_tcmu || tb_fail "tcmu-runner did not start"
	tb_start_port || tb_fail "cannot create the $TB_TRANSPORT target port"
	for spec in $TB_DISKS; do
		IFS=: read -r name lun zmb conv smb lba open <<<"$spec"
		# make check's disks start each run in the state a power cycle
		# leaves, whatever a killed fault-injection test left behind.
		if [ "$TB_MODE" = check ] && [ -f "$TB_ZBC_DIR/$name.zbc" ]; then
			"$here/../../tests/helpers/bin/zbc_zone" "$TB_ZBC_DIR/$name.zbc" settle ||
				tb_fail "cannot settle the zones of $name"
		fi
		tb_add_disk "$name" "$lun" "$zmb" "$conv" "$smb" "$lba" "$open" ||
			tb_fail "cannot create backstore $name ($spec); see tcmu/ in the job's results"
	done
	tb_enable_port || tb_fail "cannot enable the target port"
}

# Write the device map the tests and the job read.
tb_start_disks() {
	local spec name lun dev var
	: >/run/zonefs-testbed.env
	if [ "$TB_DISK" = passthrough ]; then
		modprobe virtio_scsi
		for _ in $(seq 100); do
			dev=$(find /sys/bus/scsi/devices/*/block -mindepth 1 -maxdepth 1 2>/dev/null | head -n 1)
			[ -n "$dev" ] && break
			sleep 0.1
		done
		[ -n "$dev" ] || tb_fail "the passed-through disk did not appear"
		echo "ZBC_DEV=/dev/${dev##*/}" >>/run/zonefs-testbed.env
		return 0
	fi
	case "${TB_ROLE:-all}" in
	all) tb_start_target ;;
	target)
		tb_start_net || tb_fail "no network device for the target's portal"
		tb_start_target
		return 0
		;;
	initiator) tb_start_net || tb_fail "no network device to reach the target" ;;
	esac
	tb_login || tb_fail "iSCSI login to $TB_PORTAL failed"
	if [ -d /sys/bus/pci/drivers ] && grep -qx 0x010802 /sys/bus/pci/devices/*/class 2>/dev/null; then
		modprobe nvme || tb_fail "cannot load the nvme driver"
		# Two namespaces; the second has 512 B blocks and a zone
		# capacity of 12 MiB + 512 B.
		for spec in nvme0n1:ZNS_DEV nvme0n2:ZNS_DEV_512; do
			for _ in $(seq 100); do
				[ -b "/dev/${spec%%:*}" ] && break
				sleep 0.1
			done
			[ "$(cat "/sys/block/${spec%%:*}/queue/zoned" 2>/dev/null)" = host-managed ] ||
				tb_fail "NVMe namespace ${spec%%:*} is not a zoned device"
			echo "${spec#*:}=/dev/${spec%%:*}" >>/run/zonefs-testbed.env
		done
	fi
	for spec in $TB_DISKS; do
		IFS=: read -r name lun _ <<<"$spec"
		dev=$(tb_lun_dev "$lun") || tb_fail "LUN $lun ($name) did not appear"
		[ "$(cat "/sys/block/${dev#/dev/}/queue/zoned")" = host-managed ] ||
			tb_fail "$dev is not host-managed"
		var=$(echo "$name" | tr '[:lower:]-' '[:upper:]_')
		echo "$var=$dev" >>/run/zonefs-testbed.env
		[ "${TB_ROLE:-all}" = initiator ] ||
			echo "${var}_FILE=$TB_ZBC_DIR/$name.zbc" >>/run/zonefs-testbed.env
	done
}

tb_main() {
	tb_mount_basics
	tb_link_modules
	tb_mount_results
	tb_start_kmsg
	# shellcheck source=/dev/null
	set -a
	. /results/job.env || tb_fail "no job in /results/job.env"
	set +a
	[ "${TB_DEBUG:-0}" = 1 ] && set -x
	if [ -n "${TB_SHARE:-}" ]; then
		mkdir -p /share
		mount -t 9p -o trans=virtio,version=9p2000.L,ro share /share ||
			tb_fail "cannot mount SHARE"
	fi
	echo "testbed guest: up in ${SECONDS}s, kernel $(uname -r), transport $TB_TRANSPORT"
	tb_install_module
	tb_start_disks
	echo "testbed guest: disks ready in ${SECONDS}s: $(tr '\n' ' ' </run/zonefs-testbed.env)"
	cd "$TB_TOP" || tb_fail "no $TB_TOP in the guest"
	"$here/job.sh" "$TB_MODE"
	tb_finish $?
}

tb_main
