# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The test devices every group may make in the guest, sourced by
# tests/lib/common.sh: a scsi_debug disk of any geometry, and a
# memory-backed zoned null_blk device through configfs.

# _scsi_debug_start ARGS...: load scsi_debug with ARGS (it must not be
# loaded yet) and print its disk, /dev/sdX, once it is there.
_scsi_debug_start() {
	local d
	[ ! -d /sys/module/scsi_debug ] || _fail "scsi_debug is already loaded" || return 1
	modprobe scsi_debug "$@" || _fail "modprobe scsi_debug $*" || return 1
	for _ in $(seq 100); do
		d=$(find /sys/bus/pseudo/drivers/scsi_debug/adapter*/ -maxdepth 6 -path '*/block/*' -name 'sd*' 2>/dev/null | head -n 1)
		[ -n "$d" ] && [ -b "/dev/${d##*/}" ] && break
		sleep 0.1
	done
	[ -n "$d" ] && [ -b "/dev/${d##*/}" ] || _fail "no scsi_debug disk appeared" || return 1
	echo "/dev/${d##*/}"
}

# _scsi_debug_stop: unload scsi_debug (after unmounting $MNT if mounted).
_scsi_debug_stop() {
	_zonefs_umount
	[ ! -d /sys/module/scsi_debug ] && return 0
	modprobe -r scsi_debug || _fail "cannot unload scsi_debug"
}

NULLB_CFG=/sys/kernel/config/nullb
NULLB_DIR=""
NULLB_DEV=""

# _nullb_make NAME ZONE_MB NR_CONV SIZE_MB [MAX_OPEN [MAX_ACTIVE
# [MAX_SECTORS]]]: a memory-backed zoned null_blk device, 4096 B blocks,
# with these zone resource limits (0: none) and largest request (512 B
# sectors; 0: null_blk's default), and the configfs items NULLB_ATTRS
# says; sets NULLB_DEV.
_nullb_make() {
	local d=$NULLB_CFG/$1

	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	modprobe null_blk nr_devices=0 || _fail "modprobe null_blk" || return 1
	mkdir "$d" || _fail "mkdir $d" || return 1
	NULLB_DIR=$d
	echo 4096 >"$d/blocksize" &&
		echo 1 >"$d/memory_backed" &&
		echo 1 >"$d/zoned" &&
		echo "$2" >"$d/zone_size" &&
		echo "$3" >"$d/zone_nr_conv" &&
		echo "$4" >"$d/size" &&
		echo "${5:-0}" >"$d/zone_max_open" &&
		echo "${6:-0}" >"$d/zone_max_active" &&
		echo "${7:-0}" >"$d/max_sectors" &&
		_nullb_attrs "$d" &&
		echo 1 >"$d/power" || _fail "configure null_blk $1" || return 1
	# The disk is named after the configfs item in newer kernels.
	NULLB_DEV=/dev/$1
	[ -b "$NULLB_DEV" ] || NULLB_DEV=/dev/nullb$(cat "$d/index")
	udevadm settle 2>/dev/null || true
	[ -b "$NULLB_DEV" ] || _fail "no $NULLB_DEV" || return 1
	echo "null_blk $NULLB_DEV: dma_alignment $(cat "/sys/block/${NULLB_DEV#/dev/}/queue/dma_alignment" 2>/dev/null)" >>"${FULL:-/dev/null}"
}

# _nullb_attrs DIR: the ATTR=VALUE words of NULLB_ATTRS (irqmode=2
# completion_nsec=..., say) written to the device's configfs items.
NULLB_ATTRS=()
_nullb_attrs() {
	local a
	for a in "${NULLB_ATTRS[@]}"; do
		echo "${a#*=}" >"$1/${a%%=*}" || return 1
	done
}

_nullb_remove() {
	[ -n "$NULLB_DIR" ] || return 0
	echo 0 >"$NULLB_DIR/power"
	rmdir "$NULLB_DIR"
	NULLB_DIR="" NULLB_DEV=""
}
