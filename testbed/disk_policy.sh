# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What make boot may do with a real drive given as DISK=/dev/sdX, decided
# on the host before QEMU starts (tb_disk_policy), and in the guest once
# the drive is there (tb_boot_format). Sourced by testbed/vm.sh and
# testbed/guest/job.sh.
#
# A drive is only ever written with FORMAT=1. Even then it is refused, with
# one line and nothing written, when it is not a zoned block device, is
# mounted, is in use as swap, is held by another block device (device
# mapper, md), or carries any signature other than zonefs (blkid -p), or
# when blkid cannot tell. Without FORMAT=1, a drive that holds zonefs is
# mounted and one that holds nothing is described and left as it is.
#
# tb_disk_policy reads the machine through these variables, so that the
# host tests can give it made-up answers:
#   DP_SYSFS   sysfs root (/sys)
#   DP_MOUNTS  the mount table (/proc/mounts)
#   DP_SWAPS   the swap table (/proc/swaps)
#   DP_BLKID   the blkid command (blkid), run as: $DP_BLKID -p -o export DEV

# _dp_refuse DISK WHY: the one refusal line; returns 1.
_dp_refuse() {
	printf '%s: error: DISK=%s %s; nothing was written to it\n' "${0##*/}" "$1" "$2" >&2
	return 1
}

# _dp_majmin PATH: "major:minor" of a block device node, in decimal.
_dp_majmin() {
	local maj min
	read -r maj min < <(stat -L -c '%t %T' "$1" 2>/dev/null) || return 1
	echo "$((16#$maj)):$((16#$min))"
}

# _dp_names SYSBLK: the kernel names of the disk and of its partitions.
_dp_names() {
	local p
	echo "${1##*/}"
	for p in "$1"/*/partition; do
		[ -f "$p" ] || continue
		p=${p%/partition}
		echo "${p##*/}"
	done
}

# _dp_match SYSFS NAMES SOURCE: does SOURCE (a path from a mount or swap
# table) name the disk or one of its partitions? Prints that name.
_dp_match() {
	local sysfs=$1 names=$2 src=$3 n mm
	printf -v src '%b' "$src"
	case "$src" in
	/*) ;;
	*) return 1 ;;
	esac
	if [ -b "$src" ]; then
		mm=$(_dp_majmin "$src") || mm=
		for n in $names; do
			if [ -n "$mm" ] && [ "$(cat "$sysfs/class/block/$n/dev" 2>/dev/null)" = "$mm" ]; then
				echo "$n"
				return 0
			fi
		done
	fi
	src=$(readlink -f "$src" 2>/dev/null || echo "$src")
	for n in $names; do
		if [ "${src##*/}" = "$n" ]; then
			echo "$n"
			return 0
		fi
	done
	return 1
}

# _dp_holder SYSFS NAME: a holder described: "dm-0 (device mapper vg-lv)".
_dp_holder() {
	local sysfs=$1 h=$2 dm
	case "$h" in
	dm-*)
		dm=$(cat "$sysfs/class/block/$h/dm/name" 2>/dev/null) || dm=
		echo "$h (device mapper${dm:+ $dm})" ;;
	md*) echo "$h (md array)" ;;
	*) echo "$h" ;;
	esac
}

# _dp_describe SYSBLK: "VENDOR MODEL, host-managed, N zones of M MiB, S GiB".
_dp_describe() {
	local q=$1/queue model zsec nz size
	model=$(cat "$1/device/vendor" "$1/device/model" 2>/dev/null | xargs)
	zsec=$(cat "$q/chunk_sectors" 2>/dev/null) || zsec=0
	nz=$(cat "$q/nr_zones" 2>/dev/null) || nz='?'
	size=$(cat "$1/size" 2>/dev/null) || size=0
	printf '%s, %s, %s zones of %s MiB, %s GiB\n' "${model:-unknown model}" \
		"$(cat "$q/zoned")" "$nz" "$((zsec / 2048))" "$((size / 2097152))"
}

# tb_disk_policy DISK FORMAT: may make boot hand DISK to the guest?
# Prints the device's canonical path on stdout and what will happen to it
# on stderr; or prints one refusal line on stderr and returns 1.
tb_disk_policy() {
	local disk=$1 format=$2 sysfs=${DP_SYSFS:-/sys} mounts=${DP_MOUNTS:-/proc/mounts}
	local swaps=${DP_SWAPS:-/proc/swaps} blkid=${DP_BLKID:-blkid}
	local path name sysblk zoned names found src n h held=() out rc type pttype label what

	case "$format" in
	0 | 1) ;;
	*) _dp_refuse "$disk" "was given with FORMAT=$format (FORMAT is 0 or 1)"; return 1 ;;
	esac
	path=$(readlink -f "$disk" 2>/dev/null) || path=
	if [ -z "$path" ] || [ ! -b "$path" ]; then
		_dp_refuse "$disk" "is not a block device"
		return 1
	fi
	name=${path##*/}
	sysblk=$sysfs/class/block/$name
	if [ ! -f "$sysblk/dev" ] || [ "$(cat "$sysblk/dev")" != "$(_dp_majmin "$path")" ]; then
		_dp_refuse "$disk" "is not a block device this kernel knows ($sysblk does not match $path)"
		return 1
	fi
	zoned=$(cat "$sysblk/queue/zoned" 2>/dev/null) || zoned=none
	case "$zoned" in
	host-managed | host-aware) ;;
	*) _dp_refuse "$disk" "is not a zoned block device (zoned: $zoned)"; return 1 ;;
	esac

	names=$(_dp_names "$sysblk")
	while read -r src n _; do
		if found=$(_dp_match "$sysfs" "$names" "$src"); then
			printf -v n '%b' "$n"
			_dp_refuse "$disk" "is mounted (/dev/$found on $n)"
			return 1
		fi
	done <"$mounts"
	if [ -r "$swaps" ]; then
		while read -r src _; do
			[ "$src" = Filename ] && continue
			if found=$(_dp_match "$sysfs" "$names" "$src"); then
				_dp_refuse "$disk" "is in use as swap (/dev/$found)"
				return 1
			fi
		done <"$swaps"
	fi
	for n in $names; do
		for h in "$sysfs/class/block/$n/holders"/*; do
			[ -e "$h" ] || [ -L "$h" ] || continue
			what=
			[ "$n" = "$name" ] || what=" (through /dev/$n)"
			held+=("$(_dp_holder "$sysfs" "${h##*/}")$what")
		done
	done
	if [ ${#held[@]} -gt 0 ]; then
		_dp_refuse "$disk" "is held by ${held[*]}"
		return 1
	fi

	# blkid -p: 0 found something, 2 found nothing, 8 found several
	# signatures; anything else (an I/O error, a missing blkid) means
	# that what the drive holds is unknown.
	out=$("$blkid" -p -o export "$path" 2>&1)
	rc=$?
	type=$(sed -n 's/^TYPE=//p' <<<"$out" | head -n 1)
	pttype=$(sed -n 's/^PTTYPE=//p' <<<"$out" | head -n 1)
	label=$(sed -n 's/^LABEL=//p' <<<"$out" | head -n 1)
	[ -z "$label" ] || label=" labelled '$label'"
	case "$rc" in
	0)
		if [ -n "$pttype" ]; then
			_dp_refuse "$disk" "carries a $pttype partition table (blkid -p); erase it first (wipefs -a) if it is no longer needed"
			return 1
		elif [ "$type" != zonefs ]; then
			_dp_refuse "$disk" "carries a signature that is not zonefs: ${type:-unknown}$label (blkid -p); erase it first (wipefs -a) if it is no longer needed"
			return 1
		fi
		what="holds zonefs$label" ;;
	2) what="holds no signature" ;;
	8)
		_dp_refuse "$disk" "carries several signatures (blkid -p: ambivalent result)"
		return 1 ;;
	*)
		out=$(head -n 1 <<<"$out")
		_dp_refuse "$disk" "cannot be probed (blkid -p exit $rc${out:+: $out}), so what it holds is unknown"
		return 1 ;;
	esac

	if [ "$format" = 1 ]; then
		what="$what: FORMAT=1, it will be formatted with zonefs"
	elif [ "$type" = zonefs ]; then
		what="$what: it will be mounted"
	else
		what="$what: it is left as it is, neither formatted nor mounted (FORMAT=1 formats it)"
	fi
	[ "$path" = "$disk" ] || disk="$disk ($path)"
	printf '%s: DISK=%s: %s; %s\n' "${0##*/}" "$disk" "$(_dp_describe "$sysblk")" "$what" >&2
	echo "$path"
}

# tb_boot_format DEV: in the guest, format DEV as make boot asks. The
# testbed's own disk is formatted when it holds no zonefs or with FORMAT=1.
# A passed-through drive (TB_DISK=passthrough) only with FORMAT=1, and
# without -f unless it already holds zonefs, so that mkzonefs's own checks
# refuse anything else; without FORMAT=1 one that holds no zonefs is left
# as it is, and the caller does not mount it.
tb_boot_format() {
	local dev=$1 force=-f
	[ -x "$MKZONEFS" ] || return 0
	if [ "${TB_DISK:-zbc}" = passthrough ]; then
		if [ "${FORMAT:-0}" != 1 ]; then
			tb_has_zonefs "$dev" ||
				echo "$dev holds no zonefs and FORMAT=1 was not given: it is left as it is and not mounted"
			return 0
		fi
		tb_has_zonefs "$dev" || force=
	elif [ "${FORMAT:-0}" != 1 ] && tb_has_zonefs "$dev"; then
		return 0
	fi
	"$MKZONEFS" ${force:+"$force"} "$dev"
}
