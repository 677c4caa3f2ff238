# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of the initiator: open-iscsi logs in to the target on
# 127.0.0.1 (or tcm_loop's nexus appears by itself), then each LUN is mapped
# to its /dev/sdX. Sourced by guest/init.sh, after target.sh.

tb_login() {
	# No udev here: load the disk drivers ourselves.
	modprobe -a sd_mod sg || return 1
	[ "$TB_TRANSPORT" = iscsi ] || return 0
	# iSCSI's data digests and login need crc32c; iscsiadm needs /run/lock.
	modprobe -a crc32c_generic crc32c_intel iscsi_tcp 2>/dev/null
	modprobe iscsi_tcp || return 1
	mkdir -p /run/lock /etc/iscsi
	echo "InitiatorName=$TB_INITIATOR" >/etc/iscsi/initiatorname.iscsi
	iscsid || return 1
	if [ "${TB_ROLE:-all}" = initiator ]; then
		# The target guest's sendtargets answer names its own address,
		# which this guest reaches only through the forwarded one: the
		# node record is made by hand.
		iscsiadm -m node -o new -T "$TB_IQN" -p "$TB_PORTAL" >/dev/null || return 1
	else
		iscsiadm -m discovery -t sendtargets -p "$TB_PORTAL" >/dev/null || return 1
	fi
	iscsiadm -m node -T "$TB_IQN" -p "$TB_PORTAL" --login >/dev/null || return 1
}

tb_logout() {
	local d
	[ "$TB_TRANSPORT" = iscsi ] || return 0
	# Delete the session's SCSI devices first, from this process: then the
	# logout finds no SCSI target left to remove. Removing it from the
	# session's unbind work (a WQ_MEM_RECLAIM workqueue that then flushes
	# the runtime-PM work) makes 6.1 print a WARNING (check_flush_dependency).
	for d in /sys/class/iscsi_session/session*/device/target*/[0-9]*:*:*:*; do
		[ -w "$d/delete" ] && echo 1 >"$d/delete"
	done
	iscsiadm -m node -T "$TB_IQN" -p "$TB_PORTAL" --logout >/dev/null 2>&1
	pkill -x iscsid 2>/dev/null
	return 0
}

# tb_lun_dev LUN: print /dev/sdX of our target's LUN, waiting for it.
tb_lun_dev() {
	local lun=$1 d b
	for _ in $(seq 100); do
		for d in /sys/class/scsi_device/*:*:*:"$lun"; do
			[ -d "$d/device/block" ] || continue
			grep -q TCMU "$d/device/model" 2>/dev/null || continue
			for b in "$d"/device/block/*; do
				[ -b "/dev/${b##*/}" ] && echo "/dev/${b##*/}" && return 0
			done
		done
		sleep 0.1
	done
	return 1
}
