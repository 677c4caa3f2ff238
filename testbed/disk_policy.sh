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

# _dp_read FILE VAR: the first line of FILE into VAR (no fork); fails if
# FILE cannot be read.
_dp_read() {
	local _l
	{ IFS= read -r _l || [ -n "$_l" ]; } 2>/dev/null <"$1" || return 1
	printf -v "$2" '%s' "$_l"
}

# _dp_majmin PATH: "major:minor" of a block device node, in decimal.
_dp_majmin() {
	local maj min
	read -r maj min < <(stat -L -c '%t %T' "$1" 2>/dev/null) || return 1
	echo "$((16#$maj)):$((16#$min))"
}

# _dp_match SYSFS SOURCE: does SOURCE (a path from a mount or swap table)
# name the disk or one of its partitions (the array dp_names)? Sets
# dp_found to that name.
_dp_match() {
	local sysfs=$1 src=$2 n mm dev
	printf -v src '%b' "$src"
	case "$src" in
	/*) ;;
	*) return 1 ;;
	esac
	if [ -b "$src" ] && mm=$(_dp_majmin "$src"); then
		for n in "${dp_names[@]}"; do
			if _dp_read "$sysfs/class/block/$n/dev" dev && [ "$dev" = "$mm" ]; then
				dp_found=$n
				return 0
			fi
		done
	fi
	[ ! -L "$src" ] || src=$(readlink -f "$src" 2>/dev/null || echo "$src")
	for n in "${dp_names[@]}"; do
		if [ "${src##*/}" = "$n" ]; then
			dp_found=$n
			return 0
		fi
	done
	return 1
}

# _dp_holder SYSFS NAME: a holder described: "dm-0 (device mapper vg-lv)".
_dp_holder() {
	local sysfs=$1 h=$2 dm=
	case "$h" in
	dm-*)
		_dp_read "$sysfs/class/block/$h/dm/name" dm
		dp_holder="$h (device mapper${dm:+ $dm})" ;;
	md*) dp_holder="$h (md array)" ;;
	*) dp_holder=$h ;;
	esac
}

# _dp_describe SYSBLK: "VENDOR MODEL, host-managed, N zones of M MiB, S GiB".
_dp_describe() {
	local q=$1/queue vendor='' model='' zoned='' zsec=0 nz='?' size=0 words
	_dp_read "$1/device/vendor" vendor
	_dp_read "$1/device/model" model
	_dp_read "$q/zoned" zoned
	_dp_read "$q/chunk_sectors" zsec
	_dp_read "$q/nr_zones" nz
	_dp_read "$1/size" size
	read -r -a words <<<"$vendor $model"
	model=${words[*]}
	printf '%s, %s, %s zones of %s MiB, %s GiB\n' "${model:-unknown model}" \
		"$zoned" "$nz" "$((zsec / 2048))" "$((size / 2097152))"
}

# tb_disk_policy DISK FORMAT: may make boot hand DISK to the guest?
# Prints the device's canonical path on stdout and what will happen to it
# on stderr; or prints one refusal line on stderr and returns 1.
tb_disk_policy() {
	local disk=$1 format=$2 sysfs=${DP_SYSFS:-/sys} mounts=${DP_MOUNTS:-/proc/mounts}
	local swaps=${DP_SWAPS:-/proc/swaps} blkid=${DP_BLKID:-blkid}
	local path name sysblk zoned=none dev src n h p held=() out rc line type='' pttype='' label='' what
	local dp_names=() dp_found dp_holder

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
	if ! _dp_read "$sysblk/dev" dev || [ "$dev" != "$(_dp_majmin "$path")" ]; then
		_dp_refuse "$disk" "is not a block device this kernel knows ($sysblk does not match $path)"
		return 1
	fi
	_dp_read "$sysblk/queue/zoned" zoned
	case "$zoned" in
	host-managed | host-aware) ;;
	*) _dp_refuse "$disk" "is not a zoned block device (zoned: $zoned)"; return 1 ;;
	esac

	# The disk and its partitions.
	dp_names=("$name")
	for p in "$sysblk"/*/partition; do
		[ -f "$p" ] || continue
		p=${p%/partition}
		dp_names+=("${p##*/}")
	done
	while read -r src n _; do
		if _dp_match "$sysfs" "$src"; then
			printf -v n '%b' "$n"
			_dp_refuse "$disk" "is mounted (/dev/$dp_found on $n)"
			return 1
		fi
	done <"$mounts"
	if [ -r "$swaps" ]; then
		while read -r src _; do
			[ "$src" = Filename ] && continue
			if _dp_match "$sysfs" "$src"; then
				_dp_refuse "$disk" "is in use as swap (/dev/$dp_found)"
				return 1
			fi
		done <"$swaps"
	fi
	for n in "${dp_names[@]}"; do
		for h in "$sysfs/class/block/$n/holders"/*; do
			[ -e "$h" ] || [ -L "$h" ] || continue
			_dp_holder "$sysfs" "${h##*/}"
			[ "$n" = "$name" ] || dp_holder+=" (through /dev/$n)"
			held+=("$dp_holder")
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
	while IFS= read -r line; do
		case "$line" in
		TYPE=*) [ -n "$type" ] || type=${line#TYPE=} ;;
		PTTYPE=*) [ -n "$pttype" ] || pttype=${line#PTTYPE=} ;;
		LABEL=*) [ -n "$label" ] || label=" labelled '${line#LABEL=}'" ;;
		esac
	done <<<"$out"
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
		out=${out%%$'\n'*}
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
