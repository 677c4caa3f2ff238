#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's job, once the disks are up: job.sh testbed|boot|check|bench.
# Runs in the repository (read-only) with the device map from
# /run/zonefs-testbed.env. Its exit status is the run's verdict.
set -uo pipefail

# shellcheck source=/dev/null
set -a
. /run/zonefs-testbed.env
set +a
MKZONEFS=$TB_TOP/tools/mkzonefs
# shellcheck source=testbed/guest/target.sh
. "$TB_TOP/testbed/guest/target.sh"
# shellcheck source=testbed/disk_policy.sh
. "$TB_TOP/testbed/disk_policy.sh"

# Say what the disk is, from sysfs and the device's own zone report.
tb_describe() {
	local dev=$1 b=${1#/dev/} transport=other
	case "$(readlink -f "/sys/block/$b/device")" in
	*/session*) transport=iscsi ;;
	*/virtio*) transport=virtio-scsi ;;
	*) [ "$TB_TRANSPORT" = loop ] && transport=tcm_loop ;;
	esac
	printf '%s: %s, zoned %s, %s zones of %s sectors, lba %s B, transport %s\n' \
		"$dev" "$(xargs <"/sys/block/$b/device/model")" \
		"$(cat "/sys/block/$b/queue/zoned")" "$(cat "/sys/block/$b/queue/nr_zones")" \
		"$(cat "/sys/block/$b/queue/chunk_sectors")" \
		"$(cat "/sys/block/$b/queue/logical_block_size")" "$transport"
	blkzone report "$dev" | awk '{ t[$0 ~ /CONVENTIONAL/ ? "conventional" : "sequential"]++ }
		END { for (k in t) printf "  %s zones: %d\n", k, t[k] }'
}

tb_has_zonefs() {
	[ "$(od -An -tx4 -N4 "$1" | tr -d ' ')" = 5a4f4653 ]
}

# make testbed: serve the LUNs until the host asks to stop (make
# testbed-stop leaves /results/stop), without logging in here.
mode_testbed() {
	local spec name lun zmb conv smb lba open
	echo "target $TB_IQN on $TB_PORTAL, initiator $TB_INITIATOR:"
	for spec in $TB_DISKS; do
		IFS=: read -r name lun zmb conv smb lba open <<<"$spec"
		echo "  LUN $lun: $name, $((smb / zmb)) zones of $zmb MiB ($conv conventional), $lba B blocks, $open open"
	done
	: >/results/ready
	until [ -e /results/stop ]; do
		read -r -t 1 <>/run/tb-wait.fifo
	done
	echo "stop requested"
}

mode_boot() {
	tb_describe "$ZBC_DEV" || return 1
	tb_boot_format "$ZBC_DEV" || return 1
	if ! tb_has_zonefs "$ZBC_DEV"; then
		: # a passed-through drive left as it is: tb_boot_format said why
	elif modprobe zonefs; then
		echo "zonefs: $(modinfo -n zonefs)"
		mount -t zonefs "$ZBC_DEV" /mnt || return 1
		echo "mounted $ZBC_DEV on /mnt:"
		ls -l /mnt
		for d in /mnt/cnv /mnt/seq; do
			[ -d "$d" ] || continue
			echo "$d: $(find "$d" -mindepth 1 | wc -l) files"
			# shellcheck disable=SC2012 # a listing for people, not parsed
			ls -l "$d" | head -n 6
		done
	else
		echo "zonefs.ko is not built yet: the disk is ready at $ZBC_DEV"
	fi
	if [ -n "${TB_CMD:-}" ]; then
		bash -c "$TB_CMD"
		return $?
	fi
	echo "interactive shell; 'exit' powers the guest off"
	# No rc files: the host's ~/.bashrc may run slow tools (pyenv) under TCG.
	cd /mnt || return 1
	PS1='zonefs-testbed:\w# ' setsid -w -c bash --norc --noprofile -i <>/dev/ttyS0 >&0 2>&1
	return 0
}

mode_check() {
	local port
	# tb_port comes from init.sh, which exports it.
	port=$(tb_port zonefs.tap) || return 1
	# shellcheck disable=SC2086
	"$TB_TOP/tests/run" -o /results $TB_TESTS >"$port"
}

mode_bench() {
	"$TB_TOP/bench/guest.sh" /results
}

case "${1:-}" in
testbed) mode_testbed ;;
bench) mode_bench ;;
boot) mode_boot ;;
check) mode_check ;;
*) echo "usage: job.sh testbed|boot|check|bench" >&2; exit 2 ;;
esac
